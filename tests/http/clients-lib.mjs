// What tests/http/clients.mjs builds on: mcph serving Streamable HTTP on 127.0.0.1 (a free
// port, read from its stderr), a fetch that records every exchange an SDK client makes, raw
// POSTs for what no SDK sends, and an event-stream parser.
//
//   const srv = await startServer(bin, ini, 'v1');        // mcph --listen 127.0.0.1:0 INI
//   const wire = new Wire();                               // give wire.fetch to a transport
//   new StreamableHTTPClientTransport(new URL(srv.url), { fetch: wire.fetch });
//   wire.posts('tools/call', (p) => p.name === 'echo');   // the exchanges that POSTed it
//   const r = await post(srv.url, modernRequest(1, 'tools/list', {}));  // 2026 headers from the body
//   const st = await srv.stop();                           // SIGTERM: { code, signal, ms, timedOut }
//
// An exchange records the request (method, lower-cased headers, the JSON body) and the
// response (status, headers, content type, and every JSON-RPC message in it with the time it
// came). An event stream is read through as the client reads it: nothing is read ahead, and a
// client that cancels it cancels the real response, so a client's abort still closes the
// connection. Every server started is kept in `servers`: stopAll() ends those still running.

import fs from 'node:fs';
import net from 'node:net';
import { performance } from 'node:perf_hooks';
import { Proc, describeExit } from '../lib/proc.mjs';
import { ROOT, SANITIZER_REPORT, short } from '../lib/util.mjs';

export const MODERN = '2026-07-28';
export const LEGACY = '2025-11-25';
export const KEY_VERSION = 'io.modelcontextprotocol/protocolVersion';
export const KEY_CAPS = 'io.modelcontextprotocol/clientCapabilities';
export const KEY_INFO = 'io.modelcontextprotocol/clientInfo';
export const KEY_SUB = 'io.modelcontextprotocol/subscriptionId';
export const ACCEPT = 'application/json, text/event-stream';

const isObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);
const LISTENING = /listening on (http:\/\/127\.0\.0\.1:(\d+)(\/\S*))/;

// --- Event streams. ---

// A parser of text/event-stream text arriving in chunks: each event with data is given to
// onEvent({ event, data }); comment lines (": keep-alive") are counted in parser.comments.
export function sseParser(onEvent) {
    let buf = '';
    let data = [];
    let event = '';
    const feed = (text) => {
        buf += text;
        let nl;
        while ((nl = buf.indexOf('\n')) >= 0) {
            const line = buf.slice(0, nl).replace(/\r$/, '');
            buf = buf.slice(nl + 1);
            if (line === '') {
                if (data.length) onEvent({ event: event || 'message', data: data.join('\n') });
                data = [];
                event = '';
            } else if (line.startsWith(':')) {
                feed.comments++;
            } else {
                const colon = line.indexOf(':');
                const field = colon < 0 ? line : line.slice(0, colon);
                const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
                if (field === 'data') data.push(value);
                else if (field === 'event') event = value;
            }
        }
    };
    feed.comments = 0;
    return feed;
}

// The JSON-RPC messages of a response body: one JSON value (a batch is taken apart) or an
// event stream. Returns { messages, problems }.
export function bodyMessages(ct, text) {
    const messages = [];
    const problems = [];
    const add = (data) => {
        try {
            const v = JSON.parse(data);
            messages.push(...(Array.isArray(v) ? v : [v]));
        } catch (err) {
            problems.push(`not JSON (${err.message}): ${short(data, 120)}`);
        }
    };
    if (ct.startsWith('text/event-stream')) {
        sseParser((e) => (e.event === 'message' ? add(e.data) : problems.push(`event "${e.event}"`)))(`${text}\n\n`);
    } else if (text !== '') {
        add(text);
    }
    return { messages, problems };
}

// --- A recording fetch for the SDK transports. ---

export class Wire {
    constructor() {
        this.exchanges = [];
        this.problems = [];
        this.fetch = this.fetch.bind(this);
    }

    async fetch(url, init = {}) {
        const headers = Object.fromEntries([...new Headers(init.headers || {})].map(([k, v]) => [k.toLowerCase(), v]));
        let body = null;
        if (typeof init.body === 'string' && init.body !== '') {
            try {
                body = JSON.parse(init.body);
            } catch {
                body = init.body;
            }
        }
        const ex = {
            n: this.exchanges.length + 1,
            method: (init.method || 'GET').toUpperCase(),
            headers,
            body,
            t0: performance.now(),
            status: null,
            resHeaders: {},
            ct: '',
            messages: [], // { msg, t }
            ended: false,
            cancelled: false,
            error: null,
        };
        this.exchanges.push(ex);
        let res;
        try {
            res = await fetch(url, init);
        } catch (err) {
            ex.error = err;
            ex.ended = true;
            throw err;
        }
        ex.status = res.status;
        ex.resHeaders = Object.fromEntries([...res.headers].map(([k, v]) => [k.toLowerCase(), v]));
        ex.ct = res.headers.get('content-type') || '';
        const meta = { status: res.status, statusText: res.statusText, headers: res.headers };
        if (res.body && ex.ct.startsWith('text/event-stream')) return new Response(this.tapStream(ex, res.body), meta);
        const text = await res.text();
        ex.text = text;
        ex.ended = true;
        const got = bodyMessages(ex.ct, ex.ct.includes('json') ? text : '');
        for (const msg of got.messages) ex.messages.push({ msg, t: performance.now() });
        for (const p of got.problems) this.problems.push(`exchange ${ex.n}: ${p}`);
        return new Response(text === '' ? null : text, meta);
    }

    // The body, passed on chunk by chunk as the client pulls it, its messages recorded.
    tapStream(ex, source) {
        const reader = source.getReader();
        const decoder = new TextDecoder();
        const feed = sseParser((e) => {
            try {
                ex.messages.push({ msg: JSON.parse(e.data), t: performance.now() });
            } catch (err) {
                this.problems.push(`exchange ${ex.n}: event data is not JSON (${err.message}): ${short(e.data, 120)}`);
            }
        });
        ex.keepAlives = () => feed.comments;
        return new ReadableStream({
            async pull(ctl) {
                try {
                    const { value, done } = await reader.read();
                    if (done) {
                        ex.ended = true;
                        ctl.close();
                        return;
                    }
                    feed(decoder.decode(value, { stream: true }));
                    ctl.enqueue(value);
                } catch (err) {
                    ex.ended = true;
                    ex.error = err;
                    ctl.error(err);
                }
            },
            cancel(reason) {
                ex.ended = true;
                ex.cancelled = true;
                return reader.cancel(reason);
            },
        });
    }

    // The POST exchanges whose body is a request of this method (and whose params pass pred).
    posts(method, pred = () => true) {
        return this.exchanges.filter((ex) => ex.method === 'POST' && isObject(ex.body) && ex.body.method === method &&
            'id' in ex.body && pred(ex.body.params || {}));
    }

    gets() {
        return this.exchanges.filter((ex) => ex.method === 'GET');
    }

    // Every message received: [{ ex, msg, t }].
    received() {
        return this.exchanges.flatMap((ex) => ex.messages.map((m) => ({ ex, msg: m.msg, t: m.t })));
    }

    // The notifications of a method received, with their exchanges.
    notes(method) {
        return this.received().filter((r) => r.msg.method === method && !('id' in r.msg));
    }

    // The response to a request the exchange POSTed.
    answer(ex) {
        const id = JSON.stringify(ex.body?.id);
        return ex.messages.map((m) => m.msg).find((m) => !('method' in m) && JSON.stringify(m.id) === id) || null;
    }
}

// --- Raw requests. ---

export function modernMeta(caps = {}) {
    return { [KEY_VERSION]: MODERN, [KEY_CAPS]: caps, [KEY_INFO]: { name: 'mcph-http-clients', version: '1.0.0' } };
}

// A 2026-07-28 request: params with the _meta envelope.
export function modernRequest(id, method, params = {}, caps = {}) {
    return { jsonrpc: '2.0', id, method, params: { ...params, _meta: { ...modernMeta(caps), ...(params._meta || {}) } } };
}

// The headers a 2026-07-28 request needs, from its body.
export function modernHeaders(msg) {
    const h = { 'mcp-protocol-version': MODERN, 'mcp-method': msg.method };
    if (msg.method === 'tools/call' || msg.method === 'prompts/get') h['mcp-name'] = msg.params.name;
    if (msg.method === 'resources/read') h['mcp-name'] = msg.params.uri;
    return h;
}

// POST a message and read the whole answer: { status, headers, ct, text, messages, answer }
// (answer: the response to the request's id, or null). A 2026-07-28 request (with the
// protocol version in _meta) gets its headers unless opts.headers says otherwise.
export async function post(url, msg, opts = {}) {
    const modern = msg?.params?._meta?.[KEY_VERSION] === MODERN;
    const res = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: ACCEPT, ...(modern ? modernHeaders(msg) : {}), ...(opts.headers || {}) },
        body: typeof msg === 'string' ? msg : JSON.stringify(msg),
        signal: AbortSignal.timeout(opts.ms ?? 10000),
    });
    const text = await res.text();
    const ct = res.headers.get('content-type') || '';
    const { messages, problems } = bodyMessages(ct, text);
    const id = JSON.stringify(msg?.id);
    const answer = messages.find((m) => isObject(m) && !('method' in m) && JSON.stringify(m.id) === id) || null;
    return { status: res.status, headers: res.headers, ct, text, messages, problems, answer };
}

// A request with no body (GET, DELETE): { status, headers, ct }; the body is not read.
export async function bare(url, method, headers = {}, ms = 10000) {
    const ac = new AbortController();
    const timer = setTimeout(() => ac.abort(), ms);
    try {
        const res = await fetch(url, { method, headers: { accept: ACCEPT, ...headers }, signal: ac.signal });
        const out = { status: res.status, headers: res.headers, ct: res.headers.get('content-type') || '' };
        ac.abort();
        return out;
    } finally {
        clearTimeout(timer);
    }
}

// Whether something accepts TCP connections on 127.0.0.1:port.
export function portOpen(port, ms = 2000) {
    return new Promise((resolve) => {
        const s = net.connect({ host: '127.0.0.1', port });
        const done = (v) => {
            s.destroy();
            resolve(v);
        };
        s.once('connect', () => done(true));
        s.once('error', () => done(false));
        s.setTimeout(ms, () => done(true));
    });
}

// The pids of a process's children (from /proc).
export function childrenOf(pid) {
    const out = [];
    for (const d of fs.readdirSync('/proc')) {
        if (!/^\d+$/.test(d)) continue;
        try {
            const stat = fs.readFileSync(`/proc/${d}/stat`, 'utf8');
            const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
            if (Number(fields[1]) === pid) out.push(Number(d));
        } catch {
            // gone meanwhile
        }
    }
    return out;
}

// Whether a pid is a live process (a zombie is not).
export function alive(pid) {
    try {
        const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
        return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
    } catch {
        return false;
    }
}

// --- mcph serving HTTP. ---

export const servers = new Set();

export class HttpServer {
    constructor(bin, ini, name, args = []) {
        this.name = name;
        this.ini = ini;
        this.proc = new Proc([bin, '--listen', '127.0.0.1:0', ...args, ini], { cwd: ROOT });
        this.url = null;
        this.port = null;
        this.stopped = null;
        servers.add(this);
    }

    get pid() {
        return this.proc.pid;
    }

    get stderr() {
        return this.proc.stderr;
    }

    async ready(ms) {
        await this.proc.waitFor(() => LISTENING.test(this.proc.stderr) || this.proc.exited, ms);
        const m = LISTENING.exec(this.proc.stderr);
        if (!m) {
            throw new Error(`${this.name}: no "listening on" line within ${ms} ms (${describeExit(this.proc.exitInfo)}): ` +
                short(this.stderrTail(), 400));
        }
        this.url = m[1];
        this.port = Number(m[2]);
        return this;
    }

    hup() {
        process.kill(this.pid, 'SIGHUP');
    }

    stderrTail(n = 6) {
        return this.proc.stderr.trim().split('\n').slice(-n).join(' | ');
    }

    // What is wrong whatever the test: output on stdout (it belongs to stdio serving), a
    // sanitizer's report on stderr.
    problems() {
        const out = [];
        if (this.proc.events.length) out.push(`${this.name}: wrote on stdout: ${short(this.proc.events[0].raw, 150)}`);
        const rep = SANITIZER_REPORT.exec(this.proc.stderr);
        if (rep) out.push(`${this.name}: sanitizer report: ${short(this.proc.stderr.slice(rep.index), 600)}`);
        return out;
    }

    // SIGTERM, then wait (SIGKILL after ms): { code, signal, timedOut, ms }.
    async stop(ms = 10000) {
        if (this.stopped) return this.stopped;
        const t0 = performance.now();
        this.proc.kill('SIGTERM');
        const r = await this.proc.wait(ms);
        this.stopped = { code: r.code, signal: r.signal, timedOut: !!r.timedOut, ms: Math.round(performance.now() - t0) };
        return this.stopped;
    }
}

export async function startServer(bin, ini, name, ms = 10000, args = []) {
    const s = new HttpServer(bin, ini, name, args);
    await s.ready(ms);
    return s;
}

// Stop every server still running; returns what went wrong (an exit other than status 0).
export async function stopAll(ms) {
    const out = [];
    for (const s of servers) {
        const r = await s.stop(ms);
        if (r.code !== 0) out.push(`${s.name}: exit ${r.signal ? `signal ${r.signal}` : `status ${r.code}`}${r.timedOut ? ' (killed after the time limit)' : ''}`);
    }
    return out;
}
