#!/usr/bin/env node
// Nothing left behind: ten mcp sections, each server started through a launcher (sh -c, env, a
// shell script) as tests/gateway/fake-server.mjs in mode launcher, which starts a process in a
// session of its own and one in a process group of its own. Every process of a tree carries
// its section's marker in its environment (the section's env key), so the whole tree is found
// in /proc, whatever its command line. `make test-gateway` runs it.
//
//   node tests/gateway/launchers.mjs [BINARY]      BINARY: build/mcph
//
// No process of any tree is left within a deadline after mcph is killed with SIGKILL, after
// the end of its input, and after SIGTERM; a reload (SIGHUP) that removes five sections ends
// those five trees and keeps the other five (the same processes); and the three ends again with
// every section confined (read, exec, network = no: each process of the trees is seen to run
// with no_new_privs and a seccomp filter). Prints "ok gateway ..." /
// "FAIL gateway ...: why" lines, then "gateway launchers: N passed, N failed"; exits 1 on a
// failure.

import fs from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { done, report, expect } from '../lib/check.mjs';
import { describeExit } from '../lib/proc.mjs';
import {
    NODE, ROOT, workspace, gatewayIni, startSession, endSession, forgetSession, step, markerSet,
    pidsByMarker, waitFor, short,
} from './common.mjs';

const LIMIT_MS = 150000;
const SECTIONS = 10;
const GONE_MS = 5000; // the deadline for a tree to end
const VAR = 'MCPH_TEST_TREE';
const mcph = path.resolve(process.argv[2] || 'build/mcph');
const { marker, cleanup: cleanMarkers } = markerSet();

// Live processes (zombies left out) whose environment has VAR set to a value starting with
// prefix: { pid, value } each.
function pidsByEnv(prefix) {
    const out = [];
    const want = `${VAR}=${prefix}`;
    for (const e of fs.readdirSync('/proc')) {
        if (!/^\d+$/.test(e)) continue;
        let env;
        let stat;
        try {
            env = fs.readFileSync(`/proc/${e}/environ`, 'latin1');
            stat = fs.readFileSync(`/proc/${e}/stat`, 'latin1');
        } catch {
            continue; // gone, or not ours
        }
        if (stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) === 'Z') continue;
        const v = env.split('\0').find((x) => x.startsWith(want));
        if (v) out.push({ pid: Number(e), value: v.slice(VAR.length + 1) });
    }
    return out;
}

function killTrees(prefix) {
    for (const { pid } of pidsByEnv(prefix)) {
        try {
            process.kill(pid, 'SIGKILL');
        } catch {
            // gone
        }
    }
}

const made = []; // every prefix used, for the clean-up
function cleanup() {
    cleanMarkers();
    for (const p of made) killTrees(p);
}

// A shell script that runs the server as its child (no exec): a launcher that stays.
const SCRIPT = '#!/bin/sh\n# starts the server and waits for it, as a launcher would\n"$@"\nexit $?\n';

// The command of section i: one of three launchers, each starting the fake server as a child.
function launcherCommand(i, mk) {
    const fake = `${NODE} fake.mjs launcher --marker ${mk}`;
    if (i % 3 === 0) return `sh -c '${fake}; echo launcher: the server ended >&2'`;
    if (i % 3 === 1) return `env LAUNCHER=env ${fake}`;
    return `/bin/sh launch.sh ${fake}`;
}

// A workspace and INI with SECTIONS launcher sections (t0 ... t9) whose trees carry
// `${prefix}-${i}.`; keep(i) says which sections the INI holds.
function setup(name, keep = () => true, extra = () => ({})) {
    const ws = workspace(`launchers-${name}`);
    const base = marker(`tree-${name}`);
    made.push(base);
    fs.writeFileSync(path.join(ws, 'launch.sh'), SCRIPT);
    const write = (which) => {
        const sections = {};
        for (let i = 0; i < SECTIONS; i++) {
            if (!which(i)) continue;
            const mk = `${base}-${i}.`;
            sections[`t${i}`] = { command: launcherCommand(i, mk), env: `${VAR}=${mk}`, tools: 'echo pid', resources: '!*', prompts: '!*', ...extra(i) };
        }
        return gatewayIni(ws, sections);
    };
    return { ws, base, ini: write(keep), write };
}

// The server of a tree: the node process with the marker (a launcher may carry it too).
function serverOf(mk) {
    return pidsByMarker(mk).filter((pid) => {
        try {
            return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0')[0] === NODE;
        } catch {
            return false;
        }
    });
}

// The processes of tree i that live as long as it does: its server, its session loop and its
// group loop (their sleep children come and go).
const steady = (base, i) => [...serverOf(`${base}-${i}.`), ...pidsByMarker(`${base}-${i}.-session`), ...pidsByMarker(`${base}-${i}.-group`)];

// Whether every tree runs whole.
function treesUp(base) {
    for (let i = 0; i < SECTIONS; i++) {
        if (steady(base, i).length !== 3) return false;
    }
    return true;
}

// The processes of tree i (sorted pids).
const treeOf = (base, i) => pidsByEnv(`${base}-${i}.`).map((p) => p.pid).sort((a, b) => a - b);

async function startTrees(ini, base) {
    const s = await startSession(mcph, ini, { initMs: 60000 });
    const up = await waitFor(() => treesUp(base), 15000, 50);
    const all = pidsByEnv(`${base}-`);
    return { s, up, all };
}

// The confinement keys of a section whose server, its launcher and what it starts read the
// fake server and the workspace, run what /usr/bin and /bin hold, and open no socket.
const CONFINED = { read: `${path.join(ROOT, 'tests/gateway')} .`, exec: '/usr/bin /bin', network: 'no' };

// Whether a process runs confined (no_new_privs and a seccomp filter): '' or what is not.
function unconfined(pid) {
    try {
        const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
        return /^NoNewPrivs:\s+1$/m.test(status) && /^Seccomp:\s+2$/m.test(status) ? '' : `${pid} is not confined`;
    } catch {
        return `${pid} is gone`;
    }
}

// Ending mcph one way; then no process of any tree may be left within GONE_MS.
async function ending(how, confined = false) {
    const { base, ini } = setup(`${how.replace(/\W+/g, '-')}${confined ? '-confined' : ''}`, () => true, () => (confined ? CONFINED : {}));
    let s;
    await step(`launchers: ${SECTIONS} ${confined ? 'confined ' : ''}servers through sh -c, env and a script, each with a setsid child and a new process group: none is left ${GONE_MS / 1000} s after ${how}`, async () => {
        const started = await startTrees(ini, base);
        s = started.s;
        expect(started.up, `the ${SECTIONS} trees did not all start: ${pidsByEnv(`${base}-`).length} processes; ${s.stderrTail(3)}`);
        if (confined) {
            const not = started.all.map((p) => unconfined(p.pid)).filter((w) => w && !/gone/.test(w));
            expect(not.length === 0, `processes of the trees run unconfined: ${not.slice(0, 5)}`);
        }
        const r = await s.tool('t4_pid', {}, 5000);
        expect(/^\d+$/.test(r.text), `a call through a launcher: ${short(r.msg)}`);
        const t0 = performance.now();
        let st;
        if (how === 'end of input') {
            st = await endSession(s);
        } else {
            s.kill(how);
            st = await s.wait(15000);
            forgetSession(s);
        }
        const gone = await waitFor(() => pidsByEnv(`${base}-`).length === 0, GONE_MS, 20);
        const left = pidsByEnv(`${base}-`);
        expect(gone, `${left.length} processes left: ${left.slice(0, 6).map((p) => `${p.pid} (${p.value})`).join(', ')}`);
        if (how !== 'SIGKILL') expect(st.code === 0 && !st.timedOut, `mcph's exit: ${describeExit(st)}; ${s.stderrTail(3)}`);
        return `${started.all.length} processes in ${SECTIONS} trees; all gone ${(performance.now() - t0).toFixed(0)} ms after ${how} (mcph: ${describeExit(st)})`;
    }, () => s);
}

// A reload that removes five sections ends their trees and keeps the others' processes.
async function reloadAway() {
    const { base, ini, write } = setup('reload');
    let s;
    await step(`launchers: a reload (SIGHUP) that removes 5 of ${SECTIONS} launcher sections ends those 5 trees within ${GONE_MS / 1000} s and keeps the other 5 as they were`, async () => {
        const started = await startTrees(ini, base);
        s = started.s;
        expect(started.up, `the ${SECTIONS} trees did not all start: ${pidsByEnv(`${base}-`).length} processes`);
        const kept = (i) => i % 2 === 0;
        const servers = {};
        for (let i = 0; i < SECTIONS; i++) if (kept(i)) servers[i] = steady(base, i);
        write(kept);
        const m = s.mark();
        s.hup();
        await s.waitFor(() => /reload: serving/.test(s.since(m).stderr) || /reload refused/.test(s.since(m).stderr) || s.exited, 15000);
        expect(/reload: serving/.test(s.since(m).stderr), `the reload: ${short(s.since(m).stderr, 300)}`);
        const removedGone = () => [1, 3, 5, 7, 9].every((i) => treeOf(base, i).length === 0);
        const gone = await waitFor(removedGone, GONE_MS, 20);
        expect(gone, `left of the removed sections: ${[1, 3, 5, 7, 9].map((i) => `t${i}: ${treeOf(base, i)}`).join('; ')}`);
        for (let i = 0; i < SECTIONS; i++) {
            if (!kept(i)) continue;
            const now = steady(base, i);
            expect(JSON.stringify(now) === JSON.stringify(servers[i]), `t${i}'s server, session child and group child were ${servers[i]}, now ${now}`);
        }
        const r = await s.tool('t0_echo', { text: 'kept' }, 5000);
        expect(r.text === 'echo: kept', `a kept section's call: ${short(r.msg)}`);
        const names = (await s.list('tools')).map((t) => t.name);
        expect(!names.some((n) => /^t[13579]_/.test(n)), `removed sections still listed: ${names}`);
        const st = await endSession(s);
        expect(await waitFor(() => pidsByEnv(`${base}-`).length === 0, GONE_MS, 20), `left after the end of input: ${pidsByEnv(`${base}-`).map((p) => p.pid)}`);
        expect(st.code === 0, `mcph's exit: ${describeExit(st)}`);
        return `t1, t3, t5, t7, t9 gone; t0, t2, t4, t6, t8 the same ${Object.keys(servers).length * 3} processes`;
    }, () => s);
}

const watchdog = setTimeout(() => {
    report(false, 'gateway launchers suite', `did not finish within ${LIMIT_MS / 1000} s`);
    cleanup();
    done('gateway launchers');
}, LIMIT_MS);

const t0 = Date.now();
try {
    for (const how of ['SIGKILL', 'end of input', 'SIGTERM']) await ending(how);
    await reloadAway();
    for (const how of ['SIGKILL', 'end of input', 'SIGTERM']) await ending(how, true);
} catch (err) {
    report(false, 'gateway launchers suite', `threw: ${err?.stack || err}`);
} finally {
    cleanup();
    clearTimeout(watchdog);
}
done('gateway launchers', ` in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
