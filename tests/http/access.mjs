#!/usr/bin/env node
// Tool sets per credential ([access.NAME] sections) and requestState bound to its principal,
// over real sockets on 127.0.0.1 with bearer tokens.
//
//   node tests/http/access.mjs BINARY          (make test-http)
//
// BINARY runs as `BINARY --listen 127.0.0.1:0 INI` twice: "ref" serves the example plugin
// (prefix ex) with no tokens and no access sections (the full lists), "acl" the same with an
// auth_token_file of three tokens, page_size = 2, cache_scope = public, and two sections:
//   [access.one] tokens = 1: tools ex_e* ex_confirm, the greeting template, prompts *review
//   [access.two] tokens = 2: tools ex_add ex_greet ex_confirm, resources readme and note
// Token 3 matches none. Checked: each token's lists (2026-07-28 requests and a legacy session,
// page by page through nextCursor) are the full lists cut by its section's globs, in order;
// the 2026-07-28 lists say cacheScope private; a hidden tool, resource URI, template, prompt
// or completion ref answers exactly as a missing one; token 3 sees nothing; a SIGHUP that
// changes a section changes what the token sees next; a legacy session opened with token 1
// is refused (403) with token 2. requestState (2026-07-28 ex_confirm through input_required):
// the retry by the same token is answered; the state refused (-32602 Invalid requestState)
// for token 2, and for another call (other arguments). Its expiry is tested in test_mrtr. A
// third mcph serves the conformance plugin: a hidden tool's mismatched Mcp-Param header tells
// nothing (the call answers as an unknown tool's). Listen requests (2026-07-28
// subscriptions/listen) naming example://note in resourceSubscriptions, with a fourth token
// whose [access.writer] calls ex_set_note and sees the note: token 1 (which does not see it)
// is acknowledged as for a missing URI but is never told notifications/resources/updated, while
// token 2 and token 4 are, and so is a legacy session of token 2 that subscribed to the note
// (resources/subscribe, its GET stream); after a SIGHUP that takes the note from section two,
// token 2's listen and session opened before it are no longer told, and token 4's still is.
// Output: "ok NAME" / "FAIL NAME: why" lines, then "http access: N passed, N failed"; exit 1
// when a check failed.

import fs from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { check, report, summary } from '../lib/check.mjs';
import { CAPPED, capped, sanitizersOf, short, sleep, waitFor } from '../lib/util.mjs';
import { workspace, writeIni, TESTS_ROOT } from '../lib/workspace.mjs';
import {
    ACCEPT, KEY_SUB, LEGACY, modernHeaders, modernRequest, post, servers, sseParser, startServer, stopAll,
} from './clients-lib.mjs';

const SUITE = 'http-access';
const BIN = path.resolve(process.argv[2] || '');
const SAN = sanitizersOf(BIN);
const SLOW = SAN.thread ? 5 : SAN.any ? 3 : 1;
const T = (ms) => ms * SLOW;
const PLUGIN_DIR = path.join(path.dirname(BIN), 'plugins');
const CONFORMANCE_DIR = path.join(path.dirname(BIN), 'tests/conformance');
const TOKENS = ['access-token-one-0123456789', 'access-token-two-0123456789', 'access-token-three-012345',
    'access-token-four-012345678'];
const NOTE = 'example://note';
const WRITER = { tokens: '4', tools: 'ex_set_note', resources: NOTE };
const PAGE = 2;
const MAX_PAGES = 100;
const LISTS = [['tools/list', 'tools', 'name'], ['resources/list', 'resources', 'uri'],
    ['resources/templates/list', 'resourceTemplates', 'uriTemplate'], ['prompts/list', 'prompts', 'name']];

// What each section shows, as the INI says it (globs) and as a test of a row's exposed name.
const ONE = {
    ini: { tokens: '1', tools: 'ex_e* ex_confirm', resources: 'example://greeting/\\{name\\}', prompts: '*review' },
    sees: {
        tools: (n) => n.startsWith('ex_e') || n === 'ex_confirm',
        resources: () => false,
        resourceTemplates: (u) => u === 'example://greeting/{name}',
        prompts: (n) => n.endsWith('review'),
    },
};
const TWO = {
    ini: { tokens: '2', tools: 'ex_add ex_greet ex_confirm', resources: 'example://readme example://note' },
    sees: {
        tools: (n) => ['ex_add', 'ex_greet', 'ex_confirm'].includes(n),
        resources: (u) => u === 'example://readme' || u === 'example://note',
        resourceTemplates: () => false,
        prompts: () => false,
    },
};
const NONE = { sees: { tools: () => false, resources: () => false, resourceTemplates: () => false, prompts: () => false } };

const auth = (i) => ({ authorization: `Bearer ${TOKENS[i]}` });
const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);

function writeConfig(dir, { access = true, two = TWO.ini } = {}) {
    const tokens = path.join(dir, 'tokens');
    fs.writeFileSync(tokens, `# the access suite's tokens\n${TOKENS.join('\n')}\n`, { mode: 0o600 });
    return writeIni(dir, {
        server: {
            name: 'mcph-http-access', plugin_dir: PLUGIN_DIR, page_size: PAGE, ask_timeout_ms: 5000, cache_scope: 'public',
            ...(access ? { auth_token_file: tokens } : {}),
        },
        'plugin.example': { path: 'example.so', prefix: 'ex' },
        ...(access ? { 'access.one': ONE.ini, 'access.two': two, 'access.writer': WRITER } : {}),
    });
}

// Every page of a list: { names, pages, scopes (cacheScope of each page), problems }. send(msg)
// posts one request.
async function listAll(send, method, field, key, modern) {
    const out = { names: [], pages: 0, scopes: [], problems: [] };
    let cursor;
    for (let i = 0; i < MAX_PAGES; i++) {
        const params = cursor ? { cursor } : {};
        const msg = modern ? modernRequest(100 + i, method, params) : { jsonrpc: '2.0', id: 100 + i, method, params };
        const r = await send(msg);
        const res = r.answer?.result;
        if (r.status !== 200 || !Array.isArray(res?.[field])) {
            out.problems.push(`${method} page ${i + 1}: ${r.status} ${short(r.text)}`);
            return out;
        }
        out.pages++;
        if (res[field].length > PAGE) out.problems.push(`${method} page ${i + 1}: ${res[field].length} rows, page_size is ${PAGE}`);
        out.names.push(...res[field].map((row) => row[key]));
        out.scopes.push(res.cacheScope);
        cursor = res.nextCursor;
        if (!cursor) return out;
    }
    out.problems.push(`${method}: more than ${MAX_PAGES} pages`);
    return out;
}

// The full lists (the ref server).
async function fullLists(url) {
    const full = {};
    for (const [method, field, key] of LISTS) {
        const l = await listAll((m) => post(url, m), method, field, key, true);
        if (l.problems.length) throw new Error(l.problems.join('; '));
        full[field] = l.names;
    }
    return full;
}

// What a token's lists hold against what its section shows of the full lists.
async function listsProblems(send, full, who, modern) {
    const problems = [];
    let rows = 0;
    for (const [method, field, key] of LISTS) {
        const l = await listAll(send, method, field, key, modern);
        problems.push(...l.problems);
        const want = full[field].filter(who.sees[field]);
        if (!same(l.names, want)) problems.push(`${field}: ${short(l.names)}, expected ${short(want)}`);
        if (l.pages !== Math.max(1, Math.ceil(want.length / PAGE))) problems.push(`${field}: ${l.pages} pages for ${want.length} rows`);
        if (modern && l.scopes.some((s) => s !== 'private')) problems.push(`${field}: cacheScope ${short(l.scopes)}, expected private`);
        rows += l.names.length;
    }
    return { problems, rows };
}

// An error answer without the name or URI it names: two errors alike but for that.
function errorShape(r, name) {
    const e = r.answer?.error;
    if (!e) return `no error: ${r.status} ${short(r.text)}`;
    return JSON.stringify({ status: r.status, code: e.code, message: e.message.split(name).join('NAME'), data: e.data === undefined ? null : JSON.stringify(e.data).split(name).join('NAME') });
}

// A hidden row answers as a missing one: the same status, code, message and data but for its
// name.
async function asMissing(url, token, method, hidden, missing, build) {
    const a = await post(url, modernRequest(1, method, build(hidden)), { headers: auth(token) });
    const b = await post(url, modernRequest(2, method, build(missing)), { headers: auth(token) });
    const [sa, sb] = [errorShape(a, hidden), errorShape(b, missing)];
    return sa === sb && a.answer?.error ? [] : [`${method} ${hidden} (hidden): ${sa}; ${missing} (missing): ${sb}`];
}

async function legacySession(url, token) {
    const init = await post(url, { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: LEGACY, capabilities: {}, clientInfo: { name: 'mcph-tests', version: '1.0' } } }, { headers: auth(token) });
    const sid = init.headers.get('mcp-session-id');
    if (!sid) throw new Error(`initialize with token ${token + 1}: ${init.status} ${short(init.text)}`);
    const headers = { ...auth(token), 'mcp-session-id': sid, 'mcp-protocol-version': LEGACY };
    await post(url, { jsonrpc: '2.0', method: 'notifications/initialized' }, { headers });
    return { sid, headers };
}

const CONFIRM = { name: 'ex_confirm', arguments: { action: 'deploy' } };
const CAPS = { elicitation: {} };
const answers = { 'ask-1': { action: 'accept', content: { confirm: true } } };

async function partLists(ref, acl, full) {
    await check('token 1: its section\'s rows of each list, page by page (2026-07-28), cacheScope private', async () => {
        const { problems, rows } = await listsProblems((m) => post(acl.url, m, { headers: auth(0) }), full, ONE, true);
        return problems.length ? problems : `${rows} rows`;
    });
    await check('token 2: its section\'s rows of each list, page by page (2026-07-28)', async () => {
        const { problems, rows } = await listsProblems((m) => post(acl.url, m, { headers: auth(1) }), full, TWO, true);
        return problems.length ? problems : `${rows} rows`;
    });
    await check('token 3 (no section): every list empty', async () => {
        const { problems } = await listsProblems((m) => post(acl.url, m, { headers: auth(2) }), full, NONE, true);
        return problems;
    });
    await check('legacy sessions: each token\'s rows, page by page', async () => {
        const problems = [];
        for (const [i, who] of [[0, ONE], [1, TWO]]) {
            const s = await legacySession(acl.url, i);
            const r = await listsProblems((m) => post(acl.url, m, { headers: s.headers }), full, who, false);
            problems.push(...r.problems.map((p) => `token ${i + 1}: ${p}`));
        }
        return problems;
    });
    await check('without access sections, a list is every row and keeps cache_scope = public', async () => {
        const l = await listAll((m) => post(ref.url, m), 'tools/list', 'tools', 'name', true);
        return l.scopes.every((s) => s === 'public') ? `${l.names.length} tools` : [`cacheScope ${short(l.scopes)}`];
    });
    await check('resources/read of a row a section shows: cacheScope private (cache_scope = public)', async () => {
        const mine = await post(acl.url, modernRequest(7, 'resources/read', { uri: 'example://note' }), { headers: auth(1) });
        const open = await post(ref.url, modernRequest(8, 'resources/read', { uri: 'example://note' }));
        const [a, b] = [mine.answer?.result?.cacheScope, open.answer?.result?.cacheScope];
        return a === 'private' && b === 'public' ? `token 2: ${a}; without sections: ${b}` : [`token 2: ${short(mine.text)}; without sections: ${short(open.text)}`];
    });
    await check('a legacy session opened with token 1 is refused with token 2 (403)', async () => {
        const s = await legacySession(acl.url, 0);
        const r = await post(acl.url, { jsonrpc: '2.0', id: 5, method: 'tools/list', params: {} }, { headers: { ...s.headers, ...auth(1) } });
        return r.status === 403 ? '403' : [`${r.status} ${short(r.text)}`];
    });
}

async function partHidden(acl) {
    await check('a hidden tool\'s call answers as an unknown tool\'s', async () => [
        ...await asMissing(acl.url, 0, 'tools/call', 'ex_add', 'ex_nosuch', (n) => ({ name: n, arguments: {} })),
        ...await asMissing(acl.url, 1, 'tools/call', 'ex_echo', 'ex_nosuch', (n) => ({ name: n, arguments: { text: 'x' } })),
        ...await asMissing(acl.url, 2, 'tools/call', 'ex_confirm', 'ex_nosuch', (n) => ({ name: n, arguments: {} })),
    ]);
    await check('resources/read of a hidden resource or template URI: not found, as a missing one', async () => [
        ...await asMissing(acl.url, 0, 'resources/read', 'example://readme', 'example://nosuch', (u) => ({ uri: u })),
        ...await asMissing(acl.url, 1, 'resources/read', 'example://greeting/Ada', 'example://nosuch', (u) => ({ uri: u })),
    ]);
    await check('prompts/get and completion/complete of a hidden prompt or template: as a missing one', async () => [
        ...await asMissing(acl.url, 1, 'prompts/get', 'ex_review', 'ex_nosuch', (n) => ({ name: n, arguments: { code: 'x' } })),
        ...await asMissing(acl.url, 1, 'completion/complete', 'ex_review', 'ex_nosuch',
            (n) => ({ ref: { type: 'ref/prompt', name: n }, argument: { name: 'language', value: 'c' } })),
        ...await asMissing(acl.url, 1, 'completion/complete', 'example://greeting/{name}', 'example://nosuch/{name}',
            (u) => ({ ref: { type: 'ref/resource', uri: u }, argument: { name: 'name', value: 'A' } })),
    ]);
    await check('what a token sees it reads and calls', async () => {
        const problems = [];
        const read = await post(acl.url, modernRequest(1, 'resources/read', { uri: 'example://greeting/Ada' }), { headers: auth(0) });
        if (!Array.isArray(read.answer?.result?.contents)) problems.push(`token 1 read the greeting: ${read.status} ${short(read.text)}`);
        const read2 = await post(acl.url, modernRequest(2, 'resources/read', { uri: 'example://readme' }), { headers: auth(1) });
        if (!Array.isArray(read2.answer?.result?.contents)) problems.push(`token 2 read the readme: ${read2.status} ${short(read2.text)}`);
        const call = await post(acl.url, modernRequest(3, 'tools/call', { name: 'ex_echo', arguments: { text: 'seen' } }), { headers: auth(0) });
        if (call.answer?.result?.content?.[0]?.text !== 'seen') problems.push(`token 1 called ex_echo: ${call.status} ${short(call.text)}`);
        return problems;
    });
}

async function partState(acl) {
    const ask = async (token, id, params = CONFIRM) => {
        const r = await post(acl.url, modernRequest(id, 'tools/call', params, CAPS), { headers: auth(token) });
        const state = r.answer?.result?.requestState;
        if (r.answer?.result?.resultType !== 'input_required' || typeof state !== 'string') throw new Error(`token ${token + 1}: ${r.status} ${short(r.text)}, expected input_required`);
        return state;
    };
    const retry = (token, id, state, params = CONFIRM) =>
        post(acl.url, modernRequest(id, 'tools/call', { ...params, inputResponses: answers, requestState: state }, CAPS), { headers: auth(token) });
    const refused = (r, why) => (r.answer?.error?.code === -32602 && r.answer.error.message.startsWith('Invalid requestState: ') &&
        r.answer.error.message.includes(why) ? [] : [`${r.status} ${short(r.text)}, expected -32602 Invalid requestState: ...${why}`]);
    await check('requestState: the same token\'s retry is answered', async () => {
        const r = await retry(0, 2, await ask(0, 1));
        return JSON.stringify(r.answer?.result?.content || []).includes('confirm') ? 'answered' : [`${r.status} ${short(r.text)}`];
    });
    await check('requestState: a state minted for token 1 is refused for token 2', async () =>
        refused(await retry(1, 4, await ask(0, 3)), 'another principal'));
    await check('requestState: a state minted for one call is refused for another', async () => {
        const other = { name: 'ex_confirm', arguments: { action: 'delete' } };
        return refused(await retry(0, 6, await ask(0, 5), other), 'another request');
    });
}

async function partReload(acl, full) {
    await check('SIGHUP: a section changed changes what its token sees next', async () => {
        const two = { ...TWO.ini, tools: 'ex_echo' };
        writeConfig(path.dirname(acl.ini), { two });
        acl.hup();
        const deadline = performance.now() + T(10000);
        let l;
        while (performance.now() < deadline) {
            l = await listAll((m) => post(acl.url, m, { headers: auth(1) }), 'tools/list', 'tools', 'name', true);
            if (same(l.names, ['ex_echo'])) break;
            await sleep(50);
        }
        const problems = same(l?.names, ['ex_echo']) ? [] : [`token 2 sees ${short(l?.names)} after the reload`];
        problems.push(...await asMissing(acl.url, 1, 'tools/call', 'ex_add', 'ex_nosuch', (n) => ({ name: n, arguments: {} })));
        const call = await post(acl.url, modernRequest(3, 'tools/call', { name: 'ex_echo', arguments: { text: 'now' } }), { headers: auth(1) });
        if (call.answer?.result?.content?.[0]?.text !== 'now') problems.push(`token 2 calls ex_echo: ${call.status} ${short(call.text)}`);
        const one = await listsProblems((m) => post(acl.url, m, { headers: auth(0) }), full, ONE, true);
        problems.push(...one.problems.map((p) => `token 1: ${p}`));
        return problems;
    });
}

// A subscriptions/listen stream opened with token (index) for uris: { status, messages (each
// JSON-RPC message in order), ack (the acknowledgement, once it came), updates() (the URIs of
// the notifications/resources/updated tagged with its id), close() }.
async function openListen(url, token, id, uris) {
    const msg = modernRequest(id, 'subscriptions/listen', { notifications: { resourceSubscriptions: uris } });
    const l = await openStream(url, { method: 'POST', body: JSON.stringify(msg), headers: { 'content-type': 'application/json', ...modernHeaders(msg), ...auth(token) } },
        (m) => m.method === 'notifications/resources/updated' && same(m.params?._meta?.[KEY_SUB], id));
    if (!await waitFor(() => l.messages.some((m) => m.method === 'notifications/subscriptions/acknowledged'), T(5000))) {
        l.close();
        throw new Error(`listen of token ${token + 1}: ${l.status}, no acknowledgement (${short(l.messages)})`);
    }
    l.ack = l.messages.find((m) => m.method === 'notifications/subscriptions/acknowledged');
    return l;
}

// An event stream (a listen's POST, a legacy session's GET) read as it comes: { status,
// messages, updates() (the URIs of the notifications/resources/updated that ours(m) takes),
// close() }.
async function openStream(url, init, ours) {
    const ac = new AbortController();
    const res = await fetch(url, { ...init, headers: { accept: ACCEPT, ...init.headers }, signal: ac.signal });
    const l = {
        status: res.status, messages: [], close: () => ac.abort(),
        updates: () => l.messages.filter(ours).map((m) => m.params?.uri),
    };
    const feed = sseParser((ev) => l.messages.push(JSON.parse(ev.data)));
    const decoder = new TextDecoder();
    (async () => {
        for await (const chunk of res.body) feed(decoder.decode(chunk, { stream: true }));
    })().catch(() => {});
    return l;
}

// A legacy session of token 2 subscribed to the note, and its GET stream.
async function subscribedSession(url) {
    const s = await legacySession(url, 1);
    const r = await post(url, { jsonrpc: '2.0', id: 2, method: 'resources/subscribe', params: { uri: NOTE } }, { headers: s.headers });
    if (!r.answer?.result) throw new Error(`resources/subscribe: ${r.status} ${short(r.text)}`);
    const l = await openStream(url, { method: 'GET', headers: s.headers }, (m) => m.method === 'notifications/resources/updated');
    if (l.status !== 200) throw new Error(`GET stream: ${l.status}`);
    return l;
}

// ex_set_note by token 4, then wait until each listener of told has been told of the note
// (then a little longer, for those that must not be): the problems.
async function setNote(acl, told, untold, text) {
    const problems = [];
    const r = await post(acl.url, modernRequest(9, 'tools/call', { name: 'ex_set_note', arguments: { text } }), { headers: auth(3) });
    if (r.answer?.result?.content?.[0]?.text !== 'noted') problems.push(`ex_set_note: ${r.status} ${short(r.text)}`);
    for (const [name, l] of told) {
        if (!await waitFor(() => l.updates().includes(NOTE), T(5000))) problems.push(`${name} was not told the note changed`);
    }
    await sleep(T(300));
    for (const [name, l] of untold) {
        if (l.updates().length) problems.push(`${name} was told ${short(l.updates())}`);
    }
    return problems;
}

async function partListen(acl) {
    const open = [];
    const listen = async (...args) => {
        const l = await openListen(...args);
        open.push(l);
        return l;
    };
    try {
        const one = await listen(acl.url, 0, 'one', [NOTE, 'example://nosuch']);
        const two = await listen(acl.url, 1, 'two', [NOTE]);
        const four = await listen(acl.url, 3, 'four', [NOTE]);
        const session = await subscribedSession(acl.url);
        open.push(session);
        await check('listen: a URI its token does not see is acknowledged as a missing one is', async () => {
            const got = one.ack.params?.notifications?.resourceSubscriptions;
            return same(got, [NOTE, 'example://nosuch']) ? short(got) : [`acknowledged ${short(one.ack)}`];
        });
        await check('listen: resources/updated of a URI its token does not see is not told; those that see it are', async () => {
            const problems = await setNote(acl, [['token 2', two], ['token 4', four], ['token 2\'s legacy session', session]], [['token 1', one]], 'first');
            return problems.length ? problems : 'tokens 2 and 4 and a legacy session told, token 1 not';
        });
        await check('listen: a SIGHUP that takes the URI from a section stops telling the listens and subscriptions opened before', async () => {
            writeConfig(path.dirname(acl.ini), { two: { ...TWO.ini, tools: 'ex_echo', resources: 'example://readme' } });
            acl.hup();
            const gone = await waitFor(async () => {
                const l = await listAll((m) => post(acl.url, m, { headers: auth(1) }), 'resources/list', 'resources', 'uri', true);
                return !l.problems.length && !l.names.includes(NOTE);
            }, T(10000), 50);
            if (!gone) return ['token 2 still lists the note after the reload'];
            const before = two.updates().length;
            const had = session.updates().length;
            const problems = await setNote(acl, [['token 4', four]], [], 'second');
            if (two.updates().length !== before) problems.push(`token 2 was told ${short(two.updates().slice(before))} after the reload`);
            if (session.updates().length !== had) problems.push(`token 2's legacy session was told ${short(session.updates().slice(had))} after the reload`);
            if (one.updates().length) problems.push(`token 1 was told ${short(one.updates())}`);
            return problems.length ? problems : `token 4 told twice, token 2 and its session once`;
        });
    } finally {
        for (const l of open) l.close();
    }
}

// A hidden tool whose inputSchema mirrors an argument in a header (x-mcp-header: the
// conformance plugin's test_custom_headers, Mcp-Param-Region): a call with a header that does
// not match answers as an unknown tool for a token that does not see it, not with the header
// check's -32020 (which would tell the tool is there); a token that sees it still gets -32020.
function writeHeadersConfig(dir) {
    const tokens = path.join(dir, 'tokens');
    fs.writeFileSync(tokens, `${TOKENS.join('\n')}\n`, { mode: 0o600 });
    return writeIni(dir, {
        server: { name: 'mcph-http-access-headers', plugin_dir: CONFORMANCE_DIR, auth_token_file: tokens },
        'plugin.conformance': { path: 'conformance.so' },
        'access.one': { tokens: '1', tools: 'test_custom_headers' },
        'access.two': { tokens: '2', tools: 'test_simple_text' },
    });
}

async function partHeaders(hdr) {
    const call = (token, name, id) => post(hdr.url, modernRequest(id, 'tools/call', { name, arguments: { region: 'eu' } }),
        { headers: { ...auth(token), 'mcp-param-region': 'us' } });
    await check('a hidden tool\'s call with a mismatched Mcp-Param header answers as an unknown tool\'s', async () => {
        const [hidden, missing] = [await call(1, 'test_custom_headers', 1), await call(1, 'no_such_tool', 2)];
        const [a, b] = [errorShape(hidden, 'test_custom_headers'), errorShape(missing, 'no_such_tool')];
        return a === b && hidden.answer?.error ? `both ${a}` : [`hidden: ${a}; missing: ${b}`];
    });
    await check('the token that sees it gets the header check\'s -32020', async () => {
        const r = await call(0, 'test_custom_headers', 3);
        return r.answer?.error?.code === -32020 ? `${r.status} -32020` : [`${r.status} ${short(r.text)}`];
    });
}

async function main() {
    if (!process.argv[2] || !fs.existsSync(BIN) || !fs.existsSync(path.join(PLUGIN_DIR, 'example.so'))) {
        console.error('usage: node tests/http/access.mjs BINARY (with BINARY\'s plugins/example.so built)');
        process.exit(2);
    }
    const t0 = performance.now();
    const ws = workspace(SUITE, 'main');
    for (const d of ['ref', 'acl', 'hdr']) fs.mkdirSync(path.join(ws, d), { recursive: true, mode: 0o755 });
    const ref = await startServer(BIN, writeConfig(path.join(ws, 'ref'), { access: false }), 'ref', T(10000));
    const acl = await startServer(BIN, writeConfig(path.join(ws, 'acl')), 'acl', T(10000));
    const hdr = await startServer(BIN, writeHeadersConfig(path.join(ws, 'hdr')), 'hdr', T(10000));
    const full = await fullLists(ref.url);
    for (const [name, part] of [['lists', () => partLists(ref, acl, full)], ['hidden', () => partHidden(acl)],
        ['state', () => partState(acl)], ['reload', () => partReload(acl, full)], ['listen', () => partListen(acl)],
        ['headers', () => partHeaders(hdr)]]) {
        try {
            if (await capped(part(), T(60000)) === CAPPED) report(false, `${name}: time limit`, `past ${T(60000) / 1000} s`);
        } catch (err) {
            report(false, `${name}: the part stopped`, short(err?.stack || String(err), 600));
        }
    }
    const exits = await stopAll(T(10000));
    await check('every mcph: exit 0 on SIGTERM, nothing stray on stdout, no sanitizer report', async () => [
        ...exits, ...[...servers].flatMap((s) => s.problems()),
    ]);
    const failed = summary('http access', ` (${((performance.now() - t0) / 1000).toFixed(1)} s)`);
    if (failed === 0) fs.rmSync(path.join(TESTS_ROOT, SUITE), { recursive: true, force: true });
    process.exit(failed ? 1 : 0);
}

main().catch(async (err) => {
    report(false, 'main', short(err?.stack || String(err), 600));
    await stopAll(5000).catch(() => {});
    summary('http access');
    process.exit(1);
});
