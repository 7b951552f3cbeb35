#!/usr/bin/env node
// W3C trace context end to end (docs/tracing.md): the official SDK client calls tools with
// _meta { traceparent, tracestate } over stdio and Streamable HTTP, and the trace id must
// reach the traced test plugin (tests/plugins/traced.c) in process, the same plugin under
// isolate = process, and a proxied server (tests/gateway/fake-server.mjs, mode meta, through
// the mcp plugin), each time with the parent id changed to mcph's span and the tracestate
// kept; the HTTP traceparent header alone works too, and _meta wins over it; a call without
// one gets a fresh valid trace id (another per call); a malformed one is ignored (a fresh id,
// no tracestate); only these keys of the client's _meta are passed on; and mcph's log lines
// about a call (the plugin's host->log, a failure mcph logs) carry trace=TRACEID.
//
//   node tests/trust/trace.mjs [BINARY]        BINARY: build/mcph
//
// Prints "ok NAME (note)" / "FAIL NAME: why" lines, then "trust trace: N passed, N failed";
// exits 1 on a failure. Every wait is bounded; bounds are multiplied by MCPH_TEST_SLOW
// (default 1, 3 under ASan/UBSan, 5 under TSan).

import fs from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ROOT, sanitizersOf, SANITIZER_REPORT, short, sleep } from '../lib/util.mjs';
import { check, expect, done } from '../lib/check.mjs';
import { workspace, writeIni, PLUGINS, TEST_PLUGINS } from '../lib/workspace.mjs';
import { startServer, stopAll } from '../http/clients-lib.mjs';
import { Proc } from '../lib/proc.mjs';

const BIN = path.resolve(process.argv[2] || path.join(ROOT, 'build/mcph'));
const SAN = sanitizersOf(BIN);
const SLOW = Number(process.env.MCPH_TEST_SLOW) || (SAN.thread ? 5 : SAN.any ? 3 : 1);
const T = (ms) => ms * SLOW;
const FAKE = path.join(ROOT, 'tests/gateway/fake-server.mjs');
const MARKER = `trace-fake-${process.pid}`;

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const GIVEN = `00-${TRACE_ID}-00f067aa0ba902b7-01`;
const STATE = 'rojo=00f067aa0ba902b7,congo=t61rcWkgMzE';
const HEADER_ID = '0af7651916cd43dd8448eb211c80319c';
const HEADER = `00-${HEADER_ID}-b7ad6b7169203331-00`;
const PARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;
// The three places the trace goes: tool names.
const TOOLS = { plugin: 'in_trace', isolated: 'iso_trace', proxied: 'fake_meta' };

// One workspace: the traced plugin in process and isolated, and the fake server behind mcp.
function setup() {
    const ws = workspace('trust', 'trace');
    fs.symlinkSync(FAKE, path.join(ws, 'fake.mjs'));
    return writeIni(ws, {
        server: { log_level: 'info' },
        'plugin.in': { path: path.join(TEST_PLUGINS, 'traced.so'), prefix: 'in' },
        'plugin.iso': { path: path.join(TEST_PLUGINS, 'traced.so'), prefix: 'iso', isolate: 'process' },
        'plugin.fake': { path: path.join(PLUGINS, 'mcp.so'), prefix: 'fake', command: `${process.execPath} fake.mjs meta --marker ${MARKER}` },
    });
}

// What a call's trace context arrived as: { traceparent, tracestate, other } (other: the
// _meta keys besides those, for the proxied server).
function arrived(where, r) {
    if (where !== 'proxied') return { ...r.structuredContent, other: [] };
    const meta = JSON.parse(r.content?.[0]?.text || '{}');
    // mcph's own keys (its progress token for the server, its dev.mcph/ keys) are not the
    // client's.
    const own = ['traceparent', 'tracestate', 'progressToken'];
    const other = Object.keys(meta).filter((k) => !own.includes(k) && !k.startsWith('dev.mcph/'));
    return { traceparent: meta.traceparent, tracestate: meta.tracestate ?? null, other };
}

async function call(client, where, meta, args = {}) {
    const r = await client.callTool({ name: TOOLS[where], arguments: args, ...(meta ? { _meta: meta } : {}) }, undefined, { timeout: T(15000) });
    expect(!r.isError, `${where}: tool error ${short(r)}`);
    return arrived(where, r);
}

// The given trace id kept, with mcph's span as the parent (never the client's) and the flags.
function expectJoined(got, id, flags, state, what) {
    const m = PARENT.exec(got.traceparent || '');
    expect(m, `${what}: traceparent ${short(got.traceparent)} is not 00-32hex-16hex-2hex`);
    expect(m[1] === id, `${what}: trace id ${m[1]}, sent ${id}`);
    expect(m[2] !== GIVEN.slice(36, 52) && m[2] !== HEADER.slice(36, 52) && !/^0+$/.test(m[2]), `${what}: parent id ${m[2]} is not mcph's span`);
    expect(m[3] === flags, `${what}: flags ${m[3]}, sent ${flags}`);
    expect(got.tracestate === state, `${what}: tracestate ${short(got.tracestate)}, wanted ${short(state)}`);
    expect(got.other.length === 0, `${what}: the client's other _meta keys were passed on: ${got.other.join(', ')}`);
    return m[2];
}

// A fresh trace: valid, not the one sent, no tracestate.
function expectFresh(got, what) {
    const m = PARENT.exec(got.traceparent || '');
    expect(m, `${what}: traceparent ${short(got.traceparent)} is not 00-32hex-16hex-2hex`);
    expect(!/^0+$/.test(m[1]) && m[1] !== TRACE_ID && m[1] !== HEADER_ID, `${what}: trace id ${m[1]} is not fresh`);
    expect(got.tracestate === null || got.tracestate === undefined, `${what}: tracestate ${short(got.tracestate)} passed on without a valid traceparent`);
    return m[1];
}

// Poll until every tool is listed (the isolated child and the proxied server start on their own).
async function waitTools(client) {
    const until = Date.now() + T(20000);
    let names = [];
    for (let i = 0; i < 400 && Date.now() < until; i++) {
        names = (await client.listTools(undefined, { timeout: T(5000) })).tools.map((t) => t.name);
        if (Object.values(TOOLS).every((n) => names.includes(n))) return;
        await sleep(50);
    }
    throw new Error(`tools ${Object.values(TOOLS).join(', ')} not all listed within ${T(20000)} ms: ${names.join(', ')}`);
}

// Wait until stderr has a line matching re.
async function waitLine(stderr, re, what) {
    const until = Date.now() + T(5000);
    for (let i = 0; i < 200 && Date.now() < until && !re.test(stderr()); i++) await sleep(25);
    expect(re.test(stderr()), `${what}: no line ${re} on stderr; tail: ${short(stderr().trim().split('\n').slice(-4).join(' | '), 400)}`);
}

async function stdio(ini) {
    let stderr = '';
    const transport = new StdioClientTransport({ command: BIN, args: [ini], stderr: 'pipe', cwd: ROOT });
    transport.stderr.on('data', (d) => {
        stderr += d.toString();
    });
    const client = new Client({ name: 'trace-test', version: '1.0.0' });
    await client.connect(transport, { timeout: T(10000) });
    const err = () => stderr;
    await check('trace: every tool is served (in process, isolated, proxied)', () => waitTools(client));
    for (const where of ['plugin', 'isolated', 'proxied']) {
        await check(`trace: stdio, ${where}: the client's trace id arrives with mcph's span as parent and its tracestate`, async () => {
            const got = await call(client, where, { traceparent: GIVEN, tracestate: STATE, 'example.com/secret': 'not for servers' });
            const span = expectJoined(got, TRACE_ID, '01', STATE, where);
            const again = await call(client, where, { traceparent: GIVEN, tracestate: STATE });
            const span2 = expectJoined(again, TRACE_ID, '01', STATE, `${where}, again`);
            expect(span !== span2, `${where}: two calls had the same span ${span}`);
            return `span ${span}`;
        });
        await check(`trace: stdio, ${where}: a call without traceparent gets a fresh valid trace id, another per call`, async () => {
            const a = expectFresh(await call(client, where, null), 'first');
            const b = expectFresh(await call(client, where, { progressToken: 'p1' }), 'second');
            expect(a !== b, `two calls share the trace id ${a}`);
            return `${a}, ${b}`;
        });
        await check(`trace: stdio, ${where}: a malformed traceparent is ignored (fresh id, no tracestate)`, async () => {
            const bad = [GIVEN.toUpperCase(), `00-${'0'.repeat(32)}-00f067aa0ba902b7-01`, `ff-${TRACE_ID}-00f067aa0ba902b7-01`, `${GIVEN}-x`, 42];
            for (const tp of bad) expectFresh(await call(client, where, { traceparent: tp, tracestate: STATE }), `traceparent ${tp}`);
            return `${bad.length} refused`;
        });
    }
    await check('trace: the plugin\'s host->log line carries trace=TRACEID (in process and in the isolated child)', async () => {
        const got = await call(client, 'plugin', { traceparent: GIVEN });
        expectJoined(got, TRACE_ID, '01', null, 'plugin');
        await waitLine(err, new RegExp(`^mcph: info: plugin in: traced call trace=${TRACE_ID}$`, 'm'), 'in process');
        await waitLine(err, new RegExp(`^mcph\\[iso\\]: info: plugin iso: traced call trace=${TRACE_ID}$`, 'm'), 'isolated');
        return 'both tagged';
    });
    await check('trace: mcph\'s own line about a failed call carries its trace id', async () => {
        const id = 'aaaabbbbccccddddeeeeffff00001111';
        const r = await client.callTool({ name: TOOLS.plugin, arguments: { fail: true }, _meta: { traceparent: `00-${id}-1111222233334444-01` } }, undefined, { timeout: T(15000) }).then(
            (x) => x,
            (e) => e,
        );
        expect(r instanceof Error, `the failing call answered ${short(r)}`);
        await waitLine(err, new RegExp(`plugin 'in' failed a request .*failed on purpose trace=${id}$`, 'm'), 'failure');
        return 'tagged';
    });
    await client.close();
    await check('trace: stdio mcph ends cleanly, no sanitizer report', async () => {
        await sleep(T(200));
        const rep = SANITIZER_REPORT.exec(stderr);
        expect(!rep, `sanitizer: ${short(stderr.slice(rep?.index || 0), 600)}`);
    });
}

// A 2026-07-28 request (no initialize; its _meta carries the envelope and the trace) over
// stdio, to the plugin in process, read raw.
async function modern(ini) {
    const p = new Proc([BIN, ini], { cwd: ROOT });
    await check('trace: stdio, 2026-07-28: _meta.traceparent beside the envelope arrives joined', async () => {
        const meta = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {}, traceparent: GIVEN, tracestate: STATE };
        p.send({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: TOOLS.plugin, arguments: {}, _meta: meta } });
        const r = await p.next(T(10000));
        expect(r.result?.structuredContent, `answer ${short(r)}`);
        return expectJoined({ ...r.result.structuredContent, other: [] }, TRACE_ID, '01', STATE, 'plugin');
    });
    p.close();
    const st = await p.wait(T(5000));
    await check('trace: stdio, 2026-07-28: mcph ends cleanly at end of input', () => {
        expect(st.code === 0, `exit ${st.signal || st.code}`);
        expect(!SANITIZER_REPORT.test(p.stderr), `sanitizer: ${short(p.stderr, 400)}`);
    });
}

async function http(ini) {
    const srv = await startServer(BIN, ini, 'trace-http', T(10000));
    const connect = async (headers) => {
        const client = new Client({ name: 'trace-http', version: '1.0.0' });
        await client.connect(new StreamableHTTPClientTransport(new URL(srv.url), { requestInit: { headers } }), { timeout: T(10000) });
        return client;
    };
    const plain = await connect({});
    const withHeader = await connect({ traceparent: HEADER, tracestate: 'h=1' });
    await check('trace: http, every tool is served', () => waitTools(plain));
    for (const where of ['plugin', 'isolated', 'proxied']) {
        await check(`trace: http, ${where}: _meta.traceparent arrives joined`, async () => expectJoined(await call(plain, where, { traceparent: GIVEN, tracestate: STATE }), TRACE_ID, '01', STATE, where));
        await check(`trace: http, ${where}: the traceparent header alone arrives joined, flags and tracestate kept`, async () => expectJoined(await call(withHeader, where, null), HEADER_ID, '00', 'h=1', where));
        await check(`trace: http, ${where}: _meta wins over the header`, async () => expectJoined(await call(withHeader, where, { traceparent: GIVEN }), TRACE_ID, '01', null, where));
        await check(`trace: http, ${where}: no traceparent anywhere: a fresh id`, async () => expectFresh(await call(plain, where, null), where));
    }
    await plain.close();
    await withHeader.close();
    const st = await srv.stop(T(10000));
    await check('trace: http mcph ends cleanly, no sanitizer report', () => {
        expect(st.code === 0 && !st.timedOut, `exit ${st.signal || st.code}${st.timedOut ? ' (killed)' : ''}`);
        expect(srv.problems().length === 0, srv.problems().join(' | '));
    });
}

const timer = setTimeout(() => {
    console.log(`FAIL trace: the suite took more than ${T(120000)} ms`);
    process.exit(1);
}, T(120000));
try {
    const ini = setup();
    await stdio(ini);
    await modern(ini);
    await http(ini);
} catch (e) {
    await check('trace: the suite ran to its end', () => {
        throw e;
    });
} finally {
    await stopAll(T(5000));
    clearTimeout(timer);
}
done('trust trace');
