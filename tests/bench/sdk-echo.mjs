// sdk-echo.mjs: the peer server of `make bench`, on the official TypeScript SDK v1
// (McpServer + StdioServerTransport, as its README shows).
//
//   node tests/bench/sdk-echo.mjs          one tool, echo {text}
//   node tests/bench/sdk-echo.mjs --list   1,000 tools t0000..t0999 and no echo: the same
//                                          definitions as tests/bench/tools.h (bench-list.so
//                                          and the bare loop), each echoing its text
//
// Nothing else is registered, so tools/list and tools/call cost what the SDK itself costs.

import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';

const list = process.argv.includes('--list');
const server = new McpServer({ name: 'sdk-echo', version: '1.0.0' });
const echo = async ({ text }) => ({ content: [{ type: 'text', text }] });

if (list) {
    // Keep in step with BENCH_TOOL_* in tools.h.
    for (let i = 0; i < 1000; i++) {
        const n = String(i).padStart(4, '0');
        server.registerTool(
            `t${n}`,
            {
                title: `Tool ${n}`,
                description: `Bench tool ${n}: returns the text it is given.`,
                inputSchema: { text: z.string().describe('The text to send back') },
            },
            echo,
        );
    }
} else {
    server.registerTool(
        'echo',
        {
            title: 'Echo',
            description: 'Returns the text it is given.',
            inputSchema: { text: z.string().describe('The text to send back') },
        },
        echo,
    );
}

await server.connect(new StdioServerTransport());
