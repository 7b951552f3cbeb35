// Test plugins built or copied into a workspace, with the flags the Makefile builds plugins
// with (read from build/.flags, which the Makefile keeps: the compiler, CFLAGS_ALL and
// LDFLAGS_ALL of the current build, sanitizers included).
//
//   import { buildPlugin, copyPlugin } from '../lib/plugin.mjs';
//   await buildPlugin('tests/plugins/reloadable.c', ws + '/r.so', { defines: ['RELOADABLE_VERSION="two"'] });
//   copyPlugin(ws, 'basic');                     // build/tests/plugins/basic.so -> ws/basic.so
//
// buildPlugin compiles to a temporary name beside `out` and renames it into place, so a
// watcher never sees half a file (atomic: false writes `out` directly, as cc does). From a
// shell (a transcript's sh step):
//   node tests/lib/plugin.mjs SOURCE OUT [-DNAME=VALUE ...]

import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { splitCommand } from './proc.mjs';
import { ROOT, BUILD, TEST_PLUGINS } from './workspace.mjs';

const execFileP = promisify(execFile);

// [compiler, ...flags] for a plugin: the Makefile's PLUGIN_CFLAGS (CFLAGS_ALL -fPIC
// -fvisibility=hidden -Iplugin-api) plus -shared.
export function pluginCommand() {
    const stamp = path.join(BUILD, '.flags');
    let words;
    try {
        words = splitCommand(fs.readFileSync(stamp, 'utf8').trim());
    } catch (err) {
        throw new Error(`no ${stamp} (${err.code}): run make first`);
    }
    if (words.length === 0) throw new Error(`${stamp} is empty: run make first`);
    return [...words, '-fPIC', '-fvisibility=hidden', `-I${path.join(ROOT, 'plugin-api')}`, '-shared'];
}

// Compile `source` (relative to the repository root, or absolute) to `out`, mode 0755.
// opts: { defines: ['NAME=VALUE' or 'NAME'], atomic (default true) }. Returns out.
export async function buildPlugin(source, out, opts = {}) {
    const [cc, ...flags] = pluginCommand();
    const atomic = opts.atomic !== false;
    const dst = atomic ? path.join(path.dirname(out), `.tmp-${process.pid}-${Math.random().toString(36).slice(2)}.so`) : out;
    const args = [...flags, ...(opts.defines || []).map((d) => `-D${d}`), '-o', dst, path.resolve(ROOT, source)];
    try {
        await execFileP(cc, args, { cwd: ROOT });
        fs.chmodSync(dst, 0o755);
        if (atomic) fs.renameSync(dst, out);
    } catch (err) {
        if (atomic) fs.rmSync(dst, { force: true });
        throw new Error(`cannot build ${source}: ${(err.stderr || err.message).trim().split('\n').slice(0, 6).join(' | ')}`);
    }
    return out;
}

// Copy a built plugin (from build/tests/plugins/ unless opts.from says another folder) to
// dir/as, overwriting in place when it exists (the same inode, like cp); mode 0755.
export function copyPlugin(dir, name, as = `${name}.so`, opts = {}) {
    const dst = path.join(dir, as);
    fs.copyFileSync(path.join(opts.from || TEST_PLUGINS, `${name}.so`), dst);
    fs.chmodSync(dst, 0o755);
    return dst;
}

if (process.argv[1] && path.resolve(process.argv[1]) === new URL(import.meta.url).pathname) {
    const [source, out, ...rest] = process.argv.slice(2);
    if (!source || !out || rest.some((d) => !d.startsWith('-D'))) {
        console.error('usage: node tests/lib/plugin.mjs SOURCE OUT [-DNAME=VALUE ...]');
        process.exit(2);
    }
    try {
        await buildPlugin(path.resolve(source), path.resolve(out), { defines: rest.map((d) => d.slice(2)) });
    } catch (err) {
        console.error(err.message);
        process.exit(1);
    }
}
