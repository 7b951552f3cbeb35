// Work folders and INI files for the Node test suites.
//
//   import { workspace, writeIni, section, PLUGINS, TEST_PLUGINS } from '../lib/workspace.mjs';
//   const ws = workspace('reload', 'case-1');         // build/tests/reload/case-1/, fresh, 0755
//   const ini = writeIni(ws, {                         // ws/mcph.ini, 0644
//       server: { plugin_dir: TEST_PLUGINS, workers: 4 },
//       'plugin.basic': { path: 'basic.so', prefix: 'b' },
//       'plugin.exec': { path: 'exec.so', commands: ['a: /bin/echo a', 'b: /bin/echo b'] },
//   });
//   writeIni(ws, '[server]\nplugin_dir = .\n', 'raw.ini');     // text is written as it is
//   copyIni('tests/interop/modern.ini', ws);                  // plugin_dir made absolute
//
// An INI given as objects: one [section] per key, in order; a key whose value is undefined or
// null is left out; an array value is one key with continuation lines (the first item on the
// key's line, the others indented). Generated lines must stay under inih's 200 bytes.
// Folders are mode 0755 from build/ down, because mcph refuses plugins in a folder that group
// or others can write.

import fs from 'node:fs';
import path from 'node:path';
import { ROOT } from './util.mjs';

export { ROOT };
export const BUILD = path.join(ROOT, 'build');
export const PLUGINS = path.join(BUILD, 'plugins'); // the shipped plugins
export const TEST_PLUGINS = path.join(BUILD, 'tests/plugins'); // tests/plugins/*.c, built
export const TESTS_ROOT = path.join(BUILD, 'tests');

const INI_LINE_MAX = 200;

function mkdir755(dir) {
    fs.mkdirSync(dir, { recursive: true });
    fs.chmodSync(dir, 0o755);
}

// A fresh, empty folder build/tests/<suite>[/<name>] (what was there is removed).
export function workspace(suite, name) {
    for (const d of [BUILD, TESTS_ROOT]) mkdir755(d);
    const top = path.join(TESTS_ROOT, suite);
    const ws = name === undefined ? top : path.join(top, name);
    if (name !== undefined) mkdir755(top);
    fs.rmSync(ws, { recursive: true, force: true });
    mkdir755(ws);
    return ws;
}

// The lines of one [name] section from an object of keys (see the header).
function sectionLines(name, keys) {
    const lines = [`[${name}]`];
    for (const [k, v] of Object.entries(keys || {})) {
        if (v === undefined || v === null) continue;
        if (Array.isArray(v)) {
            if (v.length === 0) continue;
            lines.push(`${k} = ${v[0]}`, ...v.slice(1).map((x) => `    ${x}`));
        } else {
            lines.push(`${k} = ${v}`);
        }
    }
    return lines;
}

// The text of one [plugin.NAME] section (keys as in an INI given as objects).
export function section(name, keys = {}) {
    return `${sectionLines(`plugin.${name}`, keys).join('\n')}\n`;
}

// INI text from objects, or text as it is (see the header).
export function iniText(spec) {
    if (typeof spec === 'string') return spec;
    const lines = [];
    for (const [name, keys] of Object.entries(spec)) {
        if (lines.length) lines.push('');
        lines.push(...sectionLines(name, keys));
    }
    for (const l of lines) {
        if (Buffer.byteLength(l) >= INI_LINE_MAX) throw new Error(`INI line too long for inih (${INI_LINE_MAX} bytes): ${l}`);
    }
    return `${lines.join('\n')}\n`;
}

// Write an INI (objects or text) to dir/name, mode 0644; returns its path.
export function writeIni(dir, spec, name = 'mcph.ini') {
    const file = path.join(dir, name);
    fs.writeFileSync(file, iniText(spec));
    fs.chmodSync(file, 0o644);
    return file;
}

// A copy of the INI src in dir, with its plugin_dir made absolute (relative to src's folder;
// added as src's folder when there is none), so the copy loads the same plugins.
export function copyIni(src, dir, name = 'mcph.ini') {
    const from = path.dirname(path.resolve(src));
    let text = fs.readFileSync(src, 'utf8');
    let found = false;
    text = text.replace(/^(\s*plugin_dir\s*=\s*)([^;\n]*?)(\s*(;.*)?)$/m, (_, head, value) => {
        found = true;
        return `${head}${path.resolve(from, value.trim())}`;
    });
    if (!found) text = text.replace(/^\[server\]\s*$/m, `[server]\nplugin_dir = ${from}`);
    return writeIni(dir, text, name);
}
