#!/usr/bin/env node
// A tiny MCP server on stdio (plain Node, no SDK, newline-delimited JSON-RPC) that tries what a
// confined mcp section must not be able to do, for tests/confine/confine.mjs. It imports only
// node: modules, so that Node needs nothing but itself and this file to start.
//
//   node attacker.mjs [--marker WORD]      (--marker: not used, it names the process in /proc)
//
// Tools:
//   attack {what, arg}  ONE attempt, answered as a normal tool result: "ok" when it worked,
//                       else "refused: CODE (text)", the error Node saw (CODE as Node names
//                       it: EACCES, EPERM, ...); each refusal is also written to stderr as
//                       "attack: WHAT ARG refused: CODE (text)" (mcph tags it "[SECTION] ").
//                       what (arg):
//                         read (FILE)          fs.readFileSync
//                         write (FILE)         fs.appendFileSync of a line
//                         list (FOLDER)        fs.readdirSync
//                         symlink_read (LINK)  fs.readFileSync through a symbolic link
//                                              (EINVAL when it is none)
//                         connect (PORT)       net.connect to 127.0.0.1:PORT
//                         unix (PATH)          net.connect to the UNIX socket PATH (@NAME:
//                                              the abstract NAME)
//                         exec (PROGRAM ARGS)  child_process.spawnSync(PROGRAM, ARGS), stdio
//                                              ignored (words split at spaces)
//                         kill (PID)           process.kill(PID, 'SIGTERM')
//   ok                  "ok pid N"
// Answers initialize, ping and tools/list; unknown requests get -32601. stdin at EOF: exit 0.

import fs from 'node:fs';
import net from 'node:net';
import { spawnSync } from 'node:child_process';

// The texts glibc gives the errors a refusal is expected to carry; others keep Node's message.
const TEXTS = {
    EACCES: 'Permission denied',
    EPERM: 'Operation not permitted',
    ENOENT: 'No such file or directory',
    EINVAL: 'Invalid argument',
    ECONNREFUSED: 'Connection refused',
    ESRCH: 'No such process',
    EAFNOSUPPORT: 'Address family not supported by protocol',
    ENOSYS: 'Function not implemented',
};

const write = (msg) => process.stdout.write(`${JSON.stringify(msg)}\n`);
const reply = (id, result) => write({ jsonrpc: '2.0', id, result });
const fail = (id, code, message) => write({ jsonrpc: '2.0', id, error: { code, message } });
const text = (t, isError = false) => ({ content: [{ type: 'text', text: t }], ...(isError ? { isError: true } : {}) });

const WHATS = ['read', 'write', 'list', 'symlink_read', 'connect', 'unix', 'exec', 'kill'];
const tools = [
    {
        name: 'attack',
        description: 'Makes one attempt (what, with arg) and says "ok" or how it was refused',
        inputSchema: {
            type: 'object',
            properties: { what: { type: 'string', enum: WHATS }, arg: { type: 'string' } },
            required: ['what'],
        },
    },
    { name: 'ok', description: 'Answers "ok pid N"', inputSchema: { type: 'object', properties: {} } },
];

// A socket connection: resolves with null once connected (then closed), or the error.
function connectTo(options) {
    return new Promise((resolve) => {
        const sock = net.connect(options);
        const timer = setTimeout(() => {
            sock.destroy();
            resolve(Object.assign(new Error('no connection within 5 s'), { code: 'ETIMEDOUT' }));
        }, 5000);
        sock.once('connect', () => {
            clearTimeout(timer);
            sock.destroy();
            resolve(null);
        });
        sock.once('error', (err) => {
            clearTimeout(timer);
            resolve(err);
        });
    });
}

function notSymlink(arg) {
    if (!fs.lstatSync(arg).isSymbolicLink()) throw Object.assign(new Error(`${arg} is no symbolic link`), { code: 'EINVAL' });
}

// Each attempt resolves with null when it worked, else the error it met (or throws it).
const ATTEMPTS = {
    read: (arg) => (fs.readFileSync(arg), null),
    write: (arg) => (fs.appendFileSync(arg, 'written by the attacker\n'), null),
    list: (arg) => (fs.readdirSync(arg), null),
    symlink_read: (arg) => (notSymlink(arg), fs.readFileSync(arg), null),
    connect: (arg) => connectTo({ host: '127.0.0.1', port: Number(arg) }),
    unix: (arg) => connectTo({ path: arg.startsWith('@') ? `\0${arg.slice(1)}` : arg }),
    exec: (arg) => {
        const [program, ...args] = arg.split(' ').filter(Boolean);
        return spawnSync(program, args, { stdio: 'ignore', timeout: 5000 }).error || null;
    },
    kill: (arg) => (process.kill(Number(arg), 'SIGTERM'), null),
};

async function attempt(what, arg) {
    try {
        return await ATTEMPTS[what](arg);
    } catch (err) {
        return err;
    }
}

async function attack(id, args) {
    const what = args?.what;
    const arg = typeof args?.arg === 'string' ? args.arg : '';
    if (!Object.hasOwn(ATTEMPTS, what)) {
        reply(id, text(`no attempt named "${what}"`, true));
        return;
    }
    const err = await attempt(what, arg);
    if (!err) {
        reply(id, text('ok'));
        return;
    }
    const code = err.code || 'EUNKNOWN';
    const result = `refused: ${code} (${TEXTS[code] || err.message})`;
    process.stderr.write(`attack: ${what} ${arg} ${result}\n`);
    reply(id, text(result));
}

function onRequest(msg) {
    const { id, method, params } = msg;
    if (method === 'initialize') {
        reply(id, {
            protocolVersion: params?.protocolVersion || '2025-11-25',
            capabilities: { tools: {} },
            serverInfo: { name: 'attacker', version: '1.0.0' },
        });
    } else if (method === 'ping') {
        reply(id, {});
    } else if (method === 'tools/list') {
        reply(id, { tools });
    } else if (method === 'tools/call' && params?.name === 'attack') {
        attack(id, params.arguments);
    } else if (method === 'tools/call' && params?.name === 'ok') {
        reply(id, text(`ok pid ${process.pid}`));
    } else if (method === 'tools/call') {
        reply(id, text(`no tool named "${params?.name}"`, true));
    } else {
        fail(id, -32601, `method not found: ${method}`);
    }
}

let buf = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk) => {
    buf += chunk;
    let nl;
    while ((nl = buf.indexOf('\n')) >= 0) {
        const line = buf.slice(0, nl);
        buf = buf.slice(nl + 1);
        let msg;
        try {
            msg = JSON.parse(line);
        } catch {
            continue;
        }
        if (msg && typeof msg.method === 'string' && 'id' in msg) onRequest(msg);
    }
});
process.stdin.on('end', () => process.exit(0));
