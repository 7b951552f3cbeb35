// sdk-http-echo.mjs: the peer HTTP server of `make bench`, on the official TypeScript SDK v1:
// McpServer + StreamableHTTPServerTransport on node:http, stateless, as the SDK's
// examples/server/simpleStatelessStreamableHttp.js serves (a stateless transport cannot be
// reused across requests, and a server takes one transport: both are made for each POST).
//
//   node tests/bench/sdk-http-echo.mjs [--sse] [--port N]
//
// One tool, echo {text}, as sdk-echo.mjs. Responses are JSON (enableJsonResponse: true, the
// SDK's option for a server that never streams before the answer), or with --sse the SDK's
// default, an event stream for each POST. Listens on 127.0.0.1 (port 0 unless --port: a free
// one) at /mcp and writes "sdk-http-echo: listening on http://127.0.0.1:PORT/mcp" to stderr.
// SIGTERM closes it.

import http from 'node:http';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';

const sse = process.argv.includes('--sse');
const portAt = process.argv.indexOf('--port');
const port = portAt > 0 ? Number(process.argv[portAt + 1]) : 0;
const echo = async ({ text }) => ({ content: [{ type: 'text', text }] });
// The definition is built once; each request's server registers it.
const definition = {
    title: 'Echo',
    description: 'Returns the text it is given.',
    inputSchema: { text: z.string().describe('The text to send back') },
};

function makeServer() {
    const server = new McpServer({ name: 'sdk-http-echo', version: '1.0.0' });
    server.registerTool('echo', definition, echo);
    return server;
}

const httpServer = http.createServer(async (req, res) => {
    if (req.method !== 'POST' || req.url !== '/mcp') {
        res.writeHead(req.url === '/mcp' ? 405 : 404, { Allow: 'POST' }).end();
        return;
    }
    const server = makeServer();
    const transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: undefined,
        enableJsonResponse: !sse,
    });
    res.on('close', () => {
        transport.close();
        server.close();
    });
    try {
        await server.connect(transport);
        await transport.handleRequest(req, res);
    } catch (err) {
        process.stderr.write(`sdk-http-echo: ${err?.stack ?? err}\n`);
        if (!res.headersSent)
            res.writeHead(500, { 'Content-Type': 'application/json' }).end(
                JSON.stringify({
                    jsonrpc: '2.0',
                    error: { code: -32603, message: 'Internal server error' },
                    id: null,
                }),
            );
    }
});

httpServer.listen(port, '127.0.0.1', () => {
    const { port: bound } = httpServer.address();
    process.stderr.write(`sdk-http-echo: listening on http://127.0.0.1:${bound}/mcp\n`);
});
process.on('SIGTERM', () => {
    httpServer.close();
    httpServer.closeAllConnections();
});
