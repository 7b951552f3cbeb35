#!/usr/bin/env node
// The core's per-section filters (tools, resources, prompts) on the example plugin, as
// `mcph --check` reports them:
//
//   node tests/shipped/filters.mjs build/mcph
//
// Checks, for an INI with two instances of the example plugin (one filtered, one not): the
// table of what would be served lists exactly the kept rows under their exposed names; the
// FILTERS part names, per filter, the file and line, then each row kept and each row dropped
// (the plugin's own names, table rows and rows defined at init alike); a filter that keeps
// nothing is warned about on stderr (exit 0 all the same); an INI without filters prints no
// FILTERS part; and a bad glob is a config error (exit 3) naming file, line and what to write.
// What a client sees (tools/list and the other lists, a SIGHUP that changes a filter) is in
// tests/transcripts/filters.t. Prints "ok NAME" / "FAIL NAME: why" per check and
// "N passed, N failed"; exits non-zero iff a check failed.

import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { check, expect, expectEq, done } from '../lib/check.mjs';
import { PLUGINS, workspace, writeIni } from '../lib/workspace.mjs';
import { SANITIZER_REPORT } from '../lib/util.mjs';

const mcph = path.resolve(process.argv[2] || 'build/mcph');
const ws = workspace('filters');
fs.writeFileSync(path.join(ws, 'notes.txt'), 'a note\n');

// Runs mcph --check on the INI text; returns { status, stdout, stderr, ini }.
function runCheck(name, text) {
    const ini = writeIni(ws, text, name);
    const r = spawnSync(mcph, ['--check', ini], { encoding: 'utf8', timeout: 20000 });
    expect(!SANITIZER_REPORT.test(r.stderr), `sanitizer report: ${r.stderr.slice(0, 500)}`);
    return { status: r.status, stdout: r.stdout, stderr: r.stderr, ini };
}

// The FILTERS part of --check's output: [{ header, kept: [...], dropped: [...] }] in order.
function filterBlocks(stdout) {
    const lines = stdout.split('\n');
    const at = lines.indexOf('FILTERS (the plugins\' own names, before the prefix)');
    if (at < 0) return null;
    const blocks = [];
    for (const line of lines.slice(at + 1)) {
        let m;
        if (line.startsWith('[plugin.')) blocks.push({ header: line, kept: [], dropped: [] });
        else if ((m = /^ {2}kept {5}(.*)$/.exec(line))) blocks.at(-1).kept.push(m[1]);
        else if ((m = /^ {2}dropped {2}(.*)$/.exec(line))) blocks.at(-1).dropped.push(m[1]);
        else if (line !== '') throw new Error(`unexpected line in FILTERS: ${JSON.stringify(line)}`);
    }
    return blocks;
}

// The NAME column of the table, per KIND: { tool: [...], resource: [...], ... } for plugin id.
function tableOf(stdout, id) {
    const rows = {};
    for (const line of stdout.split('\n')) {
        const m = /^(\S+)\s+(tool|resource|template|prompt)\s+(\S+)/.exec(line);
        if (m && m[1] === id) (rows[m[2]] ||= []).push(m[3]);
    }
    return rows;
}

// The filtered instance and an unfiltered one (resources are not prefixed: the filter keeps
// them apart). Line numbers as the FILTERS part must name them.
const INI = [
    '[server]', //                                          1
    `plugin_dir = ${PLUGINS}`, //                           2
    '', //                                                  3
    '[plugin.shop]', //                                     4
    'path = example.so', //                                 5
    'prefix = ex', //                                       6
    'tools = e* c?unt sh? !sh2', //                         7
    'resources = example://n* !example://note', //          8
    'prompts = !*', //                                      9
    'shortcuts = sh1: one', //                              10
    '    sh2: two', //                                      11
    '    zz: three', //                                     12
    'notes_file = notes.txt', //                            13
    '', //                                                  14
    '[plugin.whole]', //                                    15
    'path = example.so', //                                 16
    'prefix = all', //                                      17
    '',
].join('\n');

const ALL_TOOLS = ['echo', 'greet', 'add', 'image', 'audio', 'link', 'embed', 'fail', 'count', 'confirm',
    'ask_model', 'roots', 'set_note', 'rescan', 'relay'];

async function main() {
    const r = runCheck('filters.ini', INI);

    await check('--check exits 0 with filters that keep nothing', () => {
        expectEq(r.status, 0, `exit status (stderr: ${r.stderr.slice(0, 400)})`);
    });

    await check('the table lists exactly the kept rows, exposed names', () => {
        const shop = tableOf(r.stdout, 'shop');
        expectEq(shop.tool, ['ex_echo', 'ex_embed', 'ex_count', 'ex_sh1'], 'tools of shop');
        expectEq(shop.resource, ['example://notes-file'], 'resources of shop');
        expectEq(shop.template, undefined, 'templates of shop');
        expectEq(shop.prompt, undefined, 'prompts of shop');
        const whole = tableOf(r.stdout, 'whole');
        expectEq(whole.tool, ALL_TOOLS.map((t) => `all_${t}`), 'tools of the unfiltered instance');
        expectEq(whole.prompt, ['all_review'], 'prompts of the unfiltered instance');
        expectEq(whole.resource, ['example://readme', 'example://note'], 'resources of the unfiltered instance');
        expectEq(whole.template, ['example://greeting/{name}'], 'templates of the unfiltered instance');
    });

    await check('FILTERS names what each filter kept and dropped, with file and line', () => {
        const blocks = filterBlocks(r.stdout);
        expect(blocks !== null, `no FILTERS part in: ${r.stdout.slice(-600)}`);
        expectEq(blocks.map((b) => b.header), [
            `[plugin.shop] tools = e* c?unt sh? !sh2 (${r.ini}:7): 4 kept, 14 dropped`,
            `[plugin.shop] resources = example://n* !example://note (${r.ini}:8): 1 kept, 3 dropped`,
            `[plugin.shop] prompts = !* (${r.ini}:9): 0 kept, 1 dropped`,
        ], 'one block per filter, the unfiltered instance none');
        expectEq(blocks[0].kept, ['echo', 'embed', 'count', 'sh1'], 'tools kept (own names)');
        expectEq(blocks[0].dropped, ALL_TOOLS.filter((t) => !['echo', 'embed', 'count'].includes(t))
            .concat(['sh2', 'zz']), 'tools dropped, table rows then rows defined at init');
        expectEq(blocks[1].kept, ['example://notes-file'], 'resources kept');
        expectEq(blocks[1].dropped, ['example://readme', 'example://note',
            'example://greeting/{name} (template)'], 'resources and templates dropped');
        expectEq(blocks[2].kept, [], 'prompts kept');
        expectEq(blocks[2].dropped, ['review'], 'prompts dropped');
    });

    await check('a filter that keeps nothing is warned about, naming file and line', () => {
        const warn = `mcph: warning: ${r.ini}:9: [plugin.shop] prompts = '!*' keeps nothing (1 dropped): ` +
            'the plugin serves no prompts; check the globs unless that is meant';
        expect(r.stderr.includes(warn), `stderr lacks "${warn}": ${r.stderr.slice(0, 600)}`);
        expect(!/tools = .* keeps nothing|resources = .* keeps nothing/.test(r.stderr),
            `a filter that keeps rows was warned about: ${r.stderr.slice(0, 600)}`);
    });

    await check('no filters, no FILTERS part and no warning', () => {
        const plain = runCheck('plain.ini', `[server]\nplugin_dir = ${PLUGINS}\n[plugin.whole]\npath = example.so\n`);
        expectEq(plain.status, 0, 'exit status');
        expectEq(filterBlocks(plain.stdout), null, 'FILTERS part');
        expect(!/keeps nothing/.test(plain.stderr), `warning: ${plain.stderr}`);
    });

    await check('a bad glob is a config error naming file and line (exit 3)', () => {
        const bad = runCheck('bad.ini', `[server]\nplugin_dir = ${PLUGINS}\n[plugin.shop]\npath = example.so\n` +
            'tools = read_{a,b}\nprompts = [abc\n');
        expectEq(bad.status, 3, `exit status (stderr: ${bad.stderr.slice(0, 400)})`);
        for (const want of [
            `${bad.ini}:5: [plugin.shop] tools = 'read_{a,b}' is not valid: '{' in 'read_{a,b}' is not ` +
                'glob syntax mcph knows (no brace lists); write one glob per name, or \\{ to match the character',
            `${bad.ini}:6: [plugin.shop] prompts = '[abc' is not valid: the set opened by '[' in '[abc' is ` +
                'not closed; close it with \']\', or write \\[ to match the character',
        ]) expect(bad.stderr.includes(want), `stderr lacks "${want}": ${bad.stderr.slice(0, 600)}`);
        expectEq(bad.stdout, '', 'nothing on stdout');
    });
}

try {
    await main();
} finally {
    fs.rmSync(ws, { recursive: true, force: true });
}
done('filters');
