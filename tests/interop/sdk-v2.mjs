#!/usr/bin/env node
// Interop with the official MCP TypeScript SDK v2 client (@modelcontextprotocol/client, pinned
// in tests/package.json), over its StdioClientTransport.
//
//   node tests/interop/sdk-v2.mjs BINARY CONFIG       (CONFIG: tests/interop/modern.ini)
//
// BINARY is the server program or a command line; it runs as BINARY COPY, where COPY is CONFIG
// copied to build/tests/interop-v2/MODE/mcph.ini with plugin_dir made absolute (the reload
// check edits the copy: it drops the first [plugin.*] section, then sends SIGHUP). Three modes,
// each with its own server process:
//   auto    versionNegotiation "auto": the client probes with server/discover on a sibling
//           process of its own, then must settle on 2026-07-28;
//   pin     versionNegotiation {pin: "2026-07-28"};
//   legacy  the client's default: a plain initialize (2025-11-25).
// Each mode lists tools, resources, templates and prompts (the client follows the cursors),
// calls every tool, reads every resource and one URI per template, gets every prompt, runs a
// completion, progress, cancellation and logging, answers elicitation, sampling and roots
// (MRTR under 2026-07-28, server requests under legacy), hears of a SIGHUP reload that changes
// the tool list (a tagged list_changed on a subscriptions/listen stream, or the legacy
// untagged one) and of resources/updated, and closes stdin expecting a clean exit.
// Every line each server process writes (the probe sibling's too) is captured raw and
// validated against the schema of its revision (tests/lib/era.mjs decides which, as in the
// transcripts; closed world included). Output: "ok MODE CHECK" / "FAIL MODE CHECK: why" lines,
// then "N passed, N failed"; the exit status is 1 if any check failed.

import fs from 'node:fs';
import path from 'node:path';
import { Client, ProtocolError, SdkError, SdkErrorCode } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { REQUEST_TIMEOUT_MS, EXIT_WAIT_MS, report, summary, check, short, tapStdout } from './harness.mjs';
import { buildArguments, expandTemplate } from './args.mjs';
import { makeValidator, defaultSpecDir } from '../lib/schema.mjs';
import { EraTracker, KEY_SUB, MODERN_REVISION } from '../lib/era.mjs';
import { commandWords } from '../lib/proc.mjs';
import { CAPPED, capped, jsonLines, sleep, waitFor } from '../lib/util.mjs';
import { workspace, copyIni, TESTS_ROOT } from '../lib/workspace.mjs';

const WS_ROOT = path.join(TESTS_ROOT, 'interop-v2');
const MODE_CAP_MS = 120000;
const RELOAD_WAIT_MS = 5000;
const MODES = {
    auto: { versionNegotiation: { mode: 'auto' }, era: 'modern' },
    pin: { versionNegotiation: { mode: { pin: MODERN_REVISION } }, era: 'modern' },
    legacy: { versionNegotiation: undefined, era: 'legacy' },
};
const LEGACY_REVISION = '2025-11-25'; // what the v2 client's initialize asks for
const ALL_REVISIONS = ['2026-07-28', '2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'];
const CAPS = { elicitation: {}, sampling: {}, roots: { listChanged: true } };
// Tools whose failure is the point: mcph answers -32603 when a tool breaks its outputSchema.
const EXPECTED_ERRORS = { bad_output: -32603, no_output: -32603 };

const isObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);
const textOf = (r) => (r?.content || []).filter((c) => c.type === 'text').map((c) => c.text).join('\n');
const opts = (extra = {}) => ({ timeout: REQUEST_TIMEOUT_MS, ...extra });

// --- Taps: every StdioClientTransport the client starts (the session's, and the probe sibling
// it spawns itself from the same parameters) is tapped through the class's prototype, so the
// instance stays exactly the SDK's class (the client only probes on a sibling for that one).

let currentRun = null;
const taps = new WeakMap();
const proto = StdioClientTransport.prototype;
const originalStart = proto.start;
const originalSend = proto.send;
proto.start = async function start() {
    const tap = currentRun ? currentRun.tapFor(this) : null;
    if (tap) {
        taps.set(this, tap);
        if (!tapStdout(this, (text) => tap.raw(text))) tap.problem('cannot capture raw stdout (SDK internals changed)');
    }
    await originalStart.call(this);
    if (tap && this._process) {
        tap.pid = this._process.pid;
        this._process.on('exit', (code, signal) => {
            tap.exit = { code, signal };
        });
    }
};
proto.send = function send(msg, ...rest) {
    taps.get(this)?.sent(msg);
    return originalSend.call(this, msg, ...rest);
};

// One server process's traffic: what was sent, what came back, validated as it arrives.
class Tap {
    constructor(run, role, validator) {
        this.run = run;
        this.role = role;
        this.validator = validator;
        this.era = new EraTracker({ hasRevision: (r) => validator.hasRevision(r) });
        this.feed = jsonLines((msg, line) => this.inspect(msg, line), (why) => this.problem(why));
        this.out = []; // { msg, rev } the server wrote
        this.in = []; // messages we sent
        this.pid = null;
        this.exit = null;
    }

    problem(text) {
        this.run.problems.push(`${this.role}: ${text}`);
    }

    sent(msg) {
        this.in.push(msg);
        this.era.sent(msg);
    }

    raw(text) {
        this.feed(text);
    }

    inspect(msg, line) {
        const c = this.era.received(msg);
        const errs = [...c.problems, ...this.validator.validate(c.rev, msg, { answers: c.method })];
        // 2026-07-28 has no server-to-client requests; only an initialized legacy session may
        // be asked anything.
        if (isObject(msg) && 'method' in msg && 'id' in msg && this.era.negotiated === null) {
            errs.push(`a JSON-RPC request (${short(msg.method)}) to a client that never sent initialize`);
        }
        if (errs.length > 0) {
            this.problem(`schema ${c.rev}: ${errs.slice(0, 3).join('; ')}` +
                `${errs.length > 3 ? ` (+${errs.length - 3} more)` : ''} [message: ${short(line, 200)}]`);
        }
        this.out.push({ msg, rev: c.rev });
    }

    // Responses the server wrote to requests we sent with this method.
    responsesTo(method) {
        const ids = new Set(this.in.filter((m) => m.method === method && 'id' in m).map((m) => JSON.stringify(m.id)));
        return this.out.map((o) => o.msg).filter((m) => isObject(m) && !('method' in m) && ids.has(JSON.stringify(m.id)));
    }

    notifications(method) {
        return this.out.map((o) => o.msg).filter((m) => isObject(m) && m.method === method && !('id' in m));
    }
}

// One mode: its workspace, client, transport and taps; check() (harness.mjs) reports under
// `rev` and drains `problems`.
class Run {
    constructor(mode, argv, config, validator) {
        this.mode = mode;
        this.rev = mode;
        this.spec = MODES[mode];
        this.validator = validator;
        this.problems = [];
        this.taps = [];
        this.stderr = '';
        this.ini = makeWorkspace(mode, config);
        this.transport = new StdioClientTransport({
            command: argv[0],
            args: [...argv.slice(1), this.ini],
            env: process.env,
            stderr: 'pipe',
        });
        this.transport.stderr?.on('data', (d) => {
            this.stderr += d.toString();
        });
        this.asked = [];
        this.client = new Client({ name: 'mcph-interop-v2', version: '1.0.0' }, {
            capabilities: CAPS,
            ...(this.spec.versionNegotiation ? { versionNegotiation: this.spec.versionNegotiation } : {}),
        });
        this.client.onerror = (err) => this.problems.push(`client error: ${err?.message || err}`);
        this.answerTheServer();
    }

    tapFor(transport) {
        const role = transport === this.transport ? 'session' : `probe ${this.taps.filter((t) => t.role !== 'session').length + 1}`;
        const tap = new Tap(this, role, this.validator);
        if (role === 'session') this.session = tap;
        this.taps.push(tap);
        return tap;
    }

    get probes() {
        return this.taps.filter((t) => t.role !== 'session');
    }

    drainProblems() {
        const out = this.problems;
        this.problems = [];
        return out;
    }

    stderrTail(n = 5) {
        return this.stderr.split('\n').filter(Boolean).slice(-n);
    }

    // Handlers for what a tool asks: MRTR under 2026-07-28 (the client fulfils inputRequests
    // through these and retries), server requests under legacy.
    answerTheServer() {
        const c = this.client;
        c.setRequestHandler('elicitation/create', async (req) => {
            this.asked.push('elicitation');
            // Answer what the form asks for: the features plugin a name, the example plugin's
            // confirm a boolean.
            const props = req.params?.requestedSchema?.properties || {};
            const content = {};
            for (const [k, s] of Object.entries(props)) {
                content[k] = s.type === 'boolean' ? true : s.type === 'number' || s.type === 'integer' ? 1 : 'Ada';
            }
            return { action: 'accept', content };
        });
        c.setRequestHandler('sampling/createMessage', async (req) => {
            this.asked.push('sampling');
            const text = req.params?.messages?.[0]?.content?.text ?? '';
            return { role: 'assistant', content: { type: 'text', text: `sampled: ${text}` }, model: 'mcph-test-model', stopReason: 'endTurn' };
        });
        c.setRequestHandler('roots/list', async () => {
            this.asked.push('roots');
            return { roots: [{ uri: 'file:///srv/project', name: 'project' }] };
        });
    }
}

// build/tests/interop-v2/MODE/mcph.ini: CONFIG with plugin_dir absolute (mode 0755 folders).
function makeWorkspace(mode, config) {
    return copyIni(config, workspace('interop-v2', mode));
}

// Drop the first [plugin.*] section of the workspace INI; returns its name.
function dropFirstPlugin(ini) {
    const lines = fs.readFileSync(ini, 'utf8').split('\n');
    const start = lines.findIndex((l) => /^\s*\[plugin\.[^\]]+\]/.test(l));
    if (start < 0) throw new Error(`${ini} has no [plugin.*] section`);
    let end = start + 1;
    while (end < lines.length && !/^\s*\[/.test(lines[end])) end++;
    const name = lines[start].match(/\[plugin\.([^\]]+)\]/)[1];
    lines.splice(start, end - start);
    fs.writeFileSync(ini, lines.join('\n'));
    return name;
}

// --- Checks shared by every mode. ---

async function checkLists(run) {
    const c = run.client;
    const s = run.session;
    const out = {};
    await check(run, 'tools/list (all pages)', async () => {
        const before = s.responsesTo('tools/list').length;
        const r = await c.listTools(undefined, opts());
        out.tools = r.tools;
        const pages = s.responsesTo('tools/list').slice(before);
        const problems = [];
        const names = r.tools.map((t) => t.name);
        const dup = names.filter((n, i) => names.indexOf(n) !== i);
        if (dup.length) problems.push(`duplicate tool names ${dup.join(', ')}`);
        if (pages.length < 2) problems.push(`${pages.length} page(s) on the wire: the config's page_size should make several`);
        const onWire = pages.reduce((n, p) => n + (p.result?.tools?.length || 0), 0);
        if (onWire !== r.tools.length) problems.push(`${onWire} tools on the wire, ${r.tools.length} in the client's list`);
        if (pages.length && pages.slice(0, -1).some((p) => typeof p.result?.nextCursor !== 'string')) problems.push('a page before the last lacks nextCursor');
        return problems.length ? problems : `${r.tools.length} tools in ${pages.length} pages`;
    });
    for (const [what, key, call] of [
        ['resources/list', 'resources', () => c.listResources(undefined, opts())],
        ['resources/templates/list', 'resourceTemplates', () => c.listResourceTemplates(undefined, opts())],
        ['prompts/list', 'prompts', () => c.listPrompts(undefined, opts())],
    ]) {
        await check(run, what, async () => {
            const r = await call();
            out[key] = r[key];
            return Array.isArray(r[key]) && r[key].length > 0 ? `${r[key].length} ${key}` : [`no ${key}`];
        });
    }
    return out;
}

async function checkCalls(run, tools) {
    for (const tool of tools || []) {
        await check(run, `tools/call ${tool.name}`, async () => {
            const args = buildArguments(tool.inputSchema);
            const expected = EXPECTED_ERRORS[tool.name];
            try {
                const r = await run.client.callTool({ name: tool.name, arguments: args }, opts());
                if (expected) return [`expected error ${expected}, got a result: ${short(r, 150)}`];
                const types = (r.content || []).map((x) => x.type).join(',');
                return r.isError ? `isError: ${short(textOf(r), 80)}` : `content: ${types || 'none'}`;
            } catch (err) {
                if (expected && err instanceof ProtocolError && err.code === expected) return `error ${err.code} as expected`;
                throw err;
            }
        });
    }
}

async function checkReads(run, resources, templates) {
    for (const res of resources || []) {
        await check(run, `resources/read ${res.uri}`, async () => {
            const r = await run.client.readResource({ uri: res.uri }, opts());
            return Array.isArray(r.contents) && r.contents.length > 0 ? `${r.contents.length} item(s)` : ['no contents'];
        });
    }
    for (const t of templates || []) {
        const uri = expandTemplate(t.uriTemplate);
        await check(run, `resources/read ${uri} (template)`, async () => {
            const r = await run.client.readResource({ uri }, opts());
            return Array.isArray(r.contents) && r.contents.length > 0 ? `${r.contents.length} item(s)` : ['no contents'];
        });
    }
    await check(run, 'resources/read of a missing resource', async () => {
        // On the wire: -32602 under 2026-07-28, -32002 under legacy revisions (the client
        // reports both as a ResourceNotFoundError).
        const want = run.spec.era === 'modern' ? -32602 : -32002;
        try {
            await run.client.readResource({ uri: 'features://no-such-thing' }, opts({ cacheMode: 'bypass' }));
        } catch (err) {
            const wire = run.session.responsesTo('resources/read').at(-1)?.error;
            if (wire?.code !== want) return [`error ${wire?.code} on the wire, expected ${want}: ${short(wire)}`];
            return `error ${want} on the wire, ${err?.constructor?.name} ${err?.code} in the client`;
        }
        return ['it was read'];
    });
}

async function checkPrompts(run, prompts) {
    for (const p of prompts || []) {
        await check(run, `prompts/get ${p.name}`, async () => {
            const args = Object.fromEntries((p.arguments || []).map((a) => [a.name, 'x']));
            const r = await run.client.getPrompt({ name: p.name, arguments: args }, opts());
            return Array.isArray(r.messages) && r.messages.length > 0 ? `${r.messages.length} message(s)` : ['no messages'];
        });
    }
    await check(run, 'completion/complete', async () => {
        const r = await run.client.complete({ ref: { type: 'ref/prompt', name: 'pick' }, argument: { name: 'fruit', value: 'a' } }, opts());
        const values = r.completion?.values || [];
        return values.includes('apple') ? `values ${values.join(',')}` : [`no apple in ${short(values)}`];
    });
}

// A tool that asks the client: the handler is called and the tool gets the answer. Under
// 2026-07-28 this is MRTR (input_required, then a retry carrying inputResponses and the
// requestState echoed); under legacy a server request.
async function checkAsk(run, tool, args, kind, expectText) {
    await check(run, `${run.spec.era === 'modern' ? 'MRTR' : 'server request'} ${kind} (${tool})`, async () => {
        const s = run.session;
        const asked = run.asked.length;
        const outBefore = s.out.length;
        const inBefore = s.in.length;
        const r = await run.client.callTool({ name: tool, arguments: args }, opts());
        const problems = [];
        if (r.isError) problems.push(`tool error: ${short(textOf(r))}`);
        if (!textOf(r).includes(expectText)) problems.push(`the tool did not get the answer: ${short(textOf(r))}`);
        if (!run.asked.slice(asked).includes(kind)) problems.push(`the ${kind} handler was not called`);
        const out = s.out.slice(outBefore).map((o) => o.msg);
        const sent = s.in.slice(inBefore);
        if (run.spec.era === 'modern') {
            const ir = out.find((m) => m.result?.resultType === 'input_required');
            if (!ir) return [...problems, 'no input_required result on the wire'];
            const retry = sent.find((m) => m.method === 'tools/call' && m.params?.inputResponses);
            if (!retry) problems.push('the client sent no retry with inputResponses');
            else {
                if (JSON.stringify(retry.id) === JSON.stringify(ir.id)) problems.push('the retry reused the request id');
                if (retry.params.requestState !== ir.result.requestState) problems.push('the retry did not echo requestState');
                const keys = Object.keys(ir.result.inputRequests || {});
                if (!keys.every((k) => k in retry.params.inputResponses)) problems.push(`the retry answers ${short(Object.keys(retry.params.inputResponses))}, asked ${short(keys)}`);
            }
            return problems.length ? problems : `input_required ${short(Object.keys(ir.result.inputRequests || {}))}, then the answer`;
        }
        if (!out.some((m) => m.method && 'id' in m)) problems.push('no server request on the wire');
        return problems.length ? problems : 'asked and answered';
    });
}

async function checkProgress(run) {
    await check(run, 'progress', async () => {
        const seen = [];
        const r = await run.client.callTool({ name: 'progress', arguments: { steps: 3, delay_ms: 20 } }, opts({ onprogress: (p) => seen.push(p) }));
        const problems = [];
        if (textOf(r) !== 'done') problems.push(`result ${short(textOf(r))}`);
        if (seen.length !== 3) problems.push(`${seen.length} progress callbacks, expected 3: ${short(seen)}`);
        if (seen.some((p, i) => p.progress !== i + 1 || p.total !== 3 || p.message !== `step ${i + 1}`)) problems.push(`progress ${short(seen)}`);
        return problems.length ? problems : `${seen.length} notifications`;
    });
}

async function checkCancellation(run) {
    await check(run, 'cancellation', async () => {
        const s = run.session;
        const ac = new AbortController();
        const inBefore = s.in.length;
        const pending = run.client.callTool({ name: 'wait_cancel', arguments: { ms: 5000 } }, opts({ signal: ac.signal }));
        setTimeout(() => ac.abort('test cancels'), 200);
        let aborted = false;
        try {
            await pending;
        } catch {
            aborted = true;
        }
        if (!aborted) return ['the call was not aborted'];
        const call = s.in.slice(inBefore).find((m) => m.method === 'tools/call');
        const cancel = s.in.slice(inBefore).find((m) => m.method === 'notifications/cancelled');
        await sleep(500);
        const problems = [];
        if (!cancel) problems.push('the client sent no notifications/cancelled');
        else if (JSON.stringify(cancel.params?.requestId) !== JSON.stringify(call?.id)) problems.push(`cancelled ${short(cancel.params)} for call ${short(call?.id)}`);
        if (s.out.some((o) => !('method' in o.msg) && JSON.stringify(o.msg.id) === JSON.stringify(call?.id))) problems.push('mcph answered the cancelled call');
        // Still serving.
        const r = await run.client.callTool({ name: 'wait_cancel', arguments: { ms: 0 } }, opts());
        if (textOf(r) !== 'not cancelled') problems.push(`next call: ${short(textOf(r))}`);
        return problems.length ? problems : 'aborted, no answer, still serving';
    });
}

// --- 2026-07-28 only. ---

async function checkModernConnect(run) {
    const c = run.client;
    return check(run, 'connect (negotiation)', async () => {
        await c.connect(run.transport, opts());
        run.pid = run.transport.pid;
        const problems = [];
        if (c.getProtocolEra() !== 'modern') problems.push(`era ${c.getProtocolEra()}, expected modern`);
        if (c.getNegotiatedProtocolVersion() !== MODERN_REVISION) problems.push(`negotiated ${c.getNegotiatedProtocolVersion()}, expected ${MODERN_REVISION}`);
        const info = c.getServerVersion();
        if (info?.name !== 'mcph-interop-modern') problems.push(`serverInfo ${short(info)}`);
        if (!c.getInstructions()) problems.push('no instructions');
        const d = c.getDiscoverResult();
        if (JSON.stringify(d?.supportedVersions) !== JSON.stringify(ALL_REVISIONS)) problems.push(`supportedVersions ${short(d?.supportedVersions)}`);
        const caps = c.getServerCapabilities() || {};
        if (!caps.tools?.listChanged || !caps.resources?.subscribe || !caps.prompts || !caps.completions) problems.push(`capabilities ${short(caps)}`);
        // The probe ran on a sibling process: one server/discover, one DiscoverResult, then the
        // sibling was stopped (stdin closed, SIGTERM): mcph exits 0 on either.
        if (run.probes.length !== 1) problems.push(`${run.probes.length} probe processes`);
        for (const p of run.probes) {
            const asked = p.in.map((m) => m.method);
            if (JSON.stringify(asked) !== '["server/discover"]') problems.push(`probe sent ${short(asked)}`);
            if (p.out.length !== 1 || p.out[0].msg.result?.resultType !== 'complete') problems.push(`probe got ${short(p.out.map((o) => o.msg))}`);
            if (!(await waitFor(() => p.exit, EXIT_WAIT_MS))) problems.push('the probe process did not exit');
            else if (p.exit.code !== 0) problems.push(`the probe process exited with ${p.exit.signal ? `signal ${p.exit.signal}` : `status ${p.exit.code}`}`);
        }
        // The session itself never initializes.
        if (run.session?.in.some((m) => m.method === 'initialize')) problems.push('the session sent initialize');
        return problems.length ? problems : `${info?.name} ${info?.version}, probe on pid ${run.probes[0]?.pid}`;
    });
}

async function checkLogging(run) {
    await check(run, 'per-request logLevel', async () => {
        const logs = [];
        run.client.setNotificationHandler('notifications/message', (n) => {
            logs.push(n.params);
        });
        await run.client.callTool({ name: 'log', arguments: { level: 'warning', text: 'with a level' }, _meta: { 'io.modelcontextprotocol/logLevel': 'info' } }, opts());
        await waitFor(() => logs.length > 0, 1000);
        const problems = [];
        const hit = logs.find((l) => JSON.stringify(l.data).includes('with a level'));
        if (!hit) problems.push(`no notifications/message (got ${short(logs)})`);
        else if (hit.level !== 'warning') problems.push(`level ${hit.level}`);
        const before = logs.length;
        await run.client.callTool({ name: 'log', arguments: { level: 'emergency', text: 'no level asked' } }, opts());
        await sleep(200);
        if (logs.length !== before) problems.push('a message was sent for a request without logLevel');
        return problems.length ? problems : `logger ${hit.logger}`;
    });
}

async function checkListenUpdated(run) {
    await check(run, 'subscriptions/listen resources/updated (touch)', async () => {
        const s = run.session;
        const got = [];
        run.client.setNotificationHandler('notifications/resources/updated', (n) => {
            got.push(n.params);
        });
        const sub = await run.client.listen({ resourceSubscriptions: ['features://doc'] }, opts());
        const listenId = s.in.filter((m) => m.method === 'subscriptions/listen').at(-1)?.id;
        const problems = [];
        if (JSON.stringify(sub.honoredFilter?.resourceSubscriptions) !== '["features://doc"]') problems.push(`honored ${short(sub.honoredFilter)}`);
        await run.client.callTool({ name: 'touch', arguments: { uri: 'features://doc' } }, opts());
        if (!(await waitFor(() => got.length > 0, 2000))) problems.push('no resources/updated');
        const raw = s.notifications('notifications/resources/updated').at(-1);
        if (JSON.stringify(raw?.params?._meta?.[KEY_SUB]) !== JSON.stringify(listenId)) problems.push(`not tagged with the listen id ${short(listenId)}: ${short(raw)}`);
        await sub.close();
        const n = got.length;
        await run.client.callTool({ name: 'touch', arguments: { uri: 'features://doc' } }, opts());
        await sleep(300);
        if (got.length !== n || s.notifications('notifications/resources/updated').length !== n) problems.push('resources/updated after the listen was closed');
        if ((await sub.closed) !== 'local') problems.push('closed is not "local"');
        return problems.length ? problems : `tagged ${short(listenId)}`;
    });
}

// Open a listen for tools, edit the workspace INI (drop a plugin), SIGHUP the server: a tagged
// tools/list_changed reaches the handler, and the list really changed. Returns the listen.
async function checkReloadModern(run, toolsBefore) {
    let sub = null;
    await check(run, 'listen + SIGHUP reload: tagged tools/list_changed', async () => {
        const s = run.session;
        const changed = [];
        run.client.setNotificationHandler('notifications/tools/list_changed', (n) => {
            changed.push(n);
        });
        sub = await run.client.listen({ toolsListChanged: true }, opts());
        const listenId = s.in.filter((m) => m.method === 'subscriptions/listen').at(-1)?.id;
        const problems = [];
        if (sub.honoredFilter?.toolsListChanged !== true) problems.push(`honored ${short(sub.honoredFilter)}`);
        const dropped = dropFirstPlugin(run.ini);
        process.kill(run.pid, 'SIGHUP');
        if (!(await waitFor(() => changed.length > 0, RELOAD_WAIT_MS))) return [...problems, `no tools/list_changed within ${RELOAD_WAIT_MS} ms of SIGHUP`];
        await sleep(300);
        const raw = s.notifications('notifications/tools/list_changed');
        if (raw.length !== 1) problems.push(`${raw.length} tools/list_changed on the wire`);
        if (JSON.stringify(raw[0]?.params?._meta?.[KEY_SUB]) !== JSON.stringify(listenId)) problems.push(`not tagged with listen id ${short(listenId)}: ${short(raw[0])}`);
        for (const m of ['notifications/resources/list_changed', 'notifications/prompts/list_changed']) {
            if (s.notifications(m).length) problems.push(`${m} sent though not asked for`);
        }
        const r = await run.client.listTools(undefined, opts({ cacheMode: 'refresh' }));
        if (r.tools.length >= (toolsBefore?.length ?? 0)) problems.push(`${r.tools.length} tools after dropping ${dropped} (before: ${toolsBefore?.length})`);
        return problems.length ? problems : `dropped ${dropped}: ${toolsBefore?.length} -> ${r.tools.length} tools`;
    });
    return sub;
}

// --- Legacy only. ---

async function checkLegacyConnect(run) {
    const c = run.client;
    return check(run, 'connect (initialize)', async () => {
        await c.connect(run.transport, opts());
        run.pid = run.transport.pid;
        const problems = [];
        if (c.getProtocolEra() !== 'legacy') problems.push(`era ${c.getProtocolEra()}, expected legacy`);
        if (c.getNegotiatedProtocolVersion() !== LEGACY_REVISION) problems.push(`negotiated ${c.getNegotiatedProtocolVersion()}`);
        if (run.session?.era.negotiated !== LEGACY_REVISION) problems.push(`initialize result says ${run.session?.era.negotiated}`);
        if (run.probes.length) problems.push(`${run.probes.length} probe processes in legacy mode`);
        if (run.session?.in[0]?.method !== 'initialize') problems.push(`first message ${short(run.session?.in[0])}`);
        return problems.length ? problems : `${c.getServerVersion()?.name} under ${c.getNegotiatedProtocolVersion()}`;
    });
}

async function checkLegacyExtras(run, toolsBefore) {
    const c = run.client;
    await check(run, 'logging/setLevel + notifications/message', async () => {
        const logs = [];
        c.setNotificationHandler('notifications/message', (n) => {
            logs.push(n.params);
        });
        await c.setLoggingLevel('info', opts());
        await c.callTool({ name: 'log', arguments: { level: 'warning', text: 'legacy log' } }, opts());
        await waitFor(() => logs.length > 0, 1000);
        return logs.some((l) => JSON.stringify(l.data).includes('legacy log')) ? 'heard' : [`no message (got ${short(logs)})`];
    });
    await check(run, 'listen() is refused under legacy', async () => {
        try {
            await c.listen({ toolsListChanged: true }, opts());
        } catch (err) {
            return err instanceof SdkError && err.code === SdkErrorCode.MethodNotSupportedByProtocolVersion ? 'refused by the client' : [`unexpected error ${short(err?.message)}`];
        }
        return ['listen() worked under a legacy connection'];
    });
    await check(run, 'SIGHUP reload: untagged tools/list_changed', async () => {
        const s = run.session;
        const changed = [];
        c.setNotificationHandler('notifications/tools/list_changed', (n) => {
            changed.push(n);
        });
        const dropped = dropFirstPlugin(run.ini);
        process.kill(run.pid, 'SIGHUP');
        if (!(await waitFor(() => changed.length > 0, RELOAD_WAIT_MS))) return [`no tools/list_changed within ${RELOAD_WAIT_MS} ms of SIGHUP`];
        await sleep(300);
        const problems = [];
        const raw = s.notifications('notifications/tools/list_changed');
        if (raw.length !== 1) problems.push(`${raw.length} tools/list_changed`);
        if (raw.some((m) => m.params?._meta?.[KEY_SUB] !== undefined)) problems.push('a legacy list_changed is tagged');
        const r = await c.listTools(undefined, opts({ cacheMode: 'refresh' }));
        if (r.tools.length >= (toolsBefore?.length ?? 0)) problems.push(`${r.tools.length} tools after dropping ${dropped}`);
        return problems.length ? problems : `dropped ${dropped}: ${toolsBefore?.length} -> ${r.tools.length} tools`;
    });
}

async function checkExit(run, sub) {
    await check(run, 'clean exit on EOF', async () => {
        const tap = run.session;
        const problems = [];
        // The client's close() ends stdin, then signals after 2 s: mcph should be gone before.
        await run.client.close();
        if (!(await waitFor(() => tap?.exit, EXIT_WAIT_MS))) return [`server did not exit within ${EXIT_WAIT_MS / 1000} s of EOF`];
        if (tap.exit.signal || tap.exit.code !== 0) problems.push(`server exited with ${tap.exit.signal ? `signal ${tap.exit.signal}` : `status ${tap.exit.code}`}`);
        if (sub) {
            // The open listen ended with mcph's SubscriptionsListenResult at EOF.
            const how = await Promise.race([sub.closed, sleep(2000).then(() => 'pending')]);
            if (how !== 'graceful') problems.push(`open listen ended "${how}", expected "graceful"`);
        }
        return problems.length ? problems : `status 0${sub ? ', listen closed gracefully' : ''}`;
    });
}

async function runMode(mode, argv, config, validator) {
    const run = new Run(mode, argv, config, validator);
    currentRun = run;
    const connected = run.spec.era === 'modern' ? await checkModernConnect(run) : await checkLegacyConnect(run);
    if (!connected) {
        await run.client.close().catch(() => {});
        for (const l of run.stderrTail()) console.log(`#   stderr: ${l}`);
        return;
    }
    const lists = await checkLists(run);
    await checkCalls(run, lists.tools);
    await checkReads(run, lists.resources, lists.resourceTemplates);
    await checkPrompts(run, lists.prompts);
    await checkAsk(run, 'elicit', {}, 'elicitation', 'Ada');
    await checkAsk(run, 'ex_confirm', { action: 'ship it' }, 'elicitation', '"confirm":true');
    await checkAsk(run, 'sample', {}, 'sampling', 'sampled: hi');
    await checkAsk(run, 'roots', {}, 'roots', 'file:///srv/project');
    await checkProgress(run);
    await checkCancellation(run);
    let sub = null;
    if (run.spec.era === 'modern') {
        await checkLogging(run);
        await checkListenUpdated(run);
        sub = await checkReloadModern(run, lists.tools);
    } else {
        await checkLegacyExtras(run, lists.tools);
    }
    await checkExit(run, sub);
}

async function main() {
    const [binary, config] = process.argv.slice(2);
    if (!binary || !config) {
        console.error('usage: node tests/interop/sdk-v2.mjs BINARY CONFIG');
        process.exit(2);
    }
    const argv = commandWords(binary).map((w, i) => (i === 0 && w.includes('/') ? path.resolve(w) : w));
    const validator = makeValidator(defaultSpecDir());
    for (const mode of Object.keys(MODES)) {
        const r = await capped(runMode(mode, argv, path.resolve(config), validator), MODE_CAP_MS);
        if (r === CAPPED) report(false, mode, 'time limit', `mode run exceeded ${MODE_CAP_MS / 1000} s`);
        currentRun = null;
    }
    const failed = summary();
    // The workspaces stay only when something failed.
    if (failed === 0) fs.rmSync(WS_ROOT, { recursive: true, force: true });
    process.exit(failed > 0 ? 1 : 0);
}

main().catch((err) => {
    console.error(err.stack || String(err));
    report(false, '-', 'main', String(err));
    summary();
    process.exit(1);
});
