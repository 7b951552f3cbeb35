// tests/edges/edges.mjs: the pool at its edges, through the real binary.
//
//   node tests/edges/edges.mjs build/mcph
//
// - A client that stops reading stdout: mcph blocks writing its answers; SIGTERM still ends it,
//   within the grace period, the cancel period and a little more (about 7 s), exit status 0.
// - The end of input while a call runs, then SIGTERM: the signal is heard (mcph used to wait
//   for the call whatever came), and a second SIGTERM skips what is left of the grace period.
// - The thread limit: two thread-safe plugins whose shares add up to more than LIMIT_THREADS
//   (128) fill them with slow calls; ping is still answered at once, and every call is
//   answered in the end.
// - A plugin whose init blocks during a reload (hostile.so's block_init_file): SIGTERM still
//   ends mcph, by the watchdog, within LIMIT_SHUTDOWN_WATCHDOG_MS and a margin (about 11 s);
//   a second SIGTERM ends it at once.
// - An upstream (the mcp plugin, tests/edges/deaf-upstream.mjs) that stops reading in the middle
//   of a 1 MiB call, then SIGHUP with its section changed, then SIGTERM: mcph ends within the
//   watchdog's bound (the call's thread blocks in write(), and the reload may wait for it).
// - A client that stops reading while 200 large answers pile up past the output queue's cap
//   (bulk.so, from many threads at once), then SIGHUP with a plugin added (the reload's
//   list_changed), or a ping (answered under the state lock the reload takes) then SIGHUP,
//   then one SIGTERM: the reload is done and the orderly shutdown ends mcph (status
//   0), not the watchdog (status 1, "shutdown did not end").
// - A client that takes no byte of output for LIMIT_OUT_STALL_MS (30 s) while replies wait:
//   it is gone; mcph ends by itself as at the end of input (status 0, no signal), at the
//   deadline and not much later (the threads waiting to write wake then), and says why.
// - A client that stops reading stderr while mcph logs 600 KB there (features.so's log tool),
//   then SIGTERM (or two): mcph ends in order, status 0 (its own lines never wait for a
//   reader; mcph used to block in a log line, then the watchdog and the second signal in
//   theirs, for ever).
// - A plugin served in process that crashes (fault.so: a NULL store, an abort, a stack
//   overflow): mcph dies of the same signal, and stderr names the plugin, the tool and the
//   request id, and says that isolate = process would contain it.
// Every wait is bounded; each check prints "ok NAME" or "FAIL NAME: why", then a count.

import fs from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { describeExit } from '../lib/proc.mjs';
import { Session } from '../lib/session.mjs';
import { report, done } from '../lib/check.mjs';
import { workspace, writeIni, TEST_PLUGINS } from '../lib/workspace.mjs';
import { sanitizersOf, sleep, SANITIZER_REPORT } from '../lib/util.mjs';

const BIN = path.resolve(process.argv[2] || 'build/mcph');
const WORK = workspace('edges');
const check = (name, ok, why) => report(ok, name, why);

function ini(name, text) {
    return writeIni(WORK, `[server]\nname = edges\nplugin_dir = ${TEST_PLUGINS}\n${text}`, name);
}

async function start(conf) {
    const p = new Session(BIN, conf, { timeoutMs: 5000 });
    await p.initialize({ rev: '2025-06-18', clientInfo: { name: 'edges', version: '1' } });
    return p;
}

const call = (id, name, args) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } });

// Stop p with `signals` SIGTERMs (the second 200 ms after the first) and wait for it (at most
// waitMs): how it ended, and the seconds from the first signal.
async function stopTimed(p, signals = 1, waitMs = 16000) {
    const t0 = performance.now();
    p.kill('SIGTERM');
    if (signals === 2) {
        await sleep(200);
        p.kill('SIGTERM');
    }
    const res = await p.wait(waitMs);
    return { res, s: (performance.now() - t0) / 1000 };
}

async function clientStopsReading() {
    const conf = ini('basic.ini', '[plugin.basic]\npath = basic.so\n');
    const p = await start(conf);
    // From here on nothing is read: the pipe and the reading side's buffer fill, then mcph's
    // writes block.
    p.child.stdout.pause();
    const text = 'x'.repeat(60000);
    for (let i = 1; i <= 8; i++) p.send(call(i, 'echo', { text }));
    await sleep(500);
    const { res, s } = await stopTimed(p, 1, 12000);
    check('a client that stops reading: SIGTERM ends mcph', !res.timedOut && res.code === 0,
        `${describeExit(res)} after ${s.toFixed(1)} s`);
    check('... within 9 s', s < 9, `${s.toFixed(1)} s`);
    check('... and says why', /held up|still in flight/.test(p.stderr), p.stderr.split('\n').slice(-3).join(' | '));
}

async function eofThenSignal() {
    const conf = ini('features.ini', '[plugin.basic]\npath = basic.so\n[plugin.features]\npath = features.so\n');
    // An uncancellable 30 s call: the signal must cut it short.
    let p = await start(conf);
    p.send(call(1, 'sleep', { ms: 30000 }));
    await sleep(300);
    p.close();
    await sleep(300);
    let { res, s } = await stopTimed(p, 1, 12000);
    check('end of input, then SIGTERM: mcph ends', !res.timedOut && res.code === 0, describeExit(res));
    check('... within the grace and cancel periods (under 9 s), not the call\'s 30 s', s < 9, `${s.toFixed(1)} s`);
    // A cancellable call: a second SIGTERM cancels it at once.
    p = await start(conf);
    p.send(call(1, 'wait_cancel', { ms: 30000 }));
    await sleep(300);
    p.close();
    p.kill('SIGTERM');
    await sleep(300);
    ({ res, s } = await stopTimed(p, 1, 12000));
    check('a second SIGTERM skips the rest of the grace period', !res.timedOut && res.code === 0 && s < 2,
        `${describeExit(res)} after ${s.toFixed(1)} s`);
}

async function threadLimit() {
    const conf = ini('cap.ini', 'workers = 64\n[plugin.a]\npath = threadsafe.so\nprefix = a\n' +
        '[plugin.b]\npath = threadsafe.so\nprefix = b\n');
    const p = await start(conf);
    const n = 140;
    // Under a sanitizer a thread takes long to start (TSan: 100 of them in well over 400 ms):
    // the calls last longer there, and the count is read until it reaches the limit.
    const callMs = sanitizersOf(BIN).any ? 5000 : 1500;
    for (let i = 0; i < n; i++) p.send(call(100 + i, i % 2 ? 'a_overlap_mt' : 'b_overlap_mt', { ms: callMs }));
    const countThreads = () => fs.readdirSync(`/proc/${p.child.pid}/task`).length;
    await sleep(400);
    let threads = countThreads();
    for (const until = performance.now() + callMs - 1000; threads < 100 && performance.now() < until;) {
        await sleep(50);
        threads = countThreads();
    }
    // LIMIT_THREADS (128) pool threads, the main thread, the shutdown watchdog and one spare (a
    // sanitizer's own).
    check('the slow calls take the threads up to the limit', threads >= 100 && threads <= 131, `${threads} threads`);
    const t0 = performance.now();
    const pong = await p.answer(p.request('ping'), 2000);
    const ms = performance.now() - t0;
    // At once: well before any slow call ends (a sanitizer build is still starting threads).
    const atOnce = sanitizersOf(BIN).any ? 1000 : 200;
    check('at the thread limit, ping is answered at once', pong !== null && ms < atOnce, `${pong ? ms.toFixed(0) + ' ms' : 'no answer in 1 s'}`);
    let all = 0;
    for (let i = 0; i < n; i++) {
        const m = await p.answer(100 + i, callMs + 6500);
        if (m && m.result) all++;
    }
    check('... and every slow call is answered', all === n, `${all} of ${n}`);
    p.close();
    const res = await p.wait(8000);
    check('... and mcph exits at the end of input', res.code === 0, describeExit(res));
}

// LIMIT_SHUTDOWN_WATCHDOG_MS and a margin; TSan may hold the first signal a while (until the
// thread that takes it reaches one of its safe points).
const WATCHDOG_S = sanitizersOf(BIN).any ? 14 : 12.5;

// A reload whose plugin init never returns: the main thread is inside it, not reading the
// signal pipe.
async function stuckReload(signals) {
    const marker = path.join(WORK, `block-init-${signals}`);
    fs.rmSync(marker, { force: true });
    const conf = ini(`stuck-${signals}.ini`, `[plugin.hostile]\npath = hostile.so\nblock_init_file = ${marker}\n`);
    const p = await start(conf);
    fs.writeFileSync(marker, '');
    // An instance added by the reload: its init runs (and blocks).
    fs.appendFileSync(conf, `\n[plugin.hostile2]\npath = hostile.so\nprefix = h2\nblock_init_file = ${marker}\n`);
    p.hup();
    for (const until = performance.now() + 3000; !/init blocks/.test(p.stderr) && performance.now() < until;) await sleep(50);
    const name = signals === 1 ? 'a reload stuck in a plugin\'s init' : 'a reload stuck in init, two SIGTERMs';
    check(`${name}: the reload is inside the init`, /init blocks/.test(p.stderr), p.stderrTail(3));
    const { res, s } = await stopTimed(p, signals);
    if (signals === 1) {
        check(`${name}: SIGTERM ends mcph`, !res.timedOut && res.code === 1, `${describeExit(res)} after ${s.toFixed(1)} s`);
        check('... within the watchdog\'s 10.2 s and a margin', s < WATCHDOG_S, `${s.toFixed(1)} s`);
        check('... and says why', /shutdown did not end/.test(p.stderr), p.stderrTail(2));
    } else {
        // TSan holds a signal until the thread that takes it reaches one of its safe points.
        const atOnce = sanitizersOf(BIN).any ? 4 : 1.5;
        check(`${name}: the second one ends mcph at once`, !res.timedOut && res.code === 0 && s < atOnce,
            `${describeExit(res)} after ${s.toFixed(1)} s`);
        check('... and says so', /second stop signal/.test(p.stderr), p.stderrTail(2));
    }
    fs.rmSync(marker, { force: true });
}

// The first case: a call's thread blocked writing to a deaf upstream, then a reload.
async function deafUpstream() {
    const plugins = path.resolve(path.dirname(BIN), 'plugins');
    fs.copyFileSync(path.join(path.dirname(new URL(import.meta.url).pathname), 'deaf-upstream.mjs'), path.join(WORK, 'deaf.mjs'));
    const conf = writeIni(WORK, `[server]\nname = edges\nplugin_dir = ${plugins}\n` +
        `[plugin.up]\npath = mcp.so\nprefix = up\ncommand = ${process.execPath} deaf.mjs\n`, 'deaf.ini');
    const p = await start(conf);
    p.send(call('big', 'up_take', { pad: 'x'.repeat(1 << 20) }));
    await sleep(500);
    p.hup();
    await sleep(500);
    const { res, s } = await stopTimed(p);
    check('a call blocked writing to a deaf upstream, then SIGHUP: SIGTERM ends mcph', !res.timedOut,
        `${describeExit(res)} after ${s.toFixed(1)} s; ${p.stderrTail(3)}`);
    check('... within the watchdog\'s 10.2 s and a margin', s < WATCHDOG_S, `${s.toFixed(1)} s`);
}

// A client that stopped reading while 200 answers of 60000 bytes (each under the size written
// in place) come from many threads at once (bulk.so): they fill the output queue past its cap
// (LIMIT_OUT_PENDING_BYTES, 8 MiB), and the threads that answer wait for room.
async function pileUp(name) {
    const conf = ini(name, 'workers = 64\n[plugin.bulk]\npath = bulk.so\n');
    const p = await start(conf);
    p.child.stdout.pause();
    for (let i = 1; i <= 200; i++) p.send(call(i, 'bulk', { ms: 200, bytes: 60000 }));
    await sleep(1000);
    return { p, conf };
}

// how: 'notify' adds a plugin (the reload sends list_changed under the state lock), 'ping'
// sends a ping first (answered under the state lock that the reload then takes).
async function stalledReload(how) {
    const { p, conf } = await pileUp(`stalled-${how}.ini`);
    if (how === 'notify') fs.appendFileSync(conf, '\n[plugin.more]\npath = threadsafe.so\nprefix = more\n');
    else p.send({ jsonrpc: '2.0', id: 'ping', method: 'ping' });
    await sleep(300);
    p.hup();
    await sleep(700);
    const { res, s } = await stopTimed(p);
    const name = how === 'notify' ? 'a stalled client, then a reload that changes the lists' :
        'a stalled client, a ping, then a reload';
    check(`${name}: one SIGTERM ends mcph in order (status 0)`,
        !res.timedOut && res.code === 0 && !/shutdown did not end/.test(p.stderr),
        `${describeExit(res)} after ${s.toFixed(1)} s; ${p.stderrTail(3)}`);
    check(`... before the watchdog (under 9 s) (${how})`, s < 9, `${s.toFixed(1)} s`);
    check(`... and the reload was done (${how})`, /reload: serving/.test(p.stderr), p.stderrTail(3));
}

const stalledReloadNotify = () => stalledReload('notify');
const stalledReloadPing = () => stalledReload('ping');

async function stalledGone() {
    const { p } = await pileUp('stalled-gone.ini');
    const t0 = performance.now() - 1000;
    const res = await p.wait(45000);
    const s = (performance.now() - t0) / 1000;
    // From the last byte taken (before the first second's end) to the exit; a sanitizer build
    // shuts down slower.
    const margin = sanitizersOf(BIN).any ? 8 : 4;
    check('a client that takes no output for 30 s is gone: mcph ends by itself (status 0)',
        !res.timedOut && res.code === 0 && res.signal == null, `${describeExit(res)} after ${s.toFixed(1)} s; ${p.stderrTail(3)}`);
    check('... not before the limit (slow is not gone), and at it', s >= 29 && s < 31 + margin, `${s.toFixed(1)} s`);
    check('... and says why', /took no output for 30 s/.test(p.stderr), p.stderrTail(3));
    check('... the waiting threads woke (no call abandoned)', !res.timedOut && !/abandoned|held up/.test(p.stderr), p.stderrTail(3));
}

async function deafStderr(signals) {
    const conf = ini(`deaf-stderr-${signals}.ini`, '[plugin.features]\npath = features.so\n');
    const p = await start(conf);
    p.child.stderr.pause();
    const text = 'z'.repeat(3000);
    for (let i = 1; i <= 200; i++) p.send(call(i, 'log', { level: 'error', text }));
    // The answers still come: only stderr is not read.
    const last = await p.answer(200, 5000);
    const { res, s } = await stopTimed(p, signals);
    const name = `a client that does not read stderr, ${signals === 1 ? 'SIGTERM' : 'two SIGTERMs'}`;
    check(`${name}: the calls are answered`, last !== null && last.result !== undefined, JSON.stringify(last).slice(0, 200));
    check(`${name}: mcph ends (status 0)`, !res.timedOut && res.code === 0, `${describeExit(res)} after ${s.toFixed(1)} s`);
    check(`... in order, before the watchdog (under 9 s) (${signals})`, s < 9, `${s.toFixed(1)} s`);
}

const deafStderrOne = () => deafStderr(1);
const deafStderrTwo = () => deafStderr(2);
const stuckReloadOne = () => stuckReload(1);
const stuckReloadTwo = () => stuckReload(2);

// A crash in a plugin served in process: the same death, with a line that says where.
async function crashInProcess() {
    const conf = ini('crash.ini', '[plugin.faulty]\npath = fault.so\nprefix = f\n');
    // Under UBSan the NULL store is the sanitizer's to report (the plugin is built with it):
    // it ends mcph itself, before any signal.
    const cases = [['abort', 'SIGABRT'], ['stack', 'SIGSEGV']];
    if (!sanitizersOf(BIN).undefined) cases.unshift(['null', 'SIGSEGV']);
    for (const [how, signal] of cases) {
        const p = await start(conf);
        p.send(call(`crash-${how}`, 'f_crash', { how }));
        const res = await p.wait(15000);
        // A fault goes back to the action it had before mcph's line: under ASan or TSan that
        // is the sanitizer's own report, which ends the process with a status of its own.
        const reported = sanitizersOf(BIN).address || sanitizersOf(BIN).thread;
        if (reported && signal === 'SIGSEGV')
            check(`a crash in process (${how}): the sanitizer reports it after mcph's line`,
                res.code !== 0 && res.code !== null && SANITIZER_REPORT.test(p.stderr), describeExit(res));
        else
            check(`a crash in process (${how}): mcph dies of ${signal}`, res.signal === signal, describeExit(res));
        const line = p.stderr.split('\n').find((l) => /in plugin 'faulty'/.test(l)) || '';
        check(`... stderr names the plugin, the tool and the request (${how})`,
            line.includes(signal) && line.includes("tool 'f_crash'") && line.includes('request id "crash-' + how + '"'),
            line || p.stderrTail(3));
        check(`... and says isolate = process would contain it (${how})`, /isolate = process/.test(line), line);
    }
}

for (const t of [clientStopsReading, stalledReloadNotify, stalledReloadPing, stalledGone, eofThenSignal,
    threadLimit, stuckReloadOne, stuckReloadTwo, deafUpstream, deafStderrOne, deafStderrTwo, crashInProcess]) {
    try {
        await t();
    } catch (err) {
        check(t.name, false, err.message);
    }
}
done();
