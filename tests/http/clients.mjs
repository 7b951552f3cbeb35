#!/usr/bin/env node
// mcph's Streamable HTTP transport with the official MCP TypeScript clients, over real
// sockets on 127.0.0.1: every feature a client has over stdio must work over HTTP too.
//
//   node tests/http/clients.mjs BINARY          (make test-http)
//
// BINARY runs as `BINARY --listen 127.0.0.1:0 INI` (the port is read from its stderr), on INIs
// written to build/tests/http-clients/PART/ with the plugins beside BINARY (BINARY's folder's
// plugins/ and tests/plugins/features.so), so that a sanitizer build in its own BUILD folder
// runs with its own plugins. The parts:
//   v1       the SDK v1 Client + StreamableHTTPClientTransport (a legacy session): initialize
//            and Mcp-Session-Id, lists equal to stdio's, a call, progress and a log on the
//            POST's event stream, elicitation, sampling and roots asked on that stream and
//            answered by POSTs, resources/updated and list_changed (SIGHUP) on the GET
//            stream, DELETE and then 404 for the ended session;
//   two      two legacy sessions: a reload reaches both GET streams, logs go by session and
//            level, subscriptions are the subscriber's;
//   v2       the SDK v2 client (@modelcontextprotocol/client) pinned to 2026-07-28:
//            server/discover, lists, a call, elicitation and sampling through input_required
//            and the client's retry, progress, the subscriptions/listen that
//            ClientOptions.listChanged opens hearing a reload, cancellation by closing the
//            request, and the "auto" negotiation;
//   sealed   two processes sharing state_key_file take each other's requestState; one
//            altered character or another key is refused (-32602); without state_key_file each
//            process seals under a key of its own (its own state taken, another's refused);
//   same     one INI over stdio and over HTTP gives the same answers, in both eras;
//   sigterm  SIGTERM with a client, its GET stream and a running command: exit 0 at once,
//            no child, no port left.
// Every mcph must write nothing on stdout, no sanitizer report on stderr, and exit 0 on
// SIGTERM. Output: "ok NAME" / "FAIL NAME: why" lines, then "http clients: N passed, N
// failed"; the exit status is 1 when a check failed.

import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1Transport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
    CreateMessageRequestSchema,
    ElicitRequestSchema,
    ListRootsRequestSchema,
    LoggingMessageNotificationSchema,
    ResourceUpdatedNotificationSchema,
    ToolListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { Client as V2Client, StreamableHTTPClientTransport as V2Transport } from '@modelcontextprotocol/client';
import { check, report, summary } from '../lib/check.mjs';
import { Session } from '../lib/session.mjs';
import { CAPPED, SANITIZER_REPORT, capped, sanitizersOf, short, sleep, waitFor } from '../lib/util.mjs';
import { workspace, writeIni, TESTS_ROOT } from '../lib/workspace.mjs';
import {
    KEY_SUB, LEGACY, MODERN, Wire, alive, bare, childrenOf, modernRequest, portOpen, post, servers, startServer, stopAll,
} from './clients-lib.mjs';

const SUITE = 'http-clients';
const BIN = path.resolve(process.argv[2] || '');
const SAN = sanitizersOf(BIN);
const SLOW = SAN.any ? 5 : 1; // a sanitizer build is 3-10 times slower
const T = (ms) => ms * SLOW;
const PLUGIN_DIR = path.join(path.dirname(BIN), 'plugins');
const FEATURES = path.join(path.dirname(BIN), 'tests/plugins/features.so');
const REQUEST_MS = T(10000);
const PART_CAP_MS = T(60000);
const CAPS = { elicitation: {}, sampling: {}, roots: { listChanged: true } };
const ROOT_URI = 'file:///srv/project';
const NOTE_URI = 'example://note';

const isObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);
const textOf = (r) => (r?.content || []).filter((c) => c.type === 'text').map((c) => c.text).join('\n');
const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);
const opts = (extra = {}) => ({ timeout: REQUEST_MS, ...extra });

// --- Workspaces and INIs. ---

// The INI every part serves: the example plugin (prefix ex, or what `prefix` says) and the
// features test plugin; `server` adds [server] keys, `more` sections.
function writeConfig(ws, { prefix = 'ex', server = {}, more = {} } = {}) {
    return writeIni(ws, {
        server: { name: 'mcph-http-clients', plugin_dir: PLUGIN_DIR, ask_timeout_ms: 5000, ...server },
        'plugin.example': { path: 'example.so', prefix },
        'plugin.features': { path: path.relative(PLUGIN_DIR, FEATURES) },
        ...more,
    });
}

// Rewrite a part's INI with another prefix for the example plugin and reload: the tool list
// changes (ex_echo becomes ey_echo). Returns the new prefix.
function reloadWithPrefix(srv, config, prefix) {
    writeConfig(path.dirname(srv.ini), { ...config, prefix });
    srv.hup();
    return prefix;
}

// --- What stdio answers (the reference). ---

// What the stdio processes did wrong (stdout lines that are not messages, a sanitizer report,
// an exit other than 0 at EOF), for the last check.
const stdioProblems = [];

async function stdioStop(s, what) {
    const r = await s.stop(T(5000));
    if (r.code !== 0 || r.signal) stdioProblems.push(`stdio ${what}: exit ${r.signal || r.code}`);
    const rep = SANITIZER_REPORT.exec(s.stderr);
    if (rep) stdioProblems.push(`stdio ${what}: sanitizer report: ${short(s.stderr.slice(rep.index), 600)}`);
    stdioProblems.push(...s.problems().map((p) => `stdio ${what}: ${p}`));
}

const LISTS = [['tools', 'tools'], ['resources', 'resources'], ['resources/templates', 'resourceTemplates'], ['prompts', 'prompts']];

async function stdioLegacy(ini) {
    const s = new Session(BIN, ini, { timeoutMs: REQUEST_MS });
    try {
        const init = await s.initialize({ rev: LEGACY, capabilities: {} });
        const lists = {};
        for (const [kind, field] of LISTS) lists[field] = await s.list(kind);
        const list = await s.call('tools/list', {});
        const echo = await s.call('tools/call', { name: 'ex_echo', arguments: { text: 'same on both' } });
        return { init, lists, list, echo };
    } finally {
        await stdioStop(s, 'legacy');
    }
}

async function stdioModern(ini) {
    const s = new Session(BIN, ini, { timeoutMs: REQUEST_MS });
    try {
        const out = {};
        for (const [name, msg] of modernProbes()) {
            s.send(msg);
            out[name] = await s.answer(msg.id, REQUEST_MS);
        }
        return out;
    } finally {
        await stdioStop(s, '2026-07-28');
    }
}

function modernProbes() {
    return [
        ['discover', modernRequest(101, 'server/discover', {})],
        ['list', modernRequest(102, 'tools/list', {})],
        ['echo', modernRequest(103, 'tools/call', { name: 'ex_echo', arguments: { text: 'same on both' } })],
    ];
}

// --- SDK v1 clients. ---

function v1Client(url, label) {
    const wire = new Wire();
    const transport = new V1Transport(new URL(url), { fetch: wire.fetch });
    const client = new V1Client({ name: `mcph-http-${label}`, version: '1.0.0' }, { capabilities: CAPS });
    const c = { label, wire, transport, client, asked: [], logs: [], updates: [], changed: [], errors: [] };
    client.onerror = (err) => c.errors.push(String(err?.message || err));
    client.setRequestHandler(ElicitRequestSchema, async (req) => {
        c.asked.push({ kind: 'elicitation', params: req.params });
        return { action: 'accept', content: { confirm: true } };
    });
    client.setRequestHandler(CreateMessageRequestSchema, async (req) => {
        c.asked.push({ kind: 'sampling', params: req.params });
        const text = req.params.messages?.[0]?.content?.text ?? '';
        return { role: 'assistant', content: { type: 'text', text: `sampled: ${text}` }, model: 'mcph-test-model', stopReason: 'endTurn' };
    });
    client.setRequestHandler(ListRootsRequestSchema, async () => {
        c.asked.push({ kind: 'roots' });
        return { roots: [{ uri: ROOT_URI, name: 'project' }] };
    });
    client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
        c.logs.push(n.params);
    });
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => {
        c.updates.push(n.params);
    });
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
        c.changed.push(performance.now());
    });
    c.call = (name, args, extra) => client.callTool({ name, arguments: args }, undefined, opts(extra));
    return c;
}

// The session's GET stream, once it is open (the client opens it after initialized's 202).
async function getStream(c) {
    const sid = c.transport.sessionId;
    return waitFor(() => c.wire.gets().find((g) => g.status === 200 && g.headers['mcp-session-id'] === sid && !g.ended), T(3000));
}

// Where a notification came: 'GET', 'POST #n', or null.
function whereHeard(wire, method, pred = () => true) {
    return wire.notes(method).filter((r) => pred(r.msg.params || {})).map((r) => (r.ex.method === 'GET' ? 'GET' : `POST ${r.ex.body?.method}`));
}

async function v1Connect(c, name) {
    let ok = false;
    await check(name, async () => {
        await c.client.connect(c.transport, opts());
        const problems = [];
        const sid = c.transport.sessionId;
        const init = c.wire.posts('initialize')[0];
        if (typeof sid !== 'string' || !/^[\x21-\x7e]{16,}$/.test(sid)) problems.push(`session id ${short(sid)}`);
        if (!init) return ['no initialize on the wire'];
        if (init.status !== 200 || init.resHeaders['mcp-session-id'] !== sid) problems.push(`initialize: ${init.status}, Mcp-Session-Id ${short(init.resHeaders['mcp-session-id'])}`);
        if ('mcp-session-id' in init.headers) problems.push('the client sent a session id with initialize');
        const result = c.wire.answer(init)?.result;
        if (result?.protocolVersion !== LEGACY) problems.push(`negotiated ${short(result?.protocolVersion)}`);
        const inited = c.wire.exchanges.find((e) => e.body?.method === 'notifications/initialized');
        if (!inited || inited.status !== 202 || inited.headers['mcp-session-id'] !== sid) problems.push(`notifications/initialized: ${inited?.status}`);
        const get = await getStream(c);
        if (!get) problems.push(`no GET stream open (GETs: ${short(c.wire.gets().map((g) => `${g.status} ${g.ct}`))})`);
        else if (!get.ct.startsWith('text/event-stream')) problems.push(`GET answered ${get.ct}`);
        ok = problems.length === 0;
        return problems.length ? problems : `session ${sid}, ${result.protocolVersion}, GET stream open`;
    });
    return ok;
}

// A tool that asks the client, legacy: the request comes on the call's POST stream before the
// answer, the client's response is POSTed to the session (202), the tool gets it.
async function v1Ask(c, kind, method, tool, args, expect) {
    await check(`v1 ${kind}: asked on the POST stream, answered by a POST`, async () => {
        const n = c.asked.length;
        const r = await c.call(tool, args);
        const problems = [];
        if (r.isError || !textOf(r).includes(expect)) problems.push(`result ${short(r)}`);
        if (!c.asked.slice(n).some((a) => a.kind === kind)) problems.push(`the ${kind} handler was not called`);
        const ex = c.wire.posts('tools/call', (p) => p.name === tool).at(-1);
        const msgs = ex?.messages.map((m) => m.msg) || [];
        const qi = msgs.findIndex((m) => m.method === method && 'id' in m);
        const ai = msgs.findIndex((m) => !('method' in m) && m.id === ex.body.id);
        if (qi < 0) return [...problems, `no ${method} on the call's stream (${ex?.ct}: ${short(msgs.map((m) => m.method || 'answer'))})`];
        if (!ex.ct.startsWith('text/event-stream')) problems.push(`the call was answered with ${ex.ct}`);
        if (ai >= 0 && ai < qi) problems.push('the question came after the answer');
        const q = msgs[qi];
        const reply = c.wire.exchanges.find((e) => e.method === 'POST' && isObject(e.body) && !('method' in e.body) && same(e.body.id, q.id));
        if (!reply) problems.push('the client POSTed no answer');
        else if (!(await waitFor(() => reply.status !== null, T(2000)))) problems.push('the answer\'s POST got no status');
        else if (reply.status !== 202 || reply.headers['mcp-session-id'] !== c.transport.sessionId) problems.push(`the answer's POST: ${reply.status}, session ${short(reply.headers['mcp-session-id'])}`);
        if (c.wire.gets().some((g) => g.messages.some((m) => m.msg.method === method))) problems.push(`${method} on the GET stream`);
        return problems.length ? problems : `${method} id ${q.id} on the stream, answer POSTed (202)`;
    });
}

async function partV1() {
    const ws = workspace(SUITE, 'v1');
    const config = {};
    const ini = writeConfig(ws, config);
    const ref = await stdioLegacy(ini);
    const srv = await startServer(BIN, ini, 'v1', T(10000));
    const c = v1Client(srv.url, 'v1');
    try {
        if (!(await v1Connect(c, 'v1 connect: initialize, Mcp-Session-Id, GET stream'))) return;
        await check('v1 lists equal the stdio lists', async () => {
            const got = {
                tools: (await c.client.listTools(undefined, opts())).tools,
                resources: (await c.client.listResources(undefined, opts())).resources,
                resourceTemplates: (await c.client.listResourceTemplates(undefined, opts())).resourceTemplates,
                prompts: (await c.client.listPrompts(undefined, opts())).prompts,
            };
            const problems = [];
            for (const [kind, field] of LISTS) {
                const ex = c.wire.posts(`${kind}/list`).at(-1);
                const wire = ex ? c.wire.answer(ex)?.result?.[field] : undefined;
                if (!same(wire, ref.lists[field])) problems.push(`${kind}: HTTP ${short(wire, 150)} != stdio ${short(ref.lists[field], 150)}`);
                const names = (x) => x.map((i) => i.name);
                if (!same(names(got[field]), names(ref.lists[field]))) problems.push(`${kind}: the client lists ${short(names(got[field]))}`);
            }
            if (ref.lists.tools.length < 10) problems.push(`only ${ref.lists.tools.length} tools over stdio`);
            return problems.length ? problems : LISTS.map(([, f]) => `${ref.lists[f].length} ${f}`).join(', ');
        });
        await check('v1 tools/call echo', async () => {
            const r = await c.call('ex_echo', { text: 'héllo over HTTP ✓' });
            const ex = c.wire.posts('tools/call', (p) => p.name === 'ex_echo').at(-1);
            const problems = [];
            if (r.isError || textOf(r) !== 'héllo over HTTP ✓') problems.push(`result ${short(r)}`);
            if (!ex?.ct.startsWith('application/json')) problems.push(`answered with ${ex?.ct}, expected application/json (nothing came before the answer)`);
            if (ex?.headers['mcp-protocol-version'] !== LEGACY) problems.push(`MCP-Protocol-Version ${short(ex?.headers['mcp-protocol-version'])}`);
            return problems.length ? problems : textOf(r);
        });
        await check('v1 progress on the POST stream', async () => {
            const seen = [];
            const r = await c.call('ex_count', { to: 3, delay_ms: 30 }, { onprogress: (p) => seen.push(p) });
            const problems = [];
            if (textOf(r) !== 'counted to 3') problems.push(`result ${short(r)}`);
            if (!same(seen.map((p) => [p.progress, p.total, p.message]), [[1, 3, 'counted to 1'], [2, 3, 'counted to 2'], [3, 3, 'counted to 3']])) problems.push(`progress ${short(seen)}`);
            const ex = c.wire.posts('tools/call', (p) => p.name === 'ex_count').at(-1);
            const msgs = ex?.messages.map((m) => m.msg) || [];
            const token = ex?.body.params?._meta?.progressToken;
            const prog = msgs.filter((m) => m.method === 'notifications/progress');
            if (!ex?.ct.startsWith('text/event-stream')) problems.push(`the call was answered with ${ex?.ct}`);
            if (prog.length !== 3 || prog.some((m) => !same(m.params.progressToken, token))) problems.push(`${prog.length} progress on the stream for token ${short(token)}`);
            if (msgs.at(-1) && 'method' in msgs.at(-1)) problems.push('the stream does not end with the answer');
            if (whereHeard(c.wire, 'notifications/progress').includes('GET')) problems.push('progress on the GET stream');
            return problems.length ? problems : '3 notifications, then the answer, on one stream';
        });
        await check('v1 logging/setLevel, then a tool\'s log on the POST stream', async () => {
            await c.client.setLoggingLevel('info', opts());
            await c.call('log', { level: 'warning', text: 'v1 log line' });
            const problems = [];
            if (!(await waitFor(() => c.logs.some((l) => JSON.stringify(l.data).includes('v1 log line')), T(1000)))) problems.push(`no log message (got ${short(c.logs)})`);
            const where = whereHeard(c.wire, 'notifications/message', (p) => JSON.stringify(p.data).includes('v1 log line'));
            if (!same(where, ['POST tools/call'])) problems.push(`heard on ${short(where)}, expected the call's POST stream`);
            if (c.logs.find((l) => JSON.stringify(l.data).includes('v1 log line'))?.level !== 'warning') problems.push('level is not warning');
            await c.client.setLoggingLevel('error', opts());
            await c.call('log', { level: 'warning', text: 'v1 below the level' });
            await sleep(T(200));
            if (c.wire.notes('notifications/message').some((r) => JSON.stringify(r.msg.params).includes('below the level'))) problems.push('a message below the level was sent');
            return problems.length ? problems : 'warning heard at info, not at error';
        });
        await v1Ask(c, 'elicitation', 'elicitation/create', 'ex_confirm', { action: 'ship it' }, '"confirm":true');
        await v1Ask(c, 'sampling', 'sampling/createMessage', 'ex_ask_model', { question: 'two and two?' }, 'sampled: two and two?');
        await v1Ask(c, 'roots', 'roots/list', 'ex_roots', {}, ROOT_URI);
        await check('v1 resources/subscribe: resources/updated on the GET stream', async () => {
            await c.client.subscribeResource({ uri: NOTE_URI }, opts());
            await c.call('ex_set_note', { text: 'a first note' });
            const problems = [];
            if (!(await waitFor(() => c.updates.some((u) => u.uri === NOTE_URI), T(2000)))) return [`no resources/updated (got ${short(c.updates)})`];
            const where = whereHeard(c.wire, 'notifications/resources/updated');
            if (!same(where, ['GET'])) problems.push(`heard on ${short(where)}, expected the GET stream once`);
            const read = await c.client.readResource({ uri: NOTE_URI }, opts());
            if (read.contents?.[0]?.text !== 'a first note') problems.push(`the note reads ${short(read.contents)}`);
            await c.client.unsubscribeResource({ uri: NOTE_URI }, opts());
            await c.call('ex_set_note', { text: 'a second note' });
            await sleep(T(300));
            if (c.updates.length !== 1) problems.push(`${c.updates.length} updates (one after unsubscribing)`);
            return problems.length ? problems : 'one update on the GET stream, none after unsubscribe';
        });
        await check('v1 SIGHUP reload: tools/list_changed on the GET stream', async () => {
            const prefix = reloadWithPrefix(srv, config, 'ey');
            const problems = [];
            if (!(await waitFor(() => c.changed.length > 0, T(5000)))) return [`no tools/list_changed within ${T(5000)} ms of SIGHUP`];
            await sleep(T(200));
            const where = whereHeard(c.wire, 'notifications/tools/list_changed');
            if (!same(where, ['GET'])) problems.push(`heard on ${short(where)}, expected the GET stream once`);
            const names = (await c.client.listTools(undefined, opts())).tools.map((t) => t.name);
            if (!names.includes(`${prefix}_echo`) || names.includes('ex_echo')) problems.push(`tools now ${short(names)}`);
            return problems.length ? problems : `${prefix}_echo listed`;
        });
        await check('v1 no client or transport errors', async () =>
            [...c.errors, ...c.wire.problems].map((e) => `client: ${e}`));
        await check('v1 every POST carried the session id and version', async () => {
            const sid = c.transport.sessionId;
            const bad = c.wire.exchanges.filter((e) => e.method === 'POST' && e.body?.method !== 'initialize' &&
                (e.headers['mcp-session-id'] !== sid || e.headers['mcp-protocol-version'] !== LEGACY));
            return bad.length ? bad.map((e) => `exchange ${e.n}: ${short(e.headers)}`) : `${c.wire.exchanges.length} exchanges`;
        });
        await check('v1 terminateSession: DELETE ends it, the old id gets 404', async () => {
            const sid = c.transport.sessionId;
            const get = c.wire.gets().find((g) => g.headers['mcp-session-id'] === sid && g.status === 200);
            await c.transport.terminateSession();
            const problems = [];
            const del = c.wire.exchanges.find((e) => e.method === 'DELETE');
            if (!del || del.status !== 200 || del.headers['mcp-session-id'] !== sid) problems.push(`DELETE: ${del?.status}`);
            if (c.transport.sessionId !== undefined) problems.push('the client kept the session id');
            if (!(await waitFor(() => get?.ended, T(2000)))) problems.push('the GET stream did not end');
            const r = await post(srv.url, { jsonrpc: '2.0', id: 900, method: 'tools/list', params: {} },
                { headers: { 'mcp-session-id': sid, 'mcp-protocol-version': LEGACY } });
            if (r.status !== 404) problems.push(`POST with the old id: ${r.status}, expected 404`);
            if (r.messages[0]?.error?.code !== -32001) problems.push(`POST with the old id: ${short(r.text)}, expected error -32001`);
            const g = await bare(srv.url, 'GET', { 'mcp-session-id': sid, accept: 'text/event-stream' });
            if (g.status !== 404) problems.push(`GET with the old id: ${g.status}, expected 404`);
            return problems.length ? problems : 'DELETE 200, GET stream ended, then 404 -32001';
        });
    } finally {
        await c.client.close().catch(() => {});
        await srv.stop(T(10000));
    }
}

// --- Two legacy sessions. ---

async function partTwo() {
    const ws = workspace(SUITE, 'two');
    const config = {};
    const srv = await startServer(BIN, writeConfig(ws, config), 'two', T(10000));
    const a = v1Client(srv.url, 'A');
    const b = v1Client(srv.url, 'B');
    let prefix = 'ex';
    const hasText = (r, t) => JSON.stringify(r.msg.params).includes(t);
    try {
        const okA = await v1Connect(a, 'two sessions: A connects');
        const okB = await v1Connect(b, 'two sessions: B connects');
        if (!okA || !okB) return;
        report(a.transport.sessionId !== b.transport.sessionId, 'two sessions: distinct session ids', `${a.transport.sessionId} ${b.transport.sessionId}`);
        await check('two sessions: each log goes to its session, at its level', async () => {
            await a.client.setLoggingLevel('debug', opts());
            await b.client.setLoggingLevel('error', opts());
            await a.call('log', { level: 'warning', text: 'said for A' });
            await b.call('log', { level: 'warning', text: 'below B level' });
            await b.call('log', { level: 'error', text: 'said for B' });
            await sleep(T(200));
            const problems = [];
            const heard = (c, t) => c.wire.notes('notifications/message').filter((r) => hasText(r, t)).length;
            if (heard(a, 'said for A') !== 1) problems.push(`A heard its warning ${heard(a, 'said for A')} times`);
            if (heard(b, 'said for A') !== 0) problems.push('A\'s log reached B');
            if (heard(a, 'below B level') + heard(b, 'below B level') !== 0) problems.push('a warning reached someone under B\'s level error');
            if (heard(b, 'said for B') !== 1) problems.push(`B heard its error ${heard(b, 'said for B')} times`);
            if (heard(a, 'said for B') !== 0) problems.push('B\'s log reached A');
            return problems.length ? problems : 'A: debug, B: error';
        });
        await check('two sessions: subscriptions are per session', async () => {
            await a.client.subscribeResource({ uri: NOTE_URI }, opts());
            await b.call(`${prefix}_set_note`, { text: 'set by B' });
            const problems = [];
            if (!(await waitFor(() => a.updates.length === 1, T(2000)))) problems.push(`A (subscribed) heard ${a.updates.length} updates`);
            await b.client.subscribeResource({ uri: NOTE_URI }, opts());
            await a.client.unsubscribeResource({ uri: NOTE_URI }, opts());
            await a.call(`${prefix}_set_note`, { text: 'set by A' });
            if (!(await waitFor(() => b.updates.length === 1, T(2000)))) problems.push(`B (subscribed now) heard ${b.updates.length} updates`);
            await sleep(T(200));
            if (a.updates.length !== 1) problems.push(`A heard ${a.updates.length} updates (unsubscribed after the first)`);
            if (b.updates.length !== 1) problems.push(`B heard ${b.updates.length} updates`);
            for (const c of [a, b]) {
                const where = whereHeard(c.wire, 'notifications/resources/updated');
                if (where.some((w) => w !== 'GET')) problems.push(`${c.label} heard an update on ${short(where)}`);
            }
            await b.client.unsubscribeResource({ uri: NOTE_URI }, opts());
            return problems.length ? problems : 'only the subscriber heard, on its GET stream';
        });
        await check('two sessions: a SIGHUP reload reaches both GET streams', async () => {
            const t0 = performance.now();
            prefix = reloadWithPrefix(srv, config, 'ey');
            const problems = [];
            if (!(await waitFor(() => a.changed.length > 0 && b.changed.length > 0, T(5000)))) return [`list_changed: A ${a.changed.length}, B ${b.changed.length}`];
            await sleep(T(200));
            for (const c of [a, b]) {
                const where = whereHeard(c.wire, 'notifications/tools/list_changed');
                if (!same(where, ['GET'])) problems.push(`${c.label} heard tools/list_changed on ${short(where)}`);
            }
            // What plugins log while the reload builds them goes to every session whose level
            // admits it, on its GET stream: A (debug) hears them, B (error) not.
            const newA = a.wire.notes('notifications/message').filter((r) => r.t > t0);
            const low = b.wire.notes('notifications/message').filter((r) => !['error', 'critical', 'alert', 'emergency'].includes(r.msg.params?.level));
            if (newA.length === 0) problems.push('A (debug) heard no log of the reload');
            if (newA.some((r) => r.ex.method !== 'GET')) problems.push(`a reload log came on a POST stream: ${short(newA.filter((r) => r.ex.method !== 'GET').map((r) => r.msg.params))}`);
            if (low.length) problems.push(`B (error) heard ${short(low.map((r) => r.msg.params))}`);
            return problems.length ? problems : `both GET streams; A heard ${newA.length} reload log(s), B none`;
        });
        await check('two sessions: no client errors', async () =>
            [...a.errors, ...b.errors, ...a.wire.problems, ...b.wire.problems]);
        await check('two sessions: ending A leaves B', async () => {
            await a.transport.terminateSession();
            const r = await b.call(`${prefix}_echo`, { text: 'still here' });
            return textOf(r) === 'still here' ? 'B still served' : [`B: ${short(r)}`];
        });
    } finally {
        await a.client.close().catch(() => {});
        await b.client.close().catch(() => {});
        await srv.stop(T(10000));
    }
}

// --- SDK v2 clients, 2026-07-28. ---

function v2Client(url, label, mode, extra = {}) {
    const wire = new Wire();
    const transport = new V2Transport(new URL(url), { fetch: wire.fetch });
    const client = new V2Client({ name: `mcph-http-${label}`, version: '1.0.0' }, { capabilities: CAPS, versionNegotiation: { mode }, ...extra });
    const c = { label, wire, transport, client, asked: [], errors: [] };
    client.onerror = (err) => c.errors.push(String(err?.message || err));
    client.setRequestHandler('elicitation/create', async (req) => {
        c.asked.push({ kind: 'elicitation', params: req.params });
        return { action: 'accept', content: { confirm: true } };
    });
    client.setRequestHandler('sampling/createMessage', async (req) => {
        c.asked.push({ kind: 'sampling', params: req.params });
        const text = req.params?.messages?.[0]?.content?.text ?? '';
        return { role: 'assistant', content: { type: 'text', text: `sampled: ${text}` }, model: 'mcph-test-model', stopReason: 'endTurn' };
    });
    client.setRequestHandler('roots/list', async () => {
        c.asked.push({ kind: 'roots' });
        return { roots: [{ uri: ROOT_URI, name: 'project' }] };
    });
    c.call = (name, args, more) => client.callTool({ name, arguments: args }, opts(more));
    return c;
}

async function v2Connect(c, name) {
    let ok = false;
    await check(name, async () => {
        await c.client.connect(c.transport, opts());
        const problems = [];
        if (c.client.getProtocolEra() !== 'modern') problems.push(`era ${c.client.getProtocolEra()}`);
        if (c.client.getNegotiatedProtocolVersion() !== MODERN) problems.push(`negotiated ${c.client.getNegotiatedProtocolVersion()}`);
        const first = c.wire.exchanges[0];
        if (first?.body?.method !== 'server/discover') problems.push(`first request ${short(first?.body?.method)}`);
        else {
            if (first.status !== 200) problems.push(`server/discover: ${first.status}`);
            if (first.headers['mcp-method'] !== 'server/discover' || first.headers['mcp-protocol-version'] !== MODERN) problems.push(`discover headers ${short(first.headers)}`);
            const versions = c.wire.answer(first)?.result?.supportedVersions;
            if (!Array.isArray(versions) || !versions.includes(MODERN) || !versions.includes(LEGACY)) problems.push(`supportedVersions ${short(versions)}`);
        }
        if (c.wire.posts('initialize').length) problems.push('the client sent initialize');
        if (c.wire.exchanges.some((e) => 'mcp-session-id' in e.resHeaders)) problems.push('a response carries Mcp-Session-Id');
        ok = problems.length === 0;
        return problems.length ? problems : `${c.client.getServerVersion()?.name} under ${MODERN}`;
    });
    return ok;
}

// A tool that asks the client, 2026-07-28: input_required, then the client's retry on a new
// request id with inputResponses and the requestState echoed.
async function v2Ask(c, kind, method, tool, args, expect) {
    await check(`v2 ${kind} through input_required and the retry`, async () => {
        const n = c.asked.length;
        const before = c.wire.exchanges.length;
        const r = await c.call(tool, args);
        const problems = [];
        if (r.isError || !textOf(r).includes(expect)) problems.push(`result ${short(r)}`);
        if (!c.asked.slice(n).some((a) => a.kind === kind)) problems.push(`the ${kind} handler was not called`);
        const calls = c.wire.posts('tools/call', (p) => p.name === tool).filter((e) => e.n > before);
        if (calls.length !== 2) return [...problems, `${calls.length} POSTs of the call, expected 2`];
        const [first, retry] = calls;
        const ir = c.wire.answer(first)?.result;
        if (ir?.resultType !== 'input_required') return [...problems, `first answer ${short(c.wire.answer(first))}`];
        const keys = Object.keys(ir.inputRequests || {});
        if (keys.length !== 1 || ir.inputRequests[keys[0]].method !== method) problems.push(`inputRequests ${short(ir.inputRequests)}`);
        if (same(retry.body.id, first.body.id)) problems.push('the retry reused the request id');
        if (!same(Object.keys(retry.body.params.inputResponses || {}), keys)) problems.push(`the retry answers ${short(retry.body.params.inputResponses)}`);
        if (retry.body.params.requestState !== ir.requestState) problems.push('the retry did not echo requestState');
        if (retry.headers['mcp-name'] !== tool || retry.headers['mcp-method'] !== 'tools/call') problems.push(`retry headers ${short(retry.headers)}`);
        const done = c.wire.answer(retry)?.result;
        if (done?.resultType !== undefined && done.resultType !== 'complete') problems.push(`the retry's result is ${done.resultType}`);
        if (c.wire.received().some((x) => x.msg.method === method)) problems.push(`a ${method} request was sent`);
        return problems.length ? problems : `${keys[0]}: ${method}, then the answer`;
    });
}

// Two slow calls (the server has two workers) aborted through their AbortSignals: the client
// closes the requests (2026-07-28 sends no notifications/cancelled), mcph must stop them, and a
// call after them is served at once. With `progress`, the calls are aborted once their event
// streams began; without, before mcph sent anything.
async function v2Cancel(c, name, tool, args, progress) {
    await check(name, async () => {
        const before = c.wire.exchanges.length;
        const acs = [new AbortController(), new AbortController()];
        const seen = [0, 0];
        const pending = acs.map((ac, i) => c.call(tool, args, { signal: ac.signal, ...(progress ? { onprogress: () => seen[i]++ } : {}) })
            .then(() => 'answered', () => 'aborted'));
        const mine = () => c.wire.posts('tools/call', (p) => p.name === tool).filter((e) => e.n > before);
        const started = await waitFor(() => mine().length === 2 && (!progress || (seen[0] > 0 && seen[1] > 0)), T(3000));
        await sleep(T(200));
        for (const ac of acs) ac.abort('the test cancels');
        const outcomes = await Promise.all(pending);
        const problems = [];
        if (!started) problems.push(`the calls did not start (${mine().length} POSTs, progress ${seen})`);
        if (outcomes.some((o) => o !== 'aborted')) problems.push(`outcomes ${outcomes}`);
        // Both workers had a call: this one runs only once they stopped.
        const t0 = performance.now();
        const r = await c.call('ex_echo', { text: 'after the cancel' }, { timeout: T(2000) }).catch((err) => ({ err }));
        const ms = Math.round(performance.now() - t0);
        if (textOf(r) !== 'after the cancel') problems.push(`the next call: ${short(r.err?.message || r)} after ${ms} ms (the cancelled calls still run)`);
        const later = c.wire.exchanges.filter((e) => e.n > before);
        if (later.some((e) => e.body?.method === 'notifications/cancelled')) problems.push('the client POSTed notifications/cancelled');
        if (mine().some((e) => c.wire.answer(e))) problems.push('a cancelled call was answered');
        if (problems.length && !progress) await sleep(args.ms); // let the calls end before the next check
        return problems.length ? problems : `both aborted${progress ? ` after ${seen} progress` : ''}, the next call answered in ${ms} ms`;
    });
}

async function partV2() {
    const ws = workspace(SUITE, 'v2');
    // Two workers: a cancelled call that kept its worker would hold up the calls after it.
    const config = { server: { workers: 2 } };
    const srv = await startServer(BIN, writeConfig(ws, config), 'v2', T(10000));
    const toolLists = [];
    const c = v2Client(srv.url, 'v2', { pin: MODERN }, {
        listChanged: { tools: { debounceMs: 50, onChanged: (err, tools) => toolLists.push({ err, tools }) } },
    });
    let auto = null;
    let prefix = 'ex';
    try {
        if (!(await v2Connect(c, 'v2 connect (pinned 2026-07-28): server/discover, no session'))) return;
        await check('v2 ClientOptions.listChanged opens subscriptions/listen', async () => {
            const ex = await waitFor(() => c.wire.posts('subscriptions/listen').find((e) => e.messages.length > 0), T(3000));
            if (!ex) return [`no acknowledged listen (${short(c.wire.posts('subscriptions/listen').map((e) => e.status))})`];
            const problems = [];
            const ack = ex.messages[0].msg;
            if (!ex.ct.startsWith('text/event-stream')) problems.push(`listen answered with ${ex.ct}`);
            if (ack.method !== 'notifications/subscriptions/acknowledged' || !same(ack.params?._meta?.[KEY_SUB], ex.body.id)) problems.push(`first message ${short(ack)}`);
            if (ex.body.params?.notifications?.toolsListChanged !== true) problems.push(`filter ${short(ex.body.params?.notifications)}`);
            if (!c.client.autoOpenedSubscription) problems.push('no autoOpenedSubscription');
            return problems.length ? problems : `listen id ${ex.body.id} acknowledged`;
        });
        await check('v2 lists', async () => {
            const tools = (await c.client.listTools(undefined, opts())).tools.map((t) => t.name);
            const resources = (await c.client.listResources(undefined, opts())).resources.map((r) => r.uri);
            const prompts = (await c.client.listPrompts(undefined, opts())).prompts.map((p) => p.name);
            const problems = [];
            for (const t of ['ex_echo', 'ex_confirm', 'progress', 'wait_cancel']) if (!tools.includes(t)) problems.push(`no tool ${t}`);
            if (!resources.includes(NOTE_URI)) problems.push(`resources ${short(resources)}`);
            if (!prompts.length) problems.push('no prompts');
            const ex = c.wire.posts('tools/list').at(-1);
            if (ex && ex.headers['mcp-method'] !== 'tools/list') problems.push(`Mcp-Method ${ex.headers['mcp-method']}`);
            return problems.length ? problems : `${tools.length} tools, ${resources.length} resources, ${prompts.length} prompts`;
        });
        await check('v2 tools/call echo', async () => {
            const r = await c.call('ex_echo', { text: 'héllo, 2026 ✓' });
            const ex = c.wire.posts('tools/call', (p) => p.name === 'ex_echo').at(-1);
            const problems = [];
            if (r.isError || textOf(r) !== 'héllo, 2026 ✓') problems.push(`result ${short(r)}`);
            if (ex?.headers['mcp-name'] !== 'ex_echo') problems.push(`Mcp-Name ${short(ex?.headers['mcp-name'])}`);
            if (!ex?.ct.startsWith('application/json')) problems.push(`answered with ${ex?.ct}`);
            return problems.length ? problems : textOf(r);
        });
        await v2Ask(c, 'elicitation', 'elicitation/create', 'ex_confirm', { action: 'ship it' }, '"confirm":true');
        await v2Ask(c, 'sampling', 'sampling/createMessage', 'ex_ask_model', { question: 'two and two?' }, 'sampled: two and two?');
        await v2Ask(c, 'roots', 'roots/list', 'ex_roots', {}, ROOT_URI);
        await check('v2 progress', async () => {
            const seen = [];
            const r = await c.call('progress', { steps: 3, delay_ms: 20 }, { onprogress: (p) => seen.push(p) });
            const problems = [];
            if (textOf(r) !== 'done') problems.push(`result ${short(r)}`);
            if (!same(seen.map((p) => [p.progress, p.total]), [[1, 3], [2, 3], [3, 3]])) problems.push(`progress ${short(seen)}`);
            const ex = c.wire.posts('tools/call', (p) => p.name === 'progress').at(-1);
            if (!ex?.ct.startsWith('text/event-stream')) problems.push(`answered with ${ex?.ct}`);
            const n = ex?.messages.filter((m) => m.msg.method === 'notifications/progress').length;
            if (n !== 3) problems.push(`${n} progress notifications on the stream`);
            return problems.length ? problems : '3 notifications on the call\'s stream';
        });
        // The calls would run far longer than the next call may wait (50 s, T(6) s; T(2) s).
        await v2Cancel(c, 'v2 cancellation of a call whose stream has begun: closing it frees the workers', 'ex_count', { to: 100, delay_ms: 500 }, true);
        await v2Cancel(c, 'v2 cancellation of a call that has sent nothing yet: closing it frees the workers', 'wait_cancel', { ms: T(6000) }, false);
        await check('v2 SIGHUP reload: tools/list_changed on the listen stream', async () => {
            const listen = c.wire.posts('subscriptions/listen')[0];
            prefix = reloadWithPrefix(srv, config, 'ey');
            const problems = [];
            const got = await waitFor(() => toolLists.find((x) => x.tools?.some((t) => t.name === `${prefix}_echo`) || x.err), T(5000));
            if (!got) return [`no refreshed tool list within ${T(5000)} ms (${toolLists.length} callbacks)`];
            if (got.err) problems.push(`onChanged error ${short(got.err?.message)}`);
            if (got.tools?.some((t) => t.name === 'ex_echo')) problems.push('ex_echo still listed');
            const notes = listen?.messages.filter((m) => m.msg.method === 'notifications/tools/list_changed') || [];
            if (notes.length !== 1 || !same(notes[0].msg.params?._meta?.[KEY_SUB], listen.body.id)) problems.push(`on the listen stream: ${short(notes.map((m) => m.msg))}`);
            if (listen?.ended) problems.push('the listen stream ended');
            return problems.length ? problems : `tagged ${listen.body.id}, ${got.tools.length} tools with ${prefix}_echo`;
        });
        auto = v2Client(srv.url, 'v2-auto', 'auto');
        if (await v2Connect(auto, 'v2 connect ("auto" negotiation) settles on 2026-07-28')) {
            await check('v2 "auto" client calls a tool', async () => {
                const r = await auto.call(`${prefix}_echo`, { text: 'auto' });
                return textOf(r) === 'auto' ? 'echoed' : [`result ${short(r)}`];
            });
        }
        await check('v2 no client errors', async () => [...c.errors, ...c.wire.problems, ...(auto ? [...auto.errors, ...auto.wire.problems] : [])]);
        await check('v2 close ends the listen stream, the server goes on', async () => {
            const listen = c.wire.posts('subscriptions/listen')[0];
            await c.client.close();
            const problems = [];
            if (!(await waitFor(() => listen?.ended, T(2000)))) problems.push('the listen stream is still open');
            const r = await post(srv.url, modernRequest(7, 'tools/call', { name: `${prefix}_echo`, arguments: { text: 'raw' } }));
            if (r.answer?.result?.content?.[0]?.text !== 'raw') problems.push(`a raw call then: ${r.status} ${short(r.text)}`);
            return problems.length ? problems : 'closed';
        });
    } finally {
        await c.client.close().catch(() => {});
        if (auto) await auto.client.close().catch(() => {});
        await srv.stop(T(10000));
    }
}

// --- requestState sealed under a shared key, across processes. ---

function keyFile(ws, name) {
    const file = path.join(ws, name);
    fs.writeFileSync(file, `${crypto.randomBytes(48).toString('base64')}\n`, { mode: 0o600 });
    return file;
}

const CONFIRM = { name: 'ex_confirm', arguments: { action: 'deploy' } };
const ask = (id) => modernRequest(id, 'tools/call', CONFIRM, { elicitation: {} });
const retry = (id, state) => modernRequest(id, 'tools/call', {
    ...CONFIRM, inputResponses: { 'ask-1': { action: 'accept', content: { confirm: true } } }, requestState: state,
}, { elicitation: {} });

// One character of s changed, in its middle, to another of the same kind.
function alter(s) {
    const i = Math.floor(s.length / 3);
    const c = s[i];
    const to = /[0-9]/.test(c) ? String((Number(c) + 1) % 10) : c === 'A' ? 'B' : c === 'a' ? 'b' : /[a-zA-Z]/.test(c) ? 'A' : 'Q';
    return s.slice(0, i) + to + s.slice(i + 1);
}

async function askFor(srv, id) {
    const r = await post(srv.url, ask(id));
    const state = r.answer?.result?.requestState;
    if (r.status !== 200 || r.answer?.result?.resultType !== 'input_required' || typeof state !== 'string') {
        throw new Error(`${srv.name}: ${r.status} ${short(r.text)}, expected an input_required result with a requestState`);
    }
    return { r, state };
}

function answered(r) {
    const res = r.answer?.result;
    return r.status === 200 && !res?.isError && res?.resultType !== 'input_required' && textOf(res).includes('"confirm":true');
}

function refused(r, id) {
    const problems = [];
    if (r.answer?.error?.code !== -32602) problems.push(`${r.status} ${short(r.text)}, expected error -32602`);
    else if (!same(r.answer.id, id)) problems.push(`the error's id ${short(r.answer.id)}`);
    return problems;
}

async function partSealed() {
    const ws = workspace(SUITE, 'sealed');
    const shared = keyFile(ws, 'shared.key');
    const other = keyFile(ws, 'other.key');
    const start = (name, key) => {
        const dir = path.join(ws, name);
        fs.mkdirSync(dir, { mode: 0o755 });
        return startServer(BIN, writeConfig(dir, key ? { server: { state_key_file: key } } : {}), `sealed-${name}`, T(10000));
    };
    const [a, b, c, n1, n2] = await Promise.all([start('a', shared), start('b', shared), start('c', other), start('n1'), start('n2')]);
    let sealed = null;
    await check('sealed: A answers input_required with a requestState', async () => {
        sealed = await askFor(a, 1);
        const q = sealed.r.answer.result.inputRequests?.['ask-1'];
        return q?.method === 'elicitation/create' ? `${sealed.state.length} characters` : [`inputRequests ${short(sealed.r.answer.result.inputRequests)}`];
    });
    if (!sealed) return;
    await check('sealed: B (the same key) takes the retry', async () => {
        const r = await post(b.url, retry(2, sealed.state));
        return answered(r) ? textOf(r.answer.result) : [`${r.status} ${short(r.text)}`];
    });
    await check('sealed: one character of requestState changed is refused (-32602)', async () => {
        const altered = alter(sealed.state);
        if (altered === sealed.state) return ['could not alter the state'];
        const problems = [...refused(await post(b.url, retry(3, altered)), 3).map((p) => `B: ${p}`),
            ...refused(await post(a.url, retry(4, altered)), 4).map((p) => `A: ${p}`)];
        return problems.length ? problems : `character ${Math.floor(altered.length / 3)} changed: refused by A and B`;
    });
    await check('sealed: another key refuses the state (-32602)', async () => {
        const problems = refused(await post(c.url, retry(5, sealed.state)), 5);
        // C takes a state it sealed itself.
        const own = await askFor(c, 6);
        if (!answered(await post(c.url, retry(7, own.state)))) problems.push('C refused its own state');
        return problems.length ? problems : 'refused; C takes its own';
    });
    await check('sealed: without a key, each process seals under a key of its own', async () => {
        const { state } = await askFor(n1, 8);
        const problems = refused(await post(n2.url, retry(9, state)), 9).map((p) => `another keyless process: ${p}`);
        const r2 = await post(n1.url, retry(10, state));
        if (!answered(r2)) problems.push(`the same process: ${r2.status} ${short(r2.text)}`);
        return problems.length ? problems : 'taken by the process that sealed it, refused by another';
    });
    await Promise.all([a, b, c, n1, n2].map((s) => s.stop(T(10000))));
}

// --- stdio and HTTP give the same answers. ---

async function partSame() {
    const ws = workspace(SUITE, 'same');
    const ini = writeConfig(ws);
    const [legacy, modern] = [await stdioLegacy(ini), await stdioModern(ini)];
    const srv = await startServer(BIN, ini, 'same', T(10000));
    try {
        await check('same answers, legacy: initialize, tools/list, tools/call over stdio and HTTP', async () => {
            const init = await post(srv.url, { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: LEGACY, capabilities: {}, clientInfo: { name: 'mcph-tests', version: '1.0' } } });
            const sid = init.headers.get('mcp-session-id');
            if (!sid) return [`initialize: ${init.status} ${short(init.text)}`];
            const h = { headers: { 'mcp-session-id': sid, 'mcp-protocol-version': LEGACY } };
            const problems = [];
            const note = await post(srv.url, { jsonrpc: '2.0', method: 'notifications/initialized' }, h);
            if (note.status !== 202 || note.text !== '') problems.push(`notifications/initialized: ${note.status} ${short(note.text)}`);
            const list = await post(srv.url, { jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} }, h);
            const echo = await post(srv.url, { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'ex_echo', arguments: { text: 'same on both' } } }, h);
            for (const [what, http, stdio] of [['initialize', init, { result: legacy.init }], ['tools/list', list, legacy.list], ['tools/call', echo, legacy.echo]]) {
                if (!http.answer || !same(http.answer.result, stdio.result)) problems.push(`${what}: HTTP ${short(http.answer || http.text, 150)} != stdio ${short(stdio, 150)}`);
            }
            await bare(srv.url, 'DELETE', { 'mcp-session-id': sid });
            return problems.length ? problems : `${legacy.list.result.tools.length} tools, the same call result`;
        });
        await check('same answers, 2026-07-28: server/discover, tools/list, tools/call over stdio and HTTP', async () => {
            const problems = [];
            for (const [name, msg] of modernProbes()) {
                const r = await post(srv.url, msg);
                if (r.status !== 200 || !r.answer || !same(r.answer, modern[name])) problems.push(`${name}: HTTP ${r.status} ${short(r.answer || r.text, 150)} != stdio ${short(modern[name], 150)}`);
            }
            return problems.length ? problems : 'the same three answers';
        });
    } finally {
        await srv.stop(T(10000));
    }
}

// --- SIGTERM. ---

async function partSigterm() {
    await check('sigterm with a client and its GET stream: exit 0 at once, the port closed', async () => {
        const ws = workspace(SUITE, 'sigterm-idle');
        const srv = await startServer(BIN, writeConfig(ws), 'sigterm-idle', T(10000));
        const c = v1Client(srv.url, 'sigterm');
        const listen = post(srv.url, modernRequest(1, 'subscriptions/listen', { notifications: { toolsListChanged: true } }), { ms: T(20000) })
            .catch((err) => ({ error: err }));
        try {
            await c.client.connect(c.transport, opts());
            const get = await getStream(c);
            if (!get) return ['no GET stream open'];
            await sleep(T(200));
            const r = await srv.stop(T(10000));
            const problems = [];
            if (r.code !== 0 || r.signal) problems.push(`exit ${r.signal || r.code}${r.timedOut ? ' (killed after the time limit)' : ''}`);
            if (r.ms > T(3000)) problems.push(`took ${r.ms} ms`);
            if (!(await waitFor(() => get.ended, T(2000)))) problems.push('the GET stream is still open');
            const l = await capped(listen, T(2000));
            if (l === CAPPED) problems.push('the listen request is still open');
            else if (l.error) problems.push(`the listen request failed: ${l.error.message}`);
            else if (l.answer?.result?.resultType !== 'complete') problems.push(`the listen ended without its result: ${short(l.text.slice(-200))}`);
            if (await portOpen(srv.port)) problems.push(`port ${srv.port} still open`);
            return problems.length ? problems : `exit 0 in ${r.ms} ms, streams ended, port closed`;
        } finally {
            await c.client.close().catch(() => {});
        }
    });
    await check('sigterm with a command running: exit 0, no child left', async () => {
        const ws = workspace(SUITE, 'sigterm-busy');
        const more = { 'plugin.exec': { path: 'exec.so', commands: ['nap: /bin/sleep {seconds}'] } };
        const srv = await startServer(BIN, writeConfig(ws, { more }), 'sigterm-busy', T(10000));
        const c = v1Client(srv.url, 'sigterm-busy');
        try {
            await c.client.connect(c.transport, opts());
            const get = await getStream(c);
            const call = c.call('nap', { seconds: '60' }, { timeout: T(30000) }).then((r) => r, (err) => ({ err }));
            const kids = await waitFor(() => {
                const k = childrenOf(srv.pid);
                return k.length ? k : null;
            }, T(3000));
            const problems = [];
            if (!get) problems.push('no GET stream open');
            if (!kids) return [...problems, 'the command did not start'];
            const r = await srv.stop(T(15000));
            if (r.code !== 0 || r.signal) problems.push(`exit ${r.signal || r.code}${r.timedOut ? ' (killed after the time limit)' : ''}`);
            // The call gets the grace period (5 s), then is cancelled, and mcph exits as over
            // stdio: plugins unloaded, nothing held up.
            if (r.ms > T(6500)) problems.push(`took ${r.ms} ms (the grace period is 5 s)`);
            if (/without unloading plugins|held up/.test(srv.stderr)) problems.push(`stderr: ${short(srv.stderr.split('\n').filter((l) => /held up|unloading/.test(l)).join(' | '), 300)}`);
            const left = await waitFor(() => (kids.some(alive) ? null : []), T(2000));
            if (!left) problems.push(`children still running: ${kids.filter(alive).join(' ')}`);
            const settled = await capped(call, T(3000));
            if (settled === CAPPED) problems.push('the call neither answered nor failed');
            if (await portOpen(srv.port)) problems.push(`port ${srv.port} still open`);
            return problems.length ? problems : `exit 0 in ${r.ms} ms, child ${kids.join(' ')} gone, the call ${settled.err ? 'failed' : 'answered'}`;
        } finally {
            await c.client.close().catch(() => {});
        }
    });
}

// --- Main. ---

const PARTS = [['v1', partV1], ['two', partTwo], ['v2', partV2], ['sealed', partSealed], ['same', partSame], ['sigterm', partSigterm]];

async function main() {
    if (!process.argv[2] || !fs.existsSync(BIN)) {
        console.error('usage: node tests/http/clients.mjs BINARY');
        process.exit(2);
    }
    for (const f of [path.join(PLUGIN_DIR, 'example.so'), path.join(PLUGIN_DIR, 'exec.so'), FEATURES]) {
        if (!fs.existsSync(f)) {
            console.error(`clients.mjs: ${f} is missing (make all ${path.relative(process.cwd(), FEATURES)})`);
            process.exit(2);
        }
    }
    if (SAN.any) console.log(`# sanitizer build: waits are ${SLOW} times longer`);
    const t0 = performance.now();
    for (const [name, part] of PARTS) {
        try {
            const r = await capped(part(), PART_CAP_MS);
            if (r === CAPPED) report(false, `${name}: time limit`, `the part ran past ${PART_CAP_MS / 1000} s`);
        } catch (err) {
            report(false, `${name}: the part stopped`, short(err?.stack || String(err), 600));
        }
        for (const s of servers) if (!s.stopped && s.name.startsWith(name)) await s.stop(T(10000));
    }
    const exits = await stopAll(T(10000));
    await check('every mcph: exit 0 on SIGTERM (stdio: EOF), nothing stray on stdout, no sanitizer report', async () => [
        ...exits, ...[...servers].flatMap((s) => s.problems()), ...stdioProblems,
    ]);
    const failed = summary('http clients', ` (${((performance.now() - t0) / 1000).toFixed(1)} s)`);
    if (failed === 0) fs.rmSync(path.join(TESTS_ROOT, SUITE), { recursive: true, force: true });
    process.exit(failed ? 1 : 0);
}

main().catch(async (err) => {
    report(false, 'main', short(err?.stack || String(err), 600));
    await stopAll(5000).catch(() => {});
    summary('http clients');
    process.exit(1);
});
