// Pinned definitions ([server] lock, docs/trust.md): node tests/trust/pin.mjs build/mcph
//
// Against the real binary, with real plugins: tests/plugins/reloadable.c rebuilt in a
// workspace (its `version` tool's description names the build), the shipped example plugin
// beside it, and a proxied fake server (tests/gateway/fake-server.mjs, mode rug-pull) through
// the mcp plugin. Checks:
// - mcph --lock writes a sorted lock file whose every hash a JavaScript rendering of the
//   canonical form (docs/trust.md) recomputes; --check then exits 0 with no drift; after a
//   rebuild with a changed description --check exits 5 and prints the diff;
// - a plugin rebuilt with a changed description is refused after SIGHUP: the diff on stderr
//   and in the client's notifications/message (once, not again on the next reload), its
//   other rows and the other plugin's still served, tools/list_changed sent, a call to the
//   refused tool answered as unknown; re-running --lock and SIGHUP serves it again;
// - a proxied server that changes echo's inputSchema and says list_changed has echo
//   withdrawn, its other tools kept;
// - lock_new = accept: --check lists the new prompt as "would pin" and writes nothing;
//   serving serves and pins it (the lock file grows), then refuses a
//   change to a pinned tool; lock_new = refuse does not serve a new prompt;
// - a bad lock file (not JSON, a row twice, a hash edited) is exit 3 naming FILE:LINE, and a
//   reload with one is refused while the running set stays; --lock without [server] lock is
//   exit 3 naming the key;
// - an isolated plugin whose child is killed and comes back with a new row: that row is
//   refused, the others stay.

import { execFile } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { check, done, expect, expectEq } from '../lib/check.mjs';
import { buildPlugin } from '../lib/plugin.mjs';
import { sanitizersOf, sleep, short, SANITIZER_REPORT } from '../lib/util.mjs';
import { writeIni } from '../lib/workspace.mjs';
import { FAKE, gatewayIni, fakeCommand, startSession as startGateway, endSession, endSessions, killMarker, pidsByMarker, waitFor, PLUGINS } from '../gateway/common.mjs';
import { TEST_PLUGINS, workspace as libWorkspace } from '../lib/workspace.mjs';

const execFileP = promisify(execFile);
const MCPH = path.resolve(process.argv[2] || 'build/mcph');
const SAN = sanitizersOf(MCPH);
const SLOW = Number(process.env.MCPH_TEST_SLOW) || (SAN.thread ? 5 : SAN.any ? 3 : 1);
const TOOLS_CHANGED = 'notifications/tools/list_changed';
const MARKER = `pin-test-${process.pid}`;

// --- The canonical form, as docs/trust.md writes it down, in another language. ---

// C's %.Pg: exponent form when the exponent is below -4 or at least P (trailing zeros cut,
// the exponent signed, two digits at least), else fixed with trailing zeros cut.
function formatG(n, p) {
    const [mant, exp] = n.toExponential(p - 1).split('e');
    const x = Number(exp);
    const trim = (t) => (t.includes('.') ? t.replace(/0+$/, '').replace(/\.$/, '') : t);
    if (x < -4 || x >= p) return `${trim(mant)}e${x < 0 ? '-' : '+'}${String(Math.abs(x)).padStart(2, '0')}`;
    return trim(n.toFixed(Math.max(0, p - 1 - x)));
}

function canonNumber(n) {
    if (!Number.isFinite(n)) return 'null';
    if (Number.isInteger(n) && Math.abs(n) <= 2 ** 53) return String(n === 0 ? 0 : n);
    for (let p = 1; p <= 17; p++) {
        if (Number(formatG(n, p)) === n) return formatG(n, p);
    }
    return formatG(n, 17);
}

function canon(v) {
    if (v === null || typeof v === 'boolean') return String(v);
    if (typeof v === 'number') return canonNumber(v);
    if (typeof v === 'string') return JSON.stringify(v);
    if (Array.isArray(v)) return `[${v.map(canon).join(',')}]`;
    const keys = Object.keys(v).sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canon(v[k])}`).join(',')}}`;
}

// The numbers of tests/unit/test_canon.c, rendered the same way here.
for (const [n, want] of [[1e20, '1e+20'], [0.5, '0.5'], [0.1, '0.1'], [1.5e-7, '1.5e-07'], [3.141592653589793, '3.141592653589793'], [1e300, '1e+300'], [-2.5, '-2.5'], [1.0000000000000002, '1.0000000000000002'], [-0, '0'], [9007199254740994, '9007199254740994']]) {
    if (canonNumber(n) !== want) throw new Error(`canonNumber(${n}) = ${canonNumber(n)}, wanted ${want}`);
}

const sha256 = (text) => crypto.createHash('sha256').update(text, 'utf8').digest('hex');

// --- Helpers. ---

// A fresh build/tests/trust/<name>/, with the fake server linked in (gatewayIni's commands
// name it fake.mjs, relative to the workspace).
function workspace(name) {
    const ws = libWorkspace('trust', name);
    fs.symlinkSync(FAKE, path.join(ws, 'fake.mjs'));
    return ws;
}

// The sessions of the step running: what they saw that breaks the protocol, and a sanitizer's
// report in mcph's stderr, fail it too.
let current = [];
async function startSession(mcph, ini, opts) {
    const s = await startGateway(mcph, ini, opts);
    current.push(s);
    return s;
}

function problems() {
    const all = current.flatMap((s) => {
        const report = SANITIZER_REPORT.exec(s.stderr);
        return [...s.problems(), ...(report ? [`sanitizer report: ${short(s.stderr.slice(report.index), 400)}`] : [])];
    });
    current = [];
    return all;
}

const step = (name, fn) => check(`pin ${name}`, fn, { problems });

// mcph with args; { code, stdout, stderr } (throws for a sanitizer's report, not for an exit
// status).
async function run(args, ms = 60000 * SLOW) {
    let r;
    try {
        const out = await execFileP(MCPH, args, { timeout: ms });
        r = { code: 0, stdout: out.stdout, stderr: out.stderr };
    } catch (err) {
        r = { code: err.code, stdout: err.stdout || '', stderr: err.stderr || '' };
    }
    const report = SANITIZER_REPORT.exec(r.stderr);
    expect(!report, `mcph ${args.join(' ')}: sanitizer report: ${report ? short(r.stderr.slice(report.index), 400) : ''}`);
    return r;
}

const reloadable = (ws, defines = []) => buildPlugin('tests/plugins/reloadable.c', path.join(ws, 'r.so'), { defines });
const VERSION = (v) => `RELOADABLE_VERSION="${v}"`;

// An INI with reloadable (r.so, in the workspace) and the shipped example plugin.
function pluginIni(ws, server = {}) {
    return writeIni(ws, {
        server: { plugin_dir: '.', lock: 'mcph.lock', ...server },
        'plugin.r': { path: 'r.so' },
        'plugin.ex': { path: path.join(PLUGINS, 'example.so'), prefix: 'ex' },
    });
}

// The rows of a lock file: [{ line, row }].
function lockRows(file) {
    return fs.readFileSync(file, 'utf8').split('\n').map((text, i) => ({ text, line: i + 1 }))
        .filter((l) => l.text !== '' && !l.text.startsWith('#')).map((l) => ({ line: l.line, row: JSON.parse(l.text) }));
}

// A SIGHUP and what followed, until tools/list_changed (or `ms`) and a quiet moment.
async function hup(s, wantChange = true) {
    const m = s.mark();
    s.kill('SIGHUP');
    if (wantChange) await s.waitNotes(m, (notes) => notes.some((n) => n.method === TOOLS_CHANGED), 10000 * SLOW);
    await sleep(300 * SLOW);
    await s.call('ping');
    await sleep(200);
    return s.since(m);
}

const said = (w, part) => w.messages.filter((p) => String(p.data).includes(part));

// --- Cases. ---

await step('lock then check round-trips; a changed description is drift', async () => {
    const ws = workspace('pin-lock');
    await reloadable(ws, [VERSION('one')]);
    const ini = pluginIni(ws);
    const lock = path.join(ws, 'mcph.lock');
    const l = await run(['--lock', ini]);
    expectEq(l.code, 0, `--lock exit status (stderr: ${l.stderr.slice(0, 300)})`);
    const rows = lockRows(lock);
    expect(/^mcph: pinned \d+ definitions in /.test(l.stdout), `--lock says how many it pinned: ${l.stdout}`);
    expectEq(Number(l.stdout.match(/pinned (\d+)/)[1]), rows.length, 'the count said is the rows written');
    expect(fs.readFileSync(lock, 'utf8').startsWith('# mcph lock file'), 'a header line says what the file is');
    expectEq((fs.statSync(lock).mode & 0o777).toString(8), '644', 'the lock file mode');
    const keys = rows.map(({ row }) => `${row.kind}\u0000${row.name}`);
    expectEq(keys, [...keys].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b))), 'rows sorted by kind, then name');
    for (const { row, line } of rows) {
        expectEq(Object.keys(row), ['kind', 'name', 'plugin', 'sha256', 'definition'], `line ${line} members`);
        expectEq(sha256(canon(row.definition)), row.sha256, `line ${line}: the hash recomputed from the canonical form`);
    }
    const version = rows.find(({ row }) => row.kind === 'tool' && row.name === 'version');
    expect(version && version.row.plugin === 'r', 'the version tool is pinned for [plugin.r]');
    expect(rows.some(({ row }) => row.name === 'ex_echo' && row.plugin === 'ex'), 'names are pinned with their prefix');
    const c = await run(['--check', ini]);
    expectEq(c.code, 0, `--check right after --lock (stdout: ${c.stdout.slice(-300)})`);
    expect(!c.stdout.includes('DRIFT'), '--check prints no drift');
    await reloadable(ws, [VERSION('two')]);
    const d = await run(['--check', ini]);
    expectEq(d.code, 5, '--check after a rebuild with a changed description');
    expect(d.stdout.includes("DRIFT") && d.stdout.includes("[plugin.r] tool 'version'"), `--check names the row: ${d.stdout.slice(-400)}`);
    expect(d.stdout.includes('description: "Says which build of the plugin runs: one" -> "Says which build of the plugin runs: two"'),
        `--check prints the diff: ${d.stdout.slice(-400)}`);
    expect(!/^r +tool +version/m.test(d.stdout), '--check does not list the refused row as served');
    return `${rows.length} rows`;
});

await step('--lock without [server] lock, and a bad lock file, are config errors', async () => {
    const ws = workspace('pin-bad');
    await reloadable(ws);
    const none = writeIni(ws, { server: { plugin_dir: '.' }, 'plugin.r': { path: 'r.so' } }, 'none.ini');
    const n = await run(['--lock', none]);
    expectEq(n.code, 3, '--lock with no [server] lock');
    expect(n.stderr.includes('[server] lock') && n.stderr.includes('lock = '), `says what to add: ${n.stderr}`);
    const ini = pluginIni(ws);
    const missing = await run(['--check', ini]);
    expectEq(missing.code, 3, 'a lock file that does not exist (lock_new = refuse)');
    expect(missing.stderr.includes('mcph --lock'), `says how to write it: ${missing.stderr}`);
    expectEq((await run(['--lock', ini])).code, 0, '--lock');
    const lock = path.join(ws, 'mcph.lock');
    const good = fs.readFileSync(lock, 'utf8').split('\n');
    const cases = [
        ['not JSON', (t) => t.splice(2, 0, '{"kind":"tool",'), 3],
        ['a row twice', (t) => t.splice(3, 0, t[2]), 4],
        ['a hash edited', (t) => { t[1] = t[1].replace(/"sha256":"./, '"sha256":"z'); }, 2],
        ['a definition edited', (t) => { t[2] = t[2].replace('"definition":{', '"definition":{"x":1,'); }, 3],
    ];
    for (const [what, edit, line] of cases) {
        const text = [...good];
        edit(text);
        fs.writeFileSync(lock, text.join('\n'));
        const r = await run(['--check', ini]);
        expectEq(r.code, 3, `${what}: exit status`);
        expect(r.stderr.includes(`${lock}:${line}:`), `${what}: names ${lock}:${line}: ${r.stderr.slice(0, 400)}`);
    }
    fs.writeFileSync(lock, good.join('\n'));
    // A reload with a bad lock file is refused; the running set stays.
    const s = await startSession(MCPH, ini, { setLevel: 'info' });
    try {
        const before = await s.names('tools');
        fs.writeFileSync(lock, `${good.join('\n')}garbage\n`);
        const w = await hup(s, false);
        expect(w.stderr.includes('reload refused') && w.stderr.includes(`${lock}:`), `the reload is refused naming the file: ${w.stderr.slice(0, 400)}`);
        expectEq(await s.names('tools'), before, 'the running set stays');
        expectEq(w.listChanged, [], 'no list_changed');
    } finally {
        await endSession(s);
    }
});

await step('a plugin rebuilt with a changed description is refused after SIGHUP', async () => {
    const ws = workspace('pin-hup');
    await reloadable(ws, [VERSION('one')]);
    const ini = pluginIni(ws);
    expectEq((await run(['--lock', ini])).code, 0, '--lock');
    const s = await startSession(MCPH, ini, { setLevel: 'info' });
    try {
        const before = await s.names('tools');
        expect(before.includes('version') && before.includes('label') && before.includes('ex_echo'), `served at start: ${before}`);
        await reloadable(ws, [VERSION('two')]);
        const w = await hup(s);
        expectEq(w.listChanged, [TOOLS_CHANGED], 'list_changed after the refusal');
        const diff = 'description: "Says which build of the plugin runs: one" -> "Says which build of the plugin runs: two"';
        expect(w.stderr.includes("[plugin.r] tool 'version' differs from its pinned definition") && w.stderr.includes(diff),
            `stderr names the section, the row and the diff: ${w.stderr.slice(0, 600)}`);
        const told = said(w, "[plugin.r] tool 'version'");
        expect(told.length === 1 && String(told[0].data).includes(diff) && ['warning', 'error'].includes(told[0].level),
            `the client's log says it once, with the diff: ${JSON.stringify(w.messages).slice(0, 600)}`);
        const after = await s.names('tools');
        expectEq(after, before.filter((n) => n !== 'version'), 'the other rows stay, in order');
        const r = await s.call('tools/call', { name: 'version', arguments: {} });
        expect(r.error && /Unknown tool/.test(r.error.message), `a call to the refused tool is unknown: ${JSON.stringify(r)}`);
        const label = await s.tool('label');
        expectEq(label.text, 'none', "the plugin's other tool answers");
        // Said once: a reload that changes nothing says nothing again.
        const again = await hup(s, false);
        expect(!again.stderr.includes("tool 'version'") && said(again, "tool 'version'").length === 0,
            `not said again on the next reload: ${again.stderr.slice(0, 300)}`);
        expectEq(again.listChanged, [], 'no list_changed when nothing changed');
        // Accepting the change: lock again, then reload.
        expectEq((await run(['--lock', ini])).code, 0, '--lock again');
        const back = await hup(s);
        expectEq(back.listChanged, [TOOLS_CHANGED], 'list_changed when it comes back');
        expectEq((await s.tool('version')).text, 'two', 'served again once locked again');
    } finally {
        await endSession(s);
    }
});

await step('a proxied server that changes a schema has that tool withdrawn', async () => {
    const ws = workspace('pin-proxy');
    const ini = gatewayIni(ws, { fake: { command: fakeCommand('rug-pull', MARKER) } }, { lock: 'mcph.lock' });
    const l = await run(['--lock', ini]);
    expectEq(l.code, 0, `--lock (stderr: ${l.stderr.slice(0, 300)})`);
    const s = await startSession(MCPH, ini, { setLevel: 'info' });
    try {
        const before = await s.names('tools');
        expect(before.includes('fake_echo') && before.includes('fake_pull'), `proxied tools served: ${before}`);
        const m = s.mark();
        expectEq((await s.tool('fake_pull')).text, 'pulled', 'the server changes echo');
        const ok = await s.waitNotes(m, (notes) => notes.some((n) => n.method === TOOLS_CHANGED), 10000 * SLOW);
        expect(ok, 'tools/list_changed after the refresh');
        await sleep(300 * SLOW);
        const w = s.since(m);
        const after = await s.names('tools');
        expectEq(after, before.filter((n) => n !== 'fake_echo'), 'echo withdrawn, the other tools kept');
        expect(w.stderr.includes("[plugin.fake] tool 'fake_echo'") && w.stderr.includes('inputSchema.properties.path: added'),
            `the refusal names the new property: ${w.stderr.slice(0, 600)}`);
        expect(said(w, 'inputSchema.properties.path: added').length === 1, "the client's log says it");
        expectEq((await s.tool('fake_pid')).isError, false, 'another proxied tool answers');
    } finally {
        await endSession(s);
        killMarker(MARKER);
    }
});

await step('lock_new = accept pins a new row; refuse does not serve it', async () => {
    const ws = workspace('pin-new');
    await reloadable(ws, [VERSION('one')]);
    const ini = pluginIni(ws, { lock_new: 'accept' });
    const lock = path.join(ws, 'mcph.lock');
    expectEq((await run(['--lock', ini])).code, 0, '--lock');
    const pinned = lockRows(lock).length;
    const s = await startSession(MCPH, ini, { setLevel: 'info' });
    try {
        await reloadable(ws, [VERSION('one'), 'RELOADABLE_PROMPT']);
        // --check says what serving would pin, and writes nothing.
        const before = fs.readFileSync(lock, 'utf8');
        const c = await run(['--check', ini]);
        expectEq(c.code, 0, `--check with a new row and lock_new = accept (stderr: ${c.stderr.slice(0, 300)})`);
        expect(c.stdout.includes("[plugin.r] prompt 'reloadable_prompt': would pin"), `--check lists the row it would pin: ${c.stdout.slice(-400)}`);
        expectEq(fs.readFileSync(lock, 'utf8'), before, '--check leaves the lock file as it was');
        const m = s.mark();
        s.kill('SIGHUP');
        const ok = await s.waitNotes(m, (notes) => notes.some((n) => n.method === 'notifications/prompts/list_changed'), 10000 * SLOW);
        expect(ok, 'prompts/list_changed for the new prompt');
        expect((await s.names('prompts')).includes('reloadable_prompt'), 'the new prompt is served');
        const rows = lockRows(lock);
        expectEq(rows.length, pinned + 1, 'the lock file grew by one row');
        expect(rows.some(({ row }) => row.kind === 'prompt' && row.name === 'reloadable_prompt' && row.plugin === 'r'), 'the new prompt is pinned');
        expect(fs.readdirSync(ws).every((f) => !f.startsWith('mcph.lock.')), `no temporary file left: ${fs.readdirSync(ws)}`);
        // A change to a pinned row is refused even so.
        await reloadable(ws, [VERSION('two'), 'RELOADABLE_PROMPT']);
        const w = await hup(s);
        expect(!(await s.names('tools')).includes('version'), 'a changed row is not accepted');
        expect(w.stderr.includes("tool 'version' differs"), 'and the refusal is said');
        expectEq(lockRows(lock).length, pinned + 1, 'nothing more pinned');
    } finally {
        await endSession(s);
    }
    // lock_new = refuse (the default).
    const ws2 = workspace('pin-refuse');
    await reloadable(ws2, [VERSION('one')]);
    const ini2 = pluginIni(ws2);
    const lock2 = path.join(ws2, 'mcph.lock');
    expectEq((await run(['--lock', ini2])).code, 0, '--lock');
    const text = fs.readFileSync(lock2, 'utf8');
    const s2 = await startSession(MCPH, ini2, { setLevel: 'info' });
    try {
        const prompts = await s2.names('prompts');
        await reloadable(ws2, [VERSION('one'), 'RELOADABLE_PROMPT']);
        const w = await hup(s2, false);
        expectEq(await s2.names('prompts'), prompts, 'the new prompt is not served');
        expect(w.stderr.includes("[plugin.r] prompt 'reloadable_prompt' is not in the lock file"), `the refusal is said: ${w.stderr.slice(0, 400)}`);
        expectEq(fs.readFileSync(lock2, 'utf8'), text, 'the lock file is unchanged');
    } finally {
        await endSession(s2);
    }
});

await step("an isolated plugin's child started again with other rows goes through the check", async () => {
    const ws = workspace('pin-isolated');
    const rows = path.join(ws, 'rows.txt');
    fs.writeFileSync(rows, 'tool alpha\n');
    const ini = writeIni(ws, {
        server: { plugin_dir: TEST_PLUGINS, lock: 'mcph.lock' },
        'plugin.def': { path: 'defines.so', list: 'rows.txt', isolate: 'process' },
    });
    expectEq((await run(['--lock', ini])).code, 0, '--lock');
    const s = await startSession(MCPH, ini, { setLevel: 'info' });
    try {
        expect((await s.names('tools')).includes('alpha'), 'alpha served');
        fs.writeFileSync(rows, 'tool alpha\ntool beta\n');
        const child = () => pidsByMarker(ini).filter((pid) => {
            try {
                return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').includes('--isolated');
            } catch {
                return false;
            }
        });
        const pids = child();
        expectEq(pids.length, 1, 'one child');
        const m = s.mark();
        process.kill(pids[0], 'SIGKILL');
        const refused = await waitFor(() => s.stderr.slice(m.stderr).includes("[plugin.def] tool 'beta' is not in the lock file"), 20000 * SLOW);
        expect(refused, `the new row of the restarted child is refused: ${s.stderr.slice(m.stderr).slice(0, 600)}`);
        const names = await s.names('tools');
        expect(names.includes('alpha') && !names.includes('beta'), `alpha stays, beta is not served: ${names}`);
    } finally {
        await endSession(s);
    }
});

endSessions();
done('trust pin');
