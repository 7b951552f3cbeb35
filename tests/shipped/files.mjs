#!/usr/bin/env node
// The files plugin through the real binary and the official SDK v1 client.
//
//   node tests/shipped/files.mjs build/mcph
//
// Builds a tree in a temp folder (text, markdown, JSON, a PNG, a large file, nested folders,
// links inside->inside, inside->outside and to hidden names, a link loop, a FIFO, a hard link
// to a file outside, a secret outside the root), then runs four servers on it:
//   A  read-only, openat2 resolver, watching, small pages: resources, the template, every
//      read tool, hostile input, races (links, a device swapped in), subscriptions and list
//      changes;
//   B  writable, portable resolver, max_resources 3: the same hostile input, writes, and
//      writes refused through links, hard links, out of the root and on executable files;
//   C  a root given through a symbolic link, hidden = yes, watch = no: the real path in URIs;
//   D  hard_links = yes, one worker, 16 MiB reads: searches that are linear and cancellable.
// Then --check runs: config errors, limits and the start-up order in the log, and no watch
// without /proc.
// Every message mcph sends is checked against the revision's schema. Prints "ok NAME" or
// "FAIL NAME: why" per check and "N passed, N failed" last; exits non-zero on a failure.

import { execFileSync, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
    ResourceListChangedNotificationSchema,
    ResourceUpdatedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { Session } from '../interop/harness.mjs';
import { makeValidator, defaultSpecDir } from '../lib/schema.mjs';
import { check as checkStep, report, summary, tally } from '../lib/check.mjs';
import { CAPPED, capped, short, sleep, waitFor } from '../lib/util.mjs';
import { writeIni as writeIniFile } from '../lib/workspace.mjs';

const REV = '2025-06-18';
const TIMEOUT_MS = 10000;
const SLOW_TIMEOUT_MS = 120000;
const NOTIFY_WAIT_MS = 4000;
const SUITE_CAP_MS = 55000;
const MAX_READ = 65536;
const SECRET = 'TOP SECRET: never served';

// A 2x2 RGB PNG.
const PNG = Buffer.from(
    '89504e470d0a1a0a0000000d49484452000000020000000208020000' +
        '00fdd49a73000000124944415478da63f8cfc0c000c20cff8100001fee05fbf1abba77' +
        '0000000049454e44ae426082',
    'hex',
);

const sessions = [];
const outputs = []; // every text the servers sent, to look for the secret

// Runs one check: fn returns a note (string) or a list of problems, or throws. Schema
// problems in what the server sent meanwhile fail the check too.
const check = (s, name, fn) => checkStep(name, fn, { problems: () => (s ? s.drainProblems() : []), max: 4 });

// --- The tree. ------------------------------------------------------------------------------

// What file://<real path> looks like: every byte but A-Z a-z 0-9 - . _ ~ / percent-encoded.
function encodePath(p) {
    let out = '';
    for (const b of Buffer.from(p, 'utf8')) {
        const c = String.fromCharCode(b);
        out += /[A-Za-z0-9\-._~/]/.test(c) ? c : `%${b.toString(16).toUpperCase().padStart(2, '0')}`;
    }
    return out;
}

const BIG_LINES = 4000;
const bigLine = (i) => `line ${String(i).padStart(5, '0')} ${'x'.repeat(20)}\n`;

// The regular files every root holds, by relative path.
const FILES = {
    'README.md': '# Title\n\nSome *markdown* with a needle.\n',
    'a.txt': 'hello world\nsecond line\nthird line\n',
    'big.txt': Array.from({ length: BIG_LINES }, (_, i) => bigLine(i + 1)).join(''),
    'café.md': 'accents\n',
    'data.json': '{"key": "value", "needle": true}\n',
    'hard.txt': 'linked from outside\n',
    'img/pixel.png': PNG,
    'latin1.txt': Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a]),
    'nested/a/b/c/deep.md': 'deep down\n',
    'notes': 'plain text without an extension\n',
    'raw.bin': Buffer.from([0x00, 0x01, 0x02, 0xff]),
    'space name.txt': 'spaced\n',
    'src/main.c': 'int main(void) { return 0; } /* NEEDLE */\n',
    'src/util.h': '#define UTIL 1\n',
};
const MIME = {
    'README.md': 'text/markdown',
    'a.txt': 'text/plain',
    'big.txt': 'text/plain',
    'café.md': 'text/markdown',
    'data.json': 'application/json',
    'hard.txt': 'text/plain',
    'img/pixel.png': 'image/png',
    'latin1.txt': 'text/plain',
    'nested/a/b/c/deep.md': 'text/markdown',
    'notes': 'text/plain',
    'raw.bin': 'application/octet-stream',
    'space name.txt': 'text/plain',
    'src/main.c': 'text/x-c',
    'src/util.h': 'text/x-c',
};
const SORTED = Object.keys(FILES).sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
// What is listed as resources: hard.txt has a second name outside the root, and files of more
// than one link are not read unless hard_links = yes.
const RESOURCES = SORTED.filter((rel) => rel !== 'hard.txt');

function buildTree(top, name) {
    const root = path.join(top, name);
    for (const [rel, data] of Object.entries(FILES)) {
        fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
        fs.writeFileSync(path.join(root, rel), data);
    }
    // Hidden, and so not served by default.
    fs.writeFileSync(path.join(root, '.env'), SECRET);
    fs.mkdirSync(path.join(root, '.hidden'));
    fs.writeFileSync(path.join(root, '.hidden/secret.txt'), SECRET);
    fs.mkdirSync(path.join(root, '.git'));
    fs.writeFileSync(path.join(root, '.git/config'), SECRET);
    // Links inside the root to hidden names: hidden = no refuses them too.
    fs.symlinkSync('.hidden', path.join(root, 'to_hidden'));
    fs.symlinkSync('.env', path.join(root, 'to_env'));
    fs.symlinkSync('.git', path.join(root, 'to_git'));
    fs.symlinkSync('../.hidden/secret.txt', path.join(root, 'nested/up_hidden'));
    // Links that stay inside.
    fs.symlinkSync('a.txt', path.join(root, 'inlink'));
    fs.symlinkSync('src', path.join(root, 'dir_link'));
    fs.symlinkSync('../a.txt', path.join(root, 'src/back'));
    // Links that leave: absolute, relative, through a folder, from deeper down, into /proc.
    fs.symlinkSync(path.join(top, 'secret'), path.join(root, 'abs_out'));
    fs.symlinkSync('../secret', path.join(root, 'rel_out'));
    fs.symlinkSync(top, path.join(root, 'dir_out'));
    fs.symlinkSync('../../secret', path.join(root, 'src/up'));
    fs.symlinkSync('/proc/self/root/etc/passwd', path.join(root, 'magic'));
    // Loops.
    fs.symlinkSync('loop2', path.join(root, 'loop1'));
    fs.symlinkSync('loop1', path.join(root, 'loop2'));
    fs.symlinkSync('self', path.join(root, 'self'));
    // A FIFO nobody writes to: opening it for reading would block.
    execFileSync('mkfifo', [path.join(root, 'fifo')]);
    // Names that cannot be sent as JSON text or asked for again: left out everywhere.
    fs.writeFileSync(Buffer.concat([Buffer.from(`${root}/bad`), Buffer.from([0xff]), Buffer.from('.txt')]), 'x');
    fs.writeFileSync(path.join(root, 'new\nline.txt'), 'x');
    // A hard link whose other name is outside the root.
    fs.linkSync(path.join(root, 'hard.txt'), path.join(top, `${name}-hard-outside.txt`));
    return fs.realpathSync(root);
}

function writeIni(top, file, plugin, logLevel = 'warning', server = {}) {
    const pluginDir = path.resolve(path.dirname(process.argv[2]), 'plugins');
    return writeIniFile(top, {
        server: { plugin_dir: pluginDir, page_size: 5, log_level: logLevel, ...server },
        'plugin.files': { path: 'files.so', ...plugin },
    }, file);
}

// --- Calls. ---------------------------------------------------------------------------------

const textOf = (r) => (r.content || []).filter((c) => c.type === 'text').map((c) => c.text).join('\n');

async function tool(s, name, args, timeout = TIMEOUT_MS) {
    const r = await s.client.callTool({ name, arguments: args }, undefined, { timeout });
    outputs.push(JSON.stringify(r));
    return r;
}

async function read(s, uri) {
    const r = await s.client.readResource({ uri }, { timeout: TIMEOUT_MS });
    outputs.push(JSON.stringify(r));
    return r;
}

// A refused read: the protocol error code and a message matching re.
async function readRefused(s, uri, code, re) {
    try {
        const r = await read(s, uri);
        return [`read succeeded: ${short(r)}`];
    } catch (err) {
        outputs.push(String(err.message));
        if (err.code !== code) return [`error code ${err.code}, expected ${code}: ${short(err.message)}`];
        if (!re.test(err.message)) return [`message ${short(err.message)} does not match ${re}`];
        return `${code}: ${short(err.message, 140)}`;
    }
}

// The server still answers: a ping and a real read.
async function stillServing(s) {
    await s.client.ping({ timeout: TIMEOUT_MS });
    const r = await tool(s, 'read_file', { path: 'a.txt' });
    if (r.isError || textOf(r) !== FILES['a.txt']) throw new Error(`read_file a.txt after it: ${short(r)}`);
}

// A refused tool call: isError with a message matching re, and the server still serving.
async function toolRefused(s, name, args, re) {
    const started = Date.now();
    const r = await tool(s, name, args);
    const took = Date.now() - started;
    const problems = [];
    if (r.isError !== true) problems.push(`not a tool error: ${short(r)}`);
    else if (!re.test(textOf(r))) problems.push(`message ${short(textOf(r))} does not match ${re}`);
    await stillServing(s);
    return problems.length ? problems : `${took} ms: ${short(textOf(r), 150)}`;
}

async function listAllResources(s) {
    const items = [];
    let cursor;
    let pages = 0;
    do {
        const r = await s.client.listResources(cursor ? { cursor } : {}, { timeout: TIMEOUT_MS });
        items.push(...r.resources);
        cursor = r.nextCursor;
        if (++pages > 100) throw new Error('more than 100 pages');
    } while (cursor);
    return { items, pages };
}

async function startSession(validator, ini, name) {
    const s = new Session(REV, [process.argv[2]], ini, validator);
    s.updates = [];
    s.listChanged = 0;
    s.client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => s.updates.push(n.params.uri));
    s.client.setNotificationHandler(ResourceListChangedNotificationSchema, () => {
        s.listChanged++;
    });
    sessions.push(s);
    const ok = await check(s, `${name}: initialize`, async () => {
        await s.client.connect(s.transport, { timeout: TIMEOUT_MS });
        return s.negotiated === REV ? 'negotiated' : [`negotiated ${s.negotiated}`];
    });
    return ok ? s : null;
}

// The server ends cleanly on EOF: exit status 0 with its watcher thread stopped.
async function stopSession(s, name) {
    await check(null, `${name}: exits cleanly on EOF`, async () => {
        const proc = s.transport._process;
        await s.client.close();
        const ok = await waitFor(() => s.exit !== null, 5000);
        if (!ok) {
            proc?.kill('SIGKILL');
            return ['still running 5 s after EOF'];
        }
        const bad = s.stderr.split('\n').filter((l) => /AddressSanitizer|runtime error|LeakSanitizer|ThreadSanitizer/.test(l));
        if (bad.length) return [`sanitizer: ${short(bad.join(' '))}`];
        return s.exit.code === 0 ? 'status 0' : [`exit ${JSON.stringify(s.exit)}; stderr ${short(s.stderrTail(3).join(' | '))}`];
    });
}

// --- Checks: resources. ---------------------------------------------------------------------

async function checkResources(s, root, name) {
    const uriRoot = `file://${encodePath(root)}`;
    const uriOf = (rel) => `${uriRoot}/${encodePath(rel)}`;

    await check(s, `${name}: resources/list, every page`, async () => {
        const { items, pages } = await listAllResources(s);
        const problems = [];
        const names = items.map((r) => r.name);
        if (JSON.stringify(names) !== JSON.stringify(RESOURCES)) problems.push(`names ${short(names, 400)}`);
        for (const r of items) {
            const data = FILES[r.name];
            if (!data) continue;
            if (r.uri !== uriOf(r.name)) problems.push(`${r.name}: uri ${r.uri}, expected ${uriOf(r.name)}`);
            if (r.mimeType !== MIME[r.name]) problems.push(`${r.name}: mimeType ${r.mimeType}`);
            if (r.size !== Buffer.byteLength(data)) problems.push(`${r.name}: size ${r.size}`);
        }
        if (pages < 2) problems.push(`${pages} page(s) with page_size 5`);
        return problems.length ? problems : `${items.length} files in ${pages} pages`;
    });
    await check(s, `${name}: read a text resource`, async () => {
        const r = await read(s, uriOf('a.txt'));
        const c = r.contents[0];
        return c.text === FILES['a.txt'] && c.mimeType === 'text/plain' && c.uri === uriOf('a.txt')
            ? 'text/plain' : [`contents ${short(r)}`];
    });
    await check(s, `${name}: read markdown, JSON, an encoded name`, async () => {
        const problems = [];
        for (const rel of ['README.md', 'data.json', 'café.md', 'space name.txt', 'nested/a/b/c/deep.md']) {
            const c = (await read(s, uriOf(rel))).contents[0];
            if (c.text !== FILES[rel] || c.mimeType !== MIME[rel]) problems.push(`${rel}: ${short(c)}`);
        }
        return problems.length ? problems : 'all exact';
    });
    await check(s, `${name}: read a blob resource (PNG)`, async () => {
        const c = (await read(s, uriOf('img/pixel.png'))).contents[0];
        return c.blob === PNG.toString('base64') && c.mimeType === 'image/png' && c.text === undefined
            ? `${PNG.length} bytes` : [`contents ${short(c)}`];
    });
    await check(s, `${name}: a text type that is not UTF-8 comes as a blob`, async () => {
        const c = (await read(s, uriOf('latin1.txt'))).contents[0];
        return c.blob === FILES['latin1.txt'].toString('base64') && c.mimeType === 'text/plain'
            ? 'blob' : [`contents ${short(c)}`];
    });
    await check(s, `${name}: resources/templates/list`, async () => {
        const r = await s.client.listResourceTemplates({}, { timeout: TIMEOUT_MS });
        const t = r.resourceTemplates.find((x) => x.uriTemplate === `${uriRoot}/{+path}`);
        return t ? `${t.uriTemplate}` : [`templates ${short(r)}`];
    });
    await check(s, `${name}: read through the template (a URI no resource has)`, async () => {
        const problems = [];
        const variants = {
            [`${uriRoot}/nested/./a/b/c/deep.md`]: 'nested/a/b/c/deep.md',
            [`${uriRoot}/src/%6Dain.c`]: 'src/main.c',
            [`${uriRoot}/src//util.h`]: 'src/util.h',
            [`${uriRoot}/dir_link/main.c`]: 'src/main.c',
            [`${uriRoot}/src/back`]: 'a.txt',
        };
        for (const [uri, rel] of Object.entries(variants)) {
            const c = (await read(s, uri)).contents[0];
            if (c.text !== FILES[rel] || c.uri !== uri) problems.push(`${uri}: ${short(c)}`);
        }
        return problems.length ? problems : `${Object.keys(variants).length} URIs`;
    });
    await check(s, `${name}: template completion offers names`, async () => {
        const r = await s.client.complete({ ref: { type: 'ref/resource', uri: `${uriRoot}/{+path}` },
            argument: { name: 'path', value: 'sr' } }, { timeout: TIMEOUT_MS });
        const v = r.completion.values;
        const r2 = await s.client.complete({ ref: { type: 'ref/resource', uri: `${uriRoot}/{+path}` },
            argument: { name: 'path', value: 'src/m' } }, { timeout: TIMEOUT_MS });
        return JSON.stringify(v) === '["src/"]' && JSON.stringify(r2.completion.values) === '["src/main.c"]'
            ? `${v} then ${r2.completion.values}` : [`values ${short(v)} / ${short(r2.completion.values)}`];
    });
    return uriRoot;
}

async function checkHostileResources(s, uriRoot, name) {
    const cases = [
        ['"%2e%2e%2f" decodes to ..', `${uriRoot}/%2e%2e%2fsecret`, -32602, /"\.\." is not allowed/],
        ['".." in the URI', `${uriRoot}/src/../../secret`, -32602, /"\.\." is not allowed/],
        ['an absolute path after the root', `${uriRoot}//etc/passwd`, -32602, /outside the root/],
        ['%00', `${uriRoot}/a.txt%00.png`, -32602, /NUL/],
        ['a bad escape', `${uriRoot}/a%zz`, -32602, /percent escape/],
        ['a control character', `${uriRoot}/a%0Ab`, -32602, /control character/],
        ['a link out (relative)', `${uriRoot}/rel_out`, -32602, /outside the root/],
        ['a link out (absolute)', `${uriRoot}/abs_out`, -32602, /outside the root/],
        ['a link to a folder out', `${uriRoot}/dir_out/secret`, -32602, /outside the root/],
        ['a link into /proc', `${uriRoot}/magic`, -32602, /outside the root/],
        ['a link loop', `${uriRoot}/loop1`, -32602, /symbolic links \(a loop\)/],
        ['a FIFO', `${uriRoot}/fifo`, -32602, /fifo, not a regular file/],
        ['a folder', `${uriRoot}/src`, -32602, /is a folder/],
        ['a hidden file', `${uriRoot}/.env`, -32602, /hidden/],
        ['a link to a hidden file', `${uriRoot}/to_env`, -32602, /leads to a hidden name.*hidden = no/],
        ['a file through a link to a hidden folder', `${uriRoot}/to_hidden/secret.txt`, -32602, /leads to a hidden name/],
        ['a file over max_read_bytes', `${uriRoot}/big.txt`, -32602, new RegExp(`${Buffer.byteLength(FILES['big.txt'])} bytes, over the read limit of ${MAX_READ}`)],
        ['a file of 2 hard links', `${uriRoot}/hard.txt`, -32602, /"hard\.txt" is refused: it has 2 hard links.*hard_links = yes/],
        ['a missing file', `${uriRoot}/nope.txt`, -32002, /does not exist/],
        ['no double decoding', `${uriRoot}/%252e%252e%252fsecret`, -32002, /does not exist/],
        ['a URI outside the root', 'file:///etc/passwd', -32002, /./],
        ['a name of 300 bytes', `${uriRoot}/${'n'.repeat(300)}`, -32602, /a name of 300 bytes, over the limit of 255/],
        ['a 5000-byte URI', `${uriRoot}/${'x'.repeat(5000)}`, -32602, /longer than 4096 bytes/],
    ];
    for (const [what, uri, code, re] of cases) {
        await check(s, `${name}: resource refused: ${what}`, async () => {
            const r = await readRefused(s, uri, code, re);
            await stillServing(s);
            return r;
        });
    }
}

// --- Checks: read tools. --------------------------------------------------------------------

async function checkToolList(s, name, writable) {
    await check(s, `${name}: tools/list and annotations`, async () => {
        const tools = [];
        let cursor;
        for (let pages = 0; pages < 10; pages++) {
            const r = await s.client.listTools(cursor ? { cursor } : {}, { timeout: TIMEOUT_MS });
            tools.push(...r.tools);
            cursor = r.nextCursor;
            if (!cursor) break;
        }
        const r = { tools };
        const names = r.tools.map((t) => t.name);
        const want = ['list_directory', 'read_file', 'find_files', 'search_files',
            ...(writable ? ['write_file', 'create_directory'] : [])];
        const problems = [];
        if (JSON.stringify(names) !== JSON.stringify(want)) problems.push(`tools ${names}`);
        for (const t of r.tools) {
            const ro = !['write_file', 'create_directory'].includes(t.name);
            if (t.annotations?.readOnlyHint !== ro) problems.push(`${t.name}: readOnlyHint ${t.annotations?.readOnlyHint}`);
            if (t.annotations?.openWorldHint !== false) problems.push(`${t.name}: openWorldHint`);
            if (t.inputSchema.additionalProperties !== false) problems.push(`${t.name}: additionalProperties`);
        }
        const w = r.tools.find((t) => t.name === 'write_file');
        if (w && w.annotations.destructiveHint !== true) problems.push('write_file: destructiveHint');
        return problems.length ? problems : names.join(', ');
    });
}

async function checkListDirectory(s, name) {
    await check(s, `${name}: list_directory of the root`, async () => {
        const r = await tool(s, 'list_directory', {});
        const e = r.structuredContent?.entries || [];
        const got = e.map((x) => `${x.name}:${x.type}${x.size !== undefined ? `:${x.size}` : ''}`);
        const size = (rel) => Buffer.byteLength(FILES[rel]);
        const want = [`README.md:file:${size('README.md')}`, 'a.txt:file:35', 'abs_out:symlink',
            `big.txt:file:${size('big.txt')}`, 'café.md:file:8', `data.json:file:${size('data.json')}`,
            'dir_link:symlink', 'dir_out:symlink', 'fifo:fifo', 'hard.txt:file:20', 'img:directory',
            'inlink:symlink', 'latin1.txt:file:5', 'loop1:symlink', 'loop2:symlink', 'magic:symlink',
            'nested:directory', `notes:file:${size('notes')}`, 'raw.bin:file:4', 'rel_out:symlink',
            'self:symlink', 'space name.txt:file:7', 'src:directory', 'to_env:symlink', 'to_git:symlink',
            'to_hidden:symlink'];
        if (r.isError || JSON.stringify(got) !== JSON.stringify(want)) return [`entries ${short(got, 600)}`];
        if (!/^file +a\.txt {2}\(35 bytes\)$/m.test(textOf(r)) || !/^directory +src\/$/m.test(textOf(r))) return [`text ${short(textOf(r))}`];
        return `${e.length} entries, hidden ones left out`;
    });
    await check(s, `${name}: list_directory of a sub-folder`, async () => {
        const r = await tool(s, 'list_directory', { path: 'src' });
        const got = (r.structuredContent?.entries || []).map((x) => `${x.name}:${x.type}`);
        return r.structuredContent?.path === 'src' && JSON.stringify(got) === '["back:symlink","main.c:file","up:symlink","util.h:file"]'
            ? got.join(' ') : [`result ${short(r)}`];
    });
}

async function checkReadFile(s, name) {
    const big = FILES['big.txt'];
    const cases = [
        ['whole', { path: 'a.txt' }, FILES['a.txt']],
        ['lines 2-3', { path: 'a.txt', start_line: 2, end_line: 3 }, 'second line\nthird line\n'],
        ['from line 2', { path: 'a.txt', start_line: 2 }, 'second line\nthird line\n'],
        ['up to line 1', { path: 'a.txt', end_line: 1 }, 'hello world\n'],
        ['through an inside link', { path: 'inlink' }, FILES['a.txt']],
        ['through a link with ..', { path: 'src/back' }, FILES['a.txt']],
        ['through a linked folder', { path: 'dir_link/util.h' }, FILES['src/util.h']],
        ['an absolute path inside the root', { path: `${s.root}/src/util.h` }, FILES['src/util.h']],
        ['lines of a file over the limit', { path: 'big.txt', start_line: 3000, end_line: 3002 },
            bigLine(3000) + bigLine(3001) + bigLine(3002)],
    ];
    for (const [what, args, want] of cases) {
        await check(s, `${name}: read_file ${what}`, async () => {
            const r = await tool(s, 'read_file', args);
            return !r.isError && textOf(r) === want ? `${want.length} bytes` : [`result ${short(r)}`];
        });
    }
    await check(s, `${name}: read_file output stops at max_read_bytes`, async () => {
        const r = await tool(s, 'read_file', { path: 'big.txt', start_line: 1 });
        const [body, note] = r.content.map((c) => c.text);
        const lines = MAX_READ / bigLine(1).length | 0;
        if (r.isError || body !== big.slice(0, lines * bigLine(1).length)) return [`body ${short(body)}`];
        const m = /after line (\d+); continue with start_line (\d+)/.exec(note || '');
        return m && +m[1] === lines && +m[2] === lines + 1 ? short(note) : [`note ${short(note)}`];
    });
    await check(s, `${name}: read_file of a PNG is an image`, async () => {
        const r = await tool(s, 'read_file', { path: 'img/pixel.png' });
        const c = r.content[0];
        return c.type === 'image' && c.data === PNG.toString('base64') && c.mimeType === 'image/png'
            ? 'image/png' : [`content ${short(c)}`];
    });
    await check(s, `${name}: read_file of other bytes is an embedded blob`, async () => {
        const r = await tool(s, 'read_file', { path: 'latin1.txt' });
        const c = r.content[0];
        return c.type === 'resource' && c.resource.blob === FILES['latin1.txt'].toString('base64')
            ? c.resource.uri : [`content ${short(c)}`];
    });
    await check(s, `${name}: read_file past the end`, async () => {
        const r = await tool(s, 'read_file', { path: 'a.txt', start_line: 9 });
        return r.isError && /has 3 lines; start_line 9 is past its end/.test(textOf(r)) ? textOf(r) : [`result ${short(r)}`];
    });
    await check(s, `${name}: read_file with end_line before start_line`, async () => {
        const r = await tool(s, 'read_file', { path: 'a.txt', start_line: 3, end_line: 2 });
        return r.isError && /end_line \(2\) no less than start_line/.test(textOf(r)) ? 'tool error' : [`result ${short(r)}`];
    });
}

async function checkFindSearch(s, name) {
    const finds = [
        [{ pattern: '**/*.md' }, ['README.md', 'café.md', 'nested/a/b/c/deep.md']],
        [{ pattern: '*.c' }, ['src/main.c']],
        [{ pattern: 'src/*.[ch]' }, ['src/main.c', 'src/util.h']],
        [{ pattern: '**/deep.md', path: 'nested' }, ['nested/a/b/c/deep.md']],
        [{ pattern: 'a/**/*.md', path: 'nested' }, ['nested/a/b/c/deep.md']],
        [{ pattern: '*.nothing' }, []],
    ];
    for (const [args, want] of finds) {
        await check(s, `${name}: find_files ${JSON.stringify(args)}`, async () => {
            const r = await tool(s, 'find_files', args);
            const got = r.structuredContent?.files;
            return !r.isError && JSON.stringify(got) === JSON.stringify(want) && r.structuredContent.truncated === false
                ? `${got.length} found` : [`result ${short(r)}`];
        });
    }
    const searches = [
        [{ query: 'needle' }, ['README.md:3: Some *markdown* with a needle.', 'data.json:1: {"key": "value", "needle": true}']],
        [{ query: 'NEEDLE', ignore_case: true }, ['README.md:3: Some *markdown* with a needle.',
            'data.json:1: {"key": "value", "needle": true}', 'src/main.c:1: int main(void) { return 0; } /* NEEDLE */']],
        [{ query: 'NEEDLE', glob: '*.c' }, ['src/main.c:1: int main(void) { return 0; } /* NEEDLE */']],
        [{ query: 'line', path: 'src' }, []],
        [{ query: 'second line', glob: '*.txt' }, ['a.txt:2: second line']],
    ];
    for (const [args, want] of searches) {
        await check(s, `${name}: search_files ${JSON.stringify(args)}`, async () => {
            const r = await tool(s, 'search_files', args);
            const lines = textOf(r).split('\n').filter((l) => l && !l.startsWith('['));
            const got = want.length ? lines : r.structuredContent?.matches;
            return !r.isError && JSON.stringify(got) === JSON.stringify(want) && r.structuredContent.matches.length === want.length
                ? `${want.length} match(es)` : [`result ${short(r, 500)}`];
        });
    }
    await check(s, `${name}: search_files skips big and binary files`, async () => {
        const r = await tool(s, 'search_files', { query: 'line 0' });
        const sc = r.structuredContent;
        return sc && sc.matches.length === 0 && sc.files_skipped === 5 && /5 files skipped: binary, unreadable, over max_read_bytes, or of more than one hard link/.test(textOf(r))
            ? `skipped ${sc.files_skipped}` : [`result ${short(r)}`];
    });
}

// With max_results 4: every listing stops at 4 and says so.
async function checkCaps(s, name) {
    await check(s, `${name}: find_files capped at max_results`, async () => {
        const r = await tool(s, 'find_files', { pattern: '**' });
        return JSON.stringify(r.structuredContent?.files) === JSON.stringify(SORTED.slice(0, 4)) &&
            r.structuredContent.truncated === true && /only the first 4 matches/.test(textOf(r))
            ? 'truncated at 4' : [`result ${short(r)}`];
    });
    await check(s, `${name}: search_files capped at max_results`, async () => {
        const r = await tool(s, 'search_files', { query: 'e' });
        return r.structuredContent?.matches.length === 4 && r.structuredContent.truncated === true &&
            /only the first 4 matches/.test(textOf(r)) ? 'truncated at 4' : [`result ${short(r)}`];
    });
    await check(s, `${name}: list_directory capped at max_results`, async () => {
        const r = await tool(s, 'list_directory', {});
        const names = r.structuredContent?.entries.map((e) => e.name);
        return JSON.stringify(names) === '["README.md","a.txt","abs_out","big.txt"]' && r.structuredContent.truncated === true &&
            /only the first 4 entries/.test(textOf(r)) ? 'truncated at 4' : [`result ${short(r)}`];
    });
}

// --- Checks: hostile tool input. ------------------------------------------------------------

async function checkHostileTools(s, name) {
    const cases = [
        ['read_file', { path: '../secret' }, /"\.\." is not allowed/],
        ['read_file', { path: '/etc/passwd' }, /outside the root/],
        ['read_file', { path: 'a/../../secret' }, /"\.\." is not allowed/],
        ['read_file', { path: 'rel_out' }, /leads outside the root/],
        ['read_file', { path: 'abs_out' }, /leads outside the root/],
        ['read_file', { path: 'dir_out/secret' }, /leads outside the root/],
        ['read_file', { path: 'src/up' }, /leads outside the root/],
        ['read_file', { path: 'magic' }, /leads outside the root/],
        ['read_file', { path: 'loop1' }, /a loop/],
        ['read_file', { path: 'self' }, /a loop/],
        ['read_file', { path: 'fifo' }, /fifo, not a regular file/],
        ['read_file', { path: 'fifo', start_line: 1 }, /fifo, not a regular file/],
        ['read_file', { path: 'big.txt' }, new RegExp(`${Buffer.byteLength(FILES['big.txt'])} bytes, over the read limit of ${MAX_READ} bytes.*start_line`)],
        ['read_file', { path: 'x'.repeat(5000) }, /5000 bytes long, over the limit of 4095/],
        ['read_file', { path: `${'d/'.repeat(100)}${'n'.repeat(300)}` }, /name of 300 bytes/],
        ['read_file', { path: 'a\u0001b' }, /control character 0x01/],
        ['read_file', { path: '.env' }, /hidden name/],
        ['read_file', { path: '.hidden/secret.txt' }, /hidden name/],
        ['read_file', { path: 'to_env' }, /"to_env" is refused: a symbolic link on its way leads to a hidden name.*hidden = no/],
        ['read_file', { path: 'to_hidden/secret.txt' }, /leads to a hidden name/],
        ['read_file', { path: 'to_git/config' }, /leads to a hidden name/],
        ['read_file', { path: 'nested/up_hidden' }, /leads to a hidden name/],
        ['read_file', { path: 'to_hidden/secret.txt', start_line: 1 }, /leads to a hidden name/],
        ['list_directory', { path: 'to_git' }, /leads to a hidden name/],
        ['find_files', { pattern: '*', path: 'to_hidden' }, /leads to a hidden name/],
        ['search_files', { query: 'SECRET', path: 'to_hidden' }, /leads to a hidden name/],
        ['read_file', { path: 'src' }, /is a folder/],
        ['read_file', { path: 'hard.txt' }, /"hard\.txt" is refused: it has 2 hard links, and files of more than one are not read \(another name of the file may be outside the root\); hard_links = yes allows it/],
        ['read_file', { path: 'hard.txt', start_line: 1 }, /2 hard links/],
        ['read_file', { path: 'nope.txt' }, /does not exist/],
        ['read_file', { path: '' }, /the path is empty/],
        ['list_directory', { path: '..' }, /"\.\." is not allowed/],
        ['list_directory', { path: 'dir_out' }, /leads outside the root/],
        ['list_directory', { path: 'a.txt' }, /not a folder/],
        ['find_files', { pattern: '*', path: '/tmp' }, /outside the root/],
        ['search_files', { query: 'SECRET', path: 'dir_out' }, /leads outside the root/],
        ['search_files', { query: 'a\nb' }, /one line of text/],
    ];
    for (const [t, args, re] of cases) {
        const shown = short(JSON.stringify(args), 60);
        await check(s, `${name}: ${t} refused: ${shown}`, () => toolRefused(s, t, args, re));
    }
    await check(s, `${name}: read_file with a NUL in the path`, async () => {
        try {
            const r = await tool(s, 'read_file', { path: 'a.txt\u0000.png' });
            return [`answered ${short(r)}`];
        } catch (err) {
            await stillServing(s);
            return err.code === -32602 && /U\+0000/.test(err.message) ? `${err.code} ${err.message}` : [`error ${err.code} ${err.message}`];
        }
    });
    await check(s, `${name}: an unknown argument`, () => toolRefused(s, 'read_file', { path: 'a.txt', mode: 'w' }, /mode/));
}

// --- Checks: writes. ------------------------------------------------------------------------

async function checkWrites(s, top, root, name) {
    const disk = (rel) => fs.readFileSync(path.join(root, rel), 'utf8');
    await check(s, `${name}: write_file creates`, async () => {
        const r = await tool(s, 'write_file', { path: 'new.txt', content: 'fresh\n' });
        const sc = r.structuredContent;
        return !r.isError && sc.created === true && sc.bytes === 6 && disk('new.txt') === 'fresh\n' ? textOf(r) : [`result ${short(r)}`];
    });
    await check(s, `${name}: write_file replaces`, async () => {
        const r = await tool(s, 'write_file', { path: 'new.txt', content: 'second' });
        const back = await tool(s, 'read_file', { path: 'new.txt' });
        return !r.isError && r.structuredContent.created === false && textOf(back) === 'second' ? textOf(r) : [`result ${short(r)}`];
    });
    await check(s, `${name}: write_file into a missing folder`, () =>
        toolRefused(s, 'write_file', { path: 'made/x.txt', content: 'x' }, /does not exist; pass create_parents: true/));
    await check(s, `${name}: write_file with create_parents`, async () => {
        const r = await tool(s, 'write_file', { path: 'made/deep/x.txt', content: 'x', create_parents: true });
        return !r.isError && disk('made/deep/x.txt') === 'x' ? textOf(r) : [`result ${short(r)}`];
    });
    await check(s, `${name}: create_directory`, async () => {
        const r = await tool(s, 'create_directory', { path: 'dirs/one/two' });
        const again = await tool(s, 'create_directory', { path: 'dirs/one/two' });
        const ok = fs.statSync(path.join(root, 'dirs/one/two')).isDirectory();
        return ok && r.structuredContent.created === true && again.structuredContent.created === false &&
            /already exists/.test(textOf(again)) ? `${textOf(r)}; ${textOf(again)}` : [`results ${short(r)} ${short(again)}`];
    });
    await check(s, `${name}: a new file is made without execute, setuid or setgid bits`, async () => {
        const r = await tool(s, 'write_file', { path: 'mode.txt', content: 'm\n' });
        const mode = fs.statSync(path.join(root, 'mode.txt')).mode & 0o7777;
        const want = 0o666 & ~process.umask();
        return !r.isError && mode === want ? `mode 0${mode.toString(8)}` : [`mode 0${mode.toString(8)}, expected 0${want.toString(8)}: ${short(r)}`];
    });
    await checkModes(s, root, name);
    const secretBefore = fs.readFileSync(path.join(top, 'secret'), 'utf8');
    const hardBefore = fs.readFileSync(path.join(root, 'hard.txt'), 'utf8');
    const refused = [
        ['write_file', { path: 'inlink', content: 'x' }, /symbolic link, and writes never follow/],
        ['write_file', { path: 'rel_out', content: 'x' }, /symbolic link, and writes never follow/],
        ['write_file', { path: 'abs_out', content: 'x' }, /symbolic link, and writes never follow/],
        ['write_file', { path: 'dir_link/new.c', content: 'x' }, /contains a symbolic link/],
        ['write_file', { path: 'dir_out/secret', content: 'x' }, /contains a symbolic link/],
        ['write_file', { path: 'dir_out/evil.txt', content: 'x', create_parents: true }, /symbolic link/],
        ['write_file', { path: 'hard.txt', content: 'x' }, /2 hard links/],
        ['write_file', { path: 'fifo', content: 'x' }, /fifo, and only regular files are written/],
        ['write_file', { path: 'src', content: 'x' }, /directory, and only regular files/],
        ['write_file', { path: '../escape.txt', content: 'x' }, /"\.\." is not allowed/],
        ['write_file', { path: `${top}/escape.txt`, content: 'x' }, /outside the root/],
        ['write_file', { path: '.', content: 'x' }, /root itself is a folder/],
        ['write_file', { path: '.env', content: 'x' }, /hidden name/],
        ['write_file', { path: 'huge.txt', content: 'x'.repeat(MAX_READ + 1) }, new RegExp(`${MAX_READ + 1} bytes, over the limit of ${MAX_READ}`)],
        ['create_directory', { path: 'dir_link/sub' }, /symbolic link/],
        ['create_directory', { path: 'dir_out/sub' }, /symbolic link/],
        ['create_directory', { path: 'a.txt/sub' }, /exists and is not a folder/],
        ['create_directory', { path: '../up' }, /"\.\." is not allowed/],
    ];
    for (const [t, args, re] of refused) {
        await check(s, `${name}: ${t} refused: ${short(JSON.stringify(args), 60)}`, () => toolRefused(s, t, args, re));
    }
    await check(s, `${name}: nothing changed outside the root`, async () => {
        const problems = [];
        if (fs.readFileSync(path.join(top, 'secret'), 'utf8') !== secretBefore) problems.push('secret changed');
        if (fs.readFileSync(path.join(root, 'hard.txt'), 'utf8') !== hardBefore) problems.push('hard link changed');
        for (const f of ['escape.txt', 'evil.txt', 'sub', 'up']) {
            if (fs.existsSync(path.join(top, f))) problems.push(`${f} made outside`);
        }
        if (fs.existsSync(path.join(root, 'src/new.c'))) problems.push('wrote through dir_link');
        if (fs.readFileSync(path.join(root, 'a.txt'), 'utf8') !== FILES['a.txt']) problems.push('wrote through inlink');
        return problems.length ? problems : 'secret, hard link and links untouched';
    });
}

// Files that may be run (an execute bit) or that run with another's rights (setuid, setgid)
// are never written: their contents and modes stay as they were.
async function checkModes(s, root, name) {
    const cases = [
        ['run.sh', 0o755, /"run\.sh" is refused: it is executable \(mode 0755\), and a file with an execute, setuid or setgid bit is never written/],
        ['other-x.txt', 0o641, /"other-x\.txt" is refused: it is executable \(mode 0641\)/],
        ['suid.txt', 0o4644, /"suid\.txt" is refused: it is setuid \(mode 04644\)/],
        ['sgid.txt', 0o2644, /"sgid\.txt" is refused: it is setgid \(mode 02644\)/],
    ];
    for (const [rel, mode, re] of cases) {
        const file = path.join(root, rel);
        fs.writeFileSync(file, '#!/bin/sh\necho kept\n');
        fs.chmodSync(file, mode);
        const set = fs.statSync(file).mode & 0o7777;
        await check(s, `${name}: write_file refused: ${rel} of mode 0${mode.toString(8)}`, async () => {
            if (set !== mode) return `not checked: the file system keeps mode 0${set.toString(8)}`;
            const r = await toolRefused(s, 'write_file', { path: rel, content: 'echo changed\n' }, re);
            const after = fs.statSync(file).mode & 0o7777;
            const data = fs.readFileSync(file, 'utf8');
            if (after !== mode || data !== '#!/bin/sh\necho kept\n') return [`now mode 0${after.toString(8)}, contents ${short(data)}`];
            return r;
        });
    }
}

// --- Checks: races. -------------------------------------------------------------------------

// Runs a shell loop that keeps swapping what a name is, while fn() makes calls through it.
async function racing(script, fn) {
    const child = spawn('sh', ['-c', script], { stdio: 'ignore' });
    try {
        return await fn();
    } finally {
        child.kill('SIGKILL');
        await new Promise((r) => {
            if (child.exitCode !== null || child.signalCode !== null) r();
            else child.once('exit', r);
        });
    }
}

const RACE_CALLS = 300;
const RACE_BATCH = 20;

// "race" flips between a link to a folder inside and a link to a folder outside (atomic
// renames): every read through it gives the inside file or a refusal, never the secret.
async function checkReadRace(s, top, root, name) {
    fs.mkdirSync(path.join(root, 'race_in'));
    fs.writeFileSync(path.join(root, 'race_in/inner.txt'), 'inside\n');
    fs.mkdirSync(path.join(top, 'race_out'), { recursive: true });
    fs.writeFileSync(path.join(top, 'race_out/inner.txt'), SECRET);
    fs.symlinkSync('race_in', path.join(root, 'race'));
    const script = `cd '${root}' && while :; do ln -sfn race_in r.tmp && mv -Tf r.tmp race; ` +
        `ln -sfn '${top}/race_out' r.tmp && mv -Tf r.tmp race; done`;
    await check(s, `${name}: reads racing a link flipped in and out`, () => racing(script, async () => {
        const tally = { inside: 0, refused: 0 };
        const problems = [];
        for (let i = 0; i < RACE_CALLS; i += RACE_BATCH) {
            const batch = Array.from({ length: RACE_BATCH }, () => tool(s, 'read_file', { path: 'race/inner.txt' }));
            for (const r of await Promise.all(batch)) {
                if (!r.isError && textOf(r) === 'inside\n') tally.inside++;
                else if (r.isError && /leads outside the root|does not exist|changed while/.test(textOf(r))) tally.refused++;
                else problems.push(short(r));
            }
        }
        return problems.length ? problems : `${tally.inside} inside, ${tally.refused} refused`;
    }));
}

// "wrace" flips between a real folder and a link to a folder outside: writes through it land
// inside or are refused; nothing is ever written outside.
async function checkWriteRace(s, top, root, name) {
    const out = path.join(top, 'wrace_out');
    fs.mkdirSync(out);
    fs.mkdirSync(path.join(root, 'wrace'));
    const script = `cd '${root}' && while :; do mv -T wrace wrace.real 2>/dev/null; ` +
        `ln -sfn '${out}' wrace; rm -f wrace; mv -T wrace.real wrace 2>/dev/null; done`;
    await check(s, `${name}: writes racing a folder swapped for a link out`, () => racing(script, async () => {
        const tally = { written: 0, refused: 0 };
        const problems = [];
        for (let i = 0; i < RACE_CALLS; i += RACE_BATCH) {
            const batch = Array.from({ length: RACE_BATCH }, (_, k) =>
                tool(s, 'write_file', { path: `wrace/f${i + k}.txt`, content: 'x' }));
            for (const r of await Promise.all(batch)) {
                if (!r.isError) tally.written++;
                else if (/symbolic link|does not exist|not a folder/.test(textOf(r))) tally.refused++;
                else problems.push(short(r));
            }
        }
        const leaked = fs.readdirSync(out);
        if (leaked.length) problems.push(`written outside: ${leaked.slice(0, 3)}`);
        return problems.length ? problems : `${tally.written} written inside, ${tally.refused} refused, none outside`;
    }));
}

// "dev_race" flips between a regular file and a character device (/dev/zero's numbers):
// every read gives the file's text or a refusal, never the device's bytes, and no write
// reaches the device (it would fail to truncate it). Needs mknod (root).
async function checkDeviceRace(s, root, name, writable) {
    const made = spawnSync('mknod', [path.join(root, 'dev_probe'), 'c', '1', '5'], { encoding: 'utf8' });
    fs.rmSync(path.join(root, 'dev_probe'), { force: true });
    fs.writeFileSync(path.join(root, 'dev_race'), 'regular\n');
    const script = `cd '${root}' && while :; do printf 'regular\\n' > dev_r.tmp; mv -f dev_r.tmp dev_race; ` +
        'mknod dev_z.tmp c 1 5 && mv -f dev_z.tmp dev_race; done';
    const uri = `file://${encodePath(root)}/dev_race`;
    const calls = [
        () => tool(s, 'read_file', { path: 'dev_race' }).then((r) => ['read', r]),
        () => tool(s, 'read_file', { path: 'dev_race', start_line: 1 }).then((r) => ['lines', r]),
        () => tool(s, 'search_files', { query: 'regular', glob: 'dev_race' }).then((r) => ['search', r]),
        () => read(s, uri).then((r) => ['resource', r], (err) => ['resource', { error: err.message }]),
        ...(writable ? [() => tool(s, 'write_file', { path: 'dev_race', content: 'regular\n' }).then((r) => ['write', r])] : []),
    ];
    const refusedRead = /char_device, not a regular file|changed while it was being opened|does not exist/;
    // write_file empties the file before it writes: a read in between sees nothing.
    const texts = writable ? ['regular\n', ''] : ['regular\n'];
    const empty = writable ? /^"dev_race" has 0 lines; start_line 1 is past its end$/ : /^$/;
    const refusedWrite = /char_device, and only regular files are written|kept changing|does not exist/;
    await check(s, `${name}: calls racing a file swapped for a device`, () => {
        if (made.status !== 0) return 'not checked: mknod is not allowed here';
        return racing(script, async () => {
            const tally = {};
            const problems = [];
            for (let i = 0; i < 200; i += 20) {
                const batch = Array.from({ length: 20 }, (_, k) => calls[(i + k) % calls.length]());
                for (const [kind, r] of await Promise.all(batch)) {
                    let ok;
                    if (kind === 'resource') ok = texts.includes(r.contents?.[0]?.text) || refusedRead.test(r.error || '');
                    else if (kind === 'search') ok = !r.isError && ['[]', '[{"path":"dev_race","line":1,"text":"regular"}]'].includes(JSON.stringify(r.structuredContent?.matches));
                    else if (kind === 'write') ok = (!r.isError && r.structuredContent?.bytes === 8) || (r.isError && refusedWrite.test(textOf(r)));
                    else ok = (!r.isError && texts.includes(textOf(r))) || (r.isError && (refusedRead.test(textOf(r)) || empty.test(textOf(r))));
                    const key = `${kind} ${r.isError || r.error ? 'refused' : 'done'}`;
                    tally[key] = (tally[key] || 0) + 1;
                    if (!ok) problems.push(`${kind}: ${short(r)}`);
                }
            }
            return problems.length ? problems : JSON.stringify(tally);
        });
    });
}

// --- Checks: subscriptions and list changes. ------------------------------------------------

async function checkWatch(s, root, uriRoot, name) {
    await check(s, `${name}: subscribe, modify, resources/updated`, async () => {
        const uri = `${uriRoot}/a.txt`;
        await s.client.subscribeResource({ uri }, { timeout: TIMEOUT_MS });
        s.updates.length = 0;
        fs.writeFileSync(path.join(root, 'a.txt'), 'changed\n');
        const got = await waitFor(() => s.updates.includes(uri), NOTIFY_WAIT_MS);
        const c = (await read(s, uri)).contents[0];
        fs.writeFileSync(path.join(root, 'a.txt'), FILES['a.txt']);
        await waitFor(() => s.updates.length >= 2, NOTIFY_WAIT_MS);
        if (!got) return [`no update for ${uri} (got ${short(s.updates)})`];
        return c.text === 'changed\n' ? `${s.updates.length} update(s)` : [`read after the update ${short(c)}`];
    });
    await check(s, `${name}: a burst of writes is one update`, async () => {
        await sleep(300);
        s.updates.length = 0;
        for (let i = 0; i < 20; i++) fs.writeFileSync(path.join(root, 'a.txt'), `${FILES['a.txt']}${i}\n`);
        fs.writeFileSync(path.join(root, 'a.txt'), FILES['a.txt']);
        await waitFor(() => s.updates.length > 0, NOTIFY_WAIT_MS);
        await sleep(400);
        return s.updates.length === 1 ? 'one update for 21 writes' : [`${s.updates.length} updates`];
    });
    await check(s, `${name}: a new file: list_changed, then listed`, async () => {
        const before = s.listChanged;
        fs.writeFileSync(path.join(root, 'zz-new.md'), 'new\n');
        const got = await waitFor(() => s.listChanged > before, NOTIFY_WAIT_MS);
        const { items } = await listAllResources(s);
        const listed = items.find((r) => r.name === 'zz-new.md');
        if (!got) return ['no notifications/resources/list_changed'];
        return listed && listed.uri === `${uriRoot}/zz-new.md` && listed.mimeType === 'text/markdown'
            ? `${items.length} resources` : [`not listed: ${short(items.map((r) => r.name))}`];
    });
    await check(s, `${name}: a deleted file: list_changed, then gone`, async () => {
        await sleep(300);
        const before = s.listChanged;
        fs.unlinkSync(path.join(root, 'zz-new.md'));
        const got = await waitFor(() => s.listChanged > before, NOTIFY_WAIT_MS);
        const { items } = await listAllResources(s);
        if (!got) return ['no notifications/resources/list_changed'];
        return !items.some((r) => r.name === 'zz-new.md') ? 'gone' : ['still listed'];
    });
    await check(s, `${name}: a new folder is watched after the rebuild`, async () => {
        await sleep(300);
        let before = s.listChanged;
        fs.mkdirSync(path.join(root, 'fresh'));
        await waitFor(() => s.listChanged > before, NOTIFY_WAIT_MS);
        await sleep(300);
        before = s.listChanged;
        fs.writeFileSync(path.join(root, 'fresh/f.txt'), 'f\n');
        const got = await waitFor(() => s.listChanged > before, NOTIFY_WAIT_MS);
        const { items } = await listAllResources(s);
        return got && items.some((r) => r.name === 'fresh/f.txt') ? 'fresh/f.txt listed' : [`list_changed ${got}`];
    });
    await check(s, `${name}: the subscription outlives the rebuilds`, async () => {
        await sleep(300);
        s.updates.length = 0;
        fs.writeFileSync(path.join(root, 'a.txt'), 'once more\n');
        const got = await waitFor(() => s.updates.includes(`${uriRoot}/a.txt`), NOTIFY_WAIT_MS);
        fs.writeFileSync(path.join(root, 'a.txt'), FILES['a.txt']);
        await waitFor(() => s.updates.length >= 2, NOTIFY_WAIT_MS);
        await stillServing(s);
        return got ? 'updated after the new instance took over' : [`no update (got ${short(s.updates)})`];
    });
}

// SIGHUP rebuilds the instance (its rows come from the folder): the old one is shut down, a
// new one serves, and an unchanged folder makes an unchanged list (no list_changed).
async function checkReload(s, name) {
    await check(s, `${name}: SIGHUP rebuilds the instance; an unchanged tree sends no list_changed`, async () => {
        await sleep(400);
        const before = s.listChanged;
        const { items } = await listAllResources(s);
        s.transport._process.kill('SIGHUP');
        await sleep(600);
        await stillServing(s);
        const after = await listAllResources(s);
        if (s.listChanged !== before) return [`${s.listChanged - before} list_changed`];
        return JSON.stringify(after.items) === JSON.stringify(items) ? `${items.length} resources, same list` : ['the list changed'];
    });
}

// --- Main. ----------------------------------------------------------------------------------

async function serverA(validator, top) {
    const root = buildTree(top, 'root');
    const ini = writeIni(top, 'a.ini', { root: 'root', max_read_bytes: MAX_READ, max_results: 100 });
    const s = await startSession(validator, ini, 'A');
    if (!s) return;
    s.root = root;
    const uriRoot = await checkResources(s, root, 'A');
    await checkHostileResources(s, uriRoot, 'A');
    await checkToolList(s, 'A', false);
    await checkListDirectory(s, 'A');
    await checkReadFile(s, 'A');
    await checkFindSearch(s, 'A');
    await checkHostileTools(s, 'A');
    await checkWatch(s, root, uriRoot, 'A');
    await checkReload(s, 'A');
    await checkReadRace(s, top, root, 'A');
    await checkDeviceRace(s, root, 'A', false);
    await stopSession(s, 'A');
}

async function serverB(validator, top) {
    const root = buildTree(top, 'wroot');
    const ini = writeIni(top, 'b.ini', { root: 'wroot', writable: 'yes', resolver: 'portable', watch: 'no',
        max_read_bytes: MAX_READ, max_results: 4, max_resources: 3 });
    const s = await startSession(validator, ini, 'B');
    if (!s) return;
    s.root = root;
    const uriRoot = `file://${encodePath(root)}`;
    await check(s, 'B: max_resources lists the first 3, the template reads the rest', async () => {
        const { items } = await listAllResources(s);
        const c = (await read(s, `${uriRoot}/src/main.c`)).contents[0];
        return JSON.stringify(items.map((r) => r.name)) === JSON.stringify(RESOURCES.slice(0, 3)) && c.text === FILES['src/main.c']
            ? `${items.map((r) => r.name)}` : [`listed ${short(items.map((r) => r.name))}, read ${short(c)}`];
    });
    await checkHostileResources(s, uriRoot, 'B (portable)');
    await checkToolList(s, 'B', true);
    await checkReadFile(s, 'B (portable)');
    await checkCaps(s, 'B');
    await checkHostileTools(s, 'B (portable)');
    await checkWrites(s, top, root, 'B');
    await checkReadRace(s, top, root, 'B (portable)');
    await checkWriteRace(s, top, root, 'B (portable)');
    await checkDeviceRace(s, root, 'B (portable)', true);
    await stopSession(s, 'B');
}

async function serverC(validator, top) {
    const real = path.join(top, 'croot-real');
    fs.mkdirSync(path.join(real, '.dot'), { recursive: true });
    fs.writeFileSync(path.join(real, '.dot/seen.txt'), 'seen\n');
    fs.symlinkSync('.dot', path.join(real, 'to_dot'));
    fs.writeFileSync(path.join(real, 'b.txt'), 'b\n');
    const asRoot = process.getuid?.() === 0;
    fs.writeFileSync(path.join(real, 'locked.txt'), 'locked\n');
    fs.chmodSync(path.join(real, 'locked.txt'), 0);
    fs.symlinkSync(real, path.join(top, 'croot-link'));
    const ini = writeIni(top, 'c.ini', { root: 'croot-link', hidden: 'yes', watch: 'no' });
    const s = await startSession(validator, ini, 'C');
    if (!s) return;
    await check(s, 'C: a root through a link is served by its real path; hidden = yes', async () => {
        const { items } = await listAllResources(s);
        const want = [['.dot/seen.txt', `file://${encodePath(real)}/.dot/seen.txt`], ['b.txt', `file://${encodePath(real)}/b.txt`]];
        const got = items.map((r) => [r.name, r.uri]).filter(([n]) => n !== 'locked.txt');
        const r = await tool(s, 'read_file', { path: '.dot/seen.txt' });
        const viaLink = await tool(s, 'read_file', { path: 'to_dot/seen.txt' });
        return JSON.stringify(got) === JSON.stringify(want) && textOf(r) === 'seen\n' && textOf(viaLink) === 'seen\n'
            ? 'real path, dot-files served, also through a link' : [`got ${short(got)}; ${short(r)}; ${short(viaLink)}`];
    });
    await check(s, 'C: an unreadable file is left out, and reading it says why', async () => {
        if (asRoot) return 'not checked: running as root, which reads anything';
        const { items } = await listAllResources(s);
        const r = await tool(s, 'read_file', { path: 'locked.txt' });
        return !items.some((x) => x.name === 'locked.txt') && r.isError && /permission denied/.test(textOf(r))
            ? textOf(r) : [`listed ${short(items.map((x) => x.name))}; read ${short(r)}`];
    });
    await stopSession(s, 'C');
}

// D: hard_links = yes, one worker, the largest max_read_bytes: files of several links are
// read, and searches over large files are fast and can be cancelled.
async function serverD(validator, top) {
    const root = path.join(top, 'droot');
    fs.mkdirSync(root);
    fs.writeFileSync(path.join(top, 'linked-outside.txt'), 'two names\n');
    fs.linkSync(path.join(top, 'linked-outside.txt'), path.join(root, 'linked.txt'));
    fs.writeFileSync(path.join(root, 'small.txt'), 'small\n');
    const ini = writeIni(top, 'd.ini', { root: 'droot', hard_links: 'yes', watch: 'no', max_read_bytes: 16777216 },
        'warning', { workers: 1 });
    const s = await startSession(validator, ini, 'D');
    if (!s) return;
    const uriRoot = `file://${encodePath(fs.realpathSync(root))}`;
    await check(s, 'D: hard_links = yes lists and reads a file of 2 links', async () => {
        const { items } = await listAllResources(s);
        const r = await tool(s, 'read_file', { path: 'linked.txt' });
        const c = (await read(s, `${uriRoot}/linked.txt`)).contents[0];
        const s2 = await tool(s, 'search_files', { query: 'two' });
        return JSON.stringify(items.map((x) => x.name)) === '["linked.txt","small.txt"]' && textOf(r) === 'two names\n' &&
            c.text === 'two names\n' && JSON.stringify(s2.structuredContent?.matches) === '[{"path":"linked.txt","line":1,"text":"two names"}]'
            ? 'listed, read, searched' : [`listed ${short(items.map((x) => x.name))}; read ${short(r)}; ${short(c)}; ${short(s2)}`];
    });
    await checkSearchSpeed(s, root, 'D');
    await checkSearchCancel(s, root, 'D');
    await stopSession(s, 'D');
}

// Lines of 8191 'A's: a long query that almost matches everywhere ('a' x 1022 + 'b', ignoring
// case) is the worst case of a naive scan, about a thousand comparisons per byte.
const A_LINE = `${'A'.repeat(8191)}\n`;
const MIB_OF_A = A_LINE.repeat(128);
const NEAR_MISS = `${'a'.repeat(1022)}b`;
const SEARCH_FAST_MS = 1000;

async function checkSearchSpeed(s, root, name) {
    fs.mkdirSync(path.join(root, 'speed'));
    for (let i = 0; i < 8; i++) {
        const lines = MIB_OF_A.split('\n');
        if (i === 7) lines[99] = `${'A'.repeat(7000)}${'A'.repeat(1022)}B${'A'.repeat(168)}`;
        fs.writeFileSync(path.join(root, `speed/f${i}.txt`), lines.join('\n'));
    }
    await check(s, `${name}: search_files ignore_case, a 1023-byte query over 8 x 1 MiB, is linear`, async () => {
        const started = Date.now();
        const r = await tool(s, 'search_files', { query: NEAR_MISS, path: 'speed', ignore_case: true });
        const took = Date.now() - started;
        const want = [{ path: 'speed/f7.txt', line: 100, text: `${'A'.repeat(240)}...` }];
        const sc = r.structuredContent;
        if (r.isError || JSON.stringify(sc?.matches) !== JSON.stringify(want) || sc.files_searched !== 8) return [`result ${short(r)}`];
        const exact = await tool(s, 'search_files', { query: NEAR_MISS, path: 'speed' });
        if (exact.structuredContent?.matches.length !== 0) return [`case-sensitive search found ${short(exact)}`];
        return took < SEARCH_FAST_MS ? `${took} ms, the one match found` : [`took ${took} ms (over ${SEARCH_FAST_MS})`];
    });
}

// A search over the whole scan budget (16 names of one 16 MiB file: hard_links = yes), then
// the same search cancelled: the one worker is free again at once, not when it would have
// ended.
async function checkSearchCancel(s, root, name) {
    fs.mkdirSync(path.join(root, 'slow'));
    fs.writeFileSync(path.join(root, 'slow/s00.txt'), MIB_OF_A.repeat(16));
    for (let i = 1; i <= 16; i++) fs.linkSync(path.join(root, 'slow/s00.txt'), path.join(root, `slow/s${String(i).padStart(2, '0')}.txt`));
    const args = { query: NEAR_MISS, path: 'slow', ignore_case: true };
    await check(s, `${name}: a cancelled search_files stops at once`, async () => {
        let started = Date.now();
        // The whole budget: seconds under a sanitizer (TSan slows the scan tenfold).
        const full = await tool(s, 'search_files', args, SLOW_TIMEOUT_MS);
        const whole = Date.now() - started;
        if (full.isError || full.structuredContent?.files_searched !== 16 || full.structuredContent.truncated !== true) return [`uncancelled: ${short(full)}`];
        const ac = new AbortController();
        const call = s.client.callTool({ name: 'search_files', arguments: args }, undefined, { timeout: TIMEOUT_MS, signal: ac.signal })
            .then(() => 'answered', (err) => (/no longer needed/.test(String(err?.message ?? err)) ? 'aborted' : `failed: ${err?.message}`));
        await sleep(40);
        ac.abort('no longer needed');
        started = Date.now();
        const next = await tool(s, 'read_file', { path: 'small.txt' });
        const waited = Date.now() - started;
        const outcome = await call;
        if (outcome !== 'aborted') return [`the cancelled call ${outcome}`];
        if (textOf(next) !== 'small\n') return [`the next call: ${short(next)}`];
        // 300 ms, or a tenth of the whole search where everything runs slower (TSan).
        return waited < Math.max(300, whole / 10) && waited < whole / 2
            ? `the next call waited ${waited} ms; the whole search takes ${whole} ms`
            : [`the next call waited ${waited} ms; the whole search takes ${whole} ms`];
    });
}

async function checkConfigErrors(top) {
    const cases = [
        [{ root: 'no-such-folder' }, /root = '.*no-such-folder' cannot be served/],
        [{ root: 'root', max_resources: 5000 }, /max_resources = '5000' is not valid; use a whole number from 0 to 4096/],
        [{ root: 'root', writable: 'maybe' }, /writable = 'maybe' is not valid; use yes or no/],
        [{ root: 'root', resolver: 'magic' }, /resolver = 'magic' is not valid/],
        [{ root: 'root', hard_links: 'sometimes' }, /hard_links = 'sometimes' is not valid; use yes or no/],
    ];
    for (const [i, [keys, re]] of cases.entries()) {
        await check(null, `config refused: ${JSON.stringify(keys)}`, async () => {
            const ini = writeIni(top, `bad${i}.ini`, keys);
            let out = '';
            try {
                execFileSync(process.argv[2], ['--check', ini], { stdio: 'pipe', timeout: TIMEOUT_MS });
                return ['--check passed'];
            } catch (err) {
                out = `${err.stdout}${err.stderr}`;
                return err.status === 3 && re.test(out) ? short(out.split('\n').find((l) => re.test(l)), 160) : [`status ${err.status}: ${short(out)}`];
            }
        });
    }
}

// Limits that trim what is served say so in the log (seen with --check, which runs init).
async function checkLimitLogs(top) {
    const cases = [
        [{ root: 'root', max_resources: 3, watch: 'no' }, /only the first 3 files under .* are listed as resources \(max_resources\); read the others through the template file:\/\/.*\/\{\+path\}/],
        [{ root: 'root', max_watches: 2 }, /watching only 2 folders under .* \(max_watches\); changes in the others are not seen/],
    ];
    for (const [i, [keys, re]] of cases.entries()) {
        await check(null, `logged: ${JSON.stringify(keys)}`, async () => {
            const ini = writeIni(top, `limit${i}.ini`, keys, 'info');
            const r = spawnSync(process.argv[2], ['--check', ini], { encoding: 'utf8', timeout: TIMEOUT_MS });
            r.out = `${r.stdout}${r.stderr}`;
            return r.status === 0 && re.test(r.out) ? short(r.out.split('\n').find((l) => re.test(l)), 160) : [`status ${r.status}: ${short(r.out)}`];
        });
    }
}

// init watches the folders before it walks them for the resource list, so that no change
// falls between the walk and the watch (the log at debug says what it did, in order).
async function checkStartOrder(top) {
    await check(null, 'init: the watches are set before the walk that lists the resources', async () => {
        const ini = writeIni(top, 'order.ini', { root: 'root' }, 'debug');
        const r = spawnSync(process.argv[2], ['--check', ini], { encoding: 'utf8', timeout: TIMEOUT_MS });
        const lines = `${r.stdout}${r.stderr}`.split('\n');
        const watching = lines.findIndex((l) => /plugin files: watching \d+ folders under /.test(l));
        const listed = lines.findIndex((l) => /plugin files: listed \d+ files under .* as resources/.test(l));
        if (r.status !== 0 || watching < 0 || listed < 0) return [`status ${r.status}; lines ${watching} ${listed}: ${short(lines.filter((l) => /files/.test(l)).join(' | '), 400)}`];
        return watching < listed ? `${short(lines[watching], 80)}, then ${short(lines[listed], 80)}` : [`listed (line ${listed}) before watching (line ${watching})`];
    });
}

// Without /proc a folder cannot be watched through its descriptor, and a watch by path could
// land outside the root: nothing is watched, and the log says so. mcph itself needs /proc (it
// loads plugins through /proc/self/fd), so the case is made by a preloaded inotify_add_watch
// that fails for /proc paths as if /proc were missing, and reports any watch by path.
const NO_PROC_SHIM = `#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
int inotify_add_watch(int fd, const char *path, unsigned int mask)
{
    int (*real)(int, const char *, unsigned int);
    if (strncmp(path, "/proc/", 6) == 0) {
        errno = ENOENT;
        return -1;
    }
    fprintf(stderr, "shim: a watch by path: %s\\n", path);
    *(void **)&real = dlsym(RTLD_NEXT, "inotify_add_watch");
    return real(fd, path, mask);
}
`;

async function checkNoProc(top) {
    await check(null, 'without /proc nothing is watched, and the log says why', async () => {
        const src = path.join(top, 'noproc.c');
        const so = path.join(top, 'noproc.so');
        fs.writeFileSync(src, NO_PROC_SHIM);
        const cc = spawnSync('cc', ['-shared', '-fPIC', '-o', so, src, '-ldl'], { encoding: 'utf8', timeout: TIMEOUT_MS });
        if (cc.status !== 0) return `not checked: no C compiler to build the shim (${short(`${cc.error || cc.stderr}`, 80)})`;
        const ini = writeIni(top, 'noproc.ini', { root: 'root' }, 'debug');
        const env = { ...process.env, LD_PRELOAD: so, ASAN_OPTIONS: `${process.env.ASAN_OPTIONS || ''}:verify_asan_link_order=0` };
        const r = spawnSync(process.argv[2], ['--check', ini], { encoding: 'utf8', timeout: TIMEOUT_MS, env });
        const out = `${r.stdout}${r.stderr}`;
        const byPath = out.split('\n').filter((l) => l.startsWith('shim: '));
        const warned = out.split('\n').find((l) => /watch = yes, but \/proc is not mounted.*changes under .* are not seen; mount \/proc, or set watch = no/.test(l));
        if (r.status !== 0) return [`status ${r.status}: ${short(out)}`];
        if (byPath.length) return [`watched by path: ${short(byPath.join(' | '))}`];
        if (!warned || !/listed \d+ files under/.test(out)) return [`no warning, or no resources: ${short(out.split('\n').filter((l) => /files:/.test(l)).join(' | '), 400)}`];
        return short(warned, 160);
    });
}

async function main() {
    if (!process.argv[2]) {
        console.error('usage: node tests/shipped/files.mjs build/mcph');
        process.exit(2);
    }
    const top = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'mcph-files-')));
    fs.writeFileSync(path.join(top, 'secret'), SECRET);
    const validator = makeValidator(defaultSpecDir());
    const run = (async () => {
        await serverA(validator, top);
        await serverB(validator, top);
        await serverC(validator, top);
        await serverD(validator, top);
        await checkConfigErrors(top);
        await checkLimitLogs(top);
        await checkStartOrder(top);
        await checkNoProc(top);
        await check(null, 'the secret never left the server', async () => {
            const leaks = outputs.filter((o) => o.includes(SECRET) || o.includes('TOP SECRET'));
            return leaks.length ? [`leaked in ${short(leaks[0])}`] : `${outputs.length} results looked at`;
        });
    })();
    const r = await capped(run, SUITE_CAP_MS);
    if (r === CAPPED) report(false, 'time limit', `exceeded ${SUITE_CAP_MS / 1000} s`);
    for (const s of sessions) {
        try {
            s.transport._process?.kill('SIGKILL');
        } catch {
            // already gone
        }
    }
    fs.rmSync(top, { recursive: true, force: true });
    summary();
    process.exit(tally.exitCode);
}

main().catch((err) => {
    report(false, 'main', err.stack || String(err));
    summary();
    process.exit(1);
});
