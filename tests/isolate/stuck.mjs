#!/usr/bin/env node
// isolate = process with a child that stops reading: SIGSTOPped, then sent a call of 1 MiB
// (more than a pipe holds). `make test-isolate` runs it.
//
//   node tests/isolate/stuck.mjs [BINARY]      BINARY: build/mcph
//
// call_timeout_ms fires although the request itself cannot be written (the call gets
// "plugin 'faulty' did not answer within N ms (call_timeout_ms)", and the plugin serves again
// from a new child); with a long call_timeout_ms, a SIGHUP ends and SIGTERM ends mcph while
// the write waits. Prints "ok isolate ..." / "FAIL isolate ...: why", then "isolate stuck: N
// passed, N failed".

import { performance } from 'node:perf_hooks';
import { check, report, done, expect } from '../lib/check.mjs';
import { sleep, short } from '../lib/util.mjs';
import { workspace } from '../lib/workspace.mjs';
import { describeExit } from '../lib/proc.mjs';
import { endSession, endSessions, forgetSession, killMarker } from '../gateway/common.mjs';
import { SAN, CALL_TIMEOUT_MS, isolateIni, toolErrorProblems, okPid, children, strayReports, start } from './common.mjs';

const LIMIT_MS = SAN.any ? 120000 : 60000;
const slack = SAN.any ? 5000 : 1500;
const inis = [];
const BIG = 'x'.repeat(1 << 20);

function ini(name, more) {
    const file = isolateIni(workspace('isolate', name), more);
    inis.push(file);
    return file;
}

const okCall = (s, text, ms = 20000) => s.call('tools/call', { name: 'f_ok', arguments: { text } }, ms);

// Problems of the session: protocol, and sanitizer reports in its stderr.
const problems = (s) => (s ? [...s.problems(), ...strayReports(s.stderr).map((r) => `sanitizer: ${r}`)] : []);

async function stoppedChild() {
    const file = ini('stuck-timeout');
    let s;
    await check('isolate stuck: a stopped child sent a 1 MiB call: call_timeout_ms fires, then a new child serves', async () => {
        s = await start(file);
        const pid0 = okPid(await okCall(s, 'a'), 'a');
        expect(pid0, 'f_ok did not answer with a pid');
        process.kill(pid0, 'SIGSTOP');
        const t0 = performance.now();
        const r = await okCall(s, BIG, CALL_TIMEOUT_MS + slack + 3000).catch((e) => ({ thrown: e.message }));
        const ms = performance.now() - t0;
        expect(!r.thrown, `${r.thrown} (the call writes to a child that does not read)`);
        const bad = toolErrorProblems('the 1 MiB call', r, 'call_timeout_ms');
        expect(bad.length === 0, bad.join('; '));
        expect(ms < CALL_TIMEOUT_MS + slack, `answered after ${ms.toFixed(0)} ms, call_timeout_ms is ${CALL_TIMEOUT_MS}`);
        const pid1 = okPid(await okCall(s, 'b'), 'b');
        expect(pid1 && pid1 !== pid0, `after the time-out f_ok answered from pid ${pid1} (the stopped one was ${pid0})`);
        const st = await endSession(s);
        expect(st.code === 0 && !st.timedOut, `mcph at the end of input: ${describeExit(st)}`);
        const p = problems(s);
        return p.length ? p : `time-out after ${ms.toFixed(0)} ms; pid ${pid0} -> ${pid1}`;
    });
}

async function stoppedChildReload() {
    const file = ini('stuck-reload', { faulty: { call_timeout_ms: 60000 } });
    let s;
    await check('isolate stuck: a stopped child, a 1 MiB call, SIGHUP, then SIGTERM twice: mcph exits at once', async () => {
        s = await start(file);
        const pid0 = okPid(await okCall(s, 'a'), 'a');
        expect(pid0, 'f_ok did not answer with a pid');
        process.kill(pid0, 'SIGSTOP');
        s.request('tools/call', { name: 'f_ok', arguments: { text: BIG } });
        await sleep(300);
        const ping = await s.ping(2000);
        expect(ping !== null, 'no answer to ping while the call waits');
        const m = s.mark();
        s.hup();
        await s.waitFor(() => /reload: serving|reload refused|reload: .*failed/.test(s.since(m).stderr) || s.exited, 10000);
        expect(/reload: serving|reload refused|reload: .*failed/.test(s.since(m).stderr), `the reload did not end within 10 s: ${short(s.stderrTail(3), 300)}`);
        const t0 = performance.now();
        s.kill('SIGTERM');
        await sleep(200);
        s.kill('SIGTERM');
        const st = await s.wait(3000 + slack);
        forgetSession(s);
        const ms = performance.now() - t0;
        expect(!st.timedOut, `mcph still ran ${(ms / 1000).toFixed(1)} s after two SIGTERMs`);
        const left = children(file, 'faulty');
        expect(left.length === 0, `the stopped child is left: ${left}`);
        const p = problems(s);
        return p.length ? p : `reload ended; exit (${describeExit(st)}) ${ms.toFixed(0)} ms after SIGTERM`;
    });
}

const watchdog = setTimeout(() => {
    report(false, 'isolate stuck suite', `did not finish within ${LIMIT_MS / 1000} s`);
    endSessions();
    for (const f of inis) killMarker(f);
    done('isolate stuck');
}, LIMIT_MS);

const t0 = Date.now();
try {
    await stoppedChild();
    await stoppedChildReload();
} catch (err) {
    report(false, 'isolate stuck suite', `threw: ${err?.stack || err}`);
} finally {
    endSessions();
    for (const f of inis) {
        for (const pid of children(f)) {
            try {
                process.kill(pid, 'SIGCONT');
            } catch {
                // gone
            }
        }
        killMarker(f);
    }
    clearTimeout(watchdog);
}
done('isolate stuck', ` in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
