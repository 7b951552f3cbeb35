// The mcp plugin's lifecycle and faults, with tests/gateway/fake-server.mjs behind mcph: a
// server killed or exiting mid-call (and restarted), one that never answers initialize, one
// that prints garbage, one that exits at once (at start, and five times in a row: down until
// SIGHUP), no server left behind when mcph ends, SIGHUP with the section kept, changed or
// broken, a storm of SIGHUPs under calls, the server's list_changed, progress and
// cancellation. Every check starts its own mcph.

import fs from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { expect, expectEq } from '../lib/check.mjs';
import { writeIni } from '../lib/workspace.mjs';
import { describeExit } from '../lib/proc.mjs';
import {
    workspace, gatewayIni, fakeCommand, startSession, endSession, endSessions, forgetSession, step, pidsByMarker,
    waitNoMarker, waitOneMarker, fdCount, threadCount, killMarker, events, sleep, waitFor, short,
    ROOT, PLUGINS, firstDifference,
} from './common.mjs';

const RUN = `${process.pid}`;
const markers = [];

function marker(name) {
    const m = `gw-${name}-${RUN}`;
    markers.push(m);
    return m;
}

const session = startSession;
const end = endSession;

// Kill every session and server this part started (also after a failure).
export async function cleanup() {
    endSessions();
    for (const m of markers) killMarker(m);
}

// Wait for the next "reload: serving" line on stderr after mark m; true when it came (false
// at once when mcph is gone).
async function reloaded(s, m, ms = 15000) {
    await s.waitFor(() => /reload: serving|reload: .*failed|reload: kept/.test(s.since(m).stderr) || s.exited, ms);
    return /reload: serving|reload: .*failed|reload: kept/.test(s.since(m).stderr);
}

// Why a reload did not finish: mcph died, or the end of its stderr.
const noReload = (s) => (s.exited ? `mcph died: ${describeExit(s.exitInfo)}` : `no reload line on stderr: ${s.stderrTail(4)}`);

const tool = async (s, name, args = {}, ms) => s.tool(name, args, ms);
const echoOk = (r, text) => !r.error && !r.isError && JSON.stringify(r.msg.result?.content) === JSON.stringify([{ type: 'text', text: `echo: ${text}` }]);

// --- A server that dies during calls. ---

async function killedMidCall(mcph) {
    const mk = marker('kill');
    const ws = workspace('kill');
    const ini = gatewayIni(ws, { fake: { command: fakeCommand('die-mid-call', mk) } });
    let s;
    await step('read and get in flight when the server dies: JSON-RPC -32603 naming it', async () => {
        s = await session(mcph, ini);
        const read = s.request('resources/read', { uri: 'fake://slow' });
        const get = s.request('prompts/get', { name: 'fake_slow_prompt' });
        await sleep(200);
        s.request('tools/call', { name: 'fake_die', arguments: { how: 'kill' } });
        const problems = [];
        for (const [what, id] of [['read', read], ['get', get]]) {
            const a = await s.answer(id, 10000);
            if (!a) problems.push(`no answer to the ${what}`);
            else if (a.error?.code !== -32603) problems.push(`${what}: ${short(a)}`);
            else if (!a.error.message.includes(mk) || !a.error.message.includes('SIGKILL')) problems.push(`${what}: the message does not name the server and how it ended: ${a.error.message}`);
        }
        return problems.length ? problems : 'both -32603';
    }, () => s);
    if (s) await end(s);
    // A fresh mcph: the crashes below are the first and the second in a row.
    s = null;
    await step('server killed mid-call: a tool error naming it, then it serves again', async () => {
        s = await session(mcph, ini);
        const pid0 = await waitOneMarker(mk, 5000);
        expect(pid0, `no fake server process with marker ${mk}`);
        const r = await tool(s, 'fake_die', { how: 'kill', delay_ms: 100 });
        const t0 = performance.now();
        expect(!r.error, `JSON-RPC error instead of a tool error: ${short(r.error)}`);
        expect(r.isError, `not a tool error: ${short(r.msg)}`);
        expect(r.text.includes('killed by SIGKILL'), `the error does not say "killed by SIGKILL": ${r.text}`);
        expect(r.text.includes(mk), `the error does not name the server (${mk}): ${r.text}`);
        const e = await tool(s, 'fake_echo', { text: 'again' }, 20000);
        const ms = performance.now() - t0;
        expect(echoOk(e, 'again'), `the first call after the crash: ${short(e.msg)}`);
        const pid1 = await waitOneMarker(mk, 3000, [pid0]);
        expect(pid1, `not one new server process after the restart: ${pidsByMarker(mk)}`);
        expect(ms >= 200, `served again ${ms.toFixed(0)} ms after the crash: the 250 ms backoff was not waited`);
        return `"${short(r.text, 90)}"; serving again ${ms.toFixed(0)} ms after the crash (pid ${pid0} -> ${pid1})`;
    }, () => s);
    await step('server exiting mid-call: "exited with status 9", and serving again after a doubled backoff', async () => {
        expect(s, 'no session');
        const r = await tool(s, 'fake_die', { how: 'exit', delay_ms: 50 });
        const t0 = performance.now();
        expect(r.isError && r.text.includes('exited with status 9'), `got ${short(r.msg)}`);
        const e = await tool(s, 'fake_echo', { text: 'back' }, 20000);
        const ms = performance.now() - t0;
        expect(echoOk(e, 'back'), `after the exit: ${short(e.msg)}`);
        // Second crash in a row: the backoff doubled.
        expect(ms >= 450, `served again ${ms.toFixed(0)} ms after the second crash in a row: the backoff did not double to 500 ms (stderr: ${short(s.stderrTail(4), 400)})`);
        return `serving again ${ms.toFixed(0)} ms after the second crash`;
    }, () => s);
    if (s) await end(s);
    s = null;
    await step('SIGHUP while the server restarts: the rebuild lists everything again (prompts too)', async () => {
        s = await session(mcph, ini);
        const before = await s.snapshot();
        await tool(s, 'fake_die', { how: 'kill' });
        const m = s.mark();
        s.hup(); // the rebuild takes the link over during the backoff
        expect(await reloaded(s, m), noReload(s));
        const e = await tool(s, 'fake_echo', { text: 'after' }, 20000);
        expect(echoOk(e, 'after'), `after the restart: ${short(e.msg)}`);
        await sleep(500); // the refresh after the restart settles
        const after = await s.snapshot();
        const d = firstDifference(JSON.parse(before), JSON.parse(after));
        return d ? [`the lists changed across the restart: ${d}; stderr: ${short(s.since(m).stderr, 400)}`] : 'the same lists';
    }, () => s);
    if (s) await end(s);
}

// --- Start-up failures: never answers initialize, exits at once, garbage. ---

async function startupFailures(mcph) {
    const mk = { ok: marker('ok'), stuck: marker('stuck'), gone: marker('gone'), noisy: marker('noisy'), mute: marker('mute') };
    const ws = workspace('startup');
    const limit = 1000;
    const ini = gatewayIni(ws, {
        ok: { command: fakeCommand('normal', mk.ok) },
        stuck: { command: fakeCommand('never-init', mk.stuck), startup_timeout_ms: limit },
        gone: { command: fakeCommand('exit-at-once', mk.gone) },
        // The same fake server as ok's: its URIs would collide, which stops start-up.
        noisy: { command: fakeCommand('garbage', mk.noisy), resources: '!*' },
        mute: { command: fakeCommand('garbage-forever', mk.mute), startup_timeout_ms: limit },
    });
    let s;
    await step('start-up: never-init, exit-at-once and garbage-forever sections are left out, the others serve', async () => {
        const t0 = performance.now();
        s = await session(mcph, ini, { initMs: 3 * limit + 8000 });
        const ms = performance.now() - t0;
        const names = await s.names('tools');
        const problems = [];
        for (const p of ['ok', 'noisy']) if (!names.includes(`${p}_echo`)) problems.push(`${p}_echo is not listed`);
        for (const p of ['stuck', 'gone', 'mute']) if (names.some((n) => n.startsWith(`${p}_`))) problems.push(`${p} is listed though its server failed`);
        // Two sections wait out their start-up deadline; the rest start at once.
        if (ms > 2 * limit + 4000) problems.push(`initialize answered ${ms.toFixed(0)} ms after start: the deadlines (${limit} ms each) were not kept`);
        const err = s.stderr;
        if (!/stuck|never-init/.test(err) || !err.includes(`did not answer initialize within ${limit} ms`)) problems.push(`stderr does not say the never-init server missed its deadline: ${short(s.stderrTail(8), 400)}`);
        if (!err.includes('exited with status 3')) problems.push('stderr does not say the exit-at-once server "exited with status 3"');
        if (!/not JSON-RPC/.test(err)) problems.push('stderr does not mention the lines that are not JSON-RPC');
        for (const p of ['stuck', 'gone', 'mute']) {
            const left = await waitNoMarker(mk[p], 3000);
            if (left.length) problems.push(`the ${p} server is still running (pids ${left})`);
        }
        return problems.length ? problems : `initialize after ${ms.toFixed(0)} ms; served: ${names.length} tools`;
    }, () => s);
    await step('garbage on stdout: the server still serves', async () => {
        expect(s, 'no session');
        const r = await tool(s, 'noisy_echo', { text: 'through the noise' });
        expect(echoOk(r, 'through the noise'), `got ${short(r.msg)}`);
        const many = await Promise.all([1, 2, 3, 4, 5].map((i) => tool(s, 'noisy_echo', { text: `n${i}` })));
        expect(many.every((x, i) => echoOk(x, `n${i + 1}`)), `parallel calls: ${short(many.map((x) => x.text))}`);
        return '6 calls answered';
    }, () => s);
    if (s) await end(s);
}

// A server that answers initialize but never tools/list: startup_timeout_ms also bounds the
// lists (docs/gateway.md), so mcph serves the other sections within it.
async function neverLists(mcph) {
    const mk = { ok: marker('ok2'), nolist: marker('nolist') };
    const ws = workspace('never-list');
    const limit = 1000;
    const ini = gatewayIni(ws, {
        nolist: { command: fakeCommand('never-list', mk.nolist), startup_timeout_ms: limit },
        ok: { command: fakeCommand('normal', mk.ok) },
    });
    let s;
    await step('start-up: a server that never answers tools/list is left out within startup_timeout_ms', async () => {
        const t0 = performance.now();
        try {
            s = await session(mcph, ini, { initMs: limit + 6000 });
        } catch (err) {
            const left = pidsByMarker(mk.nolist);
            return [`${err.message} (startup_timeout_ms = ${limit}); the server ${left.length ? `is still running (pid ${left})` : 'is gone'}`];
        }
        const ms = performance.now() - t0;
        const names = await s.names('tools');
        const problems = [];
        if (!names.includes('ok_echo')) problems.push('ok_echo is not served');
        if (names.some((n) => n.startsWith('nolist_'))) problems.push('nolist is served');
        if (pidsByMarker(mk.nolist).length) problems.push('its server is still running');
        return problems.length ? problems : `initialize after ${ms.toFixed(0)} ms`;
    }, () => s);
    if (s) await end(s);
}

// --- Five crashes in a row: down, said to the client, until SIGHUP. ---

async function crashLoop(mcph) {
    const mk = marker('loop');
    const ws = workspace('loop');
    const modeFile = path.join(ws, 'mode');
    const log = path.join(ws, 'events.log');
    fs.writeFileSync(modeFile, 'normal\n');
    const ini = gatewayIni(ws, { flaky: { command: fakeCommand('normal', mk, '--mode-file mode --log events.log') } });
    let s;
    await step('exit-at-once five times in a row: down, notifications/message level error, calls say "down"', async () => {
        s = await session(mcph, ini, { setLevel: 'warning' });
        fs.writeFileSync(modeFile, 'exit-at-once\n');
        const m = s.mark();
        const t0 = performance.now();
        const r = await tool(s, 'flaky_die', { how: 'exit' });
        expect(r.isError && r.text.includes('exited with status 9'), `the crash itself: ${short(r.msg)}`);
        const alert = (ns) => ns.find((n) => n.method === 'notifications/message' && n.params?.level === 'error' && JSON.stringify(n.params.data).includes('is down'));
        const heard = await s.waitNotes(m, alert, 15000);
        const ms = performance.now() - t0;
        expect(heard, `no notifications/message level error saying "down" within 15 s; notes: ${short(s.since(m).notes, 300)}; stderr: ${s.stderrTail(6)}`);
        const starts = events(log).filter((e) => e.event === 'start').length;
        const problems = [];
        if (starts !== 5) problems.push(`${starts} starts (1, then 4 restarts, were expected)`);
        if (ms < 3500) problems.push(`down after ${ms.toFixed(0)} ms: the backoff (250+500+1000+2000 ms) was not waited`);
        const t1 = performance.now();
        const d = await tool(s, 'flaky_echo', { text: 'x' });
        const callMs = performance.now() - t1;
        if (!d.isError || !/is down/.test(d.text)) problems.push(`a call while down: ${short(d.msg)}`);
        if (callMs > 1000) problems.push(`a call while down took ${callMs.toFixed(0)} ms`);
        // stderr is another pipe: its line may be read after the notification that followed it.
        if (!(await waitFor(() => /is down/.test(s.stderr) || null, 3000))) problems.push('stderr does not say it is down');
        const alertText = JSON.stringify(alert(s.since(m).notes).params.data);
        return problems.length ? problems : `down after ${ms.toFixed(0)} ms and ${starts} starts: ${short(alertText, 120)}; a call: "${short(d.text, 80)}"`;
    }, () => s);
    await step('SIGHUP starts a down server again', async () => {
        expect(s, 'no session');
        fs.writeFileSync(modeFile, 'normal\n');
        const m = s.mark();
        const t0 = performance.now();
        s.hup();
        expect(await reloaded(s, m), noReload(s));
        const r = await tool(s, 'flaky_echo', { text: 'up' }, 20000);
        expect(echoOk(r, 'up'), `after SIGHUP: ${short(r.msg)}`);
        return `serving ${(performance.now() - t0).toFixed(0)} ms after SIGHUP`;
    }, () => s);
    if (s) await end(s);
}

// --- mcph ends: no server left behind. ---

async function noLeftovers(mcph) {
    for (const how of ['stdin EOF', 'SIGTERM', 'SIGKILL']) {
        const mk = marker(`end-${how.replace(/\W/g, '')}`);
        const ws = workspace(`end-${how.replace(/\W/g, '')}`);
        const ini = gatewayIni(ws, { fake: { command: fakeCommand('normal', mk) } });
        let s;
        await step(`mcph ended by ${how} with a call in flight: no server process left`, async () => {
            s = await session(mcph, ini);
            const pid = await waitOneMarker(mk, 5000);
            expect(pid, 'no server process found');
            s.request('tools/call', { name: 'fake_slow', arguments: { ms: 20000 } });
            await sleep(100);
            const t0 = performance.now();
            let exit;
            if (how === 'stdin EOF') exit = await s.stop(10000);
            else {
                s.kill(how);
                exit = await s.wait(10000);
            }
            forgetSession(s);
            const exited = performance.now() - t0; // SIGTERM: the core's grace for the call
            const left = await waitNoMarker(mk, 5000);
            const ms = performance.now() - t0 - exited;
            const problems = [];
            if (left.length) problems.push(`server ${left} still running ${ms.toFixed(0)} ms after mcph exited`);
            if (exit.timedOut) problems.push('mcph did not exit within 10 s');
            if (how !== 'SIGKILL' && (exit.code !== 0 || exit.signal)) problems.push(`mcph exited with ${exit.signal || `status ${exit.code}`}`);
            return problems.length ? problems : `mcph gone after ${exited.toFixed(0)} ms, server ${pid} ${ms.toFixed(0)} ms later`;
        }, () => s);
    }
}

// --- SIGHUP: the section kept, changed, broken. ---

async function reloads(mcph) {
    const mk = marker('hup');
    const ws = workspace('hup');
    const write = (keys) => gatewayIni(ws, { fake: { command: fakeCommand('normal', mk), ...keys } });
    const ini = write({});
    let s;
    let pid1;
    let pid2;
    await step('SIGHUP, section unchanged: the same server process, listed again', async () => {
        s = await session(mcph, ini);
        pid1 = await waitOneMarker(mk, 5000);
        expect(pid1, 'no server process');
        const m = s.mark();
        s.hup();
        expect(await reloaded(s, m), noReload(s));
        const r = await tool(s, 'fake_pid');
        expectEq(pidsByMarker(mk), [pid1], 'server processes after SIGHUP');
        expect(!r.isError && r.text === String(pid1), `fake_pid says ${short(r.msg)}, expected ${pid1}`);
        expect(/reload: fake: rebuild/.test(s.since(m).stderr), `the instance was not rebuilt (listed again): ${short(s.since(m).stderr, 300)}`);
        return `pid ${pid1} kept`;
    }, () => s);
    await step('SIGHUP, section changed: a new server, the old one stopped', async () => {
        expect(s, 'no session');
        write({ env: 'GW_CHANGED=1' });
        const m = s.mark();
        s.hup();
        expect(await reloaded(s, m), noReload(s));
        pid2 = await waitOneMarker(mk, 5000, [pid1]);
        expect(pid2, `not one new server: ${pidsByMarker(mk)} (old ${pid1})`);
        const r = await tool(s, 'fake_pid');
        expect(!r.isError && r.text === String(pid2), `fake_pid says ${short(r.msg)}, expected ${pid2}`);
        return `pid ${pid1} -> ${pid2}`;
    }, () => s);
    await step('SIGHUP, section changed to a failing command: the old server keeps serving', async () => {
        expect(s, 'no session');
        gatewayIni(ws, { fake: { command: fakeCommand('exit-at-once', mk), env: 'GW_CHANGED=2' } });
        const m = s.mark();
        s.hup();
        expect(await reloaded(s, m), noReload(s));
        await sleep(300);
        const r = await tool(s, 'fake_pid');
        const problems = [];
        if (r.isError || r.text !== String(pid2)) problems.push(`fake_pid says ${short(r.msg)}, expected ${pid2}`);
        if (!pidsByMarker(mk).includes(pid2)) problems.push(`the old server ${pid2} is gone`);
        if (!(await s.names('tools')).includes('fake_echo')) problems.push('fake_echo is no longer listed');
        if (!s.since(m).stderr.includes('exited with status 3')) problems.push(`stderr does not say why the new server failed: ${short(s.since(m).stderr, 300)}`);
        return problems.length ? problems : `pid ${pid2} still serving`;
    }, () => s);
    if (s) await end(s);
}

// --- A storm of SIGHUPs under calls. ---

async function reloadStorm(mcph) {
    const mk = marker('storm');
    const ws = workspace('storm');
    const ini = gatewayIni(ws, { fake: { command: fakeCommand('normal', mk) } });
    const HUPS = 30;
    const WORKERS = 6;
    let s;
    await step(`reload storm: ${HUPS} SIGHUPs while calls run through the proxy`, async () => {
        s = await session(mcph, ini, { setLevel: 'error' });
        const pid = await waitOneMarker(mk, 5000);
        expect(pid, 'no server process');
        await tool(s, 'fake_echo', { text: 'warm' });
        await sleep(200);
        const fd0 = fdCount(s.pid);
        const th0 = threadCount(s.pid);
        let stop = false;
        const tally = { ok: 0, wrong: [], lost: 0 };
        const worker = async (w) => {
            for (let i = 0; !stop && i < 2000; i++) {
                const slow = i % 3 === 0;
                const text = `w${w}-${i}`;
                const id = s.request('tools/call', { name: slow ? 'fake_slow' : 'fake_echo', arguments: slow ? { ms: 40 } : { text } });
                const a = await s.answer(id, 20000);
                if (!a) tally.lost++;
                else if (slow ? a.result?.content?.[0]?.text === 'slept 40' : echoOk({ msg: a }, text)) tally.ok++;
                else tally.wrong.push(short(a, 160));
            }
        };
        const running = Array.from({ length: WORKERS }, (_, w) => worker(w));
        const t0 = performance.now();
        for (let i = 0; i < HUPS; i++) {
            s.hup();
            await sleep(60 + (i % 4) * 20);
        }
        await sleep(500);
        stop = true;
        await Promise.all(running);
        const ms = performance.now() - t0;
        await sleep(1500); // the last reload settles: the old instances are unloaded
        const fd1 = fdCount(s.pid);
        const th1 = threadCount(s.pid);
        const pids = pidsByMarker(mk);
        const problems = [];
        if (tally.lost) problems.push(`${tally.lost} calls lost (no answer within 20 s)`);
        if (tally.wrong.length) problems.push(`${tally.wrong.length} wrong answers, e.g. ${tally.wrong[0]}`);
        if (JSON.stringify(pids) !== JSON.stringify([pid])) problems.push(`server processes after the storm: ${pids} (before: ${pid})`);
        if (fd1 !== fd0) problems.push(`mcph's open descriptors ${fd0} before, ${fd1} after`);
        if (!s.alive()) problems.push('mcph died');
        return problems.length ? problems : `${tally.ok} calls in ${(ms / 1000).toFixed(1)} s, 0 lost; fds ${fd0} -> ${fd1}, threads ${th0} -> ${th1}; pid ${pid} kept`;
    }, () => s);
    if (s) await end(s);
}

// --- The server's list_changed, progress, cancellation, logs. ---

async function serverNotes(mcph) {
    const mk = marker('notes');
    const ws = workspace('notes');
    const log = path.join(ws, 'events.log');
    const ini = gatewayIni(ws, { fake: { command: fakeCommand('list-changed', mk, '--log events.log') } });
    let s;
    await step("the server's tools/list_changed: exactly one from mcph, and the new tool listed", async () => {
        s = await session(mcph, ini);
        const w = await s.window(async () => {
            const r = await tool(s, 'fake_grow');
            expect(!r.isError && r.text === 'grew extra_1', `grow: ${short(r.msg)}`);
        }, { after: 500, silence: 400, max: 5000 });
        const problems = [];
        if (JSON.stringify(w.listChanged) !== '["notifications/tools/list_changed"]') problems.push(`list_changed from mcph: ${short(w.listChanged)}`);
        const names = await s.names('tools');
        if (!names.includes('fake_extra_1')) problems.push(`fake_extra_1 is not listed: ${short(names)}`);
        const r = await tool(s, 'fake_extra_1', { text: 'new' });
        if (!echoOk(r, 'new')) problems.push(`fake_extra_1: ${short(r.msg)}`);
        return problems.length ? problems : `${names.length} tools`;
    }, () => s);
    await step('progress from the server reaches the client with its token', async () => {
        expect(s, 'no session');
        const m = s.mark();
        const r = await s.call('tools/call', { name: 'fake_slow', arguments: { ms: 400, steps: 3 }, _meta: { progressToken: 'tok-1' } });
        const prog = s.since(m).notes.filter((n) => n.method === 'notifications/progress');
        const problems = [];
        if (r.result?.content?.[0]?.text !== 'slept 400') problems.push(`result ${short(r)}`);
        if (prog.length !== 3) problems.push(`${prog.length} progress notifications, expected 3: ${short(prog.map((p) => p.params))}`);
        if (prog.some((p, i) => p.params.progressToken !== 'tok-1' || p.params.progress !== i + 1 || p.params.total !== 3)) problems.push(`progress ${short(prog.map((p) => p.params))}`);
        return problems.length ? problems : '3 notifications, token tok-1';
    }, () => s);
    await step('cancellation of a call reaches the server; no answer comes', async () => {
        expect(s, 'no session');
        const id = s.request('tools/call', { name: 'fake_slow', arguments: { ms: 3000 } });
        await sleep(300);
        s.notify('notifications/cancelled', { requestId: id, reason: 'test' });
        const got = await waitFor(() => events(log).some((e) => e.event === 'cancelled'), 3000);
        const a = await s.answer(id, 3500);
        const problems = [];
        if (!got) problems.push('the server never got notifications/cancelled');
        if (a) problems.push(`the cancelled call was answered: ${short(a)}`);
        const r = await tool(s, 'fake_echo', { text: 'after' });
        if (!echoOk(r, 'after')) problems.push(`next call: ${short(r.msg)}`);
        return problems.length ? problems : `server-side request ${events(log).find((e) => e.event === 'cancelled').requestId} cancelled`;
    }, () => s);
    await step("the server's notifications/message reach the client at its level", async () => {
        expect(s, 'no session');
        await s.call('logging/setLevel', { level: 'warning' });
        const m = s.mark();
        await tool(s, 'fake_log', { level: 'info', text: 'quiet' });
        await tool(s, 'fake_log', { level: 'error', text: 'loud' });
        await sleep(300);
        const msgs = s.since(m).messages;
        const problems = [];
        if (!msgs.some((x) => x.level === 'error' && JSON.stringify(x.data).includes('loud'))) problems.push(`no error message "loud": ${short(msgs)}`);
        if (msgs.some((x) => JSON.stringify(x.data).includes('quiet'))) problems.push('an info message passed a warning level');
        return problems.length ? problems : `logger ${msgs.find((x) => x.level === 'error')?.logger}`;
    }, () => s);
    if (s) await end(s);
}

// --- The server's questions (legacy: a request to the client through a call in flight). ---

async function questions(mcph) {
    const mk = marker('ask');
    const ws = workspace('ask');
    const ini = gatewayIni(ws, { fake: { command: fakeCommand('normal', mk) } });
    const sampled = [];
    const onRequest = (msg) => {
        if (msg.method !== 'sampling/createMessage') throw { code: -32601, message: `not asked for ${msg.method}` };
        const t = msg.params?.messages?.[0]?.content?.text;
        sampled.push(t);
        return { role: 'assistant', content: { type: 'text', text: `sampled ${t}` }, model: 'gateway-model' };
    };
    let s;
    let bare;
    await step("the server's sampling request goes to the client through the call, and back", async () => {
        s = await session(mcph, ini, { capabilities: { sampling: {} }, onRequest });
        const r = await tool(s, 'fake_ask', { text: 'one' });
        expect(!r.isError && r.text === 'answer: sampled one', `fake_ask: ${short(r.msg)}`);
        return 'asked and answered';
    }, () => s);
    await step("the server's question while another call is in flight: each call gets its own answer", async () => {
        expect(s, 'no session');
        const slow = s.request('tools/call', { name: 'fake_slow', arguments: { ms: 1500 } });
        await sleep(200);
        const ask = await tool(s, 'fake_ask', { text: 'two' }, 10000);
        const a = await s.answer(slow, 10000);
        const problems = [];
        if (ask.isError || ask.text !== 'answer: sampled two') problems.push(`fake_ask: ${short(ask.msg)}`);
        if (a?.result?.content?.[0]?.text !== 'slept 1500') problems.push(`fake_slow: ${short(a)}`);
        return problems.length ? problems : 'both answered';
    }, () => s);
    await step("the server's question to a client without sampling: refused, the call gets a tool error", async () => {
        bare = await session(mcph, ini, { capabilities: {} });
        const r = await tool(bare, 'fake_ask', { text: 'three' });
        expect(r.isError && r.text.startsWith('refused: '), `fake_ask: ${short(r.msg)}`);
        expect(!bare.requests.length, `mcph asked a client that has no sampling: ${short(bare.requests)}`);
        return `"${r.text}"`;
    }, () => bare);
    if (s) await end(s);
    if (bare) await end(bare);
}

// --- An INI named by a relative path, a command with a relative program. ---

async function relativePaths(mcph) {
    const ws = workspace('relative');
    fs.symlinkSync(mcph, path.join(ws, 'mcph-inner'));
    writeIni(ws, { server: { plugin_dir: PLUGINS }, 'plugin.example': { path: 'example.so' } }, 'inner.ini');
    const ini = gatewayIni(ws, { rel: { command: './mcph-inner inner.ini' } });
    let s;
    await step('an INI named by a relative path: its section\'s relative command starts', async () => {
        s = await session(mcph, path.relative(ROOT, ini), { cwd: ROOT });
        const names = await s.names('tools');
        expect(names.includes('rel_echo'), `rel_echo is not served (${short(names)}); stderr: ${s.stderrTail(3)}`);
        const r = await tool(s, 'rel_echo', { text: 'two hops' });
        expect(!r.isError && r.text === 'two hops', `rel_echo: ${short(r.msg)}`);
        return `${path.relative(ROOT, ini)} from ${ROOT}: rel_echo served`;
    }, () => s);
    if (s) await end(s);
}

export async function run(mcph) {
    await killedMidCall(mcph);
    await startupFailures(mcph);
    await neverLists(mcph);
    await crashLoop(mcph);
    await noLeftovers(mcph);
    await reloads(mcph);
    await reloadStorm(mcph);
    await serverNotes(mcph);
    await questions(mcph);
    await relativePaths(mcph);
}

// One scenario by its function's name (gateway.mjs BINARY faults:NAME).
export async function runOne(name, mcph) {
    const all = { killedMidCall, startupFailures, neverLists, crashLoop, noLeftovers, reloads, reloadStorm, serverNotes, questions, relativePaths };
    if (!all[name]) throw new Error(`no scenario ${name}; one of ${Object.keys(all).join(', ')}`);
    await all[name](mcph);
}
