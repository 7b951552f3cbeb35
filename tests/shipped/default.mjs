// The default deployment (conf/mcph.ini, what `make run` serves) through the official SDK v1
// client, under every legacy revision: every plugin loads, and every tool, resource,
// resource template and prompt it offers is used with real arguments and gives a real
// answer (no tool error, contents that say what they should). A tool, template or prompt
// this file has no use for is a failure, so a new one cannot go untested. Every message mcph
// sends is validated against the revision's schema (tests/interop/harness.mjs).
//
//   node tests/shipped/default.mjs build/mcph

import fs from 'node:fs';
import path from 'node:path';
import {
    CreateMessageRequestSchema,
    ElicitRequestSchema,
    ListRootsRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { REVISIONS, REQUEST_TIMEOUT_MS, Session, check, listAll, summary, report } from '../interop/harness.mjs';
import { makeValidator, defaultSpecDir } from '../lib/schema.mjs';
import { capped, CAPPED } from '../lib/util.mjs';

const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../..');
const CONFIG = path.join(ROOT, 'conf/mcph.ini');
const REVISION_CAP_MS = 90000;
const CAPS = { sampling: {}, elicitation: {}, roots: { listChanged: true } };
const PLUGINS = ['files', 'sqlite', 'prompts', 'exec', 'example'];

const textOf = (r) => (r.content || []).filter((c) => c.type === 'text').map((c) => c.text).join('\n');
const has = (re) => (r) => (re.test(textOf(r)) ? null : `text ${JSON.stringify(textOf(r).slice(0, 160))} does not match ${re}`);

// What each tool is called with, and what its answer must show. `rev` gates tools whose
// content only some revisions carry as such.
const TOOLS = {
    fs_list_directory: { args: {}, expect: has(/README\.md/) },
    fs_read_file: { args: { path: 'README.md', start_line: 1, end_line: 3 }, expect: has(/Writing an mcph plugin/) },
    fs_find_files: { args: { pattern: '**/*.h' }, expect: has(/plugin-api\.h/) },
    fs_search_files: { args: { query: 'mcph_plugin_entry' }, expect: has(/plugin-api\.h:\d+/) },
    db_query: {
        args: { sql: 'SELECT title FROM books WHERE year < ? ORDER BY year LIMIT 3', params: [2100] },
        expect: (r) => {
            const sc = r.structuredContent;
            if (sc && (!Array.isArray(sc.columns) || sc.columns[0] !== 'title')) return `structuredContent ${JSON.stringify(sc).slice(0, 160)}`;
            return /title/.test(textOf(r)) ? null : `text ${JSON.stringify(textOf(r).slice(0, 160))}`;
        },
    },
    sh_date: { args: {}, expect: has(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ/m) },
    sh_uname: { args: {}, expect: has(/Linux/) },
    sh_count_lines: { args: { file: 'mcph.ini' }, expect: has(/^\d+\n$/) },
    // The example plugin's tour.
    echo: { args: { text: 'hi' }, expect: has(/^hi$/) },
    greet: { args: { name: 'Ada' }, expect: has(/Hello, Ada/) },
    add: { args: { a: 2, b: 3 }, expect: has(/5/) },
    image: { args: {}, expect: (r) => (r.content?.some((c) => c.type === 'image') ? null : 'no image item') },
    audio: { args: {}, expect: (r) => (r.content?.length ? null : 'no content') },
    link: { args: {}, expect: (r) => (r.content?.length ? null : 'no content') },
    embed: { args: {}, expect: (r) => (r.content?.some((c) => c.type === 'resource') ? null : 'no embedded resource') },
    fail: { args: {}, toolError: true },
    count: { args: { to: 3, delay_ms: 0 }, expect: (r) => (r.content?.length ? null : 'no content') },
    // Elicitation exists from 2025-06-18: before, the tool says the client cannot be asked.
    confirm: { args: { action: 'deploy' }, toolErrorBefore: '2025-06-18', expect: (r) => (r.content?.length ? null : 'no content') },
    ask_model: { args: { question: 'why?' }, expect: has(/sampled/) },
    roots: { args: {}, expect: has(/file:\/\/\/srv\/project/) },
    set_note: { args: { text: 'from the default test' }, expect: has(/noted/) },
    rescan: { args: {}, expect: has(/rescan requested/) },
    relay: { args: { result: JSON.stringify({ content: [{ type: 'text', text: 'relayed' }] }) }, expect: has(/^relayed$/) },
};

// One URI to read through each template, and what it must contain.
const TEMPLATES = {
    'example://greeting/{name}': { uri: 'example://greeting/Ada', expect: /Ada/ },
};
const templateOfFiles = (t) => t.startsWith('file://') && t.endsWith('/{+path}');

// Arguments for each prompt, and what the first message must contain.
const PROMPTS = {
    'code-review': { args: { code: 'int main(void) { return 0; }' }, expect: /int main\(void\)/ },
    'commit-message': { args: { diff: '+added a line' }, expect: /\+added a line/ },
    'explain-sql': { args: { query: 'SELECT 1' }, expect: /SELECT 1/ },
    'summarize-file': { args: { path: 'README.md' }, expect: /README\.md/ },
    review: { args: { code: 'x = 1' }, expect: /x = 1/ },
};

function answerTheServer(c) {
    c.setRequestHandler(CreateMessageRequestSchema, async (req) => ({
        role: 'assistant',
        content: { type: 'text', text: `sampled: ${req.params.messages?.[0]?.content?.text ?? ''}` },
        model: 'mcph-test-model',
        stopReason: 'endTurn',
    }));
    c.setRequestHandler(ElicitRequestSchema, async () => ({ action: 'accept', content: { confirm: true, name: 'Ada' } }));
    c.setRequestHandler(ListRootsRequestSchema, async () => ({ roots: [{ uri: 'file:///srv/project', name: 'project' }] }));
}

async function useTools(s, rev) {
    const c = s.client;
    let tools = [];
    await check(s, 'tools/list', async () => {
        tools = (await listAll(s, 'tools/list', 'tools', (p, o) => c.listTools(p, o))).items;
        const names = tools.map((t) => t.name);
        const missing = Object.keys(TOOLS).filter((n) => !names.includes(n));
        return missing.length ? [`not served: ${missing.join(', ')}`] : `${tools.length} tools`;
    });
    for (const tool of tools) {
        await check(s, `tools/call ${tool.name}`, async () => {
            const use = TOOLS[tool.name];
            if (!use) return [`no use for the tool ${tool.name} in tests/shipped/default.mjs: add one`];
            const r = await c.callTool({ name: tool.name, arguments: use.args }, undefined, { timeout: REQUEST_TIMEOUT_MS });
            const wantError = use.toolError || (use.toolErrorBefore && REVISIONS.indexOf(rev) < REVISIONS.indexOf(use.toolErrorBefore));
            if (wantError) return r.isError ? `a tool error, as it should: ${textOf(r).slice(0, 60)}` : ['no tool error'];
            if (r.isError) return [`tool error: ${textOf(r).slice(0, 200)}`];
            const why = use.expect(r, rev);
            return why ? [why] : `${(r.content || []).map((x) => x.type).join(',')}`;
        });
    }
}

// What the default deployment must refuse: nothing outside conf/ and plugin-api/ is read,
// nothing is written; each refusal is a tool error and the server goes on.
const REFUSED = [
    ['sh_count_lines', { file: '/etc/passwd' }, /absolute/],
    ['sh_count_lines', { file: '../Makefile' }, /\.\./],
    ['fs_read_file', { path: '../README.md' }, /\.\./],
    ['fs_read_file', { path: '/etc/passwd' }, /absolute|refused/],
    ['db_query', { sql: "ATTACH '/etc/passwd' AS x" }, /ATTACH|refused|not allowed/i],
    ['db_query', { sql: 'DELETE FROM books' }, /read|refused|not allowed/i],
];

async function refuseHostile(s) {
    const c = s.client;
    for (const [name, args, re] of REFUSED) {
        await check(s, `refused: ${name} ${JSON.stringify(args)}`, async () => {
            const r = await c.callTool({ name, arguments: args }, undefined, { timeout: REQUEST_TIMEOUT_MS });
            if (!r.isError) return [`not refused: ${textOf(r).slice(0, 160)}`];
            if (!re.test(textOf(r))) return [`message ${JSON.stringify(textOf(r).slice(0, 160))} does not match ${re}`];
            await c.ping({ timeout: REQUEST_TIMEOUT_MS });
            return textOf(r).slice(0, 80);
        });
    }
}

async function useResources(s) {
    const c = s.client;
    let resources = [];
    await check(s, 'resources/list', async () => {
        resources = (await listAll(s, 'resources/list', 'resources', (p, o) => c.listResources(p, o))).items;
        const uris = resources.map((r) => r.uri);
        const problems = [];
        if (!uris.some((u) => u.startsWith('file://') && u.endsWith('/plugin-api/README.md'))) problems.push('no file:// resource for plugin-api/README.md');
        if (!uris.some((u) => u.startsWith('sqlite://'))) problems.push('no sqlite:// resource');
        if (!uris.includes('example://readme')) problems.push('no example://readme');
        return problems.length ? problems : `${resources.length} resources`;
    });
    let read = 0;
    await check(s, `resources/read of every resource`, async () => {
        const problems = [];
        for (const res of resources) {
            const r = await c.readResource({ uri: res.uri }, { timeout: REQUEST_TIMEOUT_MS });
            const item = r.contents?.[0];
            if (!item || (item.text === undefined && item.blob === undefined)) problems.push(`${res.uri}: no contents`);
            else if (item.uri !== res.uri) problems.push(`${res.uri}: contents say ${item.uri}`);
            else read++;
        }
        return problems.length ? problems : `${read} read`;
    });
    await check(s, 'resources/read: a sqlite table schema', async () => {
        const books = resources.find((r) => r.uri.startsWith('sqlite://') && /books/.test(r.uri));
        if (!books) return ['no resource for the books table'];
        const r = await c.readResource({ uri: books.uri }, { timeout: REQUEST_TIMEOUT_MS });
        return /CREATE TABLE books/.test(r.contents?.[0]?.text ?? '') ? books.uri : [`${books.uri}: no CREATE TABLE books`];
    });
}

async function useTemplates(s) {
    const c = s.client;
    let templates = [];
    await check(s, 'resources/templates/list', async () => {
        templates = (await listAll(s, 'resources/templates/list', 'resourceTemplates', (p, o) => c.listResourceTemplates(p, o))).items;
        return `${templates.length} templates`;
    });
    for (const t of templates) {
        await check(s, `resources/read through ${t.uriTemplate}`, async () => {
            let use = TEMPLATES[t.uriTemplate];
            if (!use && templateOfFiles(t.uriTemplate)) use = { uri: t.uriTemplate.replace('{+path}', 'plugin-api.h'), expect: /MCPH_ABI_MAJOR/ };
            if (!use) return [`no use for the template ${t.uriTemplate} in tests/shipped/default.mjs: add one`];
            const r = await c.readResource({ uri: use.uri }, { timeout: REQUEST_TIMEOUT_MS });
            const text = r.contents?.[0]?.text ?? '';
            return use.expect.test(text) ? use.uri : [`${use.uri}: ${JSON.stringify(text.slice(0, 120))} does not match ${use.expect}`];
        });
    }
}

async function usePrompts(s) {
    const c = s.client;
    let prompts = [];
    await check(s, 'prompts/list', async () => {
        prompts = (await listAll(s, 'prompts/list', 'prompts', (p, o) => c.listPrompts(p, o))).items;
        const missing = Object.keys(PROMPTS).filter((n) => !prompts.some((p) => p.name === n));
        return missing.length ? [`not served: ${missing.join(', ')}`] : `${prompts.length} prompts`;
    });
    for (const p of prompts) {
        await check(s, `prompts/get ${p.name}`, async () => {
            const use = PROMPTS[p.name];
            if (!use) return [`no use for the prompt ${p.name} in tests/shipped/default.mjs: add one`];
            const r = await c.getPrompt({ name: p.name, arguments: use.args }, { timeout: REQUEST_TIMEOUT_MS });
            const text = (r.messages || []).map((m) => m.content?.text ?? '').join('\n');
            return use.expect.test(text) ? `${r.messages.length} message(s)` : [`messages do not match ${use.expect}`];
        });
    }
}

async function runRevision(rev, validator) {
    const s = new Session(rev, [process.argv[2]], CONFIG, validator, CAPS);
    answerTheServer(s.client);
    const ok = await check(s, 'initialize (every plugin loads)', async () => {
        await s.client.connect(s.transport, { timeout: REQUEST_TIMEOUT_MS });
        const failed = s.stderr.split('\n').filter((l) => /: error: /.test(l));
        return failed.length ? failed : `${s.client.getServerVersion()?.name}`;
    });
    if (!ok) return;
    await useTools(s, rev);
    await refuseHostile(s);
    await useResources(s);
    await useTemplates(s);
    await usePrompts(s);
    await check(s, 'every plugin of the INI served', async () => {
        const errors = s.stderr.split('\n').filter((l) => /: error: /.test(l));
        const served = new RegExp(`serving \\d+ tools, \\d+ resources, \\d+ templates, \\d+ prompts from ${PLUGINS.length} plugins`).test(s.stderr);
        return served && !errors.length ? `${PLUGINS.length} plugins` : [...errors, `stderr: ${s.stderrTail(3).join(' | ')}`];
    });
    await s.client.close();
}

async function main() {
    if (!process.argv[2] || !fs.existsSync(process.argv[2])) {
        console.error('usage: node tests/shipped/default.mjs build/mcph');
        process.exit(2);
    }
    const validator = makeValidator(defaultSpecDir());
    for (const rev of REVISIONS) {
        const r = await capped(runRevision(rev, validator), REVISION_CAP_MS);
        if (r === CAPPED) report(false, rev, 'time limit', `exceeded ${REVISION_CAP_MS / 1000} s`);
    }
    process.exit(summary() > 0 ? 1 : 0);
}

main().catch((err) => {
    console.error(err.stack || String(err));
    process.exit(1);
});
