#!/usr/bin/env node
// The exec plugin through the real binary and the official SDK v1 client.
//
//   node tests/shipped/exec.mjs build/mcph
//
// Writes an INI into a temp dir (commands built on /bin/echo, /bin/sh -c with fixed scripts,
// /bin/sleep, /usr/bin/yes, /bin/false, plus commands whose executable is missing, not
// executable, or a folder) and checks: the tools listed and their schemas; results and
// structured results; exit codes and signals as tool errors; hostile arguments refused with a
// clear tool error (or the core's -32602) while the server keeps serving; the time limit and
// cancellation killing the whole process group (grandchild included); progress; the output
// cap; the environment, descriptors, stdin and folder of a child; config errors at load;
// parallel calls; a reload. Also: typed path placeholders ({f:file}, {d:dir}, {p:path})
// against absolute paths, '..', symlinks leading out, a FIFO; '+' and '@' values; group- or
// world-writable executables refused at load; execve failures; an instance with guard = yes
// (a setsid escape killed with the call); and mcph killed with SIGKILL mid-call, without and
// with the guard (the command, and with the guard its whole tree, die with it). Every stdout
// line is validated against the 2025-06-18 schema.
// Prints "ok NAME" / "FAIL NAME: why", then "N passed, N failed"; exits 1 on any failure.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn, spawnSync } from 'node:child_process';
import { Session } from '../interop/harness.mjs';
import { makeValidator, defaultSpecDir } from '../lib/schema.mjs';
import { Assert, check as checkStep, errorText, expect, expectEq, report, summary, tally } from '../lib/check.mjs';
import { sleep, short, waitFor } from '../lib/util.mjs';
import { writeIni as writeIniFile } from '../lib/workspace.mjs';

const REV = '2025-06-18';
const CALL_MS = 10000;
const TIMEOUT_MS = 2000; // the instance's timeout_ms
const MAX_OUTPUT = 4096;
const MAX_ARG = 65536;
const SUITE_LIMIT_MS = 55000;

const mcph = path.resolve(process.argv[2] || 'build/mcph');
const pluginDir = path.join(path.dirname(mcph), 'plugins');
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'mcph-exec-'));
let session = null;

function cleanup() {
    try {
        session?.transport?._process?.kill('SIGKILL');
    } catch {
        // gone already
    }
    for (const pid of childPids) {
        try {
            // Only what is still ours: a sleep or sh started from a command of this suite.
            const cmdline = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8');
            if (/sleep\x0030|mcph-exec-/.test(cmdline)) process.kill(pid, 'SIGKILL');
        } catch {
            // gone already
        }
    }
    fs.rmSync(tmp, { recursive: true, force: true });
    fs.rmSync(outside, { recursive: true, force: true });
}

const watchdog = setTimeout(() => {
    report(false, 'suite', `did not finish within ${SUITE_LIMIT_MS} ms`);
    summary();
    cleanup();
    process.exit(1);
}, SUITE_LIMIT_MS);

// Runs one check: fn returns nothing or throws; schema problems seen meanwhile fail it too.
const check = (name, fn) => checkStep(name, fn, { problems: () => (session ? session.drainProblems() : []) });

// --- Fixtures. ---------------------------------------------------------------------------

const notExec = path.join(tmp, 'notexec.sh');
fs.writeFileSync(notExec, '#!/bin/sh\necho never\n', { mode: 0o644 });
fs.mkdirSync(path.join(tmp, 'sub'));
// Executables another user could change: group-writable, in an open folder, through a link.
const gwFile = path.join(tmp, 'gw-file.sh');
fs.writeFileSync(gwFile, '#!/bin/sh\necho never\n');
fs.chmodSync(gwFile, 0o775);
fs.mkdirSync(path.join(tmp, 'open'));
fs.chmodSync(path.join(tmp, 'open'), 0o777);
const gwDirTool = path.join(tmp, 'open', 'tool.sh');
fs.writeFileSync(gwDirTool, '#!/bin/sh\necho never\n');
fs.chmodSync(gwDirTool, 0o755);
const gwLink = path.join(tmp, 'gw-link');
fs.symlinkSync(gwFile, gwLink);
// A folder beneath cwd (the INI's folder, tmp) for path placeholders, with ways out of it.
const data = path.join(tmp, 'data');
fs.mkdirSync(data);
fs.writeFileSync(path.join(data, 'notes.txt'), 'a\nb\nc\n');
fs.symlinkSync('notes.txt', path.join(data, 'inlink')); // stays inside
fs.symlinkSync('/etc/passwd', path.join(data, 'out-abs'));
fs.symlinkSync(path.relative(data, '/etc/passwd'), path.join(data, 'out-rel'));
fs.symlinkSync('/etc', path.join(data, 'outdir'));
fs.symlinkSync('loop', path.join(data, 'loop'));
const mkfifo = spawnSync('/usr/bin/mkfifo', [path.join(data, 'fifo')]);
if (mkfifo.status !== 0) throw new Error(`mkfifo failed: ${mkfifo.stderr}`);
// Runs at load (an executable file), but execve fails: its interpreter does not exist.
const badInterp = path.join(tmp, 'bad-interp.sh');
fs.writeFileSync(badInterp, '#!/nonexistent/interpreter\n');
fs.chmodSync(badInterp, 0o755);
const okTool = path.join(tmp, 'ok-tool.sh');
fs.writeFileSync(okTool, '#!/bin/sh\necho safe\n');
fs.chmodSync(okTool, 0o755);
const iniPath = path.join(tmp, 'exec.ini');
// The race of a path placeholder: race/x.txt beneath cwd, and outside cwd a folder of the same
// shape whose file holds a marker; a loop swaps race/ for a symlink to that folder and back.
const outside = fs.mkdtempSync(path.join(os.tmpdir(), 'mcph-exec-outside-'));
const RACE_MARKER = `OUTSIDE-MARKER-${process.pid}-${Date.now()}`;
fs.writeFileSync(path.join(outside, 'x.txt'), `${RACE_MARKER}\n`);
fs.writeFileSync(path.join(outside, RACE_MARKER), ''); // what ls of the outside folder shows
fs.mkdirSync(path.join(tmp, 'race'));
fs.writeFileSync(path.join(tmp, 'race', 'x.txt'), 'inside\n');
fs.symlinkSync(outside, path.join(tmp, 'race.link'));

const commands = [
    'echo "Echo the words back": /bin/echo {text} {more?}',
    `show: /bin/sh -c 'printf "[%s]\\n" "$@"' sh {first} {second?}`,
    'wc: /usr/bin/wc -c -- {file}',
    'sleep: /bin/sleep {seconds}',
    `tree: /bin/sh -c 'trap "" TERM; /bin/sleep 30 & echo $$ $! > "$1"; wait' sh {pidfile}`,
    `gentle: /bin/sh -c '/bin/sleep 30 & echo $$ $! > "$1"; wait' sh {pidfile}`,
    `bg: /bin/sh -c '/bin/sleep 30 & echo $! > "$1"' sh {pidfile}`,
    'flood: /usr/bin/yes',
    `errflood: /bin/sh -c 'while :; do echo eeeeeee >&2; done'`,
    'fail: /bin/false',
    `mixed: /bin/sh -c 'echo out; echo err >&2; exit 3'`,
    `selfkill: /bin/sh -c 'kill -9 $$'`,
    'env: /usr/bin/env',
    `fds: /bin/sh -c 'ls /proc/$$/fd; readlink /proc/$$/fd/0'`,
    'pwd: /bin/pwd',
    'many: /bin/echo {a} {b} {c} {d} {e}',
    `bytes: /usr/bin/printf '\\377ab\\000c\\n'`,
    `quoted: /usr/bin/printf '%s|%s|%s\\n' "a b" 'c "d"' --label="x y"'{}'`,
    'twice: /bin/echo {w} and {w}',
    'missing: /nonexistent/bin/tool {x}',
    `noexec: ${notExec}`,
    'folder: /tmp',
    `gw_file: ${gwFile}`,
    `gw_dir: ${gwDirTool}`,
    `gw_link: ${gwLink}`,
    `ok_tool: ${okTool}`,
    'count: /usr/bin/wc -l -- {file:file}',
    'count_nodash: /usr/bin/wc -l {file:file}',
    'list: /bin/ls -1 -- {d?:dir}',
    'kind: /usr/bin/stat -c %F -- {p:path}',
    `badinterp: ${badInterp}`,
    'race: /bin/cat -- {f:file}',
    'race_ls: /bin/ls -1 -- {d:dir}',
    'count_in: /usr/bin/wc -l <{file:file}',
    'count_in_opt: /usr/bin/wc -l <{file?:file}',
    `pathfds: /bin/sh -c 'echo "$@"; ls /proc/$$/fd; readlink /proc/$$/fd/3 /proc/$$/fd/4; cat "$1"' sh {a:file} {b:dir}`,
];
// The same and more under a guard (guard = yes): [plugin.guarded], tools g_NAME.
const guarded = [
    'echo: /bin/echo {text}',
    `mixed: /bin/sh -c 'echo out; echo err >&2; exit 3'`,
    `selfkill: /bin/sh -c 'kill -9 $$'`,
    `tree: /bin/sh -c 'trap "" TERM; /bin/sleep 30 & echo $$ $! > "$1"; wait' sh {pidfile}`,
    `gentle: /bin/sh -c '/bin/sleep 30 & echo $$ $! > "$1"; wait' sh {pidfile}`,
    `escape: /bin/sh -c '/usr/bin/setsid /bin/sleep 30 & echo $! > "$1"; /bin/sleep 0.3' sh {pidfile}`,
    'flood: /usr/bin/yes',
    'count: /usr/bin/wc -l -- {file:file}',
    `badinterp: ${badInterp}`,
    `pathfds: /bin/sh -c 'echo "$@"; ls /proc/$$/fd; readlink /proc/$$/fd/3 /proc/$$/fd/4; cat "$1"' sh {a:file} {b:dir}`,
    'count_in: /usr/bin/wc -l <{file:file}',
];
const SERVED = ['echo', 'show', 'wc', 'sleep', 'tree', 'gentle', 'bg', 'flood', 'errflood', 'fail',
    'mixed', 'selfkill', 'env', 'fds', 'pwd', 'many', 'bytes', 'quoted', 'twice', 'ok_tool',
    'count', 'count_nodash', 'list', 'kind', 'badinterp', 'race', 'race_ls', 'count_in',
    'count_in_opt', 'pathfds', 'sub_pwd',
    ...guarded.map((c) => `g_${c.split(':')[0]}`)];

function writeIni(extra = []) {
    writeIniFile(path.dirname(iniPath), {
        server: { plugin_dir: pluginDir },
        'plugin.exec': {
            path: 'exec.so',
            timeout_ms: TIMEOUT_MS,
            max_output: MAX_OUTPUT,
            max_arg: MAX_ARG,
            env: 'MCPH_EXEC_PASS GREETING=hi LANG=C MCPH_EXEC_UNSET',
            commands: [...commands, ...extra],
        },
        'plugin.sub': { path: 'exec.so', prefix: 'sub', cwd: 'sub', commands: 'pwd: /bin/pwd' },
        'plugin.guarded': {
            path: 'exec.so',
            prefix: 'g',
            guard: 'yes',
            timeout_ms: TIMEOUT_MS,
            max_output: MAX_OUTPUT,
            commands: guarded,
        },
    }, path.basename(iniPath));
}

// --- Helpers. -----------------------------------------------------------------------------

const call = (name, args, opts = {}) =>
    session.client.callTool({ name, arguments: args }, undefined, { timeout: CALL_MS, ...opts });

const textOf = (r) => (r.content || []).map((c) => c.text).join('\n');

async function stillServing() {
    const r = await call('echo', { text: 'still here' });
    expect(!r.isError && r.structuredContent?.stdout === 'still here\n',
        `the server stopped serving: ${short(r)}`);
}

// A tool error from the plugin: isError, and the first item says what and why.
async function refused(args, tool, pattern) {
    const r = await call(tool, args);
    expect(r.isError === true, `not refused: ${short(r)}`);
    expect(r.structuredContent === undefined, 'a refused call has no structured result (nothing ran)');
    expect(pattern.test(textOf(r)), `unclear refusal: ${short(textOf(r), 400)}`);
    await stillServing();
}

function alive(pid) {
    try {
        const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
        return !/^\d+ \(.*\) Z/.test(stat); // a zombie waiting for init is dead
    } catch {
        return false;
    }
}

async function waitUntil(cond, ms, what) {
    if (!(await waitFor(cond, ms))) throw new Assert(`timed out after ${ms} ms waiting for ${what}`);
}

// Processes the commands reported starting; killed at exit in case the plugin left them.
const childPids = new Set();
function readPids(file) {
    const pids = fs.readFileSync(file, 'utf8').trim().split(/\s+/).map(Number);
    pids.forEach((p) => childPids.add(p));
    return pids;
}

// --- Checks. ------------------------------------------------------------------------------

async function checkList() {
    await check('tools/list shows exactly the runnable commands', async () => {
        const { tools } = await session.client.listTools({}, { timeout: CALL_MS });
        expectEq(tools.map((t) => t.name).sort(), [...SERVED].sort(), 'tool names');
    });
    await check('input schema from the placeholders', async () => {
        const { tools } = await session.client.listTools({}, { timeout: CALL_MS });
        const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
        const echo = byName.echo.inputSchema;
        expectEq(Object.keys(echo.properties), ['text', 'more'], 'echo properties');
        expectEq(echo.required, ['text'], 'echo required');
        expectEq(echo.additionalProperties, false, 'echo additionalProperties');
        expectEq(echo.properties.text.type, 'string', 'text type');
        expectEq(echo.properties.text.maxLength, MAX_ARG, 'text maxLength');
        expect(/must not start with '-', '\+' or '@'/.test(echo.properties.text.description), 'text description warns about - + @');
        expect(!/must not start/.test(byName.wc.inputSchema.properties.file.description),
            'a placeholder after -- may start with -');
        expectEq(byName.show.inputSchema.required, ['first'], 'show required');
        expectEq(byName.flood.inputSchema, { type: 'object', properties: {}, additionalProperties: false },
            'no placeholder');
        expect(byName.echo.description.startsWith('Echo the words back\n\nRuns: /bin/echo {text} {more?}'),
            `echo description: ${short(byName.echo.description)}`);
        expect(byName.show.description.includes(`Runs: /bin/sh -c "printf \\"[%s]\\\\n\\" \\"$@\\"" sh`),
            `show description: ${short(byName.show.description)}`);
        const out = byName.echo.outputSchema;
        expectEq(out.required, ['exit_code', 'signal', 'stdout', 'stderr', 'truncated', 'timed_out',
            'duration_ms'], 'output schema required');
    });
    await check('unusable executables skipped at load with a log line', async () => {
        const err = session.stderr;
        for (const want of [
            "command 'missing' skipped: /nonexistent/bin/tool: No such file or directory; install it",
            `command 'noexec' skipped: ${notExec} is not executable`,
            "command 'folder' skipped: /tmp is not a regular file",
        ]) expect(err.includes(want), `stderr lacks "${want}": ${short(err, 600)}`);
        expect(/env in \[plugin\.exec\]: MCPH_EXEC_UNSET is not set/.test(err), 'unset env name logged');
    });
    await check('executables writable by group or others refused at load, with the fix', async () => {
        const err = session.stderr;
        for (const want of [
            `command 'gw_file' of [plugin.exec] refused: ${gwFile} is writable by group or others, so another user could change what runs; run chmod go-w ${gwFile}`,
            `command 'gw_dir' of [plugin.exec] refused: the folder ${path.dirname(gwDirTool)} of ${gwDirTool} is writable by group or others, so another user could swap the executable; run chmod go-w ${path.dirname(gwDirTool)}`,
            `command 'gw_link' of [plugin.exec] refused: ${gwLink} (really ${gwFile}) is writable by group or others`,
        ]) expect(err.includes(want), `stderr lacks "${want}": ${short(err, 900)}`);
        expectEq((await call('ok_tool', {})).structuredContent?.stdout, 'safe\n', 'a safe script of the user runs');
    });
}

async function checkCalls() {
    await check('echo: output and structured result', async () => {
        const r = await call('echo', { text: 'hello', more: 'world' });
        expect(!r.isError, `isError: ${short(r)}`);
        expectEq(r.content, [{ type: 'text', text: 'hello world\n' }], 'content');
        const s = { ...r.structuredContent };
        expect(Number.isInteger(s.duration_ms) && s.duration_ms >= 0, 'duration_ms');
        delete s.duration_ms;
        expectEq(s, { exit_code: 0, signal: null, stdout: 'hello world\n', stderr: '', truncated: false,
            timed_out: false }, 'structuredContent');
    });
    await check('optional placeholder dropped when absent', async () => {
        expectEq((await call('echo', { text: 'alone' })).structuredContent.stdout, 'alone\n', 'echo');
        expectEq((await call('show', { first: 'one' })).structuredContent.stdout, '[one]\n', 'show');
    });
    await check('a non-zero exit is a tool error with the output', async () => {
        const r = await call('mixed', {});
        expect(r.isError === true, 'isError');
        expectEq(r.content.map((c) => c.text), ['mixed exited with status 3', 'out\n[stderr]\nerr\n'], 'content');
        expectEq([r.structuredContent.exit_code, r.structuredContent.signal, r.structuredContent.stdout,
            r.structuredContent.stderr], [3, null, 'out\n', 'err\n'], 'structured');
        const f = await call('fail', {});
        expect(f.isError === true && f.content[0].text === 'fail exited with status 1', `fail: ${short(f)}`);
        expectEq(f.structuredContent.exit_code, 1, 'fail exit_code');
    });
    await check('a signal is a tool error', async () => {
        const r = await call('selfkill', {});
        expect(r.isError === true, 'isError');
        expectEq(r.content[0].text, 'selfkill was ended by SIGKILL', 'message');
        expectEq([r.structuredContent.exit_code, r.structuredContent.signal], [null, 'SIGKILL'], 'structured');
    });
    await check('child: minimal environment from the env key', async () => {
        const r = await call('env', {});
        const home = process.env.HOME && process.env.HOME.startsWith('/') ? process.env.HOME : '/';
        expectEq(r.structuredContent.stdout,
            `PATH=/usr/bin:/bin\nLANG=C\nHOME=${home}\nMCPH_EXEC_PASS=passed\nGREETING=hi\n`, 'env');
    });
    await check('child: stdin /dev/null, no inherited descriptors', async () => {
        const r = await call('fds', {});
        expectEq(r.structuredContent.stdout, '0\n1\n2\n/dev/null\n', 'descriptors of the child');
    });
    await check('child: runs in cwd (default: the INI folder; relative to it)', async () => {
        expectEq((await call('pwd', {})).structuredContent.stdout, `${fs.realpathSync(tmp)}\n`, 'pwd');
        expectEq((await call('sub_pwd', {})).structuredContent.stdout,
            `${fs.realpathSync(path.join(tmp, 'sub'))}\n`, 'sub_pwd');
    });
    await check('quoted literal words and literal braces', async () => {
        expectEq((await call('quoted', {})).structuredContent.stdout, 'a b|c "d"|--label=x y{}\n', 'printf');
    });
    await check('a placeholder used twice', async () => {
        expectEq((await call('twice', { w: 'x y' })).structuredContent.stdout, 'x y and x y\n', 'echo');
    });
    await check('output that is not UTF-8 arrives as U+FFFD', async () => {
        const r = await call('bytes', {});
        expectEq(r.structuredContent.stdout, '\uFFFDab\uFFFDc\n', 'stdout');
    });
}

async function checkPaths() {
    const DATA_LS = 'fifo\ninlink\nloop\nnotes.txt\nout-abs\nout-rel\noutdir\n';
    await check('path placeholder: schema and template', async () => {
        const { tools } = await session.client.listTools({}, { timeout: CALL_MS });
        const count = tools.find((t) => t.name === 'count');
        expect(count.description.includes('Runs: /usr/bin/wc -l -- {file:file}'), `description: ${short(count.description)}`);
        expect(/^Fills \{file:file\}: one argument\. A path relative to the command's folder, naming a regular file inside it: not absolute, no '\.\.', no symlink leading out\. The command gets it opened, as \/dev\/fd\/N, and names it so in its output\./
            .test(count.inputSchema.properties.file.description), `file: ${short(count.inputSchema.properties.file.description)}`);
        expectEq(tools.find((t) => t.name === 'list').inputSchema.required, undefined, 'list: {d?:dir} is optional');
    });
    // The command gets the checked file as /dev/fd/3, not the path (see the race check).
    await check('path placeholder: a relative file beneath cwd runs, passed as a descriptor', async () => {
        const r = await call('count', { file: 'data/notes.txt' });
        expectEq(r.structuredContent?.stdout, '3 /dev/fd/3\n', 'wc');
        expectEq((await call('count', { file: './data//notes.txt' })).structuredContent?.stdout,
            '3 /dev/fd/3\n', 'wc of ./data//notes.txt');
    });
    await check('path placeholder: a symlink that stays inside is followed', async () =>
        expectEq((await call('count', { file: 'data/inlink' })).structuredContent?.stdout, '3 /dev/fd/3\n', 'wc'));
    await check('path placeholder: dir and path types', async () => {
        expectEq((await call('list', { d: 'data' })).structuredContent?.stdout, DATA_LS, 'ls data');
        expectEq((await call('list', { d: '.' })).structuredContent?.stdout.split('\n').includes('exec.ini'), true, 'ls .');
        expect((await call('list', {})).structuredContent?.stdout.includes('exec.ini\n'), 'ls without the optional dir');
        expectEq((await call('kind', { p: 'data' })).structuredContent?.stdout, 'directory\n', 'stat data');
        // stat does not follow a symlink it is given: a file is seen as /dev/fd/N itself (a
        // folder comes as /dev/fd/N/, which it follows). The documented cost of the descriptor.
        expectEq((await call('kind', { p: 'data/notes.txt' })).structuredContent?.stdout, 'symbolic link\n', 'stat file');
    });
    const out = /the path in the argument "file" leads out of the command's folder \(an absolute symlink, or one that climbs out\)/;
    for (const [name, file, pattern] of [
        ['absolute path /etc/shadow', '/etc/shadow', /count refused: the argument "file" is an absolute path; \{file\} takes a path relative to the command's folder, without '\.\.' \(e\.g\. notes\/todo\.txt\)/],
        ['.. climbing out', '../../../../../../etc/shadow', /the argument "file" has a '\.\.' component; \{file\} takes a path relative/],
        ['.. that stays inside', 'data/../data/notes.txt', /the argument "file" has a '\.\.' component/],
        ['a lone ..', '..', /has a '\.\.' component/],
        ['empty', '', /the argument "file" is empty; \{file\} takes a path relative/],
        ['absolute symlink out', 'data/out-abs', out],
        ['relative symlink climbing out', 'data/out-rel', out],
        ['symlinked folder out', 'data/outdir/shadow', out],
        ['symlink loop', 'data/loop', /the path in the argument "file" goes through too many symlinks, or a \/proc-style magic link/],
        ['missing file', 'data/none.txt', /the path in the argument "file" does not exist in the command's folder/],
        ['a component that is a file', 'data/notes.txt/x', /the path in the argument "file" has a component that is not a folder/],
        ['a FIFO', 'data/fifo', /count refused: the argument "file" names a FIFO \(named pipe\); \{file\} takes a regular file/],
        ['a folder for a file', 'data', /the argument "file" names a folder; \{file\} takes a regular file/],
    ]) await check(`path placeholder refuses ${name}`, () => refused({ file }, 'count', pattern));
    await check('path placeholder: a file for a dir refused', () =>
        refused({ d: 'data/notes.txt' }, 'list', /list refused: the argument "d" names a regular file; \{d\} takes a folder/));
    await check('path placeholder: a FIFO for a path refused', () =>
        refused({ p: 'data/fifo' }, 'kind', /the argument "p" names a FIFO \(named pipe\); \{p\} takes a regular file or a folder/));
    await check('path placeholder without --: the option rule still applies', async () => {
        await refused({ file: '-n' }, 'count_nodash', /the argument "file" starts with '-'/);
        expectEq((await call('count_nodash', { file: 'data/notes.txt' })).structuredContent?.stdout, '3 /dev/fd/3\n', 'wc');
    });
}

// The time-of-check/time-of-use race of a path placeholder: while a loop in another process
// swaps race/ (beneath cwd) for a symlink to a folder outside cwd and back, calls of
// `cat -- {f:file}` with f = race/x.txt, and of `ls -1 -- {d:dir}` with d = race, must never
// show the outside file or folder. Bounded: at most RACE_CALLS calls or RACE_MS, whichever
// comes first. Before the plugin handed over the checked descriptor, about 6% of the calls
// printed the outside file.
const RACE_CALLS = 2000;
const RACE_MS = 2000;
const RACE_WORKERS = 4;

function startSwapper() {
    const [dir, real, link] = ['race', 'race.real', 'race.link'].map((n) => path.join(tmp, n));
    const script = `const fs = require('fs');
        const [dir, real, link] = ${JSON.stringify([dir, real, link])};
        const until = Date.now() + ${RACE_MS + 5000};
        process.on('SIGTERM', () => process.exit(0));
        for (let n = 0; Date.now() < until; n++) {
            fs.renameSync(dir, real); fs.renameSync(link, dir);
            fs.renameSync(dir, link); fs.renameSync(real, dir);
            if (n === 0) process.stdout.write('swapping\\n');
        }`;
    const proc = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    proc.stderr.on('data', (d) => {
        stderr += d;
    });
    const started = new Promise((resolve) => proc.stdout.once('data', resolve));
    const exited = new Promise((resolve) => proc.on('exit', (code, sig) => resolve({ code, sig })));
    return { proc, started, exited, stderr: () => stderr };
}

async function checkRace() {
    await check(`path placeholder race: a folder swapped for a symlink out never serves the outside file (${RACE_CALLS} calls or ${RACE_MS} ms)`, async () => {
        const swapper = startSwapper();
        const tally = { calls: 0, inside: 0, outside: 0, refused: 0, other: [] };
        try {
            await Promise.race([swapper.started, sleep(5000)]);
            const end = Date.now() + RACE_MS;
            const worker = async () => {
                while (tally.calls < RACE_CALLS && Date.now() < end) {
                    const ls = tally.calls++ % 2 === 1;
                    const r = await (ls ? call('race_ls', { d: 'race' }) : call('race', { f: 'race/x.txt' }));
                    const out = `${textOf(r)}\n${r.structuredContent?.stdout ?? ''}`;
                    if (out.includes(RACE_MARKER)) tally.outside++;
                    else if (!r.isError && r.structuredContent?.stdout === (ls ? 'x.txt\n' : 'inside\n')) tally.inside++;
                    else if (r.isError) tally.refused++;
                    else tally.other.push(short(r));
                }
            };
            await Promise.all(Array.from({ length: RACE_WORKERS }, worker));
        } finally {
            swapper.proc.kill('SIGTERM');
        }
        const { code, sig } = await swapper.exited;
        const summary = `${tally.outside}/${tally.calls} calls served the outside file ` +
            `(${(100 * tally.outside / Math.max(tally.calls, 1)).toFixed(1)}%), ${tally.inside} the inside one, ` +
            `${tally.refused} refused`;
        console.log(`# race: ${summary}`);
        expect(code === 0 || sig === 'SIGTERM', `the swapper failed (${code}, ${sig}): ${short(swapper.stderr(), 300)}`);
        expectEq(tally.other, [], 'unexpected results');
        expect(tally.outside === 0, summary);
        expect(tally.inside > 0, `no call was served at all: ${summary}`);
        await stillServing();
    });
}

// The descriptors of path placeholders: only they reach the command, at 3, 4, ...; the
// parent closes its own once the command started; <{name:file} is stdin.
async function checkPathFds() {
    const real = fs.realpathSync(data);
    const wanted = `/dev/fd/3 /dev/fd/4/\n0\n1\n2\n3\n4\n${real}/notes.txt\n${real}\na\nb\nc\n`;
    await check('path placeholders: the command gets /dev/fd/3 and /dev/fd/4/, and no other descriptor', async () => {
        expectEq((await call('pathfds', { a: 'data/notes.txt', b: 'data' })).structuredContent?.stdout, wanted, 'direct');
        expectEq((await call('g_pathfds', { a: 'data/notes.txt', b: 'data' })).structuredContent?.stdout, wanted, 'guard');
    });
    await check('<{file:file}: the checked file is stdin, no name in the output', async () => {
        expectEq((await call('count_in', { file: 'data/notes.txt' })).structuredContent?.stdout, '3\n', 'wc <');
        expectEq((await call('g_count_in', { file: 'data/inlink' })).structuredContent?.stdout, '3\n', 'guard');
        expectEq((await call('count_in_opt', {})).structuredContent?.stdout, '0\n', 'absent: /dev/null');
        await refused({ file: 'data/out-abs' }, 'count_in', /count_in refused: the path in the argument "file" leads out/);
        await refused({ file: 'data' }, 'count_in', /the argument "file" names a folder; \{file\} takes a regular file/);
        const { tools } = await session.client.listTools({}, { timeout: CALL_MS });
        const t = tools.find((x) => x.name === 'count_in');
        expect(t.description.includes('Runs: /usr/bin/wc -l <{file:file}'), `description: ${short(t.description)}`);
        expect(/^Fills <\{file:file\}: the command's stdin\. A path relative/.test(t.inputSchema.properties.file.description),
            `schema: ${short(t.inputSchema.properties.file.description)}`);
    });
    await check('path placeholders: mcph keeps no descriptor of a call', async () => {
        const pid = session.transport._process.pid;
        const fds = () => fs.readdirSync(`/proc/${pid}/fd`).length;
        const before = fds();
        for (let i = 0; i < 20; i++) {
            await call('pathfds', { a: 'data/notes.txt', b: 'data' });
            await call('g_count_in', { file: 'data/notes.txt' });
            await call('pathfds', { a: 'data/notes.txt', b: 'data/outdir' }); // refused after a's open
        }
        expectEq(fds(), before, `descriptors of mcph (${pid}) before and after 60 calls`);
    });
}

async function checkHostile() {
    const literal = async (text) => {
        const r = await call('echo', { text });
        expectEq(r.structuredContent?.stdout, `${text}\n`, `echo of ${short(text)}`);
    };
    await check('"; rm -rf /" is one inert argument', () => literal('; rm -rf /'));
    await check('$(id) is one inert argument', () => literal('$(id)'));
    await check('backticks are inert', () => literal('`id`'));
    await check('| > & * ~ and newlines are inert', () => literal('a | b > c & * ~ {x}\n$HOME'));
    await check('a fixed sh -c script: arguments stay data', async () => {
        const marker = path.join(tmp, 'pwned');
        const r = await call('show', { first: '$(touch ' + marker + ')', second: `\`touch ${marker}\`; touch ${marker}` });
        expectEq(r.structuredContent?.stdout,
            `[$(touch ${marker})]\n[\`touch ${marker}\`; touch ${marker}]\n`, 'printed literally');
        expect(!fs.existsSync(marker), 'the injected command ran');
    });
    await check('option injection (--output=/tmp/x) refused', () =>
        refused({ text: '--output=/tmp/x' }, 'echo', /echo refused: the argument "text" starts with '-'.*no "--" before \{text\}/));
    await check('-n refused (option injection)', () => refused({ text: '-n' }, 'echo', /starts with '-'/));
    await check('@file refused (a file of arguments)', () =>
        refused({ text: '@/etc/shadow' }, 'echo',
            /echo refused: the argument "text" starts with '@', so the command could take it for an option \(-x, \+x\) or a file of arguments \(@file\); .*no "--" before \{text\}: pass a value that does not start with '-', '\+' or '@' \(for a file name, write \.\/@\.\.\.\)/));
    await check('+option refused', () =>
        refused({ text: 'a', more: '+%s' }, 'echo', /the argument "more" starts with '\+'/));
    await check('@ and + are data after --', async () => {
        const r = await call('wc', { file: '@args' });
        expect(/wc: '?@args'?: No such file or directory/.test(r.structuredContent?.stderr), `wc @args: ${short(r)}`);
        const p = await call('wc', { file: '+x' });
        expect(/wc: '?\+x'?: No such file or directory/.test(p.structuredContent?.stderr), `wc +x: ${short(p)}`);
    });
    await check('@ or + inside a value is data', () => literal('a@b+c'));
    await check('after -- a leading - is data', async () => {
        const r = await call('wc', { file: '--output=/tmp/x' });
        expect(r.isError === true, 'wc of a missing file fails');
        expect(/wc: '?--output=\/tmp\/x'?: No such file or directory/.test(r.structuredContent.stderr),
            `stderr: ${short(r.structuredContent.stderr)}`);
    });
    await check('missing required argument refused', () =>
        refused({ more: 'x' }, 'echo', /Invalid arguments for tool 'echo'.*text/));
    await check('extra argument refused', () =>
        refused({ text: 'a', shell: 'yes' }, 'echo', /Invalid arguments for tool 'echo'.*shell/));
    await check('non-string argument refused', () =>
        refused({ text: 42 }, 'echo', /Invalid arguments for tool 'echo'.*string/));
    await check('control character refused', () =>
        refused({ text: 'a\u0007b' }, 'echo', /the argument "text" contains the control character U\+0007 at byte 1/));
    await check('carriage return and C1 controls refused', async () => {
        await refused({ text: 'a\rb' }, 'echo', /control character U\+000D/);
        await refused({ text: 'a\u0085b' }, 'echo', /control character U\+0085/);
    });
    await check('tab and newline allowed', () => literal('a\tb\nc'));
    await check('NUL refused (-32602 from the core)', async () => {
        let err = null;
        try {
            await call('echo', { text: 'a\u0000b' });
        } catch (e) {
            err = e;
        }
        expect(err?.code === -32602 && /U\+0000/.test(err.message), `got ${err ? errorText(err) : 'a result'}`);
        await stillServing();
    });
    await check('100 KB argument refused', () =>
        refused({ text: 'x'.repeat(100 * 1024) }, 'echo', /Invalid arguments for tool 'echo'.*text/));
    await check('argument over max_arg bytes refused (multibyte)', () =>
        refused({ text: '\u00e9'.repeat(40000) }, 'echo',
            /the argument "text" is 80000 bytes long; the limit is 65536 bytes per argument \(max_arg\)/));
    await check('whole command line over its limit refused', () => {
        const v = 'y'.repeat(60000);
        return refused({ a: v, b: v, c: v, d: v, e: v }, 'many',
            /many refused: the arguments make a command line of 300\d+ bytes; the limit is 262144/);
    });
    await check('unlisted command: -32602 Unknown tool', async () => {
        let err = null;
        try {
            await call('rm', { path: '/' });
        } catch (e) {
            err = e;
        }
        expect(err?.code === -32602 && /Unknown tool: rm/.test(err.message), `got ${err ? errorText(err) : 'a result'}`);
        await stillServing();
    });
}

async function checkLimits() {
    await check('timeout kills the process group (TERM ignored: SIGKILL after the grace)', async () => {
        const pidfile = path.join(tmp, 'tree.pid');
        const t0 = Date.now();
        const r = await call('tree', { pidfile });
        const took = Date.now() - t0;
        expect(r.isError === true, 'isError');
        expect(r.content[0].text.startsWith(`tree did not finish within ${TIMEOUT_MS} ms (timeout_ms) and was stopped (SIGKILL)`),
            `message: ${short(r.content[0].text)}`);
        expectEq([r.structuredContent.timed_out, r.structuredContent.signal, r.structuredContent.exit_code],
            [true, 'SIGKILL', null], 'structured');
        expect(r.structuredContent.duration_ms >= TIMEOUT_MS + 400 && took < TIMEOUT_MS + 3000,
            `took ${took} ms (duration_ms ${r.structuredContent.duration_ms})`);
        const [shPid, sleepPid] = readPids(pidfile);
        await waitUntil(() => !alive(shPid) && !alive(sleepPid), 2000, `sh ${shPid} and its sleep ${sleepPid} to be gone`);
    });
    await check('timeout: SIGTERM first', async () => {
        const pidfile = path.join(tmp, 'gentle-timeout.pid');
        const r = await call('gentle', { pidfile });
        expect(r.isError === true, 'isError');
        expectEq([r.structuredContent.timed_out, r.structuredContent.signal], [true, 'SIGTERM'], 'structured');
        expect(r.structuredContent.duration_ms < TIMEOUT_MS + 400, `duration_ms ${r.structuredContent.duration_ms}`);
        const [shPid, sleepPid] = readPids(pidfile);
        await waitUntil(() => !alive(shPid) && !alive(sleepPid), 2000, 'sh and its sleep to be gone');
    });
    await check('a command\'s leftovers die when it exits', async () => {
        const pidfile = path.join(tmp, 'bg.pid');
        const t0 = Date.now();
        const r = await call('bg', { pidfile });
        expect(!r.isError && Date.now() - t0 < 1500, `bg: ${short(r)} after ${Date.now() - t0} ms`);
        const [sleepPid] = readPids(pidfile);
        await waitUntil(() => !alive(sleepPid), 2000, `the background sleep ${sleepPid} to be gone`);
    });
    await check('stdout cut at max_output, process stopped', async () => {
        const r = await call('flood', {});
        expect(r.isError === true, 'isError');
        expectEq(r.content[0].text, `flood wrote more than ${MAX_OUTPUT} bytes to stdout (max_output) and was stopped; the output is cut there`, 'message');
        expectEq(r.structuredContent.stdout, 'y\n'.repeat(MAX_OUTPUT / 2), 'stdout');
        expectEq(r.structuredContent.truncated, true, 'truncated');
        expect(['SIGPIPE', 'SIGTERM'].includes(r.structuredContent.signal), `signal ${r.structuredContent.signal}`);
        expect(r.content[1].text.endsWith(`\n[stdout cut at ${MAX_OUTPUT} bytes: max_output]`), 'note in text');
    });
    await check('stderr cut at max_output', async () => {
        const r = await call('errflood', {});
        expect(r.isError === true && /to stderr \(max_output\)/.test(r.content[0].text), `message: ${short(r.content[0])}`);
        expectEq(r.structuredContent.stderr.length, MAX_OUTPUT, 'stderr length');
        expect(r.structuredContent.stderr.startsWith('eeeeeee\neeeeeee\n'), 'stderr contents');
    });
    await check('progress notifications with a progressToken', async () => {
        const seen = [];
        const sentBefore = session.sent.size;
        const r = await call('sleep', { seconds: '1' }, { onprogress: (p) => seen.push(p) });
        expect(!r.isError, `sleep: ${short(r)}`);
        // The SDK handles a notification a microtask later than a response read in the same
        // chunk, so the last one can reach it "after" the result: it then reports an unknown
        // token. What matters is the order on the wire.
        const [id] = [...session.sent.keys()].slice(sentBefore);
        const onWire = wire.filter((m) => m.method === 'notifications/progress' &&
            JSON.stringify(m.params.progressToken) === id);
        const answerAt = wire.findIndex((m) => !('method' in m) && JSON.stringify(m.id) === id);
        expect(answerAt >= 0 && onWire.every((m) => wire.indexOf(m) < answerAt), 'progress after the result on the wire');
        session.transportErrors = session.transportErrors.filter((e) =>
            !e.includes(`progress notification for an unknown token`) || !e.includes(`"progressToken":${id}}`));
        expect(onWire.length >= 3, `${onWire.length} progress notifications on the wire`);
        expect(seen.length >= 2, `${seen.length} progress notifications`);
        expect(seen.every((p, i) => i === 0 || p.progress > seen[i - 1].progress), 'progress increases');
        expect(seen.every((p) => p.total === TIMEOUT_MS && /^0 bytes of output after \d+\.\d s$/.test(p.message)),
            `progress: ${short(seen)}`);
    });
    await check('cancellation kills the group and no answer comes', async () => {
        const pidfile = path.join(tmp, 'gentle.pid');
        const ac = new AbortController();
        const sentBefore = session.sent.size;
        const settled = call('gentle', { pidfile }, { signal: ac.signal }).then(() => null, (e) => e);
        await waitUntil(() => fs.existsSync(pidfile) && fs.readFileSync(pidfile, 'utf8').includes('\n'), 3000, 'the pidfile');
        const ids = [...session.sent.entries()].slice(sentBefore).filter(([, m]) => m === 'tools/call').map(([id]) => id);
        expectEq(ids.length, 1, 'one tools/call sent');
        const t0 = Date.now();
        ac.abort('the test gives up');
        const err = await settled;
        expect(err?.name === 'AbortError' || /abort|gives up/i.test(String(err)), `the aborted call ended with ${err ? errorText(err) : 'a result'}`);
        const [shPid, sleepPid] = readPids(pidfile);
        await waitUntil(() => !alive(shPid) && !alive(sleepPid), 1500, 'sh and its sleep to be gone');
        expect(Date.now() - t0 < 1000, `stopping took ${Date.now() - t0} ms`);
        expect(outgoing.some((m) => m.method === 'notifications/cancelled' && JSON.stringify(m.params.requestId) === ids[0]),
            'notifications/cancelled was sent');
        await sleep(300);
        expect(!answered.has(ids[0]), `an answer to the cancelled request ${ids[0]} came`);
        await stillServing();
    });
    await check('calls run in parallel (thread-safe)', async () => {
        const t0 = Date.now();
        const rs = await Promise.all([1, 2, 3].map(() => call('sleep', { seconds: '0.6' })));
        expect(rs.every((r) => !r.isError), 'all succeeded');
        expect(Date.now() - t0 < 1500, `3 x 0.6 s took ${Date.now() - t0} ms`);
    });
}

// Commands that outlive their call or mcph: the guard (guard = yes), and PR_SET_PDEATHSIG.
async function checkLifetime() {
    await check('execve failure is a clear tool error (direct and under the guard)', async () => {
        for (const tool of ['badinterp', 'g_badinterp']) {
            const r = await call(tool, {});
            expect(r.isError === true, `${tool}: ${short(r)}`);
            expectEq(textOf(r), `${tool.replace('g_', '')} could not be started (${badInterp} in ${tmp}): No such file or directory`, `${tool} message`);
        }
        await stillServing();
    });
    await check('guard: output, exit status and signal as without it', async () => {
        expectEq((await call('g_echo', { text: 'guarded' })).structuredContent?.stdout, 'guarded\n', 'g_echo');
        const m = await call('g_mixed', {});
        expectEq([m.isError, textOf(m)], [true, 'mixed exited with status 3\nout\n[stderr]\nerr\n'], 'g_mixed');
        const k = await call('g_selfkill', {});
        expectEq([k.isError, k.structuredContent?.signal, k.structuredContent?.exit_code], [true, 'SIGKILL', null], 'g_selfkill');
        expectEq((await call('g_count', { file: 'data/notes.txt' })).structuredContent?.stdout, '3 /dev/fd/3\n', 'g_count');
    });
    await check('guard: a setsid escape dies with the call', async () => {
        const pidfile = path.join(tmp, 'escape.pid');
        const r = await call('g_escape', { pidfile });
        expect(!r.isError, `g_escape: ${short(r)}`);
        const [sleepPid] = readPids(pidfile);
        const stat = alive(sleepPid) ? fs.readFileSync(`/proc/${sleepPid}/stat`, 'utf8') : '';
        expect(!alive(sleepPid), `the setsid sleep ${sleepPid} outlived the call: ${stat}`);
    });
    await check('guard: time limit stops the group (TERM ignored: SIGKILL after the grace)', async () => {
        const pidfile = path.join(tmp, 'g-tree.pid');
        const r = await call('g_tree', { pidfile });
        expectEq([r.isError, r.structuredContent?.timed_out, r.structuredContent?.signal], [true, true, 'SIGKILL'], 'g_tree');
        expect(r.structuredContent.duration_ms >= TIMEOUT_MS + 400, `duration_ms ${r.structuredContent.duration_ms}`);
        const [shPid, sleepPid] = readPids(pidfile);
        expect(!alive(shPid) && !alive(sleepPid), `sh ${shPid} or sleep ${sleepPid} left`);
    });
    await check('guard: output cap stops it', async () => {
        const r = await call('g_flood', {});
        expectEq([r.isError, r.structuredContent?.stdout.length, r.structuredContent?.truncated], [true, MAX_OUTPUT, true], 'g_flood');
    });
    await check('guard: cancellation stops the group', async () => {
        const pidfile = path.join(tmp, 'g-gentle.pid');
        const ac = new AbortController();
        const settled = call('g_gentle', { pidfile }, { signal: ac.signal }).then(() => null, (e) => e);
        await waitUntil(() => fs.existsSync(pidfile) && fs.readFileSync(pidfile, 'utf8').includes('\n'), 3000, 'the pidfile');
        ac.abort('the test gives up');
        await settled;
        const [shPid, sleepPid] = readPids(pidfile);
        await waitUntil(() => !alive(shPid) && !alive(sleepPid), 1500, 'sh and its sleep to be gone');
        await stillServing();
    });
}

// Starts a separate mcph on an INI with one command `hold`, calls it, waits for the pids it
// writes, kills mcph with SIGKILL, and returns those pids.
async function holdAndKill(tag, section, script) {
    const dir = path.join(tmp, tag);
    fs.mkdirSync(dir);
    const ini = path.join(dir, 'hold.ini');
    const pidfile = path.join(dir, 'hold.pid');
    fs.writeFileSync(ini, `[server]\nplugin_dir = ${pluginDir}\n\n[plugin.hold]\npath = exec.so\n${section}` +
        `commands = hold: /bin/sh -c '${script}' sh {pidfile}\n`);
    const proc = spawn(mcph, [ini], { stdio: ['pipe', 'pipe', 'pipe'] });
    let stderr = '';
    proc.stderr.on('data', (d) => {
        stderr += d;
    });
    const exited = new Promise((r) => proc.on('exit', r));
    try {
        const send = (m) => proc.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', ...m })}\n`);
        send({ id: 1, method: 'initialize', params: { protocolVersion: REV, capabilities: {}, clientInfo: { name: 't', version: '1' } } });
        send({ method: 'notifications/initialized' });
        send({ id: 2, method: 'tools/call', params: { name: 'hold', arguments: { pidfile } } });
        await waitUntil(() => fs.existsSync(pidfile) && fs.readFileSync(pidfile, 'utf8').includes('\n'), 5000,
            `the pidfile (mcph stderr: ${short(stderr, 300)})`);
        const pids = readPids(pidfile);
        expect(pids.every(alive), `not all of ${pids} run before mcph is killed`);
        proc.kill('SIGKILL');
        await exited;
        return pids;
    } finally {
        proc.kill('SIGKILL');
    }
}

async function checkMcphKilled() {
    await check('mcph killed with SIGKILL: the running command dies too (PR_SET_PDEATHSIG)', async () => {
        const [pid] = await holdAndKill('kill-direct', '', 'echo $$ > "$1"; exec /bin/sleep 30');
        await waitUntil(() => !alive(pid), 2000, `the command ${pid} to die with mcph`);
    });
    await check('mcph killed with SIGKILL, guard = yes: the command, its group and a setsid escape die', async () => {
        const pids = await holdAndKill('kill-guard', 'guard = yes\n',
            '/bin/sleep 30 & a=$!; /usr/bin/setsid /bin/sleep 30 & echo $$ $a $! > "$1"; wait');
        expectEq(pids.length, 3, 'sh, its sleep, the setsid sleep');
        await waitUntil(() => pids.every((p) => !alive(p)), 2000, `${pids.filter(alive)} (of sh, sleep, setsid sleep ${pids}) to die with mcph`);
    });
}

async function checkReload() {
    await check('reload (SIGHUP): init again, new command served, old ones intact', async () => {
        let changed = false;
        session.client.setNotificationHandler(
            (await import('@modelcontextprotocol/sdk/types.js')).ToolListChangedNotificationSchema,
            () => {
                changed = true;
            });
        writeIni(['added "Added by a reload": /bin/echo added']);
        session.transport._process.kill('SIGHUP');
        await waitUntil(() => changed, 5000, 'notifications/tools/list_changed');
        const r = await call('added', {});
        expectEq(r.structuredContent?.stdout, 'added\n', 'added');
        await stillServing();
    });
}

// Config errors: each is refused at load with a message that says what to change.
function checkConfigErrors() {
    const cases = [
        ['relative executable', 'commands = x: wc -l', /the executable 'wc' is not an absolute path \(there is no PATH lookup\)/],
        ['placeholder inside a word', 'commands = x: /bin/echo --x={file}', /'--x=\{file\}' is not a placeholder .*quote it/],
        ['unclosed quote', "commands = x: /bin/echo 'abc", /a ' quote is not closed/],
        ['no colon', 'commands = x /bin/echo', /expected ':' after the tool name/],
        ['bad tool name', 'commands = x/y: /bin/echo', /expected ':' after the tool name/],
        ['placeholder as executable', 'commands = x: {prog} a', /the first word must be the executable's absolute path, not \{prog\}/],
        ['required and optional', 'commands = x: /bin/echo {a} {a?}', /\{a\} is written both optional/],
        ['unknown placeholder type', 'commands = x: /bin/echo {a:bogus}', /'\{a:bogus\}' is not a placeholder \(\{name\}, \{name\?\}, or with a type \{name:file\}, \{name:dir\}, \{name:path\}, \{name\?:file\}/],
        ['placeholder type without a name', 'commands = x: /bin/echo {:file}', /'\{:file\}' is not a placeholder/],
        ['two types for one placeholder', 'commands = x: /bin/echo {a:file} {a:dir}', /\{a\} is written with two different types/],
        ['stdin of an untyped placeholder', 'commands = x: /bin/cat <{a}', /<\{a\} must name a file: write <\{a:file\}/],
        ['stdin of a folder', 'commands = x: /bin/cat <{a?:dir}', /<\{a\?:dir\} must name a file: write <\{a\?:file\}/],
        ['two stdin words', 'commands = x: /bin/cat <{a:file} <{b:file}', /more than one <\{name:file\} word: a command has one stdin/],
        ['17 path placeholders', `commands = x: /bin/cat -- ${Array.from({ length: 17 }, (_, i) => `{${String.fromCharCode(97 + i)}:file}`).join(' ')}`,
            /more than 16 path placeholder words \(\{name:file\}, \{name:dir\}, \{name:path\}\): each is a descriptor handed to the command/],
        ['duplicate name', 'commands = x: /bin/echo\n    x: /bin/true', /the tool name 'x' is used twice/],
        ['timeout out of range', 'timeout_ms = 0\ncommands = x: /bin/echo', /timeout_ms = '0' in \[plugin\.bad\]: give a whole number from 1 to 600000/],
        ['max_output not a number', 'max_output = lots\ncommands = x: /bin/echo', /max_output = 'lots'/],
        ['guard not a yes/no', 'guard = maybe\ncommands = x: /bin/echo', /guard = 'maybe' in \[plugin\.bad\]: use yes or no/],
        ['bad env word', 'env = 1X=2\ncommands = x: /bin/echo', /env in \[plugin\.bad\]: '1X=2' is not NAME or NAME=VALUE/],
        ['missing cwd', 'cwd = nowhere\ncommands = x: /bin/echo', /cwd = .*nowhere in \[plugin\.bad\]: No such file or directory/],
        ['no commands key', '', /\[plugin\.bad\] needs 'commands'/],
    ];
    for (const [name, body, pattern] of cases) {
        const ini = path.join(tmp, 'bad.ini');
        fs.writeFileSync(ini, `[server]\nplugin_dir = ${pluginDir}\n\n[plugin.bad]\npath = exec.so\n${body}\n`);
        const r = spawnSync(mcph, ['--check', ini], { encoding: 'utf8', timeout: 10000 });
        const ok = pattern.test(r.stderr) && !/^bad\s+tool/m.test(r.stdout) &&
            !/Sanitizer|runtime error/.test(r.stderr);
        report(ok, `config error refused: ${name}`, ok ? '' : `stderr: ${short(r.stderr, 400)}`);
    }
}

// --- Main. --------------------------------------------------------------------------------

const outgoing = [];
const answered = new Set();
const wire = []; // every message from the server, in order

async function main() {
    writeIni();
    process.env.MCPH_EXEC_PASS = 'passed';
    process.env.MCPH_EXEC_SECRET = 'must not leak';
    delete process.env.MCPH_EXEC_UNSET;
    session = new Session(REV, [mcph], iniPath, makeValidator(defaultSpecDir()));
    const t = session.transport;
    const send = t.send.bind(t);
    t.send = async (msg, opts) => {
        outgoing.push(msg);
        return send(msg, opts);
    };
    const inspect = session.inspect.bind(session);
    session.inspect = (msg, line) => {
        if (msg && 'id' in msg && !('method' in msg)) answered.add(JSON.stringify(msg.id));
        wire.push(msg);
        inspect(msg, line);
    };
    await check('connect', async () => {
        await session.client.connect(t, { timeout: CALL_MS });
        expect(session.rawCapture, 'raw stdout capture unavailable (SDK internals changed)');
    });
    await checkList();
    await checkCalls();
    await checkPaths();
    await checkPathFds();
    await checkRace();
    await checkHostile();
    await checkLimits();
    await checkLifetime();
    await checkReload();
    await check('clean exit on close', async () => {
        const proc = t._process;
        await session.client.close();
        await waitUntil(() => session.exit !== null || proc?.exitCode !== null, 5000, 'mcph to exit');
        const code = session.exit?.code ?? proc.exitCode;
        expect(code === 0, `exit ${JSON.stringify(session.exit)}; stderr: ${session.stderrTail().join(' / ')}`);
        expect(!/AddressSanitizer|runtime error/.test(session.stderr), `sanitizer: ${short(session.stderr, 500)}`);
    });
    checkConfigErrors();
    await checkMcphKilled();
}

try {
    await main();
} catch (err) {
    report(false, 'suite', errorText(err));
}
clearTimeout(watchdog);
summary();
cleanup();
process.exit(tally.exitCode);
