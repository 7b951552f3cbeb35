// server-everything (@modelcontextprotocol/server-everything, pinned in tests/package.json)
// through mcph's mcp plugin, against the same server spoken to directly. The direct run uses
// the official SDK v1 client; the runs through mcph use the SDK v1 client (initialize,
// 2025-11-25) and the v2 client (@modelcontextprotocol/client) pinned to 2026-07-28 (MRTR for
// the server's questions). Each run lists everything, calls every tool with arguments derived
// from its schema, reads every resource and a URI of each template, gets every prompt and
// completes arguments, and each result is compared with the direct one after normalising
// what differs from call to call (common.mjs). Then sampling and elicitation (the client
// answers), progress, resources/subscribe -> notifications/resources/updated, logging,
// and the cancellation of a long call, seen arriving at the server by a stdin tap (tap.mjs).

import fs from 'node:fs';
import path from 'node:path';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport as StdioV1 } from '@modelcontextprotocol/sdk/client/stdio.js';
import {
    CreateMessageRequestSchema, ElicitRequestSchema, ListRootsRequestSchema,
    LoggingMessageNotificationSchema, ResourceUpdatedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { Client as ClientV2 } from '@modelcontextprotocol/client';
import { StdioClientTransport as StdioV2 } from '@modelcontextprotocol/client/stdio';
import { check, expect } from '../lib/check.mjs';
import { MODERN_REVISION } from '../lib/era.mjs';
import { buildArguments } from '../interop/args.mjs';
import { tapStdout } from '../interop/harness.mjs';
import {
    workspace, gatewayIni, fakeCommand, NODE, SERVERS, TAP, BASE_ENV, normalise, firstDifference, textOf, sleep, waitFor, short,
} from './common.mjs';

const TIMEOUT = { timeout: 20000 };
const PREFIX = 'ev';
const CAPS = { sampling: {}, elicitation: {}, roots: {} };
const ROOTS = [{ uri: 'file:///srv/gateway', name: 'gateway' }];
// What mcph copies into the server's environment besides its own three: the variables the
// SDK client gives a server it starts, so both runs of get-env see the same environment.
const PASSED_ENV = ['LOGNAME', 'SHELL', 'TERM', 'USER'];

// Arguments each tool is called with: from its input schema, with values that keep the calls
// short and on this machine (gzip's default fetches a URL from the network).
const OVERRIDES = {
    'gzip-file-as-resource': { name: 'gateway.txt.gz', data: 'data:text/plain;base64,aGVsbG8sIGdhdGV3YXk=', outputType: 'resource' },
    'trigger-long-running-operation': { duration: 0.3, steps: 3 },
    'get-resource-links': { count: 4 },
    'get-resource-reference': { resourceType: 'Blob', resourceId: 3 },
    'trigger-sampling-request': { prompt: 'Say hi', maxTokens: 20 },
    'simulate-research-query': { topic: 'gateways', ambiguous: false },
};
const PROMPT_ARGS = {
    'args-prompt': { city: 'Lisbon', state: 'Lisboa' },
    'completable-prompt': { department: 'Engineering', name: 'Alice' },
    'resource-prompt': { resourceType: 'Text', resourceId: '2' },
};
const COMPLETIONS = [
    { ref: { type: 'ref/prompt', name: 'completable-prompt' }, argument: { name: 'department', value: 'S' } },
    { ref: { type: 'ref/prompt', name: 'completable-prompt' }, argument: { name: 'name', value: '' }, context: { arguments: { department: 'Sales' } } },
    { ref: { type: 'ref/resource', uri: 'demo://resource/dynamic/text/{resourceId}' }, argument: { name: 'resourceId', value: '1' } },
];
const templateUri = (t) => t.uriTemplate.replace('{resourceId}', t.uriTemplate.includes('blob') ? '2' : '1');

// --- Clients. ---

const open = new Set(); // every transport started, killed by cleanup()

export async function cleanup() {
    for (const t of open) {
        try {
            t._process?.kill('SIGKILL');
        } catch {
            // gone already
        }
    }
    open.clear();
}

// The answers of a client to the server's questions, and what it was asked.
function answers(asked) {
    return {
        sampling: (req) => {
            asked.push('sampling');
            const text = req.params?.messages?.[0]?.content?.text ?? '';
            return { role: 'assistant', content: { type: 'text', text: `sampled: ${text}` }, model: 'gateway-model', stopReason: 'endTurn' };
        },
        elicitation: (req) => {
            asked.push('elicitation');
            const content = {};
            for (const [k, s] of Object.entries(req.params?.requestedSchema?.properties || {})) {
                if (s.type === 'boolean') content[k] = true;
                else if (s.type === 'number' || s.type === 'integer') content[k] = 7;
                else if (k === 'email' || s.format === 'email') content[k] = 'ada@example.org';
                else if (s.format === 'uri') content[k] = 'https://example.org/ada';
                else if (s.format === 'date') content[k] = '1815-12-10';
                else if (Array.isArray(s.enum)) content[k] = s.enum[0];
                else if (s.type === 'string') content[k] = 'Ada';
            }
            return { action: 'accept', content };
        },
        roots: () => {
            asked.push('roots');
            return { roots: ROOTS };
        },
    };
}

// Every message the server writes, as it comes on the wire (before the SDK takes it); what
// the client sent goes to wire.sent.
function tapWire(transport) {
    const wire = [];
    wire.sent = [];
    const send = transport.send.bind(transport);
    transport.send = (msg, ...rest) => {
        wire.sent.push(msg);
        return send(msg, ...rest);
    };
    let buf = '';
    tapStdout(transport, (text) => {
        buf += text;
        let nl;
        while ((nl = buf.indexOf('\n')) >= 0) {
            try {
                wire.push(JSON.parse(buf.slice(0, nl)));
            } catch {
                // not JSON: the SDK reports it
            }
            buf = buf.slice(nl + 1);
        }
    });
    return wire;
}

// The two SDK clients: how each is made, takes handlers, and calls a tool.
const KINDS = {
    // v1, legacy (initialize, 2025-11-25); direct or through mcph.
    v1: {
        Transport: StdioV1,
        make: () => new ClientV1({ name: 'mcph-gateway-tests', version: '1.0.0' }, { capabilities: CAPS }),
        handlers: (client, a, logs, updated) => {
            client.setRequestHandler(CreateMessageRequestSchema, async (r) => a.sampling(r));
            client.setRequestHandler(ElicitRequestSchema, async (r) => a.elicitation(r));
            client.setRequestHandler(ListRootsRequestSchema, async (r) => a.roots(r));
            client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => logs.push(n.params));
            client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => updated.push(n.params));
        },
        callTool: (client, p, o) => client.callTool(p, undefined, o),
        readOptions: {},
    },
    // v2 pinned to 2026-07-28, through mcph.
    v2: {
        Transport: StdioV2,
        make: () => new ClientV2({ name: 'mcph-gateway-tests', version: '1.0.0' }, {
            capabilities: { ...CAPS, roots: { listChanged: true } },
            versionNegotiation: { mode: { pin: MODERN_REVISION } },
        }),
        handlers: (client, a, logs, updated) => {
            client.setRequestHandler('sampling/createMessage', async (r) => a.sampling(r));
            client.setRequestHandler('elicitation/create', async (r) => a.elicitation(r));
            client.setRequestHandler('roots/list', async (r) => a.roots(r));
            client.setNotificationHandler('notifications/message', (n) => logs.push(n.params));
            client.setNotificationHandler('notifications/resources/updated', (n) => updated.push(n.params));
        },
        callTool: (client, p, o) => client.callTool(p, o),
        readOptions: { cacheMode: 'bypass' },
    },
};

// A client of `kind` on argv, with what it was asked, the log messages and resource updates
// it got, and the wire (tapWire).
function clientOf(kind, argv, env) {
    const k = KINDS[kind];
    const asked = [];
    const logs = [];
    const updated = [];
    const transport = new k.Transport({ command: argv[0], args: argv.slice(1), env, stderr: 'pipe' });
    open.add(transport);
    const wire = tapWire(transport);
    let stderr = '';
    transport.stderr?.on('data', (d) => {
        stderr += d;
    });
    const client = k.make();
    k.handlers(client, answers(asked), logs, updated);
    return {
        kind, client, transport, asked, logs, updated, wire, stderr: () => stderr,
        connect: () => client.connect(transport, TIMEOUT),
        callTool: (p, o = {}) => k.callTool(client, p, { ...TIMEOUT, ...o }),
        listTools: () => client.listTools(undefined, TIMEOUT),
        listResources: () => client.listResources(undefined, TIMEOUT),
        listResourceTemplates: () => client.listResourceTemplates(undefined, TIMEOUT),
        listPrompts: () => client.listPrompts(undefined, TIMEOUT),
        readResource: (p) => client.readResource(p, { ...TIMEOUT, ...k.readOptions }),
        getPrompt: (p) => client.getPrompt(p, TIMEOUT),
        complete: (p) => client.complete(p, TIMEOUT),
        close: () => client.close(),
    };
}

// Every page of a list (both clients follow cursors only when asked).
async function all(list, key) {
    const r = await list();
    return r[key];
}

// --- One run: everything a client sees of the server, in one object. ---

// What a call gives: its result, or its error as { error: code, message }.
async function outcome(fn) {
    try {
        return { result: await fn() };
    } catch (err) {
        return { error: err?.code ?? 'thrown', message: String(err?.message || err) };
    }
}

async function survey(c, names, prefix) {
    const p = (n) => (prefix ? `${prefix}_${n}` : n);
    const out = { tools: {}, calls: {}, reads: {}, prompts: {}, completions: [], progress: [] };
    out.toolList = await all(c.listTools, 'tools');
    out.resourceList = await all(c.listResources, 'resources');
    out.templateList = await all(c.listResourceTemplates, 'resourceTemplates');
    out.promptList = await all(c.listPrompts, 'prompts');
    for (const t of names.tools) {
        const args = { ...buildArguments(t.inputSchema), ...(OVERRIDES[t.name] || {}) };
        const progress = [];
        out.calls[t.name] = await outcome(() => c.callTool({ name: p(t.name), arguments: args }, { onprogress: (x) => progress.push(x) }));
        out.calls[t.name].args = args;
        if (progress.length) out.progress.push({ tool: t.name, progress });
    }
    for (const r of names.resources) out.reads[r.uri] = await outcome(() => c.readResource({ uri: r.uri }));
    for (const t of names.templates) out.reads[templateUri(t)] = await outcome(() => c.readResource({ uri: templateUri(t) }));
    for (const pr of names.prompts) {
        out.prompts[pr.name] = await outcome(() => c.getPrompt({ name: p(pr.name), arguments: PROMPT_ARGS[pr.name] || {} }));
    }
    for (const q of COMPLETIONS) {
        const ref = q.ref.type === 'ref/prompt' ? { ...q.ref, name: p(q.ref.name) } : q.ref;
        out.completions.push(await outcome(() => c.complete({ ...q, ref })));
    }
    return out;
}

// --- Comparison. ---

// A prompt of the direct list as mcph should list it: under the prefix, an argument's
// "required": false left out (the same as absent).
const prefixedPrompt = (p) => ({
    ...p,
    name: `${PREFIX}_${p.name}`,
    ...(p.arguments ? { arguments: p.arguments.map(({ required, ...a }) => (required ? { ...a, required } : a)) } : {}),
});

// A tool of the direct list as mcph should list it: under the prefix, and without
// `execution` (task support): mcph runs no tasks, so it does not pass the server's on.
const prefixed = (t) => {
    const { execution, ...rest } = t;
    return { ...rest, name: `${PREFIX}_${t.name}` };
};

function compareLists(direct, via, problems, exact) {
    const pairs = [
        // A tool that requires tasks is left out by mcph (it does not run tasks).
        ['tools', direct.toolList.filter((t) => t.execution?.taskSupport !== 'required').map(prefixed), via.toolList, (t) => t.name],
        ['resources', direct.resourceList, via.resourceList, (r) => r.uri],
        ['templates', direct.templateList, via.templateList, (t) => t.uriTemplate],
        ['prompts', direct.promptList.map(prefixedPrompt), via.promptList, (p) => p.name],
    ];
    for (const [what, want, got, key] of pairs) {
        const w = want.map(key).sort();
        const g = got.map(key).sort();
        if (JSON.stringify(w) !== JSON.stringify(g)) {
            problems.push(`${what}: ${short(g, 300)} through mcph, ${short(w, 300)} direct`);
            continue;
        }
        if (!exact) continue;
        for (const item of want) {
            const d = firstDifference(normalise(item), normalise(got.find((x) => key(x) === key(item))));
            if (d) problems.push(`${what} ${key(item)} differs: ${d}`);
        }
    }
}

// A tool that requires task augmentation: the SDK client refuses to call it plainly when the
// list says so (direct); mcph leaves it out of its list, so the call is refused as unknown.
const TASK_REFUSED = (d, v) => d.error === -32600 && /task/i.test(d.message) && v.error !== undefined;

function compareOutcomes(what, direct, via, problems) {
    for (const [k, d] of Object.entries(direct)) {
        const v = via[k];
        if (!v) {
            problems.push(`${what} ${k}: not done through mcph`);
            continue;
        }
        if (TASK_REFUSED(d, v)) continue;
        if (d.error !== undefined && v.error !== undefined) continue; // both refused
        const a = normalise(d.error !== undefined ? { error: d.error, message: d.message } : d.result);
        const b = normalise(v.error !== undefined ? { error: v.error, message: v.message } : v.result);
        const diff = firstDifference(a, b);
        if (diff) problems.push(`${what} ${k}: ${diff}${v.error !== undefined ? ` (${short(v.message, 200)})` : ''}`);
    }
}

// --- Runs. ---

function directArgv() {
    return [NODE, SERVERS.everything, 'stdio'];
}

function gatewayWorkspace(name) {
    const ws = workspace(name);
    fs.symlinkSync(SERVERS.everything, path.join(ws, 'everything.js'));
    fs.symlinkSync(TAP, path.join(ws, 'tap.mjs'));
    const ini = gatewayIni(ws, {
        [PREFIX]: {
            command: `${NODE} --import ./tap.mjs everything.js stdio`,
            env: `${PASSED_ENV.join(' ')} MCPH_GW_TAP=tap.log`,
            startup_timeout_ms: 20000,
        },
    });
    return { ws, ini, tap: path.join(ws, 'tap.log') };
}

// The first child process of pid (the server an mcph started), or null.
function childOf(pid) {
    try {
        for (const t of fs.readdirSync(`/proc/${pid}/task`)) {
            const kids = fs.readFileSync(`/proc/${pid}/task/${t}/children`, 'utf8').trim();
            if (kids) return Number(kids.split(/\s+/)[0]);
        }
    } catch {
        // gone
    }
    return null;
}

// The messages mcph wrote to the server, from the tap.
function tapped(file) {
    try {
        return fs.readFileSync(file, 'utf8').split('\n').filter(Boolean).flatMap((l) => {
            try {
                return [JSON.parse(l)];
            } catch {
                return [];
            }
        });
    } catch {
        return [];
    }
}

// The fake server's sampling question under 2026-07-28 (MRTR: the call comes back
// input_required, the client answers and retries it), alone and while another call is in
// flight.
async function modernQuestions(mcph) {
    const ws = workspace('ask-modern');
    const ini = gatewayIni(ws, { fake: { command: fakeCommand('normal', `gw-askv2-${process.pid}`) } });
    const c = clientOf('v2', [mcph, ini], process.env);
    const name = (n) => `gateway everything v2 2026-07-28: ${n}`;
    if (!(await check(name('fake server connect'), async () => {
        await c.connect();
        return `negotiated ${c.client.getNegotiatedProtocolVersion()}`;
    }))) {
        await c.close().catch(() => {});
        return;
    }
    await check(name("the server's sampling question, answered by retrying the call"), async () => {
        const r = await c.callTool({ name: 'fake_ask', arguments: { text: 'one' } });
        return textOf(r) === 'answer: sampled: one' && !r.isError ? `asked: ${c.asked.join(', ')}` : [`fake_ask: ${short(r)}`];
    });
    await check(name("the server's question while another call is in flight: each call gets its own answer"), async () => {
        const slow = c.callTool({ name: 'fake_slow', arguments: { ms: 1500 } });
        await sleep(200);
        const [a, b] = await Promise.allSettled([c.callTool({ name: 'fake_ask', arguments: { text: 'two' } }), slow]);
        const problems = [];
        if (a.status !== 'fulfilled' || textOf(a.value) !== 'answer: sampled: two') problems.push(`fake_ask: ${short(a.value || a.reason?.message)}`);
        if (b.status !== 'fulfilled' || textOf(b.value) !== 'slept 1500') problems.push(`fake_slow: ${short(b.value || b.reason?.message)}`);
        // The question must come back with the call that caused it (fake_ask), not another.
        const asked = c.wire.filter((m) => m.result?.resultType === 'input_required').map((m) => c.wire.sent.find((x) => JSON.stringify(x.id) === JSON.stringify(m.id)));
        const wrong = asked.filter((x) => x?.params?.name !== 'fake_ask');
        if (wrong.length) problems.push(`the sampling question came back as input_required of ${wrong.map((x) => x?.params?.name).join(', ')}, not of fake_ask`);
        return problems.length ? problems : `both answered; input_required for ${asked.map((x) => x?.params?.name).join(', ')}`;
    });
    await c.close().catch(() => {});
}

export async function run(mcph) {
    await modernQuestions(mcph);
    const label = (mode, name) => `gateway everything ${mode}: ${name}`;
    // The direct run first: the reference.
    const direct = clientOf('v1', directArgv(), { ...BASE_ENV });
    let ref = null;
    await check('gateway everything direct: survey (the reference)', async () => {
        await direct.connect();
        await sleep(500); // its roots request after initialized (350 ms) is done
        const names = {
            tools: (await direct.listTools()).tools,
            resources: (await direct.listResources()).resources,
            templates: (await direct.listResourceTemplates()).resourceTemplates,
            prompts: (await direct.listPrompts()).prompts,
        };
        ref = { names, out: await survey(direct, names, null), wire: direct.wire };
        const calls = Object.values(ref.out.calls);
        return `${names.tools.length} tools (${calls.filter((c) => c.result && !c.result.isError).length} results, ${calls.filter((c) => c.result?.isError).length} tool errors), ${names.resources.length} resources, ${names.templates.length} templates, ${names.prompts.length} prompts`;
    });
    await direct.close().catch(() => {});
    if (!ref) return;

    for (const mode of ['v1 2025-11-25', 'v2 2026-07-28']) {
        const { ini, tap } = gatewayWorkspace(mode.startsWith('v1') ? 'everything-v1' : 'everything-v2');
        const c = clientOf(mode.slice(0, 2), [mcph, ini], process.env);
        let out = null;
        const ok = await check(label(mode, 'connect'), async () => {
            await c.connect();
            return c.kind === 'v2' ? `negotiated ${c.client.getNegotiatedProtocolVersion()}` : `server ${c.client.getServerVersion()?.name}`;
        });
        if (!ok) {
            console.log(`#   stderr: ${short(c.stderr(), 600)}`);
            await c.close().catch(() => {});
            continue;
        }
        await check(label(mode, 'lists match the direct server (tools under the prefix)'), async () => {
            // As in the direct run: the server's roots request at start-up (350 ms after its
            // initialized) is over before the calls begin.
            await sleep(500);
            out = await survey(c, ref.names, PREFIX);
            const problems = [];
            compareLists(ref.out, out, problems, c.kind === 'v1');
            return problems.length ? problems : `${out.toolList.length} tools, ${out.resourceList.length} resources, ${out.templateList.length} templates, ${out.promptList.length} prompts`;
        });
        if (!out) {
            await c.close().catch(() => {});
            continue;
        }
        await check(label(mode, 'every tool call gives what the direct call gives'), async () => {
            const problems = [];
            compareOutcomes('tools/call', ref.out.calls, out.calls, problems);
            return problems.length ? problems : `${Object.keys(out.calls).length} tools`;
        }, { max: 30 });
        await check(label(mode, 'reads, prompts and completions give what the direct ones give'), async () => {
            const problems = [];
            compareOutcomes('resources/read', ref.out.reads, out.reads, problems);
            compareOutcomes('prompts/get', ref.out.prompts, out.prompts, problems);
            compareOutcomes('completion/complete', Object.fromEntries(ref.out.completions.map((x, i) => [i, x])), Object.fromEntries(out.completions.map((x, i) => [i, x])), problems);
            return problems.length ? problems : `${Object.keys(out.reads).length} reads, ${Object.keys(out.prompts).length} prompts, ${out.completions.length} completions`;
        }, { max: 20 });
        await check(label(mode, 'sampling and elicitation answered by the client'), async () => {
            const problems = [];
            for (const [kind, tool, text] of [['sampling', 'trigger-sampling-request', 'sampled: '], ['elicitation', 'trigger-elicitation-request', 'Name: Ada']]) {
                if (!c.asked.includes(kind)) problems.push(`the client was never asked for ${kind}`);
                const r = out.calls[tool];
                if (!r?.result || r.result.isError || !textOf(r.result).includes(text)) problems.push(`${tool}: ${short(r, 200)}`);
            }
            return problems.length ? problems : `asked: ${[...new Set(c.asked)].join(', ')}`;
        });
        await check(label(mode, 'progress notifications'), async () => {
            // On the wire: the SDK client may take the result before the last notification.
            const want = [1, 2, 3].map((i) => ({ progress: i, total: 3 }));
            const seen = (w) => {
                const notes = w.filter((m) => m.method === 'notifications/progress' && m.params?.total === 3);
                return notes.map((m) => ({ progress: m.params.progress, total: m.params.total }));
            };
            const d = seen(ref.wire);
            const v = seen(c.wire);
            expect(JSON.stringify(d) === JSON.stringify(want), `the direct server sent ${short(d)}`);
            // mcph coalesces progress it has not passed on yet (a newer one replaces it, so a
            // server's flood queues nothing): on a busy machine 1 may give way to 2. What must
            // hold: some arrive, in order, each one the server sent, and the last is the last.
            const sent = new Set(want.map((x) => x.progress));
            const inOrder = v.every((x, i) => sent.has(x.progress) && x.total === 3 && (i === 0 || x.progress > v[i - 1].progress));
            const diff = v.length === 0 ? 'none arrived' : !inOrder ? 'out of order, or one the server did not send' :
                v[v.length - 1].progress !== 3 ? 'the last (3) did not arrive' : null;
            const tokens = new Set(c.wire.filter((m) => m.method === 'notifications/progress' && m.params?.total === 3).map((m) => JSON.stringify(m.params.progressToken)));
            if (diff) return [`progress through mcph: ${diff}; all: ${short(v, 300)}`];
            // Under 2026-07-28 the server's own roots/list (it asks once, whenever it gets to it)
            // is put to the call in flight, which then answers input_required: the client retries
            // it under a new id, and the progress goes on under the retry's token. Every token
            // but the last must then be a request answered input_required.
            const list = [...tokens];
            const retried = list.slice(0, -1).every((t) => c.wire.some((m) => m.method === undefined &&
                JSON.stringify(m.id) === t && m.result?.resultType === 'input_required'));
            if (tokens.size === 1) return `${v.length} notifications, one token`;
            return retried ? `${v.length} notifications, tokens ${list} (the call was retried after input_required)` : [`progress tokens ${list}`];
        });
        if (c.kind === 'v1') {
            await check(label(mode, 'resources/subscribe: notifications/resources/updated arrives'), async () => {
                const uri = 'demo://resource/static/document/features.md';
                c.updated.length = 0;
                await c.client.subscribeResource({ uri }, TIMEOUT);
                // The toggle was called once by the survey (on): off, then on again sends at once.
                await c.callTool({ name: `${PREFIX}_toggle-subscriber-updates`, arguments: {} });
                await c.callTool({ name: `${PREFIX}_toggle-subscriber-updates`, arguments: {} });
                const got = await waitFor(() => c.updated.some((u) => u.uri === uri), 3000);
                const sent = tapped(tap).filter((m) => m.method === 'resources/subscribe');
                await c.callTool({ name: `${PREFIX}_toggle-subscriber-updates`, arguments: {} });
                const problems = [];
                if (!sent.some((m) => m.params?.uri === uri)) problems.push(`mcph did not send resources/subscribe for ${uri} to the server: ${short(sent)}`);
                if (!got) problems.push(`no notifications/resources/updated for ${uri} within 3 s (got ${short(c.updated)})`);
                return problems.length ? problems : `${c.updated.length} updates`;
            });
            await check(label(mode, 'the subscription holds across a SIGHUP rebuild and a restart of the server'), async () => {
                const uri = 'demo://resource/static/document/features.md';
                const toggle = () => c.callTool({ name: `${PREFIX}_toggle-subscriber-updates`, arguments: {} });
                const pid = c.transport.pid;
                const problems = [];
                // A reload that keeps the section rebuilds the instance on the same server.
                process.kill(pid, 'SIGHUP');
                await sleep(1000);
                c.updated.length = 0;
                await toggle(); // on: one update at once
                if (!(await waitFor(() => c.updated.some((u) => u.uri === uri), 3000))) problems.push('no resources/updated after a SIGHUP');
                await toggle(); // off
                // A new server process knows nothing of the subscription until mcph makes it again.
                // The server is under its keeper, a process of mcph's own (core/client/spawn.c).
                const keeper = childOf(pid);
                const server = keeper && childOf(keeper);
                if (!server) return [...problems, `no server process under mcph ${pid}`];
                const before = tapped(tap).filter((m) => m.method === 'resources/subscribe' && m.params?.uri === uri).length;
                process.kill(server, 'SIGKILL');
                const back = await waitFor(async () => {
                    try {
                        return textOf(await c.callTool({ name: `${PREFIX}_echo`, arguments: { message: 'back' } })) === 'Echo: back';
                    } catch {
                        return false;
                    }
                }, 15000, 200);
                if (!back) return [...problems, 'the server did not serve again within 15 s of its SIGKILL'];
                const after = tapped(tap).filter((m) => m.method === 'resources/subscribe' && m.params?.uri === uri).length;
                if (after <= before) problems.push(`mcph did not subscribe the new server process to ${uri}`);
                c.updated.length = 0;
                await toggle(); // on, in the new process
                if (!(await waitFor(() => c.updated.some((u) => u.uri === uri), 3000))) problems.push('no resources/updated after the restart');
                await toggle();
                return problems.length ? problems : `server ${server} killed and restarted; subscribed ${after - before} more time(s)`;
            });
            await check(label(mode, 'logging/setLevel: the server\'s notifications/message arrive'), async () => {
                c.logs.length = 0;
                await c.client.setLoggingLevel('debug', TIMEOUT);
                await c.callTool({ name: `${PREFIX}_toggle-simulated-logging`, arguments: {} }); // off
                await c.callTool({ name: `${PREFIX}_toggle-simulated-logging`, arguments: {} }); // on: one at once
                const got = await waitFor(() => c.logs.some((l) => /level[- ]message/i.test(JSON.stringify(l.data))), 3000);
                await c.callTool({ name: `${PREFIX}_toggle-simulated-logging`, arguments: {} }); // off
                return got ? `${c.logs.length} messages, e.g. ${short(c.logs[0], 100)}` : [`no simulated log message within 3 s (got ${short(c.logs)})`];
            });
        }
        await check(label(mode, 'cancellation of a long call reaches the server'), async () => {
            const ac = new AbortController();
            const pending = c.callTool({ name: `${PREFIX}_trigger-long-running-operation`, arguments: { duration: 5, steps: 5 } }, { signal: ac.signal });
            await sleep(400);
            ac.abort('the test cancels');
            let aborted = false;
            try {
                await pending;
            } catch {
                aborted = true;
            }
            const call = () => tapped(tap).find((m) => m.method === 'tools/call' && m.params?.name === 'trigger-long-running-operation' && m.params?.arguments?.duration === 5);
            const cancelled = () => tapped(tap).find((m) => m.method === 'notifications/cancelled' && m.params?.requestId === call()?.id);
            const got = await waitFor(cancelled, 3000);
            const problems = [];
            if (!aborted) problems.push('the call was not aborted');
            if (!call()) problems.push('the call never reached the server');
            else if (!got) problems.push(`no notifications/cancelled for request ${call().id} reached the server`);
            const r = await c.callTool({ name: `${PREFIX}_echo`, arguments: { message: 'after' } });
            if (textOf(r) !== 'Echo: after') problems.push(`the next call: ${short(r)}`);
            return problems.length ? problems : `server-side request ${call().id} cancelled`;
        });
        await c.close().catch(() => {});
    }
}
