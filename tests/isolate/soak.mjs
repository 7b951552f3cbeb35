#!/usr/bin/env node
// Crash soak of isolate = process: node tests/isolate/soak.mjs [BINARY [CRASHES]]
//
// One mcph serving the INI of tests/isolate/isolate.mjs (the fault plugin isolated, the example
// plugin in process and isolated). CRASHES (default 200, 60 under a sanitizer) crashes of the fault
// plugin, by turns a NULL store, abort(), _exit(3), a stack overflow, a read and a get that crash,
// interleaved with reloads (SIGHUP): a crash that waits for the automatic restart ("auto", at most
// 3 in a row, below the 5 that mark the plugin down), a crash followed at once by a SIGHUP
// ("reload", which starts a fresh child and the count of crashes again), and a SIGHUP alone.
// Meanwhile 20 echo calls to the two example instances stay in flight. Requires: every crash
// answered with "plugin 'faulty' <how it ended>", the plugin serving again after each from a new
// child, 0 failed or lost echo calls, no list_changed (the rows never change), the parent's open
// fds equal and its VmRSS within RSS_BOUND_KIB after a warm-up of 20 crashes and at the end, two
// children and no zombie at the end, no stray sanitizer report, exit 0 at the end of input and no
// process left. Prints the figures, and the time from a crash to the first successful call after it
// (it includes the 250 ms backoff) and the child's start-up alone (from the time stderr's "starting
// it again in N ms" and "serves again" lines came, less N). Bounded: 90 s plain, 4 min under a
// sanitizer.

import { performance } from 'node:perf_hooks';
import { report, done } from '../lib/check.mjs';
import { sleep, waitFor, short, median } from '../lib/util.mjs';
import { workspace } from '../lib/workspace.mjs';
import { endSession, endSessions, killMarker, fdCount } from '../gateway/common.mjs';
import {
    SAN, isolateIni, okPid, echoStream, children, leftOver, zombiesOf, strayReports, stampLines, trigger,
    crashProblems, reloaded, start,
} from './common.mjs';

// Under a sanitizer every child costs far more: ASan maps its shadow at each start (a
// child's start-up alone takes 380 ms there, against 2 ms plain) and LeakSanitizer scans the
// heap of each child that is stopped, so a reload is served after 1.7 to 2.3 s: 200 crashes
// would take 6 minutes. There the soak makes 60 (measured under ASan on two idle cores: 30
// crashes in 46 s, 80 in 156 s).
const CRASHES = Number(process.argv[3] || (SAN.any ? 60 : 200));
const WARMUP = 20;
const LIMIT_MS = (SAN.any ? 240000 : 90000) * Math.max(1, CRASHES / (SAN.any ? 60 : 200));
// The parent's VmRSS may grow this much between the warm-up and the end. Plain build: what
// grows is glibc's heap, fragmented by 20 calls at a time on pool threads while link threads
// come and go; its live allocations do not (heaptrack over 200 crashes: the live heap's low
// point rose 11 KB). Measured +1.4 to +1.9 MiB over the 180 crashes after the warm-up (and
// +3 MiB over 480, levelling off): 4 MiB. Under a sanitizer the allocator is the sanitizer's
// (ASan's quarantine, cut to 16 MiB by common.mjs's ENV, and its caches per size and thread;
// TSan keeps shadow and history): measured +19 to +48 MiB (ASan with a 256 MiB quarantine
// and two CPU hogs beside it: +195 MiB; with 16 MiB: +23 to +26 MiB), bounded at 96 MiB; the
// fds stay the exact check there, and LeakSanitizer reports leaks at exit.
const RSS_BOUND_KIB = SAN.any ? 96 * 1024 : 4 * 1024;
const KINDS = ['null', 'abort', 'exit3', 'stack', 'read', 'get'];

if (!Number.isInteger(CRASHES) || CRASHES <= WARMUP) {
    console.error(`usage: node tests/isolate/soak.mjs [BINARY [CRASHES > ${WARMUP}]]`);
    process.exit(2);
}

// Steps: A (crash, wait for the automatic restart), R (crash, then SIGHUP at once), H (SIGHUP
// alone). Never more than 3 A in a row: the fourth crash in a row would wait 2 s, the fifth
// mark the plugin down.
function* plan() {
    for (let k = 0; ; k++) {
        yield* ['A', 'R', 'A', 'A', 'R', 'H', 'A', 'R', 'R'];
        yield* k % 4 === 3 ? ['A', 'A', 'A', 'R'] : ['A', 'R'];
    }
}

const dir = workspace('isolate', 'soak');
const ini = isolateIni(dir);
const problems = [];
const fail = (p) => problems.push(p);

const guard = setTimeout(() => {
    report(false, 'isolate soak', `did not finish within ${LIMIT_MS / 1000} s (${short(problems, 300)})`);
    endSessions();
    killMarker(ini);
    done('isolate soak');
}, LIMIT_MS);

// One crash of kind how: its answer must say how the child ended.
async function crash(s, how, n) {
    const r = await s.call(...trigger(how), 30000);
    for (const p of crashProblems(`crash ${n} (${how})`, r, how)) fail(p);
}

// f_ok must answer from a new child; returns its pid.
async function servesAgain(s, n, pid) {
    const r = await s.call('tools/call', { name: 'f_ok', arguments: { text: `n${n}` } }, 30000);
    const next = okPid(r, `n${n}`);
    if (!next || next === pid) fail(`after step ${n} f_ok answered ${short(r.result ?? r.error, 160)} (pid was ${pid})`);
    return next || pid;
}

async function hup(s, n) {
    const m = s.mark();
    const t = s.hup();
    if (!(await reloaded(s, m))) fail(`step ${n}: the reload did not serve: ${short(s.since(m).stderr, 300)}`);
    return performance.now() - t;
}

// The parent after things settled: two children, then its fds and VmRSS.
async function figures(s) {
    await waitFor(() => children(ini).length === 2, 5000);
    await s.call('ping');
    await sleep(300);
    return { fds: fdCount(s.pid), rss: s.rssKiB(), kids: children(ini).length };
}

// The child's start-up alone for every automatic restart: from "starting it again in N ms" to
// the "serves again" after it, less N.
function startups(lines) {
    const out = [];
    let pending = null;
    for (const { time, text } of lines) {
        const m = /plugin 'faulty' .*starting it again in (\d+) ms/.exec(text);
        if (m) pending = { time, wait: Number(m[1]) };
        else if (pending && text.includes(`plugin 'faulty' serves again`)) {
            out.push(time - pending.time - pending.wait);
            pending = null;
        }
    }
    return out;
}

const t0 = performance.now();
let s;
try {
    s = await start(ini, { setLevel: 'warning' });
    const lines = stampLines(s);
    let pid = okPid(await s.call('tools/call', { name: 'f_ok', arguments: { text: 'start' } }), 'start');
    if (!pid) throw new Error('f_ok does not answer at start');
    const stream = echoStream(s);
    const m0 = s.mark();
    const counts = { A: 0, R: 0, H: 0 };
    const backMs = []; // crash sent -> f_ok answered, for the first crash in a row
    const reloadMs = [];
    let crashes = 0;
    let row = 0;
    let before = null;
    let n = 0;
    for (const step of plan()) {
        if (crashes >= CRASHES || problems.length > 20 || !s.alive()) break;
        n++;
        counts[step]++;
        const t = performance.now();
        if (step !== 'H') await crash(s, KINDS[crashes % KINDS.length], ++crashes);
        if (step === 'A') {
            row++;
            pid = await servesAgain(s, n, pid);
            if (row === 1) backMs.push(performance.now() - t);
        } else {
            reloadMs.push(await hup(s, n));
            row = 0;
            pid = await servesAgain(s, n, pid);
        }
        if (crashes === WARMUP && before === null) before = await figures(s);
    }
    const st = await stream.end();
    const after = await figures(s);
    const secs = (performance.now() - t0) / 1000;
    const log = s.since(m0);
    const starts = startups(lines);

    console.log(`crashes ${crashes} (${counts.A} waiting for the restart, ${counts.R} followed by SIGHUP), ` +
        `SIGHUPs ${counts.R + counts.H}, in ${secs.toFixed(1)} s`);
    console.log(`echo calls ${st.calls} (${st.byTool.echo} in process, ${st.byTool.iso_echo} isolated), failed ${st.failures.length}`);
    console.log(`parent fds ${before?.fds} -> ${after.fds}, VmRSS ${before?.rss} -> ${after.rss} KiB (bound +${RSS_BOUND_KIB} KiB), children ${after.kids}`);
    console.log(`crash -> serving again (first in a row, 250 ms backoff included): median ${median(backMs).toFixed(0)} ms, ` +
        `min ${Math.min(...backMs).toFixed(0)}, max ${Math.max(...backMs).toFixed(0)} (${backMs.length} crashes)`);
    console.log(`child start-up alone (restart line -> "serves again", less the backoff): median ${median(starts).toFixed(1)} ms ` +
        `(${starts.length} restarts); SIGHUP -> reload served: median ${median(reloadMs).toFixed(1)} ms`);

    report(crashes === CRASHES && problems.length === 0, `isolate soak: ${crashes} crashes, each answered and followed by a new child`,
        problems.length ? problems.slice(0, 5).join(' | ') : '');
    report(st.failures.length === 0 && st.byTool.echo > 0 && st.byTool.iso_echo > 0, 'isolate soak: 0 failed or lost echo calls to the healthy plugins',
        `${st.calls} calls${st.failures.length ? `, ${st.failures.length} failed: ${st.failures.slice(0, 3).join('; ')}` : ''}`);
    report(log.listChanged.length === 0, 'isolate soak: no list_changed (the rows never changed)', `${log.listChanged.length}`);
    report(!/is down/.test(log.stderr), 'isolate soak: never down');
    report(before && after.fds === before.fds, 'isolate soak: the parent\'s open fds after the warm-up == at the end', `${before?.fds}, ${after.fds}`);
    report(before && after.rss - before.rss <= RSS_BOUND_KIB, `isolate soak: the parent's VmRSS grew at most ${RSS_BOUND_KIB} KiB`,
        `${before?.rss} -> ${after.rss} KiB`);
    report(after.kids === 2 && zombiesOf(s.pid).length === 0, 'isolate soak: two children and no zombie at the end',
        `${after.kids} children, zombies ${zombiesOf(s.pid)}`);
    const stray = [...s.problems(), ...strayReports(s.stderr)];
    report(stray.length === 0, 'isolate soak: every message valid, no stray sanitizer report', short(stray.slice(0, 3), 400));
    const pidWas = s.pid;
    const ex = await endSession(s);
    const left = await waitFor(() => leftOver(ini).length === 0, 3000) ? [] : leftOver(ini);
    report(ex.code === 0 && !ex.signal && left.length === 0, 'isolate soak: exit 0 at the end of input, no process left',
        `${JSON.stringify(ex)}${left.length ? `; left after ${pidWas}: ${left.join(', ')}` : ''}`);
} catch (err) {
    report(false, 'isolate soak', `threw: ${err?.stack || err}${s ? `\n${s.stderrTail(10, '\n')}` : ''}`);
} finally {
    clearTimeout(guard);
    endSessions();
    killMarker(ini);
}
done('isolate soak', ` in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
