// Scaffolding end to end: node tests/reload/scaffold.mjs build/mcph
//
// In a copy of the tree's build files (Makefile, plugin-api/, plugins/example/) under
// build/tests/reload/scaffold/, `make plugin NAME=...` must create plugins/NAME/NAME.c from
// the starter, enable [plugin.NAME] in the INI it is given, and build it; a running mcph
// must then serve the new tool after a SIGHUP, and a mcph in watch mode without any signal.
// Bad names and an existing plugin are refused with a message and exit status 2. Prints
// "ok NAME" / "FAIL NAME: why" per check and "N passed, N failed"; exits 1 on a failure.

import { execFile } from 'node:child_process';
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
    for (const rel of ['Makefile', 'plugin-api', 'plugins/example', 'conf/sample.sql']) {
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

// make -C tree plugin NAME=name CONF=conf/test.ini; resolves { code, out }.
async function makePlugin(tree, name) {
    const env = { ...process.env };
    for (const k of ['MAKEFLAGS', 'MFLAGS', 'MAKELEVEL']) delete env[k];
    try {
        const r = await execFileP('make', ['-C', tree, '--no-print-directory', 'plugin', `NAME=${name}`, 'CONF=conf/test.ini'],
            { env, timeout: 120_000 });
        return { code: 0, out: r.stdout + r.stderr };
    } catch (err) {
        return { code: err.code ?? -1, out: `${err.stdout || ''}${err.stderr || ''}` };
    }
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
            if (!/^\[plugin\.scaffolded\]\npath = scaffolded\.so\n;.*\nisolate = process$/m.test(fs.readFileSync(ini, 'utf8'))) {
                problems.push('no [plugin.scaffolded] with isolate = process in the INI');
            }
            return problems.length ? problems : 'created, enabled, built';
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
