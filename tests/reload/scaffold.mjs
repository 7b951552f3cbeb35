// Scaffolding end to end: node tests/reload/scaffold.mjs build/mcph
//
// In a copy of the tree's build files (Makefile, plugin-api/, plugins/example/) under
// build/tests/reload/scaffold/, `make plugin NAME=...` must create plugins/NAME/NAME.c from
// the starter, enable [plugin.NAME] in the INI it is given, and build it; a running mcph
// must then serve the new tool after a SIGHUP, and a mcph in watch mode without any signal.
// The section written is isolated and confined to reading the plugin's folder: mcph --check
// prints its "confined:" block.
// Bad names and an existing plugin are refused with a message and exit status 2. Without
// CONF=, make plugin leaves the tracked conf/mcph.ini as it is and writes conf/local.ini (made
// from it). `make run` puts nothing but the protocol on stdout. Prints
// "ok NAME" / "FAIL NAME: why" per check and "N passed, N failed"; exits 1 on a failure.

import { execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { ROOT, Session, workspace, sleep } from './lib.mjs';
import { check, done } from '../lib/check.mjs';

const execFileP = promisify(execFile);
const MCPH = process.argv[2] ? path.resolve(process.argv[2]) : path.join(ROOT, 'build/mcph');
const TOOLS = 'notifications/tools/list_changed';

// A copy of what `make plugin` needs, and nothing of the real tree's plugins/ or build/.
function makeTree(ws) {
    const tree = path.join(ws, 'tree');
    for (const rel of ['Makefile', 'plugin-api', 'plugins/example', 'conf/sample.sql', 'conf/mcph.ini']) {
        fs.cpSync(path.join(ROOT, rel), path.join(tree, rel), { recursive: true });
    }
    fs.mkdirSync(path.join(tree, 'build/plugins'), { recursive: true });
    for (const d of [tree, path.join(tree, 'build'), path.join(tree, 'build/plugins')]) fs.chmodSync(d, 0o755);
    fs.copyFileSync(path.join(ROOT, 'build/plugins/example.so'), path.join(tree, 'build/plugins/example.so'));
    fs.chmodSync(path.join(tree, 'build/plugins/example.so'), 0o755);
    const ini = path.join(tree, 'conf/test.ini');
    fs.writeFileSync(ini, `[server]\nname = scaffold\nplugin_dir = ../build/plugins\n\n[plugin.example]\npath = example.so\n`);
    return { tree, ini };
}

// make -C tree plugin NAME=name CONF=conf/test.ini (no CONF= when conf is null); resolves
// { code, out }.
async function makePlugin(tree, name, conf = 'conf/test.ini') {
    const env = { ...process.env };
    for (const k of ['MAKEFLAGS', 'MFLAGS', 'MAKELEVEL']) delete env[k];
    try {
        const r = await execFileP('make', ['-C', tree, '--no-print-directory', 'plugin', `NAME=${name}`, ...(conf ? [`CONF=${conf}`] : [])],
            { env, timeout: 120_000 });
        return { code: 0, out: r.stdout + r.stderr };
    } catch (err) {
        return { code: err.code ?? -1, out: `${err.stdout || ''}${err.stderr || ''}` };
    }
}

// stdout and stderr of mcph --check ini (whatever its exit status).
async function checkOutput(ini) {
    try {
        const r = await execFileP(MCPH, ['--check', ini], { timeout: 60_000 });
        return r.stdout + r.stderr;
    } catch (err) {
        return `${err.stdout || ''}${err.stderr || ''}`;
    }
}

// The "  confined:" block --check prints under [plugin.id]'s line: its text, or null.
function confinedBlock(out, id) {
    const lines = out.split('\n');
    const start = lines.findIndex((l, i) => /^\s+confined:/.test(l) && lines.slice(0, i).reverse().find((x) => /\[plugin\./.test(x))?.includes(`[plugin.${id}]`));
    if (start < 0) return null;
    const end = lines.findIndex((l, i) => i > start && !/^\s{4,}\S/.test(l));
    return lines.slice(start, end < 0 ? undefined : end).join('\n');
}

const hasTool = (s, tool) => s.names('tools').then((n) => n.includes(tool));

// The pids of the processes serving [plugin.id] of ini alone (mcph --isolated id ini).
function isolatedChildren(id, ini) {
    const want = `--isolated\0${id}\0${fs.realpathSync(ini)}\0`;
    const pids = [];
    for (const pid of fs.readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
        try {
            if (fs.readFileSync(`/proc/${pid}/cmdline`, 'latin1').includes(want)) pids.push(pid);
        } catch { /* gone */ }
    }
    return pids;
}

// `make run` in the tree (serving conf/test.ini with this mcph), one initialize, then the end
// of input: resolves { code, stdout, stderr }.
function makeRun(tree) {
    const env = { ...process.env };
    for (const k of ['MAKEFLAGS', 'MFLAGS', 'MAKELEVEL']) delete env[k];
    return new Promise((resolve) => {
        // As a user runs it, in the tree (make -C prints "Entering directory" on stdout: a
        // client starting mcph from elsewhere runs make -s -C DIR run).
        const child = spawn('make', ['run', `MCPH=${MCPH}`, 'RUN_CONF=conf/test.ini'], { env, cwd: tree });
        let stdout = '';
        let stderr = '';
        const timer = setTimeout(() => child.kill('SIGKILL'), 120_000);
        child.stdout.on('data', (d) => { stdout += d; });
        child.stderr.on('data', (d) => { stderr += d; });
        child.on('close', (code) => {
            clearTimeout(timer);
            resolve({ code, stdout, stderr });
        });
        child.stdin.end(`${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'scaffold', version: '1' } } })}\n`);
    });
}

async function main() {
    const ws = workspace('scaffold');
    const { tree, ini } = makeTree(ws);
    const hup = new Session(MCPH, ini, { setLevel: null });
    const watch = new Session(MCPH, ini, { setLevel: null, watch: true });
    await hup.start();
    await watch.start();
    try {
        await check('before: no scaffolded tool', async () =>
            (await hasTool(hup, 'scaffolded_hello')) ? ['scaffolded_hello already served'] : 'example only');

        const m = hup.mark();
        const made = await makePlugin(tree, 'scaffolded');
        await check('make plugin NAME=scaffolded', async () => {
            const problems = [];
            if (made.code !== 0) problems.push(`exit ${made.code}: ${made.out.slice(-400)}`);
            const src = path.join(tree, 'plugins/scaffolded/scaffolded.c');
            if (!fs.existsSync(src)) problems.push('no plugins/scaffolded/scaffolded.c');
            else if (/starter/.test(fs.readFileSync(src, 'utf8'))) problems.push('the source still says starter');
            if (!fs.existsSync(path.join(tree, 'build/plugins/scaffolded.so'))) problems.push('no build/plugins/scaffolded.so');
            if (!/^\[plugin\.scaffolded\]\npath = scaffolded\.so\n;.*\nisolate = process\n;.*\nread = \.\.\/plugins\/scaffolded$/m.test(fs.readFileSync(ini, 'utf8'))) {
                problems.push('no [plugin.scaffolded] with isolate = process and read = ../plugins/scaffolded in the INI');
            }
            return problems.length ? problems : 'created, enabled, built';
        });

        // The section is confined: --check prints its rules, which grant the plugin's folder.
        await check('mcph --check: [plugin.scaffolded] is confined to its folder', async () => {
            const out = await checkOutput(ini);
            const block = confinedBlock(out, 'scaffolded');
            if (block === null) return [`no "confined:" block for [plugin.scaffolded] in: ${out.slice(-600)}`];
            const folder = fs.realpathSync(path.join(tree, 'plugins/scaffolded'));
            const read = (/^\s+read:\s+(.*)$/m.exec(block) || [])[1] || '';
            const granted = read.split(/\s+/).filter(Boolean);
            const hits = granted.filter((w) => fs.existsSync(w) && fs.realpathSync(w) === folder);
            if (hits.length !== 1 || granted.length !== 1) return [`read: ${JSON.stringify(read)}, want ${folder} alone`];
            return `confined, read: ${read}`;
        });

        // Watch mode picks it up alone (the INI and a new .so changed).
        await check('watch mode serves it without a signal', async () => {
            const got = await watch.waitNotes(m, (n) => n.some((x) => x.method === TOOLS), 8000);
            if (!got) return ['no tools/list_changed within 8 s'];
            const r = await watch.tool('scaffolded_hello', { name: 'Ada' });
            return r.text === 'Hello, Ada! (from the scaffolded plugin)' ? 'tools/list_changed, tool served' : [`got ${JSON.stringify(r)}`];
        });

        // The SIGHUP server has not reloaded yet: nothing new until the signal.
        await check('SIGHUP serves it', async () => {
            if (await hasTool(hup, 'scaffolded_hello')) return ['served before the SIGHUP'];
            const w = await hup.window(() => hup.hup());
            const problems = [];
            if (!w.listChanged.includes(TOOLS)) problems.push(`list_changed after SIGHUP: [${w.listChanged}]`);
            const r = await hup.tool('scaffolded_hello', {});
            if (r.text !== 'Hello, world! (from the scaffolded plugin)') problems.push(`tools/call: ${JSON.stringify(r)}`);
            const children = isolatedChildren('scaffolded', ini);
            if (children.length !== 2) problems.push(`processes serving [plugin.scaffolded]: ${children.length}, want 2 (one per server)`);
            const e = await hup.tool('echo', { text: 'still here' });
            if (e.text !== 'still here') problems.push(`the example plugin: ${JSON.stringify(e)}`);
            return problems.length ? problems : 'tools/list_changed, tool served, example still served';
        });

        await check('make plugin refuses an existing plugin', async () => {
            const r = await makePlugin(tree, 'scaffolded');
            return r.code === 2 && /plugins\/scaffolded exists already/.test(r.out) ? 'exit 2' : [`exit ${r.code}: ${r.out.slice(-300)}`];
        });
        for (const bad of ['Bad', '9lives', 'a-b', '']) {
            await check(`make plugin refuses NAME=${JSON.stringify(bad)}`, async () => {
                const r = await makePlugin(tree, bad);
                const problems = [];
                if (r.code !== 2 || !/usage: make plugin NAME=foo/.test(r.out)) problems.push(`exit ${r.code}: ${r.out.slice(-300)}`);
                if (bad && fs.existsSync(path.join(tree, 'plugins', bad))) problems.push(`plugins/${bad} was created`);
                return problems.length ? problems : 'exit 2';
            });
        }
        await check('make plugin without CONF= leaves conf/mcph.ini as shipped', async () => {
            const shipped = fs.readFileSync(path.join(tree, 'conf/mcph.ini'), 'utf8');
            const r = await makePlugin(tree, 'unlisted', null);
            const problems = [];
            const local = path.join(tree, 'conf/local.ini');
            if (r.code !== 0) problems.push(`exit ${r.code}: ${r.out.slice(-400)}`);
            if (fs.readFileSync(path.join(tree, 'conf/mcph.ini'), 'utf8') !== shipped) problems.push('conf/mcph.ini changed');
            if (!fs.existsSync(local)) problems.push('no conf/local.ini');
            else {
                const text = fs.readFileSync(local, 'utf8');
                if (!text.includes(shipped)) problems.push('conf/local.ini lacks conf/mcph.ini');
                if (!/^\[plugin\.unlisted\]\npath = unlisted\.so$/m.test(text)) problems.push('conf/local.ini lacks [plugin.unlisted]');
            }
            if (!/conf\/local\.ini/.test(r.out)) problems.push(`the output does not name conf/local.ini: ${r.out.slice(-300)}`);
            return problems.length ? problems : 'conf/local.ini made from it, the plugin enabled there';
        });

        await check('make run: stdout is only the protocol', async () => {
            const r = await makeRun(tree);
            const lines = r.stdout.split('\n').filter((l) => l !== '');
            const bad = lines.filter((l) => {
                try {
                    return JSON.parse(l).jsonrpc !== '2.0';
                } catch {
                    return true;
                }
            });
            const problems = [];
            if (r.code !== 0) problems.push(`exit ${r.code}: ${r.stderr.slice(-400)}`);
            if (bad.length) problems.push(`not protocol on stdout: ${JSON.stringify(bad.slice(0, 3))}`);
            if (!lines.some((l) => /"id":1,"result"/.test(l))) problems.push(`no initialize result: ${r.stdout.slice(0, 300)}`);
            if (!/serving conf\/test\.ini/.test(r.stderr)) problems.push(`stderr does not say what is served: ${r.stderr.slice(-300)}`);
            return problems.length ? problems : `${lines.length} protocol line(s) on stdout, the rest on stderr`;
        });
        await check('no schema or protocol problem', async () => [...hup.problems(), ...watch.problems()]);
    } finally {
        for (const s of [hup, watch]) {
            const st = await s.stop().catch(() => null);
            if (!st) s.kill('SIGKILL');
        }
    }
    await sleep(10);
    fs.rmSync(ws, { recursive: true, force: true });
    done();
}

main().catch((err) => {
    console.error(err);
    process.exit(1);
});
