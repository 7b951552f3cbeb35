// Reload soak: node tests/reload/soak.mjs build/mcph [reloads=200]
//
// One mcph serving basic + reloadable; RELOADS reloads (SIGHUP) spaced 10-20 ms, alternating
// config A (basic, reloadable label = a) and config B (basic, reloadable label = b,
// threadsafe), and every 20th reload also a rebuilt reloadable.so (renamed into place), while
// 4 concurrent callers keep calling basic's echo and reloadable's label. Requires: zero failed
// calls (each answers with a result, not an error; label says a or b), no invalid message, no
// failed reload, the same number of open fds and of mapped plugin copies (memfd) after the
// soak as before, and exit status 0 when stdin closes. Everything is bounded: < 60 s.

import fs from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import {
    ROOT, Session, workspace, copyPlugin, buildReloadable, writeIni, section, iniText, sleep,
    toolOutcome,
} from './lib.mjs';
import { report, summary, tally } from '../lib/check.mjs';

const MCPH = process.argv[2] ? path.resolve(process.argv[2]) : path.join(ROOT, 'build/mcph');
const RELOADS = Number(String(process.argv[3] || '200').replace(/^reloads=/, ''));
const CALLERS = 4;
const LIMIT_MS = 60_000;

if (!fs.existsSync(MCPH) || !Number.isInteger(RELOADS) || RELOADS < 1) {
    console.error('usage: node tests/reload/soak.mjs build/mcph [reloads=200]');
    process.exit(2);
}

const started = performance.now();
const check = (cond, what) => report(cond, what);

function openFds(pid) {
    return fs.readdirSync(`/proc/${pid}/fd`).length;
}

function fdList(pid) {
    const out = [];
    for (const fd of fs.readdirSync(`/proc/${pid}/fd`)) {
        let target = '?';
        try {
            target = fs.readlinkSync(`/proc/${pid}/fd/${fd}`);
        } catch {
            // gone meanwhile
        }
        out.push(`${fd}->${target}`);
    }
    return out;
}

// Distinct mapped memfd files (plugin copies): "inode name".
function memfdMaps(pid) {
    const names = new Set();
    for (const l of fs.readFileSync(`/proc/${pid}/maps`, 'utf8').split('\n')) {
        const i = l.indexOf('memfd:');
        if (i >= 0) names.add(`${l.trim().split(/\s+/)[4]} ${l.slice(i)}`);
    }
    return [...names].sort();
}

const ws = workspace('soak');
copyPlugin(ws, 'basic');
copyPlugin(ws, 'reloadable');
copyPlugin(ws, 'threadsafe');
await Promise.all([
    buildReloadable(ws, 'variant-one.so', { version: 'one' }),
    buildReloadable(ws, 'variant-two.so', { version: 'two' }),
]);
const configA = iniText([section('basic'), section('reloadable', { label: 'a' })]);
const configB = iniText([section('basic'), section('reloadable', { label: 'b' }), section('threadsafe')]);
const ini = writeIni(ws, configA);

const s = new Session(MCPH, ini);
const guard = setTimeout(() => {
    console.log(`FAIL the soak did not finish within ${LIMIT_MS} ms`);
    s.kill('SIGKILL');
    process.exit(1);
}, LIMIT_MS);

let exitCode = 1;
try {
    await s.start();

    // Warm up, then the figures before.
    for (let i = 0; i < 4; i++) {
        await s.tool('echo', { text: 'warm' });
        await s.tool('label');
    }
    await s.call('ping');
    await sleep(200);
    const fdsBefore = openFds(s.pid);
    const fdListBefore = fdList(s.pid);
    const mapsBefore = memfdMaps(s.pid);

    // The callers.
    let stop = false;
    let calls = 0;
    const failures = [];
    const caller = async (k) => {
        let j = 0;
        while (!stop) {
            j++;
            const useEcho = (j + k) % 2 === 0;
            const text = `c${k}-${j}`;
            let r;
            try {
                r = await s.call('tools/call', useEcho ? { name: 'echo', arguments: { text } } : { name: 'label', arguments: {} }, 15000);
            } catch (err) {
                failures.push(`${useEcho ? 'echo' : 'label'}: ${err.message}`);
                break;
            }
            calls++;
            const o = toolOutcome(r);
            const good = !o.error && !o.isError && (useEcho ? o.text === text : o.text === 'a' || o.text === 'b');
            if (!good) failures.push(`${useEcho ? 'echo' : 'label'} -> ${JSON.stringify(r.error || r.result)}`);
        }
    };
    const callerDone = Array.from({ length: CALLERS }, (_, k) => caller(k));

    // The reloads.
    const soakStart = performance.now();
    let reloads = 0;
    let rebuilds = 0;
    const stderrBefore = s.stderr.length;
    // The INI is replaced whole (written aside, renamed over): a reload still running from the
    // previous SIGHUP may read it at any moment, and a file caught between its truncation and
    // its write is a valid INI with no plugin at all (every call then fails as unknown).
    const writeAtomic = (text) => {
        fs.writeFileSync(`${ini}.next`, text);
        fs.renameSync(`${ini}.next`, ini);
    };
    for (let i = 1; i <= RELOADS && s.alive(); i++) {
        writeAtomic(i % 2 ? configB : configA);
        if (i % 20 === 0) {
            const tmp = path.join(ws, 'next.so');
            fs.copyFileSync(path.join(ws, rebuilds % 2 ? 'variant-one.so' : 'variant-two.so'), tmp);
            fs.chmodSync(tmp, 0o755);
            fs.renameSync(tmp, path.join(ws, 'reloadable.so'));
            rebuilds++;
        }
        s.hup();
        reloads++;
        await sleep(10 + Math.floor(Math.random() * 11));
    }
    // End on config A, whatever the count.
    writeAtomic(configA);
    s.hup();
    await sleep(150);
    const soakMs = performance.now() - soakStart;
    stop = true;
    await Promise.all(callerDone);
    await s.call('ping');
    await sleep(300);
    await s.call('ping');

    const fdsAfter = openFds(s.pid);
    const fdListAfter = fdList(s.pid);
    const mapsAfter = memfdMaps(s.pid);
    const log = s.stderr.slice(stderrBefore);
    const ran = (log.match(/reload: serving/g) || []).length;
    const refused = log.split('\n').filter((l) => /mcph: (error|critical)/.test(l));
    const listChanged = s.notes.filter((n) => /list_changed$/.test(n.method)).length;

    console.log(`reloads sent ${reloads} (+1 back to A), rebuilt .so ${rebuilds} times, reloads run by mcph ${ran}, ` +
        `soak ${(soakMs / 1000).toFixed(1)} s`);
    console.log(`calls made ${calls}, failures ${failures.length}, list_changed received ${listChanged}`);
    console.log(`fds before ${fdsBefore}, after ${fdsAfter}; memfd maps before ${mapsBefore.length}, after ${mapsAfter.length}`);

    check(s.alive(), 'mcph is still running after the soak');
    check(calls > 0 && failures.length === 0, `zero failed calls (${calls} made, ${failures.length} failed)` +
        (failures.length ? `: ${failures.slice(0, 5).join('; ')}` : ''));
    check(ran > 0, `mcph ran reloads (${ran})`);
    check(refused.length === 0, `no reload error logged${refused.length ? `: ${refused.slice(0, 5).join(' | ')}` : ''}`);
    check(fdsAfter === fdsBefore, `open fds before == after (${fdsBefore}, ${fdsAfter})` +
        (fdsAfter !== fdsBefore ? `\n  before: ${fdListBefore.join(' ')}\n  after:  ${fdListAfter.join(' ')}` : ''));
    check(mapsAfter.length === mapsBefore.length, `mapped plugin copies before == after (${mapsBefore.length}, ${mapsAfter.length})` +
        (mapsAfter.length !== mapsBefore.length ? `\n  before: ${mapsBefore.join(' | ')}\n  after:  ${mapsAfter.join(' | ')}` : ''));
    const r = await s.tool('label');
    check(!r.error && r.text === 'a', `label after the soak is "a" (${JSON.stringify(r.text ?? r.error)})`);
    const v = await s.tool('version');
    check(!v.error && v.text === (rebuilds % 2 ? 'two' : 'one'), `version after the soak is the last rebuild's (${JSON.stringify(v.text ?? v.error)})`);
    const problems = s.problems();
    check(problems.length === 0, `every message valid (${problems.length} problems)` +
        (problems.length ? `: ${problems.slice(0, 3).join('; ')}` : ''));
    const st = await s.stop(20000);
    check(st && st.code === 0 && !st.signal && !st.timedOut, `exit status 0 after EOF (${JSON.stringify(st)})` +
        (st && st.code !== 0 ? `\n${s.stderrTail(30)}` : ''));
    exitCode = 0;
} catch (err) {
    check(false, `exception: ${err && err.stack ? err.stack : err}\n${s.stderrTail()}`);
    s.kill('SIGKILL');
} finally {
    clearTimeout(guard);
}

summary('', ` (${((performance.now() - started) / 1000).toFixed(1)} s)`);
process.exit(tally.failed || exitCode ? 1 : 0);
