#!/usr/bin/env node
// Interop with the official MCP TypeScript SDK v1 client.
//
//   node tests/interop/sdk-v1.mjs BINARY CONFIG
//
// BINARY is the server program or a command line (e.g. "node fake-server.mjs --bug title");
// it runs as BINARY CONFIG. For each legacy revision the SDK's Client connects over
// StdioClientTransport with that protocolVersion forced into its initialize request, then
// lists tools, resources, templates and prompts (following nextCursor), calls every tool,
// reads every resource and one URI per template, gets every prompt, pings, and closes stdin
// expecting a clean exit. Every line the server writes is captured raw and validated against
// the revision's schema (tests/lib/schema.mjs, closed world included). A thrown error, an SDK
// validation error, a non-JSON stdout line or a schema error fails the check it happened in.
// Output: "ok REV CHECK" / "FAIL REV CHECK: why" lines, then "N passed, N failed".

import path from 'node:path';
import {
    REVISIONS, REQUEST_TIMEOUT_MS, EXIT_WAIT_MS, order, report, summary, Session, check, listAll, short,
} from './harness.mjs';
import { makeValidator, defaultSpecDir } from '../lib/schema.mjs';
import { capped, CAPPED } from '../lib/util.mjs';
import { commandWords } from '../lib/proc.mjs';
import { buildArguments, expandTemplate } from './args.mjs';

const REVISION_CAP_MS = 120000;

// buildArguments and expandTemplate live in args.mjs (shared with sdk-v2.mjs).
export { buildArguments, expandTemplate };

// Fields that must not appear below the revision that introduced them (asserted explicitly,
// on top of the schema's closed-world check).
function revisionFieldErrors(rev, kind, item) {
    const errs = [];
    const before = (r) => order(rev) < order(r);
    if (kind === 'tool') {
        if (before('2025-03-26') && 'annotations' in item) errs.push(`tool ${item.name} has annotations`);
        if (before('2025-06-18') && 'title' in item) errs.push(`tool ${item.name} has title`);
        if (before('2025-06-18') && 'outputSchema' in item) errs.push(`tool ${item.name} has outputSchema`);
    } else if (kind === 'content') {
        if (before('2025-03-26') && item?.type === 'audio') errs.push('content item of type audio');
        if (before('2025-06-18') && item?.type === 'resource_link') errs.push('content item of type resource_link');
    } else if (kind === 'callResult') {
        if (before('2025-06-18') && 'structuredContent' in item) errs.push('result has structuredContent');
    } else if (kind === 'titled') {
        if (before('2025-06-18') && 'title' in item) errs.push(`${item.name ?? item.uri} has title`);
    }
    return errs;
}

async function runRevision(rev, argv, config, validator) {
    const s = new Session(rev, argv, config, validator);
    const c = s.client;
    const connected = await check(s, 'initialize', async () => {
        await c.connect(s.transport, { timeout: REQUEST_TIMEOUT_MS });
        const problems = [];
        if (s.negotiated !== rev) {
            problems.push(`server answered protocolVersion ${short(s.negotiated)}, requested ${rev}`);
        }
        if (!s.rawCapture) problems.push('could not capture raw stdout (SDK internals changed)');
        const info = c.getServerVersion();
        return problems.length ? problems : `server ${info?.name} ${info?.version}`;
    });
    if (!connected) {
        await c.close().catch(() => {});
        const tail = s.stderrTail();
        for (const l of tail) console.log(`#   stderr: ${l}`);
        return;
    }
    await check(s, 'capabilities', async () => {
        const caps = c.getServerCapabilities() || {};
        const missing = ['tools', 'resources', 'prompts'].filter((k) => !caps[k]);
        return missing.length ? [`capabilities lack ${missing.join(', ')}: ${short(caps)}`] : Object.keys(caps).join(',');
    });
    await check(s, 'ping', async () => {
        await c.ping({ timeout: REQUEST_TIMEOUT_MS });
    });

    let tools = [];
    await check(s, 'tools/list', async () => {
        const r = await listAll(s, 'tools/list', 'tools', (p, o) => c.listTools(p, o));
        tools = r.items;
        const problems = tools.flatMap((t) => revisionFieldErrors(rev, 'tool', t));
        const names = tools.map((t) => t.name);
        const dup = names.filter((n, i) => names.indexOf(n) !== i);
        if (dup.length) problems.push(`duplicate tool names ${dup.join(', ')}`);
        return problems.length ? problems : `${tools.length} tools, ${r.pages} page(s)`;
    });
    for (const tool of tools) {
        await check(s, `tools/call ${tool.name}`, async () => {
            const args = buildArguments(tool.inputSchema);
            const r = await c.callTool({ name: tool.name, arguments: args }, undefined, { timeout: REQUEST_TIMEOUT_MS });
            const problems = [...revisionFieldErrors(rev, 'callResult', r)];
            for (const item of r.content || []) problems.push(...revisionFieldErrors(rev, 'content', item));
            if (problems.length) return problems;
            const types = (r.content || []).map((x) => x.type).join(',');
            const text = (r.content || []).find((x) => x.type === 'text')?.text;
            return r.isError ? `isError: ${short(text ?? '', 80)}` : `content: ${types || 'none'}`;
        });
    }

    let resources = [];
    await check(s, 'resources/list', async () => {
        const r = await listAll(s, 'resources/list', 'resources', (p, o) => c.listResources(p, o));
        resources = r.items;
        const problems = resources.flatMap((x) => revisionFieldErrors(rev, 'titled', x));
        return problems.length ? problems : `${resources.length} resources, ${r.pages} page(s)`;
    });
    for (const res of resources) {
        await check(s, `resources/read ${res.uri}`, async () => {
            const r = await c.readResource({ uri: res.uri }, { timeout: REQUEST_TIMEOUT_MS });
            if (!Array.isArray(r.contents) || r.contents.length === 0) return ['no contents'];
            return `${r.contents.length} item(s)`;
        });
    }

    let templates = [];
    await check(s, 'resources/templates/list', async () => {
        const r = await listAll(s, 'resources/templates/list', 'resourceTemplates',
            (p, o) => c.listResourceTemplates(p, o));
        templates = r.items;
        const problems = templates.flatMap((x) => revisionFieldErrors(rev, 'titled', x));
        return problems.length ? problems : `${templates.length} templates, ${r.pages} page(s)`;
    });
    for (const t of templates) {
        const uri = expandTemplate(t.uriTemplate);
        await check(s, `resources/read ${uri} (template ${t.uriTemplate})`, async () => {
            const r = await c.readResource({ uri }, { timeout: REQUEST_TIMEOUT_MS });
            if (!Array.isArray(r.contents) || r.contents.length === 0) return ['no contents'];
            return `${r.contents.length} item(s)`;
        });
    }

    let prompts = [];
    await check(s, 'prompts/list', async () => {
        const r = await listAll(s, 'prompts/list', 'prompts', (p, o) => c.listPrompts(p, o));
        prompts = r.items;
        const problems = prompts.flatMap((x) => [
            ...revisionFieldErrors(rev, 'titled', x),
            ...(x.arguments || []).flatMap((a) => revisionFieldErrors(rev, 'titled', a)),
        ]);
        return problems.length ? problems : `${prompts.length} prompts, ${r.pages} page(s)`;
    });
    for (const p of prompts) {
        await check(s, `prompts/get ${p.name}`, async () => {
            const args = Object.fromEntries((p.arguments || []).map((a) => [a.name, 'x']));
            const r = await c.getPrompt({ name: p.name, arguments: args }, { timeout: REQUEST_TIMEOUT_MS });
            const problems = (r.messages || []).flatMap((m) => revisionFieldErrors(rev, 'content', m.content));
            return problems.length ? problems : `${(r.messages || []).length} message(s)`;
        });
    }

    await check(s, 'clean exit on EOF', async () => {
        // The SDK's close() ends stdin, then sends SIGTERM after 2 s: the server should have
        // exited by itself with status 0 before that.
        const proc = s.transport._process;
        const exited = proc ? new Promise((r) => proc.once('close', r)) : Promise.resolve();
        proc?.stdin?.end();
        let timer;
        await Promise.race([exited, new Promise((r) => { timer = setTimeout(r, EXIT_WAIT_MS); })]);
        clearTimeout(timer);
        const exit = s.exit;
        await c.close();
        if (!exit) return [`server did not exit within ${EXIT_WAIT_MS / 1000} s of EOF`];
        if (exit.signal || exit.code !== 0) {
            return [`server exited with ${exit.signal ? `signal ${exit.signal}` : `status ${exit.code}`}`];
        }
        return 'status 0';
    });
}

async function main() {
    const [binary, config] = process.argv.slice(2);
    if (!binary || !config) {
        console.error('usage: node tests/interop/sdk-v1.mjs BINARY CONFIG');
        process.exit(2);
    }
    const argv = commandWords(binary);
    const configPath = path.resolve(config);
    const validator = makeValidator(defaultSpecDir());
    for (const rev of REVISIONS) {
        const r = await capped(runRevision(rev, argv, configPath, validator), REVISION_CAP_MS);
        if (r === CAPPED) report(false, rev, 'time limit', `revision run exceeded ${REVISION_CAP_MS / 1000} s`);
    }
    process.exit(summary() > 0 ? 1 : 0);
}

main().catch((err) => {
    console.error(err.stack || String(err));
    report(false, '-', 'main', String(err));
    summary();
    process.exit(1);
});
