#!/usr/bin/env node
// A stdio MCP server that goes deaf: it answers initialize, tools/list and ping, and at its
// first tools/call stops reading its stdin for good (it never answers, and stays alive). A
// large call then fills the pipe and the mcp plugin's writer blocks in write(). For
// tests/edges/edges.mjs: shutdown must not wait on it.

let buf = '';
let deaf = false;

function send(msg) {
    process.stdout.write(`${JSON.stringify(msg)}\n`);
}

function answer(m) {
    if (m.method === 'initialize') {
        send({ jsonrpc: '2.0', id: m.id, result: {
            protocolVersion: m.params?.protocolVersion || '2025-06-18',
            capabilities: { tools: {} },
            serverInfo: { name: 'deaf', version: '1' },
        } });
    } else if (m.method === 'tools/list') {
        send({ jsonrpc: '2.0', id: m.id, result: { tools: [
            { name: 'take', inputSchema: { type: 'object' } },
        ] } });
    } else if (m.method === 'tools/call') {
        deaf = true;
        process.stdin.pause();
    } else if (m.id !== undefined) {
        send({ jsonrpc: '2.0', id: m.id, result: {} });
    }
}

process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk) => {
    buf += chunk;
    for (let i = buf.indexOf('\n'); i >= 0 && !deaf; i = buf.indexOf('\n')) {
        const line = buf.slice(0, i);
        buf = buf.slice(i + 1);
        try {
            answer(JSON.parse(line));
        } catch {
            // not JSON: ignored
        }
    }
});
// Alive until killed (mcph's end takes it with it), whatever stdin does.
setInterval(() => {}, 1000);
