#!/usr/bin/env node
// Tool sets chosen by the scopes and claims of OAuth access tokens ([access.NAME] scopes =
// and claims =), over real sockets on 127.0.0.1, with tokens signed by a real authorization
// server from npm (oauth2-mock-server) and checked by mcph against its JWKS URL.
//
//   node tests/http/oauth-access.mjs BINARY          (make test-http)
//
// Two mcph serve the example plugin (prefix ex): "ref" with no credential and no sections
// (the full lists), "oauth" with oauth_scopes = mcp:tools and
//   [access.readers] scopes = mcp:read            tools = ex_e*
//   [access.admins]  claims = groups=admins       tools = * resources = * prompts = *
// Checked: the metadata's scopes_supported is oauth_scopes then the sections' scopes; a token
// with mcp:read lists only the ex_e* tools and no resource, template or prompt (2026-07-28
// requests, cacheScope private, and a legacy session), calls ex_echo, and gets for ex_add (not
// its) the very error a missing tool gets; a token whose "groups" claim (an array) holds
// "admins" lists every row of every list and calls ex_add; a token with neither (groups
// without "admins", or "admins" only as part of another word) lists nothing and gets the
// unknown tool's error for ex_echo; the scope in "scp" (an array) counts as in "scope".
// Output: "ok NAME" / "FAIL NAME: why" lines, then "http oauth access: N passed, N failed";
// exit 1 when a check failed.

import fs from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { OAuth2Server } from 'oauth2-mock-server';
import { check, report, summary } from '../lib/check.mjs';
import { CAPPED, capped, sanitizersOf, short } from '../lib/util.mjs';
import { workspace, writeIni, TESTS_ROOT } from '../lib/workspace.mjs';
import { LEGACY, modernRequest, post, servers, startServer, stopAll } from './clients-lib.mjs';

const SUITE = 'http-oauth-access';
const BIN = path.resolve(process.argv[2] || '');
const SAN = sanitizersOf(BIN);
const SLOW = SAN.thread ? 5 : SAN.any ? 3 : 1;
const T = (ms) => ms * SLOW;
const PLUGIN_DIR = path.join(path.dirname(BIN), 'plugins');
const RESOURCE = 'https://mcp.example.test/mcp';
const MAX_PAGES = 100;
const LISTS = [['tools/list', 'tools', 'name'], ['resources/list', 'resources', 'uri'],
    ['resources/templates/list', 'resourceTemplates', 'uriTemplate'], ['prompts/list', 'prompts', 'name']];

// What each kind of token sees of a list's rows.
const READER = { tools: (n) => n.startsWith('ex_e'), resources: () => false, resourceTemplates: () => false, prompts: () => false };
const ADMIN = { tools: () => true, resources: () => true, resourceTemplates: () => true, prompts: () => true };
const NOBODY = { tools: () => false, resources: () => false, resourceTemplates: () => false, prompts: () => false };

const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);
const bearer = (t) => ({ authorization: `Bearer ${t}` });

// A token signed by the server's key, for this resource, with sub and the payload's changes.
function mint(as, sub, fix) {
    return as.issuer.buildToken({
        scopesOrTransform: (header, payload) => {
            Object.assign(payload, { sub, aud: RESOURCE, scope: 'mcp:tools' });
            fix(payload);
        },
    });
}

function writeConfig(dir, as, oauth) {
    return writeIni(dir, {
        server: {
            name: 'mcph-http-oauth-access', plugin_dir: PLUGIN_DIR, page_size: 3,
            ...(oauth ? {
                oauth_issuer: as.issuer.url, oauth_resource: RESOURCE, oauth_jwks_url: `${as.issuer.url}/jwks`,
                oauth_scopes: 'mcp:tools',
            } : {}),
        },
        'plugin.example': { path: 'example.so', prefix: 'ex' },
        ...(oauth ? {
            'access.readers': { scopes: 'mcp:read', tools: 'ex_e*' },
            'access.admins': { claims: 'groups=admins', tools: '*', resources: '*', prompts: '*' },
        } : {}),
    });
}

// Every page of a list through nextCursor: { names, scopes (each page's cacheScope), problems }.
async function listAll(send, method, field, key, modern) {
    const out = { names: [], scopes: [], problems: [] };
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
        out.names.push(...res[field].map((row) => row[key]));
        out.scopes.push(res.cacheScope);
        cursor = res.nextCursor;
        if (!cursor) return out;
    }
    out.problems.push(`${method}: more than ${MAX_PAGES} pages`);
    return out;
}

async function fullLists(url) {
    const full = {};
    for (const [method, field, key] of LISTS) {
        const l = await listAll((m) => post(url, m), method, field, key, true);
        if (l.problems.length) throw new Error(l.problems.join('; '));
        full[field] = l.names;
    }
    if (!full.tools.some((n) => n.startsWith('ex_e')) || !full.tools.some((n) => !n.startsWith('ex_e'))) {
        throw new Error(`the example plugin's tools no longer split on ex_e*: ${short(full.tools)}`);
    }
    return full;
}

// Each list as sees cuts the full one; 2026-07-28 pages say cacheScope private.
async function listsProblems(send, full, sees, modern) {
    const problems = [];
    let rows = 0;
    for (const [method, field, key] of LISTS) {
        const l = await listAll(send, method, field, key, modern);
        problems.push(...l.problems);
        const want = full[field].filter(sees[field]);
        if (!same(l.names, want)) problems.push(`${field}: ${short(l.names)}, expected ${short(want)}`);
        if (modern && l.scopes.some((s) => s !== 'private')) problems.push(`${field}: cacheScope ${short(l.scopes)}, expected private`);
        rows += l.names.length;
    }
    return problems.length ? problems : `${rows} rows`;
}

// The error without the name it names.
function errorShape(r, name) {
    const e = r.answer?.error;
    if (!e) return `no error: ${r.status} ${short(r.text)}`;
    return JSON.stringify({ status: r.status, code: e.code, message: e.message.split(name).join('NAME'), data: e.data === undefined ? null : JSON.stringify(e.data).split(name).join('NAME') });
}

// A call of a tool the token does not see answers exactly as one of a missing tool.
async function asUnknown(url, token, hidden, args) {
    const a = await post(url, modernRequest(1, 'tools/call', { name: hidden, arguments: args }), { headers: bearer(token) });
    const b = await post(url, modernRequest(2, 'tools/call', { name: 'ex_nosuch', arguments: args }), { headers: bearer(token) });
    const [sa, sb] = [errorShape(a, hidden), errorShape(b, 'ex_nosuch')];
    return sa === sb && a.answer?.error ? [] : [`${hidden} (hidden): ${sa}; ex_nosuch (missing): ${sb}`];
}

async function calls(url, token, name, args, want) {
    const r = await post(url, modernRequest(3, 'tools/call', { name, arguments: args }), { headers: bearer(token) });
    const text = r.answer?.result?.content?.[0]?.text;
    return text === want ? [] : [`${name}: ${r.status} ${short(r.text)}, expected "${want}"`];
}

async function legacyLists(url, token, full, sees) {
    const init = await post(url, { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: LEGACY, capabilities: {}, clientInfo: { name: 'mcph-tests', version: '1.0' } } }, { headers: bearer(token) });
    const sid = init.headers.get('mcp-session-id');
    if (!sid) return [`initialize: ${init.status} ${short(init.text)}`];
    const headers = { ...bearer(token), 'mcp-session-id': sid, 'mcp-protocol-version': LEGACY };
    await post(url, { jsonrpc: '2.0', method: 'notifications/initialized' }, { headers });
    return listsProblems((m) => post(url, m, { headers }), full, sees, false);
}

async function run(as, srv, full) {
    const url = srv.url;
    const reader = await mint(as, 'rita', (p) => { p.scope = 'mcp:tools mcp:read'; });
    const readerScp = await mint(as, 'sam', (p) => { delete p.scope; p.scp = ['mcp:tools', 'mcp:read']; });
    const admin = await mint(as, 'ada', (p) => { p.groups = ['staff', 'admins']; });
    const nobody = await mint(as, 'nick', (p) => { p.groups = ['staff', 'admins-to-be']; p.role = 'admins'; });

    await check('metadata: scopes_supported is oauth_scopes, then the scopes the sections name', async () => {
        const res = await fetch(url.replace(/\/mcp$/, '/.well-known/oauth-protected-resource/mcp'), { signal: AbortSignal.timeout(5000) });
        const doc = await res.json();
        return same(doc.scopes_supported, ['mcp:tools', 'mcp:read']) ? short(doc.scopes_supported) : [`HTTP ${res.status}, scopes_supported ${short(doc.scopes_supported)}`];
    });
    await check('scope mcp:read: only the ex_e* tools, no resource, template or prompt (2026-07-28, cacheScope private)', async () =>
        listsProblems((m) => post(url, m, { headers: bearer(reader) }), full, READER, true));
    await check('scope mcp:read in "scp" (an array): the same tools', async () =>
        listsProblems((m) => post(url, m, { headers: bearer(readerScp) }), full, READER, true));
    await check('scope mcp:read: the same in a legacy session', async () => legacyLists(url, reader, full, READER));
    await check('scope mcp:read: ex_echo answers; ex_add (not its) answers as an unknown tool', async () => [
        ...await calls(url, reader, 'ex_echo', { text: 'read' }, 'read'),
        ...await asUnknown(url, reader, 'ex_add', { a: 1, b: 2 }),
    ]);
    await check('claim groups holding "admins": every row of every list (cacheScope private)', async () =>
        listsProblems((m) => post(url, m, { headers: bearer(admin) }), full, ADMIN, true));
    await check('claim groups holding "admins": the same in a legacy session, and ex_add answers', async () => {
        const r = await legacyLists(url, admin, full, ADMIN);
        const c = await calls(url, admin, 'ex_add', { a: 2, b: 3 }, '5');
        return Array.isArray(r) || c.length ? [...(Array.isArray(r) ? r : []), ...c] : r;
    });
    await check('neither the scope nor the claim: every list empty, ex_echo answers as an unknown tool', async () => {
        const r = await listsProblems((m) => post(url, m, { headers: bearer(nobody) }), full, NOBODY, true);
        const u = await asUnknown(url, nobody, 'ex_echo', { text: 'x' });
        return Array.isArray(r) || u.length ? [...(Array.isArray(r) ? r : []), ...u] : r;
    });
}

async function main() {
    if (!process.argv[2] || !fs.existsSync(BIN) || !fs.existsSync(path.join(PLUGIN_DIR, 'example.so'))) {
        console.error('usage: node tests/http/oauth-access.mjs BINARY (with BINARY\'s plugins/example.so built)');
        process.exit(2);
    }
    const t0 = performance.now();
    const as = new OAuth2Server();
    await as.issuer.keys.generate('ES256');
    await as.start(0, '127.0.0.1');
    const ws = workspace(SUITE, 'main');
    try {
        for (const d of ['ref', 'oauth']) fs.mkdirSync(path.join(ws, d), { recursive: true, mode: 0o755 });
        const ref = await startServer(BIN, writeConfig(path.join(ws, 'ref'), as, false), 'ref', T(10000));
        const srv = await startServer(BIN, writeConfig(path.join(ws, 'oauth'), as, true), 'oauth', T(10000));
        const full = await fullLists(ref.url);
        if (await capped(run(as, srv, full), T(60000)) === CAPPED) report(false, 'time limit', `past ${T(60000) / 1000} s`);
    } catch (err) {
        report(false, 'the test stopped', short(err?.stack || String(err), 600));
    }
    const exits = await stopAll(T(10000));
    await as.stop();
    await check('every mcph: exit 0 on SIGTERM, nothing stray on stdout, no sanitizer report', async () => [
        ...exits, ...[...servers].flatMap((s) => s.problems()),
    ]);
    const failed = summary('http oauth access', ` (${((performance.now() - t0) / 1000).toFixed(1)} s)`);
    if (failed === 0) fs.rmSync(path.join(TESTS_ROOT, SUITE), { recursive: true, force: true });
    process.exit(failed ? 1 : 0);
}

main().catch(async (err) => {
    report(false, 'main', short(err?.stack || String(err), 600));
    await stopAll(5000).catch(() => {});
    summary('http oauth access');
    process.exit(1);
});
