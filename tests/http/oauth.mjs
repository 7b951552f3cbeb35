#!/usr/bin/env node
// mcph as an OAuth 2.1 resource server, against a real authorization server from npm
// (oauth2-mock-server) on 127.0.0.1, with its JWKS URL; over real sockets, loopback only.
//
//   node tests/http/oauth.mjs BINARY          (make test-http)
//
// Checked: the Protected Resource Metadata (RFC 9728) at both well-known paths; the 401
// challenges (resource_metadata, scope, error="invalid_token") and the 403 for insufficient
// scope; the official SDK client (v1, a legacy session) with a token from the server's token
// endpoint calling a tool; refusals of a token with the wrong audience, one for another
// resource, the wrong issuer, an expired one, alg none, one signed by a key not in the JWKS,
// and an unknown kid; a cached token refused once it expires; the static token file beside
// OAuth; a legacy session opened by one subject refused (403) for another's token; key
// rotation (new keys published by the server, tokens signed by them accepted without
// restarting mcph, once the fetch their kid asks for is done: retried within a deadline); 30
// requests at once, tokens of every key (new and cached) and refused ones; a JWKS URL that
// fails at start (a warning, tokens refused); the SDK's own OAuth flow
// (ClientCredentialsProvider) discovering the authorization server from mcph's 401 and getting
// a token for mcph; a scope with a comma in it (one scope); a JWKS URL whose second fetch
// hangs, while requests on kept-alive connections are each answered at once.
// Output: "ok NAME" / "FAIL NAME: why" lines, then "http oauth: N passed, N failed".

import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { OAuth2Server } from 'oauth2-mock-server';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1Transport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ClientCredentialsProvider } from '@modelcontextprotocol/sdk/client/auth-extensions.js';
import { check, report, summary } from '../lib/check.mjs';
import { CAPPED, capped, sanitizersOf, short, sleep } from '../lib/util.mjs';
import { workspace, writeIni, TESTS_ROOT } from '../lib/workspace.mjs';
import { ACCEPT, LEGACY, bare, modernHeaders, modernRequest, post, servers, startServer, stopAll } from './clients-lib.mjs';

const SUITE = 'http-oauth';
const BIN = path.resolve(process.argv[2] || '');
const SAN = sanitizersOf(BIN);
const SLOW = SAN.any ? 5 : 1;
const T = (ms) => ms * SLOW;
const PLUGIN_DIR = path.join(path.dirname(BIN), 'plugins');
// The canonical URI of the server, as clients would reach it behind a proxy: the audience.
const RESOURCE = 'https://mcp.example.test/mcp';
const META_URL = 'https://mcp.example.test/.well-known/oauth-protected-resource/mcp';
const STATIC_TOKEN = 'static-secret-for-the-oauth-test';
const RETRY_S = 10; // mcph fetches the JWKS again at most this often (http_auth.c)

const b64url = (v) => Buffer.from(typeof v === 'string' ? v : JSON.stringify(v)).toString('base64url');
const bearer = (t) => ({ authorization: `Bearer ${t}` });
const init = (id = 1) => ({
    jsonrpc: '2.0', id, method: 'initialize',
    params: { protocolVersion: LEGACY, capabilities: {}, clientInfo: { name: 'oauth-test', version: '1' } },
});
const echo = (id, text = 'hi') => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'ex_echo', arguments: { text } } });

// A token from the server's token endpoint (password grant: sub is the user), for resource
// (RFC 8707: the server puts it in aud, see main) with scope.
async function tokenFrom(as, { user = 'alice', scope = 'mcp:tools', resource = RESOURCE } = {}) {
    const body = new URLSearchParams({ grant_type: 'password', username: user, password: 'x', client_id: 'cli', scope, resource });
    const res = await fetch(`${as.issuer.url}/token`, { method: 'POST', body, signal: AbortSignal.timeout(5000) });
    if (res.status !== 200) throw new Error(`token endpoint: HTTP ${res.status}`);
    return (await res.json()).access_token;
}

// A token built by the server's issuer with its payload changed by fix(payload, header).
function built(as, fix, kid) {
    return as.issuer.buildToken({
        kid,
        scopesOrTransform: (header, payload) => {
            Object.assign(payload, { sub: 'alice', aud: RESOURCE, scope: 'mcp:tools' });
            fix?.(payload, header);
        },
    });
}

// A token signed here with an RSA key of ours (not in the JWKS, a new one unless given), under kid.
function foreign(as, kid, privateKey = crypto.generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey) {
    const now = Math.floor(Date.now() / 1000);
    const head = `${b64url({ alg: 'RS256', typ: 'JWT', kid })}.${b64url({ iss: as.issuer.url, aud: RESOURCE, sub: 'mallory', scope: 'mcp:tools', exp: now + 600, iat: now })}`;
    return `${head}.${crypto.sign('sha256', Buffer.from(head), privateKey).toString('base64url')}`;
}

function challenge(r) {
    return r.headers.get('www-authenticate') || '';
}

// The status and challenge a refused token must get: 401, resource_metadata, invalid_token.
function refusedAsInvalid(r, what) {
    const c = challenge(r);
    const out = [];
    if (r.status !== 401) out.push(`${what}: HTTP ${r.status}, not 401`);
    if (!c.includes(`resource_metadata="${META_URL}"`)) out.push(`${what}: no resource_metadata in "${c}"`);
    if (!c.includes('error="invalid_token"')) out.push(`${what}: no error="invalid_token" in "${c}"`);
    if (r.answer && r.answer.result) out.push(`${what}: answered ${short(r.answer)}`);
    return out;
}

async function callWith(url, token, id = 7) {
    // A 2026-07-28 request: no session needed.
    return post(url, modernRequest(id, 'tools/call', { name: 'ex_echo', arguments: { text: 'hi' } }), { headers: token ? bearer(token) : {} });
}

function writeConfig(ws, as) {
    const tokens = path.join(ws, 'tokens');
    fs.writeFileSync(tokens, `# the static token, beside OAuth\n${STATIC_TOKEN}\n`, { mode: 0o600 });
    return writeIni(ws, {
        server: {
            name: 'mcph-http-oauth', plugin_dir: PLUGIN_DIR, auth_token_file: tokens,
            oauth_issuer: as.issuer.url, oauth_resource: RESOURCE, oauth_jwks_url: `${as.issuer.url}/jwks`,
            oauth_scopes: 'mcp:tools', oauth_leeway_s: 0,
        },
        'plugin.example': { path: 'example.so', prefix: 'ex' },
        // Sections name scopes (each a token must hold all of), which the metadata publishes.
        'access.users': { scopes: 'mcp:tools', tools: '*', resources: '*', prompts: '*' },
        'access.readers': { scopes: 'mcp:read', resources: '*' },
        'access.static': { tokens: '1', tools: '*', resources: '*', prompts: '*' },
    });
}

async function run(as, srv) {
    const url = srv.url;
    const base = url.replace(/\/mcp$/, '');

    await check('metadata: RFC 9728 document at both well-known paths, GET only', async () => {
        const out = [];
        for (const p of ['/.well-known/oauth-protected-resource', '/.well-known/oauth-protected-resource/mcp']) {
            const res = await fetch(base + p, { signal: AbortSignal.timeout(5000) });
            const doc = await res.json();
            if (res.status !== 200) out.push(`${p}: HTTP ${res.status}`);
            if (doc.resource !== RESOURCE) out.push(`${p}: resource ${doc.resource}`);
            if (JSON.stringify(doc.authorization_servers) !== JSON.stringify([as.issuer.url])) out.push(`${p}: authorization_servers ${JSON.stringify(doc.authorization_servers)}`);
            if (JSON.stringify(doc.bearer_methods_supported) !== '["header"]') out.push(`${p}: bearer_methods_supported`);
            if (JSON.stringify(doc.scopes_supported) !== '["mcp:tools","mcp:read"]') out.push(`${p}: scopes_supported ${JSON.stringify(doc.scopes_supported)}`);
        }
        const p = await fetch(`${base}/.well-known/oauth-protected-resource`, { method: 'POST', body: '{}', signal: AbortSignal.timeout(5000) });
        if (p.status !== 405) out.push(`POST: HTTP ${p.status}`);
        const other = await bare(`${base}/.well-known/oauth-protected-resource/elsewhere`, 'GET');
        if (other.status !== 404) out.push(`another path: HTTP ${other.status}`);
        return out;
    });

    await check('no credential: 401 with resource_metadata and scope, no error', async () => {
        const r = await callWith(url, null);
        const c = challenge(r);
        const out = [];
        if (r.status !== 401) out.push(`HTTP ${r.status}`);
        if (c !== `Bearer resource_metadata="${META_URL}", scope="mcp:tools"`) out.push(`challenge "${c}"`);
        const basic = await post(url, echo(8), { headers: { authorization: 'Basic dTpw' } });
        if (basic.status !== 401 || !challenge(basic).includes('resource_metadata=')) out.push(`Basic: HTTP ${basic.status} "${challenge(basic)}"`);
        return out;
    });

    await check('the SDK client (v1) with a token from the token endpoint: initialize, list, call', async () => {
        const token = await tokenFrom(as);
        const client = new V1Client({ name: 'oauth-sdk', version: '1' });
        const transport = new V1Transport(new URL(url), { requestInit: { headers: bearer(token) } });
        await client.connect(transport, { timeout: T(10000) });
        try {
            const tools = await client.listTools({}, { timeout: T(10000) });
            const r = await client.callTool({ name: 'ex_echo', arguments: { text: 'through OAuth' } }, undefined, { timeout: T(10000) });
            const text = (r.content || []).map((c) => c.text).join('');
            const out = [];
            if (!tools.tools.some((x) => x.name === 'ex_echo')) out.push('ex_echo not listed');
            if (!text.includes('through OAuth')) out.push(`echo answered ${short(r)}`);
            return out;
        } finally {
            await client.close();
        }
    });

    await check('refused with 401 invalid_token: wrong audience, another resource, wrong issuer, expired, alg none, another key, unknown kid, not a JWT', async () => {
        const kid = as.issuer.keys.get().kid;
        const good = await built(as);
        const [h, p] = good.split('.');
        const none = `${b64url({ alg: 'none', typ: 'JWT' })}.${p}.`;
        const noneKid = `${b64url({ alg: 'none', kid })}.${p}.${good.split('.')[2]}`;
        const cases = [
            ['wrong audience', await built(as, (x) => { x.aud = 'api://someone-else'; })],
            ['another resource', await tokenFrom(as, { resource: 'https://mcp.example.test/other-mcp' })],
            ['aud a prefix of the resource', await built(as, (x) => { x.aud = 'https://mcp.example.test'; })],
            ['wrong issuer', await built(as, (x) => { x.iss = 'https://evil.example.test'; })],
            ['expired', await built(as, (x) => { x.exp = Math.floor(Date.now() / 1000) - 120; })],
            ['alg none', none],
            ['alg none with a signature', noneKid],
            ['another key (same kid)', foreign(as, kid)],
            ['unknown kid', foreign(as, 'no-such-kid')],
            ['a payload changed', `${h}.${b64url({ ...JSON.parse(Buffer.from(p, 'base64url')), sub: 'root' })}.${good.split('.')[2]}`],
            ['not a JWT', 'not-a-token'],
        ];
        const out = [];
        for (const [what, token] of cases) out.push(...refusedAsInvalid(await callWith(url, token), what));
        const ok = await callWith(url, good);
        if (ok.status !== 200 || !ok.answer?.result) out.push(`the good token: HTTP ${ok.status} ${short(ok.text)}`);
        return out;
    });

    await check('insufficient scope: 403 with error="insufficient_scope" and scope', async () => {
        const token = await tokenFrom(as, { scope: 'mcp:read' });
        const r = await callWith(url, token);
        const c = challenge(r);
        const out = [];
        if (r.status !== 403) out.push(`HTTP ${r.status}`);
        if (!c.includes('error="insufficient_scope"') || !c.includes('scope="mcp:tools"') || !c.includes(`resource_metadata="${META_URL}"`)) out.push(`challenge "${c}"`);
        return out;
    });

    await check('the static token file still works beside OAuth; a wrong static token is refused', async () => {
        const out = [];
        const r = await callWith(url, STATIC_TOKEN);
        if (r.status !== 200 || !r.answer?.result) out.push(`static token: HTTP ${r.status} ${short(r.text)}`);
        out.push(...refusedAsInvalid(await callWith(url, `${STATIC_TOKEN}x`), 'a wrong static token'));
        return out;
    });

    await check('a legacy session opened by alice: refused (403) for bob, served for alice', async () => {
        const alice = await tokenFrom(as, { user: 'alice' });
        const bob = await tokenFrom(as, { user: 'bob' });
        const opened = await post(url, init(), { headers: bearer(alice) });
        const sid = opened.headers.get('mcp-session-id');
        if (!sid) return [`initialize: HTTP ${opened.status}, no session id`];
        const hdr = (t) => ({ ...bearer(t), 'mcp-session-id': sid, 'mcp-protocol-version': LEGACY });
        const asBob = await post(url, echo(2), { headers: hdr(bob) });
        const asAlice = await post(url, echo(3), { headers: hdr(alice) });
        const out = [];
        if (asBob.status !== 403) out.push(`bob: HTTP ${asBob.status}`);
        if (asAlice.status !== 200 || !asAlice.answer?.result) out.push(`alice: HTTP ${asAlice.status} ${short(asAlice.text)}`);
        await bare(url, 'DELETE', hdr(alice));
        return out;
    });

    // A token kept by its digest is not used past its exp (leeway 0 in this INI).
    const shortLived = await built(as, (x) => { x.exp = Math.floor(Date.now() / 1000) + 2; });
    const first = await callWith(url, shortLived);

    // Past the short-lived token's exp (whole seconds, and the cache's clock too).
    await sleep(3200);

    await check('a cached token is refused once it expires', async () => {
        const out = [];
        if (first.status !== 200) out.push(`before exp: HTTP ${first.status}`);
        out.push(...refusedAsInvalid(await callWith(url, shortLived), 'after exp'));
        return out;
    });

    await check('key rotation: new ES256 and EdDSA keys published; tokens signed by them accepted without a restart', async () => {
        await as.issuer.keys.generate('ES256', { kid: 'rotated-es256' });
        await as.issuer.keys.generate('EdDSA', { kid: 'rotated-ed25519', crv: 'Ed25519' });
        const out = [];
        // The first token of a new kid is refused at once and makes mcph fetch the JWKS again,
        // RETRY_S at most after the last fetch: retry until accepted, within a deadline.
        const deadline = performance.now() + RETRY_S * 1000 + T(5000);
        for (const kid of ['rotated-es256', 'rotated-ed25519']) {
            let r;
            for (let i = 0; i < 200; i++) {
                r = await callWith(url, await built(as, null, kid));
                if (r.status !== 401 || performance.now() > deadline) break;
                await sleep(250);
            }
            if (r.status !== 200 || !r.answer?.result) out.push(`${kid}: HTTP ${r.status} ${short(challenge(r) || r.text)}`);
        }
        // Right after that fetch, a token under a kid never published is refused (and does
        // not make mcph fetch again).
        out.push(...refusedAsInvalid(await callWith(url, foreign(as, 'never-published')), 'an unpublished kid'));
        return out;
    });

    await check('at once: 30 requests with tokens of every key, cached and not, and refused ones', async () => {
        const kids = [as.issuer.keys.get().kid, 'rotated-es256', 'rotated-ed25519'];
        const tokens = await Promise.all(Array.from({ length: 18 }, (_, i) => built(as, (x) => { x.sub = `user${i % 6}`; }, kids[i % 3])));
        const bad = Array.from({ length: 6 }, (_, i) => foreign(as, i % 2 ? kids[0] : `unknown-${i}`));
        const all = [...tokens, ...tokens.slice(0, 6), ...bad];
        const res = await Promise.all(all.map((t, i) => callWith(url, t, 100 + i)));
        const out = [];
        res.forEach((r, i) => {
            const want = i < 24 ? 200 : 401;
            if (r.status !== want) out.push(`request ${i}: HTTP ${r.status}, not ${want}`);
        });
        return out;
    });
}

// The SDK's own OAuth flow, from a 401 alone: mcph on a port chosen first, so that its
// oauth_resource is the URL the client connects to; the client (ClientCredentialsProvider)
// follows resource_metadata to the metadata, then to the authorization server's, gets a
// token for the resource and calls a tool with it.
async function discovery(as) {
    await check('the SDK client discovers the authorization server from the 401 (RFC 9728) and gets its own token', async () => {
        const port = await freePort();
        const resource = `http://127.0.0.1:${port}/mcp`;
        const ws = workspace(SUITE, 'discovery');
        const ini = writeIni(ws, {
            server: {
                name: 'mcph-http-oauth-discovery', plugin_dir: PLUGIN_DIR, oauth_issuer: as.issuer.url,
                oauth_resource: resource, oauth_jwks_url: `${as.issuer.url}/jwks`, oauth_scopes: 'mcp:tools',
            },
            'plugin.example': { path: 'example.so', prefix: 'ex' },
        });
        const srv = await startServer(BIN, ini, 'discovery', T(10000), ['--listen', `127.0.0.1:${port}`]);
        // The SDK's client_credentials flow asks for the scopes of its own metadata only.
        const provider = new ClientCredentialsProvider({ clientId: 'robot', clientSecret: 'secret', scope: 'mcp:tools', expectedIssuer: as.issuer.url });
        const client = new V1Client({ name: 'oauth-discovery', version: '1' });
        const transport = new V1Transport(new URL(srv.url), { authProvider: provider });
        const out = [];
        try {
            await client.connect(transport, { timeout: T(10000) });
            const r = await client.callTool({ name: 'ex_echo', arguments: { text: 'discovered' } }, undefined, { timeout: T(10000) });
            if (!(r.content || []).some((c) => String(c.text).includes('discovered'))) out.push(`echo answered ${short(r)}`);
            const aud = JSON.parse(Buffer.from(provider.tokens().access_token.split('.')[1], 'base64url')).aud;
            if (aud !== resource) out.push(`the token's aud is ${aud}`);
        } finally {
            await client.close().catch(() => {});
            await srv.stop(T(10000));
        }
        return out;
    });
}

function freePort() {
    return new Promise((resolve, reject) => {
        const s = net.createServer().listen(0, '127.0.0.1', () => {
            const { port } = s.address();
            s.close(() => resolve(port));
        }).on('error', reject);
    });
}

// A JWKS URL that does not answer at start: mcph starts, says so, and refuses tokens (401)
// until a fetch succeeds.
async function unreachable(as) {
    await check('a JWKS URL that fails at start: mcph starts, warns, refuses tokens with 401', async () => {
        const ws = workspace(SUITE, 'unreachable');
        const ini = writeIni(ws, {
            server: {
                name: 'mcph-http-oauth-down', plugin_dir: PLUGIN_DIR, oauth_issuer: as.issuer.url,
                oauth_resource: RESOURCE, oauth_jwks_url: `${as.issuer.url}/no-such-jwks`,
            },
            'plugin.example': { path: 'example.so', prefix: 'ex' },
        });
        const srv = await startServer(BIN, ini, 'unreachable', T(10000));
        const out = [];
        if (!/oauth_jwks_url = \S+: the JWKS could not be loaded \(HTTP status 404\); every OAuth token is refused/.test(srv.stderr)) {
            out.push(`no warning: ${short(srv.stderr, 300)}`);
        }
        out.push(...refusedAsInvalid(await callWith(srv.url, await built(as)), 'a good token'));
        await srv.stop(T(10000));
        return out;
    });
}

// Scopes are separated by spaces only (RFC 6749 3.3): a comma is part of the scope, in
// oauth_scopes as in the token's scope claim and in the metadata.
async function commas(as) {
    await check('oauth_scopes: a scope with a comma in it is one scope (checked, and published as one)', async () => {
        const ws = workspace(SUITE, 'commas');
        const ini = writeIni(ws, {
            server: {
                name: 'mcph-http-oauth-commas', plugin_dir: PLUGIN_DIR, oauth_issuer: as.issuer.url,
                oauth_resource: RESOURCE, oauth_jwks_url: `${as.issuer.url}/jwks`, oauth_scopes: 'mcp:tools team,ops',
            },
            'plugin.example': { path: 'example.so', prefix: 'ex' },
        });
        const srv = await startServer(BIN, ini, 'commas', T(10000));
        const out = [];
        try {
            const both = await callWith(srv.url, await built(as, (x) => { x.scope = 'mcp:tools team,ops'; }));
            if (both.status !== 200 || !both.answer?.result) out.push(`scope "mcp:tools team,ops": HTTP ${both.status} ${short(challenge(both) || both.text)}`);
            const part = await callWith(srv.url, await built(as, (x) => { x.scope = 'mcp:tools team ops'; }));
            if (part.status !== 403 || !challenge(part).includes('lacks the scope team,ops')) out.push(`scope "mcp:tools team ops": HTTP ${part.status} "${challenge(part)}"`);
            const doc = await (await fetch(srv.url.replace(/\/mcp$/, '/.well-known/oauth-protected-resource'), { signal: AbortSignal.timeout(5000) })).json();
            if (JSON.stringify(doc.scopes_supported) !== '["mcp:tools","team,ops"]') out.push(`scopes_supported ${JSON.stringify(doc.scopes_supported)}`);
        } finally {
            await srv.stop(T(10000));
        }
        return out;
    });
}

// A POST over one kept-alive connection (agent): { status, ms }.
function keptPost(agent, url, msg, token) {
    const body = JSON.stringify(msg);
    const t = performance.now();
    return new Promise((resolve, reject) => {
        const req = http.request(url, {
            method: 'POST', agent, timeout: T(10000),
            headers: { 'content-type': 'application/json', accept: ACCEPT, ...modernHeaders(msg), ...bearer(token), 'content-length': Buffer.byteLength(body) },
        }, (res) => {
            res.resume();
            res.on('end', () => resolve({ status: res.statusCode, ms: performance.now() - t }));
        });
        req.on('timeout', () => req.destroy(new Error('no answer')));
        req.on('error', reject);
        req.end(body);
    });
}

// A JWKS URL that answers once (at mcph's start), then never: the fetch that a token of an
// unknown kid asks for hangs (HTTP_KEYS_FETCH_MS), on mcph's loader thread alone. Meanwhile
// requests on kept-alive connections (several, so both of libmicrohttpd's threads hold one),
// with good tokens (cached and not) and with unknown kids, each answer at once.
async function hanging(as) {
    await check('a JWKS fetch that hangs: requests on kept-alive connections answer at once meanwhile (good tokens 200, unknown kids 401)', async () => {
        const keys = await (await fetch(`${as.issuer.url}/jwks`, { signal: AbortSignal.timeout(5000) })).text();
        let asked = 0;
        let hungAt = 0;
        const jwks = http.createServer((req, res) => {
            asked += 1;
            if (asked === 1) res.writeHead(200, { 'content-type': 'application/json' }).end(keys);
            else hungAt ||= performance.now(); // never answered
        });
        await new Promise((resolve) => jwks.listen(0, '127.0.0.1', resolve));
        const ws = workspace(SUITE, 'hanging');
        const ini = writeIni(ws, {
            server: {
                name: 'mcph-http-oauth-hang', plugin_dir: PLUGIN_DIR, oauth_issuer: as.issuer.url,
                oauth_resource: RESOURCE, oauth_jwks_url: `http://127.0.0.1:${jwks.address().port}/jwks`, oauth_scopes: 'mcp:tools',
            },
            'plugin.example': { path: 'example.so', prefix: 'ex' },
        });
        const srv = await startServer(BIN, ini, 'hanging', T(10000));
        const agents = Array.from({ length: 4 }, () => new http.Agent({ keepAlive: true, maxSockets: 1 }));
        const slow = T(500);
        const ours = crypto.generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;
        const out = [];
        let worst = 0;
        let n = 0;
        const call = async (agent, token, want, what) => {
            const r = await keptPost(agent, srv.url, modernRequest(++n, 'tools/call', { name: 'ex_echo', arguments: { text: 'hi' } }), token);
            worst = Math.max(worst, r.ms);
            if (r.status !== want) out.push(`${what}: HTTP ${r.status}, not ${want}`);
            if (r.ms > slow) out.push(`${what}: answered in ${Math.round(r.ms)} ms (more than ${slow})`);
        };
        // Until the fetch has hung for 2 s (it comes RETRY_S at most after the one at start).
        const deadline = performance.now() + RETRY_S * 1000 + T(8000);
        const going = () => performance.now() < deadline && !(hungAt && performance.now() - hungAt > 2000) && out.length < 20;
        const loop = async (agent, i) => {
            for (let k = 0; going() && k < 10000; k++) {
                if (i === 0) await call(agent, foreign(as, `unknown-${k}`, ours), 401, `unknown kid ${k}`);
                else await call(agent, await built(as, (x) => { x.sub = `user${i}-${k % 3}`; }), 200, `good token ${i}/${k}`);
                await sleep(i === 0 ? 200 : 20);
            }
        };
        try {
            await Promise.all(agents.map(loop));
            if (!hungAt) out.push(`mcph did not fetch the JWKS again (${asked} requests to it)`);
        } finally {
            agents.forEach((a) => a.destroy());
            await srv.stop(T(10000));
            jwks.closeAllConnections();
            jwks.close();
        }
        if (out.length) out.push(`slowest answer: ${Math.round(worst)} ms`);
        return out.slice(0, 12);
    });
}

async function main() {
    if (!process.argv[2] || !fs.existsSync(BIN)) {
        console.error('usage: node tests/http/oauth.mjs BINARY');
        process.exit(2);
    }
    const t00 = performance.now();
    const as = new OAuth2Server();
    await as.issuer.keys.generate('RS256');
    // RFC 8707: the token is for the resource the client names.
    // A client_credentials token's subject is the client (RFC 9068 2.2).
    as.service.on('beforeTokenSigning', (token, req) => {
        if (req.body?.resource) token.payload.aud = req.body.resource;
        const basic = /^Basic (.+)$/i.exec(req.headers?.authorization || '');
        token.payload.sub ??= req.body?.client_id || (basic ? Buffer.from(basic[1], 'base64').toString().split(':')[0] : undefined);
    });
    await as.start(0, '127.0.0.1');
    const ws = workspace(SUITE);
    try {
        const ini = writeConfig(ws, as);
        const srv = await startServer(BIN, ini, 'oauth', T(10000));
        const r = await capped(run(as, srv).then(() => discovery(as)).then(() => unreachable(as)).then(() => commas(as)).then(() => hanging(as)), T(90000));
        if (r === CAPPED) report(false, 'time limit', `the test ran past ${T(90000) / 1000} s`);
    } catch (err) {
        report(false, 'the test stopped', short(err?.stack || String(err), 600));
    }
    const exits = await stopAll(T(10000));
    await as.stop();
    await check('mcph: exit 0 on SIGTERM, nothing stray on stdout, no sanitizer report', async () => [
        ...exits, ...[...servers].flatMap((s) => s.problems()),
    ]);
    const failed = summary('http oauth', ` (${((performance.now() - t00) / 1000).toFixed(1)} s)`);
    if (failed === 0) fs.rmSync(path.join(TESTS_ROOT, SUITE), { recursive: true, force: true });
    process.exit(failed ? 1 : 0);
}

main().catch(async (err) => {
    report(false, 'main', short(err?.stack || String(err), 600));
    await stopAll(5000).catch(() => {});
    summary('http oauth');
    process.exit(1);
});
