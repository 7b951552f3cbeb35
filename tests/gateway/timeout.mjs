#!/usr/bin/env node
// call_timeout_ms in an mcp section (tests/gateway/fake-server.mjs's slow tool).
// `make test-gateway` runs it.
//
//   node tests/gateway/timeout.mjs [BINARY]      BINARY: build/mcph
//
// An mcp section in mcph's own process takes call_timeout_ms (the one core key a plugin may
// declare): a call its server leaves unanswered past the limit fails at once with an error
// naming the section and the limit, the server is killed and started again, and later calls
// work; a call within the limit is untouched; another section goes on; a reload applies a new
// limit. The same key with isolate = process bounds the child (the parent's view), and the
// child's mcp plugin still loads (the child's view). Prints "ok gateway ..." / "FAIL gateway ...: why" lines, then
// "gateway timeout: N passed, N failed"; exits 1 on a failure.

import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { done, report, expect } from '../lib/check.mjs';
import { describeExit } from '../lib/proc.mjs';
import {
    workspace, gatewayIni, fakeCommand, startSession, endSession, step, markerSet,
    pidsByMarker, waitFor, sleep, short,
} from './common.mjs';

const LIMIT_MS = 90000;
const mcph = path.resolve(process.argv[2] || 'build/mcph');
const { marker, cleanup } = markerSet();

// A call that outlives call_timeout_ms: how long it took and its error text.
async function overrun(s, tool, ms = 5000) {
    const t0 = performance.now();
    const r = await s.tool(tool, { ms }, ms + 5000);
    return { r, ms: performance.now() - t0, text: r.error?.message || r.text || '' };
}

// The next call that works, within ms (the server starts again after a backoff).
async function worksAgain(s, tool, ms) {
    const t0 = performance.now();
    let r;
    while (performance.now() - t0 < ms) {
        r = await s.tool(tool, { text: 'again' }, 5000);
        if (r.text === 'echo: again') return { ok: true, ms: performance.now() - t0 };
        await sleep(100);
    }
    return { ok: false, msg: r?.msg };
}

async function inProcess() {
    const mk = { slow: marker('timeout'), ok: marker('timeout-ok') };
    const ws = workspace('timeout');
    const ini = gatewayIni(ws, {
        fake: { command: fakeCommand('normal', mk.slow), call_timeout_ms: 500 },
        ok: { command: fakeCommand('normal', mk.ok), resources: '!*', prompts: '!*' },
    });
    let s;
    await step('timeout: an mcp section with call_timeout_ms = 500 starts (no isolate = process)', async () => {
        s = await startSession(mcph, ini);
        expect(!/call_timeout_ms/.test(s.stderr), `call_timeout_ms refused: ${s.stderrTail(3)}`);
    }, () => s);
    if (!s) return;
    await step('timeout: a call within the limit is answered', async () => {
        const r = await s.tool('fake_slow', { ms: 100 }, 5000);
        expect(r.text === 'slept 100', `fake_slow 100 ms: ${short(r.msg)}`);
    }, () => s);
    await step('timeout: a 5 s call fails within ~1 s, naming the section and call_timeout_ms; the server is killed', async () => {
        const before = pidsByMarker(mk.slow);
        const { r, ms, text } = await overrun(s, 'fake_slow');
        expect(r.error || r.isError, `not an error after ${ms.toFixed(0)} ms: ${short(r.msg)}`);
        expect(ms < 1500, `the error came after ${ms.toFixed(0)} ms, not within ~1 s of a 500 ms limit`);
        expect(/call_timeout_ms/.test(text) && /500 ms/.test(text), `the error does not name call_timeout_ms and 500 ms: ${text}`);
        expect(/'fake'/.test(text) || /\[plugin\.fake\]/.test(text), `the error does not name the section: ${text}`);
        const gone = await waitFor(() => !before.some((pid) => pidsByMarker(mk.slow).includes(pid)), 3000, 20);
        expect(gone, `the server that overran (pid ${before}) still runs`);
        return `${ms.toFixed(0)} ms: "${short(text, 140)}"`;
    }, () => s);
    await step('timeout: later calls work again (the server started again); the other section never stopped', async () => {
        const other = await s.tool('ok_echo', { text: 'still' }, 3000);
        expect(other.text === 'echo: still', `the other section: ${short(other.msg)}`);
        const again = await worksAgain(s, 'fake_echo', 8000);
        expect(again.ok, `fake_echo did not work again within 8 s: ${short(again.msg)}`);
        const r = await s.tool('fake_slow', { ms: 100 }, 5000);
        expect(r.text === 'slept 100', `fake_slow 100 ms after the restart: ${short(r.msg)}`);
        return `again after ${again.ms.toFixed(0)} ms`;
    }, () => s);
    await step('timeout: a reload to call_timeout_ms = 3000 applies it (a 1 s call is answered)', async () => {
        gatewayIni(ws, {
            fake: { command: fakeCommand('normal', mk.slow), call_timeout_ms: 3000 },
            ok: { command: fakeCommand('normal', mk.ok), resources: '!*', prompts: '!*' },
        });
        const m = s.mark();
        s.hup();
        // The restart after the kill may refresh the section too ("rebuild"): wait for the
        // SIGHUP's own re-init of the changed section.
        const served = /reload: fake: re-init \(section changed\)[\s\S]*reload: serving/;
        await s.waitFor(() => served.test(s.since(m).stderr) || /reload refused/.test(s.since(m).stderr) || s.exited, 10000);
        expect(served.test(s.since(m).stderr), `the reload did not serve the changed section: ${short(s.since(m).stderr, 300)}`);
        const r = await s.tool('fake_slow', { ms: 1000 }, 6000);
        expect(r.text === 'slept 1000', `fake_slow 1000 ms under the new limit: ${short(r.msg)}`);
    }, () => s);
    const st = await endSession(s);
    await step('timeout: mcph ends cleanly', async () => {
        expect(!st.timedOut && st.code === 0, `exit: ${describeExit(st)}; stderr: ${s.stderrTail(5)}`);
    });
}

async function isolated() {
    const mk = marker('timeout-iso');
    const ws = workspace('timeout-iso');
    const ini = gatewayIni(ws, { iso: { command: fakeCommand('normal', mk), isolate: 'process', call_timeout_ms: 500 } });
    let s;
    await step('timeout: isolate = process + mcp + call_timeout_ms = 500: the child loads, an overrun fails naming the section and the limit, then calls work', async () => {
        s = await startSession(mcph, ini);
        const ok = await s.tool('iso_slow', { ms: 100 }, 5000);
        expect(ok.text === 'slept 100', `iso_slow 100 ms: ${short(ok.msg)}`);
        const { r, ms, text } = await overrun(s, 'iso_slow');
        expect(r.error || r.isError, `not an error after ${ms.toFixed(0)} ms: ${short(r.msg)}`);
        expect(ms < 1500, `the error came after ${ms.toFixed(0)} ms`);
        expect(/call_timeout_ms/.test(text) && /'iso'/.test(text), `the error does not name 'iso' and call_timeout_ms: ${text}`);
        const again = await worksAgain(s, 'iso_echo', 10000);
        expect(again.ok, `iso_echo did not work again within 10 s: ${short(again.msg)}`);
        return `${ms.toFixed(0)} ms: "${short(text, 120)}"`;
    }, () => s);
    if (s) await endSession(s);
}

const watchdog = setTimeout(() => {
    report(false, 'gateway timeout suite', `did not finish within ${LIMIT_MS / 1000} s`);
    cleanup();
    done('gateway timeout');
}, LIMIT_MS);

const t0 = Date.now();
try {
    await inProcess();
    await isolated();
} catch (err) {
    report(false, 'gateway timeout suite', `threw: ${err?.stack || err}`);
} finally {
    cleanup();
    clearTimeout(watchdog);
}
done('gateway timeout', ` in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
