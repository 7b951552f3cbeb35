#!/usr/bin/env node
// Confinement attacked from inside: a confined section of an isolated plugin
// (tests/plugins/attack.c) and a confined mcp section running a Node server
// (tests/confine/attacker.mjs) each try what their grants do not allow, through the real
// binary. `make test-confine` runs it.
//
//   node tests/confine/confine.mjs [BINARY] [--plant=unconfined] [--landlock-abi=N]
//                                                                  BINARY: build/mcph
//
// Before it starts anything the script runs itself again inside a network namespace of its own
// (`unshare --net --mount` as root, `unshare -rn --mount` otherwise; then `ip link set lo up`),
// so that nothing a confinement bug lets through can leave the machine; without unshare it
// fails. One mcph serves six sections, from an INI in build/tests/confine/run/:
//   [plugin.cage]      attack.so, isolate = process, read = granted app, write = granted/out,
//                      max_files = 64 (so network = no by default)
//   [plugin.cagenet]   the same with network = yes
//   [plugin.open]      attack.so, isolate = process, max_files = 64, not confined: the control
//   [plugin.ncage]     mcp, node app/attacker.mjs, exec = node, read and write as cage
//   [plugin.ncagenet]  the same with network = yes
//   [plugin.nopen]     mcp, node app/attacker.mjs, not confined: the control
// For every attempt (read the HTTP token file named by [server] auth_token_file, /etc/shadow,
// the INI, a file beside the granted folder, a symbolic link in it that points out, mcph's
// /proc/PID/environ; list the folder above the grant and mcph's /proc/PID/fd; write beside the
// write grant and into the read grant; execute /usr/bin/id, directly and through the dynamic
// loader the section may execute; connect to a loopback TCP port and a UNIX socket this script
// listens on with network = no, and to an abstract UNIX socket outside with network = yes;
// ptrace and SIGTERM mcph and a process outside; and, for the plugin only: read the INI's text
// through a descriptor the child inherited, read a variable of mcph's environment, raise
// RLIMIT_NOFILE, mount, bpf, a user namespace): the confined section answers "refused: ERRNO
// (...)" with the error the design gives, mcph's stderr has the refusal line, the attempt had
// no effect (no file, no connection, nobody signalled or traced), the section still answers
// `ok` from the same process and mcph still runs; the control answers "ok" and its effect is
// seen (where the control cannot succeed on this machine, as raising a hard limit without
// CAP_SYS_RESOURCE, the line says so). What the grants allow (read and list the granted folder,
// write in granted/out) works while confined. When `mcph --check` or the start-up names a rule
// of the section as not enforced, an attempt on that rule that works passes with the warning.
// Also: --check prints a "confined:" block for each confined section and none for the others,
// and an INI named by a relative path from another folder starts the confined servers too.
// Prints "ok confine ..." / "FAIL confine ...: why", a table (attempt | target | confined |
// control), then "confine: N passed, N failed".

import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { spawn, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Case, report, done } from '../lib/check.mjs';
import { ROOT, short, waitFor, sanitizersOf, SANITIZER_REPORT } from '../lib/util.mjs';
import { workspace, writeIni, TEST_PLUGINS, PLUGINS } from '../lib/workspace.mjs';
import { startSession, endSession, endSessions, pidsByMarker } from '../gateway/common.mjs';
import { describeExit } from '../lib/proc.mjs';

const SCRIPT = fileURLToPath(import.meta.url);
const ARGS = process.argv.slice(2).filter((a) => !a.startsWith('--'));
const MCPH = path.resolve(ARGS[0] || path.join(ROOT, 'build/mcph'));
// --plant=unconfined leaves the confinement keys out (the sections then run unconfined): every
// attempt must then FAIL, which shows the checks can fail.
const PLANT_UNCONFINED = process.argv.includes('--plant=unconfined');
// --landlock-abi=N runs mcph with MCPH_LANDLOCK_ABI=N, as on a kernel with that Landlock ABI at
// most (0: none): what it cannot enforce must then be named at start-up and by --check.
const ABI = /^--landlock-abi=(\d+)$/.exec(process.argv.find((a) => a.startsWith('--landlock-abi=')) || '')?.[1];
const MCPH_ENV = ABI === undefined ? process.env : { ...process.env, MCPH_LANDLOCK_ABI: ABI };
const SAN = sanitizersOf(MCPH);
const INSIDE = 'MCPH_CONFINE_INSIDE'; // set in the namespace: the script runs the test there
const LIMIT_MS = SAN.any ? 150000 : 50000;
const NODE = fs.realpathSync(process.execPath);
const MARKER = `confine-${process.pid}`;
// A sanitizer that cannot work in a confined process (LeakSanitizer needs ptrace) says this.
const SANITIZER_FATAL = /Sanitizer has encountered a fatal error/;
const SECRET = 'MCPH_CONFINE_TEST_SECRET'; // in mcph's environment: not for a confined plugin
const LOADER = interpreterOf('/usr/bin/id'); // the dynamic loader, which a confined section may run

// The PT_INTERP of an ELF64 little-endian program (its dynamic loader), or null.
function interpreterOf(file) {
    try {
        const b = fs.readFileSync(file);
        if (b.readUInt32BE(0) !== 0x7f454c46 || b[4] !== 2 || b[5] !== 1) return null;
        const phoff = Number(b.readBigUInt64LE(0x20));
        const size = b.readUInt16LE(0x36);
        for (let i = 0; i < b.readUInt16LE(0x38); i++) {
            const ph = phoff + i * size;
            if (b.readUInt32LE(ph) !== 3) continue; // PT_INTERP
            const at = Number(b.readBigUInt64LE(ph + 8));
            return b.toString('latin1', at, at + Number(b.readBigUInt64LE(ph + 32)) - 1);
        }
    } catch {
        // not readable, not ELF64: no loader attempt
    }
    return null;
}

// --- The network namespace. ---

// Whether this process is root of the initial user namespace with CAP_SYS_ADMIN (then it
// needs no user namespace, and the controls that need privilege can succeed).
function capable(bit) {
    const status = fs.readFileSync('/proc/self/status', 'utf8');
    const eff = /CapEff:\s+([0-9a-f]+)/.exec(status);
    const initNs = /^\s*0\s+0\s+4294967295\s*$/.test(fs.readFileSync('/proc/self/uid_map', 'utf8'));
    return initNs && eff !== null && (BigInt(`0x${eff[1]}`) & (1n << BigInt(bit))) !== 0n;
}
const CAP_SYS_ADMIN = 21;
const CAP_SYS_RESOURCE = 24;
const CAP_BPF = 39;

function reexec() {
    const flags = process.getuid() === 0 && capable(CAP_SYS_ADMIN) ? ['--net', '--mount'] : ['-rn', '--mount'];
    const probe = spawnSync('unshare', [...flags, 'true'], { encoding: 'utf8', timeout: 10000 });
    if (probe.error || probe.status !== 0) {
        report(false, 'confine: a network namespace of its own',
            `unshare ${flags.join(' ')} is unavailable here (${probe.error ? probe.error.message : short(probe.stderr.trim(), 200)}): the attacks must not run outside one`);
        done('confine');
    }
    const r = spawnSync('unshare', [...flags, '--', 'sh', '-c', 'ip link set lo up && exec "$@"', 'confine',
        process.execPath, SCRIPT, ...process.argv.slice(2)], {
        stdio: 'inherit',
        env: { ...process.env, [INSIDE]: flags.join(' ') },
        timeout: LIMIT_MS + 30000,
    });
    process.exit(r.status === null ? 1 : r.status);
}

// The interfaces this process sees (/proc/net/dev is per network namespace).
function interfaces() {
    return fs.readFileSync('/proc/net/dev', 'utf8').split('\n').slice(2)
        .map((l) => l.split(':')[0].trim()).filter(Boolean);
}

// --- The workspace and what the test listens on. ---

function setUp() {
    const ws = workspace('confine', 'run');
    const p = (...x) => path.join(ws, ...x);
    fs.mkdirSync(p('granted/out'), { recursive: true });
    fs.mkdirSync(p('app'));
    fs.mkdirSync(p('mnt'));
    for (const d of ['granted', 'granted/out', 'app', 'mnt']) fs.chmodSync(p(d), 0o755);
    fs.writeFileSync(p('token'), 'confine-test-token\n', { mode: 0o600 });
    fs.writeFileSync(p('beside.txt'), 'beside the grant\n');
    fs.writeFileSync(p('granted/data.txt'), 'granted data\n');
    fs.symlinkSync('../beside.txt', p('granted/link'));
    fs.copyFileSync(path.join(ROOT, 'tests/confine/attacker.mjs'), p('app/attacker.mjs'));
    return { ws, p };
}

// A listener that counts the connections it accepted (and closes them).
async function listen(where) {
    const server = net.createServer((sock) => {
        server.accepted++;
        sock.destroy();
    });
    server.accepted = 0;
    await new Promise((resolve, reject) => {
        server.once('error', reject);
        server.listen(where, resolve);
    });
    return server;
}

// A process outside every section (a child of this script) to signal and trace.
const sleepers = [];
function sleeper() {
    const child = spawn('sleep', ['120'], { stdio: 'ignore' });
    sleepers.push(child);
    return child.pid;
}

function procState(pid) {
    try {
        const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
        return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0];
    } catch {
        return null;
    }
}

const alive = (pid) => procState(pid) !== null && procState(pid) !== 'Z';

// --- The INI. ---

function writeConfig(ws) {
    const grants = PLANT_UNCONFINED ? {} : { read: 'granted app', write: 'granted/out' };
    const exec = PLANT_UNCONFINED ? undefined : NODE;
    const network = PLANT_UNCONFINED ? undefined : 'yes';
    const command = `${NODE} app/attacker.mjs --marker ${MARKER}`;
    const mcp = path.join(PLUGINS, 'mcp.so');
    return writeIni(ws, {
        server: { plugin_dir: TEST_PLUGINS, workers: 8, auth_token_file: 'token' },
        'plugin.cage': { path: 'attack.so', prefix: 'cage', isolate: 'process', ...grants, max_files: 64 },
        'plugin.cagenet': { path: 'attack.so', prefix: 'cagenet', isolate: 'process', ...grants, network },
        'plugin.open': { path: 'attack.so', prefix: 'open', isolate: 'process', max_files: 64 },
        'plugin.ncage': { path: mcp, prefix: 'ncage', command, exec, ...grants },
        'plugin.ncagenet': { path: mcp, prefix: 'ncagenet', command, exec, ...grants, network },
        'plugin.nopen': { path: mcp, prefix: 'nopen', command },
    });
}

// --- The attempts. ---

// by: plugin (the isolated attack.so: sections cage, cagenet, open) or server (the Node
// attacker: ncage, ncagenet, nopen). refused: the errno the confined section must see; control:
// the section that must succeed ('net': the confined section with network = yes; 'open': the
// unconfined one), or null when the target exists only to be refused (mcph itself). gap: the
// rule a kernel without it would leave unenforced (a working attempt then needs the warning).
// before/after: set up a target and check the effect (after(ctx, worked) returns problems).
function attempts(ctx) {
    const { p, tcp, unix, abstract, mcphPid } = ctx;
    const file = (what, target, arg, gap = /\bread\b/) => ({ what, target, arg, refused: 'EACCES', control: 'open', gap });
    const noFile = (f) => (c, worked) => (fs.existsSync(f) === worked ? [] : [`${f} ${worked ? 'is missing' : 'was created'}`]);
    const accepted = (server) => ({
        before: (c) => (c.seen = server.accepted),
        after: async (c, worked) => {
            await waitFor(() => server.accepted - c.seen >= (worked ? 1 : 0), 3000);
            const n = server.accepted - c.seen;
            return n === (worked ? 1 : 0) ? [] : [`the listener accepted ${n} connections`];
        },
    });
    const untouched = (pid, who) => (c, worked) => (alive(pid) && procState(pid) !== 't' ? [] :
        [`${who} (${pid}) is ${alive(pid) ? `in state ${procState(pid)}` : 'gone'}${worked ? '' : ' after a refused attempt'}`]);
    const sleeperTarget = (what, kills) => ({
        what, target: 'a process outside (a sleep)', refused: 'EPERM', control: 'open', gap: what === 'kill' ? /signal/ : undefined,
        before: (c) => (c.arg = String(sleeper())),
        after: (c, worked) => {
            const pid = Number(c.arg);
            if (kills && worked) return waitForSync(() => !alive(pid), 3000) ? [] : [`the sleep (${pid}) did not end`];
            return alive(pid) && procState(pid) !== 't' ? [] : [`the sleep (${pid}) is ${procState(pid) || 'gone'}`];
        },
    });
    const list = [
        file('read', 'the HTTP token file', p('token')),
        { ...file('read', '/etc/shadow', '/etc/shadow'), controlCan: readable('/etc/shadow') ? null : 'not readable by this user' },
        file('read', 'the INI', ctx.ini),
        file('read', 'a file beside the granted folder', p('beside.txt')),
        file('symlink_read', 'a link in the grant pointing out', p('granted/link')),
        file('list', 'the folder above the grant', ctx.ws),
        { ...file('write', 'a file outside the write grant', p('escape.txt'), /\bwrite\b/), after: noFile(p('escape.txt')), fresh: p('escape.txt') },
        { ...file('write', 'a file in the read-only grant', p('granted/new.txt'), /\bwrite\b/), after: noFile(p('granted/new.txt')), fresh: p('granted/new.txt') },
        { ...file('exec', 'a program not granted (/usr/bin/id)', '/usr/bin/id', /\bexec\b/) },
        ...(LOADER ? [file('exec', 'a program not granted, through the dynamic loader (exec granted)', `${LOADER} /usr/bin/id`, /\bexec\b|loader/)] : []),
        { what: 'connect', target: 'a loopback TCP port (network = no)', arg: String(tcp.address().port), refused: 'EACCES', control: 'net', gap: /network/, ...accepted(tcp) },
        { what: 'unix', target: 'a UNIX socket path (network = no)', arg: unix.address(), refused: 'EACCES', control: 'net', gap: /network/, ...accepted(unix) },
        { what: 'unix', target: 'an abstract UNIX socket outside (network = yes)', arg: `@${abstract.address().slice(1)}`, confinedAs: 'net', refused: 'EPERM', control: 'open', gap: /abstract/, ...accepted(abstract) },
        { what: 'getenv', target: `a variable of mcph's environment (${SECRET})`, arg: SECRET, refused: 'ENOENT', control: 'open', only: 'plugin' },
        // Closed at exec in every child mcph starts: no section can show it open.
        { what: 'read_fd', target: 'a file mcph inherited without close-on-exec (fd 6)', arg: '6', refused: 'EBADF', control: null, noControl: 'n/a (closed in every child)', only: 'plugin' },
        // Closed in every isolated child once its config is read: no section can show it open.
        { what: 'read_fd', target: 'the INI text through a descriptor it inherited', refused: 'EBADF', control: null, noControl: 'n/a (closed in every isolated child)', only: 'plugin', before: iniFd },
        file('read', "mcph's environment (/proc/PID/environ)", `/proc/${mcphPid}/environ`),
        file('list', "mcph's open files (/proc/PID/fd)", `/proc/${mcphPid}/fd`),
        { what: 'kill', target: "mcph's pid (SIGTERM)", arg: String(mcphPid), refused: 'EPERM', control: null, last: true, gap: /signal/, skipOnGap: true, after: untouched(mcphPid, 'mcph') },
        { ...sleeperTarget('kill', true) },
        { what: 'ptrace', target: "mcph's pid (PTRACE_ATTACH)", arg: String(mcphPid), refused: 'EPERM', control: null, only: 'plugin', last: true, after: untouched(mcphPid, 'mcph') },
        { ...sleeperTarget('ptrace', false), only: 'plugin' },
        { what: 'raise_nofile', target: 'RLIMIT_NOFILE past max_files = 64', arg: '', refused: 'EPERM', control: 'open', only: 'plugin',
            controlCan: capable(CAP_SYS_RESOURCE) ? null : 'mcph lacks CAP_SYS_RESOURCE here' },
        { what: 'mount', target: 'a tmpfs on a folder', arg: p('mnt'), refused: 'EPERM', control: 'open', only: 'plugin' },
        { what: 'bpf', target: 'BPF_MAP_CREATE', arg: '', refused: 'EPERM', control: 'open', only: 'plugin',
            controlCan: capable(CAP_BPF) || readNumber('/proc/sys/kernel/unprivileged_bpf_disabled') === 0 ? null : 'bpf() needs CAP_BPF here' },
        { what: 'unshare_user', target: 'a new user namespace', arg: '', refused: 'EPERM', control: 'open', only: 'plugin' },
    ];
    const grants = [
        { what: 'read', target: 'a file in the read grant', arg: p('granted/data.txt') },
        { what: 'list', target: 'the granted folder', arg: p('granted') },
        { what: 'write', target: 'a file in the write grant', arg: p('granted/out/by-BY.txt'), after: (c) => (fs.existsSync(c.arg) ? [] : [`${c.arg} is missing`]) },
    ];
    return { list, grants };
}

// The descriptor of the process pid that holds the INI's text (a memfd named after it, or the
// file), as arg; else, the number it has in the unconfined section's process (there is no such
// descriptor there either: 3), which must then be closed.
function iniFd(a, pid) {
    const fd = (p) => {
        try {
            return fs.readdirSync(`/proc/${p}/fd`).find((n) => /mcph\.ini/.test(fs.readlinkSync(`/proc/${p}/fd/${n}`)));
        } catch {
            return undefined;
        }
    };
    a.arg = fd(pid) ?? a.arg ?? '3';
}

function readable(file) {
    try {
        fs.accessSync(file, fs.constants.R_OK);
        return true;
    } catch {
        return false;
    }
}

function readNumber(file) {
    try {
        return Number(fs.readFileSync(file, 'utf8').trim());
    } catch {
        return NaN;
    }
}

// Poll pred for up to ms (synchronously; for short waits on /proc): its last value.
function waitForSync(pred, ms) {
    const deadline = Date.now() + ms;
    for (let i = 0; ; i++) {
        const v = pred();
        if (v || Date.now() >= deadline || i > 100000) return v;
        Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 10);
    }
}

// --- Running them. ---

const SECTIONS = {
    plugin: { confined: 'cage', net: 'cagenet', open: 'open' },
    server: { confined: 'ncage', net: 'ncagenet', open: 'nopen' },
};
const rows = []; // the table

async function call(s, section, what, arg) {
    const r = await s.tool(`${section}_attack`, { what, arg }, 20000);
    if (r.error) return `JSON-RPC error ${short(r.error, 150)}`;
    return r.isError ? `tool error: ${short(r.text, 150)}` : r.text;
}

// The refusal line of section for this attempt in mcph's stderr since mark m.
function refusalLine(s, m, by, section, what, arg, code) {
    const text = `attack: ${what}${arg ? ` ${arg}` : ''} refused: ${code}`;
    const tag = by === 'plugin' ? `mcph[${section}]:` : `[${section}] `;
    return s.since(m).stderr.split('\n').find((l) => l.includes(tag) && l.includes(text));
}

// The warnings that name a rule of section as not enforced (start-up or --check).
function gapWarnings(ctx, section, rule) {
    return ctx.gaps.filter((g) => g.section === section && rule.test(g.text)).map((g) => g.text);
}

async function sectionServes(c, s, section, pid) {
    const ok = await s.tool(`${section}_ok`, {}, 20000);
    c.check(!ok.error && !ok.isError && ok.text === `ok pid ${pid}`,
        `${section}_ok afterwards: ${short(ok.error || ok.text, 150)} (wanted "ok pid ${pid}": the same process)`);
    c.check(s.alive() && (await s.ping(10000)) !== null, `mcph does not answer ping: ${s.stderrTail(3)}`);
}

async function confinedTry(c, ctx, by, a) {
    const { s, pids } = ctx;
    const section = SECTIONS[by][a.confinedAs || 'confined'];
    const said = a.gap ? gapWarnings(ctx, section, a.gap) : [];
    if (a.skipOnGap && said.length) {
        c.note(`not made: not enforced here, and said so: ${short(said[0], 120)}`);
        return 'not made (a gap, said so)';
    }
    if (a.fresh) fs.rmSync(a.fresh, { force: true });
    if (a.before) a.before(a, ctx.pids[section]);
    const m = s.mark();
    const got = await call(s, section, a.what, a.arg);
    const worked = got === 'ok';
    if (worked && said.length) {
        c.note(`not enforced on this kernel, and said so: ${short(said[0], 120)}`);
    } else {
        c.check(got.startsWith(`refused: ${a.refused || ''}`), `${section}: "${got}", not refused${a.refused ? ` with ${a.refused}` : ''}`);
        const code = /^refused: (\w+)/.exec(got)?.[1];
        if (code) {
            const seen = await waitFor(() => refusalLine(s, m, by, section, a.what, a.arg, code), 5000);
            c.check(seen, `no refusal line of ${section} on mcph's stderr: ${short(s.since(m).stderr, 300)}`);
        }
    }
    if (a.after) c.check(...problemsOk(await a.after(a, worked), section));
    await sectionServes(c, s, section, pids[section]);
    return got;
}

function problemsOk(problems, section) {
    return [problems.length === 0, `${section}: ${problems.join('; ')}`];
}

async function controlTry(c, ctx, by, a) {
    if (!a.control) return a.noControl ?? 'n/a (would end the run)';
    const { s, pids } = ctx;
    const section = SECTIONS[by][a.control];
    if (a.fresh) fs.rmSync(a.fresh, { force: true });
    if (a.before) a.before(a, ctx.pids[section]);
    const got = await call(s, section, a.what, a.arg);
    if (a.controlCan) {
        c.check(got === 'ok' || got.startsWith('refused: '), `${section}: "${got}"`);
        c.note(`control ${got === 'ok' ? 'ok' : `cannot succeed (${a.controlCan})`}`);
    } else {
        c.check(got === 'ok', `the control ${section} did not succeed: "${got}"`);
    }
    if (a.after) c.check(...problemsOk(await a.after(a, got === 'ok'), section));
    await sectionServes(c, s, section, pids[section]);
    return `${got === 'ok' ? 'ok' : got} [${section}]`;
}

async function runAttempt(ctx, by, a) {
    const name = `${by} ${a.what} ${a.target}`;
    const c = new Case(name);
    let confined = '-';
    let control = '-';
    try {
        confined = await confinedTry(c, ctx, by, a);
        control = await controlTry(c, ctx, by, a);
    } catch (err) {
        c.check(false, `exception: ${String(err?.message || err).split('\n')[0]}`);
    }
    rows.push([`${by} ${a.what}`, a.target, confined, control]);
    finish(c, ctx);
}

async function runGrant(ctx, by, g) {
    const section = SECTIONS[by].confined;
    const c = new Case(`${by} ${g.what} ${g.target} (granted)`);
    let got = '-';
    try {
        const a = { ...g, arg: g.arg.replace('BY', by) };
        got = await call(ctx.s, section, a.what, a.arg);
        c.check(got === 'ok', `${section}: "${got}", though granted`);
        if (a.after) c.check(...problemsOk(await a.after(a, got === 'ok'), section));
    } catch (err) {
        c.check(false, `exception: ${String(err?.message || err).split('\n')[0]}`);
    }
    rows.push([`${by} ${g.what}`, `${g.target} (granted)`, got, '-']);
    finish(c, ctx);
}


function finish(c, ctx) {
    const reports = SANITIZER_REPORT.exec(ctx.s.stderr) || SANITIZER_FATAL.exec(ctx.s.stderr);
    if (reports && !ctx.sanitizerSeen) {
        ctx.sanitizerSeen = true;
        c.check(false, `sanitizer report in mcph's stderr: ${short(ctx.s.stderr.slice(reports.index), 400)}`);
    }
    for (const pr of ctx.s.problems().slice(ctx.problemsSeen)) c.check(false, `protocol: ${pr}`);
    ctx.problemsSeen = ctx.s.problems().length;
    report(c.failures.length === 0, `confine ${c.name}`, c.failures.length ? c.failures.slice(0, 4).join(' | ') : c.notes.join('; '));
}

// --- --check and the start-up. ---

// mcph --check: each confined section has a "confined:" block, the unconfined ones none; the
// lines that say a rule is not enforced are kept (ctx.gaps).
function checkRules(ctx) {
    const r = spawnSync(MCPH, ['--check', ctx.ini], { encoding: 'utf8', timeout: 30000, env: MCPH_ENV });
    const out = `${r.stdout}\n${r.stderr}`;
    const problems = [];
    if (r.status !== 0) problems.push(`--check exited ${r.status ?? r.signal}: ${short(r.stderr, 300)}`);
    const blocks = {};
    let section = null;
    for (const line of out.split('\n')) {
        const head = /\[plugin\.(\w+)\]|^\s*(\w+)\b/.exec(line);
        if (/^\S/.test(line) && head) section = head[1] || head[2];
        if (/^\s+confined:/.test(line) && section) blocks[section] = true;
    }
    for (const sec of ['cage', 'cagenet', 'ncage', 'ncagenet']) {
        if (!blocks[sec]) problems.push(`no "confined:" block under ${sec}`);
    }
    for (const sec of ['open', 'nopen']) {
        if (blocks[sec]) problems.push(`a "confined:" block under the unconfined ${sec}`);
    }
    section = null;
    for (const line of out.split('\n')) {
        const head = /^\[plugin\.(\w+)\]/.exec(line);
        if (head) section = head[1];
        const gap = /^\s+not enforced: (.*)/.exec(line);
        if (gap && section && !/^nothing\b/.test(gap[1])) ctx.gaps.push({ section, text: gap[1] });
    }
    ctx.checkOut = out;
    return problems;
}

// The paths of read and write are relative to the INI's folder, whatever folder mcph was started
// in and however the INI was named: --check from the folder above, naming run/mcph.ini, must
// start the confined servers too. [ok, why].
function relativeIni(ctx) {
    const r = spawnSync(MCPH, ['--check', path.join(path.basename(ctx.ws), 'mcph.ini')],
        { cwd: path.dirname(ctx.ws), encoding: 'utf8', timeout: 30000, env: MCPH_ENV });
    const errors = r.stderr.split('\n').filter((l) => /error/.test(l));
    return [r.status === 0, r.status === 0 ? '' : `exit ${r.status ?? r.signal}: ${short(errors.join(' | '), 600)}`];
}

// --- The table. ---

function printTable() {
    const head = ['attempt', 'target', 'confined result', 'control result'];
    const all = [head, ...rows];
    const width = head.map((_, i) => Math.min(72, Math.max(...all.map((r) => String(r[i]).length))));
    const line = (r) => r.map((x, i) => String(x).padEnd(width[i])).join(' | ').trimEnd();
    console.log(line(head));
    console.log(width.map((w) => '-'.repeat(w)).join('-|-'));
    for (const r of rows) console.log(line(r));
}

// --- Main. ---

async function main() {
    const ifs = interfaces();
    if (!report(ifs.length === 1 && ifs[0] === 'lo', `confine: in a network namespace of its own (${process.env[INSIDE]})`,
        `interfaces: ${ifs.join(', ')}`)) done('confine');
    const { ws, p } = setUp();
    const tcp = await listen({ host: '127.0.0.1', port: 0 });
    const unix = await listen(p('sock'));
    fs.chmodSync(p('sock'), 0o666);
    const abstract = await listen(`\0mcph-confine-${process.pid}`);
    const ini = writeConfig(ws);
    const ctx = { ws, p, ini, tcp, unix, abstract, problemsSeen: 0, gaps: [] };
    const timer = setTimeout(() => {
        report(false, 'confine: the whole run', `still running after ${LIMIT_MS} ms`);
        cleanUp();
        done('confine');
    }, LIMIT_MS);

    const checkProblems = checkRules(ctx);
    const confinedLines = ctx.checkOut.split('\n').filter((l) => /confined:|not enforced/.test(l));
    report(checkProblems.length === 0, 'confine: mcph --check prints the confined sections\' rules',
        checkProblems.length ? checkProblems.join(' | ') : `${confinedLines.length} lines; gaps: ${ctx.gaps.length ? ctx.gaps.map((g) => `${g.section}: ${g.text}`).join(' / ') : 'none'}`);

    const [relOk, relWhy] = relativeIni(ctx);
    report(relOk, 'confine: --check of an INI named by a relative path from another folder', relWhy);

    let s;
    try {
        // A file mcph inherits without close-on-exec, as from a careless parent: descriptor 6.
        const inherited = path.join(ws, 'inherited-secret');
        fs.writeFileSync(inherited, 'a secret of the process that started mcph\n');
        const fds = ['ignore', 'ignore', 'ignore', fs.openSync(inherited, 'r')];
        s = await startSession(MCPH, ini, { cwd: ws, setLevel: 'warning', initMs: 30000, env: { ...MCPH_ENV, [SECRET]: 'confine-secret' }, fds });
    } catch (err) {
        report(false, 'confine: mcph serves the INI', short(err.message, 1500));
        cleanUp();
        done('confine');
    }
    ctx.s = s;
    ctx.mcphPid = s.pid;
    for (const line of s.stderr.split('\n')) {
        const warn = /warning: (?:plugin (\w+):|\[plugin\.(\w+)\]) confinement: (.*)/.exec(line);
        if (warn) ctx.gaps.push({ section: warn[1] || warn[2], text: warn[3], startup: true });
    }
    // A section warned about at start-up has its gaps in --check too; without Landlock, every
    // confined section is warned about.
    const named = (startup) => new Set(ctx.gaps.filter((g) => !!g.startup === startup).map((g) => g.section));
    const [inCheck, atStart] = [named(false), named(true)];
    const unsaid = [...atStart].filter((x) => !inCheck.has(x)).map((x) => `${x}: warned at start-up, no gap in --check`);
    if (ABI === '0') {
        for (const x of ['cage', 'cagenet', 'ncage', 'ncagenet']) if (!atStart.has(x)) unsaid.push(`${x}: no start-up warning without Landlock`);
    }
    report(unsaid.length === 0, 'confine: the start-up warnings name the gaps --check prints', unsaid.join('; ') ||
        `${atStart.size} sections warned about${ABI === undefined ? '' : ` (MCPH_LANDLOCK_ABI=${ABI})`}`);
    ctx.pids = {};
    for (const sec of ['cage', 'cagenet', 'open', 'ncage', 'ncagenet', 'nopen']) {
        const ok = await s.tool(`${sec}_ok`, {}, 20000);
        ctx.pids[sec] = /^ok pid (\d+)$/.exec(ok.text || '')?.[1];
        if (!report(ctx.pids[sec], `confine: ${sec} serves`, ok.error ? short(ok.error, 200) : short(ok.text, 200))) {
            console.log(s.stderrTail(10, '\n'));
            cleanUp();
            done('confine');
        }
    }
    const { list, grants } = attempts({ ...ctx, mcphPid: s.pid });
    // The attempts on mcph itself come last: one that worked would end the run.
    const plan = [];
    for (const by of ['plugin', 'server']) {
        for (const g of grants) plan.push(() => runGrant(ctx, by, g));
        for (const a of list.filter((x) => !x.last && (!x.only || x.only === by))) plan.push(() => runAttempt(ctx, by, { ...a }));
    }
    for (const by of ['plugin', 'server']) {
        for (const a of list.filter((x) => x.last && (!x.only || x.only === by))) plan.push(() => runAttempt(ctx, by, { ...a }));
    }
    for (const step of plan) {
        if (!s.alive()) {
            report(false, 'confine: mcph ran to the end', `it ${describeExit(s.exitInfo)}; ${plan.length - plan.indexOf(step)} attempts not made`);
            break;
        }
        await step();
    }
    const st = await endSession(s);
    report(st.code === 0 && !st.signal && !st.timedOut, 'confine: mcph exits 0 at the end of input', JSON.stringify(st));
    const late = [SANITIZER_REPORT, SANITIZER_FATAL].map((re) => re.exec(s.stderr)).find(Boolean);
    report(!late, 'confine: no sanitizer report or fatal error in mcph\'s stderr', late ? short(s.stderr.slice(late.index), 400) : '');
    const mine = new Set(sleepers.map((c) => c.pid));
    const strays = () => [...pidsByMarker(ini), ...pidsByMarker(MARKER).filter((pid) => !mine.has(pid))];
    const left = (await waitFor(() => strays().length === 0, 3000)) ? [] : strays();
    report(left.length === 0, 'confine: no section process left after mcph', left.join(', '));
    clearTimeout(timer);
    cleanUp();
    for (const server of [tcp, unix, abstract]) server.close();
    printTable();
    done('confine');
}

function cleanUp() {
    endSessions();
    for (const c of sleepers) c.kill('SIGKILL');
}

if (!process.env[INSIDE]) reexec();
else await main();
