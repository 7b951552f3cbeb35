#!/usr/bin/env node
// The prompts plugin through the real binary and the official SDK v1 client.
//
//   node tests/shipped/prompts.mjs build/mcph
//
// Builds folders of prompt files in a temp dir (good ones, and one for each way a file is
// refused: bad name, bad header, too large, not UTF-8, a symbolic link, ...), serves them
// with a generated INI, and checks prompts/list (names, order, titles, descriptions,
// arguments), prompts/get (placeholders with blanks, repeated, absent optional, a value
// holding {{x}}, role sections), the refusals (-32602), the log lines naming each skipped
// file, a reload by SIGHUP and one by the watch thread (list_changed and the new list),
// the config errors, and the sample prompts of conf/prompts. Every stdout line is checked
// against the negotiated revision's schema. Prints "ok NAME" / "FAIL NAME: why" per check
// and "N passed, N failed"; exits non-zero iff a check failed.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { LATEST_PROTOCOL_VERSION, PromptListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { Session } from '../interop/harness.mjs';
import { makeValidator, defaultSpecDir } from '../lib/schema.mjs';
import { check as checkStep, report, summary, tally } from '../lib/check.mjs';
import { sleep, short, waitFor as until } from '../lib/util.mjs';
import { writeIni } from '../lib/workspace.mjs';

const REQUEST_TIMEOUT_MS = 10000;
const CHANGE_WAIT_MS = 5000; // a reload's list_changed must come within this
const QUIET_WAIT_MS = 800; // and nothing may come within this when nothing changed
const EXIT_WAIT_MS = 5000;
const SUITE_CAP_MS = 55000;

const mcph = path.resolve(process.argv[2] || 'build/mcph');
const pluginDir = path.join(path.dirname(mcph), 'plugins');
const here = path.dirname(fileURLToPath(import.meta.url));
const samplesDir = path.resolve(here, '../../conf/prompts');
const validator = makeValidator(defaultSpecDir());
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'mcph-prompts-'));
const servers = new Set();
const allStderr = []; // every server's stderr, for the sanitizer check at the end

// --- Reporting. ---

// Runs one check: fn returns an array of problems (empty: passed) or throws. Schema problems
// seen on the server's stdout meanwhile fail the check too.
const check = (name, server, fn) => checkStep(name, async () => (await fn()) || [],
    { problems: () => (server ? server.drainProblems() : []), max: 4 });

function expectEqual(problems, what, got, want) {
    const g = JSON.stringify(got);
    const w = JSON.stringify(want);
    if (g !== w) problems.push(`${what}: got ${short(g, 400)}, want ${short(w, 400)}`);
}

// The JSON-RPC error a request failed with: { code, message }, or null when it succeeded.
async function rpcError(promise) {
    try {
        await promise;
        return null;
    } catch (err) {
        return { code: err?.code, message: String(err?.message || err) };
    }
}

// --- One server under the SDK client. ---

// mcph under the SDK client (tests/interop/harness.mjs: every stdout line validated raw),
// counting prompts list_changed.
class Server extends Session {
    constructor(ini) {
        super(LATEST_PROTOCOL_VERSION, [mcph], ini, validator);
        this.listChanged = 0;
        this.client.setNotificationHandler(PromptListChangedNotificationSchema, () => {
            this.listChanged++;
        });
        servers.add(this);
    }

    async start() {
        await this.client.connect(this.transport, { timeout: REQUEST_TIMEOUT_MS });
    }

    get pid() {
        return this.transport.pid;
    }

    list() {
        return this.client.listPrompts({}, { timeout: REQUEST_TIMEOUT_MS }).then((r) => r.prompts);
    }

    get(name, args) {
        const params = args === undefined ? { name } : { name, arguments: args };
        return this.client.getPrompt(params, { timeout: REQUEST_TIMEOUT_MS });
    }

    // Sends SIGHUP and waits for a prompts list_changed; true when one came.
    async reloadBySignal() {
        const before = this.listChanged;
        process.kill(this.pid, 'SIGHUP');
        return until(() => this.listChanged > before, CHANGE_WAIT_MS);
    }

    // Closes stdin and waits for the exit; returns { code, signal } or null on timeout.
    async stop() {
        servers.delete(this);
        allStderr.push(this.stderr);
        const proc = this.transport._process;
        await this.client.close().catch(() => {});
        const exited = await until(() => this.exit !== null || proc?.exitCode !== null, EXIT_WAIT_MS);
        if (!exited) {
            proc?.kill('SIGKILL');
            return null;
        }
        return this.exit || { code: proc?.exitCode, signal: proc?.signalCode };
    }
}

// --- Fixtures. ---

function write(dir, name, text) {
    fs.writeFileSync(path.join(dir, name), text);
}

function ini(name, section) {
    return writeIni(tmp, `[server]\nplugin_dir = ${pluginDir}\nlog_level = info\n\n[plugin.prompts]\npath = prompts.so\n${section}`, name);
}

// The line (1-based) of the first line of text that contains needle.
function lineOf(text, needle) {
    return text.split('\n').findIndex((l) => l.includes(needle)) + 1;
}

const REVIEW = [
    '---',
    'title: Code review',
    'description: Review a change for bugs,',
    '  risks and style',
    '# a comment line',
    'argument: code (required) The code or diff to review',
    'argument: focus What to look at most',
    'argument: lang (optional) The language',
    '---',
    '# Review',
    '',
    'Please review this {{lang}} code:',
    '',
    '{{code}}',
    '',
    'Focus: {{ focus }}. Again: {{\tcode\t}}.',
    'Unknown stays: {{ nope }} and {{not a name}} and {{}}.',
    '<!-- assistant -->',
    'I will review it{{focus}}.',
    '  <!-- USER -->  ',
    '',
    'Thanks.',
    '',
].join('\n');

// Every way a file is refused, with what the log line must say about it.
const REFUSED = [
    { file: 'bad name.md', text: 'x\n', log: 'bad name.md: the prompt name (the file name without .md) is not valid' },
    { file: `${'a'.repeat(129)}.md`, text: 'x\n', log: `${'a'.repeat(129)}.md: the prompt name` },
    { file: 'badhdr.md', text: '---\ntitle: T\ncolour: red\n---\nbody\n', log: "badhdr.md:3: unknown key 'colour'; use title, description or argument (file skipped)" },
    { file: 'unclosed.md', text: '---\ntitle: T\n', log: "unclosed.md:1: the header opened here has no closing '---' line" },
    { file: 'nocolon.md', text: '---\ntitle: T\nbody text\n---\n', log: "nocolon.md:3: expected 'key: value'" },
    { file: 'dupe.md', text: '---\nargument: a\nargument: a (required)\n---\n{{a}}\n', log: "dupe.md:3: the argument 'a' is declared twice (first on line 2)" },
    { file: 'badarg.md', text: '---\nargument: a/b (required)\n---\n{{a}}\n', log: "badarg.md:2: the argument name 'a/b' is not valid" },
    { file: 'twotitles.md', text: '---\ntitle: A\ntitle: B\n---\nx\n', log: 'twotitles.md:3: a second title (the first is on line 2)' },
    { file: 'empty-title.md', text: '---\ntitle:\n---\nx\n', log: "empty-title.md:2: 'title' has no value" },
    { file: 'orphan.md', text: '---\n  continued\n---\nx\n', log: 'orphan.md:2: an indented line continues the value above it' },
    {
        file: 'toomany.md',
        text: `---\n${Array.from({ length: 65 }, (_, i) => `argument: a${i}`).join('\n')}\n---\nx\n`,
        log: 'toomany.md:66: more than 64 arguments',
    },
    { file: 'big.md', text: `# Big\n${'x'.repeat(5000)}\n`, log: 'big.md is larger than max_file_bytes = 4096' },
    { file: 'binary.md', text: 'a\nb\0c\n', log: 'binary.md:2: the file holds a NUL byte' },
    { file: 'latin1.md', text: Buffer.from('line one\ncaf\xe9\n', 'latin1'), log: 'latin1.md:2: byte 12 is not UTF-8' },
    { file: 'overlong.md', text: Buffer.from([0x61, 0xc0, 0xaf, 0x0a]), log: 'overlong.md:1: byte 1 is not UTF-8' },
    { file: 'link.md', link: 'review.md', log: 'link.md is a symbolic link; set follow_symlinks = yes' },
    { file: 'sub.md', dir: true, log: 'sub.md is not a regular file (file skipped)' },
    { file: 'fifo.md', fifo: true, log: 'fifo.md is not a regular file (file skipped)' },
    { file: 'dangling.md', link: 'nowhere.md', log: 'dangling.md is a symbolic link' },
    // A name that tries to forge a log line: shown with '?' for every unprintable byte.
    { file: 'evil\nmcph: error: forged.md', text: 'x\n', log: 'evil?mcph: error: forged.md: the prompt name' },
];

function makeFolderA(dir) {
    fs.mkdirSync(dir);
    write(dir, 'review.md', REVIEW);
    write(dir, 'heading.md', [
        '---',
        'description: Says hello',
        'argument: who (required)',
        '---',
        '```',
        '# not a heading: fenced',
        '```',
        '## The Heading ##',
        '',
        'Hi {{who}}, {{who}}!',
    ].join('\n'));
    write(dir, 'plain.md', '# Plain title\n\nJust text {{x}}.\n');
    write(dir, 'bare.md', '\n\njust words  \n\n');
    write(dir, 'crlf.md', '\ufeff---\r\ntitle: Windows\r\nargument: a (required)\r\n---\r\nA={{a}}\r\nB\r\n');
    write(dir, 'v1.2-x_y.md', '---\ntitle: Dotted\n---\nok\n');
    write(dir, 'fill.md', `---\nargument: v (required)\n---\n${'{{v}}'.repeat(40)}\n`);
    write(dir, '.hidden.md', 'never served\n');
    write(dir, 'notes.txt', 'not a prompt\n');
    write(dir, 'upper.MD', 'not a prompt either\n');
    for (const r of REFUSED) {
        if (r.link) fs.symlinkSync(r.link, path.join(dir, r.file));
        else if (r.dir) fs.mkdirSync(path.join(dir, r.file));
        else if (r.fifo) spawnSync('mkfifo', [path.join(dir, r.file)]);
        else write(dir, r.file, r.text);
    }
}

const NAMES_A = ['bare', 'crlf', 'fill', 'heading', 'plain', 'review', 'v1.2-x_y'];

// --- Checks: folder A, served with watch = no. ---

async function checkList(s) {
    let prompts = [];
    await check('list: names in order, skipped files left out', s, async () => {
        prompts = await s.list();
        const p = [];
        expectEqual(p, 'names', prompts.map((x) => x.name), NAMES_A);
        return p;
    });
    const by = Object.fromEntries(prompts.map((x) => [x.name, x]));
    await check('list: title, description and arguments from the header', s, async () => {
        const p = [];
        const r = by.review || {};
        expectEqual(p, 'title', r.title, 'Code review');
        expectEqual(p, 'description (continuation joined)', r.description, 'Review a change for bugs, risks and style');
        expectEqual(p, 'arguments', (r.arguments || []).map((a) => [a.name, a.description, a.required === true]), [
            ['code', 'The code or diff to review', true],
            ['focus', 'What to look at most', false],
            ['lang', 'The language', false],
        ]);
        expectEqual(p, 'heading.md arguments', (by.heading?.arguments || []).map((a) => [a.name, a.description, a.required]), [
            ['who', undefined, true],
        ]);
        return p;
    });
    await check('list: titles fall back to the first heading, then the name', s, async () => {
        const p = [];
        expectEqual(p, 'header without title: heading outside fenced code', by.heading?.title, 'The Heading');
        expectEqual(p, 'description without title', by.heading?.description, 'Says hello');
        expectEqual(p, 'no header: heading', by.plain?.title, 'Plain title');
        expectEqual(p, 'no header, no heading: name', by.bare?.title, 'bare');
        expectEqual(p, 'BOM and CR LF', by.crlf?.title, 'Windows');
        expectEqual(p, 'no header: no arguments', by.plain?.arguments, undefined);
        expectEqual(p, 'no header: no description', by.plain?.description, undefined);
        return p;
    });
}

const text = (r) => (r.messages || []).map((m) => [m.role, m.content?.type, m.content?.text]);

async function checkGet(s) {
    await check('get: placeholders filled (blanks, tab, repeated, absent optional, value with {{x}}), roles', s, async () => {
        const r = await s.get('review', { code: 'X {{focus}} Y', focus: 'bugs' });
        const p = [];
        expectEqual(p, 'description', r.description, 'Review a change for bugs, risks and style');
        expectEqual(p, 'messages', text(r), [
            ['user', 'text', '# Review\n\nPlease review this  code:\n\nX {{focus}} Y\n\nFocus: bugs. Again: X {{focus}} Y.\n' +
                'Unknown stays: {{ nope }} and {{not a name}} and {{}}.'],
            ['assistant', 'text', 'I will review itbugs.'],
            ['user', 'text', 'Thanks.'],
        ]);
        return p;
    });
    await check('get: every argument given; undeclared arguments ignored', s, async () => {
        const r = await s.get('review', { code: 'c', focus: 'f', lang: 'C', extra: 'ignored' });
        const p = [];
        expectEqual(p, 'first message', text(r)[0]?.[2], '# Review\n\nPlease review this C code:\n\nc\n\nFocus: f. Again: c.\n' +
            'Unknown stays: {{ nope }} and {{not a name}} and {{}}.');
        return p;
    });
    await check('get: a file without header is sent as written; CR LF and BOM dropped', s, async () => {
        const p = [];
        expectEqual(p, 'plain', text(await s.get('plain')), [['user', 'text', '# Plain title\n\nJust text {{x}}.']]);
        expectEqual(p, 'bare (blank lines and trailing blanks trimmed)', text(await s.get('bare', {})), [['user', 'text', 'just words']]);
        expectEqual(p, 'crlf', text(await s.get('crlf', { a: '1\r\n2' })), [['user', 'text', 'A=1\r\n2\nB']]);
        expectEqual(p, 'heading', text(await s.get('heading', { who: 'Ada' })), [
            ['user', 'text', '```\n# not a heading: fenced\n```\n## The Heading ##\n\nHi Ada, Ada!'],
        ]);
        expectEqual(p, 'no description without header', (await s.get('plain')).description, undefined);
        return p;
    });
    await check('get: a missing required argument is refused with -32602 before the plugin', s, async () => {
        const p = [];
        const e1 = await rpcError(s.get('review', { focus: 'x' }));
        expectEqual(p, 'code', e1?.code, -32602);
        if (!/code/.test(e1?.message || '')) p.push(`message does not name the argument: ${e1?.message}`);
        const e2 = await rpcError(s.get('heading'));
        expectEqual(p, 'no arguments at all', e2?.code, -32602);
        return p;
    });
    await check('get: an unknown prompt, a skipped file, a non-string value are refused with -32602', s, async () => {
        const p = [];
        for (const [name, args] of [['nope', {}], ['badhdr', {}], ['bad name', {}], ['.hidden', {}], ['review', { code: 42 }]]) {
            const e = await rpcError(s.get(name, args));
            expectEqual(p, `${name} ${JSON.stringify(args)}`, e?.code, -32602);
        }
        return p;
    });
    await check('get: a fill larger than 32 MiB is refused with -32602; a normal one works', s, async () => {
        const p = [];
        const e = await rpcError(s.get('fill', { v: 'v'.repeat(1 << 20) }));
        expectEqual(p, 'code', e?.code, -32602);
        if (!/larger than 33554432 bytes/.test(e?.message || '')) p.push(`message: ${e?.message}`);
        const r = await s.get('fill', { v: 'ab' });
        expectEqual(p, 'small fill', text(r), [['user', 'text', 'ab'.repeat(40)]]);
        return p;
    });
    await check('get: the server keeps serving after the refusals', s, async () => {
        await s.client.ping({ timeout: REQUEST_TIMEOUT_MS });
        const p = [];
        expectEqual(p, 'get', text(await s.get('v1.2-x_y')), [['user', 'text', 'ok']]);
        return p;
    });
}

function checkLog(s) {
    return check('stderr: every skipped file named, with the line and the fix', s, async () => {
        const p = [];
        for (const r of REFUSED) {
            if (!s.stderr.includes(r.log)) p.push(`no log line with: ${r.log}`);
        }
        const nope = lineOf(REVIEW, '{{ nope }}');
        const want = [
            `review.md:${nope}: {{nope}} names no declared argument, so it is sent as written`,
            'plain.md:3: {{x}} names no declared argument',
        ];
        for (const w of want) {
            if (!s.stderr.includes(w)) p.push(`no warning: ${w}`);
        }
        if (/not a name|\{\{\}\}/.test(s.stderr)) p.push('a non-placeholder {{...}} was warned about');
        if (/hidden|notes\.txt|upper\.MD/.test(s.stderr)) p.push('an ignored file was logged');
        if (/^mcph: error: forged/m.test(s.stderr)) p.push('a file name forged a log line');
        const summary = `${NAMES_A.length} prompts from ${path.join(tmp, 'a')} (${REFUSED.length} files skipped)`;
        if (!s.stderr.includes(summary)) {
            const got = s.stderr.split('\n').filter((l) => /prompts from/.test(l)).join(' / ');
            p.push(`no summary line "${summary}": ${short(got)}`);
        }
        return p;
    });
}

async function checkSignalReload(s, dir) {
    await check('SIGHUP: added, changed and removed files give list_changed and the new list', s, async () => {
        const p = [];
        write(dir, 'new.md', '---\ntitle: New one\nargument: n (required) A number\n---\nn={{n}}\n');
        write(dir, 'review.md', REVIEW.replace('title: Code review', 'title: Code review 2'));
        fs.unlinkSync(path.join(dir, 'plain.md'));
        if (!(await s.reloadBySignal())) return ['no notifications/prompts/list_changed within 5 s of SIGHUP'];
        const prompts = await s.list();
        expectEqual(p, 'names', prompts.map((x) => x.name), ['bare', 'crlf', 'fill', 'heading', 'new', 'review', 'v1.2-x_y']);
        expectEqual(p, 'changed title', prompts.find((x) => x.name === 'review')?.title, 'Code review 2');
        expectEqual(p, 'new prompt', text(await s.get('new', { n: '7' })), [['user', 'text', 'n=7']]);
        expectEqual(p, 'removed prompt', (await rpcError(s.get('plain')))?.code, -32602);
        return p;
    });
    await check('SIGHUP: a body change is served; nothing changed in the list, no list_changed', s, async () => {
        const p = [];
        write(dir, 'new.md', '---\ntitle: New one\nargument: n (required) A number\n---\nnumber {{n}}\n');
        const before = s.listChanged;
        process.kill(s.pid, 'SIGHUP');
        const served = await until(async () => text(await s.get('new', { n: '8' }))[0]?.[2] === 'number 8', CHANGE_WAIT_MS);
        if (!served) p.push('the new body was not served within 5 s of SIGHUP');
        await sleep(QUIET_WAIT_MS);
        expectEqual(p, 'list_changed sent', s.listChanged - before, 0);
        return p;
    });
    await check('SIGHUP: a file fixed shows up, a file broken goes', s, async () => {
        const p = [];
        write(dir, 'badhdr.md', '---\ntitle: T\n---\nbody\n');
        write(dir, 'bare.md', '---\nbroken\n---\n');
        if (!(await s.reloadBySignal())) return ['no list_changed within 5 s of SIGHUP'];
        const names = (await s.list()).map((x) => x.name);
        expectEqual(p, 'names', names, ['badhdr', 'crlf', 'fill', 'heading', 'new', 'review', 'v1.2-x_y']);
        return p;
    });
}

// --- Watch mode. ---

async function checkWatch() {
    const dir = path.join(tmp, 'b');
    fs.mkdirSync(dir);
    write(dir, 'one.md', '# One\n\nfirst\n');
    const s = new Server(ini('b.ini', `dir = ${dir}\n`));
    await s.start();
    const changed = async (what, act) => {
        const before = s.listChanged;
        act();
        return (await until(() => s.listChanged > before, CHANGE_WAIT_MS)) ? null : `no list_changed within 5 s after ${what}`;
    };
    const names = async () => (await s.list()).map((x) => [x.name, x.title]);
    await check('watch: a created file shows up without a signal', s, async () => {
        const p = [];
        const e = await changed('creating two.md', () => write(dir, 'two.md', '---\ntitle: Two\n---\nsecond\n'));
        if (e) return [e];
        expectEqual(p, 'list', await names(), [['one', 'One'], ['two', 'Two']]);
        return p;
    });
    await check('watch: a changed title shows up', s, async () => {
        const p = [];
        const e = await changed('changing two.md', () => write(dir, 'two.md', '---\ntitle: Two again\n---\nsecond\n'));
        if (e) return [e];
        expectEqual(p, 'list', await names(), [['one', 'One'], ['two', 'Two again']]);
        return p;
    });
    await check('watch: a renamed file shows up under its new name', s, async () => {
        const p = [];
        const e = await changed('renaming two.md', () => fs.renameSync(path.join(dir, 'two.md'), path.join(dir, 'three.md')));
        if (e) return [e];
        expectEqual(p, 'list', await names(), [['one', 'One'], ['three', 'Two again']]);
        return p;
    });
    await check('watch: a deleted file goes', s, async () => {
        const p = [];
        const e = await changed('deleting one.md', () => fs.unlinkSync(path.join(dir, 'one.md')));
        if (e) return [e];
        expectEqual(p, 'list', await names(), [['three', 'Two again']]);
        return p;
    });
    await check('watch: an editor-style save (temp file renamed over) is served', s, async () => {
        write(dir, '.three.md.tmp', '---\ntitle: Two again\n---\nedited\n');
        fs.renameSync(path.join(dir, '.three.md.tmp'), path.join(dir, 'three.md'));
        const ok = await until(async () => text(await s.get('three'))[0]?.[2] === 'edited', CHANGE_WAIT_MS);
        return ok ? [] : ['the edited body was not served within 5 s'];
    });
    await check('watch: other files in the folder change nothing', s, async () => {
        const before = s.listChanged;
        write(dir, 'notes.txt', 'x\n');
        write(dir, '.hidden.md', 'x\n');
        await sleep(QUIET_WAIT_MS);
        const p = [];
        expectEqual(p, 'list_changed sent', s.listChanged - before, 0);
        if (/notes\.txt|hidden/.test(s.stderr)) p.push('a reload was started for an ignored file');
        return p;
    });
    await check('watch: a burst of changes makes few reloads', s, async () => {
        const reloads = () => (s.stderr.match(/changed in .*; reloading the prompts/g) || []).length;
        const before = reloads();
        for (let i = 0; i < 20; i++) write(dir, `burst${i}.md`, `# Burst ${i}\n`);
        const ok = await until(async () => (await s.list()).length === 21, CHANGE_WAIT_MS);
        await sleep(QUIET_WAIT_MS);
        const p = [];
        if (!ok) p.push('the 20 new files were not all served within 5 s');
        if (reloads() - before > 3) p.push(`${reloads() - before} reloads for one burst of 20 files`);
        return p;
    });
    await check('watch: stdin closed, the server exits 0 (watch threads joined)', null, async () => {
        const exit = await s.stop();
        return exit && exit.code === 0 ? [] : [`exit: ${JSON.stringify(exit)}`];
    });
}

// --- Config errors, follow_symlinks, with --check. ---

function mcphCheck(iniFile) {
    const r = spawnSync(mcph, ['--check', iniFile], { encoding: 'utf8', timeout: 10000 });
    allStderr.push(r.stderr || '');
    return { status: r.status, stdout: r.stdout || '', stderr: r.stderr || '' };
}

async function checkConfig(dirA) {
    await check('config: a missing folder fails the instance with a message that names it', null, async () => {
        const r = mcphCheck(ini('missing.ini', `dir = ${path.join(tmp, 'missing')}\n`));
        const p = [];
        if (!r.stderr.includes(`cannot open the prompt folder ${path.join(tmp, 'missing')}: No such file or directory; create it`)) {
            p.push(`stderr: ${short(r.stderr)}`);
        }
        if (r.status === 0) p.push('--check passed');
        return p;
    });
    await check('config: bad values are refused with the key and the allowed values', null, async () => {
        const p = [];
        const cases = [
            ['max_file_bytes = 12k', "max_file_bytes = '12k' is not valid; use a number of bytes from 1 to 16777216"],
            ['max_file_bytes = 0', "max_file_bytes = '0' is not valid"],
            ['max_file_bytes = 16777217', "max_file_bytes = '16777217' is not valid"],
            ['watch = maybe', "watch = 'maybe' is not valid; use yes or no"],
            ['follow_symlinks = 2', "follow_symlinks = '2' is not valid; use yes or no"],
        ];
        for (const [line, want] of cases) {
            const r = mcphCheck(ini('bad.ini', `dir = ${dirA}\n${line}\n`));
            if (!r.stderr.includes(want) || r.status === 0) p.push(`${line}: status ${r.status}, stderr ${short(r.stderr, 200)}`);
        }
        return p;
    });
    await check('config: follow_symlinks = yes serves the link; a relative dir is relative to the INI', null, async () => {
        const r = mcphCheck(ini('follow.ini', `dir = ${path.relative(tmp, dirA)}\nfollow_symlinks = yes\nwatch = no\n`));
        const p = [];
        if (!/prompt\s+link\s+Code review/.test(r.stdout)) p.push(`link.md not served: ${short(r.stdout)}`);
        if (r.stderr.includes('symbolic link')) p.push('link still refused');
        if (!r.stderr.includes("dangling.md: the link's target: No such file or directory (file skipped)")) {
            p.push('the dangling link is not reported');
        }
        return p;
    });
    const pre = new Server(ini('prefix.ini', `dir = ${dirA}\nwatch = no\nprefix = my\n`));
    await check('config: with a prefix, names are prefixed and get still finds the file', pre, async () => {
        await pre.start();
        const p = [];
        const names = (await pre.list()).map((x) => x.name);
        expectEqual(p, 'names', names.filter((n) => !n.startsWith('my_')), []);
        if (!names.includes('my_heading')) p.push(`no my_heading in ${short(names)}`);
        expectEqual(p, 'get', text(await pre.get('my_heading', { who: 'Bo' }))[0]?.[2]?.split('\n').at(-1), 'Hi Bo, Bo!');
        expectEqual(p, 'unprefixed name', (await rpcError(pre.get('heading', { who: 'Bo' })))?.code, -32602);
        const exit = await pre.stop();
        if (!exit || exit.code !== 0) p.push(`exit: ${JSON.stringify(exit)}`);
        return p;
    });
    await check('limits: at most 4096 prompts; the files after them are named', null, async () => {
        const dir = path.join(tmp, 'many');
        fs.mkdirSync(dir);
        for (let i = 0; i < 4098; i++) write(dir, `p${String(i).padStart(4, '0')}.md`, 'x\n');
        const r = mcphCheck(ini('many.ini', `dir = ${dir}\nwatch = no\n`));
        const p = [];
        const rows = r.stdout.split('\n').filter((l) => /^prompts\s+prompt\s/.test(l));
        expectEqual(p, 'prompts served', rows.length, 4096);
        expectEqual(p, 'last served', rows.at(-1)?.split(/\s+/)[2], 'p4095');
        if (!r.stderr.includes('holds more than 4096 prompts; p4096.md and the 1 files after it are not served')) {
            p.push(`stderr: ${short(r.stderr)}`);
        }
        fs.rmSync(dir, { recursive: true, force: true });
        return p;
    });
    await check('limits: warnings of one file are capped at 10, the rest counted', null, async () => {
        const dir = path.join(tmp, 'noisy');
        fs.mkdirSync(dir);
        write(dir, 'noisy.md', Array.from({ length: 30 }, (_, i) => `{{u${i}}}`).join('\n'));
        const r = mcphCheck(ini('noisy.ini', `dir = ${dir}\nwatch = no\n`));
        const p = [];
        expectEqual(p, 'warnings shown', (r.stderr.match(/names no declared argument/g) || []).length, 10);
        if (!r.stderr.includes('noisy.md:10: {{u9}}')) p.push('the tenth warning does not name line 10');
        if (!r.stderr.includes('noisy.md: 20 more warnings like these')) p.push(`no count: ${short(r.stderr)}`);
        if (!/prompts\s+prompt\s+noisy/.test(r.stdout)) p.push('noisy.md is not served');
        return p;
    });
}

// --- The sample prompts of conf/prompts. ---

const SAMPLES = {
    'code-review': { required: ['code'], optional: ['language', 'focus'] },
    'commit-message': { required: ['diff'], optional: ['context', 'convention'] },
    'explain-sql': { required: ['query'], optional: ['dialect', 'schema'] },
    'summarize-file': { required: ['path'], optional: ['audience', 'length'] },
};

async function checkSamples() {
    const s = new Server(ini('samples.ini', `dir = ${samplesDir}\nwatch = no\n`));
    await s.start();
    let prompts = [];
    await check('samples: the four prompts of conf/prompts with titles, descriptions, arguments', s, async () => {
        prompts = await s.list();
        const p = [];
        expectEqual(p, 'names', prompts.map((x) => x.name), Object.keys(SAMPLES));
        for (const x of prompts) {
            const want = SAMPLES[x.name];
            if (!x.title || x.title === x.name) p.push(`${x.name}: no title of its own`);
            if (!x.description || x.description.length < 20) p.push(`${x.name}: no description`);
            if (!want) continue;
            expectEqual(p, `${x.name} arguments`, (x.arguments || []).map((a) => [a.name, a.required === true]),
                [...want.required.map((n) => [n, true]), ...want.optional.map((n) => [n, false])]);
            for (const a of x.arguments || []) {
                if (!a.description) p.push(`${x.name}: argument ${a.name} has no description`);
            }
        }
        if (/warning|error/.test(s.stderr)) p.push(`stderr: ${short(s.stderr.split('\n').filter((l) => /warning|error/.test(l)).join(' / '))}`);
        return p;
    });
    await check('samples: every prompt fills every placeholder, with and without optional arguments', s, async () => {
        const p = [];
        for (const [name, want] of Object.entries(SAMPLES)) {
            for (const withOptional of [true, false]) {
                const args = {};
                for (const a of [...want.required, ...(withOptional ? want.optional : [])]) args[a] = `VALUE-OF-${a}`;
                const r = await s.get(name, args);
                const all = text(r).map((m) => m[2]).join('\n');
                if (r.messages.length < 1) p.push(`${name}: no message`);
                if (all.includes('{{')) p.push(`${name}: a placeholder left: ${short(all.slice(all.indexOf('{{'), all.indexOf('{{') + 40))}`);
                for (const a of Object.keys(args)) {
                    if (!all.includes(args[a])) p.push(`${name}: ${a} not in the text`);
                }
            }
            expectEqual(p, `${name} without ${want.required[0]}`, (await rpcError(s.get(name, {})))?.code, -32602);
        }
        return p;
    });
    await check('samples: stdin closed, the server exits 0', null, async () => {
        const exit = await s.stop();
        return exit && exit.code === 0 ? [] : [`exit: ${JSON.stringify(exit)}`];
    });
}

// --- Main. ---

async function main() {
    const dirA = path.join(tmp, 'a');
    makeFolderA(dirA);
    // A relative dir: host->config_path resolves it against the INI file's folder.
    const s = new Server(ini('a.ini', 'dir = a\nwatch = no\nmax_file_bytes = 4096\n'));
    let started = false;
    await check('start: the server serves the folder', s, async () => {
        await s.start();
        started = true;
        return [];
    });
    if (started) {
        await checkList(s);
        await checkGet(s);
        await checkLog(s);
        await checkSignalReload(s, dirA);
        await check('stdin closed, the server exits 0', null, async () => {
            const exit = await s.stop();
            return exit && exit.code === 0 ? [] : [`exit: ${JSON.stringify(exit)}`];
        });
    } else {
        for (const l of s.stderr.split('\n').filter(Boolean).slice(-5)) console.log(`#   stderr: ${l}`);
    }
    await checkWatch();
    await checkConfig(dirA);
    await checkSamples();
    await check('sanitizers: no report on any stderr (when built with SANITIZE=...)', null, async () => {
        const hit = allStderr.join('\n').split('\n').filter((l) => /AddressSanitizer|LeakSanitizer|runtime error:|ThreadSanitizer/.test(l));
        return hit.slice(0, 3);
    });
}

function cleanup() {
    for (const s of servers) s.transport._process?.kill('SIGKILL');
    fs.rmSync(tmp, { recursive: true, force: true });
}

const cap = setTimeout(() => {
    report(false, 'suite', `did not finish within ${SUITE_CAP_MS} ms`);
    cleanup();
    summary();
    process.exit(1);
}, SUITE_CAP_MS);

try {
    await main();
} catch (err) {
    report(false, 'suite', `${err?.stack || err}`);
}
clearTimeout(cap);
cleanup();
summary();
process.exit(tally.exitCode);
