// server-everything (@modelcontextprotocol/server-everything, pinned in tests/package.json) in
// its Streamable HTTP mode (`index.js streamableHttp`, port from PORT) behind a url section of
// mcph's mcp plugin, against the same server spoken to directly over HTTP with the official SDK
// v1 client. Through mcph the same client speaks stdio to mcph. Compared after normalising what
// differs from call to call (tests/gateway/common.mjs): the tool list (names under the
// section's prefix, descriptions, schemas; a tool that requires tasks may be left out), and the
// results of echo, get-sum, get-structured-content, and of trigger-sampling-request and
// trigger-elicitation-request, for which the client answers the server's question (it must be
// asked through mcph as it is directly). Then mcph ends cleanly at the end of input.
//
//   node tests/remote/everything.mjs [build/mcph]

import { spawn } from 'node:child_process';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CreateMessageRequestSchema, ElicitRequestSchema, ListRootsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { check } from '../lib/check.mjs';
import { NODE, SERVERS, normalise, firstDifference } from '../gateway/common.mjs';
import {
    binary, slowFactor, workspace, frontIni, LOOPBACK, freePort, stderrProblems, short, waitFor, runSuite } from './common.mjs';

const mcph = binary();
const SLOW = slowFactor(mcph);
const TIMEOUT = { timeout: 20000 * SLOW };
const PREFIX = 'ev';
const CALLS = {
    echo: { message: 'through two transports' },
    'get-sum': { a: 2, b: 40 },
    'get-structured-content': { location: 'New York' },
    'trigger-sampling-request': { prompt: 'Say hi', maxTokens: 20 },
    'trigger-elicitation-request': {},
};

// server-everything over HTTP on a free port; resolves once it says it listens.
async function startEverything() {
    for (let i = 0; i < 5; i++) {
        const port = await freePort();
        const child = spawn(NODE, [SERVERS.everything, 'streamableHttp'], {
            env: { ...process.env, PORT: String(port) }, stdio: ['ignore', 'ignore', 'pipe'],
        });
        let err = '';
        child.stderr.on('data', (d) => {
            err += d;
        });
        const ok = await waitFor(() => /listening on port/.test(err) || child.exitCode !== null || /in use/.test(err), 15000 * SLOW, 50);
        if (ok && /listening on port/.test(err)) return { child, port, url: `http://127.0.0.1:${port}/mcp`, stderr: () => err };
        child.kill('SIGKILL');
    }
    throw new Error('server-everything did not start over HTTP in 5 tries');
}

// A v1 client that answers sampling, elicitation and roots (mcph declares roots to its
// servers: the direct client does too, so both see the same conditional tools), and records
// that it was asked.
function makeClient(asked) {
    const c = new Client({ name: 'mcph-remote-tests', version: '1.0.0' }, { capabilities: { sampling: {}, elicitation: {}, roots: {} } });
    c.setRequestHandler(ListRootsRequestSchema, async () => ({ roots: [{ uri: 'file:///srv/remote', name: 'remote' }] }));
    c.setRequestHandler(CreateMessageRequestSchema, async (r) => {
        asked.push('sampling');
        return { role: 'assistant', content: { type: 'text', text: `sampled: ${r.params?.messages?.[0]?.content?.text ?? ''}` }, model: 'remote-model', stopReason: 'endTurn' };
    });
    c.setRequestHandler(ElicitRequestSchema, async (r) => {
        asked.push('elicitation');
        const content = {};
        for (const [k, s] of Object.entries(r.params?.requestedSchema?.properties || {})) {
            if (s.type === 'boolean') content[k] = true;
            else if (s.type === 'number' || s.type === 'integer') content[k] = 7;
            else if (Array.isArray(s.enum)) content[k] = s.enum[0];
            else if (s.format === 'email') content[k] = 'ada@example.org';
            else if (s.format === 'uri') content[k] = 'https://example.org/ada';
            else if (s.format === 'date') content[k] = '1815-12-10';
            else if (s.type === 'string') content[k] = 'Ada';
        }
        return { action: 'accept', content };
    });
    return c;
}

// What a client sees: the tool list and the results of CALLS (name under `prefix`).
async function survey(client, prefix) {
    const p = (n) => (prefix ? `${prefix}_${n}` : n);
    const tools = (await client.listTools(undefined, TIMEOUT)).tools;
    const calls = {};
    for (const [name, args] of Object.entries(CALLS)) {
        try {
            calls[name] = { result: await client.callTool({ name: p(name), arguments: args }, undefined, TIMEOUT) };
        } catch (err) {
            calls[name] = { error: err?.code ?? 'thrown', message: String(err?.message || err) };
        }
    }
    return { tools, calls };
}

// A tool as mcph should list it: under the prefix; `execution` (task support) not compared.
const comparable = (t, prefix) => {
    const { execution, ...rest } = t;
    return normalise({ ...rest, name: prefix ? `${prefix}_${t.name}` : t.name });
};

async function main() {
    const ev = await startEverything();
    const ws = workspace('everything');
    const ini = frontIni(ws, { [PREFIX]: { url: ev.url, ...LOOPBACK, startup_timeout_ms: 20000 * SLOW } });
    let direct;
    let via;
    const askedDirect = [];
    const askedVia = [];
    let transport;
    let stderr = '';
    try {
        await check('remote everything: the same server direct over HTTP (SDK v1)', async () => {
            const c = makeClient(askedDirect);
            await c.connect(new StreamableHTTPClientTransport(new URL(ev.url)), TIMEOUT);
            direct = await survey(c, null);
            await c.close();
            return `${direct.tools.length} tools, asked ${askedDirect.join(', ')}`;
        });
        await check('remote everything: through mcph, a url section (SDK v1 over stdio)', async () => {
            transport = new StdioClientTransport({ command: mcph, args: [ini], stderr: 'pipe' });
            transport.stderr?.on('data', (d) => {
                stderr += d;
            });
            const c = makeClient(askedVia);
            try {
                await c.connect(transport, TIMEOUT);
            } catch (err) {
                return [`${err.message}; mcph's stderr: ${short(stderr.trim().split('\n').slice(-4).join(' | '), 400)}`];
            }
            via = await survey(c, PREFIX);
            return `${via.tools.length} tools, asked ${askedVia.join(', ')}`;
        });
        if (!direct || !via) return;
        await check('remote everything: tools/list the same as direct (names under the prefix, descriptions, schemas)', () => {
            const problems = [];
            const want = direct.tools.filter((t) => t.execution?.taskSupport !== 'required');
            const got = new Map(via.tools.map((t) => [t.name, t]));
            for (const t of want) {
                const g = got.get(`${PREFIX}_${t.name}`);
                if (!g) {
                    problems.push(`${t.name} not listed through mcph`);
                    continue;
                }
                const d = firstDifference(comparable(t, PREFIX), comparable(g, null));
                if (d) problems.push(`${t.name} differs: ${d}`);
                got.delete(`${PREFIX}_${t.name}`);
            }
            for (const n of got.keys()) {
                if (!direct.tools.some((t) => `${PREFIX}_${t.name}` === n)) problems.push(`${n} listed through mcph only`);
            }
            return problems.length ? problems : `${want.length} tools`;
        });
        for (const name of Object.keys(CALLS)) {
            await check(`remote everything: ${name} gives the same result as direct`, () => {
                const d = direct.calls[name];
                const v = via.calls[name];
                if (d.error !== undefined) return [`direct: ${short(d, 200)}`];
                if (v.error !== undefined) return [`through mcph: ${short(v, 300)}`];
                const diff = firstDifference(normalise(d.result), normalise(v.result));
                return diff ? [diff] : short(JSON.stringify(v.result.content?.[0]?.text ?? v.result), 80);
            });
        }
        await check('remote everything: the server\'s questions reach the client through mcph as directly', () => {
            const a = [...askedDirect].sort().join(',');
            const b = [...askedVia].sort().join(',');
            if (!askedDirect.includes('sampling') || !askedDirect.includes('elicitation')) return [`direct: asked only ${a}`];
            return a === b ? `asked ${b}` : [`asked ${b || 'nothing'} through mcph, ${a} direct`];
        });
        await check('remote everything: mcph ends cleanly at the end of input; no sanitizer report', async () => {
            const proc = transport._process;
            const exited = new Promise((r) => proc.once('exit', (code, signal) => r({ code, signal })));
            proc.stdin.end();
            const st = await Promise.race([exited, new Promise((r) => setTimeout(() => r(null), 10000 * SLOW))]);
            const problems = stderrProblems('mcph', stderr);
            if (!st) problems.push('mcph did not exit within the limit after the end of its input');
            else if (st.code !== 0) problems.push(`mcph: exit ${st.signal || st.code}: ${short(stderr.slice(-300), 300)}`);
            return problems;
        });
    } finally {
        transport?._process?.kill('SIGKILL');
        ev.child.kill('SIGKILL');
    }
}

await runSuite('everything', main, 90000 * SLOW);
