#!/usr/bin/env node
// What a 2026-07-28 upstream asks in its result passes through the mcp plugin as it sent it
// (tests/gateway/fake-server.mjs, mode modern, tool ir_two: two rounds of questions, each with a
// requestState of its own that it wants back byte for byte). `make test-gateway` runs it.
//
//   node tests/gateway/passthru.mjs [BINARY [PART]]   BINARY: build/mcph; PART: raw|sdk|isolated|legacy|apps
//
// raw       a 2026-07-28 client by hand over HTTP, to two mcph sharing a state_key_file: the
//           upstream's questions reach it under the upstream's keys with their params as
//           sent; each retry, on either mcph, costs the upstream exactly one request, carrying
//           the answers under its keys and its requestState as it gave it (inside mcph's own
//           sealed requestState); a requestState altered by the client is refused; an
//           upstream asking forever is stopped after 16 rounds, the client's retries counted
// sdk       the same through the official SDK v2 client (@modelcontextprotocol/client), pinned
//           to 2026-07-28, which answers the questions and retries by itself
// isolated  the sdk part with the mcp section behind isolate = process
// legacy    the SDK v2 client speaking 2025-11-25: the questions are requests to the client,
//           the upstream still sees one request per round
// apps      mode apps, through the SDK v2 client in both eras: an MCP Apps tool's
//           _meta.ui.resourceUri and the ui:// resource (listed and read: mimeType
//           text/html;profile=mcp-app, _meta) reach the client unchanged (a prefix never renames a
//           URI), with the tool's title, icons and _meta; a tool that requires tasks is not
//           listed, one where they are optional is listed without execution and runs; the
//           server's instructions come after its title
// Prints "ok gateway ..." / "FAIL gateway ...: why" lines, then "gateway passthru: N passed, N
// failed"; exits 1 on a failure.

import fs from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { startServer, post, modernRequest, stopAll } from '../http/clients-lib.mjs';
import { MODERN_REVISION } from '../lib/era.mjs';
import { done, report, expect } from '../lib/check.mjs';
import { sanitizersOf } from '../lib/util.mjs';
import { workspace, gatewayIni, fakeCommand, step, killMarker, short, ROOT } from './common.mjs';

const mcph = path.resolve(process.argv[2] || 'build/mcph');
const SAN = sanitizersOf(mcph);
const SLOW = Number(process.env.MCPH_TEST_SLOW) || (SAN.thread ? 5 : SAN.any ? 3 : 1);
const T = (ms) => ms * SLOW;
const LIMIT_MS = T(90000);
const RUN = `${process.pid}`;
const markers = [];
const cleanups = [];

function marker(name) {
    const m = `gw-${name}-${RUN}`;
    markers.push(m);
    return m;
}

function cleanup() {
    for (const c of cleanups) c();
    stopAll(1000).catch(() => {});
    for (const m of markers) killMarker(m);
}

// A workspace whose mcp section runs the modern fake server with a log; returns { ini, log }.
function setup(name, more = {}) {
    const ws = workspace(`passthru-${name}`);
    const log = path.join(ws, 'fake.log');
    const ini = gatewayIni(ws, { fake: { command: fakeCommand('modern', marker(name), '--log fake.log'), ...more } });
    return { ini, log };
}

// The upstream's ir_two requests of call `tag`, as it logged them.
function seen(log, tag) {
    if (!fs.existsSync(log)) return [];
    return fs.readFileSync(log, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l))
        .filter((e) => e.event === 'ir_two' && e.tag === tag);
}

// Exactly one request per round: round 1 with no state, then rounds 2 and 3 each with the state
// the upstream gave and the answer to the question it asked in the round before.
function oneRequestPerRound(log, tag) {
    const got = seen(log, tag);
    const want = [
        { round: 1, state: 'none', answers: [] },
        { round: 2, state: 'ok', answers: ['first'] },
        { round: 3, state: 'ok', answers: ['second'] },
    ];
    const brief = got.map((e) => `${e.round}/${e.state}/${e.answers.join('+')}`).join(', ');
    expect(got.length === 3, `the upstream saw ${got.length} requests for 2 rounds of questions: ${brief}`);
    want.forEach((w, i) => {
        const e = got[i] || {};
        expect(e.round === w.round && e.state === w.state && JSON.stringify(e.answers) === JSON.stringify(w.answers),
            `request ${i + 1}: ${JSON.stringify(e)}, not ${JSON.stringify(w)}`);
    });
    return brief;
}

const answer = (a) => ({ action: 'accept', content: { a } });

// Over HTTP, two mcph sharing a state_key_file (replicas): round 1 on one, round 2 on the other,
// round 3 on the first; each runs its own upstream process (which shares its secret with the
// other's, as replicas of a server would).
async function raw() {
    const ws = workspace('passthru-raw');
    const log = path.join(ws, 'fake.log');
    fs.writeFileSync(path.join(ws, 'state.key'), 'k'.repeat(48), { mode: 0o600 });
    const ini = gatewayIni(ws, { fake: { command: fakeCommand('modern', marker('raw'), '--log fake.log') } }, { state_key_file: path.join(ws, 'state.key') });
    const a = await startServer(mcph, ini, 'passthru-a', T(10000));
    const b = await startServer(mcph, ini, 'passthru-b', T(10000));
    let id = 0;
    const call = async (srv, retry = {}) => {
        const r = await post(srv.url, modernRequest(++id, 'tools/call', { name: 'fake_ir_two', arguments: { tag: 'raw' }, ...retry }, { elicitation: {} }), { ms: T(15000) });
        return r.answer;
    };
    let r1, r2;
    await step("passthru: the upstream's question reaches the client under its key, with its params as sent", async () => {
        r1 = (await call(a))?.result;
        expect(r1?.resultType === 'input_required', `not input_required: ${short(r1)}`);
        const q = r1.inputRequests?.first;
        expect(Object.keys(r1.inputRequests || {}).join() === 'first', `keys: ${short(r1.inputRequests)}`);
        expect(q?.method === 'elicitation/create' && /^first question \d+$/.test(q.params?.message) &&
            JSON.stringify(q.params?.requestedSchema) === '{"type":"object","properties":{"a":{"type":"string"}}}', `question: ${short(q)}`);
        expect(typeof r1.requestState === 'string' && !r1.requestState.includes('"q"'), `requestState: ${short(r1.requestState)}`);
        return short(q);
    });
    await step('passthru: a requestState altered by the client is refused (-32602), and the upstream is not sent it', async () => {
        const before = seen(log, 'raw').length;
        const i = Math.floor(r1.requestState.length / 3);
        const bad = r1.requestState.slice(0, i) + (r1.requestState[i] === 'A' ? 'B' : 'A') + r1.requestState.slice(i + 1);
        const r = await call(b, { inputResponses: { first: answer('Ada') }, requestState: bad });
        expect(r?.error?.code === -32602, `taken: ${short(r)}`);
        expect(seen(log, 'raw').length === before, 'the upstream was sent a request');
        return short(r?.error?.message, 100);
    });
    await step('passthru: each retry is one request to the upstream, with its requestState byte for byte, also on another mcph sharing the state key', async () => {
        r2 = (await call(b, { inputResponses: { first: answer('Ada') }, requestState: r1.requestState }))?.result;
        const q = r2?.inputRequests?.second;
        expect(q?.params?.message === 'second after Ada', `second round: ${short(r2)}`);
        const r3 = (await call(a, { inputResponses: { second: answer('Bob') }, requestState: r2.requestState }))?.result;
        expect(r3?.content?.[0]?.text === 'first=Ada second=Bob', `the result: ${short(r3)}`);
        return oneRequestPerRound(log, 'raw');
    });
    await step('passthru: an upstream that asks at every round is stopped after 16 rounds across the client\'s retries', async () => {
        let r = await post(a.url, modernRequest(++id, 'tools/call', { name: 'fake_ir_forever', arguments: {} }, { roots: {} }), { ms: T(15000) });
        let n = 0;
        for (; n < 20 && r.answer?.result?.resultType === 'input_required'; n++) {
            const res = r.answer.result;
            const inputResponses = Object.fromEntries(Object.keys(res.inputRequests).map((k) => [k, { roots: [] }]));
            r = await post(a.url, modernRequest(++id, 'tools/call', { name: 'fake_ir_forever', arguments: {}, inputResponses, requestState: res.requestState }, { roots: {} }), { ms: T(15000) });
        }
        const text = r.answer?.error?.message || '';
        expect(/16 rounds/.test(text), `after ${n} retries: ${short(r.answer)}`);
        return `${n} retries, then "${short(text, 100)}"`;
    });
    const problems = [...a.problems(), ...b.problems(), ...(await stopAll(T(10000)))];
    await step('passthru: both mcph end cleanly after the raw rounds, no sanitizer report', async () => {
        expect(problems.length === 0, problems.join('; '));
    });
}

// The SDK v2 client on mcph with ini; pinned to 2026-07-28 unless legacy.
async function sdkClient(ini, legacy, asked) {
    const transport = new StdioClientTransport({ command: mcph, args: [ini], env: process.env, stderr: 'pipe', cwd: ROOT });
    let stderr = '';
    transport.stderr?.on('data', (d) => {
        stderr += d.toString();
    });
    const client = new Client({ name: 'passthru-test', version: '1.0.0' }, {
        capabilities: { elicitation: {} },
        ...(legacy ? {} : { versionNegotiation: { mode: { pin: MODERN_REVISION } } }),
    });
    client.setRequestHandler('elicitation/create', async (req) => {
        const m = req.params?.message || '';
        asked.push(m);
        return answer(m.startsWith('first') ? 'Ada' : 'Bob');
    });
    await client.connect(transport, { timeout: T(15000) });
    cleanups.push(() => transport.close().catch(() => {}));
    return { client, transport, stderr: () => stderr };
}

async function throughSdk(part, more, legacy) {
    const { ini, log } = setup(part, more);
    const asked = [];
    const c = await sdkClient(ini, legacy, asked);
    await step(`passthru: ${part}: two rounds of the upstream's questions answered through the SDK v2 client${legacy ? ' (2025-11-25)' : ''}`, async () => {
        const r = await c.client.callTool({ name: 'fake_ir_two', arguments: { tag: part } }, undefined, { timeout: T(30000) });
        const text = (r?.content || []).map((x) => x.text).join('');
        expect(text === 'first=Ada second=Bob', `the result: ${short(r)}; stderr: ${short(c.stderr(), 300)}`);
        expect(asked.length === 2 && /^first question \d+$/.test(asked[0]) && asked[1] === 'second after Ada', `asked: ${JSON.stringify(asked)}`);
        return `${oneRequestPerRound(log, part)}; asked ${JSON.stringify(asked)}`;
    });
    await step(`passthru: ${part}: an upstream asking under the same key in two rounds gets each round's own answer`, async () => {
        asked.length = 0;
        const r = await c.client.callTool({ name: 'fake_ir_same_key', arguments: {} }, undefined, { timeout: T(30000) });
        const text = (r?.content || []).map((x) => x.text).join('');
        expect(text === 'first=Ada second=Bob', `the result: ${short(r)}; asked ${JSON.stringify(asked)}`);
        return `${text}; asked ${JSON.stringify(asked)}`;
    });
    await c.transport.close();
    await step(`passthru: ${part}: no sanitizer report`, async () => {
        expect(!/LeakSanitizer|AddressSanitizer|ThreadSanitizer|runtime error/.test(c.stderr()), `sanitizer: ${short(c.stderr(), 400)}`);
    });
}

// MCP Apps and the rest of what a server declares, through the SDK v2 client of either era. A
// prefix renames tools and prompts, never URIs (man/mcph.ini.5), so a ui:// URI and the
// tool's _meta.ui.resourceUri that names it reach the client unchanged.
async function apps(legacy) {
    const era = legacy ? '2025-11-25' : '2026-07-28';
    const ws = workspace(`passthru-apps-${legacy ? 'legacy' : 'modern'}`);
    const ini = gatewayIni(ws, { fake: { command: fakeCommand('apps', marker(`apps-${era}`)) } });
    const c = await sdkClient(ini, legacy, []);
    const URI = 'ui://fake/app.html';
    const MIME = 'text/html;profile=mcp-app';
    const UI_META = '{"ui":{"csp":{"connectDomains":["https://api.example.com"]},"prefersBorder":true}}';
    const sorted = (v) => JSON.stringify(v, (k, x) => (x && typeof x === 'object' && !Array.isArray(x) ? Object.fromEntries(Object.entries(x).sort()) : x));
    const opts = { timeout: T(15000) };
    await step(`passthru: apps (${era}): the tool's _meta.ui.resourceUri, _meta, title and icons reach the client unchanged`, async () => {
        const { tools } = await c.client.listTools({}, opts);
        const app = tools.find((t) => t.name === 'fake_app');
        expect(app?._meta?.ui?.resourceUri === URI, `fake_app: ${short(app)}`);
        expect(app._meta['com.example/k'] === 1 && JSON.stringify(app._meta.ui.visibility) === '["model","app"]', `its _meta: ${short(app._meta)}`);
        expect(app.title === 'The App' && app.icons?.[0]?.src === 'https://example.com/fake.png' && app.icons[0].mimeType === 'image/png', `title and icons: ${short(app)}`);
        const r = await c.client.callTool({ name: 'fake_app', arguments: {} }, undefined, opts);
        expect(r?.content?.[0]?.text === 'app' && r?._meta?.['com.example/result'] === 2, `the call: ${short(r)}`);
        return short(app._meta);
    });
    await step(`passthru: apps (${era}): the ui:// resource, listed and read, with its mimeType and _meta`, async () => {
        const { resources } = await c.client.listResources({}, opts);
        const res = resources.find((x) => x.uri === URI);
        expect(res?.mimeType === MIME && sorted(res._meta) === UI_META, `listed: ${short(resources)}`);
        const read = await c.client.readResource({ uri: URI }, opts);
        const item = read?.contents?.[0];
        expect(item?.uri === URI && item.mimeType === MIME && sorted(item._meta) === UI_META && item.text === '<!doctype html><p>app</p>', `read: ${short(read)}`);
        return `${URI} ${MIME}`;
    });
    await step(`passthru: apps (${era}): a tool that requires tasks is not listed; one where they are optional is listed without them, and runs`, async () => {
        const { tools } = await c.client.listTools({}, opts);
        const names = tools.map((t) => t.name);
        expect(!names.includes('fake_task_required'), `listed: ${names.join(', ')}`);
        const opt = tools.find((t) => t.name === 'fake_task_optional');
        expect(opt && opt.execution === undefined, `fake_task_optional: ${short(opt)}`);
        const r = await c.client.callTool({ name: 'fake_task_optional', arguments: {} }, undefined, opts);
        expect(r?.content?.[0]?.text === 'ran task_optional', `the call: ${short(r)}`);
        return names.join(', ');
    });
    await step(`passthru: apps (${era}): the server's instructions reach the client after its title`, async () => {
        const got = c.client.getInstructions?.();
        expect(got === '[plugin.fake]\nFake Apps: Open the app first.', `instructions: ${JSON.stringify(got)}`);
        return JSON.stringify(got);
    });
    await c.transport.close();
    await step(`passthru: apps (${era}): no sanitizer report`, async () => {
        expect(!/LeakSanitizer|AddressSanitizer|ThreadSanitizer|runtime error/.test(c.stderr()), `sanitizer: ${short(c.stderr(), 400)}`);
    });
}

const PARTS = {
    raw,
    sdk: () => throughSdk('sdk', {}, false),
    isolated: () => throughSdk('isolated', { isolate: 'process' }, false),
    legacy: () => throughSdk('legacy', {}, true),
    apps: async () => {
        await apps(false);
        await apps(true);
    },
};

const watchdog = setTimeout(() => {
    report(false, 'gateway passthru suite', `did not finish within ${LIMIT_MS / 1000} s`);
    cleanup();
    done('gateway passthru');
}, LIMIT_MS);

const only = process.argv[3];
const t0 = Date.now();
try {
    for (const [name, fn] of Object.entries(PARTS)) {
        if (!only || only === name) await fn();
    }
} catch (err) {
    report(false, 'gateway passthru suite', `threw: ${err?.stack || err}`);
} finally {
    cleanup();
    clearTimeout(watchdog);
}
done('gateway passthru', ` in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
