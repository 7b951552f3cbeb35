// Reload tests: node tests/reload/reload.mjs build/mcph [case-name...]
//
// Each case gets a fresh workspace build/tests/reload/<case>/ (mode 0755) holding copies of
// the test plugins or rebuilt variants of tests/plugins/reloadable.c and an INI with
// plugin_dir = . ; it starts mcph, initializes (2025-11-25), sends notifications/initialized
// and logging/setLevel info (unless the case says otherwise), validates every message mcph
// sends against the schema of the negotiated revision, triggers reloads (SIGHUP, or file
// changes in --watch mode) and checks the exact set of list_changed notifications that follow
// (collected until a ping sent 300 ms after the trigger is answered and then 250 ms of
// silence), the lists, tool calls and the error reports. Prints one line per case and
// "N passed, N failed"; exits 1 when a case failed.

import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { promisify } from 'node:util';
import {
    ROOT, Session, workspace, copyPlugin, buildReloadable, buildReloadableAtomic, writeIni,
    section, iniText, sleep, sameMethods, methodsText, median, toolOutcome,
} from './lib.mjs';
import { Case } from '../lib/check.mjs';

const execFileP = promisify(execFile);

const TOOLS = 'notifications/tools/list_changed';
const RESOURCES = 'notifications/resources/list_changed';
const PROMPTS = 'notifications/prompts/list_changed';

const MCPH = process.argv[2] ? path.resolve(process.argv[2]) : path.join(ROOT, 'build/mcph');
const ONLY = process.argv.slice(3);
const CASE_LIMIT_MS = 90_000;

if (!fs.existsSync(MCPH)) {
    console.error(`usage: node tests/reload/reload.mjs build/mcph [case...]\nno such file: ${MCPH}`);
    process.exit(2);
}

// --- Case machinery. ---

class Ctx extends Case {
    constructor(name) {
        super(name);
        this.sessions = [];
    }

    async session(ini, opts = {}) {
        const s = new Session(MCPH, ini, opts);
        this.sessions.push(s);
        return s.start();
    }

    // Exactly these list_changed methods (no duplicates, no others).
    expectLists(w, want, when) {
        this.check(sameMethods(w.listChanged, want),
            `${when}: list_changed received ${methodsText(w.listChanged)}, expected exactly ${methodsText(want)}`);
    }

    // A notifications/message at level error whose data contains every one of `parts`.
    expectError(w, parts, when) {
        const hit = w.messages.find((m) => m.level === 'error' &&
            parts.every((p) => String(m.data).includes(p)));
        this.check(hit, `${when}: no notifications/message level "error" naming ${parts.map((p) => JSON.stringify(p)).join(' and ')}; ` +
            `got ${JSON.stringify(w.messages.map((m) => `${m.level}: ${m.data}`))}`);
        this.check(w.stderr.split('\n').some((l) => l.startsWith('mcph: error: ') && parts.every((p) => l.includes(p))),
            `${when}: no "mcph: error:" line on stderr naming ${parts.join(', ')}; stderr: ${w.stderr.slice(0, 600)}`);
        return hit;
    }

    expectNoErrors(w, when) {
        const errs = w.messages.filter((m) => ['error', 'critical', 'alert', 'emergency'].includes(m.level));
        this.check(errs.length === 0, `${when}: unexpected error messages: ${JSON.stringify(errs)}`);
    }

    async expectTool(s, name, args, text, when) {
        const r = await s.tool(name, args);
        if (r.error) {
            this.check(false, `${when}: tools/call ${name} ${JSON.stringify(args)} got error ${JSON.stringify(r.error)}, expected text ${JSON.stringify(text)}`);
            return r;
        }
        this.check(!r.isError && r.text === text,
            `${when}: tools/call ${name} ${JSON.stringify(args)} returned ${JSON.stringify(r.text)}${r.isError ? ' (isError)' : ''}, expected ${JSON.stringify(text)}`);
        return r;
    }
}

const cases = [];
function defCase(name, fn) {
    cases.push({ name, fn });
}

// --- Small helpers. ---

const BASIC_TOOLS = ['echo', 'sleep', 'overlap', 'greet', 'fail', 'boom'];

function lineOf(file, needle) {
    const lines = fs.readFileSync(file, 'utf8').split('\n');
    const i = lines.findIndex((l) => l.includes(needle));
    return i + 1;
}

// "/a/./b" -> "/a/b" inside a message, to compare paths.
function normPaths(text) {
    return String(text).replace(/\/(\.\/)+/g, '/');
}

function descriptionOf(tools, name) {
    const t = tools.find((x) => x.name === name);
    return t ? t.description : undefined;
}

// Basic + reloadable (version "one": the copy from build/tests/plugins).
function basicReloadableWs(name, { label } = {}) {
    const ws = workspace(name);
    copyPlugin(ws, 'basic');
    copyPlugin(ws, 'reloadable');
    const ini = writeIni(ws, iniText([section('basic'), section('reloadable', { label })]));
    return { ws, ini };
}

// --- Cases. ---

for (const rev of ['2025-11-25', '2025-06-18']) defCase(`enable-disable-${rev}`, async (t) => {
    const ws = workspace(`enable-disable-${rev}`);
    copyPlugin(ws, 'basic');
    copyPlugin(ws, 'reloadable');
    const ini = writeIni(ws, iniText([section('basic')]));
    const s = await t.session(ini, { rev });
    t.check(s.rev === rev, `initialize negotiated ${s.rev}, asked ${rev}`);
    const tools0 = await s.names('tools');
    const res0 = await s.names('resources');
    t.check(JSON.stringify(tools0) === JSON.stringify(BASIC_TOOLS), `start: tools ${JSON.stringify(tools0)}`);

    writeIni(ws, iniText([section('basic'), section('reloadable')]));
    let w = await s.window(() => s.hup());
    t.expectLists(w, [TOOLS, RESOURCES], 'enable reloadable');
    t.expectNoErrors(w, 'enable reloadable');
    const tools1 = await s.names('tools');
    t.check(['version', 'label', 'slow'].every((n) => tools1.includes(n)) && BASIC_TOOLS.every((n) => tools1.includes(n)),
        `after enabling, tools/list is ${JSON.stringify(tools1)}`);
    t.check((await s.names('resources')).includes('reloadable://info'), 'after enabling, resources/list lacks reloadable://info');
    await t.expectTool(s, 'version', {}, 'one', 'after enabling');

    writeIni(ws, iniText([section('basic'), section('reloadable', { enabled: 'no' })]));
    w = await s.window(() => s.hup());
    t.expectLists(w, [TOOLS, RESOURCES], 'disable reloadable');
    t.expectNoErrors(w, 'disable reloadable');
    const tools2 = await s.names('tools');
    const res2 = await s.names('resources');
    t.check(JSON.stringify(tools2) === JSON.stringify(tools0), `after disabling, tools ${JSON.stringify(tools2)}, expected ${JSON.stringify(tools0)}`);
    t.check(JSON.stringify(res2) === JSON.stringify(res0), `after disabling, resources ${JSON.stringify(res2)}, expected ${JSON.stringify(res0)}`);
    const gone = await s.tool('version');
    t.check(gone.error && gone.error.code === -32602, `after disabling, tools/call version answered ${JSON.stringify(gone.msg)}, expected error -32602`);

    // A HUP with nothing changed: nothing sent.
    w = await s.window(() => s.hup());
    t.expectLists(w, [], 'HUP with no change');
});

defCase('config-change', async (t) => {
    const { ws, ini } = basicReloadableWs('config-change', { label: 'a' });
    const s = await t.session(ini);
    await t.expectTool(s, 'label', {}, 'a', 'start');
    const snap = await s.snapshot();
    writeIni(ws, iniText([section('basic'), section('reloadable', { label: 'b' })]));
    const w = await s.window(() => s.hup());
    t.expectLists(w, [], 'label a -> b');
    t.expectNoErrors(w, 'label a -> b');
    await t.expectTool(s, 'label', {}, 'b', 'after label a -> b');
    t.check((await s.snapshot()) === snap, 'lists changed after a config-only change');
});

defCase('rebuild', async (t) => {
    const { ws, ini } = basicReloadableWs('rebuild');
    const s = await t.session(ini);
    await t.expectTool(s, 'version', {}, 'one', 'start');
    const res0 = JSON.stringify(await s.list('resources'));
    const snap0 = await s.snapshot();

    // Same path, new code (-O0 instead of the Makefile's -O2) with the same definitions: a
    // reopen, but nothing to announce.
    await buildReloadable(ws, 'reloadable.so', { version: 'one' });
    let w0 = await s.window(() => s.hup());
    t.expectLists(w0, [], 'rebuild with identical definitions');
    t.expectNoErrors(w0, 'rebuild with identical definitions');
    t.check(w0.messages.some((m) => /reloadable: reopen/.test(m.data)), `rebuild with identical definitions: no "reopen" logged: ${JSON.stringify(w0.messages)}`);
    t.check((await s.snapshot()) === snap0, 'lists differ after a rebuild with identical definitions');
    await t.expectTool(s, 'version', {}, 'one', 'after a rebuild with identical definitions');

    // Same path, new code with a new description of `version`.
    await buildReloadable(ws, 'reloadable.so', { version: 'two' });
    let w = await s.window(() => s.hup());
    t.expectLists(w, [TOOLS], 'rebuild with version two');
    t.expectNoErrors(w, 'rebuild with version two');
    const tools = await s.list('tools');
    t.check(descriptionOf(tools, 'version') === 'Says which build of the plugin runs: two',
        `tools/list version description is ${JSON.stringify(descriptionOf(tools, 'version'))}`);
    await t.expectTool(s, 'version', {}, 'two', 'after rebuild');
    t.check(JSON.stringify(await s.list('resources')) === res0, 'resources/list changed by the rebuild');
    const read = await s.call('resources/read', { uri: 'reloadable://info' });
    t.check(read.result && read.result.contents[0].text === 'version two',
        `resources/read reloadable://info after rebuild: ${JSON.stringify(read.result || read.error)}`);

    // Same version, plus a prompt: only the prompt list changes.
    await buildReloadable(ws, 'reloadable.so', { version: 'two', prompt: true });
    w = await s.window(() => s.hup());
    t.expectLists(w, [PROMPTS], 'rebuild adding a prompt');
    t.expectNoErrors(w, 'rebuild adding a prompt');
    const prompts = await s.names('prompts');
    t.check(prompts.includes('reloadable_prompt'), `prompts/list after rebuild: ${JSON.stringify(prompts)}`);
    const got = await s.call('prompts/get', { name: 'reloadable_prompt' });
    t.check(got.result && got.result.messages[0].content.text === 'prompt two',
        `prompts/get reloadable_prompt: ${JSON.stringify(got.result || got.error)}`);

    // Removing it again.
    await buildReloadable(ws, 'reloadable.so', { version: 'two' });
    w = await s.window(() => s.hup());
    t.expectLists(w, [PROMPTS], 'rebuild removing the prompt');
});

defCase('broken-ini', async (t) => {
    const { ws, ini } = basicReloadableWs('broken-ini', { label: 'a' });
    const s = await t.session(ini);
    const snap = await s.snapshot();

    const variants = [
        ['a line that is not key = value', iniText([section('basic'), section('reloadable', { label: 'z' }), 'this is not valid\n']), 'this is not valid'],
        ['an unknown [server] key', iniText([section('basic'), section('reloadable', { label: 'z' })], 'colour = blue\n'), 'colour = blue'],
    ];
    for (const [what, text, needle] of variants) {
        writeIni(ws, text);
        const line = lineOf(ini, needle);
        const w = await s.window(() => s.hup());
        t.expectLists(w, [], what);
        t.expectError(w, [`${ini}:${line}`], what);
        t.check(w.stderr.includes(`${ini}:${line}`), `${what}: stderr lacks ${ini}:${line}`);
        t.check((await s.snapshot()) === snap, `${what}: lists changed`);
        await t.expectTool(s, 'echo', { text: 'still here' }, 'still here', what);
        await t.expectTool(s, 'label', {}, 'a', `${what} (the old config stays)`);
    }

    // Fixed (with a real change in it): the reload goes through.
    writeIni(ws, iniText([section('basic'), section('reloadable', { label: 'fixed' })]));
    let w = await s.window(() => s.hup());
    t.expectLists(w, [], 'fixed INI (label change only)');
    t.expectNoErrors(w, 'fixed INI');
    await t.expectTool(s, 'label', {}, 'fixed', 'after fixing the INI');
    writeIni(ws, iniText([section('basic'), section('reloadable', { label: 'fixed', enabled: 'no' })]));
    w = await s.window(() => s.hup());
    t.expectLists(w, [TOOLS, RESOURCES], 'fixed INI, reloadable disabled');
});

defCase('missing-so', async (t) => {
    const { ws, ini } = basicReloadableWs('missing-so');
    const s = await t.session(ini);
    const snap = await s.snapshot();
    const ghost = path.join(ws, 'missing.so');

    writeIni(ws, iniText([section('basic'), section('reloadable'), section('ghost', { path: 'missing.so' })]));
    let w = await s.window(() => s.hup());
    t.expectLists(w, [], 'new plugin with a missing .so');
    t.expectError(w, ['missing.so'], 'new plugin with a missing .so');
    t.check(w.messages.some((m) => m.level === 'error' && normPaths(m.data).includes(ghost)),
        `new plugin with a missing .so: no error names the full path ${ghost}: ${JSON.stringify(w.messages)}`);
    t.check((await s.snapshot()) === snap, 'lists changed after a skipped new plugin');
    await t.expectTool(s, 'version', {}, 'one', 'after a skipped new plugin');

    // The running plugin's section now points at a missing file: the old instance stays.
    writeIni(ws, iniText([section('basic'), section('reloadable', { path: 'gone.so' })]));
    w = await s.window(() => s.hup());
    t.expectLists(w, [], 'existing plugin pointed at a missing .so');
    t.expectError(w, ['gone.so'], 'existing plugin pointed at a missing .so');
    t.check(w.messages.some((m) => m.level === 'error' && normPaths(m.data).includes(path.join(ws, 'gone.so'))),
        `existing plugin pointed at a missing .so: no error names the full path ${path.join(ws, 'gone.so')}`);
    t.check((await s.snapshot()) === snap, 'lists changed after a failed replacement');
    await t.expectTool(s, 'version', {}, 'one', 'old instance after a failed replacement');
    await t.expectTool(s, 'label', {}, 'none', 'old instance after a failed replacement');

    // Back to the real file.
    writeIni(ws, iniText([section('basic'), section('reloadable', { label: 'back' })]));
    w = await s.window(() => s.hup());
    t.expectLists(w, [], 'path fixed');
    t.expectNoErrors(w, 'path fixed');
    await t.expectTool(s, 'label', {}, 'back', 'path fixed');
});

// The ABI this tree's plugin-api.h declares, and what abi_major.so says (major + 1).
function abiVersions() {
    const h = fs.readFileSync(path.join(ROOT, 'plugin-api/plugin-api.h'), 'utf8');
    const major = Number(h.match(/#define MCPH_ABI_MAJOR (\d+)/)[1]);
    const minor = Number(h.match(/#define MCPH_ABI_MINOR (\d+)/)[1]);
    return { host: `${major}.${minor}`, plugin: `${major + 1}.${minor}` };
}

defCase('wrong-abi', async (t) => {
    const { ws, ini } = basicReloadableWs('wrong-abi');
    const s = await t.session(ini);
    const snap = await s.snapshot();
    copyPlugin(ws, 'abi_major', 'reloadable.so'); // in place, over the running plugin's file
    const w = await s.window(() => s.hup());
    t.expectLists(w, [], 'abi_major copied over reloadable.so');
    const abi = abiVersions();
    const hit = t.expectError(w, [`ABI ${abi.plugin}`, `ABI ${abi.host}`], 'abi_major copied over reloadable.so');
    if (hit) t.note(`message: ${hit.data}`);
    t.check((await s.snapshot()) === snap, 'lists changed after a wrong-ABI replacement');
    await t.expectTool(s, 'version', {}, 'one', 'old instance after a wrong-ABI replacement');
    // A second HUP: the file is still the wrong one; still refused, still serving.
    const w2 = await s.window(() => s.hup());
    t.expectLists(w2, [], 'second HUP with the wrong ABI in place');
    await t.expectTool(s, 'version', {}, 'one', 'after a second HUP');
});

defCase('collision', async (t) => {
    const { ws, ini } = basicReloadableWs('collision', { label: 'a' });
    copyPlugin(ws, 'collide');
    const s = await t.session(ini);
    const snap = await s.snapshot();
    // Also a change that would be visible if the reload went through.
    writeIni(ws, iniText([section('basic'), section('reloadable', { label: 'b' }), section('collide')]));
    const w = await s.window(() => s.hup());
    t.expectLists(w, [], 'collide added');
    t.expectError(w, ["'collide'", "'basic'", 'echo'], 'collide added');
    t.check(w.messages.some((m) => m.level === 'error' && /refused/.test(m.data)),
        `collide added: no "reload refused" message: ${JSON.stringify(w.messages)}`);
    t.check((await s.snapshot()) === snap, 'lists changed after a refused reload');
    await t.expectTool(s, 'echo', { text: 'mine' }, 'mine', 'echo after the refused reload');
    await t.expectTool(s, 'label', {}, 'a', 'label after the refused reload (whole reload refused)');

    // With a prefix it is accepted.
    writeIni(ws, iniText([section('basic'), section('reloadable', { label: 'b' }), section('collide', { prefix: 'c' })]));
    const w2 = await s.window(() => s.hup());
    t.expectLists(w2, [TOOLS], 'collide added with prefix c');
    t.check((await s.names('tools')).includes('c_echo'), 'c_echo not served after adding collide with a prefix');
    await t.expectTool(s, 'label', {}, 'b', 'label after the accepted reload');
});

defCase('slow-call-across-drop', async (t) => {
    const { ws, ini } = basicReloadableWs('slow-call-across-drop');
    const s = await t.session(ini);
    const memfdsBefore = memfdNames(s.pid);
    t.check(memfdsBefore.some((n) => n.includes('reloadable')), `no memfd:reloadable mapping at start: ${JSON.stringify(memfdsBefore)}`);
    const m = s.mark();
    const slow = s.call('tools/call', { name: 'slow', arguments: { ms: 1500 } }, 60000).catch(() => null);
    await sleep(200);
    writeIni(ws, iniText([section('basic'), section('reloadable', { enabled: 'no' })]));
    s.hup();
    const got = await s.waitNotes(m, (ns) => ns.filter((n) => n.method === TOOLS || n.method === RESOURCES).length >= 2, 3000);
    t.check(got, 'no tools+resources list_changed within 3 s of dropping reloadable (while slow runs)');
    const r = await Promise.race([slow, sleep(5000).then(() => 'timeout')]);
    t.require(r !== 'timeout' && r !== null, 'the slow call got no answer within 5 s of the reload');
    const out = toolOutcome(r);
    t.check(!out.error && !out.isError && out.text === 'slow done one',
        `slow call across the drop answered ${JSON.stringify(r.result || r.error)}, expected text "slow done one"`);
    const w = s.since(m);
    const lcTimes = w.notes.filter((n) => n.method === TOOLS || n.method === RESOURCES).map((n) => n.time);
    t.check(lcTimes.length > 0 && lcTimes.every((x) => x < r.time),
        'the list_changed notifications did not all arrive before the slow call finished');
    await sleep(300);
    await s.call('ping');
    const w2 = s.since(m);
    t.expectLists(w2, [TOOLS, RESOURCES], 'drop with a call in flight');
    const gone = await s.tool('slow', { ms: 1 });
    t.check(gone.error && gone.error.code === -32602, `slow after the drop answered ${JSON.stringify(gone.msg)}, expected -32602`);
    // The old instance is unloaded once its last call returned.
    await sleep(200);
    await s.call('ping');
    const memfdsAfter = memfdNames(s.pid);
    t.check(!memfdsAfter.some((n) => n.includes('reloadable')),
        `reloadable still mapped after its last call returned: ${JSON.stringify(memfdsAfter)}`);
});

defCase('burst', async (t) => {
    const { ws, ini } = basicReloadableWs('burst');
    const s = await t.session(ini);
    const snap = await s.snapshot();
    const burst = async () => {
        for (let i = 0; i < 100; i++) {
            s.hup();
            if (i % 10 === 9) await sleep(90); // 100 signals in about 0.9 s
        }
    };
    const before = (s.stderr.match(/reload: serving/g) || []).length;
    let w = await s.window(burst, { after: 500 });
    const reloads = (s.stderr.match(/reload: serving/g) || []).length - before;
    t.note(`100 HUPs, no change: ${reloads} reloads ran`);
    t.expectLists(w, [], '100 HUPs with no change');
    t.check(s.alive(), 'mcph died during the burst');
    t.check((await s.snapshot()) === snap, 'lists changed after a burst with no change');
    await t.expectTool(s, 'echo', { text: 'x' }, 'x', 'after the burst');

    await buildReloadable(ws, 'reloadable.so', { version: 'two' });
    w = await s.window(burst, { after: 500 });
    t.check(w.listChanged.filter((x) => x === TOOLS).length === 1,
        `one change then 100 HUPs: ${w.listChanged.filter((x) => x === TOOLS).length} tools/list_changed, expected exactly 1`);
    t.expectLists(w, [TOOLS], 'one change then 100 HUPs');
    t.check(s.alive(), 'mcph died during the second burst');
    await t.expectTool(s, 'version', {}, 'two', 'after the second burst');
});

defCase('before-initialized', async (t) => {
    const ws = workspace('before-initialized');
    copyPlugin(ws, 'basic');
    copyPlugin(ws, 'reloadable');
    const ini = writeIni(ws, iniText([section('basic')]));
    const s = await t.session(ini, { initialized: false, setLevel: null });
    writeIni(ws, iniText([section('basic'), section('reloadable')]));
    let w = await s.window(() => s.hup());
    t.expectLists(w, [], 'change + HUP before notifications/initialized');
    t.check((await s.names('tools')).includes('version'), 'the reload before initialized did not happen (no version tool)');
    // Once initialized, reloads are announced.
    s.notify('notifications/initialized');
    writeIni(ws, iniText([section('basic')]));
    w = await s.window(() => s.hup());
    t.expectLists(w, [TOOLS, RESOURCES], 'change + HUP after notifications/initialized');
});

defCase('watch', async (t) => {
    const { ws, ini } = basicReloadableWs('watch');
    const s = await t.session(ini, { watch: true });
    let m = s.mark();
    await sleep(600);
    t.expectLists(s.since(m), [], 'watch mode, nothing changed');

    const waitTools = async (what, want = [TOOLS]) => {
        const t0 = performance.now();
        const ok = await s.waitNotes(m, (ns) => ns.some((n) => n.method === want[0]), 3000);
        const dt = performance.now() - t0;
        t.check(ok, `${what}: no ${want[0]} within 3 s without a signal`);
        await sleep(800); // the debounce (300 ms) twice over: any second reload would show
        await s.call('ping');
        t.expectLists(s.since(m), want, what);
        return dt;
    };

    // Built at a temporary name, renamed over.
    m = s.mark();
    await buildReloadableAtomic(ws, 'reloadable.so', { version: 'two' });
    let dt = await waitTools('rename over reloadable.so');
    t.note(`rename: list_changed ${dt.toFixed(0)} ms after the rename`);
    t.check(descriptionOf(await s.list('tools'), 'version') === 'Says which build of the plugin runs: two',
        'watch: tools/list does not show the "two" description');
    await t.expectTool(s, 'version', {}, 'two', 'watch: after the rename');

    // Compiled directly onto the path.
    m = s.mark();
    await buildReloadable(ws, 'reloadable.so', { version: 'three' });
    dt = await waitTools('cc -o onto reloadable.so');
    t.note(`cc -o: list_changed ${dt.toFixed(0)} ms after cc finished`);
    t.check(descriptionOf(await s.list('tools'), 'version') === 'Says which build of the plugin runs: three',
        'watch: tools/list does not show the "three" description');
    await t.expectTool(s, 'version', {}, 'three', 'watch: after cc -o');

    // The INI edited.
    m = s.mark();
    writeIni(ws, iniText([section('basic'), section('reloadable', { enabled: 'no' })]));
    await waitTools('INI edited (reloadable disabled)', [TOOLS, RESOURCES]);
    t.check(!(await s.names('tools')).includes('version'), 'watch: reloadable still served after the INI disabled it');

    // A plugin file that is no longer enabled is not watched; the INI still is.
    m = s.mark();
    await buildReloadableAtomic(ws, 'reloadable.so', { version: 'four' });
    await sleep(1000);
    await s.call('ping');
    t.expectLists(s.since(m), [], 'rebuild of a disabled plugin in watch mode');
    // The INI replaced the way editors save: a new file renamed over it.
    m = s.mark();
    const tmpIni = writeIni(ws, iniText([section('basic'), section('reloadable')]), 'mcph.ini.new');
    fs.renameSync(tmpIni, ini);
    await waitTools('INI renamed over (reloadable enabled again)', [TOOLS, RESOURCES]);
    await t.expectTool(s, 'version', {}, 'four', 'watch: re-enabled');
});

// Watch mode turned on by the INI ([server] watch = yes) rather than --watch, and off again.
defCase('watch-ini', async (t) => {
    const ws = workspace('watch-ini');
    copyPlugin(ws, 'basic');
    copyPlugin(ws, 'reloadable');
    const ini = writeIni(ws, iniText([section('basic'), section('reloadable')], 'watch = yes\n'));
    const s = await t.session(ini);
    let m = s.mark();
    await buildReloadableAtomic(ws, 'reloadable.so', { version: 'two' });
    t.check(await s.waitNotes(m, (ns) => ns.some((n) => n.method === TOOLS), 3000),
        '[server] watch = yes: no tools/list_changed within 3 s of renaming a rebuilt .so over');
    await sleep(800);
    await s.call('ping');
    t.expectLists(s.since(m), [TOOLS], '[server] watch = yes, rebuild');
    await t.expectTool(s, 'version', {}, 'two', '[server] watch = yes, rebuild');

    // The INI edit that turns watching off is itself seen (and reloads, no list change).
    m = s.mark();
    writeIni(ws, iniText([section('basic'), section('reloadable', { label: 'off' })], 'watch = no\n'));
    await sleep(1000);
    await t.expectTool(s, 'label', {}, 'off', 'INI edited to watch = no (picked up by the watch)');
    m = s.mark();
    await buildReloadableAtomic(ws, 'reloadable.so', { version: 'three' });
    await sleep(1000);
    await s.call('ping');
    t.expectLists(s.since(m), [], 'watch = no: a rebuild without a signal');
    await t.expectTool(s, 'version', {}, 'two', 'watch = no: the rebuild is not loaded without a signal');
    const w = await s.window(() => s.hup());
    t.expectLists(w, [TOOLS], 'watch = no: SIGHUP after the rebuild');
    await t.expectTool(s, 'version', {}, 'three', 'watch = no: after SIGHUP');
});

// Variants of reloadable.c with their own resource URI: twenty instances of the stock plugin
// would collide on reloadable://info (a prefix renames tools and prompts, not resources).
function uriSource(ws) {
    const src = fs.readFileSync(path.join(ROOT, 'tests/plugins/reloadable.c'), 'utf8')
        .replace('"reloadable://info"', 'RELOADABLE_URI');
    const file = path.join(ws, 'reloadable_uri.c');
    fs.writeFileSync(file, `#ifndef RELOADABLE_URI\n#define RELOADABLE_URI "reloadable://info"\n#endif\n${src}`);
    return file;
}

async function latency(t, n) {
    const ws = workspace(`latency-${n}`);
    const src = uriSource(ws);
    const ids = Array.from({ length: n }, (_, i) => `p${String(i + 1).padStart(2, '0')}`);
    const uri = (id) => `RELOADABLE_URI="reloadable://${id}"`;
    await Promise.all(ids.map((id) => buildReloadable(ws, `${id}.so`, { source: src, defines: [uri(id)] })));
    await buildReloadable(ws, 'variant-a.so', { source: src, defines: [uri('p01')], version: 'a' });
    await buildReloadable(ws, 'variant-b.so', { source: src, defines: [uri('p01')], version: 'b' });
    const ini = writeIni(ws, iniText(ids.map((id) => section(id, { path: `${id}.so`, prefix: id }))));
    const s = await t.session(ini);
    t.check((await s.names('tools')).length === 3 * n, `${n} plugins: expected ${3 * n} tools`);
    const times = [];
    for (let i = 0; i < 10; i++) {
        const tmp = path.join(ws, 'next.so');
        fs.copyFileSync(path.join(ws, i % 2 ? 'variant-b.so' : 'variant-a.so'), tmp);
        fs.chmodSync(tmp, 0o755);
        fs.renameSync(tmp, path.join(ws, 'p01.so'));
        const m = s.mark();
        const t0 = s.hup();
        const ok = await s.waitNotes(m, (ns) => ns.some((x) => x.method === TOOLS), 5000);
        if (!t.check(ok, `${n} plugins, reload ${i + 1}: no tools/list_changed within 5 s`)) break;
        const note = s.notes.slice(m.notes).find((x) => x.method === TOOLS);
        times.push(note.time - t0);
        await sleep(100);
        await s.call('ping');
        t.expectLists(s.since(m), [TOOLS], `${n} plugins, reload ${i + 1}`);
    }
    await t.expectTool(s, 'p01_version', {}, 'b', `${n} plugins: after the reloads`);
    return times;
}

defCase('latency', async (t) => {
    const one = await latency(t, 1);
    const twenty = await latency(t, 20);
    const line = `reload latency: 1 plugin p50 ${median(one).toFixed(1)} ms, 20 plugins p50 ${median(twenty).toFixed(1)} ms`;
    t.note(line);
    t.note(`samples 1: ${one.map((x) => x.toFixed(1)).join(' ')}; 20: ${twenty.map((x) => x.toFixed(1)).join(' ')}`);
    latencyLine = line;
});

// Prefixed copies of the stock reloadable plugin: its resource reloadable://info is not
// renamed by a prefix, so at startup the later copies' resources collide and are left out.
// A collision that was already there is not new: a reload must still apply (and re-init p01
// with its new label), while a new collision would refuse it (the 'collision' case).
// A name two sections serve is the INI's to fix: start-up stops (exit 3) and names the line
// of each later section; nothing is served with part of a plugin left out.
defCase('startup-collisions-refused', async (t) => {
    const ws = workspace('startup-collisions-refused');
    copyPlugin(ws, 'reloadable');
    const ids = ['p01', 'p02', 'p03'];
    const ini = writeIni(ws, iniText(ids.map((id) => section(id, { path: 'reloadable.so', prefix: id, label: 'a' }))));
    let r;
    try {
        r = { code: 0, ...(await execFileP(MCPH, ['--check', ini], { cwd: ROOT, timeout: 20000 })) };
    } catch (err) {
        r = { code: err.code, stderr: err.stderr || '' };
    }
    t.check(r.code === 3, `start-up with resource collisions exited ${r.code}, expected 3`);
    const lines = fs.readFileSync(ini, 'utf8').split('\n');
    for (const id of ['p02', 'p03']) {
        const at = lines.indexOf(`[plugin.${id}]`) + 1;
        t.check(r.stderr.includes(`${ini}:${at}: [plugin.${id}] serves a name another plugin serves`), `no FILE:LINE for [plugin.${id}] (line ${at}): ${r.stderr}`);
        t.check(r.stderr.includes(`resource 'reloadable://info' is already served by plugin 'p01'; left out. A prefix does not change URIs`), `the advice for a URI: ${r.stderr}`);
    }
});

defCase('check', async (t) => {
    const mcphCheck = async (ini) => {
        try {
            const { stdout, stderr } = await execFileP(MCPH, ['--check', ini], { cwd: ROOT, timeout: 20000 });
            return { code: 0, stdout, stderr };
        } catch (err) {
            return { code: err.code, stdout: err.stdout || '', stderr: err.stderr || '' };
        }
    };

    // Good.
    const { ws, ini } = basicReloadableWs('check');
    let r = await mcphCheck(ini);
    t.check(r.code === 0, `--check on a good workspace exited ${r.code}; stderr: ${r.stderr.slice(0, 400)}`);
    const lines = r.stdout.trim().split('\n');
    t.check(/^PLUGIN\s+KIND\s+NAME\s+TITLE\s*$/.test(lines[0] || ''), `--check header: ${JSON.stringify(lines[0])}`);
    const rows = lines.slice(1).map((l) => l.split(/\s+/));
    for (const [plugin, kind, name] of [['basic', 'tool', 'echo'], ['reloadable', 'tool', 'version'], ['reloadable', 'resource', 'reloadable://info'], ['basic', 'prompt', 'greet']]) {
        t.check(rows.some((x) => x[0] === plugin && x[1] === kind && x[2] === name), `--check table lacks ${plugin} ${kind} ${name}:\n${r.stdout}`);
    }

    // What a reload logs for the wrong ABI and for a collision.
    const s = await t.session(ini);
    copyPlugin(ws, 'abi_major', 'reloadable.so');
    const wAbi = await s.window(() => s.hup());
    copyPlugin(ws, 'reloadable');
    await s.window(() => s.hup());
    copyPlugin(ws, 'collide');
    const collideIni = iniText([section('basic'), section('reloadable'), section('collide')]);
    writeIni(ws, collideIni);
    const wCol = await s.window(() => s.hup());
    const strip = (m) => String(m.data).replace(/^reload: /, '');
    const abiMsgs = wAbi.messages.filter((m) => m.level === 'error' && /ABI/.test(m.data)).map(strip);
    const colMsgs = wCol.messages.filter((m) => m.level === 'error' && /already served/.test(m.data)).map(strip);
    t.check(abiMsgs.length > 0, 'the reload logged no ABI error to compare with');
    t.check(colMsgs.length > 0, 'the reload logged no collision error to compare with');

    // Wrong ABI.
    copyPlugin(ws, 'abi_major', 'reloadable.so');
    writeIni(ws, iniText([section('basic'), section('reloadable')]));
    r = await mcphCheck(ini);
    t.check(r.code === 3, `--check with abi_major exited ${r.code}, expected 3`);
    for (const msg of abiMsgs) t.check(r.stderr.includes(msg), `--check (abi_major) stderr lacks the reload's message ${JSON.stringify(msg)}; stderr: ${r.stderr}`);

    // Collision.
    copyPlugin(ws, 'reloadable');
    writeIni(ws, collideIni);
    r = await mcphCheck(ini);
    t.check(r.code === 3, `--check with a collision exited ${r.code}, expected 3`);
    for (const msg of colMsgs) t.check(r.stderr.includes(msg), `--check (collision) stderr lacks the reload's message ${JSON.stringify(msg)}; stderr: ${r.stderr}`);
});

// A plugin thread that keeps calling resource_updated and log while mcph shuts down: what
// those calls use (subscriptions, locks, the log's sink) must outlive the plugin's shutdown.
// Under TSan or ASan a wrong order makes mcph exit non-zero, which the case checks.
defCase('plugin threads during shutdown', async (t) => {
    const ws = workspace('shutdown-threads');
    copyPlugin(ws, 'watcher');
    fs.writeFileSync(path.join(ws, 'list.txt'), '');
    const ini = writeIni(ws, iniText([section('watcher', { path: 'watcher.so', list: 'list.txt', update_ms: 1 })]));
    for (let round = 0; round < 3; round++) {
        // Not t.session(): this case stops its servers itself.
        const s = new Session(MCPH, ini, { setLevel: 'debug' });
        await s.start();
        const r = await s.call('resources/subscribe', { uri: 'watcher://x' });
        t.require(!r.error, `resources/subscribe: ${JSON.stringify(r.error)}`);
        const m = s.mark();
        const got = await s.waitNotes(m, (n) => n.filter((x) => x.method === 'notifications/resources/updated').length >= 20, 3000);
        t.check(got, `round ${round}: fewer than 20 notifications/resources/updated in 3 s`);
        const st = await s.stop(10000);
        t.check(st && st.code === 0 && !st.signal, `round ${round}: exit after EOF ${JSON.stringify(st)}\n${s.stderrTail()}`);
        for (const e of s.problems()) t.check(false, `round ${round}: ${e}`);
    }
});

// A file changes, and a SIGHUP comes before the files plugin's watcher has told mcph (its
// burst waits 150 ms of quiet): the reload rebuilds the instance, and the old one, shut down,
// must still deliver what it had seen. Each round waits for the notifications/resources/updated
// of that change (it used to be lost: 0 of 9 delivered).
defCase('resources/updated across a reload', async (t) => {
    const ws = workspace('updated-reload');
    copyPlugin(ws, 'files', 'files.so', { from: path.join(ROOT, 'build/plugins') });
    const docs = path.join(ws, 'docs');
    fs.mkdirSync(docs, { recursive: true });
    fs.writeFileSync(path.join(docs, 'a.txt'), 'zero\n');
    const s = await t.session(writeIni(ws, iniText([section('files', { path: 'files.so', root: 'docs' })])));
    const list = await s.call('resources/list', {});
    const uri = list.result?.resources?.find((r) => r.name === 'a.txt')?.uri;
    t.require(uri, `no resource a.txt: ${JSON.stringify(list).slice(0, 300)}`);
    const sub = await s.call('resources/subscribe', { uri });
    t.require(!sub.error, `resources/subscribe: ${JSON.stringify(sub.error)}`);
    const rounds = 6;
    let delivered = 0;
    for (let i = 0; i < rounds; i++) {
        await sleep(400);
        const m = s.mark();
        fs.writeFileSync(path.join(docs, 'a.txt'), `round ${i}\n`);
        await sleep(20 + 10 * i);
        s.hup();
        const got = await s.waitNotes(m, (n) => n.some((x) => x.method === 'notifications/resources/updated' && x.params?.uri === uri), 2000);
        delivered += got ? 1 : 0;
    }
    t.check(delivered === rounds, `notifications/resources/updated after a change then a SIGHUP: ${delivered} of ${rounds} delivered`);
});

// resources/subscribe: at most 4096 URIs a session (LIMIT_SUBSCRIPTIONS); one more is refused
// as bad params, subscribing again to one already held is fine, and unsubscribing makes room.
defCase('subscription limit', async (t) => {
    const ws = workspace('subscription-limit');
    copyPlugin(ws, 'basic');
    const s = await t.session(writeIni(ws, iniText([section('basic', { path: 'basic.so' })])));
    const uri = (i) => `basic://items/n${i}`;
    const sends = [];
    for (let i = 0; i < 4096; i++) sends.push(s.call('resources/subscribe', { uri: uri(i) }));
    const results = await Promise.all(sends);
    t.check(results.every((r) => !r.error), `a subscription under the limit was refused: ${JSON.stringify(results.find((r) => r.error))}`);
    const over = await s.call('resources/subscribe', { uri: uri(4096) });
    t.check(over.error?.code === -32602 && /more than 4096 subscriptions/.test(over.error.message),
        `subscription 4097: ${JSON.stringify(over)}`);
    const again = await s.call('resources/subscribe', { uri: uri(7) });
    t.check(!again.error, `subscribing again to a held URI: ${JSON.stringify(again)}`);
    const un = await s.call('resources/unsubscribe', { uri: uri(7) });
    t.check(!un.error, `unsubscribe: ${JSON.stringify(un)}`);
    const room = await s.call('resources/subscribe', { uri: uri(4096) });
    t.check(!room.error, `after an unsubscribe: ${JSON.stringify(room)}`);
});

// --- /proc helpers. ---

function memfdNames(pid) {
    let text = '';
    try {
        text = fs.readFileSync(`/proc/${pid}/maps`, 'utf8');
    } catch {
        return [];
    }
    const names = new Set();
    for (const l of text.split('\n')) {
        const i = l.indexOf('memfd:');
        if (i >= 0) {
            const f = l.trim().split(/\s+/);
            names.add(`${f[4]} ${l.slice(i)}`); // inode + name
        }
    }
    return [...names];
}

// --- Run. ---

let latencyLine = null;

async function runCase(c, n) {
    const t = new Ctx(c.name);
    const t0 = performance.now();
    let timer;
    try {
        await Promise.race([
            c.fn(t),
            new Promise((_, reject) => {
                timer = setTimeout(() => reject(new Error(`case timed out after ${CASE_LIMIT_MS} ms`)), CASE_LIMIT_MS);
            }),
        ]);
    } catch (err) {
        t.threw(err);
    } finally {
        clearTimeout(timer);
    }
    // Every session: valid messages only, still alive, clean exit.
    for (const s of t.sessions) {
        const wasAlive = s.alive();
        t.check(wasAlive, `mcph (pid ${s.pid}) exited during the case: ${JSON.stringify(s.exitInfo)}\n${s.stderrTail()}`);
        const st = await s.stop(10000);
        if (wasAlive) t.check(st && st.code === 0 && !st.timedOut, `mcph exit after EOF: ${JSON.stringify(st)}\n${s.stderrTail()}`);
        for (const e of s.problems()) t.check(false, e);
    }
    const ms = performance.now() - t0;
    const ok = t.failures.length === 0;
    console.log(`${ok ? 'ok  ' : 'FAIL'} ${String(n).padStart(2)} ${c.name} (${(ms / 1000).toFixed(1)} s)`);
    for (const note of t.notes) console.log(`       # ${note}`);
    for (const f of t.failures) console.log(`       - ${f.replace(/\n/g, '\n         ')}`);
    return ok;
}

const t0 = performance.now();
let passed = 0;
let failed = 0;
let n = 0;
for (const c of cases) {
    n++;
    if (ONLY.length && !ONLY.includes(c.name)) continue;
    if (await runCase(c, n)) passed++;
    else failed++;
}
if (latencyLine) console.log(latencyLine);
console.log(`${passed} passed, ${failed} failed (${((performance.now() - t0) / 1000).toFixed(1)} s)`);
process.exit(failed ? 1 : 0);
