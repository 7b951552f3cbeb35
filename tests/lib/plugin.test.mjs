// Checks of tests/lib/plugin.mjs: a plugin built with the Makefile's flags and a define, put
// in place by a rename; a copy of a built one; a compile error reported.
//
//   node --test tests/lib/      (needs build/.flags: run make once)

import test from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { buildPlugin, copyPlugin, pluginCommand } from './plugin.mjs';
import { workspace, TESTS_ROOT } from './workspace.mjs';

const hasFlags = fs.existsSync(path.join(TESTS_ROOT, '..', '.flags'));

test('pluginCommand: the Makefile\'s plugin flags', { skip: !hasFlags && 'no build/.flags (run make)' }, () => {
    const argv = pluginCommand();
    for (const f of ['-std=c11', '-fPIC', '-fvisibility=hidden', '-shared']) assert.ok(argv.includes(f), f);
    assert.ok(argv.some((w) => w.endsWith('/plugin-api') && w.startsWith('-I')));
});

test('buildPlugin: a define reaches the code; the file appears whole, mode 0755', { skip: !hasFlags && 'no build/.flags (run make)' }, async (t) => {
    const ws = workspace('lib-test-plugin', 'plugin');
    t.after(() => fs.rmSync(path.join(TESTS_ROOT, 'lib-test-plugin'), { recursive: true, force: true }));
    const out = path.join(ws, 'r.so');
    assert.equal(await buildPlugin('tests/plugins/reloadable.c', out, { defines: ['RELOADABLE_VERSION="zeta"'] }), out);
    assert.equal(fs.statSync(out).mode & 0o777, 0o755);
    assert.ok(fs.readFileSync(out).includes('slow done zeta'));
    assert.deepEqual(fs.readdirSync(ws), ['r.so']); // no temporary left
    const bad = path.join(ws, 'bad.c');
    fs.writeFileSync(bad, 'this is not C;\n');
    await assert.rejects(buildPlugin(bad, path.join(ws, 'bad.so')), /cannot build .*bad\.c/);
    assert.deepEqual(fs.readdirSync(ws).sort(), ['bad.c', 'r.so']);
    // From a shell.
    execFileSync(process.execPath, ['tests/lib/plugin.mjs', 'tests/plugins/reloadable.c', path.join(ws, 's.so'), '-DRELOADABLE_VERSION="eta"'],
        { cwd: path.join(TESTS_ROOT, '../..') });
    assert.ok(fs.readFileSync(path.join(ws, 's.so')).includes('slow done eta'));
});

test('copyPlugin: a built plugin under another name, over an existing file in place', (t) => {
    const ws = workspace('lib-test-plugin', 'copy');
    t.after(() => fs.rmSync(path.join(TESTS_ROOT, 'lib-test-plugin'), { recursive: true, force: true }));
    const from = path.join(ws, 'from');
    fs.mkdirSync(from);
    fs.writeFileSync(path.join(from, 'p.so'), 'ELF one');
    const dst = copyPlugin(ws, 'p', 'q.so', { from });
    const ino = fs.statSync(dst).ino;
    fs.writeFileSync(path.join(from, 'p.so'), 'ELF two');
    copyPlugin(ws, 'p', 'q.so', { from });
    assert.equal(fs.readFileSync(dst, 'utf8'), 'ELF two');
    assert.equal(fs.statSync(dst).ino, ino);
    assert.equal(fs.statSync(dst).mode & 0o777, 0o755);
});
