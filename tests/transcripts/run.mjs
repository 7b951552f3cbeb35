#!/usr/bin/env node
// Transcript runner: drives a server through .t files (lines in, patterns out).
//
//   node tests/transcripts/run.mjs [-v] BINARY [FILE.t ...]
//
// BINARY is a program or a command line ("node tests/transcripts/selftest/fake-server.mjs");
// each transcript runs it as BINARY [args...] CONFIG. Without files, every *.t directly in
// tests/transcripts/ runs (not subfolders). The format is described in README.md beside this
// file. Output: "ok NAME" or "FAIL NAME: reason (line N)" per transcript (diagnostics follow on
// lines starting with "#"), then "N passed, N failed"; the exit status is 1 if any failed.
// -v also prints every line sent and message received.

import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { spawnProc, splitCommand, describeExit } from '../lib/proc.mjs';
import { makeValidator, defaultSpecDir } from '../lib/schema.mjs';
import { EraTracker } from '../lib/era.mjs';
import { report, summary, tally } from '../lib/check.mjs';
import { short as cut, sleep } from '../lib/util.mjs';
import { workspace } from '../lib/workspace.mjs';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.resolve(HERE, '../..');
const WORK_PREFIX = '$WORK/';
const SH_TIMEOUT_MS = 30000;
const DEFAULT_WAIT_MS = 5000;
const EXIT_WAIT_MS = 5000;
const TRANSCRIPT_CAP_MS = 120000; // no transcript may run longer than this, whatever it says
const AT_GRACE_MS = 20; // extra wait past a <@N deadline before judging "late" vs "missing"

class TranscriptError extends Error {
    constructor(message, line, details = []) {
        super(message);
        this.line = line;
        this.details = details;
    }
}

// Text for messages: strings as they are (raw lines), values as JSON; cut at n characters.
const short = (v, n = 160) => cut(v, n);

// A JSON value for messages (strings quoted), cut at n characters.
function js(v, n = 80) {
    const s = v === undefined ? 'undefined' : JSON.stringify(v);
    return s.length > n ? s.slice(0, n - 3) + '...' : s;
}

// ---------------------------------------------------------------- parsing

function stripComment(s) {
    return s.replace(/\s+#.*$/, '').trim();
}

function parseTranscript(file) {
    const text = fs.readFileSync(file, 'utf8');
    const lines = text.split('\n');
    const steps = [];
    let config = null;
    let configLine = 1;
    let args = [];
    const setup = [];
    lines.forEach((rawLine, i) => {
        const n = i + 1;
        const line = rawLine.replace(/\r$/, '');
        const t = line.trim();
        if (t === '' || t.startsWith('#')) return;
        let m;
        if ((m = line.match(/^config:\s*(.*)$/))) {
            if (config !== null) throw new TranscriptError('second "config:" line', n);
            if (steps.length > 0) throw new TranscriptError('"config:" must come before any step', n);
            config = stripComment(m[1]);
            configLine = n;
            if (!config) throw new TranscriptError('"config:" needs a path', n);
        } else if ((m = line.match(/^args:\s*(.*)$/))) {
            if (steps.length > 0) throw new TranscriptError('"args:" must come before any step', n);
            args = args.concat(splitCommand(stripComment(m[1])));
        } else if ((m = line.match(/^setup:\s*(.*)$/))) {
            if (steps.length > 0) throw new TranscriptError('"setup:" must come before any step', n);
            if (!m[1].trim()) throw new TranscriptError('"setup:" needs a command', n);
            setup.push({ command: m[1], line: n });
        } else if ((m = line.match(/^sh\s+(.*)$/))) {
            steps.push({ kind: 'sh', command: m[1], line: n });
        } else if (line === '>' || line.startsWith('> ')) {
            steps.push({ kind: 'send', raw: line.length > 2 ? line.slice(2) : '', line: n });
        } else if ((m = line.match(/^<(~|@(\d+))?\s+(.*)$/))) {
            let pattern;
            try {
                pattern = JSON.parse(m[3]);
            } catch (err) {
                throw new TranscriptError(`bad pattern JSON: ${err.message}`, n);
            }
            checkRegexes(pattern, n);
            const step = { kind: 'expect', pattern, line: n };
            if (m[1] === '~') step.anyOrder = true;
            if (m[2] !== undefined) step.withinMs = Number(m[2]);
            steps.push(step);
        } else if ((m = t.match(/^(silence|sleep)\s+(\d+)\b/))) {
            steps.push({ kind: m[1], ms: Number(m[2]), line: n });
        } else if (stripComment(t) === 'close') {
            steps.push({ kind: 'close', line: n });
        } else if ((m = stripComment(t).match(/^exit\s+(\S+)$/))) {
            const v = m[1];
            let want;
            if (/^-?\d+$/.test(v)) want = { code: Number(v) };
            else if (/^(SIG)?[A-Z0-9]+$/.test(v)) want = { signal: v.startsWith('SIG') ? v : 'SIG' + v };
            else throw new TranscriptError(`bad exit status "${v}"`, n);
            steps.push({ kind: 'exit', want, line: n });
        } else if ((m = stripComment(t).match(/^signal\s+(?:SIG)?([A-Z0-9]+)$/))) {
            steps.push({ kind: 'signal', signal: 'SIG' + m[1], line: n });
        } else if ((m = line.match(/^stderr\s+(!?)~(.*)$/))) {
            let re;
            try {
                re = new RegExp(m[2]);
            } catch (err) {
                throw new TranscriptError(`bad stderr regex: ${err.message}`, n);
            }
            steps.push({ kind: 'stderr', negate: m[1] === '!', re, line: n });
        } else {
            throw new TranscriptError(`cannot parse: ${short(line, 80)}`, n);
        }
    });
    if (config === null) throw new TranscriptError('missing "config:" line', 1);
    // Consecutive <~ lines form one group.
    const grouped = [];
    for (const s of steps) {
        const prev = grouped[grouped.length - 1];
        if (s.kind === 'expect' && s.anyOrder && prev?.kind === 'group') prev.items.push(s);
        else if (s.kind === 'expect' && s.anyOrder) grouped.push({ kind: 'group', items: [s], line: s.line });
        else grouped.push(s);
    }
    let lastLine = lines.length;
    while (lastLine > 1 && lines[lastLine - 1].trim() === '') lastLine--;
    const usesWork = setup.length > 0 || config.startsWith(WORK_PREFIX) ||
        steps.some((s) => s.kind === 'sh');
    return { config, configLine, args, setup, usesWork, steps: grouped, lastLine };
}

function checkRegexes(p, line) {
    if (typeof p === 'string' && p.startsWith('~')) {
        try {
            new RegExp(p.slice(1));
        } catch (err) {
            throw new TranscriptError(`bad regex in pattern: ${err.message}`, line);
        }
    } else if (p && typeof p === 'object') {
        for (const v of Object.values(p)) checkRegexes(v, line);
    }
}

// ---------------------------------------------------------------- matching

function ptr(p, k) {
    return `${p}/${String(k).replace(/~/g, '~0').replace(/\//g, '~1')}`;
}

const SAVE_RE = /^<save:([A-Za-z0-9_]+)>$/;
const SAVED_RE = /<saved:([A-Za-z0-9_]+)>/g;

// null when `actual` matches `expected`, else a description of the first difference.
// "<save:NAME>" matches any present value and records it in `saves` (when given).
export function match(expected, actual, p = '', saves = null) {
    const at = p || '/';
    if (expected === '<any>') return actual === undefined ? `${at}: missing` : null;
    const save = typeof expected === 'string' ? expected.match(SAVE_RE) : null;
    if (save) {
        if (actual === undefined) return `${at}: missing`;
        if (saves) saves[save[1]] = actual;
        return null;
    }
    if (expected === '<absent>') return `${at}: "<absent>" is only meaningful as an object member`;
    if (typeof expected === 'string' && expected.startsWith('~')) {
        if (typeof actual !== 'string') return `${at}: expected a string matching /${expected.slice(1)}/, got ${js(actual)}`;
        return new RegExp(expected.slice(1)).test(actual) ? null :
            `${at}: ${js(actual)} does not match /${expected.slice(1)}/`;
    }
    if (Array.isArray(expected)) {
        if (!Array.isArray(actual)) return `${at}: expected an array, got ${js(actual)}`;
        if (actual.length !== expected.length) {
            return `${at}: expected ${expected.length} elements, got ${actual.length}`;
        }
        for (let i = 0; i < expected.length; i++) {
            const r = match(expected[i], actual[i], ptr(p, i), saves);
            if (r) return r;
        }
        return null;
    }
    if (expected !== null && typeof expected === 'object') {
        if (actual === null || typeof actual !== 'object' || Array.isArray(actual)) {
            return `${at}: expected an object, got ${js(actual)}`;
        }
        for (const [k, v] of Object.entries(expected)) {
            const has = Object.prototype.hasOwnProperty.call(actual, k);
            if (v === '<absent>') {
                if (has) return `${ptr(p, k)}: must be absent, got ${js(actual[k])}`;
                continue;
            }
            if (!has) return `${ptr(p, k)}: missing (expected ${js(v)})`;
            const r = match(v, actual[k], ptr(p, k), saves);
            if (r) return r;
        }
        return null;
    }
    if (expected === actual) return null;
    return `${at}: expected ${js(expected)}, got ${js(actual)}`;
}

// Assign each pattern to a distinct message (any order). Returns { pairs } (pairs[i]: the
// message pattern i took) or { reason, index } explaining the failure.
function matchGroup(patterns, messages) {
    const n = patterns.length;
    const ok = patterns.map((pat) => messages.map((m) => match(pat, m) === null));
    const used = new Array(n).fill(false);
    const pairs = new Array(n).fill(-1);
    const assign = (i) => {
        if (i === n) return true;
        for (let j = 0; j < n; j++) {
            if (!used[j] && ok[i][j]) {
                used[j] = true;
                pairs[i] = j;
                if (assign(i + 1)) return true;
                used[j] = false;
            }
        }
        return false;
    };
    if (assign(0)) return { pairs };
    const unmatched = patterns.map((_, i) => i).filter((i) => !ok[i].some(Boolean));
    const which = unmatched.length ? unmatched : patterns.map((_, i) => i);
    const reasons = which.map((i) => {
        const firstDiff = messages.map((m) => match(patterns[i], m)).filter(Boolean)[0];
        return `pattern ${i + 1} ${short(patterns[i], 100)} matches no message` +
            (unmatched.length ? ` (e.g. ${firstDiff})` : ' uniquely');
    });
    return { reason: reasons.join('; '), index: which[0] };
}

// ---------------------------------------------------------------- running

// Run a shell command for setup:/sh in the transcript's work directory. Resolves with
// { code, signal, stderr } (code null on a timeout).
function runShell(command, work, file) {
    return new Promise((resolve) => {
        const child = spawn('/bin/sh', ['-c', command], {
            cwd: work,
            env: { ...process.env, WORK: work, TDIR: path.dirname(file), ROOT },
            stdio: ['ignore', 'ignore', 'pipe'],
        });
        let stderr = '';
        child.stderr.on('data', (d) => {
            stderr += d.toString();
        });
        const timer = setTimeout(() => child.kill('SIGKILL'), SH_TIMEOUT_MS);
        child.on('error', (err) => {
            clearTimeout(timer);
            resolve({ code: null, signal: null, stderr: err.message });
        });
        child.on('close', (code, signal) => {
            clearTimeout(timer);
            resolve({ code, signal, stderr });
        });
    });
}

async function shellStep(command, line, work, file) {
    const r = await runShell(command, work, file);
    if (r.code !== 0) {
        const why = r.code === null ? (r.signal ? `was killed by ${r.signal}` : 'could not run') :
            `exited with status ${r.code}`;
        throw new TranscriptError(`sh: ${short(command, 80)} ${why}`, line,
            r.stderr.split('\n').filter(Boolean).slice(-8).map((l) => `sh stderr: ${l}`));
    }
}

// A fresh work directory build/tests/transcripts/NAME.PID/ (for transcripts that use
// setup:, sh or $WORK).
function makeWorkDir(name) {
    return workspace('transcripts', `${name.replace(/[^A-Za-z0-9._-]/g, '_')}.${process.pid}`);
}

function resolveConfig(file, config, work) {
    if (config.startsWith(WORK_PREFIX)) return path.join(work, config.slice(WORK_PREFIX.length));
    return path.resolve(path.dirname(file), config);
}

class Session {
    constructor(binary, file, parsed, validator, verbose, configPath, work) {
        this.file = file;
        this.parsed = parsed;
        this.validator = validator;
        this.verbose = verbose;
        this.work = work;
        this.era = new EraTracker({ hasRevision: (r) => validator.hasRevision(r) });
        this.saved = {}; // values recorded by "<save:NAME>" patterns
        this.proc = spawnProc(binary, [...parsed.args, configPath]);
        this.proc.onMessage = (ev) => this.onMessage(ev);
        this.exitChecked = false;
    }

    log(s) {
        if (this.verbose) console.log(`#   ${s}`);
    }

    // Validate every message as it arrives, with the revision in force for it (see
    // tests/lib/era.mjs: the claim of the request answered, listen tags, else the session's).
    onMessage(ev) {
        const msg = ev.msg;
        ev.errors = [];
        let rev;
        let answers;
        if (Array.isArray(msg)) {
            // A batch (2025-03-26) is answered element by element, under the legacy session.
            for (const m of msg) ev.errors.push(...this.era.received(m).problems);
            rev = this.era.legacyRevision;
            answers = (id) => this.era.methodOf(id);
        } else {
            const c = this.era.received(msg);
            ev.errors.push(...c.problems);
            rev = c.rev;
            answers = c.method;
        }
        ev.revision = rev;
        ev.errors.push(...this.validator.validate(rev, msg, { answers }));
        this.log(`< ${ev.raw}   [${rev}${ev.errors.length ? `: ${ev.errors.join('; ')}` : ''}]`);
    }

    recordSent(raw) {
        let v;
        try {
            v = JSON.parse(raw);
        } catch {
            return;
        }
        this.era.sent(v);
    }

    stderrTail(n = 15) {
        const lines = this.proc.stderr.split('\n').filter((l) => l.length > 0);
        return lines.slice(-n).map((l) => `stderr: ${l}`);
    }

    // Take one message for a step; fails on a bad line, a schema error or none in time.
    async take(step, waitMs, what) {
        const ev = await this.proc.nextEvent(waitMs);
        if (ev === null) {
            if (this.proc.drained) {
                throw new TranscriptError(`server exited (${describeExit(this.proc.exitInfo)}) ` +
                    `while waiting for ${what}`, step.line);
            }
            throw new TranscriptError(`no message within ${Math.round(waitMs)} ms (waiting for ${what})`,
                step.line);
        }
        this.checkEvent(ev, step.line);
        return ev;
    }

    checkEvent(ev, line) {
        if (ev.type === 'bad') throw new TranscriptError(`bad stdout: ${ev.error}`, line);
        if (ev.errors.length > 0) {
            const head = ev.errors.slice(0, 2).join('; ');
            throw new TranscriptError(`schema ${ev.revision}: ${head}` +
                (ev.errors.length > 2 ? ` (+${ev.errors.length - 2} more)` : ''), line,
            [...ev.errors.map((e) => `schema: ${e}`), `message: ${short(ev.raw, 400)}`]);
        }
    }

    async run() {
        await this.proc.started;
        if (this.proc.spawnError) {
            throw new TranscriptError(`could not start ${this.proc.argv[0]}: ${this.proc.spawnError.message}`,
                this.parsed.configLine);
        }
        for (const step of this.parsed.steps) await this.step(step);
        await this.finish();
    }

    async step(step) {
        const p = this.proc;
        switch (step.kind) {
            case 'send': {
                if (p.stdinClosed) throw new TranscriptError('send after close', step.line);
                const raw = step.raw.replace(SAVED_RE, (_, name) => {
                    if (!Object.prototype.hasOwnProperty.call(this.saved, name)) {
                        throw new TranscriptError(`nothing saved as "${name}" (use <save:${name}> ` +
                            'in an earlier pattern)', step.line);
                    }
                    return JSON.stringify(this.saved[name]);
                });
                this.recordSent(raw);
                this.log(`> ${raw}`);
                p.send(raw);
                return;
            }
            case 'expect': {
                let waitMs = DEFAULT_WAIT_MS;
                if (step.withinMs !== undefined) {
                    const since = p.lastSendTime ?? performance.now();
                    waitMs = Math.max(0, since + step.withinMs - performance.now()) + AT_GRACE_MS;
                }
                const ev = await this.take(step, waitMs, short(step.pattern, 100));
                const saves = {};
                const diff = match(step.pattern, ev.msg, '', saves);
                if (diff) {
                    throw new TranscriptError(`mismatch: ${diff}`, step.line,
                        [`expected: ${short(step.pattern, 400)}`, `received: ${short(ev.raw, 400)}`]);
                }
                Object.assign(this.saved, saves);
                if (step.withinMs !== undefined && p.lastSendTime !== null) {
                    const took = ev.time - p.lastSendTime;
                    if (took > step.withinMs) {
                        throw new TranscriptError(`message arrived ${took.toFixed(1)} ms after the last ` +
                            `line sent (limit ${step.withinMs} ms)`, step.line);
                    }
                }
                return;
            }
            case 'group': {
                const evs = [];
                for (const it of step.items) {
                    evs.push(await this.take(it, DEFAULT_WAIT_MS,
                        `${step.items.length} messages in any order (got ${evs.length})`));
                }
                const why = matchGroup(step.items.map((s) => s.pattern), evs.map((e) => e.msg));
                if (!why.pairs) {
                    throw new TranscriptError(`no any-order match: ${why.reason}`,
                        step.items[why.index].line,
                        evs.map((e) => `received: ${short(e.raw, 300)}`));
                }
                step.items.forEach((it, i) => match(it.pattern, evs[why.pairs[i]].msg, '', this.saved));
                return;
            }
            case 'silence': {
                const got = await p.waitFor(() => p.events.length > 0, step.ms);
                if (got) {
                    const ev = p.events[0];
                    throw new TranscriptError(`expected silence for ${step.ms} ms, got ` +
                        (ev.type === 'bad' ? `bad stdout: ${ev.error}` : short(ev.raw, 200)), step.line);
                }
                return;
            }
            case 'sleep':
                await sleep(step.ms);
                return;
            case 'sh':
                this.log(`sh ${step.command}`);
                await shellStep(step.command, step.line, this.work, this.file);
                return;
            case 'close':
                this.log('close');
                p.close();
                return;
            case 'signal':
                this.log(`signal ${step.signal}`);
                if (p.exited) throw new TranscriptError(`cannot send ${step.signal}: server already exited`, step.line);
                p.kill(step.signal);
                return;
            case 'exit': {
                const res = await p.wait(EXIT_WAIT_MS);
                this.exitChecked = true;
                this.checkExit(res, step.want, step.line);
                return;
            }
            case 'stderr': {
                const test = () => step.re.test(p.stderr);
                if (step.negate) {
                    if (test()) {
                        throw new TranscriptError(`stderr matches /${step.re.source}/ but must not`,
                            step.line, this.stderrTail());
                    }
                } else if (!(await p.waitFor(() => test() || p.drained, DEFAULT_WAIT_MS)) || !test()) {
                    throw new TranscriptError(`stderr does not match /${step.re.source}/`, step.line,
                        this.stderrTail());
                }
                return;
            }
            default:
                throw new TranscriptError(`internal: unknown step ${step.kind}`, step.line);
        }
    }

    checkExit(res, want, line) {
        if (res.timedOut) {
            throw new TranscriptError(`server did not exit within ${EXIT_WAIT_MS / 1000} s (killed)`, line,
                this.stderrTail());
        }
        if (res.error && res.code === null) {
            throw new TranscriptError(`could not start server: ${res.error.message}`, line);
        }
        const ok = want.signal ? res.signal === want.signal :
            res.signal === null && res.code === want.code;
        if (!ok) {
            const w = want.signal ? `killed by ${want.signal}` : `status ${want.code}`;
            throw new TranscriptError(`expected exit ${w}, got ${describeExit(res)}`, line, this.stderrTail());
        }
    }

    async finish() {
        const line = this.parsed.lastLine;
        const p = this.proc;
        let res = null;
        if (!this.exitChecked) {
            p.close();
            res = await p.wait(EXIT_WAIT_MS);
        }
        if (p.events.length > 0) {
            const ev = p.events[0];
            if (ev.type === 'bad') throw new TranscriptError(`at end: bad stdout: ${ev.error}`, line);
            throw new TranscriptError(`at end: unexpected message ${short(ev.raw, 200)}` +
                (p.events.length > 1 ? ` (+${p.events.length - 1} more)` : ''), line,
            p.events.slice(0, 5).map((e) => `extra: ${short(e.raw, 300)}`));
        }
        if (res) this.checkExit(res, { code: 0 }, line);
    }

    async kill() {
        this.proc.kill('SIGKILL');
        await this.proc.wait(2000);
    }
}

async function runOne(binary, file, validator, verbose) {
    let parsed;
    try {
        parsed = parseTranscript(file);
    } catch (err) {
        if (err instanceof TranscriptError) return { ok: false, reason: `parse error: ${err.message}`, line: err.line };
        return { ok: false, reason: `cannot read: ${err.message}`, line: 0 };
    }
    let work = null;
    if (parsed.usesWork) {
        try {
            work = makeWorkDir(nameOf(file));
            for (const s of parsed.setup) {
                if (verbose) console.log(`#   setup: ${s.command}`);
                await shellStep(s.command, s.line, work, file);
            }
        } catch (err) {
            if (work) fs.rmSync(work, { recursive: true, force: true });
            if (err instanceof TranscriptError) {
                return { ok: false, reason: `setup: ${err.message}`, line: err.line, details: err.details };
            }
            return { ok: false, reason: `cannot make a work directory: ${err.message}`, line: 1 };
        }
    }
    const result = await runSession(binary, file, parsed, validator, verbose, work);
    // With -v, a failed transcript's work directory stays for inspection.
    if (work && !result.ok && verbose) (result.details ||= []).push(`work directory kept: ${work}`);
    else if (work) fs.rmSync(work, { recursive: true, force: true });
    return result;
}

async function runSession(binary, file, parsed, validator, verbose, work) {
    const configPath = resolveConfig(file, parsed.config, work);
    if (!fs.existsSync(configPath)) {
        return { ok: false, reason: `config ${parsed.config} not found`, line: parsed.configLine };
    }
    let session;
    try {
        session = new Session(binary, file, parsed, validator, verbose, configPath, work);
    } catch (err) {
        return { ok: false, reason: `cannot start ${binary}: ${err.message}`, line: 1 };
    }
    let timer;
    const cap = new Promise((_, reject) => {
        timer = setTimeout(() => reject(new TranscriptError(
            `transcript exceeded ${TRANSCRIPT_CAP_MS / 1000} s`, parsed.lastLine)), TRANSCRIPT_CAP_MS);
    });
    try {
        await Promise.race([session.run(), cap]);
        return { ok: true };
    } catch (err) {
        if (!(err instanceof TranscriptError)) {
            return { ok: false, reason: `runner error: ${err.stack || err}`, line: 0 };
        }
        const details = [...err.details];
        if (!details.some((d) => d.startsWith('stderr:'))) details.push(...session.stderrTail(8));
        return { ok: false, reason: err.message, line: err.line, details };
    } finally {
        clearTimeout(timer);
        if (!session.proc.exited) await session.kill();
    }
}

function nameOf(file) {
    const rel = path.relative(HERE, file);
    const base = rel.startsWith('..') ? path.relative(process.cwd(), file) : rel;
    return base.replace(/\.t$/, '');
}

async function main() {
    const argv = process.argv.slice(2);
    let verbose = false;
    while (argv[0] && argv[0].startsWith('-') && argv[0] !== '-') {
        const a = argv.shift();
        if (a === '-v' || a === '--verbose') verbose = true;
        else {
            console.error(`unknown option ${a}`);
            process.exit(2);
        }
    }
    if (argv.length < 1) {
        console.error('usage: node tests/transcripts/run.mjs [-v] BINARY [FILE.t ...]');
        process.exit(2);
    }
    const binary = argv.shift();
    let files = argv.map((f) => path.resolve(f));
    if (files.length === 0) {
        files = fs.readdirSync(HERE).filter((f) => f.endsWith('.t')).sort().map((f) => path.join(HERE, f));
    }
    const validator = makeValidator(defaultSpecDir());
    for (const file of files) {
        const name = nameOf(file);
        const r = await runOne(binary, file, validator, verbose);
        report(r.ok, name, r.ok ? '' : `${r.reason} (line ${r.line})`);
        for (const d of r.ok ? [] : r.details || []) console.log(`#   ${d}`);
    }
    summary();
    process.exit(tally.exitCode);
}

main().catch((err) => {
    console.error(err.stack || String(err));
    process.exit(2);
});
