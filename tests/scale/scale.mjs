#!/usr/bin/env node
// Scale-out through nginx: the checks tests/scale/run.sh runs once three mcph replicas and
// nginx (tests/scale/nginx.conf.in) are up.
//
//   node tests/scale/scale.mjs URL DIR
//
// URL is nginx's endpoint (http://127.0.0.1:PORT/mcp); DIR holds nginx's access.log (one JSON
// object a request, with the replica that served it) and `replicas`, one line per replica:
// "NAME ADDRESS PID INI" (NAME is its session_route, ADDRESS 127.0.0.1:PORT). Every request the
// clients send carries an X-Scale-Tag header that the access log records, so each request is
// matched with the replica that served it; nginx also returns the replica in X-Mcph-Upstream,
// which is how a stream still open is placed.
// Authorization is on (tests/scale/oauth.mjs): every client sends a token of its own subject.
//   oauth        the Protected Resource Metadata through nginx; 401 without a token (the
//                challenge names the metadata), 200 with one
//   sessionless  the v2 client (2026-07-28) lists and calls; every replica serves some
//   mrtr         an elicitation whose retry lands on another replica than its first leg, and a
//                requestState changed by one character refused with -32602
//   legacy       v1 clients (2025-11-25): each session's requests all go to the replica that
//                created it; sessions of several clients on different replicas
//   reload       v2 clients holding subscriptions/listen streams on every replica, and the
//                legacy GET streams; every replica's INI gains a plugin, then SIGHUP: every
//                stream hears tools/list_changed and tools/list shows the new tool everywhere
// Prints "ok NAME (note)" / "FAIL NAME: why" lines, then "scale driver: N passed, N failed";
// exits 1 on a failure.

import fs from 'node:fs';
import path from 'node:path';
import { Client as ClientV2, ProtocolError } from '@modelcontextprotocol/client';
import { StreamableHTTPClientTransport as HttpV2 } from '@modelcontextprotocol/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as HttpV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { check, report, done, expect } from '../lib/check.mjs';
import { sleep, waitFor, short } from '../lib/util.mjs';
import { RESOURCE, bearer } from './oauth.mjs';

const MODERN = '2026-07-28';
const LEGACY = '2025-11-25'; // what the v1 client's initialize asks for
const TIMEOUT_MS = 20000; // per request; sanitizer builds are slower
const LOG_WAIT_MS = 5000; // nginx writes a request's line when it ends
const RELOAD_WAIT_MS = 10000;
const MRTR_TRIES = 6;
const LISTENERS_MAX = 9;
const LEGACY_CLIENTS = 3;
const LIMIT_MS = 150000;
const NEW_TOOL = 'sh_scale_hello';

const [url, dir] = process.argv.slice(2);
if (!url || !dir) {
    console.error('usage: node tests/scale/scale.mjs URL DIR');
    process.exit(2);
}
const ACCESS_LOG = path.join(dir, 'access.log');
const replicas = fs.readFileSync(path.join(dir, 'replicas'), 'utf8').trim().split('\n').map((l) => {
    const [name, addr, pid, ini] = l.trim().split(/\s+/);
    return { name, addr, pid: Number(pid), ini };
});
const byAddr = new Map(replicas.map((r) => [r.addr, r]));
const replicaOf = (addr) => byAddr.get(addr)?.name ?? `?${addr}`;
const textOf = (r) => (r?.content || []).filter((c) => c.type === 'text').map((c) => c.text).join('\n');
const opts = (extra = {}) => ({ timeout: TIMEOUT_MS, ...extra });
const counts = (xs) => Object.entries(xs.reduce((m, x) => ({ ...m, [x]: (m[x] || 0) + 1 }), {}))
    .sort().map(([k, n]) => `${k}:${n}`).join(' ');

// --- The access log. ---

function readLog() {
    let text = '';
    try {
        text = fs.readFileSync(ACCESS_LOG, 'utf8');
    } catch {
        return [];
    }
    const out = [];
    for (const line of text.split('\n')) {
        if (!line.trim()) continue;
        try {
            out.push(JSON.parse(line));
        } catch {
            out.push({ bad: line });
        }
    }
    return out;
}

// The access log entries of these tags, once every one is there (or what is there after
// LOG_WAIT_MS): a Map tag -> entry.
async function logEntries(tags) {
    let found = new Map();
    await waitFor(() => {
        const want = new Set(tags);
        found = new Map(readLog().filter((e) => want.has(e.tag)).map((e) => [e.tag, e]));
        return found.size === want.size;
    }, LOG_WAIT_MS, 50);
    return found;
}

// --- Requests, tagged: every fetch of an SDK transport (or a raw one) goes through a Wire. ---

class Wire {
    constructor(label) {
        this.label = label;
        this.n = 0;
        this.records = []; // { tag, http, body, status, upstream, session }
        this.rewrite = null; // (body) => body: changes a request before it is sent
        this.anonymous = false; // true: no Authorization header
        this.fetch = this.fetch.bind(this);
    }

    async fetch(input, init = {}) {
        const tag = `${this.label}.${++this.n}`;
        const headers = new Headers(init.headers || (input instanceof Request ? input.headers : undefined));
        headers.set('X-Scale-Tag', tag);
        // Authorization is on: each client is a subject of its own (its label).
        if (!this.anonymous) headers.set('Authorization', bearer(dir, `scale-${this.label}`));
        let body = null;
        let raw = init.body;
        if (typeof raw === 'string') {
            try {
                body = JSON.parse(raw);
            } catch {
                body = null;
            }
            if (body && this.rewrite) {
                const changed = this.rewrite(body);
                if (changed) {
                    body = changed;
                    raw = JSON.stringify(changed);
                }
            }
        }
        const rec = { tag, http: init.method || 'GET', body, status: null, upstream: null, session: null };
        this.records.push(rec);
        const res = await fetch(input, { ...init, headers, body: raw });
        rec.status = res.status;
        rec.upstream = res.headers.get('x-mcph-upstream');
        rec.session = res.headers.get('mcp-session-id');
        this.lastChallenge = res.headers.get('www-authenticate');
        return res;
    }

    since(i) {
        return this.records.slice(i);
    }

    // The records of JSON-RPC requests with this method (after index `from`).
    requests(method, from = 0) {
        return this.records.slice(from).filter((r) => r.body?.method === method && 'id' in r.body);
    }
}

// Raw 2026-07-28 POST through nginx: the headers the spec asks for, a tagged request.
async function modernPost(wire, msg) {
    const headers = {
        'Content-Type': 'application/json',
        Accept: 'application/json, text/event-stream',
        'MCP-Protocol-Version': MODERN,
        'Mcp-Method': msg.method,
    };
    if (msg.method === 'tools/call') headers['Mcp-Name'] = msg.params.name;
    const res = await wire.fetch(url, { method: 'POST', headers, body: JSON.stringify(msg), signal: AbortSignal.timeout(TIMEOUT_MS) });
    const text = await res.text();
    const type = res.headers.get('content-type') || '';
    let json = null;
    if (type.startsWith('text/event-stream')) {
        // The answer is the last data line that is a response.
        for (const line of text.split('\n')) {
            if (!line.startsWith('data:')) continue;
            const m = JSON.parse(line.slice(5));
            if ('id' in m && !('method' in m)) json = m;
        }
    } else if (text) {
        json = JSON.parse(text);
    }
    return { status: res.status, json, tag: wire.records.at(-1).tag };
}

const META = {
    'io.modelcontextprotocol/protocolVersion': MODERN,
    'io.modelcontextprotocol/clientInfo': { name: 'scale-raw', version: '1.0' },
    'io.modelcontextprotocol/clientCapabilities': { elicitation: {} },
};

// --- Clients. ---

const closers = [];

async function modernClient(label, wire = new Wire(label)) {
    const transport = new HttpV2(new URL(url), { fetch: wire.fetch });
    const client = new ClientV2({ name: `scale-${label}`, version: '1.0.0' }, {
        capabilities: { elicitation: {} },
        versionNegotiation: { mode: { pin: MODERN } },
    });
    client.setRequestHandler('elicitation/create', async (req) => {
        const props = req.params?.requestedSchema?.properties || {};
        const content = Object.fromEntries(Object.entries(props).map(([k, s]) => [k, s.type === 'boolean' ? true : 'x']));
        return { action: 'accept', content };
    });
    await client.connect(transport, opts());
    closers.push(() => client.close());
    return { client, wire, transport };
}

async function legacyClient(label) {
    const wire = new Wire(label);
    const transport = new HttpV1(new URL(url), { fetch: wire.fetch, reconnectionOptions: { maxRetries: 0, initialReconnectionDelay: 1000, maxReconnectionDelay: 1000, reconnectionDelayGrowFactor: 1 } });
    const client = new ClientV1({ name: `scale-${label}`, version: '1.0.0' }, { capabilities: {} });
    const errors = [];
    client.onerror = (err) => errors.push(String(err?.message || err));
    const changed = [];
    client.setNotificationHandler(ToolListChangedNotificationSchema, (n) => {
        changed.push(n);
    });
    await client.connect(transport, opts());
    closers.push(() => client.close());
    return { client, wire, transport, errors, changed, sid: transport.sessionId };
}

// --- Checks. ---

// (a) Sessionless traffic: round-robin over every replica.
async function sessionless() {
    let a = null;
    await check('sessionless: v2 client connects through nginx (2026-07-28)', async () => {
        a = await modernClient('a');
        const c = a.client;
        const problems = [];
        if (c.getProtocolEra() !== 'modern') problems.push(`era ${c.getProtocolEra()}`);
        if (c.getNegotiatedProtocolVersion() !== MODERN) problems.push(`negotiated ${c.getNegotiatedProtocolVersion()}`);
        if (a.wire.records.some((r) => r.session)) problems.push('a sessionless response carried Mcp-Session-Id');
        return problems.length ? problems : `${c.getServerVersion()?.name} ${c.getServerVersion()?.version}`;
    });
    if (!a) return;
    await check('sessionless: lists and calls through nginx', async () => {
        const c = a.client;
        const problems = [];
        for (let i = 0; i < 3; i++) {
            const t = await c.listTools(undefined, opts({ cacheMode: 'bypass' }));
            if (!t.tools.some((x) => x.name === 'confirm')) problems.push(`tools/list ${i}: no confirm tool`);
        }
        const r = await c.listResources(undefined, opts({ cacheMode: 'bypass' }));
        if (!r.resources?.length) problems.push('no resources');
        const p = await c.listPrompts(undefined, opts({ cacheMode: 'bypass' }));
        if (!p.prompts?.length) problems.push('no prompts');
        for (let i = 0; i < 9; i++) {
            const s = await c.callTool({ name: 'add', arguments: { a: i, b: 100 } }, opts());
            if (textOf(s) !== String(i + 100) || s.structuredContent?.sum !== i + 100) problems.push(`add ${i}+100: ${short(s)}`);
        }
        // Some at once.
        const many = await Promise.all([...Array(9).keys()].map((i) => c.callTool({ name: 'echo', arguments: { text: `echo ${i}` } }, opts())));
        many.forEach((s, i) => {
            if (textOf(s) !== `echo ${i}`) problems.push(`echo ${i}: ${short(s)}`);
        });
        return problems.length ? problems : `${a.wire.records.length} requests`;
    });
    await check('sessionless: every replica served some (access log)', async () => {
        const tags = a.wire.records.map((r) => r.tag);
        const log = await logEntries(tags);
        const problems = [];
        if (log.size !== tags.length) problems.push(`${tags.length - log.size} of ${tags.length} requests not in the access log`);
        const served = [...log.values()].map((e) => replicaOf(e.upstream));
        for (const r of replicas) {
            if (!served.includes(r.name)) problems.push(`${r.name} served none`);
        }
        const odd = [...log.values()].filter((e) => !byAddr.has(e.upstream));
        if (odd.length) problems.push(`upstream not a single replica: ${short(odd.map((e) => e.upstream))}`);
        const bad = [...log.values()].filter((e) => e.status !== '200' && e.status !== '202');
        if (bad.length) problems.push(`statuses ${short(bad.map((e) => `${e.tag}:${e.status}`))}`);
        const routed = [...log.values()].filter((e) => e.backend !== 'mcph_all');
        if (routed.length) problems.push(`${routed.length} sessionless requests not sent round-robin`);
        return problems.length ? problems : counts(served);
    });
}

// (b) MRTR across replicas, and a forged requestState.
async function mrtr() {
    let b = null;
    await check('mrtr: elicitation whose retry lands on another replica', async () => {
        b = await modernClient('b');
        const tries = [];
        for (let i = 0; i < MRTR_TRIES; i++) {
            const from = b.wire.records.length;
            const r = await b.client.callTool({ name: 'confirm', arguments: { action: `ship ${i}` } }, opts());
            expect(!r.isError && textOf(r).includes('"confirm":true'), `confirm ${i}: the tool did not get the answer: ${short(r)}`);
            const calls = b.wire.requests('tools/call', from);
            expect(calls.length === 2, `confirm ${i}: ${calls.length} tools/call POSTs, expected the first leg and one retry`);
            const [first, retry] = calls;
            expect(!first.body.params.inputResponses && !first.body.params.requestState, `confirm ${i}: the first leg carries inputResponses or requestState`);
            expect(retry.body.params.inputResponses && typeof retry.body.params.requestState === 'string', `confirm ${i}: the retry lacks inputResponses or requestState`);
            expect(JSON.stringify(first.body.id) !== JSON.stringify(retry.body.id), `confirm ${i}: the retry reused the request id`);
            const log = await logEntries([first.tag, retry.tag]);
            const [l1, l2] = [log.get(first.tag), log.get(retry.tag)];
            expect(l1 && l2, `confirm ${i}: a leg is missing from the access log`);
            expect(l1.status === '200' && l2.status === '200', `confirm ${i}: statuses ${l1.status}, ${l2.status}`);
            tries.push(`${replicaOf(l1.upstream)}->${replicaOf(l2.upstream)}`);
            if (byAddr.has(l1.upstream) && byAddr.has(l2.upstream) && l1.upstream !== l2.upstream) {
                return `try ${i + 1}: first leg on ${replicaOf(l1.upstream)}, retry on ${replicaOf(l2.upstream)}`;
            }
        }
        return [`the retry never landed on another replica in ${MRTR_TRIES} tries: ${tries.join(', ')}`];
    });
    const wire = b?.wire ?? new Wire('b');
    // The first leg by hand: its requestState, and the replica that sealed it.
    const firstLeg = async (id) => {
        const r = await modernPost(wire, { jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'confirm', arguments: { action: 'forge' }, _meta: META } });
        expect(r.status === 200 && r.json?.result?.resultType === 'input_required', `first leg: HTTP ${r.status} ${short(r.json)}`);
        const state = r.json.result.requestState;
        const key = Object.keys(r.json.result.inputRequests || {})[0];
        expect(typeof state === 'string' && state.length > 8 && key, `first leg: no requestState or inputRequests: ${short(r.json)}`);
        return { state, key, tag: r.tag };
    };
    const retry = (id, key, state) => modernPost(wire, {
        jsonrpc: '2.0', id, method: 'tools/call',
        params: { name: 'confirm', arguments: { action: 'forge' }, inputResponses: { [key]: { action: 'accept', content: { confirm: true } } }, requestState: state, _meta: META },
    });
    await check('mrtr: the genuine requestState, retried by hand, is taken by another replica', async () => {
        const tries = [];
        for (let i = 0; i < MRTR_TRIES; i++) {
            const leg = await firstLeg(100 + 2 * i);
            const r = await retry(101 + 2 * i, leg.key, leg.state);
            expect(r.status === 200 && r.json?.id === 101 + 2 * i && textOf(r.json?.result).includes('"confirm":true'), `retry ${i}: HTTP ${r.status} ${short(r.json)}`);
            const log = await logEntries([leg.tag, r.tag]);
            const [u1, u2] = [log.get(leg.tag)?.upstream, log.get(r.tag)?.upstream];
            tries.push(`${replicaOf(u1)}->${replicaOf(u2)}`);
            if (byAddr.has(u1) && byAddr.has(u2) && u1 !== u2) return `try ${i + 1}: sealed on ${replicaOf(u1)}, taken on ${replicaOf(u2)}`;
        }
        return [`the retry never landed on another replica in ${MRTR_TRIES} tries: ${tries.join(', ')}`];
    });
    // One character changed: in the sealed payload, then in the seal.
    const forge = (state, where) => {
        const dot = state.indexOf('.');
        const at = where === 'payload' ? Math.floor((dot > 0 ? dot : state.length) / 2) : (dot > 0 ? dot + Math.floor((state.length - dot) / 2) : state.length - 4);
        const c = state[at];
        const to = c === 'A' ? 'B' : 'A';
        return state.slice(0, at) + to + state.slice(at + 1);
    };
    for (const where of ['payload', 'seal']) {
        await check(`mrtr: a requestState with one character changed (${where}) is refused with -32602`, async () => {
            const leg = await firstLeg(201);
            const forged = forge(leg.state, where);
            expect(forged !== leg.state && forged.length === leg.state.length, 'could not forge');
            const r = await retry(202, leg.key, forged);
            const problems = [];
            if (r.json?.error?.code !== -32602) problems.push(`HTTP ${r.status} ${short(r.json)}, expected error -32602`);
            if (r.json?.id !== 202) problems.push(`the error's id is ${short(r.json?.id)}, expected 202`);
            if (r.json?.result) problems.push('the forged retry got a result');
            const log = await logEntries([leg.tag, r.tag]);
            const [u1, u2] = [log.get(leg.tag)?.upstream, log.get(r.tag)?.upstream];
            return problems.length ? problems : `HTTP ${r.status}, -32602 "${short(r.json.error.message, 80)}" (sealed on ${replicaOf(u1)}, refused on ${replicaOf(u2)})`;
        });
    }
    await check('mrtr: the v2 client gets -32602 when its retry carries an altered requestState', async () => {
        const c = b?.client ?? (await modernClient('b2', wire)).client;
        wire.rewrite = (body) => (body.method === 'tools/call' && typeof body.params?.requestState === 'string' ?
            { ...body, params: { ...body.params, requestState: forge(body.params.requestState, 'payload') } } : null);
        try {
            const r = await c.callTool({ name: 'confirm', arguments: { action: 'forged by the client' } }, opts());
            return [`a result: ${short(r)}`];
        } catch (err) {
            if (err instanceof ProtocolError && err.code === -32602) return `ProtocolError -32602: ${short(err.message, 80)}`;
            return [`${err?.constructor?.name} ${err?.code}: ${short(err?.message)}`];
        } finally {
            wire.rewrite = null;
        }
    });
}

// (d) Legacy sessions: affinity on Mcp-Session-Id.
async function legacy() {
    const clients = [];
    await check(`legacy: ${LEGACY_CLIENTS} v1 clients initialize through nginx`, async () => {
        for (let i = 0; i < LEGACY_CLIENTS; i++) clients.push(await legacyClient(`d${i + 1}`));
        const problems = [];
        for (const d of clients) {
            const sid = d.sid;
            if (!/^r[123]-[0-9a-f]{32}$/.test(sid || '')) problems.push(`${d.wire.label}: session id ${short(sid)}, expected rN-<32 hex>`);
            if (d.transport.protocolVersion !== LEGACY) problems.push(`${d.wire.label}: protocol ${d.transport.protocolVersion}`);
        }
        return problems.length ? problems : clients.map((d) => d.sid.slice(0, 8)).join(' ');
    });
    if (clients.length < LEGACY_CLIENTS) return clients;
    await check('legacy: calls in each session', async () => {
        const problems = [];
        for (const d of clients) {
            const t = await d.client.listTools(undefined, opts());
            if (!t.tools.some((x) => x.name === 'echo')) problems.push(`${d.wire.label}: no echo tool`);
            for (let i = 0; i < 4; i++) {
                const r = await d.client.callTool({ name: 'echo', arguments: { text: `${d.wire.label} ${i}` } }, undefined, opts());
                if (textOf(r) !== `${d.wire.label} ${i}`) problems.push(`${d.wire.label} echo ${i}: ${short(r)}`);
            }
            const r = await d.client.callTool({ name: 'greet', arguments: { name: 'Ada' } }, undefined, opts());
            if (!textOf(r).includes('Ada')) problems.push(`${d.wire.label} greet: ${short(r)}`);
        }
        return problems.length ? problems : `${clients.length} sessions`;
    });
    await legacyAffinity(clients, 'legacy: every request of a session went to the replica that created it (access log)');
    await check('legacy: sessions of several clients on different replicas', async () => {
        const where = clients.map((d) => d.home);
        const set = new Set(where.filter(Boolean));
        return set.size >= 2 ? `initialize on ${where.join(', ')}` : [`every session on ${where.join(', ')}`];
    });
    return clients;
}

// Every finished request of each client's session went to the replica its initialize landed
// on, whose session_route the session id starts with. Sets d.home.
async function legacyAffinity(clients, name, { requireAll = false } = {}) {
    await check(name, async () => {
        const problems = [];
        const notes = [];
        for (const d of clients) {
            const sid = d.sid;
            const init = d.wire.requests('initialize')[0];
            const done = d.wire.records.filter((r) => r.status !== null && (requireAll || r.http !== 'GET'));
            const log = await logEntries(done.map((r) => r.tag));
            const l0 = log.get(init?.tag);
            if (!l0) {
                problems.push(`${d.wire.label}: initialize not in the access log`);
                continue;
            }
            d.home = replicaOf(l0.upstream);
            if (l0.new_session !== sid) problems.push(`${d.wire.label}: initialize logged with session ${short(l0.new_session)}`);
            if (!sid.startsWith(`${d.home}-`)) problems.push(`${d.wire.label}: session ${sid} created on ${d.home}`);
            if (l0.backend !== 'mcph_all') problems.push(`${d.wire.label}: initialize sent to ${l0.backend}, not round-robin`);
            let n = 0;
            for (const r of done) {
                if (r === init) continue;
                const e = log.get(r.tag);
                if (!e) {
                    problems.push(`${d.wire.label}: ${r.tag} (${r.http} ${r.body?.method ?? ''}) not in the access log`);
                    continue;
                }
                n++;
                if (e.session !== sid) problems.push(`${r.tag}: sent with session ${short(e.session)}`);
                if (e.upstream !== l0.upstream) problems.push(`${r.tag} (${r.http} ${r.body?.method ?? ''}) served by ${replicaOf(e.upstream)}, the session is on ${d.home}`);
                if (!/^20[02]$/.test(e.status)) problems.push(`${r.tag} (${r.http} ${r.body?.method ?? ''}): HTTP ${e.status}`);
            }
            // The GET stream (the one the client opens after initialize) may still be open: nginx
            // said where it went.
            const gets = d.wire.records.filter((r) => r.http === 'GET' && r.status !== null);
            if (requireAll && (gets.length !== 1 || gets[0].status !== 200)) problems.push(`${d.wire.label}: GET streams ${short(gets.map((g) => g.status))}, expected one 200`);
            for (const g of gets) {
                if (g.upstream !== l0.upstream) problems.push(`${d.wire.label}: GET stream on ${replicaOf(g.upstream)}, the session is on ${d.home}`);
            }
            notes.push(`${d.wire.label}@${d.home}: ${n + 1} requests`);
        }
        return problems.length ? problems : notes.join(', ');
    });
}

// (c) Listen streams on every replica; every INI changed, SIGHUP to all three.
async function reload(legacyClients) {
    const listeners = [];
    await check('reload: subscriptions/listen streams held on every replica', async () => {
        for (let i = 0; i < LISTENERS_MAX; i++) {
            const l = await modernClient(`c${i + 1}`);
            l.changed = [];
            l.client.setNotificationHandler('notifications/tools/list_changed', (n) => {
                l.changed.push(n);
            });
            const from = l.wire.records.length;
            l.sub = await l.client.listen({ toolsListChanged: true }, opts());
            l.listenRec = l.wire.requests('subscriptions/listen', from)[0];
            expect(l.sub.honoredFilter?.toolsListChanged === true, `c${i + 1}: honored ${short(l.sub.honoredFilter)}`);
            expect(l.listenRec?.status === 200, `c${i + 1}: listen HTTP ${l.listenRec?.status}`);
            l.home = replicaOf(l.listenRec.upstream);
            listeners.push(l);
            const held = new Set(listeners.map((x) => x.home));
            if (i >= 2 && replicas.every((r) => held.has(r.name))) break;
        }
        const held = listeners.map((x) => x.home);
        const missing = replicas.filter((r) => !held.includes(r.name)).map((r) => r.name);
        return missing.length ? [`no stream on ${missing.join(', ')} after ${listeners.length} listeners (${held.join(', ')})`] : `${listeners.length} streams: ${counts(held)}`;
    });
    const toolsBefore = (await listenersTools(listeners[0]))?.length;
    await check('reload: every replica\'s INI changed, SIGHUP to each: every stream hears tools/list_changed', async () => {
        expect(listeners.length > 0, 'no listener');
        for (const r of replicas) {
            fs.appendFileSync(r.ini, '\n[plugin.exec]\npath = exec.so\nprefix = sh\n' +
                'commands = scale_hello "Says hello": /bin/echo hello\n');
        }
        for (const r of replicas) process.kill(r.pid, 'SIGHUP');
        const all = () => listeners.every((l) => l.changed.length > 0) && legacyClients.every((d) => d.changed.length > 0);
        await waitFor(all, RELOAD_WAIT_MS, 50);
        await sleep(300);
        const problems = [];
        for (const l of listeners) {
            if (l.changed.length !== 1) problems.push(`${l.wire.label} (listen on ${l.home}): ${l.changed.length} tools/list_changed`);
        }
        for (const d of legacyClients) {
            if (d.changed.length !== 1) problems.push(`${d.wire.label} (legacy GET stream on ${d.home}): ${d.changed.length} tools/list_changed`);
        }
        return problems.length ? problems : `${listeners.length} listen streams and ${legacyClients.length} legacy GET streams`;
    });
    await check('reload: tools/list through nginx shows the new tool on every replica', async () => {
        const c = listeners[0] ?? (await modernClient('c0'));
        const from = c.wire.records.length;
        const seen = [];
        const problems = [];
        for (let i = 0; i < replicas.length * 2; i++) {
            const t = await c.client.listTools(undefined, opts({ cacheMode: 'bypass' }));
            const rec = c.wire.requests('tools/list', from).at(-1);
            seen.push({ rec, names: t.tools.map((x) => x.name) });
        }
        const log = await logEntries(seen.map((s) => s.rec.tag));
        const served = new Set();
        for (const s of seen) {
            const where = replicaOf(log.get(s.rec.tag)?.upstream);
            served.add(where);
            if (!s.names.includes(NEW_TOOL)) problems.push(`${where}: no ${NEW_TOOL} in ${s.names.length} tools`);
            if (s.names.length !== toolsBefore + 1) problems.push(`${where}: ${s.names.length} tools, ${toolsBefore} before the reload`);
        }
        for (const r of replicas) if (!served.has(r.name)) problems.push(`${r.name} answered no tools/list`);
        const r = await c.client.callTool({ name: NEW_TOOL, arguments: {} }, opts());
        if (textOf(r).trim() !== 'hello') problems.push(`${NEW_TOOL}: ${short(r)}`);
        return problems.length ? problems : `${toolsBefore} -> ${toolsBefore + 1} tools on ${[...served].join(', ')}`;
    });
    await check('reload: legacy sessions call the new tool on their own replica', async () => {
        const problems = [];
        for (const d of legacyClients) {
            const t = await d.client.listTools(undefined, opts());
            if (!t.tools.some((x) => x.name === NEW_TOOL)) problems.push(`${d.wire.label}: no ${NEW_TOOL}`);
            const r = await d.client.callTool({ name: NEW_TOOL, arguments: {} }, undefined, opts());
            if (textOf(r).trim() !== 'hello') problems.push(`${d.wire.label}: ${short(r)}`);
        }
        return problems.length ? problems : `${legacyClients.length} sessions`;
    });
    // The listen streams end; their access log lines (written when a request ends) agree with
    // where nginx said they went.
    await check('reload: listen streams closed; the access log places them where nginx said', async () => {
        for (const l of listeners) await l.sub.close();
        const log = await logEntries(listeners.map((l) => l.listenRec.tag));
        const problems = [];
        for (const l of listeners) {
            const e = log.get(l.listenRec.tag);
            if (!e) problems.push(`${l.listenRec.tag}: not in the access log after the stream closed`);
            else if (replicaOf(e.upstream) !== l.home) problems.push(`${l.listenRec.tag}: logged on ${replicaOf(e.upstream)}, X-Mcph-Upstream said ${l.home}`);
        }
        return problems.length ? problems : `${listeners.length} streams`;
    });
}

// The legacy sessions end (DELETE), on their own replica; every request of theirs, the GET
// streams included, went there.
async function legacyEnd(clients) {
    await check('legacy: DELETE ends each session on its replica', async () => {
        const problems = [];
        for (const d of clients) {
            if (d.errors.length) problems.push(`${d.wire.label}: client errors before the end: ${short(d.errors)}`);
            await d.transport.terminateSession();
            const del = d.wire.records.filter((r) => r.http === 'DELETE').at(-1);
            if (del?.status !== 200) problems.push(`${d.wire.label}: DELETE HTTP ${del?.status}`);
            await d.client.close();
        }
        return problems.length ? problems : `${clients.length} sessions`;
    });
    await legacyAffinity(clients, 'legacy: after the end, every request of each session, GET streams included, on its replica', { requireAll: true });
}

async function listenersTools(l) {
    if (!l) return undefined;
    try {
        return (await l.client.listTools(undefined, opts({ cacheMode: 'bypass' }))).tools;
    } catch {
        return undefined;
    }
}

// (0) Authorization through nginx: the metadata from any replica, a request without a token
// refused with the challenge that names it, one with a token served.
async function oauth() {
    const origin = new URL(url).origin;
    await check('oauth: the metadata through nginx, 401 without a token, 200 with one', async () => {
        const out = [];
        const meta = await fetch(`${origin}/.well-known/oauth-protected-resource/mcp`, { signal: AbortSignal.timeout(TIMEOUT_MS) });
        const doc = await meta.json().catch(() => ({}));
        if (meta.status !== 200 || doc.resource !== RESOURCE) out.push(`metadata: HTTP ${meta.status} ${short(doc)}`);
        const wire = new Wire('oauth');
        wire.anonymous = true;
        const msg = { jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: META } };
        const refused = await modernPost(wire, msg);
        const challenge = wire.lastChallenge || '';
        if (refused.status !== 401) out.push(`no token: HTTP ${refused.status}`);
        if (!challenge.includes('resource_metadata="https://mcp.scale.test/.well-known/oauth-protected-resource/mcp"')) out.push(`no token: challenge "${challenge}"`);
        wire.anonymous = false;
        const ok = await modernPost(wire, { ...msg, id: 2 });
        if (ok.status !== 200 || !ok.json?.result?.tools) out.push(`with a token: HTTP ${ok.status} ${short(ok.json)}`);
        return out;
    });
}

async function main() {
    const t0 = Date.now();
    const watchdog = setTimeout(() => {
        report(false, 'scale driver', `did not finish within ${LIMIT_MS / 1000} s`);
        done('scale driver');
    }, LIMIT_MS);
    try {
        await oauth();
        await sessionless();
        await mrtr();
        const clients = await legacy();
        await reload(clients);
        await legacyEnd(clients);
    } catch (err) {
        report(false, 'scale driver', `threw: ${err?.stack || err}`);
    } finally {
        for (const c of closers) await c().catch(() => {});
        clearTimeout(watchdog);
    }
    done('scale driver', ` in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
}

main();
