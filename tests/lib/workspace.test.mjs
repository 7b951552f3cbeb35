// Checks of tests/lib/workspace.mjs: the folders and the INI files it writes.
//
//   node --test tests/lib/

import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { workspace, writeIni, iniText, section, copyIni, TESTS_ROOT } from './workspace.mjs';

const mode = (p) => fs.statSync(p).mode & 0o777;

test('workspace: a fresh folder under build/tests/<suite>/, mode 0755', (t) => {
    const ws = workspace('lib-test-ws', 'one');
    t.after(() => fs.rmSync(path.join(TESTS_ROOT, 'lib-test-ws'), { recursive: true, force: true }));
    assert.equal(ws, path.join(TESTS_ROOT, 'lib-test-ws', 'one'));
    fs.writeFileSync(path.join(ws, 'old'), 'x');
    assert.equal(workspace('lib-test-ws', 'one'), ws);
    assert.deepEqual(fs.readdirSync(ws), []);
    assert.equal(mode(ws), 0o755);
    assert.equal(mode(path.dirname(ws)), 0o755);
    assert.equal(workspace('lib-test-ws'), path.join(TESTS_ROOT, 'lib-test-ws'));
});

test('writeIni: sections from objects, in order, arrays as continuation lines, null left out', (t) => {
    const ws = workspace('lib-test-ws', 'ini');
    t.after(() => fs.rmSync(path.join(TESTS_ROOT, 'lib-test-ws'), { recursive: true, force: true }));
    const file = writeIni(ws, {
        server: { plugin_dir: '/p', workers: 4, name: undefined },
        'plugin.exec': { path: 'exec.so', commands: ['a: /bin/echo a', 'b: /bin/echo b'], prefix: null },
    }, 'x.ini');
    assert.equal(file, path.join(ws, 'x.ini'));
    assert.equal(fs.readFileSync(file, 'utf8'),
        '[server]\nplugin_dir = /p\nworkers = 4\n\n[plugin.exec]\npath = exec.so\ncommands = a: /bin/echo a\n    b: /bin/echo b\n');
    assert.equal(mode(file), 0o644);
});

test('writeIni: text is written as it is; a generated line inih cannot read is refused', (t) => {
    const ws = workspace('lib-test-ws', 'text');
    t.after(() => fs.rmSync(path.join(TESTS_ROOT, 'lib-test-ws'), { recursive: true, force: true }));
    const text = '[server]\nplugin_dir = .\nnot key value\n';
    assert.equal(fs.readFileSync(writeIni(ws, text), 'utf8'), text);
    assert.throws(() => iniText({ server: { name: 'n'.repeat(200) } }), /too long for inih/);
});

test('section: one [plugin.NAME] section', () => {
    assert.equal(section('basic'), '[plugin.basic]\n');
    assert.equal(section('r', { label: 'a', enabled: undefined, prefix: 'p' }), '[plugin.r]\nlabel = a\nprefix = p\n');
});

test('copyIni: plugin_dir made absolute from the source\'s folder, or added', (t) => {
    const ws = workspace('lib-test-ws', 'copy');
    t.after(() => fs.rmSync(path.join(TESTS_ROOT, 'lib-test-ws'), { recursive: true, force: true }));
    const src = writeIni(ws, '[server]\nplugin_dir = ../plugins ; a comment\n\n[plugin.a]\npath = a.so\n', 'src.ini');
    const out = path.join(ws, 'out');
    fs.mkdirSync(out);
    const copy = copyIni(src, out);
    assert.equal(fs.readFileSync(copy, 'utf8'), `[server]\nplugin_dir = ${path.resolve(ws, '../plugins')}\n\n[plugin.a]\npath = a.so\n`);
    const bare = writeIni(ws, '[server]\nname = x\n', 'bare.ini');
    assert.match(fs.readFileSync(copyIni(bare, out, 'b.ini'), 'utf8'), new RegExp(`^\\[server\\]\\nplugin_dir = ${ws}\\nname = x`));
});
