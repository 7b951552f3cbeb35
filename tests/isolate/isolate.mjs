#!/usr/bin/env node
// isolate = process through the real binary: a plugin that crashes runs in a child (mcph
// --isolated ID INI), and mcph survives it. `make test-isolate` runs it, then soak.mjs.
//
//   node tests/isolate/isolate.mjs [BINARY [CASE]]      BINARY: build/mcph; CASE: a name's start
//
// One INI: the fault plugin (tests/plugins/fault.c) isolated with call_timeout_ms = 300 (1000
// under a sanitizer) and max_memory = 256M, the example plugin in process and the example
// plugin isolated. For each fault (NULL store, abort, _exit(3), stack overflow, a busy loop
// past call_timeout_ms, an allocation past max_memory, a crash in a read and in a get), with
// 20 echo calls to the two example instances kept in flight: the crashing call (and a call, a
// read and a get in flight beside it) gets "plugin 'faulty' <how it ended>", no echo call
// fails, the rows stay listed, the fault plugin serves again from a new child, mcph answers
// ping and exits 0 at the end of input, and no process is left. Then the four keys only an
// isolated section takes (max_procs too), the child's rlimits (max_cpu_s ending a busy loop), a crash in init
// (then SIGHUP), a crash in shutdown (reload, exit), five crashes in a row (down, then
// SIGHUP), SIGKILL of mcph at three moments, and progress, cancellation and logging through
// the isolated example, and the plugin's tree (max_cpu_s and max_procs over every process
// it starts, setsid() grandchildren ending with it). Every case starts its own mcph;
// workspaces are build/tests/isolate/NAME/.
// A sanitizer build accepts the sanitizer's exit status for a SEGV and skips max_memory.
// Prints "ok isolate ..." / "FAIL isolate ...: why", then "isolate: N passed, N failed".

import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { Case, report, done } from '../lib/check.mjs';
import { sleep, waitFor, short } from '../lib/util.mjs';
import { workspace } from '../lib/workspace.mjs';
import { Session } from '../lib/session.mjs';
import { describeExit } from '../lib/proc.mjs';
import { endSession, endSessions, forgetSession, killMarker } from '../gateway/common.mjs';
import {
    MCPH, SAN, CALL_TIMEOUT_MS, MAX_MEMORY, MEMORY_LIMITED, ENDED, ended, isolateIni, toolErrorProblems,
    rpcErrorProblems, okPid, echoStream, children, leftOver, zombiesOf, strayReports, trigger, crashProblems,
    reloaded, start, ENV, WAIT_MS,
} from './common.mjs';

const LIMIT_MS = SAN.any ? 400000 : 150000;
const ONLY = process.argv[3] || '';
const inis = []; // every INI used: their processes are killed at the end
const slack = SAN.any ? 5000 : 1500; // on top of a deadline mcph keeps

function ws(name) {
    return workspace('isolate', name);
}

function ini(dir, more) {
    const file = isolateIni(dir, more);
    inis.push(file);
    return file;
}

// Run one case: fn(c, use) where use(s) names the session whose protocol problems and stray
// sanitizer reports fail the case too. One line: "ok isolate NAME (notes)" or FAIL with why.
async function runCase(name, fn) {
    if (ONLY && !name.startsWith(ONLY)) return;
    const c = new Case(name);
    const used = [];
    try {
        await fn(c, (s) => {
            used.push(s);
            return s;
        });
    } catch (err) {
        c.threw(err);
    }
    for (const s of used) {
        for (const p of s.problems()) c.check(false, `protocol: ${p}`);
        for (const r of strayReports(s.stderr)) c.check(false, `sanitizer report in mcph's stderr: ${r}`);
    }
    if (!c.ok && used.length) c.failures.push(`stderr: ${short(used.at(-1).stderrTail(6), 600)}`);
    report(c.ok, `isolate ${name}`, c.ok ? c.notes.join('; ') : c.failures.slice(0, 6).join(' | '));
    endSessions();
}

const okCall = (s, text, extra = {}, ms = 20000) => s.call('tools/call', { name: 'f_ok', arguments: { text, ...extra } }, ms);

// The end of input: exit status 0, then no process with the INI in its command line.
async function endsClean(c, s, file) {
    const pid = s.pid;
    const st = await endSession(s);
    c.check(st.code === 0 && !st.signal && !st.timedOut, `mcph did not exit 0 at the end of input: ${JSON.stringify(st)}`);
    const left = await waitFor(() => leftOver(file).length === 0, 3000) ? [] : leftOver(file);
    c.check(left.length === 0, `processes left after mcph (${pid}) exited: ${left.join(', ')}`);
}

// --- The four keys only an isolated section takes (call_timeout_ms also a plugin that declares
// it, as the mcp plugin does; the example plugin does not: refused when it loads). ---

async function keysNeedIsolation() {
    await runCase('call_timeout_ms (undeclared by the plugin), max_memory, max_cpu_s, max_files, max_procs without isolate = process: a config error naming file:line', async (c, use) => {
        const dir = ws('keys');
        const keys = { call_timeout_ms: 300, max_memory: '64M', max_cpu_s: 5, max_files: 64, max_procs: 8 };
        for (const [key, value] of Object.entries(keys)) {
            const file = ini(dir, { example: { [key]: value } });
            const lines = fs.readFileSync(file, 'utf8').split('\n');
            const line = lines.findIndex((l, i) => i > lines.indexOf('[plugin.example]') && l.startsWith(`${key} =`)) + 1;
            const s = use(new Session(MCPH, file, { env: ENV }));
            s.close();
            const st = await s.wait(10000);
            c.check(st.code === 3 && !st.timedOut, `${key}: mcph did not exit with status 3 (a config error): ${describeExit(st)}`);
            const err = s.stderr.split('\n').find((l) => l.includes(`mcph.ini:${line}:`));
            c.check(err && err.includes(key) && err.includes('isolate'), `${key}: no error naming mcph.ini:${line}, the key and isolate: ${short(s.stderrTail(3), 300)}`);
            if (err && c.notes.length === 0) c.note(`"${short(err.replace(/^mcph: error: .*mcph.ini/, 'mcph.ini'), 120)}"`);
            c.check(leftOver(file).length === 0, `${key}: processes left: ${leftOver(file)}`);
        }
    });
}

// --- An isolated section whose child refuses it: a configuration error of the parent's. ---

// The child prints FILE:LINE and exits 3 during its start-up; the parent's start-up then ends
// with exit 3 too (not served without the section), a reload to such a section is refused and
// keeps the running set, and the other keys the child checks (a missing required key, a bad
// call_timeout_ms) do the same.
async function childConfigError() {
    await runCase('isolated section with a typo\'d key: exit 3 with the child\'s FILE:LINE; a reload to it keeps the running set', async (c, use) => {
        const dir = ws('typo');
        const file = ini(dir, { iso: { greting: 'hi' } });
        const lines = fs.readFileSync(file, 'utf8').split('\n');
        const line = lines.findIndex((l) => l.startsWith('greting =')) + 1;
        const s = use(new Session(MCPH, file, { env: ENV }));
        s.close();
        const st = await s.wait(20000);
        c.check(st.code === 3 && !st.timedOut, `mcph did not exit with status 3 (a config error): ${describeExit(st)}`);
        const err = s.stderr.split('\n').find((l) => l.includes(`mcph.ini:${line}:`) && l.includes('greting'));
        c.check(err, `no error naming mcph.ini:${line} and greting: ${short(s.stderrTail(4), 400)}`);
        c.check(!/^mcph: info: serving/m.test(s.stderr), `mcph served: ${short(s.stderrTail(4), 300)}`);
        if (err) c.note(`"${short(err.replace(/^.*mcph.ini/, 'mcph.ini'), 90)}"`);
        c.check(await waitFor(() => leftOver(file).length === 0, 3000), `processes left: ${leftOver(file)}`);

        const r = spawnSync(MCPH, ['--check', file], { env: ENV, encoding: 'utf8', timeout: 20000 });
        c.check(r.status === 3, `--check: ${r.signal ? `signal ${r.signal}` : `status ${r.status}`}, not 3: ${short(r.stderr, 300)}`);

        const good = ini(ws('typo-reload'));
        const t = use(await start(good));
        const before = await t.tool('iso_echo', { text: 'before' });
        c.require(before.text === 'before', `iso_echo before the reload: ${short(before.msg)}`);
        isolateIni(path.dirname(good), { iso: { greting: 'hi' } });
        const m = t.mark();
        t.hup();
        await t.waitFor(() => /reload refused|reload: serving/.test(t.since(m).stderr) || t.exited, 20000);
        const log = t.since(m).stderr;
        c.check(/reload refused|reload: iso: the new version failed; the one in service stays/.test(log), `the reload did not keep iso: ${short(log, 400)}`);
        c.check(/mcph\.ini:\d+: .*greting/.test(log), `the reload's log does not name FILE:LINE and greting: ${short(log, 400)}`);
        const after = await t.tool('iso_echo', { text: 'after' });
        c.check(after.text === 'after', `iso_echo after the refused reload: ${short(after.msg)}`);
        await endsClean(c, t, good);
    });
}

// --- --check of an isolated section whose child refuses it at once. ---

// The child exits while the parent may still be writing to it: --check must say why (exit 3,
// the section's configuration error), never die of SIGPIPE. Repeated: the race is narrow.
async function checkChildRefuses() {
    await runCase('--check of an isolated section with an unknown key: exit 3 every time, never SIGPIPE', async (c) => {
        const file = ini(ws('check'), { iso: { no_such_key: 1 } });
        const runs = SAN.any ? 5 : 20;
        const codes = {};
        for (let i = 0; i < runs; i++) {
            const r = spawnSync(MCPH, ['--check', file], { env: ENV, encoding: 'utf8', timeout: 20000 });
            const key = r.signal ? `signal ${r.signal}` : `status ${r.status}`;
            codes[key] = (codes[key] || 0) + 1;
            if (r.status !== 3 && c.notes.length === 0) c.note(`run ${i}: ${key}: ${short(r.stderr, 300)}`);
            if (i === 0) c.check(/no_such_key/.test(r.stderr), `no error naming no_such_key: ${short(r.stderr, 300)}`);
        }
        c.check(codes['status 3'] === runs, `exits of ${runs} runs: ${JSON.stringify(codes)}, not status 3 each`);
        c.check(leftOver(file).length === 0, `processes left: ${leftOver(file)}`);
    });
}

// --- One fault, with echo calls going on and a call, a read and a get in flight beside it. ---

// Besides the crashing request: requests on the same plugin that wait WAIT_MS, longer than
// call_timeout_ms, in flight when it dies. Left out for the loop (the time-out of the first of
// them would kill the child).
const WITH_COMPANIONS = new Set(['null', 'abort', 'exit3', 'stack', 'alloc', 'read', 'get']);

function sendCompanions(s) {
    return [
        ['the f_ok call in flight', s.request('tools/call', { name: 'f_ok', arguments: { text: 'inflight', delay_ms: WAIT_MS } }), toolErrorProblems],
        ['the read of fault://wait in flight', s.request('resources/read', { uri: 'fault://wait' }), rpcErrorProblems],
        ['the get of f_wait in flight', s.request('prompts/get', { name: 'f_wait' }), rpcErrorProblems],
    ];
}

// The restart lines on stderr since mark m, for a crash that was the n-th in a row.
function restartLogProblems(s, m, how, n = 1) {
    const log = s.since(m).stderr;
    const backoff = 250 << (n - 1);
    const line = log.split('\n').find((l) => l.includes(`starting it again in ${backoff} ms (crash ${n} in a row; down at 5)`));
    if (!line) return [`no "starting it again in ${backoff} ms (crash ${n} in a row; down at 5)" on stderr: ${short(log, 400)}`];
    if (!ended(how).some((t) => line.includes(t))) return [`the restart line does not say ${ended(how).join(' or ')}: ${line}`];
    return [];
}

async function oneFault(how, what) {
    if (how === 'alloc' && !MEMORY_LIMITED) {
        console.log(`skip isolate crash alloc: a sanitizer build reserves terabytes of address space, so RLIMIT_AS (max_memory) cannot be applied to it`);
        return;
    }
    await runCase(`crash ${how} (${what})`, async (c, use) => {
        const file = ini(ws(how));
        const s = use(await start(file));
        const pid0 = okPid(await okCall(s, 'before'), 'before');
        c.require(pid0, 'f_ok did not answer "ok before pid N" at start');
        const iso0 = children(file, 'iso');
        c.require(children(file, 'faulty').join() === String(pid0) && iso0.length === 1,
            `children: faulty ${children(file, 'faulty')} (f_ok says ${pid0}), iso ${iso0}`);
        const stream = echoStream(s);
        await sleep(100);
        const m = s.mark();
        const companions = WITH_COMPANIONS.has(how) ? sendCompanions(s) : [];
        await sleep(30);
        const t0 = performance.now();
        const r = await s.call(...trigger(how), 30000);
        const ms = performance.now() - t0;
        for (const p of crashProblems(`the ${trigger(how)[0]} that crashed`, r, how)) c.check(false, p);
        for (const [name, id, fn] of companions) {
            for (const p of fn(name, await s.answer(id, 5000), ended(how))) c.check(false, p);
        }
        if (how === 'loop') {
            c.check(ms >= CALL_TIMEOUT_MS && ms < CALL_TIMEOUT_MS + slack, `the loop was answered after ${ms.toFixed(0)} ms, not ${CALL_TIMEOUT_MS} ms + at most ${slack}`);
        }
        c.note(`"${short((r.error?.message ?? r.result?.content?.[0]?.text) || '', 80)}" after ${ms.toFixed(0)} ms`);
        // While the child restarts its rows stay listed.
        const during = [...await s.names('tools'), ...await s.names('resources'), ...await s.names('prompts')];
        const rows = ['f_ok', 'f_crash', 'fault://crash', 'fault://wait', 'f_wait'];
        c.check(rows.every((x) => during.includes(x)), `listed while the child restarts: ${during.filter((x) => /^f_|^fault:/.test(x))}, not all of ${rows}`);
        const again = await okCall(s, 'after');
        const back = performance.now() - t0;
        const pid1 = okPid(again, 'after');
        c.check(pid1 && pid1 !== pid0, `after the crash f_ok answered ${short(again.result ?? again.error, 200)}, not "ok after pid N" from a new child (was ${pid0})`);
        c.check(children(file, 'faulty').join() === String(pid1), `the faulty child is not ${pid1} alone: ${children(file, 'faulty')}`);
        c.check(children(file, 'iso').join() === iso0.join(), `the isolated example's child changed: ${iso0} -> ${children(file, 'iso')}`);
        c.check(await s.waitFor(() => s.since(m).stderr.includes(`plugin 'faulty' serves again`), 3000), `no "plugin 'faulty' serves again" on stderr`);
        for (const p of restartLogProblems(s, m, how)) c.check(false, p);
        // The child's own crash line (a fault in its plugin) says its process ends, and does not
        // suggest the isolation it already has.
        const own = s.since(m).stderr.split('\n').find((l) => /^mcph: SIG\w+ in plugin 'faulty'/.test(l));
        // (Under UBSan the NULL store ends the child in the sanitizer's report instead.)
        const sanitized = /runtime error:/.test(s.since(m).stderr);
        if (own || (how === 'null' && !sanitized)) c.check(own && own.includes("the plugin's own process (isolate = process) ends") && !own.includes('would contain'), `the child's crash line: ${short(own ?? s.since(m).stderr, 300)}`);
        c.note(`serving again ${back.toFixed(0)} ms after the crash`);
        const st = await stream.end();
        c.check(st.failures.length === 0 && st.byTool.echo > 0 && st.byTool.iso_echo > 0,
            `echo calls to the healthy plugins: ${st.calls} made (${JSON.stringify(st.byTool)}), ${st.failures.length} failed: ${st.failures.slice(0, 3).join('; ')}`);
        c.note(`${st.calls} echo calls, 0 failed`);
        c.check(await s.ping(5000) !== null, 'no answer to ping after the crash');
        c.check(s.since(m).listChanged.length === 0, `list_changed though the rows did not change: ${s.since(m).listChanged}`);
        c.check(zombiesOf(s.pid).length === 0, `zombie children of mcph: ${zombiesOf(s.pid)}`);
        await endsClean(c, s, file);
    });
}

// --- The rlimits of the child, and max_cpu_s ending a busy loop. ---

// A limit of /proc/PID/limits: [soft, hard] as written there, or null.
function limitOf(pid, name) {
    const line = fs.readFileSync(`/proc/${pid}/limits`, 'utf8').split('\n').find((l) => l.startsWith(name));
    return line ? line.slice(name.length).trim().split(/\s+/).slice(0, 2) : null;
}

async function limits() {
    await runCase('max_cpu_s, max_files, max_memory: the child\'s rlimits; a busy loop past max_cpu_s = 1 gets SIGXCPU', async (c, use) => {
        const file = ini(ws('limits'), { faulty: { max_cpu_s: 1, max_files: 64, call_timeout_ms: 20000 } });
        const s = use(await start(file));
        const [pid] = children(file, 'faulty');
        c.require(pid, 'no faulty child');
        const want = { 'Max cpu time': '1', 'Max open files': '64', ...(MEMORY_LIMITED ? { 'Max address space': String(256 << 20) } : {}) };
        for (const [name, soft] of Object.entries(want)) {
            const got = limitOf(pid, name);
            c.check(got && got[0] === soft, `${name} of the child: ${got}, not ${soft}`);
        }
        c.check(limitOf(children(file, 'iso')[0], 'Max cpu time')?.[0] === 'unlimited', 'the isolated example, without limits, has a CPU time limit');
        const t0 = performance.now();
        const r = await s.call(...trigger('loop'), 30000);
        const ms = performance.now() - t0;
        for (const p of toolErrorProblems('the loop', r, `plugin 'faulty' was killed by SIGXCPU`)) c.check(false, p);
        // The child's CPU time before the loop counts too, but that is a few milliseconds.
        c.check(ms >= 500, `killed ${ms.toFixed(0)} ms after the loop began, long before 1 s of CPU`);
        c.note(`"${short(r.result?.content?.[0]?.text, 60)}" after ${ms.toFixed(0)} ms`);
        const pid1 = okPid(await okCall(s, 'again'), 'again');
        c.check(pid1 && pid1 !== pid, `after the SIGXCPU f_ok answered from ${pid1} (was ${pid})`);
        c.note(`limits ${Object.entries(want).map(([k, v]) => `${k.replace('Max ', '')} ${v}`).join(', ')}`);
        await endsClean(c, s, file);
    });
}

// --- The plugin's tree: max_cpu_s and max_procs count every process it starts, and what it
// starts ends with it (setsid() or not), also when mcph is killed. ---

// Live processes whose $0 is marker (tests/plugins/fault.c's fork), with the CPU seconds each
// used so far.
function treeProcs(marker) {
    const out = new Map();
    for (const e of fs.readdirSync('/proc')) {
        if (!/^\d+$/.test(e)) continue;
        try {
            if (!fs.readFileSync(`/proc/${e}/cmdline`, 'utf8').split('\0').includes(marker)) continue;
            const stat = fs.readFileSync(`/proc/${e}/stat`, 'utf8');
            const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
            if (f[0] === 'Z') continue;
            out.set(Number(e), (Number(f[11]) + Number(f[12])) / 100);
        } catch {
            // gone
        }
    }
    return out;
}

const treeMarkers = []; // killed at the end, like the INIs' processes
const forkCall = (s, how, n, marker) => treeMarkers.push(marker) && s.call('tools/call', { name: 'f_fork', arguments: { how, n, marker } }, 20000);

async function trees() {
    await runCase('max_cpu_s counts the plugin\'s whole tree: 6 busy children stop near 2 CPU-seconds in all', async (c, use) => {
        const file = ini(ws('tree-cpu'), { faulty: { max_cpu_s: 2, call_timeout_ms: 20000 } });
        const marker = `tree-cpu-${process.pid}`;
        const s = use(await start(file));
        const pid0 = okPid(await okCall(s, 'before'), 'before');
        const r = await forkCall(s, 'busy', 6, marker);
        c.require(/forked 6/.test(JSON.stringify(r)), `f_fork: ${short(r)}`);
        const used = new Map(); // pid -> the most CPU seen
        const t0 = performance.now();
        let seen = 0;
        while (performance.now() - t0 < 20000) {
            const now = treeProcs(marker);
            seen = Math.max(seen, now.size);
            for (const [pid, cpu] of now) used.set(pid, Math.max(used.get(pid) || 0, cpu));
            if (now.size === 0 && seen > 0) break;
            await sleep(50);
        }
        const ms = performance.now() - t0;
        const total = [...used.values()].reduce((a, b) => a + b, 0);
        c.check(seen === 6, `${seen} busy children seen, not 6`);
        c.check(treeProcs(marker).size === 0, `busy children still running after ${(ms / 1000).toFixed(1)} s`);
        c.check(total <= 4, `the busy children used ${total.toFixed(1)} CPU-seconds, past max_cpu_s = 2`);
        const line = s.stderr.split('\n').find((l) => /plugin 'faulty' and its processes used \d+ CPU-seconds in all, more than max_cpu_s = 2/.test(l));
        c.check(line, `no line on stderr says the tree went past max_cpu_s: ${short(s.stderrTail(4), 400)}`);
        await waitFor(() => /plugin 'faulty' was killed by SIGXCPU; starting it again/.test(s.stderr), 5000, 20);
        const after = await okCall(s, 'after');
        const pid1 = okPid(after, 'after');
        c.check(pid1 && pid1 !== pid0, `f_ok after: pid ${pid1} (was ${pid0}): ${short(after, 300)}`);
        c.note(`${total.toFixed(1)} CPU-s in all, ended in ${(ms / 1000).toFixed(1)} s`);
        await endsClean(c, s, file);
    });
    await runCase('max_procs counts the plugin\'s tree: 8 children past max_procs = 4 end it and them', async (c, use) => {
        const file = ini(ws('tree-procs'), { faulty: { max_procs: 4 } });
        const marker = `tree-procs-${process.pid}`;
        const s = use(await start(file));
        const pid0 = okPid(await okCall(s, 'before'), 'before');
        const past = /plugin 'faulty' has \d+ processes under it, more than max_procs = 4/;
        await forkCall(s, 'idle', 8, marker).catch(() => null);
        await waitFor(() => past.test(s.stderr), 5000, 20);
        // The children held the plugin's stdout too: its end is seen once they are gone.
        await waitFor(() => /plugin 'faulty' was killed by SIGKILL; starting it again/.test(s.stderr), 5000, 20);
        const gone = await waitFor(() => treeProcs(marker).size === 0, 5000, 20);
        c.check(gone, `${treeProcs(marker).size} children still running 5 s later`);
        const line = s.stderr.split('\n').find((l) => past.test(l));
        c.check(line, `no line on stderr says the tree went past max_procs: ${short(s.stderrTail(4), 400)}`);
        const after = await okCall(s, 'after');
        const pid1 = okPid(after, 'after');
        c.check(pid1 && pid1 !== pid0, `f_ok after: pid ${pid1} (was ${pid0}): ${short(after, 300)}`);
        // One idle loop is two processes (the shell and its sleep): under max_procs, it stays.
        const few = await forkCall(s, 'idle', 1, marker);
        await sleep(1500);
        const pid2 = okPid(await okCall(s, 'under'), 'under');
        c.check(/forked 1/.test(JSON.stringify(few)) && treeProcs(marker).size === 1 && pid2 === pid1, `a child under max_procs = 4: ${short(few)}, ${treeProcs(marker).size} running, f_ok from ${pid2} (was ${pid1})`);
        if (line) c.note(`"${short(line.replace(/^mcph: error: /, ''), 100)}"`);
        await endsClean(c, s, file);
        c.check(treeProcs(marker).size === 0, 'children left after mcph ended');
    });
    await runCase('a setsid() grandchild ends with the plugin\'s process, and with mcph killed by SIGKILL', async (c, use) => {
        const file = ini(ws('tree-setsid'));
        const marker = `tree-setsid-${process.pid}`;
        let s = use(await start(file));
        await forkCall(s, 'setsid', 2, marker);
        c.require(await waitFor(() => treeProcs(marker).size === 2, 3000, 20), `${treeProcs(marker).size} setsid grandchildren running, not 2`);
        await s.call(...trigger('exit3'), 30000);
        c.check(await waitFor(() => treeProcs(marker).size === 0, 3000, 20), `${treeProcs(marker).size} setsid grandchildren outlived the plugin's process`);
        await forkCall(s, 'setsid', 2, marker);
        c.require(await waitFor(() => treeProcs(marker).size === 2, 3000, 20), `${treeProcs(marker).size} setsid grandchildren running after the restart, not 2`);
        s.kill('SIGKILL');
        await s.wait(5000);
        forgetSession(s);
        c.check(await waitFor(() => treeProcs(marker).size === 0, 3000, 20), `${treeProcs(marker).size} setsid grandchildren outlived mcph's SIGKILL`);
        const left = await waitFor(() => leftOver(file).length === 0, 3000) ? [] : leftOver(file);
        c.check(left.length === 0, `left after SIGKILL of mcph: ${left.join(', ')}`);
        s = null;
    });
}

// --- A crash in init: the load fails, the rest is served; then the file goes and SIGHUP. ---

async function initCrash() {
    await runCase('crash in init: the rest is served, the log names the plugin; SIGHUP after the fix serves it', async (c, use) => {
        const dir = ws('init');
        const file = ini(dir);
        fs.writeFileSync(path.join(dir, 'init-crash'), '');
        const s = use(await start(file, { initMs: 30000 }));
        const tools = await s.names('tools');
        c.check(!tools.some((n) => n.startsWith('f_')), `the fault plugin's tools are listed though its init crashed: ${tools.filter((n) => n.startsWith('f_'))}`);
        c.check(tools.includes('echo') && tools.includes('iso_echo'), `echo and iso_echo are not both listed: ${tools.join(' ')}`);
        const e = await s.tool('iso_echo', { text: 'fine' });
        c.check(e.text === 'fine' && !e.isError, `iso_echo: ${short(e.msg)}`);
        const named = s.stderr.split('\n').filter((l) => ended('null').some((t) => l.includes(t)));
        c.check(named.length > 0, `no line on stderr says ${ended('null').join(' or ')}: ${short(s.stderrTail(5), 400)}`);
        const failed = s.stderr.split('\n').find((l) => l.includes(`plugin 'faulty'`) && l.includes('init failed'));
        c.check(failed, `no line on stderr says plugin 'faulty' failed its init: ${short(s.stderrTail(5), 400)}`);
        if (named.length) c.note(`"${short(named[0].replace(/^mcph: \w+: /, ''), 110)}"`);
        await sleep(300);
        c.check(children(file, 'faulty').length === 0, `a child of the failed section is running: ${children(file, 'faulty')}`);
        fs.rmSync(path.join(dir, 'init-crash'));
        const m = s.mark();
        s.hup();
        c.require(await reloaded(s, m), `the reload after the fix did not serve: ${short(s.since(m).stderr, 400)}`);
        c.check(await s.waitNotes(m, (ns) => ns.some((n) => n.method === 'notifications/tools/list_changed'), 3000), 'no tools/list_changed after the reload');
        const pid = okPid(await okCall(s, 'fixed'), 'fixed');
        c.check(pid && children(file, 'faulty').join() === String(pid), `after the reload f_ok: pid ${pid}, children ${children(file, 'faulty')}`);
        await endsClean(c, s, file);
    });
}

// --- A crash in shutdown: at a reload that changes the section, and at the exit. ---

async function shutdownCrash() {
    await runCase('crash in shutdown: a reload with the section changed and the exit both work, exit 0, nothing left', async (c, use) => {
        const dir = ws('shutdown');
        const file = ini(dir, { faulty: { crash_in_shutdown: 'yes', label: 'a' } });
        const s = use(await start(file));
        const stream = echoStream(s);
        const a = await okCall(s, 'one');
        const pid0 = okPid(a, 'one');
        c.require(pid0 && a.result.content[0].text.endsWith('label a'), `f_ok: ${short(a.result)}`);
        isolateIni(dir, { faulty: { crash_in_shutdown: 'yes', label: 'b' } });
        const m = s.mark();
        s.hup();
        c.require(await reloaded(s, m), `the reload did not serve: ${short(s.since(m).stderr, 400)}`);
        const b = await okCall(s, 'two');
        const pid1 = okPid(b, 'two');
        c.check(pid1 && pid1 !== pid0 && b.result.content[0].text.endsWith('label b'), `after the reload f_ok: ${short(b.result)} (was pid ${pid0})`);
        c.check(await waitFor(() => !children(file, 'faulty').includes(pid0), 3000), `the old child ${pid0} is still running after the reload`);
        const crashed = () => s.stderr.split('shutdown crashes').length - 1; // the plugin's line before it crashes
        c.check(await s.waitFor(() => crashed() === 1, 3000), `the old child's shutdown did not say it crashes (${crashed()} times)`);
        await sleep(400); // a restart after the crash in shutdown would show by now
        c.check(children(file, 'faulty').join() === String(pid1), `faulty children after the reload: ${children(file, 'faulty')} (want ${pid1})`);
        c.check(!/starting it again/.test(s.since(m).stderr), `the crash in the old child's shutdown was taken for a crash to restart from: ${short(s.since(m).stderr, 300)}`);
        c.check(zombiesOf(s.pid).length === 0, `zombie children of mcph: ${zombiesOf(s.pid)}`);
        const st = await stream.end();
        c.check(st.failures.length === 0 && st.calls > 0, `echo calls: ${st.calls} made, ${st.failures.length} failed: ${st.failures.slice(0, 3).join('; ')}`);
        c.note(`pid ${pid0} -> ${pid1}, ${st.calls} echo calls, 0 failed`);
        await endsClean(c, s, file);
        c.check(crashed() === 2, `the last child's shutdown did not say it crashes at the exit (${crashed() - 1} times)`);
    });
}

// --- Five crashes in a row: down; calls fail at once; SIGHUP starts it again. ---

async function downAfterFive() {
    await runCase('five crashes in a row: down (log, notifications/message error), calls fail at once, SIGHUP brings it back', async (c, use) => {
        const file = ini(ws('down'));
        const s = use(await start(file));
        c.require(okPid(await okCall(s, 'first'), 'first'), 'f_ok does not answer at start');
        const stream = echoStream(s);
        const m = s.mark();
        const t0 = performance.now();
        for (let n = 1; n <= 5; n++) {
            const mark = s.mark();
            const r = await s.call('tools/call', { name: 'f_crash', arguments: { how: 'exit3' } }, 30000);
            for (const p of toolErrorProblems(`crash ${n}`, r, ended('exit3'))) c.check(false, p);
            if (n < 5) {
                await s.waitFor(() => /starting it again/.test(s.since(mark).stderr), 3000);
                for (const p of restartLogProblems(s, mark, 'exit3', n)) c.check(false, p);
            }
        }
        const isDown = (ns) => ns.some((x) => x.method === 'notifications/message' && x.params?.level === 'error' && JSON.stringify(x.params.data).includes('is down'));
        c.check(await s.waitNotes(m, isDown, 5000), `no notifications/message at level error saying "is down": ${short(s.since(m).messages.filter((x) => x.level === 'error'), 300)}`);
        const downLine = await s.waitFor(() => s.since(m).stderr.split('\n').find((l) => l.includes('is down') && l.includes('faulty')), 3000);
        c.check(downLine, `no "is down" line naming 'faulty' on stderr: ${short(s.since(m).stderr, 400)}`);
        if (downLine) c.note(`"${short(downLine.replace(/^mcph: \w+: /, ''), 100)}" after ${((performance.now() - t0) / 1000).toFixed(1)} s`);
        const t1 = performance.now();
        const r = await okCall(s, 'down', {}, 5000);
        const ms = performance.now() - t1;
        for (const p of toolErrorProblems('f_ok while down', r, 'is down')) c.check(false, p);
        c.check(ms < 1000, `f_ok while down took ${ms.toFixed(0)} ms to fail, not at once`);
        for (const p of rpcErrorProblems('a read while down', await s.call('resources/read', { uri: 'fault://wait' }, 5000), 'is down')) c.check(false, p);
        c.check(children(file, 'faulty').length === 0, `a faulty child runs while it is down: ${children(file, 'faulty')}`);
        const h = s.mark();
        s.hup();
        c.require(await reloaded(s, h), `the reload did not serve: ${short(s.since(h).stderr, 400)}`);
        const pid = okPid(await okCall(s, 'back'), 'back');
        c.check(pid && children(file, 'faulty').join() === String(pid), `after SIGHUP f_ok: pid ${pid}, children ${children(file, 'faulty')}`);
        // The count started again at 0: the next crash is the first in a row.
        const again = s.mark();
        await s.call(...trigger('abort'), 30000);
        await s.waitFor(() => /starting it again/.test(s.since(again).stderr), 3000);
        for (const p of restartLogProblems(s, again, 'abort', 1)) c.check(false, `after the reload: ${p}`);
        c.check(okPid(await okCall(s, 'last'), 'last'), 'f_ok does not serve after the crash that followed the reload');
        const st = await stream.end();
        c.check(st.failures.length === 0 && st.calls > 0, `echo calls: ${st.calls} made, ${st.failures.length} failed: ${st.failures.slice(0, 3).join('; ')}`);
        c.note(`failed at once in ${ms.toFixed(0)} ms; ${st.calls} echo calls, 0 failed`);
        await endsClean(c, s, file);
    });
}

// --- SIGKILL of mcph: the children go with it (PR_SET_PDEATHSIG). ---

async function sigkill() {
    const moments = {
        'children busy': async (s) => {
            s.request('tools/call', { name: 'iso_count', arguments: { to: 100, delay_ms: 100 } });
            s.request('tools/call', { name: 'f_crash', arguments: { how: 'loop' } });
            await sleep(100);
        },
        'restart backoff': async (s) => {
            await s.call(...trigger('exit3'), 30000);
        },
        'reload starting new children': async (s, file) => {
            const before = children(file);
            s.hup();
            const fresh = await waitFor(() => children(file).some((p) => !before.includes(p)), 5000, 1);
            if (!fresh) throw new Error(`no new child within 5 s of SIGHUP (children ${children(file)})`);
        },
    };
    await runCase('SIGKILL of mcph: no child left (busy, in a restart backoff, while a reload starts children)', async (c, use) => {
        for (const [moment, act] of Object.entries(moments)) {
            const file = ini(ws(`kill-${moment.split(' ')[0]}`));
            const s = use(await start(file));
            c.require(okPid(await okCall(s, 'x'), 'x'), `${moment}: f_ok does not answer at start`);
            const kids = children(file);
            await act(s, file);
            s.kill('SIGKILL');
            await s.wait(5000);
            forgetSession(s);
            const left = await waitFor(() => leftOver(file).length === 0, 3000) ? [] : leftOver(file);
            c.check(left.length === 0, `${moment}: left after SIGKILL of mcph: ${left.join(', ')}`);
            c.note(`${moment}: ${kids.length} children gone`);
        }
    });
}

// --- Progress, cancellation and logging through the isolated example; its lists. ---

// The progress notifications of a token: [progress, total, message].
const progressOf = (s, token) => s.notes.filter((n) => n.method === 'notifications/progress' && n.params.progressToken === token)
    .map((n) => [n.params.progress, n.params.total, n.params.message]);

async function throughIsolation() {
    await runCase('the isolated example: tools/list and prompts/list equal the in-process one\'s', async (c, use) => {
        const file = ini(ws('lists'));
        const s = use(await start(file));
        for (const kind of ['tools', 'prompts']) {
            const all = await s.list(kind);
            const own = all.filter((t) => !t.name.startsWith('iso_') && !t.name.startsWith('f_'));
            const iso = all.filter((t) => t.name.startsWith('iso_')).map((t) => ({ ...t, name: t.name.slice(4) }));
            c.check(own.length > 0 && JSON.stringify(iso) === JSON.stringify(own), `${kind}: isolated ${short(iso, 300)} vs in process ${short(own, 300)}`);
            c.note(`${own.length} ${kind}`);
        }
        await endsClean(c, s, file);
    });
    await runCase('progress, cancellation and logging through the isolated example', async (c, use) => {
        const file = ini(ws('features'));
        const s = use(await start(file));
        // Progress: the same notifications as from the in-process instance.
        for (const [tool, token] of [['count', 'p-own'], ['iso_count', 'p-iso']]) {
            const r = await s.call('tools/call', { name: tool, arguments: { to: 3, delay_ms: 20 }, _meta: { progressToken: token } });
            c.check(r.result?.content?.[0]?.text === 'counted to 3', `${tool}: ${short(r)}`);
        }
        const want = [1, 2, 3].map((i) => [i, 3, `counted to ${i}`]);
        c.check(JSON.stringify(progressOf(s, 'p-iso')) === JSON.stringify(want), `progress of iso_count: ${short(progressOf(s, 'p-iso'))}, wanted ${short(want)}`);
        c.check(JSON.stringify(progressOf(s, 'p-own')) === JSON.stringify(want), `progress of count: ${short(progressOf(s, 'p-own'))}`);
        // Cancellation: no answer, and the progress stops.
        const id = s.request('tools/call', { name: 'iso_count', arguments: { to: 100, delay_ms: 50 }, _meta: { progressToken: 'p-cancel' } });
        c.require(await waitFor(() => progressOf(s, 'p-cancel').length >= 2, 5000, 10), 'no progress from the long iso_count');
        s.notify('notifications/cancelled', { requestId: id, reason: 'test' });
        await sleep(300);
        const seen = progressOf(s, 'p-cancel').length;
        await sleep(700);
        c.check(progressOf(s, 'p-cancel').length === seen, `progress went on after the cancellation: ${seen} -> ${progressOf(s, 'p-cancel').length} notifications`);
        c.check(!s.inbox.some((e) => e.msg.id === id), 'the cancelled call was answered');
        c.note(`cancelled after ${seen} progress notifications`);
        const e = await s.tool('iso_echo', { text: 'still' });
        c.check(e.text === 'still', `iso_echo after the cancellation: ${short(e.msg)}`);
        // Logging: the plugin's log message reaches the client as from the in-process one,
        // and the client's level filters it.
        const logs = {};
        for (const tool of ['relay', 'iso_relay']) {
            const m = s.mark();
            const r = await s.tool(tool, { result: JSON.stringify({ content: [{ type: 'text', text: 'relayed' }] }), log: `hello from ${tool}` });
            c.check(r.text === 'relayed', `${tool}: ${short(r.msg)}`);
            await s.waitNotes(m, (ns) => ns.some((n) => n.method === 'notifications/message' && n.params.data === `hello from ${tool}`), 2000);
            logs[tool] = s.since(m).messages.filter((p) => p.data === `hello from ${tool}`);
        }
        c.check(logs.iso_relay.length === 1 && logs.iso_relay[0].level === 'info' && logs.iso_relay[0].logger === 'iso',
            `the isolated relay's log message: ${short(logs.iso_relay)} (in process: ${short(logs.relay)})`);
        c.note(`log ${short(logs.iso_relay[0], 80)}`);
        await s.call('logging/setLevel', { level: 'error' });
        const m = s.mark();
        await s.tool('iso_relay', { result: JSON.stringify({ content: [] }), log: 'filtered' });
        await sleep(300);
        c.check(!s.since(m).messages.some((p) => p.data === 'filtered'), 'an info message was sent though the client set the level to error');
        await endsClean(c, s, file);
    });
}

// --- The run. ---

const FAULTS = [
    ['null', 'NULL store'],
    ['abort', 'abort()'],
    ['exit3', '_exit(3)'],
    ['stack', 'stack overflow'],
    ['loop', `busy loop past call_timeout_ms = ${CALL_TIMEOUT_MS}`],
    ['alloc', `allocation past max_memory = ${MAX_MEMORY}`],
    ['read', 'a resource read that crashes'],
    ['get', 'a prompt get that crashes'],
];

const guard = setTimeout(() => {
    report(false, 'isolate suite', `did not finish within ${LIMIT_MS / 1000} s`);
    endSessions();
    for (const f of [...inis, ...treeMarkers]) killMarker(f);
    done('isolate');
}, LIMIT_MS);

const t0 = Date.now();
if (SAN.any) console.log(`sanitizer build (${Object.keys(SAN).filter((k) => SAN[k] && k !== 'any').join(', ')}): a SEGV is "${ENDED.null}", a stack overflow ${[ENDED.stack].flat().join(' or ')}`);
try {
    await keysNeedIsolation();
    await childConfigError();
    await checkChildRefuses();
    for (const [how, what] of FAULTS) await oneFault(how, what);
    await limits();
    await trees();
    await initCrash();
    await shutdownCrash();
    await downAfterFive();
    await sigkill();
    await throughIsolation();
} catch (err) {
    report(false, 'isolate suite', `threw: ${err?.stack || err}`);
} finally {
    clearTimeout(guard);
    endSessions();
    for (const f of [...inis, ...treeMarkers]) killMarker(f);
}
done('isolate', ` in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
