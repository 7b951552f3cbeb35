#!/usr/bin/env node
// The relay alone: `mcph --remote SECTION` (the process the client engine starts for an mcp
// section with url =) driven directly, its settings written on fd 3 and JSON-RPC lines on
// stdin, in front of an upstream mcph --listen 127.0.0.1:0 serving the example plugin.
//
//   node tests/remote/relay.mjs [BINARY]      BINARY: build/mcph
//
// Both eras: the legacy handshake (initialize, its Mcp-Session-Id on every later request, a
// stream of progress events passed on as lines as they come) and 2026-07-28 (server/discover,
// then requests with no session, their headers mirrored from the body); an HTTP failure
// answered as a JSON-RPC error for its id; a bearer token from token_file and from the
// settings, a wrong one refused with exit 78 at the handshake; OAuth client credentials
// against a small authorization server of the test's own (the resource asked for, a new
// token after a 401, a client refused: 78); a legacy session's GET stream carrying a
// list_changed; Mcp-Param-* headers from the schemas tools/list gave; settings faults (no url, plain
// http, a missing token_file, a bad CIDR, no fd 3) and the SSRF guard refusing loopback
// without allow_networks: exit 78, the reason named on stderr without the token; the end of
// stdin: exit 0; the upstream gone: exit 1. Bounds scale with MCPH_TEST_SLOW (3 under
// ASan/UBSan, 5 under TSan). Prints "ok relay ..." / "FAIL relay ...: why", then a summary;
// exits 1 on a failure.

import fs from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { check, done, expect, expectEq } from '../lib/check.mjs';
import { Proc } from '../lib/proc.mjs';
import { workspace, writeIni, PLUGINS, TESTS_ROOT } from '../lib/workspace.mjs';
import { ROOT, sanitizersOf, SANITIZER_REPORT, short, sleep } from '../lib/util.mjs';
import { startServer, stopAll } from '../http/clients-lib.mjs';
import crypto from 'node:crypto';
import http from 'node:http';

const mcph = path.resolve(process.argv[2] || 'build/mcph');
const SAN = sanitizersOf(mcph);
const SLOW = Number(process.env.MCPH_TEST_SLOW) || (SAN.thread ? 5 : SAN.any ? 3 : 1);
const MS = 5000 * SLOW;
const MODERN = '2026-07-28';
const TOKEN = 'relay-test-token-3f9a2c';
const ws = workspace('remote', 'relay');
const relays = [];
const serversExtra = [];

const META = {
    'io.modelcontextprotocol/protocolVersion': MODERN,
    'io.modelcontextprotocol/clientInfo': { name: 'relay-test', version: '1' },
    'io.modelcontextprotocol/clientCapabilities': {},
};

// A relay with settings (an object, written on fd 3 and closed; null: no fd 3 at all).
function relay(settings, name = 'r') {
    const p = new Proc([mcph, '--remote', name], { fds: settings === null ? [] : ['pipe'] });
    if (settings !== null) {
        const fd3 = p.child.stdio[3];
        fd3.on('error', () => {});
        fd3.end(JSON.stringify(settings));
    }
    relays.push(p);
    return p;
}

// The next message that is a response (notifications are kept in notes when given).
async function response(p, notes = []) {
    const deadline = performance.now() + MS;
    for (;;) {
        const msg = await p.next(Math.max(1, deadline - performance.now()));
        if (msg.id !== undefined && msg.method === undefined) return msg;
        notes.push(msg);
    }
}

// Why a relay ended: its last line on stdout (notifications/dev.mcph/relay_ended, which the
// engine's messages say), or what it said on stderr when it had no one to tell.
const ENDED = 'notifications/dev.mcph/relay_ended';
function reasonOf(p) {
    const ended = p.events.filter((e) => e.msg?.method === ENDED)
        .map((e) => e.msg.params?.reason ?? '');
    return [...ended, p.stderr].join('\n');
}

// A relay that must exit with code, saying what (a RegExp) as its reason.
async function refused(p, code, what) {
    const r = await p.wait(MS);
    const why = reasonOf(p);
    expectEq(r.code, code, `exit status (reason: ${short(why, 300)})`);
    expect(what.test(why), `the reason names the fault ${what}: ${short(why, 300)}`);
    expect(!why.includes(TOKEN), 'the token is never printed');
    expectEq(p.events.filter((e) => e.msg?.method !== ENDED).length, 0,
        'nothing on stdout but the reason');
}

function initialize(id = 1) {
    return {
        jsonrpc: '2.0', id, method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'relay-test', version: '1' } },
    };
}

const tokens = path.join(ws, 'tokens');
fs.writeFileSync(tokens, `${TOKEN}\n`, { mode: 0o600 });
const tokenFile = path.join(ws, 'token');
fs.writeFileSync(tokenFile, `  ${TOKEN}\n\n`, { mode: 0o600 });
const plainIni = writeIni(ws, {
    server: { name: 'relay-upstream', plugin_dir: PLUGINS },
    'plugin.example': { path: 'example.so' },
}, 'plain.ini');
const authIni = writeIni(ws, {
    server: { name: 'relay-upstream-auth', plugin_dir: PLUGINS, auth_token_file: tokens },
    'plugin.example': { path: 'example.so' },
}, 'auth.ini');

const conformanceIni = writeIni(ws, {
    server: { name: 'relay-upstream-conformance', plugin_dir: path.join(TESTS_ROOT, 'conformance') },
    'plugin.conformance': { path: 'conformance.so' },
}, 'conformance.ini');

const up = await startServer(mcph, plainIni, 'upstream', MS * 2);
const authUp = await startServer(mcph, authIni, 'upstream-auth', MS * 2);
const loopback = { allow_http: true, allow_networks: ['127.0.0.0/8', '::1/128'] };

await check('relay legacy session: initialize, tools/list, a call, a stream of progress', async () => {
    const p = relay({ url: up.url, ...loopback });
    p.send(initialize(1));
    // Sent before the answer to initialize: held until its session id is known.
    p.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    p.send({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
    const init = await response(p);
    expectEq(init.id, 1, 'initialize answered');
    expectEq(init.result.serverInfo.name, 'relay-upstream', 'server name');
    const list = await response(p);
    expectEq(list.id, 2, 'tools/list answered');
    const names = list.result.tools.map((t) => t.name);
    expect(names.includes('greet') && names.includes('count'), `tools listed: ${names}`);
    p.send({ jsonrpc: '2.0', id: 'a"b', method: 'tools/call', params: { name: 'greet', arguments: { name: 'relay\nline' } } });
    const greet = await response(p);
    expectEq(greet.id, 'a"b', 'a string id with a quote comes back as sent');
    expect(greet.result.content[0].text.includes('relay\nline'), `greet: ${short(greet, 200)}`);
    p.send({ jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'count', arguments: { to: 3 }, _meta: { progressToken: 'pt' } } });
    const notes = [];
    const count = await response(p, notes);
    expectEq(count.id, 4, 'count answered');
    const progress = notes.filter((n) => n.method === 'notifications/progress').map((n) => n.params.progress);
    expectEq(progress, [1, 2, 3], 'progress events, in order, before the result');
    p.send({ jsonrpc: '2.0', id: 5, method: 'tools/call', params: { name: 'no_such_tool', arguments: {} } });
    const unknown = await response(p);
    expect(unknown.error || unknown.result?.isError, `an unknown tool: ${short(unknown, 200)}`);
    const t0 = performance.now();
    p.close();
    const r = await p.wait(MS);
    expectEq(r.code, 0, `exit at the end of stdin (stderr: ${short(p.stderr, 300)})`);
    return `${names.length} tools, ended in ${Math.round(performance.now() - t0)} ms`;
});

await check('relay legacy session: the GET stream passes on what the upstream sends unasked', async () => {
    const ini = writeIni(ws, {
        server: { name: 'relay-upstream-get', plugin_dir: PLUGINS },
        'plugin.example': { path: 'example.so' },
    }, 'get.ini');
    const getUp = await startServer(mcph, ini, 'upstream-get', MS * 2);
    serversExtra.push(getUp);
    const p = relay({ url: getUp.url, ...loopback });
    p.send(initialize(1));
    await response(p);
    p.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    // The GET stream opens after initialized: wait for the upstream to hold it, then add a
    // plugin to its INI and reload it: its list_changed goes to the session's GET stream.
    await sleep(500 * SLOW);
    fs.appendFileSync(ini, `\n[plugin.prompts]\npath = prompts.so\ndir = ${path.join(ROOT, 'conf/prompts')}\n`);
    getUp.hup();
    const msg = await p.next(MS);
    expectEq(msg.method, 'notifications/prompts/list_changed', 'a notification on the GET stream');
    p.close();
    expectEq((await p.wait(MS)).code, 0, 'exit status');
});

await check('relay 2026-07-28: server/discover, then requests with no session', async () => {
    const p = relay({ url: up.url, ...loopback });
    p.send({ jsonrpc: '2.0', id: 1, method: 'server/discover', params: { _meta: META } });
    const disc = await response(p);
    expect(disc.result.supportedVersions.includes(MODERN), `discover: ${short(disc, 200)}`);
    // Mcp-Name mirrors the tool's name; a name outside ASCII goes in its base64 form (an
    // unknown tool still answers as one, not as a header mismatch).
    p.send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'greet', arguments: { name: 'é' }, _meta: META } });
    p.send({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'grüß', arguments: {}, _meta: META } });
    const got = [await response(p), await response(p)].sort((a, b) => a.id - b.id);
    expect(got[0].result?.content?.[0]?.text?.includes('é'), `greet: ${short(got[0], 200)}`);
    expect(!/[Hh]eader/.test(JSON.stringify(got[1])), `no header mismatch: ${short(got[1], 200)}`);
    p.close();
    expectEq((await p.wait(MS)).code, 0, 'exit status');
});

await check('relay 2026-07-28: Mcp-Param-* headers from the schemas tools/list gave', async () => {
    const conf = await startServer(mcph, conformanceIni, 'upstream-conformance', MS * 2);
    const p = relay({ url: conf.url, ...loopback });
    p.send({ jsonrpc: '2.0', id: 1, method: 'server/discover', params: { _meta: META } });
    await response(p);
    const call = (id, region) => ({
        jsonrpc: '2.0', id, method: 'tools/call',
        params: { name: 'test_custom_headers', arguments: { region }, _meta: META },
    });
    // Before tools/list the relay knows no schema: the upstream sees no header, and says so.
    p.send(call(2, 'eu-west'));
    const before = await response(p);
    expect(/Mcp-Param-Region/.test(JSON.stringify(before)), `a call before tools/list: ${short(before, 200)}`);
    p.send({ jsonrpc: '2.0', id: 3, method: 'tools/list', params: { _meta: META } });
    const list = await response(p);
    expect(list.result.tools.some((t) => t.name === 'test_custom_headers'), 'the tool is listed');
    p.send(call(4, 'eu-west'));
    p.send(call(5, 'Zürich north'));
    const got = [await response(p), await response(p)].sort((a, b) => a.id - b.id);
    expect(got[0].result?.content?.[0]?.text?.includes('eu-west'), `ASCII region: ${short(got[0], 200)}`);
    expect(got[1].result?.content?.[0]?.text?.includes('Zürich north'), `non-ASCII region: ${short(got[1], 200)}`);
    p.close();
    expectEq((await p.wait(MS)).code, 0, 'exit status');
    serversExtra.push(conf);
});

await check('relay: an HTTP failure is a JSON-RPC error for its id', async () => {
    const p = relay({ url: up.url, ...loopback });
    // No initialize: a legacy upstream wants a session (400 with its own error).
    p.send({ jsonrpc: '2.0', id: 9, method: 'tools/list' });
    const err = await response(p);
    expectEq(err.id, 9, 'the id');
    expect(typeof err.error?.message === 'string' && typeof err.error?.code === 'number', `error: ${short(err, 200)}`);
    p.close();
    expectEq((await p.wait(MS)).code, 0, 'exit status');
});

await check('relay: a bearer token from token_file (trimmed) and from the settings', async () => {
    for (const creds of [{ token_file: tokenFile }, { token: TOKEN }]) {
        const p = relay({ url: authUp.url, ...loopback, ...creds });
        p.send(initialize(1));
        const init = await response(p);
        expectEq(init.result?.serverInfo?.name, 'relay-upstream-auth', `initialize with ${Object.keys(creds)}`);
        p.close();
        expectEq((await p.wait(MS)).code, 0, 'exit status');
    }
});

await check('relay: a wrong or missing token is refused at the handshake (78)', async () => {
    let p = relay({ url: authUp.url, ...loopback, token: `${TOKEN}-wrong` });
    p.send(initialize(1));
    await refused(p, 78, /HTTP 401/);
    p = relay({ url: authUp.url, ...loopback });
    p.send({ jsonrpc: '2.0', id: 1, method: 'server/discover', params: { _meta: META } });
    await refused(p, 78, /HTTP 401/);
});

// A small authorization server on 127.0.0.1: a JWKS and a client_credentials token endpoint
// that signs RS256 access tokens for the resource asked (aud), for client robot alone.
async function authServer() {
    const { privateKey, publicKey } = crypto.generateKeyPairSync('rsa', { modulusLength: 2048 });
    const kid = 'relay-test-key';
    const as = { asked: [], aud: null };
    const b64 = (o) => Buffer.from(JSON.stringify(o)).toString('base64url');
    as.server = http.createServer((req, res) => {
        let body = '';
        req.on('data', (d) => { body += d; });
        req.on('end', () => {
            const reply = (status, obj) => {
                res.writeHead(status, { 'Content-Type': 'application/json' });
                res.end(JSON.stringify(obj));
            };
            if (req.url === '/jwks') return reply(200, { keys: [{ ...publicKey.export({ format: 'jwk' }), kid, alg: 'RS256', use: 'sig' }] });
            if (req.url !== '/token' || req.method !== 'POST') return reply(404, { error: 'not_found' });
            const form = Object.fromEntries(new URLSearchParams(body));
            const basic = Buffer.from((req.headers.authorization || '').replace(/^Basic /, ''), 'base64').toString();
            as.asked.push({ form, basic });
            if (basic !== 'robot:robot-secret') return reply(401, { error: 'invalid_client' });
            if (form.grant_type !== 'client_credentials') return reply(400, { error: 'unsupported_grant_type' });
            const now = Math.floor(Date.now() / 1000);
            const head = b64({ alg: 'RS256', typ: 'at+jwt', kid });
            const claims = b64({ iss: as.url, aud: as.aud || form.resource, sub: 'robot', scope: form.scope, iat: now, exp: now + 300 });
            const sig = crypto.sign('sha256', Buffer.from(`${head}.${claims}`), privateKey).toString('base64url');
            return reply(200, { access_token: `${head}.${claims}.${sig}`, token_type: 'Bearer', expires_in: 300 });
        });
    });
    await new Promise((resolve) => as.server.listen(0, '127.0.0.1', resolve));
    as.url = `http://127.0.0.1:${as.server.address().port}`;
    return as;
}

await check('relay: OAuth client credentials (RFC 8707 resource), a new token after a 401, a refusal exits 78', async () => {
    const as = await authServer();
    try {
        const secret = path.join(ws, 'client-secret');
        fs.writeFileSync(secret, 'robot-secret\n', { mode: 0o600 });
        // The upstream's resource is the URL the relay connects to: a port found first.
        const probe = await startServer(mcph, plainIni, 'oauth-probe', MS * 2);
        const port = probe.port;
        await probe.stop(MS);
        const resource = `http://127.0.0.1:${port}/mcp`;
        const ini = writeIni(ws, {
            server: {
                name: 'relay-upstream-oauth', plugin_dir: PLUGINS, oauth_issuer: as.url,
                oauth_resource: resource, oauth_jwks_url: `${as.url}/jwks`, oauth_scopes: 'mcp:tools',
            },
            'plugin.example': { path: 'example.so' },
        }, 'oauth.ini');
        const oup = await startServer(mcph, ini, 'upstream-oauth', MS * 2, ['--listen', `127.0.0.1:${port}`]);
        serversExtra.push(oup);
        const oauth = { token_url: `${as.url}/token`, client_id: 'robot', client_secret_file: secret, scope: 'mcp:tools' };
        const p = relay({ url: resource, ...loopback, oauth });
        p.send(initialize(1));
        const init = await response(p);
        expectEq(init.result?.serverInfo?.name, 'relay-upstream-oauth', `initialize (stderr: ${short(p.stderr, 300)})`);
        expectEq(as.asked.length, 1, 'one token asked for');
        expectEq(as.asked[0].form.grant_type, 'client_credentials', 'grant_type');
        expectEq(as.asked[0].form.resource, resource, 'resource (RFC 8707)');
        expectEq(as.asked[0].form.scope, 'mcp:tools', 'scope');
        p.close();
        expectEq((await p.wait(MS)).code, 0, 'exit status');
        // Tokens for another resource from now on: refused by the upstream (401), the relay
        // asks for a new token once, then the handshake is refused: 78.
        as.aud = 'https://elsewhere.example/mcp';
        const before = as.asked.length;
        const q = relay({ url: resource, ...loopback, oauth });
        q.send(initialize(1));
        await refused(q, 78, /HTTP 401/);
        expectEq(as.asked.length - before, 2, 'a token at start, and once more after the 401');
        const bad = path.join(ws, 'bad-secret');
        fs.writeFileSync(bad, 'wrong\n', { mode: 0o600 });
        const r = relay({ url: resource, ...loopback, oauth: { ...oauth, client_id: 'intruder', client_secret_file: bad } });
        await refused(r, 78, /refused the client credentials of intruder \(HTTP 401, invalid_client\)/);
        expect(![p, q, r].some((x) => reasonOf(x).includes('robot-secret') || reasonOf(x).includes('wrong')), 'no secret printed');
    } finally {
        as.server.close();
    }
});

await check('relay: the SSRF guard refuses loopback without allow_networks (78)', async () => {
    let p = relay({ url: up.url, allow_http: true });
    p.send(initialize(1));
    await refused(p, 78, /127\.0\.0\.1.*not a public address/);
    // Allowed for IPv6 loopback only: 127.0.0.1 is still refused.
    p = relay({ url: up.url, allow_http: true, allow_networks: ['::1/128', '10.0.0.0/8'] });
    p.send(initialize(1));
    await refused(p, 78, /not a public address/);
});

await check('relay: settings faults exit 78 naming the setting', async () => {
    const cases = [
        [{ allow_http: true }, /url: missing/],
        [{ url: up.url }, /plain http is refused/],
        [{ url: 'ftp://example.com/mcp' }, /not an https/],
        [{ url: up.url, ...loopback, token_file: path.join(ws, 'nope') }, /token_file .*nope: No such file/],
        [{ url: up.url, ...loopback, headers_file: path.join(ws, 'nope') }, /headers_file .*nope/],
        [{ url: up.url, ...loopback, token: `${TOKEN}\nX-Evil: 1` }, /token: empty, or a line break/],
        [{ url: up.url, allow_http: true, allow_networks: ['127.0.0.0/33'] }, /allow_networks: 127\.0\.0\.0\/33/],
        [{ url: up.url, ...loopback, ca_file: path.join(ws, 'no-ca.pem') }, /ca_file .*no-ca\.pem/],
        [null, /no settings on fd 3/],
    ];
    for (const [settings, what] of cases) await refused(relay(settings), 78, what);
    // Not JSON at all.
    const p = new Proc([mcph, '--remote', 'r'], { fds: ['pipe'] });
    relays.push(p);
    p.child.stdio[3].end('{"url": ');
    await refused(p, 78, /not a JSON object/);
    return `${cases.length + 1} faults`;
});

await check('relay: headers_file lines reach the upstream (its token as a header)', async () => {
    const headers = path.join(ws, 'headers');
    fs.writeFileSync(headers, `# a comment\n\nAuthorization: Bearer ${TOKEN}\nX-Relay-Test: yes\n`, { mode: 0o600 });
    const p = relay({ url: authUp.url, ...loopback, headers_file: headers });
    p.send(initialize(1));
    const init = await response(p);
    expectEq(init.result?.serverInfo?.name, 'relay-upstream-auth', 'initialize');
    p.close();
    expectEq((await p.wait(MS)).code, 0, 'exit status');
    const bad = path.join(ws, 'bad-headers');
    fs.writeFileSync(bad, 'no colon here\n');
    await refused(relay({ url: authUp.url, ...loopback, headers_file: bad }), 78, /bad-headers:1: not a 'Name: value'/);
});

await check('relay: the upstream gone exits 1', async () => {
    const gone = await startServer(mcph, plainIni, 'upstream-gone', MS * 2);
    const p = relay({ url: gone.url, ...loopback });
    p.send(initialize(1));
    await response(p);
    p.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    await gone.stop(MS);
    const t0 = performance.now();
    p.send({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
    const r = await p.wait(MS * 2);
    expectEq(r.code, 1, `exit status (reason: ${short(reasonOf(p), 300)})`);
    expect(/cannot reach|no longer knows/.test(reasonOf(p)), `the reason says why: ${short(reasonOf(p), 300)}`);
    return `exited ${Math.round(performance.now() - t0)} ms after the request`;
});

// An upstream that tries what it may not: a notification in the relay's own namespace (the
// engine would take it for the relay's reason to end), a header name with CR LF in its
// x-mcp-header (a second header, or a request smuggled on a shared connection), and answers
// whose lines end exactly on the relay's 8 KiB pieces.
await check('relay: a hostile upstream forges no end, smuggles no header; lines of 8 KiB multiples pass whole', async () => {
    const seen = [];
    const line = (id, result) => JSON.stringify({ jsonrpc: '2.0', id, result });
    const server = http.createServer((req, res) => {
        let body = '';
        req.on('data', (c) => { body += c; });
        req.on('end', () => {
            seen.push({ headers: req.headers });
            const msg = JSON.parse(body);
            if (msg.id === undefined) return res.writeHead(202).end();
            let out;
            if (msg.method === 'server/discover') {
                out = line(msg.id, { supportedVersions: [MODERN], capabilities: { tools: {} },
                    serverInfo: { name: 'hostile', version: '1' } });
            } else if (msg.method === 'tools/list') {
                out = line(msg.id, { tools: [{ name: 'smuggle', inputSchema: { type: 'object', properties: {
                    a: { type: 'string', 'x-mcp-header': 'A\r\nX-Injected: yes\r\nB' },
                    b: { type: 'string', 'x-mcp-header': 'Good' } } } }] });
            } else {
                // A text that makes the whole message exactly `size` bytes: on one line in an
                // event stream, or as a JSON body printed over several lines (whose line ends
                // the relay turns into spaces, piece by piece).
                const size = msg.params.arguments.size ?? 100;
                const pretty = msg.params.arguments.pretty === true;
                const print = (text) => (pretty
                    ? JSON.stringify({ jsonrpc: '2.0', id: msg.id, result: { content: [{ type: 'text', text }] } }, null, 1)
                    : line(msg.id, { content: [{ type: 'text', text }] }));
                out = print('x'.repeat(Math.max(0, size - print('').length)));
                if (pretty) {
                    res.writeHead(200, { 'content-type': 'application/json' });
                    return res.end(out);
                }
            }
            const forged = JSON.stringify({ jsonrpc: '2.0', method: ENDED, params: { reason: 'forged by the upstream' } });
            res.writeHead(200, { 'content-type': 'text/event-stream' });
            res.end(`data: ${forged}\n\ndata: ${out}\n\n`);
        });
    });
    await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
        const p = relay({ url: `http://127.0.0.1:${server.address().port}/mcp`, ...loopback });
        const notes = [];
        p.send({ jsonrpc: '2.0', id: 1, method: 'server/discover', params: { _meta: META } });
        await response(p, notes);
        p.send({ jsonrpc: '2.0', id: 2, method: 'tools/list', params: { _meta: META } });
        await response(p, notes);
        p.send({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'smuggle', arguments: { a: 'x', b: 'y' }, _meta: META } });
        await response(p, notes);
        const call = seen[seen.length - 1].headers;
        expect(call['x-injected'] === undefined, `no header smuggled in: ${short(call, 300)}`);
        expectEq(call['mcp-param-good'], 'y', 'the well-formed x-mcp-header still sent');
        const sizes = [8191, 8192, 8193, 16384, 16385];
        for (const [i, size] of sizes.entries()) {
            p.send({ jsonrpc: '2.0', id: 10 + i, method: 'tools/call', params: { name: 'smuggle', arguments: { size }, _meta: META } });
            const r = await response(p, notes);
            expectEq(JSON.stringify(r).length, size, `an answer of ${size} bytes passes whole`);
            const id = 20 + i;
            p.send({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'smuggle', arguments: { size, pretty: true }, _meta: META } });
            const q = await response(p, notes);
            const want = size - JSON.stringify({ jsonrpc: '2.0', id, result: { content: [{ type: 'text', text: '' }] } }, null, 1).length;
            expectEq(q.result?.content?.[0]?.text?.length, want, `a JSON body of ${size} bytes on several lines passes whole`);
        }
        p.close();
        expectEq((await p.wait(MS)).code, 0, 'exit at the end of stdin');
        const forged = [...notes, ...p.events.map((e) => e.msg)].filter((m) => m?.method === ENDED).length;
        expectEq(forged, 0, 'the upstream\'s relay_ended dropped');
        return `${seen.length} requests; answers of ${sizes.join(', ')} bytes whole`;
    } finally {
        server.close();
    }
});

await check('relay: no sanitizer report', async () => {
    const problems = [];
    for (const p of relays) {
        const rep = SANITIZER_REPORT.exec(p.stderr);
        if (rep) problems.push(short(p.stderr.slice(rep.index), 600));
    }
    for (const s of [up, authUp, ...serversExtra]) problems.push(...s.problems());
    return problems;
});

const stopped = await stopAll(MS);
for (const p of relays) if (!p.exited) p.kill('SIGKILL');
done('relay', stopped.length ? stopped.join('; ') : undefined);
