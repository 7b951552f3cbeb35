#!/usr/bin/env node
// A tiny stand-in MCP stdio server, for testing the test tools themselves (the transcript
// runner and the SDK interop check) without mcph.
//
//   node tests/transcripts/selftest/fake-server.mjs [--exit-code N] [--bug NAME ...] CONFIG.ini
//
// It negotiates 2024-11-05..2025-11-25, serves a few tools/resources/templates/prompts with
// the fields each revision allows, paginates lists two items a page, and exits on EOF with
// --exit-code (default 0) or on SIGTERM/SIGINT with 0. [server] name in CONFIG is its
// serverInfo.name. A request whose params._meta claims 2026-07-28 is served statelessly under
// that revision: server/discover, tools/list, tools/call (ask answers input_required until
// the retry carries inputResponses.q and the requestState it was given; log sends notifications/message when _meta asks for a
// logLevel; notify sends a tagged list_changed to each open listen), subscriptions/listen
// (acknowledged, then answered at EOF); another claimed version gets -32022.
// --bug makes it misbehave on purpose, to prove the checkers catch it:
//   title     Tool.title and outputSchema in every revision (closed-world violation < 2025-06-18)
//   audio     audio content even under 2024-11-05
//   extra     an unknown member in the initialize result
//   version   echo any requested protocolVersion
//   garbage   write a non-JSON line to stdout at start
//   tools     also list the misbehaving tools garbage and badschema
//   nottl     2026-07-28 tools/list without ttlMs
//   leak      resultType in legacy results too
//   emptyask  an input_required result with neither inputRequests nor requestState
//   v32022    -32022 without data.requested
//   ackbad    an acknowledgement without notifications
// Special tools: slow {ms} answers late; notify sends list_changed + a log message first;
// garbage writes a non-JSON stdout line first; badschema answers a text item without text;
// fail answers isError.

import fs from 'node:fs';
import readline from 'node:readline';

const SUPPORTED = ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25'];
const LATEST = '2025-11-25';
const MODERN = '2026-07-28';
const KEY_VERSION = 'io.modelcontextprotocol/protocolVersion';
const KEY_SUB = 'io.modelcontextprotocol/subscriptionId';
const KEY_LOG = 'io.modelcontextprotocol/logLevel';

const argv = process.argv.slice(2);
const bugs = new Set();
let exitCode = 0;
let configPath = null;
for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--bug') bugs.add(argv[++i]);
    else if (argv[i] === '--exit-code') exitCode = Number(argv[++i]);
    else configPath = argv[i];
}
let serverName = 'fake';
if (configPath) {
    try {
        const m = fs.readFileSync(configPath, 'utf8').match(/^\s*name\s*=\s*(\S+)/m);
        if (m) serverName = m[1];
    } catch (err) {
        process.stderr.write(`fake-server: cannot read ${configPath}: ${err.message}\n`);
        process.exit(1);
    }
}
process.stderr.write(`fake-server: started as ${serverName}\n`);

let version = null; // negotiated
// Whether revision rev (default: the negotiated one) has what v introduced.
const at = (v, rev = version || LATEST) => rev === MODERN || SUPPORTED.indexOf(rev) >= SUPPORTED.indexOf(v);

function write(obj) {
    process.stdout.write(JSON.stringify(obj) + '\n');
}

const TOOLS = [
    {
        name: 'echo', title: 'Echo', description: 'Echo the text back',
        inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
        annotations: { readOnlyHint: true },
    },
    {
        name: 'add', title: 'Add', description: 'Add two numbers',
        inputSchema: {
            type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } },
            required: ['a', 'b'],
        },
        outputSchema: { type: 'object', properties: { sum: { type: 'number' } }, required: ['sum'] },
    },
    { name: 'fail', description: 'Always fails', inputSchema: { type: 'object' } },
    { name: 'media', description: 'Every content type', inputSchema: { type: 'object' } },
    {
        name: 'slow', description: 'Answers after ms milliseconds',
        inputSchema: { type: 'object', properties: { ms: { type: 'integer' } } },
    },
    { name: 'notify', description: 'Sends notifications first', inputSchema: { type: 'object' } },
];
// Callable always, listed only with --bug tools (so a clean interop run passes).
const BAD_TOOLS = [
    { name: 'garbage', description: 'Writes junk to stdout', inputSchema: { type: 'object' } },
    { name: 'badschema', description: 'Answers with a bad content item', inputSchema: { type: 'object' } },
];
const RESOURCES = [
    { uri: 'example://hello', name: 'hello', title: 'Hello', mimeType: 'text/plain' },
    { uri: 'example://blob', name: 'blob', mimeType: 'application/octet-stream' },
];
const TEMPLATES = [
    { uriTemplate: 'example://greet/{name}', name: 'greet', title: 'Greeting', mimeType: 'text/plain' },
    { uriTemplate: 'example://files/{+path}', name: 'files', mimeType: 'text/plain' },
];
const PROMPTS = [
    {
        name: 'greet', title: 'Greet', description: 'Greets someone',
        arguments: [{ name: 'who', title: 'Who', description: 'the name', required: true }],
    },
    { name: 'plain', description: 'No arguments' },
];

function toolView(t, rev) {
    const v = { name: t.name, description: t.description, inputSchema: t.inputSchema };
    if (bugs.has('title')) {
        v.title = t.title || t.name;
        v.outputSchema = t.outputSchema || { type: 'object' };
        return v;
    }
    if (t.title && at('2025-06-18', rev)) v.title = t.title;
    if (at('2025-03-26', rev)) {
        const ann = { ...(t.annotations || {}) };
        if (t.title && !at('2025-06-18', rev)) ann.title = t.title;
        if (Object.keys(ann).length) v.annotations = ann;
    }
    if (t.outputSchema && at('2025-06-18', rev)) v.outputSchema = t.outputSchema;
    return v;
}

function titled(o) {
    if (at('2025-06-18')) return o;
    const { title, ...rest } = o;
    if (Array.isArray(rest.arguments)) rest.arguments = rest.arguments.map(titled);
    return rest;
}

function page(items, params, key) {
    const start = params?.cursor ? Number(params.cursor) : 0;
    if (!Number.isInteger(start) || start < 0 || start > items.length) return null;
    const out = { [key]: items.slice(start, start + 2) };
    if (start + 2 < items.length) out.nextCursor = String(start + 2);
    return out;
}

const errorOf = (id, code, message) => ({ jsonrpc: '2.0', id, error: { code, message } });

async function callTool(id, params) {
    const name = params?.name;
    const args = params?.arguments || {};
    const text = (s) => ({ type: 'text', text: s });
    switch (name) {
        case 'echo':
            if (typeof args.text !== 'string') return errorOf(id, -32602, 'echo needs text');
            return { content: [text(args.text)] };
        case 'add': {
            const sum = Number(args.a) + Number(args.b);
            const r = { content: [text(String(sum))] };
            if (at('2025-06-18')) r.structuredContent = { sum };
            return r;
        }
        case 'fail':
            return { content: [text('it failed')], isError: true };
        case 'media': {
            const content = [{ type: 'image', data: 'iVBORw0KGgo=', mimeType: 'image/png' }];
            if (at('2025-03-26') || bugs.has('audio')) {
                content.push({ type: 'audio', data: 'UklGRg==', mimeType: 'audio/wav' });
            } else content.push(text('[audio audio/wav, 4 bytes]'));
            if (at('2025-06-18')) content.push({ type: 'resource_link', uri: 'example://hello', name: 'hello' });
            else content.push(text('[resource link example://hello]'));
            content.push({ type: 'resource', resource: { uri: 'example://hello', text: 'hi', mimeType: 'text/plain' } });
            return { content };
        }
        case 'slow':
            await new Promise((r) => setTimeout(r, Number(args.ms) || 1000));
            return { content: [text('done')] };
        case 'notify':
            write({ jsonrpc: '2.0', method: 'notifications/tools/list_changed' });
            write({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', logger: 'fake', data: 'notified' } });
            return { content: [text('sent')] };
        case 'garbage':
            process.stdout.write('this is not JSON\n');
            return { content: [text('junk written')] };
        case 'badschema':
            return { content: [{ type: 'text' }] };
        default:
            return errorOf(id, -32602, `unknown tool ${name}`);
    }
}

function readResource(id, uri) {
    if (uri === 'example://hello') return { contents: [{ uri, mimeType: 'text/plain', text: 'hello' }] };
    if (uri === 'example://blob') return { contents: [{ uri, mimeType: 'application/octet-stream', blob: 'AAEC' }] };
    let m = /^example:\/\/greet\/([^/]+)$/.exec(uri || '');
    if (m) return { contents: [{ uri, mimeType: 'text/plain', text: `hello ${decodeURIComponent(m[1])}` }] };
    m = /^example:\/\/files\/(.+)$/.exec(uri || '');
    if (m) return { contents: [{ uri, mimeType: 'text/plain', text: `file ${m[1]}` }] };
    return { jsonrpc: '2.0', id, error: { code: -32002, message: `resource not found: ${uri}` } };
}

// --- 2026-07-28, per request. ---

const listeners = new Map(); // JSON id -> listen request id
const ASK_STATE = `state-${process.pid}`;

function modernResult(r, cacheable) {
    const out = {
        ...r,
        resultType: r.resultType || 'complete',
        _meta: { ...r._meta, 'io.modelcontextprotocol/serverInfo': { name: serverName, version: '0.0.1' } },
    };
    if (cacheable) {
        if (!bugs.has('nottl')) out.ttlMs = 0;
        out.cacheScope = 'private';
    }
    return out;
}

async function handleModern(msg) {
    const { id, method, params } = msg;
    const meta = params._meta;
    if (meta[KEY_VERSION] !== MODERN) {
        const data = { supported: [MODERN, ...SUPPORTED].reverse() };
        if (!bugs.has('v32022')) data.requested = String(meta[KEY_VERSION]);
        if (id !== undefined) write({ jsonrpc: '2.0', id, error: { code: -32022, message: 'Unsupported protocol version', data } });
        return;
    }
    if (id === undefined) {
        if (method === 'notifications/cancelled') listeners.delete(JSON.stringify(params.requestId));
        return;
    }
    const reply = (r, cacheable = false) => write({ jsonrpc: '2.0', id, result: modernResult(r, cacheable) });
    switch (method) {
        case 'server/discover':
            reply({
                supportedVersions: [MODERN, ...[...SUPPORTED].reverse()],
                capabilities: { tools: { listChanged: true }, resources: { listChanged: true }, prompts: { listChanged: true }, logging: {} },
            }, true);
            return;
        case 'tools/list':
            reply(page(TOOLS.map((t) => toolView(t, MODERN)), params, 'tools'), true);
            return;
        case 'subscriptions/listen': {
            listeners.set(JSON.stringify(id), id);
            const ack = { _meta: { [KEY_SUB]: id } };
            if (!bugs.has('ackbad')) ack.notifications = params.notifications || {};
            write({ jsonrpc: '2.0', method: 'notifications/subscriptions/acknowledged', params: ack });
            return;
        }
        case 'tools/call':
            switch (params.name) {
                case 'ask': {
                    // The answer counts only with this process's requestState echoed.
                    const answer = params.requestState === ASK_STATE ? params.inputResponses?.q : undefined;
                    if (answer) {
                        reply({ content: [{ type: 'text', text: `answer: ${JSON.stringify(answer)}` }] });
                        return;
                    }
                    const r = { resultType: 'input_required' };
                    if (!bugs.has('emptyask')) {
                        r.inputRequests = { q: { method: 'elicitation/create', params: { message: 'Name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } } } } } };
                        r.requestState = ASK_STATE;
                    }
                    reply(r);
                    return;
                }
                case 'log':
                    if (meta[KEY_LOG]) write({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'logged' } });
                    reply({ content: [{ type: 'text', text: 'logged' }] });
                    return;
                case 'notify':
                    for (const l of listeners.values()) {
                        write({ jsonrpc: '2.0', method: 'notifications/tools/list_changed', params: { _meta: { [KEY_SUB]: l } } });
                    }
                    reply({ content: [{ type: 'text', text: 'sent' }] });
                    return;
                default: {
                    const r = await callTool(id, params);
                    if (r.jsonrpc) write(r);
                    else reply(r);
                    return;
                }
            }
        default:
            write(errorOf(id, -32601, `Method not found: ${method}`));
    }
}

function claims(params) {
    const meta = params && typeof params === 'object' ? params._meta : undefined;
    return meta && typeof meta === 'object' && KEY_VERSION in meta;
}

async function handle(msg) {
    if (!msg || typeof msg !== 'object' || Array.isArray(msg) || msg.jsonrpc !== '2.0') {
        write(errorOf(msg && typeof msg === 'object' && 'id' in msg ? msg.id : null, -32600, 'Invalid Request'));
        return;
    }
    if (claims(msg.params)) {
        await handleModern(msg);
        return;
    }
    if (!('id' in msg)) return; // notifications: nothing to do
    const { id, method, params } = msg;
    let result;
    switch (method) {
        case 'initialize': {
            const asked = params?.protocolVersion;
            version = SUPPORTED.includes(asked) || bugs.has('version') ? asked : LATEST;
            result = {
                protocolVersion: version,
                capabilities: {
                    tools: { listChanged: true },
                    resources: { listChanged: true },
                    prompts: { listChanged: true },
                    logging: {},
                },
                serverInfo: { name: serverName, version: '0.0.1' },
            };
            if (bugs.has('extra')) result.bogus = true;
            break;
        }
        case 'ping':
            result = {};
            break;
        case 'tools/list':
            result = page((bugs.has('tools') ? [...TOOLS, ...BAD_TOOLS] : TOOLS).map((t) => toolView(t)), params, 'tools');
            break;
        case 'tools/call':
            result = await callTool(id, params);
            break;
        case 'resources/list':
            result = page(RESOURCES.map(titled), params, 'resources');
            break;
        case 'resources/templates/list':
            result = page(TEMPLATES.map(titled), params, 'resourceTemplates');
            break;
        case 'resources/read':
            result = readResource(id, params?.uri);
            break;
        case 'prompts/list':
            result = page(PROMPTS.map(titled), params, 'prompts');
            break;
        case 'prompts/get': {
            const p = PROMPTS.find((x) => x.name === params?.name);
            if (!p) {
                result = errorOf(id, -32602, `unknown prompt ${params?.name}`);
                break;
            }
            const who = params?.arguments?.who;
            if (p.name === 'greet' && typeof who !== 'string') {
                result = errorOf(id, -32602, 'missing argument who');
                break;
            }
            result = {
                description: p.description,
                messages: [{ role: 'user', content: { type: 'text', text: p.name === 'greet' ? `Say hello to ${who}` : 'plain' } }],
            };
            break;
        }
        case 'logging/setLevel':
            result = {};
            break;
        default:
            write(errorOf(id, -32601, `Method not found: ${method}`));
            return;
    }
    if (result === null) write(errorOf(id, -32602, 'bad cursor'));
    else if (result.jsonrpc) write(result);
    else write({ jsonrpc: '2.0', id, result: bugs.has('leak') && method !== 'initialize' ? { ...result, resultType: 'complete' } : result });
}

if (bugs.has('garbage')) process.stdout.write('garbage at start\n');

const rl = readline.createInterface({ input: process.stdin });
const pending = new Set();
rl.on('line', (line) => {
    let msg;
    try {
        msg = JSON.parse(line);
    } catch {
        write(errorOf(null, -32700, 'Parse error'));
        return;
    }
    const p = handle(msg).finally(() => pending.delete(p));
    pending.add(p);
});
rl.on('close', async () => {
    await Promise.all([...pending]);
    // Open listen requests end with a SubscriptionsListenResult.
    for (const l of listeners.values()) {
        write({ jsonrpc: '2.0', id: l, result: modernResult({ _meta: { [KEY_SUB]: l } }) });
    }
    process.stderr.write('fake-server: EOF, exiting\n');
    process.exit(exitCode);
});
for (const sig of ['SIGTERM', 'SIGINT']) {
    process.on(sig, () => {
        process.stderr.write(`fake-server: ${sig}, exiting\n`);
        process.exit(0);
    });
}
