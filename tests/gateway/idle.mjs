#!/usr/bin/env node
// idle_stop_s in an mcp section (tests/gateway/fake-server.mjs, mode idle: a server that starts
// a grandchild in a session of its own and takes subscriptions). `make test-gateway` runs it.
//
//   node tests/gateway/idle.mjs [BINARY]      BINARY: build/mcph
//
// With idle_stop_s = 1 the server and its grandchild are gone a second after the last request
// (said at info level), while a section without the key keeps its server; tools/list and a
// reload are served from the rows held, without starting it; a call starts it again and is
// answered, with no list_changed while the rows are the same, and with it once they differ; a
// call in flight longer than the limit is not cut; a subscription keeps the server running,
// and its end lets it stop; a 2026-07-28 server and a confined one (started confined again) go
// and come back too. Prints "ok gateway ..." / "FAIL gateway ...: why" lines, then "gateway
// idle: N passed, N failed"; exits 1 on a failure.

import fs from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { done, report, expect } from '../lib/check.mjs';
import { describeExit } from '../lib/proc.mjs';
import {
    ROOT, workspace, gatewayIni, fakeCommand, startSession, endSession, step, markerSet, events,
    pidsByMarker, killMarker, waitFor, sleep, short,
} from './common.mjs';

const LIMIT_MS = 90000;
const mcph = path.resolve(process.argv[2] || 'build/mcph');
const markers = markerSet();
const grandchildren = []; // the grandchildren's markers, which markerSet does not make
const marker = markers.marker;
const cleanup = () => {
    markers.cleanup();
    for (const m of grandchildren) killMarker(m);
};
const IDLE_LINE = /stopped after 1 s idle; started again on the next request/;

// The processes mcph started itself (its keepers), from /proc's children files of its threads.
function childrenOf(pid) {
    const out = [];
    try {
        for (const t of fs.readdirSync(`/proc/${pid}/task`)) {
            const text = fs.readFileSync(`/proc/${pid}/task/${t}/children`, 'utf8').trim();
            if (text) out.push(...text.split(/\s+/).map(Number));
        }
    } catch {
        // gone
    }
    return out;
}

const starts = (log) => events(log).filter((e) => e.event === 'start').length;

async function idle() {
    const mk = marker('idle');
    const steady = marker('idle-steady');
    const grand = `${mk}-grandchild`;
    grandchildren.push(grand);
    const ws = workspace('idle');
    const log = path.join(ws, 'events.jsonl');
    const modeFile = path.join(ws, 'mode');
    const ini = gatewayIni(ws, {
        idle: { command: fakeCommand('idle', mk, `--log ${log} --mode-file mode`), idle_stop_s: 1 },
        steady: { command: fakeCommand('normal', steady), resources: '!*', prompts: '!*' },
    });
    let s;
    // Gone: the server, its grandchild and its keeper (mcph keeps the steady section's alone).
    const idleGone = () => pidsByMarker(mk).length === 0 && pidsByMarker(grand).length === 0 && childrenOf(s.pid).length === 1;
    await step('idle: idle_stop_s = 1: after a second with no request the server, its setsid grandchild and its keeper are gone', async () => {
        s = await startSession(mcph, ini);
        const t0 = performance.now();
        // The server logs its grandchild once it runs (it may be stopped again before a look).
        const spawned = () => events(log).find((e) => e.event === 'grandchild');
        expect(await waitFor(spawned, 5000), 'the grandchild did not start');
        const child = spawned().child;
        expect(await waitFor(idleGone, 5000, 20), `left after 5 s: server ${pidsByMarker(mk)}, grandchild ${pidsByMarker(grand)}, mcph's children ${childrenOf(s.pid)}`);
        expect(!fs.existsSync(`/proc/${child}`), `the grandchild ${child} outlived the stop`);
        const ms = performance.now() - t0;
        expect(await waitFor(() => IDLE_LINE.test(s.stderr), 2000), `no info line: ${s.stderrTail(3)}`);
        expect(pidsByMarker(steady).length === 1, `the section without idle_stop_s lost its server: ${pidsByMarker(steady)}`);
        return `grandchild ${child}; all gone ${ms.toFixed(0)} ms after the session was up; "${s.stderr.split('\n').find((l) => IDLE_LINE.test(l))}"`;
    }, () => s);
    if (!s) return;
    await step('idle: tools/list answers from the rows held, without starting the server', async () => {
        const names = (await s.list('tools')).map((t) => t.name);
        expect(names.includes('idle_echo') && names.includes('steady_echo'), `tools: ${names}`);
        await sleep(300);
        expect(pidsByMarker(mk).length === 0, `tools/list started the server: ${pidsByMarker(mk)}`);
        expect(starts(log) === 1, `${starts(log)} starts`);
        return `${names.length} tools`;
    }, () => s);
    await step('idle: a reload (SIGHUP) of the unchanged section while idle lists it without starting it', async () => {
        const m = s.mark();
        s.hup();
        await s.waitFor(() => /reload: serving/.test(s.since(m).stderr) || s.exited, 10000);
        expect(/reload: serving/.test(s.since(m).stderr), `no reload: ${short(s.since(m).stderr, 300)}`);
        expect(pidsByMarker(mk).length === 0 && starts(log) === 1, `the reload started the server: ${pidsByMarker(mk)}, ${starts(log)} starts`);
        const names = (await s.list('tools')).map((t) => t.name);
        expect(names.includes('idle_echo'), `after the reload: ${names}`);
        return short(s.since(m).stderr.trim().split('\n').filter((l) => /reload/.test(l)).join(' | '), 200);
    }, () => s);
    await step('idle: a tools/call starts it again and is answered (no error, no list_changed)', async () => {
        const m = s.mark();
        const t0 = performance.now();
        const r = await s.tool('idle_echo', { text: 'back' }, 15000);
        const ms = performance.now() - t0;
        expect(r.text === 'echo: back', `the call: ${short(r.msg)}`);
        expect(starts(log) === 2, `${starts(log)} starts`);
        // The start refreshes the section's rows: wait for that reload, then for any notification.
        await s.waitFor(() => /reload: serving/.test(s.since(m).stderr), 5000);
        await s.call('ping');
        await sleep(300);
        expect(s.since(m).listChanged.length === 0, `list_changed after the start: ${s.since(m).listChanged}`);
        return `answered in ${ms.toFixed(0)} ms (the start included)`;
    }, () => s);
    await step('idle: a call in flight longer than idle_stop_s is not cut', async () => {
        const before = await s.tool('idle_pid', {}, 15000);
        const r = await s.tool('idle_slow', { ms: 2500 }, 15000);
        const after = await s.tool('idle_pid', {}, 15000);
        expect(r.text === 'slept 2500', `the 2.5 s call: ${short(r.msg)}`);
        expect(before.text && before.text === after.text, `another server after the call: ${before.text} then ${after.text}`);
        return `pid ${after.text} throughout`;
    }, () => s);
    await step('idle: a subscription keeps it running; once it ends, the server stops', async () => {
        expect(await waitFor(idleGone, 5000, 20), `not idle again: ${pidsByMarker(mk)}`);
        const sub = await s.call('resources/subscribe', { uri: 'fake://doc' });
        expect(sub.result, `subscribe: ${short(sub)}`);
        expect(await waitFor(() => pidsByMarker(mk).length === 1, 10000), 'the subscription did not start the server');
        const pid = pidsByMarker(mk)[0];
        await sleep(2500);
        expect(pidsByMarker(mk).length === 1 && pidsByMarker(mk)[0] === pid, `stopped while subscribed: ${pidsByMarker(mk)} (was ${pid})`);
        expect(events(log).some((e) => e.event === 'resources/subscribe' && e.pid === pid), 'the server was not subscribed');
        const un = await s.call('resources/unsubscribe', { uri: 'fake://doc' });
        expect(un.result, `unsubscribe: ${short(un)}`);
        expect(await waitFor(idleGone, 5000, 20), `still there 5 s after the unsubscribe: ${pidsByMarker(mk)}`);
        return `pid ${pid} kept 2.5 s, then stopped`;
    }, () => s);
    await step('idle: a server that serves other tools when started again: list_changed, and its new rows', async () => {
        expect(await waitFor(idleGone, 5000, 20), `not idle: ${pidsByMarker(mk)}`);
        fs.writeFileSync(modeFile, 'memory\n');
        const m = s.mark();
        const r = await s.tool('idle_echo', { text: 'changed' }, 15000);
        expect(r.text === 'echo: changed', `the call: ${short(r.msg)}`);
        const changed = await s.waitNotes(m, (ns) => ns.some((n) => n.method === 'notifications/tools/list_changed'), 5000);
        expect(changed, `no tools/list_changed: ${s.since(m).notes.map((n) => n.method)}`);
        const names = (await s.list('tools')).map((t) => t.name);
        expect(names.includes('idle_tiny'), `the new rows are not listed: ${names}`);
        return `list_changed: ${s.since(m).listChanged}`;
    }, () => s);
    const st = await endSession(s);
    await step('idle: mcph ends cleanly; nothing of either section is left', async () => {
        expect(!st.timedOut && st.code === 0, `exit: ${describeExit(st)}; stderr: ${s.stderrTail(5)}`);
        expect(await waitFor(() => pidsByMarker(mk).length + pidsByMarker(grand).length + pidsByMarker(steady).length === 0, 3000), 'processes left');
    }, () => s);
}

// Whether a process runs with no_new_privs and a seccomp filter.
function confined(pid) {
    try {
        const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
        return /^NoNewPrivs:\s+1$/m.test(status) && /^Seccomp:\s+2$/m.test(status);
    } catch {
        return false;
    }
}

// A 2026-07-28 server (no initialize: server/discover and subscriptions/listen) and a confined
// one go idle and come back the same way.
async function modernAndConfined() {
    const mk = { modern: marker('idle-modern'), conf: marker('idle-confined') };
    const grand = `${mk.conf}-grandchild`;
    grandchildren.push(grand);
    const ws = workspace('idle-more');
    const ini = gatewayIni(ws, {
        modern: { command: fakeCommand('modern', mk.modern), idle_stop_s: 2 },
        conf: { command: fakeCommand('idle', mk.conf), idle_stop_s: 2, read: `${path.join(ROOT, 'tests/gateway')} .`, exec: '/usr/bin /bin', network: 'no' },
    });
    let s;
    await step('idle: a 2026-07-28 server and a confined one stop when idle, and a call starts each again (confined again)', async () => {
        s = await startSession(mcph, ini);
        // A call, so that the server runs for 2 s more whatever the start-up took.
        const first = Number((await s.tool('conf_pid', {}, 15000)).text);
        expect(first && confined(first), `the confined server ${first} does not run confined`);
        const gone = () => pidsByMarker(mk.modern).length + pidsByMarker(mk.conf).length + pidsByMarker(grand).length === 0;
        expect(await waitFor(gone, 8000, 20), `left: ${pidsByMarker(mk.modern)} ${pidsByMarker(mk.conf)} ${pidsByMarker(grand)}`);
        const m = await s.tool('modern_echo', { text: 'm' }, 15000);
        const c = await s.tool('conf_pid', {}, 15000);
        expect(m.text === 'echo: m', `the 2026-07-28 server: ${short(m.msg)}`);
        expect(/^\d+$/.test(c.text) && Number(c.text) !== first, `the confined server: ${short(c.msg)}`);
        expect(confined(Number(c.text)), `the confined server started again (${c.text}) does not run confined`);
        return `confined ${first}, then ${c.text}`;
    }, () => s);
    if (s) await endSession(s);
}

async function badValue() {
    const mk = marker('idle-bad');
    const ws = workspace('idle-bad');
    await step('idle: idle_stop_s = 86401 is refused, naming the section and the range', async () => {
        const ini = gatewayIni(ws, { bad: { command: fakeCommand('normal', mk), idle_stop_s: 86401 } }, { strict: 'yes' });
        const s = await startSession(mcph, ini).catch((e) => e);
        const text = s instanceof Error ? s.message : s.stderr;
        if (!(s instanceof Error)) await endSession(s);
        expect(/idle_stop_s in \[plugin\.bad\] is '86401'; give seconds from 1 to 86400, or 0 for never/.test(text), `not refused so: ${short(text, 300)}`);
    });
}

const watchdog = setTimeout(() => {
    report(false, 'gateway idle suite', `did not finish within ${LIMIT_MS / 1000} s`);
    cleanup();
    done('gateway idle');
}, LIMIT_MS);

const t0 = Date.now();
try {
    await idle();
    await modernAndConfined();
    await badValue();
} catch (err) {
    report(false, 'gateway idle suite', `threw: ${err?.stack || err}`);
} finally {
    cleanup();
    clearTimeout(watchdog);
}
done('gateway idle', ` in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
