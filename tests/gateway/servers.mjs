// server-filesystem and server-memory (pinned in tests/package.json) behind one mcph, each a
// section of the mcp plugin: a few real calls each, checked against the files they leave on
// disk, and the core's tools filter on an mcp section once `mcph --check` takes the key.

import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { expect } from '../lib/check.mjs';
import { workspace, gatewayIni, startSession, endSession, endSessions, step, NODE, SERVERS, short } from './common.mjs';

export async function cleanup() {
    endSessions();
}

const ok = (r) => !r.error && !r.isError;

async function filesystemAndMemory(mcph) {
    const ws = workspace('servers');
    const root = path.join(ws, 'root');
    fs.mkdirSync(root);
    fs.writeFileSync(path.join(root, 'hello.txt'), 'hello from the root\n');
    fs.symlinkSync(SERVERS.filesystem, path.join(ws, 'filesystem.js'));
    fs.symlinkSync(SERVERS.memory, path.join(ws, 'memory.js'));
    const memoryFile = path.join(ws, 'memory.jsonl');
    const ini = gatewayIni(ws, {
        fs: { command: `${NODE} filesystem.js root`, startup_timeout_ms: 20000 },
        // Absolute: server-memory takes a relative path from its own folder (node_modules).
        mem: { command: `${NODE} memory.js`, env: `MEMORY_FILE_PATH=${memoryFile}`, startup_timeout_ms: 20000 },
    });
    let s;
    await step('filesystem: write a file, read it back, list the root, refuse a path outside', async () => {
        s = await startSession(mcph, ini);
        const names = await s.names('tools');
        for (const t of ['fs_write_file', 'fs_read_text_file', 'fs_list_directory', 'mem_create_entities', 'mem_read_graph']) {
            expect(names.includes(t), `${t} is not listed: ${short(names, 300)}`);
        }
        const file = path.join(root, 'gateway.txt');
        const w = await s.tool('fs_write_file', { path: file, content: 'written through mcph\n' });
        expect(ok(w), `write_file: ${short(w.msg)}`);
        expect(fs.existsSync(file) && fs.readFileSync(file, 'utf8') === 'written through mcph\n', `the file on disk: ${fs.existsSync(file) ? JSON.stringify(fs.readFileSync(file, 'utf8')) : 'missing'}`);
        const r = await s.tool('fs_read_text_file', { path: file });
        expect(ok(r) && r.text === 'written through mcph\n', `read_text_file: ${short(r.msg)}`);
        const l = await s.tool('fs_list_directory', { path: root });
        expect(ok(l) && l.text.includes('[FILE] gateway.txt') && l.text.includes('[FILE] hello.txt'), `list_directory: ${short(l.msg)}`);
        const out = await s.tool('fs_read_text_file', { path: '/etc/hostname' });
        expect(out.isError && /denied|outside/i.test(out.text), `a path outside the root: ${short(out.msg)}`);
        return `${names.filter((n) => n.startsWith('fs_')).length} fs tools; wrote, read, listed, refused /etc/hostname`;
    }, () => s);
    await step('memory: create entities and a relation, read them back, search', async () => {
        expect(s, 'no session');
        const c = await s.tool('mem_create_entities', {
            entities: [
                { name: 'mcph', entityType: 'server', observations: ['written in C'] },
                { name: 'everything', entityType: 'server', observations: ['a reference server'] },
            ],
        });
        expect(ok(c), `create_entities: ${short(c.msg)}`);
        const rel = await s.tool('mem_create_relations', { relations: [{ from: 'mcph', to: 'everything', relationType: 'serves' }] });
        expect(ok(rel), `create_relations: ${short(rel.msg)}`);
        const g = await s.tool('mem_read_graph', {});
        expect(ok(g), `read_graph: ${short(g.msg)}`);
        const graph = g.msg.result.structuredContent || JSON.parse(g.text);
        expect(graph.entities?.length === 2 && graph.relations?.[0]?.relationType === 'serves', `the graph: ${short(graph)}`);
        const q = await s.tool('mem_search_nodes', { query: 'written in C' });
        const found = ok(q) ? (q.msg.result.structuredContent || JSON.parse(q.text)).entities?.map((e) => e.name) : null;
        expect(JSON.stringify(found) === '["mcph"]', `search_nodes found ${short(found)}: ${short(q.msg)}`);
        const disk = fs.existsSync(memoryFile) ? fs.readFileSync(memoryFile, 'utf8') : '';
        expect(disk.includes('"written in C"') && disk.includes('"serves"'), `the memory file (${memoryFile}): ${short(disk)}`);
        return `2 entities, 1 relation, in ${path.basename(memoryFile)}`;
    }, () => s);
    if (s) await endSession(s);
}

// The core's tools filter on an mcp section: only the tools it admits are served.
async function filter(mcph) {
    const ws = workspace('filter');
    fs.mkdirSync(path.join(ws, 'root'));
    fs.symlinkSync(SERVERS.filesystem, path.join(ws, 'filesystem.js'));
    const ini = gatewayIni(ws, { fs: { command: `${NODE} filesystem.js root`, tools: 'read_* list_* !*_with_*', startup_timeout_ms: 20000 } });
    const probe = spawnSync(mcph, ['--check', ini], { encoding: 'utf8', timeout: 30000 });
    if (probe.status !== 0 && /tools/.test(probe.stderr) && /unknown|not a key|no key/i.test(probe.stderr)) {
        console.log(`skip gateway tools filter on an mcp section: mcph --check rejects the key (${short(probe.stderr.trim().split('\n').pop(), 160)})`);
        return;
    }
    let s;
    await step('tools filter on an mcp section: only the admitted tools are served', async () => {
        expect(probe.status === 0, `mcph --check ${ini} exited with ${probe.status}: ${short(probe.stderr, 300)}`);
        s = await startSession(mcph, ini);
        const names = await s.names('tools');
        const problems = [];
        for (const n of names) {
            const bare = n.replace(/^fs_/, '');
            if (!/^(read_|list_)/.test(bare) || bare.includes('_with_')) problems.push(`${n} is served though the filter leaves it out`);
        }
        for (const want of ['fs_read_text_file', 'fs_list_directory']) if (!names.includes(want)) problems.push(`${want} is not served`);
        if (names.includes('fs_write_file')) problems.push('fs_write_file is served');
        const w = await s.tool('fs_write_file', { path: path.join(ws, 'root', 'x'), content: 'x' });
        if (!w.error && !w.isError) problems.push('a filtered-out tool was called');
        return problems.length ? problems : `${names.length} tools served: ${names.join(', ')}`;
    }, () => s);
    if (s) await endSession(s);
}

export async function run(mcph) {
    await filesystemAndMemory(mcph);
    await filter(mcph);
}


