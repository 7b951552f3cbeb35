#!/usr/bin/env node
// The mcp plugin against an upstream that stops reading, floods, or asks too much
// (tests/gateway/fake-server.mjs, modes stuck and modern). `make test-gateway` runs it.
//
//   node tests/gateway/stuck.mjs [BINARY]      BINARY: build/mcph
//
// A server that stops reading its stdin holds up neither a call, nor a reload, nor SIGTERM,
// also while it floods mcph with requests; the server's questions reach a legacy client once
// each, a flood of them is capped per call, a cancelled call asks no more; a 2026-07-28
// server's malformed or endless input_required rounds and a result over the size limit end
// in errors that say why. Prints "ok gateway ..." / "FAIL gateway ...: why" lines, then
// "gateway stuck: N passed, N failed"; exits 1 on a failure.

import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { Client as ClientV2 } from '@modelcontextprotocol/client';
import { StdioClientTransport as StdioV2 } from '@modelcontextprotocol/client/stdio';
import { MODERN_REVISION } from '../lib/era.mjs';
import { done, report, expect } from '../lib/check.mjs';
import { describeExit } from '../lib/proc.mjs';
import {
    workspace, gatewayIni, fakeCommand, startSession, endSession, forgetSession, step, markerSet,
    sleep, short,
} from './common.mjs';

const LIMIT_MS = 150000;
const mcph = path.resolve(process.argv[2] || 'build/mcph');
const { marker, cleanup } = markerSet();

const RELOADED = /reload: serving|reload: .*failed|reload: kept|reload: .*refused/;

// SIGTERM (twice: the second skips the calls' grace period), and how long mcph took to exit
// (killed after ms). Once, calls in flight get 5 s of grace, then 2 s once cancelled.
async function term(s, ms = 9000, twice = false) {
    const t0 = performance.now();
    s.kill('SIGTERM');
    if (twice) {
        await sleep(200);
        s.kill('SIGTERM');
    }
    const r = await s.wait(ms);
    forgetSession(s);
    return { ...r, ms: performance.now() - t0 };
}

// --- Item: a server that stops reading its stdin. ---

async function deaf() {
    const mk = { deaf: marker('deaf'), ok: marker('deaf-ok') };
    const ws = workspace('stuck-deaf');
    const ini = gatewayIni(ws, { fake: { command: fakeCommand('stuck', mk.deaf) }, ok: { command: fakeCommand('normal', mk.ok), resources: '!*', prompts: '!*' } });
    let s;
    await step('stuck: a server stops reading its stdin, a 1 MiB call, SIGHUP, SIGTERM: mcph exits after the grace period', async () => {
        s = await startSession(mcph, ini);
        s.request('tools/call', { name: 'fake_deaf', arguments: {} });
        await sleep(300);
        const big = s.request('tools/call', { name: 'fake_echo', arguments: { text: 'x'.repeat(1 << 20) } });
        await sleep(500);
        const other = await s.tool('ok_echo', { text: 'still' }, 3000);
        expect(other.text === 'echo: still', `another section's call during the stuck write: ${short(other.msg)}`);
        const m = s.mark();
        s.hup();
        await s.waitFor(() => RELOADED.test(s.since(m).stderr) || s.exited, 8000);
        expect(RELOADED.test(s.since(m).stderr), `the reload did not end within 8 s: ${s.stderrTail(3)}`);
        const r = await term(s);
        expect(!r.timedOut, `mcph still ran 9 s after SIGTERM (the call ${big} writes to a server that stopped reading)`);
        return `reload ended, exit ${describeExit(r)} ${r.ms.toFixed(0)} ms after SIGTERM`;
    }, () => s);
    s = null;
    await step('stuck: a server floods pings and stops reading: other calls go on, two SIGTERMs end mcph at once', async () => {
        s = await startSession(mcph, ini);
        s.request('tools/call', { name: 'fake_flood', arguments: { n: 50000 } });
        await sleep(1500);
        const t0 = performance.now();
        const other = await s.tool('ok_echo', { text: 'flooded' }, 3000);
        expect(other.text === 'echo: flooded', `another section's call during the flood: ${short(other.msg)}`);
        const ping = await s.ping(2000);
        expect(ping !== null, 'mcph did not answer ping during the flood');
        const r = await term(s, 3000, true);
        expect(!r.timedOut, 'mcph still ran 3 s after two SIGTERMs (its reader answers the pings of a server that does not read)');
        return `a call in ${(performance.now() - t0).toFixed(0)} ms; exit ${r.ms.toFixed(0)} ms after SIGTERM`;
    }, () => s);
}

// --- Item: the server's questions through a legacy client. ---

async function questions() {
    const mk = marker('ask');
    const ws = workspace('stuck-ask');
    const ini = gatewayIni(ws, { fake: { command: fakeCommand('stuck', mk) } });
    let asked = [];
    const onRequest = (msg) => {
        asked.push(msg.method);
        if (msg.method === 'elicitation/create') return { action: 'accept', content: { a: 'yes' } };
        if (msg.method === 'roots/list') return { roots: [{ uri: 'file:///tmp', name: 'tmp' }] };
        throw { code: -32601, message: 'no' };
    };
    const s = await startSession(mcph, ini, { capabilities: { elicitation: {}, roots: {} }, onRequest });
    await step('stuck: four questions in one call reach a legacy client as four requests', async () => {
        asked = [];
        const r = await s.tool('fake_questions', { n: 4, method: 'elicitation/create', wait: true }, 10000);
        expect(r.text === '4 answered, 0 refused: ', `the call: ${short(r.msg)}`);
        expect(asked.length === 4, `the client was asked ${asked.length} times: ${asked.join(', ')}`);
        return '4 requests';
    }, () => s);
    await step('stuck: 4,000 questions at once: a few answered, the rest refused naming the limit, in seconds', async () => {
        asked = [];
        const t0 = performance.now();
        const r = await s.tool('fake_questions', { n: 4000 }, 20000);
        const ms = performance.now() - t0;
        const m = /^(\d+) answered, (\d+) refused: (.*)$/.exec(r.text || '');
        expect(m, `the call: ${short(r.msg)}`);
        expect(Number(m[1]) === asked.length && asked.length <= 256, `${m[1]} answered, the client asked ${asked.length} times`);
        expect(/at most \d+ questions/.test(m[3]), `the refusal does not name the limit: ${m[3]}`);
        expect(ms < 10000, `took ${ms.toFixed(0)} ms`);
        return `${m[1]} answered, ${m[2]} refused in ${ms.toFixed(0)} ms: "${short(m[3], 100)}"`;
    }, () => s);
    await step('stuck: a cancelled call asks its client no more', async () => {
        asked = [];
        const id = s.request('tools/call', { name: 'fake_questions', arguments: { n: 100000, wait: true } });
        await s.waitFor(() => asked.length >= 20, 5000);
        s.notify('notifications/cancelled', { requestId: id, reason: 'test' });
        await sleep(300);
        const then = asked.length;
        const a0 = Number((await s.tool('fake_asked', {}, 3000)).text);
        await sleep(500);
        const a1 = Number((await s.tool('fake_asked', {}, 3000)).text);
        expect(asked.length === then, `the client was asked ${asked.length - then} more times after the cancel settled`);
        expect(a1 === a0, `the server went on asking: ${a0} -> ${a1}`);
        return `${then} asked before the cancel settled, none after`;
    }, () => s);
    await endSession(s);
}

// Under 2026-07-28 the client answers by retrying the call, and each run of the handler asks
// the questions of the run before again (the host replays their answers): four questions in
// a row still end in one result, each answered once by the client.
async function questionsModernClient() {
    const mk = marker('ask-v2');
    const ws = workspace('stuck-ask-v2');
    const ini = gatewayIni(ws, { fake: { command: fakeCommand('stuck', mk) } });
    const asked = [];
    const transport = new StdioV2({ command: mcph, args: [ini], env: process.env, stderr: 'pipe' });
    const client = new ClientV2({ name: 'mcph-stuck-tests', version: '1.0.0' }, {
        capabilities: { elicitation: {} },
        versionNegotiation: { mode: { pin: MODERN_REVISION } },
    });
    client.setRequestHandler('elicitation/create', async (r) => {
        asked.push(r.params?.message);
        return { action: 'accept', content: { a: 'yes' } };
    });
    await step('stuck: four questions in one call through a 2026-07-28 client: one result, each asked once', async () => {
        await client.connect(transport, { timeout: 15000 });
        const r = await client.callTool({ name: 'fake_questions', arguments: { n: 4, method: 'elicitation/create', wait: true } }, { timeout: 15000 });
        const text = (r.content || []).map((c) => c.text).join('');
        expect(text === '4 answered, 0 refused: ' && !r.isError, `the call: ${short(r)}`);
        const distinct = new Set(asked);
        expect(distinct.size === 4 && asked.length === 4, `the client was asked ${asked.length} times: ${asked.join(', ')}`);
        return `asked: ${asked.join(', ')}`;
    });
    await client.close().catch(() => {});
    try {
        transport._process?.kill('SIGKILL');
    } catch {
        // gone
    }
}

// --- Item: a 2026-07-28 server's input_required rounds, and a result too large. ---

async function modern() {
    const mk = { modern: marker('modern'), big: marker('big') };
    const ws = workspace('stuck-modern');
    const ini = gatewayIni(ws, { fake: { command: fakeCommand('modern', mk.modern) }, big: { command: fakeCommand('stuck', mk.big) } });
    let asked = [];
    const onRequest = (msg) => {
        asked.push(msg.method);
        if (msg.method === 'roots/list') return { roots: [{ uri: 'file:///tmp', name: 'tmp' }] };
        throw { code: -32601, message: 'no' };
    };
    const s = await startSession(mcph, ini, { capabilities: { roots: {} }, onRequest });
    await step("stuck: a 2026-07-28 server's instructions reach the client after its title (from _meta)", async () => {
        const got = s.initResult.instructions;
        expect(got === '[plugin.fake]\nFake Modern: Ask ir_ok first.', `initialize's instructions: ${JSON.stringify(got)}`);
        return JSON.stringify(got);
    }, () => s);
    await step('stuck: a 2026-07-28 server asks in its result: answered through the client', async () => {
        asked = [];
        const r = await s.tool('fake_ir_ok', {}, 10000);
        expect(r.text === 'roots: 1', `the call: ${short(r.msg)}`);
        expect(asked.length === 1, `asked ${asked.length} times`);
        return 'roots: 1';
    }, () => s);
    await step('stuck: inputRequests as an array: an error that says so', async () => {
        const r = await s.tool('fake_ir_array', {}, 10000);
        const text = r.error?.message || r.text || '';
        expect(r.error || r.isError, `not an error: ${short(r.msg)}`);
        expect(/inputRequests/.test(text), `the error does not name inputRequests: ${text}`);
        return short(text, 120);
    }, () => s);
    await step('stuck: an unknown question method is refused, not asked as roots/list', async () => {
        asked = [];
        const r = await s.tool('fake_ir_unknown', {}, 10000);
        const text = r.error?.message || r.text || '';
        expect(r.error || r.isError, `not an error: ${short(r.msg)}`);
        expect(text.includes('tasks/frobnicate'), `the error does not name the method: ${text}`);
        expect(asked.length === 0, `the client was asked ${asked.join(', ')}`);
        return short(text, 120);
    }, () => s);
    await step('stuck: input_required past the round limit: an error naming it, not an empty success', async () => {
        asked = [];
        const r = await s.tool('fake_ir_forever', {}, 20000);
        const text = r.error?.message || r.text || '';
        expect(r.error || r.isError, `not an error: ${short(r.msg)}`);
        expect(/16 rounds/.test(text), `the error does not name the limit: ${text}`);
        return `${asked.length} questions, then "${short(text, 120)}"`;
    }, () => s);
    await step('stuck: a result over 32 MiB: an error naming the limit', async () => {
        const r = await s.tool('big_big', { mb: 33 }, 30000);
        const text = r.error?.message || r.text || '';
        expect(r.error || r.isError, `not an error: ${short(r.msg, 200)}`);
        expect(/32 MiB/.test(text), `the error does not name the limit: ${text}`);
        const e = await s.tool('big_echo', { text: 'after' }, 5000);
        expect(e.text === 'echo: after', `the next call: ${short(e.msg)}`);
        return short(text, 140);
    }, () => s);
    const st = await endSession(s);
    await step('stuck: mcph ends cleanly after the 2026-07-28 rounds (no leak report)', async () => {
        expect(!st.timedOut && st.code === 0, `exit: ${describeExit(st)}; stderr: ${s.stderrTail(5)}`);
        expect(!/LeakSanitizer|AddressSanitizer/.test(s.stderr), `sanitizer: ${short(s.stderr.slice(s.stderr.search(/LeakSanitizer|AddressSanitizer/)), 400)}`);
    });
}

const watchdog = setTimeout(() => {
    report(false, 'gateway stuck suite', `did not finish within ${LIMIT_MS / 1000} s`);
    cleanup();
    done('gateway stuck');
}, LIMIT_MS);

const only = process.argv[3];
const t0 = Date.now();
try {
    for (const [name, fn] of Object.entries({ deaf, questions, questionsModernClient, modern })) {
        if (!only || only === name) await fn();
    }
} catch (err) {
    report(false, 'gateway stuck suite', `threw: ${err?.stack || err}`);
} finally {
    cleanup();
    clearTimeout(watchdog);
}
done('gateway stuck', ` in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
