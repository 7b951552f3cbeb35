// Shared plumbing of the suites that drive mcph through the official SDK v1 client (tests/interop,
// tests/shipped): a Session runs the server under the SDK's Client over StdioClientTransport,
// forces the protocol revision into initialize, captures every stdout line raw and validates it
// against that revision's schema (tests/lib/schema.mjs, closed world included); check() runs
// one named check (tests/lib/check.mjs) and reports "ok REV NAME" or "FAIL REV NAME: why";
// summary() prints "N passed, N failed".

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { report as reportStep, check as checkStep, summary, errorText } from '../lib/check.mjs';
import { short, jsonLines } from '../lib/util.mjs';

export { summary, errorText, short };

export const REVISIONS = ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25'];
export const REQUEST_TIMEOUT_MS = 10000;
export const EXIT_WAIT_MS = 5000;
const MAX_PAGES = 1000;

export const order = (rev) => REVISIONS.indexOf(rev);

export function report(ok, rev, name, why) {
    return reportStep(ok, `${rev} ${name}`, why);
}

// Give every chunk an SDK stdio transport (v1 or v2) reads to onText before the SDK parses it;
// false when the SDK's internals changed and that cannot be done.
export function tapStdout(transport, onText) {
    const rb = transport._readBuffer;
    if (!rb || typeof rb.append !== 'function') return false;
    const append = rb.append.bind(rb);
    rb.append = (chunk) => {
        onText(chunk.toString('utf8'));
        return append(chunk);
    };
    return true;
}

export class Session {
    constructor(rev, argv, config, validator, clientCapabilities = {}) {
        this.rev = rev;
        this.validator = validator;
        this.sent = new Map(); // JSON id -> method
        this.schemaErrors = []; // validation problems not yet reported by a check
        this.transportErrors = [];
        this.negotiated = null;
        this.exit = null;
        this.stderr = '';
        this.transport = new StdioClientTransport({
            command: argv[0],
            args: [...argv.slice(1), config],
            env: process.env,
            stderr: 'pipe',
        });
        this.transport.stderr?.on('data', (d) => {
            this.stderr += d.toString();
        });
        this.hookTransport();
        this.client = new Client({ name: 'mcph-interop', version: '1.0.0' }, { capabilities: clientCapabilities });
        this.client.onerror = (err) => this.transportErrors.push(`client error: ${err.message || err}`);
    }

    hookTransport() {
        const t = this.transport;
        // Force the revision and remember what each request id asks.
        const send = t.send.bind(t);
        t.send = async (msg, opts) => {
            if (msg && msg.method === 'initialize' && msg.params) {
                msg = { ...msg, params: { ...msg.params, protocolVersion: this.rev } };
            }
            if (msg && typeof msg.method === 'string' && 'id' in msg) {
                this.sent.set(JSON.stringify(msg.id), msg.method);
            }
            return send(msg, opts);
        };
        // Capture every stdout line raw (before the SDK's own parsing may drop members).
        this.rawCapture = tapStdout(t, (text) => this.raw(text));
        if (!this.rawCapture) t.onmessage = (msg) => this.inspect(msg, JSON.stringify(msg));
        t.onerror = (err) => this.transportErrors.push(`transport error: ${err.message || err}`);
        const start = t.start.bind(t);
        t.start = async () => {
            await start();
            const p = t._process;
            if (p) {
                p.on('exit', (code, signal) => {
                    this.exit = { code, signal };
                });
            }
        };
    }

    raw(text) {
        (this.feed ||= jsonLines((msg, line) => this.inspect(msg, line), (why) => this.schemaErrors.push(why)))(text);
    }

    inspect(msg, line) {
        let rev = this.negotiated || this.rev;
        let method;
        if (msg && typeof msg === 'object' && !Array.isArray(msg) && !('method' in msg)) {
            method = this.sent.get(JSON.stringify(msg.id));
            if (method === 'initialize' && typeof msg.result?.protocolVersion === 'string') {
                const pv = msg.result.protocolVersion;
                if (this.validator.hasRevision(pv)) {
                    this.negotiated = pv;
                    rev = pv;
                }
            }
        }
        const errs = this.validator.validate(rev, msg, { answers: method });
        if (errs.length > 0) {
            this.schemaErrors.push(`schema ${rev}: ${errs.slice(0, 3).join('; ')}` +
                `${errs.length > 3 ? ` (+${errs.length - 3} more)` : ''} [message: ${short(line, 200)}]`);
        }
    }

    // Problems that arrived since the last call.
    drainProblems() {
        const out = [...this.schemaErrors, ...this.transportErrors];
        this.schemaErrors = [];
        this.transportErrors = [];
        return out;
    }

    stderrTail(n = 5) {
        return this.stderr.split('\n').filter(Boolean).slice(-n);
    }
}

// Run one check: fn returns a note (string) or an array of problems, or throws; schema and
// transport problems the session saw meanwhile come first.
export function check(s, name, fn) {
    return checkStep(`${s.rev} ${name}`, fn, { problems: () => s.drainProblems() });
}

export async function listAll(s, what, key, call) {
    const items = [];
    let cursor;
    let pages = 0;
    const seen = new Set();
    for (;;) {
        const r = await call(cursor === undefined ? {} : { cursor }, { timeout: REQUEST_TIMEOUT_MS });
        pages++;
        if (!Array.isArray(r[key])) throw new Error(`${what}: result has no ${key} array`);
        items.push(...r[key]);
        if (r.nextCursor === undefined) break;
        if (seen.has(r.nextCursor)) throw new Error(`${what}: nextCursor ${short(r.nextCursor)} repeats`);
        seen.add(r.nextCursor);
        if (pages >= MAX_PAGES) throw new Error(`${what}: more than ${MAX_PAGES} pages`);
        cursor = r.nextCursor;
    }
    return { items, pages };
}

