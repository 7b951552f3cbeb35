// A remote upstream that goes away and comes back, through mcph's url sections (the relay,
// `mcph --remote SECTION`, restarted by the client engine with its backoff):
//   - an upstream mcph killed (SIGKILL) during a call: the call in flight gets a tool error
//     that names the section, at once (not after call_timeout_ms); the upstream started again
//     on the same port is served again without a reload, within the backoff (250 ms first,
//     doubling to 16 s; served within twice the last one announced before it came back);
//   - an upstream that is down when mcph starts: mcph starts anyway, serves its other section,
//     warns naming the section; once the upstream comes up its tools are served and
//     notifications/tools/list_changed is sent;
//   - mcph ends cleanly at the end of input, no sanitizer report (mcph's or the upstream's).
//
//   node tests/remote/restart.mjs [build/mcph]

import { performance } from 'node:perf_hooks';
import { check } from '../lib/check.mjs';
import { startSession, endSession } from '../gateway/common.mjs';
import {
    binary, slowFactor, workspace, upstreamIni, frontIni, LOOPBACK, freePort, startUpstream,
    restartUpstream, stderrProblems, short, sleep, waitFor, runSuite } from './common.mjs';

const mcph = binary();
const SLOW = slowFactor(mcph);
const BACKOFF_BOUND_MS = 20000 * SLOW; // the longest backoff (16 s) and a start
const ws = workspace('restart');
const upIni = upstreamIni(ws);

const echo = async (s, prefix, text, ms = 5000 * SLOW) => {
    try {
        const r = await s.tool(`${prefix}_echo`, { text }, ms);
        return !r.error && !r.isError && r.text === text ? r : null;
    } catch {
        return null;
    }
};

async function main() {
    const up = await startUpstream(mcph, upIni, 'upstream', 0, 10000 * SLOW);
    const latePort = await freePort();
    // rst: up now. late: nothing on its port yet.
    const ini = frontIni(ws, {
        rst: { url: up.url, ...LOOPBACK, startup_timeout_ms: 5000 * SLOW },
        late: { url: `http://127.0.0.1:${latePort}/mcp`, ...LOOPBACK, startup_timeout_ms: 2000 * SLOW },
    });
    let s = null;
    let killed = null; // where stderr was when the upstream was killed
    let late = null;
    let up2 = null;

    await check('remote restart: mcph starts with one upstream down, serves the other, warns naming it', async () => {
        s = await startSession(mcph, ini, { initMs: 30000 * SLOW });
        const names = await s.names('tools');
        const problems = [];
        if (!names.includes('rst_echo')) problems.push(`rst_echo not listed: ${short(names)}`);
        if (names.some((n) => n.startsWith('late_'))) problems.push(`late's tools listed while it is down: ${short(names)}`);
        const warn = s.stderr.split('\n').filter((l) => /warn|error/i.test(l) && /\blate\b/.test(l));
        if (!warn.length) problems.push(`no warning naming 'late' on stderr: ${short(s.stderrTail(6), 400)}`);
        if (!(await echo(s, 'rst', 'first'))) problems.push('rst_echo did not answer');
        return problems.length ? problems : `tools ${names.length}; "${short(warn[0], 120)}"`;
    }, { problems: () => (s ? s.problems() : []) });
    if (!s || s.exited) return;

    await check('remote restart: a call in flight when the upstream is killed gets a tool error naming the section, at once', async () => {
        const id = s.request('tools/call', { name: 'rst_sleep', arguments: { ms: 8000 } });
        await sleep(400 * SLOW);
        const t0 = performance.now();
        killed = s.mark();
        await up.stop('SIGKILL', 5000);
        const a = await s.answer(id, 6000 * SLOW);
        const ms = performance.now() - t0;
        if (!a) return [`no answer within ${6000 * SLOW} ms of the upstream's SIGKILL (the sleep would end at 8 s)`];
        const text = a.error ? a.error.message : (a.result?.content || []).map((c) => c.text).join(' ');
        const problems = [];
        if (!a.error && a.result?.isError !== true) problems.push(`not an error: ${short(a)}`);
        if (!/\brst\b/.test(text)) problems.push(`the error does not name the section 'rst': ${short(text, 300)}`);
        if (ms > 3000 * SLOW) problems.push(`the error came ${ms.toFixed(0)} ms after the kill, not at once`);
        return problems.length ? problems : `${ms.toFixed(0)} ms after the kill: "${short(text, 140)}"`;
    });

    await check('remote restart: the upstream started again on its port is served again within the backoff, without a reload', async () => {
        const m = s.mark();
        up2 = await restartUpstream(mcph, upIni, 'upstream-again', up.port, 10000 * SLOW);
        const t0 = performance.now();
        const ok = await waitFor(() => echo(s, 'rst', 'again', 2000 * SLOW), BACKOFF_BOUND_MS, 100);
        const ms = performance.now() - t0;
        if (!ok) return [`rst_echo not served within ${BACKOFF_BOUND_MS} ms of the restart: ${short(s.stderrTail(6), 400)}`];
        if (/reload/i.test(s.since(m).stderr)) return [`a reload was logged: ${short(s.since(m).stderr, 300)}`];
        // The backoff announced since the kill ("trying again in N ms"): it starts at 250 ms and
        // doubles; the upstream is served again within twice the last one announced before it
        // came back (and some time to start the relay). None announced: the relay outlived the
        // cut request (a sessionless upstream loses nothing) and serves at once.
        const waits = [...s.since(killed).stderr.matchAll(/plugin rst: .*trying again in (\d+) ms/g)].map((x) => Number(x[1]));
        const before = [...s.stderr.slice(killed.stderr, m.stderr).matchAll(/plugin rst: .*trying again in (\d+) ms/g)].map((x) => Number(x[1]));
        const problems = [];
        if (waits.length && waits[0] !== 250) problems.push(`the first backoff after the kill was ${waits[0]} ms, not 250 (announced: ${short(waits)})`);
        const bound = (waits.length ? Math.max(...before, 250) * 2 : 0) + 1000 * SLOW;
        if (ms > bound) problems.push(`served again ${ms.toFixed(0)} ms after the upstream came back, past its backoff (${short(before)} ms announced before)`);
        return problems.length ? problems : `served again ${ms.toFixed(0)} ms after the upstream listened again (${waits.length ? `backoffs ${short(waits)} ms` : 'the relay outlived the kill'})`;
    });

    await check('remote restart: an upstream down at start is served once it comes up, with list_changed', async () => {
        const m = s.mark();
        late = await restartUpstream(mcph, upIni, 'late', latePort, 10000 * SLOW);
        const t0 = performance.now();
        const changed = await s.waitNotes(m, (ns) => ns.some((n) => n.method === 'notifications/tools/list_changed'), BACKOFF_BOUND_MS);
        const ms = performance.now() - t0;
        const names = await s.names('tools');
        const problems = [];
        if (!changed) problems.push(`no notifications/tools/list_changed within ${BACKOFF_BOUND_MS} ms`);
        if (!names.includes('late_echo')) problems.push(`late_echo not listed: ${short(names)}`);
        else if (!(await echo(s, 'late', 'late'))) problems.push('late_echo did not answer');
        return problems.length ? problems : `listed ${ms.toFixed(0)} ms after it came up`;
    });

    await check('remote restart: mcph ends cleanly at the end of input; no sanitizer report', async () => {
        const st = await endSession(s);
        const problems = [...s.problems(), ...stderrProblems('mcph', s.stderr)];
        if (st.code !== 0 || st.timedOut) problems.push(`mcph: ${st.timedOut ? 'did not exit within the limit' : `exit ${st.signal || st.code}`}`);
        for (const u of [up, up2, late].filter(Boolean)) {
            if (u !== up) {
                const r = await u.stop('SIGTERM', 10000 * SLOW);
                if (r.code !== 0) problems.push(`${u.name}: exit ${r.signal || r.code} after SIGTERM`);
            }
            problems.push(...stderrProblems(u.name, u.stderr));
        }
        return problems;
    });
}

await runSuite('restart', main, 120000 * SLOW);
