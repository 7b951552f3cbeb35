// What the suites of isolate = process share (tests/isolate/isolate.mjs and soak.mjs): the INI
// (the fault plugin isolated, the example plugin in process and isolated), what a client is
// told when a child ends each way (sanitizer builds included), a stream of echo calls to the
// healthy plugins, the children found in /proc, and sanitizer reports that are not the ones
// a deliberate crash causes.

import fs from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { ROOT, short, sanitizersOf } from '../lib/util.mjs';
import { writeIni, PLUGINS, TEST_PLUGINS } from '../lib/workspace.mjs';
import { pidsByMarker, startSession } from '../gateway/common.mjs';

export const MCPH = path.resolve(process.argv[2] || path.join(ROOT, 'build/mcph'));
export const SAN = sanitizersOf(MCPH);
// call_timeout_ms of [plugin.faulty], and how long its fault://wait, its wait prompt and the
// f_ok calls beside a crash wait: longer, so that they end only when the child dies, by the
// crash, or by the time-out if the crash took longer than call_timeout_ms to kill it (which
// the test then reports). A sanitizer build writes a report before the child dies (a stack
// overflow's thousands of frames symbolized take ASan 180 ms, a SEGV TSan 130 ms, and more than
// a second on two cores that other work starves): there the time-out is longer.
export const CALL_TIMEOUT_MS = SAN.any ? 2500 : 300;
export const WAIT_MS = 2 * CALL_TIMEOUT_MS;
export const MAX_MEMORY = '256M';
// The sanitizers catch SEGV (and a stack overflow) themselves and end the process with their
// exit code: 1 for ASan and UBSan, 66 for TSan.
const SAN_STATUS = SAN.thread ? 66 : 1;

// RLIMIT_AS cannot be applied to a sanitizer build (ASan and TSan reserve terabytes of
// address space at start), so such a build leaves max_memory out.
export const MEMORY_LIMITED = !SAN.address && !SAN.thread;

// The environment of mcph and so of its children: TSan sleeps 1 s in the exit of a process
// with threads (atexit_sleep_ms), which would make every exit of a child a call_timeout_ms.
// ASan keeps up to 256 MiB of freed memory in quarantine, so the parent's RSS would climb
// with the number of calls made, whatever it holds: a 16 MiB quarantine lets the soak's RSS
// say something (use-after-free within the last 16 MiB freed is still caught).
export const ENV = SAN.thread ?
    { ...process.env, TSAN_OPTIONS: `${process.env.TSAN_OPTIONS || ''} atexit_sleep_ms=0`.trim() } :
    SAN.address ?
        { ...process.env, ASAN_OPTIONS: [process.env.ASAN_OPTIONS, 'quarantine_size_mb=16'].filter(Boolean).join(':') } :
        process.env;

// A session with mcph serving ini (tests/gateway/common.mjs's startSession, in ENV).
export function start(ini, opts = {}) {
    return startSession(MCPH, ini, { env: ENV, ...opts });
}

// The INI: [plugin.faulty] (fault.so, isolated, prefix f), [plugin.example] (in process) and
// [plugin.iso] (example.so isolated, prefix iso, its resources filtered out: the in-process
// instance serves the same URIs). More keys per section in `more`: { faulty, example, iso,
// server }; a key set to null is left out.
export function isolateIni(ws, more = {}, file = 'mcph.ini') {
    return writeIni(ws, {
        server: { plugin_dir: TEST_PLUGINS, workers: 16, ...more.server },
        'plugin.faulty': {
            path: 'fault.so',
            prefix: 'f',
            isolate: 'process',
            call_timeout_ms: CALL_TIMEOUT_MS,
            max_memory: MEMORY_LIMITED ? MAX_MEMORY : undefined,
            crash_in_init_file: 'init-crash',
            wait_ms: WAIT_MS,
            ...more.faulty,
        },
        'plugin.example': { path: path.join(PLUGINS, 'example.so'), ...more.example },
        'plugin.iso': {
            path: path.join(PLUGINS, 'example.so'),
            prefix: 'iso',
            isolate: 'process',
            resources: '!*',
            ...more.iso,
        },
    }, file);
}

// How the client is told a child of [plugin.ID] ended, for each way it can end: the text
// after "plugin 'ID' ", or the texts any of which will do. TSan catches a SEGV but not a stack
// overflow on a pool thread (it has no alternate signal stack there), which the kernel then
// ends with SIGSEGV.
const SEGV = SAN.any ? `exited with status ${SAN_STATUS}` : 'was killed by SIGSEGV';
export const ENDED = {
    null: SEGV,
    abort: 'was killed by SIGABRT',
    exit3: 'exited with status 3',
    stack: SAN.thread ? [SEGV, 'was killed by SIGSEGV'] : SEGV,
    loop: `did not answer within ${CALL_TIMEOUT_MS} ms (call_timeout_ms)`,
    alloc: 'was killed by SIGSEGV',
    read: SEGV,
    get: SEGV,
};

// The texts, any of which will do, a client is told when [plugin.ID] ended `how`.
export const ended = (how, id = 'faulty') => [ENDED[how]].flat().map((t) => `plugin '${id}' ${t}`);

// Whether text contains `want` (a string) or one of `want` (a list of strings).
const hasAny = (text, want) => [want].flat().some((w) => text.includes(w));
const quote = (want) => [want].flat().map((w) => `"${w}"`).join(' or ');

// Problems with a tools/call answer that should be a tool error containing `text` (or one of
// a list).
export function toolErrorProblems(what, r, text) {
    if (!r) return [`${what}: no answer`];
    if (r.error) return [`${what}: a JSON-RPC error instead of a tool error: ${short(r.error, 200)}`];
    if (!r.result?.isError) return [`${what}: not a tool error: ${short(r.result, 200)}`];
    const got = (r.result.content || []).map((c) => c.text || '').join('');
    return hasAny(got, text) ? [] : [`${what}: the tool error does not contain ${quote(text)}: "${short(got, 200)}"`];
}

// Problems with an answer that should be JSON-RPC error -32603 containing `text` (or one of a
// list).
export function rpcErrorProblems(what, r, text) {
    if (!r) return [`${what}: no answer`];
    if (!r.error) return [`${what}: a result instead of error -32603: ${short(r.result, 200)}`];
    if (r.error.code !== -32603) return [`${what}: error ${r.error.code} instead of -32603: ${short(r.error, 200)}`];
    return hasAny(r.error.message, text) ? [] : [`${what}: the error does not contain ${quote(text)}: "${short(r.error.message, 200)}"`];
}

// The request that crashes the fault plugin `how` (a crash tool's how, or read or get).
export function trigger(how) {
    if (how === 'read') return ['resources/read', { uri: 'fault://crash' }];
    if (how === 'get') return ['prompts/get', { name: 'f_crash' }];
    return ['tools/call', { name: 'f_crash', arguments: { how } }];
}

// What a client is told about the crash `how`, as problems with its answer r.
export function crashProblems(what, r, how) {
    const check = how === 'read' || how === 'get' ? rpcErrorProblems : toolErrorProblems;
    return check(what, r, ended(how));
}

// The outcome of the reload a SIGHUP sent after mark m started: true when it served, false when
// it was refused (or mcph is gone, or ms passed). A restart of an isolated child makes mcph
// rebuild that section (a refresh), which logs "reload: ..." lines of its own, ending in
// "reload: serving" too; a SIGHUP rebuilds every isolated section, [plugin.iso] included,
// which no refresh here does (that child never crashes): so the SIGHUP's outcome is the first
// "reload: serving" after a "reload: iso: " line, or "reload refused".
export async function reloaded(s, m, ms = 20000) {
    const outcome = () => {
        const log = s.since(m).stderr;
        const iso = log.indexOf('reload: iso: ');
        if (iso >= 0 && log.indexOf('reload: serving', iso) >= 0) return 'served';
        return log.includes('reload refused') ? 'refused' : null;
    };
    await s.waitFor(() => outcome() || s.exited, ms);
    return outcome() === 'served';
}

// The pid in the fault plugin's "ok TEXT pid N" answer, or null.
export function okPid(r, text) {
    const got = (r?.result?.content || []).map((c) => c.text || '').join('');
    const m = new RegExp(`^ok ${text} pid (\\d+)`).exec(got);
    return m && !r.result.isError ? Number(m[1]) : null;
}

// Keeps `concurrency` echo calls in flight, alternating the in-process (echo) and the isolated
// (iso_echo) example, until end(); every call must answer with its own text. end() returns
// { calls, failures, byTool }.
export function echoStream(s, { concurrency = 20, tools = ['echo', 'iso_echo'], ms = 15000 } = {}) {
    const st = { calls: 0, failures: [], byTool: Object.fromEntries(tools.map((t) => [t, 0])), stop: false };
    const loop = async (k) => {
        for (let j = 0; !st.stop && s.alive(); j++) {
            const tool = tools[(k + j) % tools.length];
            const text = `s${k}-${j}`;
            let r;
            try {
                r = await s.tool(tool, { text }, ms);
            } catch (err) {
                st.failures.push(`${tool} ${text}: ${err.message.split('\n')[0]}`);
                continue;
            }
            st.calls++;
            st.byTool[tool]++;
            if (r.error || r.isError || r.text !== text) st.failures.push(`${tool} ${text} -> ${short(r.msg, 200)}`);
        }
    };
    const done = Promise.all(Array.from({ length: concurrency }, (_, k) => loop(k)));
    st.end = async () => {
        st.stop = true;
        await done;
        return st;
    };
    return st;
}

// The words of a process's command line, or null when it is gone.
function argvOf(pid) {
    try {
        return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
    } catch {
        return null;
    }
}

// Live processes started as `mcph --isolated ID INI` for this INI (any ID when id is omitted).
export function children(ini, id) {
    return pidsByMarker(ini).filter((pid) => {
        const argv = argvOf(pid);
        const at = argv ? argv.indexOf('--isolated') : -1;
        return at >= 0 && (id === undefined || argv[at + 1] === id);
    });
}

// Every live process with the INI in its command line (mcph itself included), with its words.
export function leftOver(ini) {
    return pidsByMarker(ini).map((pid) => `${pid}: ${(argvOf(pid) || []).join(' ').trim()}`);
}

// Zombies among the children of pid (reaped by nobody).
export function zombiesOf(pid) {
    const out = [];
    for (const e of fs.readdirSync('/proc')) {
        if (!/^\d+$/.test(e)) continue;
        try {
            const stat = fs.readFileSync(`/proc/${e}/stat`, 'utf8');
            const [state, ppid] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
            if (state === 'Z' && Number(ppid) === pid) out.push(Number(e));
        } catch {
            // gone meanwhile
        }
    }
    return out;
}

// Sanitizer reports in stderr that no deliberate crash explains: a deliberate NULL store or
// stack overflow ends in a SEGV or stack-overflow report of ASan or TSan, or UBSan's null
// store in tests/plugins/fault.c; any other report (a leak, a race, a use after free, UB
// elsewhere) is a problem.
export function strayReports(stderr) {
    const out = [];
    for (const line of stderr.split('\n')) {
        const summary = /SUMMARY: (\w*Sanitizer): (\S+)(.*)/.exec(line);
        const ub = /runtime error:/.test(line);
        if (!summary && !ub) continue;
        const deliberate = summary ?
            /^(SEGV|stack-overflow)$/.test(summary[2]) || (summary[2] === 'undefined-behavior' && summary[3].includes('fault.c')) :
            line.includes('fault.c') && line.includes('null pointer');
        if (!deliberate) out.push(short(line.trim(), 300));
    }
    return out;
}

// Lines of mcph's stderr, each with the time it arrived (performance.now()), from now on.
export function stampLines(s) {
    const lines = [];
    let part = '';
    s.child.stderr.on('data', (d) => {
        const time = performance.now();
        part += d;
        let nl;
        while ((nl = part.indexOf('\n')) >= 0) {
            lines.push({ time, text: part.slice(0, nl) });
            part = part.slice(nl + 1);
        }
    });
    return lines;
}
