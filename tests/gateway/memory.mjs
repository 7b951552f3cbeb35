#!/usr/bin/env node
// What one upstream message may cost mcph: tests/gateway/fake-server.mjs in MODE memory behind
// an mcp section, sending messages made of tiny values (each costs cJSON a node of 64 bytes
// and more for its two bytes of text), replies to requests never sent, replies that are not
// JSON and lines with control characters. `make test-gateway` runs it.
//
//   node tests/gateway/memory.mjs [BINARY]       BINARY: build/mcph; its plugins/ beside it
//
// Memory is VmRSS and VmHWM (the peak, reset through /proc/PID/clear_refs before each case)
// of mcph from /proc/PID/status: each case prints "base B, peak P, after A MiB". The bounds
// are checked on a plain build and only reported under a sanitizer, whose quarantine and
// shadow memory keep what a plain build gives back. Prints "ok gateway memory ..." / "FAIL
// ..." lines, then a count; exits 1 on a failure.

import fs from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { done, expect, report } from '../lib/check.mjs';
import { sanitizersOf } from '../lib/util.mjs';
import { toolOutcome } from '../lib/session.mjs';
import { workspace, gatewayIni, fakeCommand, startSession, endSession, endSessions, step, killMarker, sleep, short } from './common.mjs';

const MiB = 1024 * 1024;
const MCPH = path.resolve(process.argv[2] || 'build/mcph');
const PLUGIN_DIR = path.join(path.dirname(MCPH), 'plugins');
const SANITIZED = sanitizersOf(MCPH).any;
const SLOW = SANITIZED ? 3 : 1;
const LIMIT_MS = 120000 * SLOW;
// plugin-api/mcph-json.h: MCPH_JSON_COST_MAX, MCPH_JSON_VALUE_COST.
const COST_MAX_MIB = 64;
// 10 MiB of "0,": about 5.2 million values, over 500 MiB parsed.
const HUGE = 5 * 1024 * 1024;
// About 400,000 values: 0.8 MiB of text, about 45 MiB parsed, under the limit.
const LARGE = 400000;
// What a case may add to mcph's memory at its peak and keep afterwards (MiB). Before these
// bounds, 10 MiB of tiny values took mcph above 1 GiB and left most of it behind.
const PEAK_MIB = 160;
const AFTER_MIB = 24;

const mk = `gw-memory-${process.pid}`;

function mem(pid) {
    const text = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
    const kib = (name) => Number(new RegExp(`${name}:\\s+(\\d+)`).exec(text)?.[1] || NaN);
    return { rss: kib('VmRSS') / 1024, hwm: kib('VmHWM') / 1024 };
}

// The peak is measured from here on.
function resetPeak(pid) {
    fs.writeFileSync(`/proc/${pid}/clear_refs`, '5');
}

// Run fn (a case's traffic) and measure mcph: { base, peak, after } in MiB, after the memory
// settled (at most 2 s).
async function measured(s, fn) {
    const base = mem(s.pid).rss;
    resetPeak(s.pid);
    const out = await fn();
    const peak = mem(s.pid).hwm;
    let after = mem(s.pid).rss;
    for (let i = 0; i < 20 && after - base > AFTER_MIB / 2; i++) {
        await sleep(100);
        after = mem(s.pid).rss;
    }
    return { out, base, peak, after };
}

const figures = (m) => `base ${m.base.toFixed(0)}, peak ${m.peak.toFixed(0)}, after ${m.after.toFixed(0)} MiB`;

// The case's figures, or its problems with them (none under a sanitizer: reported only).
function bounds(m) {
    const p = [];
    if (!SANITIZED && m.peak - m.base > PEAK_MIB) p.push(`peak ${(m.peak - m.base).toFixed(0)} MiB above base, over ${PEAK_MIB}`);
    if (!SANITIZED && m.after - m.base > AFTER_MIB) p.push(`kept ${(m.after - m.base).toFixed(0)} MiB after, over ${AFTER_MIB}`);
    return p.length ? [...p, figures(m)] : figures(m);
}

// A case's verdict: the problems among checks ([ok, why] pairs) and with its memory, with its
// figures; or its figures alone.
function judge(m, checks) {
    const p = checks.filter(([ok]) => !ok).map(([, why]) => why);
    const b = bounds(m);
    return p.length ? [...p, ...(Array.isArray(b) ? b : [b])] : b;
}

// A fresh mcph for each case, so that each is measured from the floor; a first call of each
// kind through the link before the measure.
async function fresh(ini) {
    const s = await startSession(MCPH, ini, { timeoutMs: 20000 * SLOW });
    await s.tool('up_tiny', { n: 10 });
    return s;
}

async function run() {
    const ws = workspace('memory');
    const ini = gatewayIni(ws, { up: { command: fakeCommand('memory', mk) } }, { plugin_dir: PLUGIN_DIR });
    let s = null;
    const sess = () => s;
    const next = async () => {
        if (s) await endSession(s);
        s = await fresh(ini);
    };

    await step('memory: a reply of 10 MiB of tiny values fails its call naming the limit', async () => {
        await next();
        const m = await measured(s, () => s.tool('up_tiny', { n: HUGE }, 30000 * SLOW));
        const msg = m.out.error?.message || m.out.text || '';
        const logged = await s.waitFor(() => /plugin up: .*limit of 64 MiB/.test(s.stderr), 2000);
        return judge(m, [
            [m.out.isError || m.out.error, `the call did not fail: ${short(m.out.msg, 120)}`],
            [msg.includes("server '") && msg.includes(`limit of ${COST_MAX_MIB} MiB`), `error does not name the server and the limit: ${short(msg, 200)}`],
            [logged, `no warning naming the section on stderr: ${s.stderrTail(2)}`],
        ]);
    }, sess);

    await step('memory: a reply of 400,000 values passes whole, and mcph gives the memory back', async () => {
        await next();
        const m = await measured(s, () => s.tool('up_tiny', { n: LARGE }, 30000 * SLOW));
        const v = m.out.msg?.result?.structuredContent?.v;
        return judge(m, [[Array.isArray(v) && v.length === LARGE, `structuredContent.v is not the ${LARGE} values: ${short(m.out.msg, 120)}`]]);
    }, sess);

    await step('memory: a reply of 10 MiB to a request never sent is dropped unparsed', async () => {
        await next();
        const m = await measured(s, () => s.tool('up_stray', { n: HUGE }, 30000 * SLOW));
        return judge(m, [[m.out.text === 'stray sent', `the call after it: ${short(m.out.msg, 120)}`]]);
    }, sess);

    await step('memory: a notification of 10 MiB of tiny values is dropped with a warning', async () => {
        await next();
        const mark = s.stderr.length;
        const m = await measured(s, () => s.tool('up_big_log', { n: HUGE }, 30000 * SLOW));
        const warned = () => /plugin up: .*limit of 64 MiB.*"notifications\/message".*dropped/.test(s.stderr.slice(mark));
        await s.waitFor(warned, 2000);
        return judge(m, [
            [m.out.text === 'big log sent', `the call after it: ${short(m.out.msg, 120)}`],
            [warned(), `no warning naming the section and the method on stderr: ${short(s.stderr.slice(mark), 200)}`],
        ]);
    }, sess);

    await step('memory: a reply that is not JSON fails its call at once', async () => {
        const t0 = performance.now();
        const r = await s.call('tools/call', { name: 'up_bad_reply', arguments: {} }, 5000 * SLOW);
        const ms = performance.now() - t0;
        const out = toolOutcome(r);
        expect(out.isError && out.text.includes("server '") && out.text.includes('not valid JSON'), `not a tool error naming the server and the cause: ${short(r, 300)}`);
        return `${ms.toFixed(0)} ms`;
    }, sess);

    await step('memory: a line that is not JSON is logged escaped', async () => {
        const mark = s.stderr.length;
        const r = await s.tool('up_noise', {});
        expect(r.text === 'noise sent', `the call: ${short(r.msg, 200)}`);
        await s.waitFor(() => s.stderr.slice(mark).includes('not JSON-RPC'), 2000);
        const said = s.stderr.slice(mark);
        expect(said.includes('not JSON-RPC'), `no line about it on stderr: ${short(said, 300)}`);
        expect(!/[\r\u001b]/.test(said), `stderr holds the raw control characters: ${JSON.stringify(said.slice(0, 300))}`);
        return 'escaped';
    }, sess);

    await step('memory: mcph still answers and exits 0', async () => {
        expect((await s.ping(5000)) !== null, 'no answer to ping');
        const st = await endSession(s);
        expect(st.code === 0, `exit ${JSON.stringify(st)}`);
    }, sess);
}

const watchdog = setTimeout(() => {
    report(false, 'gateway memory', `did not finish within ${LIMIT_MS / 1000} s`);
    endSessions();
    killMarker(mk);
    done('gateway memory');
}, LIMIT_MS);

try {
    await run();
} catch (err) {
    report(false, 'gateway memory', `threw: ${err?.stack || err}`);
} finally {
    endSessions();
    killMarker(mk);
    clearTimeout(watchdog);
}
done('gateway memory');
