// tests/http/hostile.mjs: hostile clients of mcph's Streamable HTTP transport, over real sockets.
//
//   node tests/http/hostile.mjs build/mcph [CASE ...]          (make test-http)
//
// Starts build/mcph --listen 127.0.0.1:0 with INIs of its own (build/tests/http/hostile-*/):
//   main   http_timeout_s = 2, session_idle_s = 2, max_sessions = 3, max_connections = 32; the
//          example plugin, its count tool again as slow_count with max_concurrent = 1 (a call
//          that is not cancelled holds the next one back: that is how cancellation is seen),
//          tests/plugins/hostile.c (block: runs until cancelled), and the conformance plugin's
//          test_custom_headers (its region argument mirrored in Mcp-Param-Region);
//   auth   auth_token_file with two tokens;
//   roomy  max_connections = 64, http_timeout_s = 30 (connections held, many at once);
//   streams max_connections = 16 (8 long-lived streams, 2 a client), five tokens, and secret
//          files others may read or write.
// Each case throws one kind of abuse at one of them (raw node:net sockets for malformed HTTP,
// node:http for the rest) while a background stream of good calls runs on the same server: a
// legacy 2025-11-25 session and a sessionless 2026-07-28 client, each calling tools/call echo
// in a loop on one keep-alive connection, every answer checked. After the case: none of the
// background calls failed, and a new client is still answered. At the end every server gets
// SIGTERM (the main one with a GET stream and a call open) and must exit 0 within a few
// seconds, with nothing on stdout and no sanitizer report on stderr.
//
// Prints one line per case, "ok   NAME: figures" or "FAIL NAME: what failed [figures]", then
// "     tried: ..." (what was sent and what came back), then the count. CASE arguments run
// only the cases whose name starts with one of them. Every wait is bounded; the bounds are
// multiplied by MCPH_TEST_SLOW (default 1, 3 under ASan/UBSan, 5 under TSan). Memory bounds
// (VmRSS) are checked on a plain build and only reported under a sanitizer.

import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';

import { Proc, describeExit } from '../lib/proc.mjs';
import { Case as BaseCase } from '../lib/check.mjs';
import { workspace, writeIni, PLUGINS, TEST_PLUGINS } from '../lib/workspace.mjs';
import { ROOT, sleep, waitFor, capped, CAPPED, short, sanitizersOf, SANITIZER_REPORT } from '../lib/util.mjs';

const BIN = path.resolve(process.argv[2] || path.join(ROOT, 'build/mcph'));
const ONLY = process.argv.slice(3);
const SAN = sanitizersOf(BIN);
const SLOW = Number(process.env.MCPH_TEST_SLOW) || (SAN.thread ? 5 : SAN.any ? 3 : 1);

// TSan sleeps 1 s at exit by default; ASan's 256 MiB quarantine would hide what RSS says.
const ENV = SAN.thread ?
    { ...process.env, TSAN_OPTIONS: `${process.env.TSAN_OPTIONS || ''} atexit_sleep_ms=0`.trim() } :
    SAN.address ?
        { ...process.env, ASAN_OPTIONS: [process.env.ASAN_OPTIONS, 'quarantine_size_mb=16'].filter(Boolean).join(':') } :
        process.env;

const MiB = 1024 * 1024;
const LIMIT_BODY = 16 * MiB; // core/lib/limits.h LIMIT_MESSAGE_BYTES
const LIMIT_SHUTDOWN_GRACE_MS = 5000;
const TIMEOUT_S = 2; // main: http_timeout_s
const IDLE_S = 2; // main: session_idle_s
const MAX_SESSIONS = 3; // main
const ROOMY_CONNECTIONS = 64;
const MODERN = '2026-07-28';
const LEGACY = '2025-11-25';
const KEY_VERSION = 'io.modelcontextprotocol/protocolVersion';
const KEY_CAPS = 'io.modelcontextprotocol/clientCapabilities';
// The third is as long as an access token with many claims: a header of 3 KiB is read whole.
const TOKENS = ['mcph-hostile-token-0123456789abcdef', 'second-token-ZYXW', `long-${'L'.repeat(3000)}`];
const STREAM_TOKENS = ['stream-token-a-0123456789', 'stream-token-b-0123456789', 'stream-token-c-0123456789',
    'stream-token-d-0123456789', 'stream-token-e-0123456789'];
const STREAM_CONNECTIONS = 16; // streams: max_connections
const STREAM_SHARE = 2; // core/lib/limits.h LIMIT_HTTP_STREAM_SHARE
const CLIENT_STREAM_SHARE = 4; // core/lib/limits.h LIMIT_HTTP_CLIENT_STREAM_SHARE
const UNINIT_S = 10; // core/lib/limits.h LIMIT_HTTP_SESSION_UNINIT_S
const CONFORMANCE = path.join(path.dirname(BIN), 'tests/conformance/conformance.so');

const HTTP_MS = 10000 * SLOW; // one exchange
const BG_MS = 15000 * SLOW; // one background call
const BG_PAUSE_MS = 20;
const BG_MAX = 20000; // calls per background loop, at most

// --- Messages and headers. ------------------------------------------------------------------

const BASE = { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' };
const META = { [KEY_VERSION]: MODERN, [KEY_CAPS]: {} };
const rpc = (id, method, params) => ({ jsonrpc: '2.0', id, method, ...(params ? { params } : {}) });
const note = (method, params) => ({ jsonrpc: '2.0', method, ...(params ? { params } : {}) });
const echoParams = (text) => ({ name: 'echo', arguments: { text } });
const b64 = (s) => Buffer.from(s).toString('base64');

// A 2026-07-28 request: params._meta carries the revision and the client's capabilities.
function modernMsg(id, method, params = {}, meta = {}) {
    return rpc(id, method, { ...params, _meta: { ...META, ...meta } });
}

// Mcp-Name as the spec has clients write it: base64 when it is not plain visible ASCII.
function encodeName(v) {
    return /^[\x21-\x7e]([\x20-\x7e]*[\x21-\x7e])?$/.test(v) && !/^=\?base64\?.*\?=$/.test(v) ? v : `=?base64?${b64(v)}?=`;
}

// The headers a 2026-07-28 request must carry, from its body.
function modernHeaders(msg) {
    const h = { ...BASE, 'MCP-Protocol-Version': msg.params?._meta?.[KEY_VERSION] ?? MODERN, 'Mcp-Method': msg.method };
    const name = msg.method === 'resources/read' ? msg.params?.uri :
        ['tools/call', 'prompts/get'].includes(msg.method) ? msg.params?.name : undefined;
    if (typeof name === 'string') h['Mcp-Name'] = encodeName(name);
    return h;
}

// --- HTTP with node:http. -------------------------------------------------------------------

// Complete events off the front of an event stream's text: each data payload parsed and given
// to cb (a payload that is not JSON as { bad: text }). Returns what is left.
function takeEvents(buf, cb) {
    let at;
    buf = buf.replace(/\r\n/g, '\n');
    while ((at = buf.indexOf('\n\n')) >= 0) {
        const block = buf.slice(0, at);
        buf = buf.slice(at + 2);
        const data = block.split('\n').filter((l) => l.startsWith('data:')).map((l) => l.slice(5).replace(/^ /, ''));
        if (data.length === 0) continue;
        try {
            cb(JSON.parse(data.join('\n')));
        } catch {
            cb({ bad: data.join('\n') });
        }
    }
    return buf;
}

// One HTTP exchange. opts: { method (POST), path, headers (a null value drops one), body (an
// object is sent as JSON), agent (default: a connection of its own), ms, setHost, onEvent(msg,
// req) for each event of an event stream, onResponse(res, req) }. Never rejects: resolves
// { status (0 when no response), headers, text, json (the JSON body, or an event stream's
// answer), messages (an event stream's), error, ms }.
function send(srv, opts = {}) {
    return new Promise((resolve) => {
        const t0 = performance.now();
        const ms = opts.ms ?? HTTP_MS;
        let done = false;
        let timer = null;
        const finish = (r) => {
            if (done) return;
            done = true;
            clearTimeout(timer);
            resolve({ ms: performance.now() - t0, messages: [], ...r });
        };
        const body = opts.body === undefined ? undefined :
            typeof opts.body === 'string' || Buffer.isBuffer(opts.body) ? opts.body : JSON.stringify(opts.body);
        const headers = {};
        for (const [k, v] of Object.entries(opts.headers || {})) if (v !== null && v !== undefined) headers[k] = v;
        if (body !== undefined) headers['Content-Length'] = Buffer.byteLength(body);
        let req;
        try {
            req = http.request({
                host: '127.0.0.1', port: srv.port, path: opts.path ?? srv.path, method: opts.method || 'POST',
                headers, agent: opts.agent ?? false, setHost: opts.setHost ?? true,
            }, (res) => {
                const chunks = [];
                const messages = [];
                const isSse = /text\/event-stream/.test(res.headers['content-type'] || '');
                let sse = '';
                const result = (extra) => {
                    const text = Buffer.concat(chunks).toString('utf8');
                    let json;
                    if (isSse) json = messages.findLast((m) => m && 'id' in m && !('method' in m));
                    else if (text) {
                        try {
                            json = JSON.parse(text);
                        } catch {
                            // not JSON: the checks say so
                        }
                    }
                    return { status: res.statusCode, headers: res.headers, text, json, messages, ...extra };
                };
                res.on('data', (d) => {
                    chunks.push(d);
                    if (isSse) {
                        sse = takeEvents(sse + d.toString('utf8'), (m) => {
                            messages.push(m);
                            if (opts.onEvent) opts.onEvent(m, req);
                        });
                    }
                });
                res.on('end', () => finish(result({})));
                res.on('close', () => finish(result({ error: 'closed before the end of the response' })));
                res.on('error', (e) => finish(result({ error: e.code || e.message })));
                if (opts.onResponse) opts.onResponse(res, req);
            });
        } catch (err) {
            finish({ status: 0, error: err.message });
            return;
        }
        req.on('error', (e) => finish({ status: 0, error: e.code || e.message }));
        timer = setTimeout(() => {
            req.destroy();
            finish({ status: 0, error: `no answer within ${Math.round(ms)} ms` });
        }, ms);
        if (body !== undefined) req.write(body);
        req.end();
    });
}

// A 2026-07-28 request with its headers (over: headers changed; null drops one).
function modern(srv, msg, over = {}, opts = {}) {
    return send(srv, { ...opts, body: msg, headers: { ...modernHeaders(msg), ...srv.auth, ...over } });
}

// A legacy session (initialize without Mcp-Session-Id, then notifications/initialized).
class Legacy {
    // opts: { agent, rev, prefix (of request ids), headers (sent with every request) }.
    constructor(srv, opts = {}) {
        this.srv = srv;
        this.agent = opts.agent;
        this.rev = opts.rev || LEGACY;
        this.prefix = opts.prefix || 'l';
        this.extra = { ...srv.auth, ...opts.headers };
        this.n = 0;
        this.id = null;
    }

    // The initialize exchange (and the initialized notification when it worked). Resolves the
    // initialize response; this.id is the session's id when there is one.
    async open() {
        const r = await send(this.srv, {
            body: rpc(`${this.prefix}-init`, 'initialize', {
                protocolVersion: this.rev, capabilities: {}, clientInfo: { name: 'http-hostile', version: '1' },
            }),
            headers: { ...BASE, ...this.extra },
            agent: this.agent,
        });
        this.id = r.status === 200 && r.json?.result ? r.headers['mcp-session-id'] ?? null : null;
        if (this.id) {
            const n = await this.post(note('notifications/initialized'));
            if (n.status !== 202) this.initializedStatus = n.status || n.error;
        }
        return r;
    }

    // open(), or throw.
    async openOk() {
        const r = await this.open();
        if (!this.id) throw new Error(`initialize (${this.rev}): ${r.status ? `HTTP ${r.status}` : r.error} ${short(r.text, 200)}`);
        if (this.initializedStatus) throw new Error(`notifications/initialized: ${this.initializedStatus} (want 202)`);
        return r;
    }

    headers(over = {}) {
        const h = { ...BASE, ...this.extra, 'Mcp-Session-Id': this.id };
        if (this.rev !== '2024-11-05' && this.rev !== '2025-03-26') h['MCP-Protocol-Version'] = this.rev;
        return { ...h, ...over };
    }

    post(body, opts = {}) {
        return send(this.srv, { agent: this.agent, ...opts, body, headers: this.headers(opts.headers) });
    }

    nextId() {
        return `${this.prefix}-${++this.n}`;
    }

    stream(opts = {}) {
        return send(this.srv, { agent: false, ...opts, method: 'GET', headers: { ...this.extra, Accept: 'text/event-stream', 'Mcp-Session-Id': this.id, ...opts.headers } });
    }

    close() {
        return send(this.srv, { method: 'DELETE', agent: this.agent, headers: { ...this.extra, 'Mcp-Session-Id': this.id } });
    }
}

// --- Raw TCP. -------------------------------------------------------------------------------

// The HTTP responses in bytes received: [{ status, headers (lower-case names), body, complete }].
function parseResponses(buf, closed) {
    const out = [];
    let at = 0;
    while (at < buf.length) {
        const end = buf.indexOf('\r\n\r\n', at);
        if (end < 0) break;
        const head = buf.subarray(at, end).toString('latin1').split('\r\n');
        const m = /^HTTP\/\d\.\d (\d{3})/.exec(head[0]);
        if (!m) break;
        const headers = {};
        for (const l of head.slice(1)) {
            const c = l.indexOf(':');
            if (c > 0) headers[l.slice(0, c).trim().toLowerCase()] = l.slice(c + 1).trim();
        }
        const r = { status: Number(m[1]), headers, body: '', complete: false };
        out.push(r);
        at = end + 4;
        if (headers['content-length'] !== undefined) {
            const n = Number(headers['content-length']);
            r.body = buf.subarray(at, at + n).toString('utf8');
            r.complete = at + n <= buf.length;
            at += n;
        } else if (/chunked/i.test(headers['transfer-encoding'] || '')) {
            const parts = [];
            for (;;) {
                const nl = buf.indexOf('\r\n', at);
                if (nl < 0) break;
                const n = parseInt(buf.subarray(at, nl).toString('latin1'), 16);
                if (!(n >= 0) || nl + 2 + n + 2 > buf.length) break;
                parts.push(buf.subarray(nl + 2, nl + 2 + n));
                at = nl + 2 + n + 2;
                if (n === 0) {
                    r.complete = true;
                    break;
                }
            }
            r.body = Buffer.concat(parts).toString('utf8');
            if (!r.complete) break;
        } else if (r.status === 204 || r.status === 304 || (r.status >= 100 && r.status < 200)) {
            r.complete = true;
        } else {
            r.body = buf.subarray(at).toString('utf8');
            r.complete = !!closed;
            at = buf.length;
        }
    }
    return out;
}

// Bytes to the server over a TCP connection of its own. parts: strings or Buffers written in
// turn, a number waits that many ms. Resolves when the server closes the connection, when
// opts.until(responses) is true, or after opts.ms: { responses, data, closed (by the server),
// error, ms }.
function raw(srv, parts, opts = {}) {
    return new Promise((resolve) => {
        const t0 = performance.now();
        const s = net.connect(srv.port, '127.0.0.1');
        const chunks = [];
        let closed = false;
        let error;
        let done = false;
        const finish = () => {
            if (done) return;
            done = true;
            clearTimeout(timer);
            s.destroy();
            const data = Buffer.concat(chunks);
            resolve({ data, responses: parseResponses(data, closed), closed, error, ms: performance.now() - t0 });
        };
        const timer = setTimeout(finish, opts.ms ?? 3000 * SLOW);
        s.on('data', (d) => {
            chunks.push(d);
            if (opts.until && opts.until(parseResponses(Buffer.concat(chunks), false))) finish();
        });
        s.on('end', () => {
            closed = true;
            finish();
        });
        s.on('close', () => {
            closed = true;
            finish();
        });
        s.on('error', (e) => {
            error = e.code || e.message;
        });
        s.on('connect', async () => {
            for (const p of [].concat(parts)) {
                if (done || s.destroyed) break;
                if (typeof p === 'number') await sleep(p);
                else s.write(p);
            }
        });
    });
}

// A request's bytes: the request line, the headers (Host first unless given), the body.
function rawRequest(srv, { method = 'POST', target, version = '1.1', headers = {}, body = '', host = true } = {}) {
    const lines = [`${method} ${target ?? srv.path} HTTP/${version}`];
    if (host && !Object.keys(headers).some((k) => k.toLowerCase() === 'host')) lines.push(`Host: ${srv.host}`);
    for (const [k, v] of Object.entries(headers)) for (const x of [].concat(v)) lines.push(`${k}: ${x}`);
    if (body && !Object.keys(headers).some((k) => /^(content-length|transfer-encoding)$/i.test(k))) lines.push(`Content-Length: ${Buffer.byteLength(body)}`);
    return Buffer.concat([Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1'), Buffer.isBuffer(body) ? body : Buffer.from(body)]);
}

// A connection that sends nothing; resolves once connected (or failed). release() closes it.
function holder(srv) {
    return new Promise((resolve) => {
        const s = net.connect(srv.port, '127.0.0.1');
        s.release = () => s.destroy();
        s.on('connect', () => resolve(s));
        s.on('error', () => resolve(s));
    });
}

// --- The servers. ---------------------------------------------------------------------------

class Server {
    // spec(ws): the INI as objects; auth: headers every request needs.
    constructor(name, spec, auth = {}) {
        this.name = name;
        this.ws = workspace('http', `hostile-${name}`);
        this.ini = writeIni(this.ws, spec(this.ws));
        this.auth = auth;
        this.restarts = 0;
    }

    async start() {
        this.proc = new Proc([BIN, '--listen', '127.0.0.1:0', this.ini], { cwd: ROOT, env: ENV });
        const re = /listening on http:\/\/127\.0\.0\.1:(\d+)(\/\S*)/;
        await this.proc.waitFor(() => re.test(this.proc.stderr) || this.proc.exited, 15000 * SLOW);
        const m = re.exec(this.proc.stderr);
        if (!m) {
            this.proc.kill('SIGKILL');
            throw new Error(`${this.name}: mcph did not say where it listens (${describeExit(this.proc.exitInfo)}): ${short(this.proc.stderr.trim().split('\n').slice(-3).join(' | '), 300)}`);
        }
        this.port = Number(m[1]);
        this.path = m[2];
        this.host = `127.0.0.1:${this.port}`;
        this.pid = this.proc.pid;
        return this;
    }

    get alive() {
        return !!this.proc && !this.proc.exited;
    }

    fds() {
        try {
            return fs.readdirSync(`/proc/${this.pid}/fd`).length;
        } catch {
            return NaN;
        }
    }

    status(field) {
        try {
            const m = new RegExp(`${field}:\\s+(\\d+)`).exec(fs.readFileSync(`/proc/${this.pid}/status`, 'utf8'));
            return m ? Number(m[1]) : NaN;
        } catch {
            return NaN;
        }
    }

    rssKiB() {
        return this.status('VmRSS');
    }

    // Wait until the fd count is at most `to` (bounded); returns the last count.
    async fdsSettle(to, ms = 3000 * SLOW) {
        await waitFor(() => this.fds() <= to, ms, 100);
        return this.fds();
    }

    // What is wrong with its output so far: anything on stdout, a sanitizer report.
    problems() {
        const out = [];
        const lines = this.proc.events.length;
        if (lines) out.push(`${this.name}: ${lines} lines on stdout (HTTP mode writes none): ${short(this.proc.events[0].raw, 120)}`);
        const m = SANITIZER_REPORT.exec(this.proc.stderr) || /WARNING: ThreadSanitizer/.exec(this.proc.stderr);
        if (m) {
            // From the start of the report (TSan's begins with a WARNING line).
            const head = this.proc.stderr.search(/(WARNING|ERROR): \w*Sanitizer|runtime error:/);
            const at = head >= 0 && head <= m.index ? head : m.index;
            out.push(`${this.name}: sanitizer report: ${this.proc.stderr.slice(Math.max(0, at - 200), at + 1500).replace(/\n/g, ' | ')}`);
        }
        return out;
    }

    async stop() {
        const t0 = performance.now();
        this.proc.kill('SIGTERM');
        const r = await this.proc.wait(LIMIT_SHUTDOWN_GRACE_MS + 5000 * SLOW);
        return { ...r, ms: performance.now() - t0 };
    }
}

const example = (extra = {}) => ({ path: path.join(PLUGINS, 'example.so'), ...extra });
const SERVERS = {
    main: () => new Server('main', () => ({
        server: {
            name: 'mcph-http-hostile', plugin_dir: TEST_PLUGINS, workers: 8,
            http_timeout_s: TIMEOUT_S, session_idle_s: IDLE_S, max_sessions: MAX_SESSIONS, max_connections: 32,
            allowed_origins: 'https://app.example.org',
        },
        'plugin.example': example(),
        'plugin.slow': example({ prefix: 'slow', tools: 'count', resources: '!*', prompts: '!*', max_concurrent: 1 }),
        'plugin.hostile': { path: 'hostile.so', tools: 'block' },
        // test_custom_headers: its region argument is mirrored in Mcp-Param-Region.
        'plugin.conf': { path: CONFORMANCE, tools: 'test_custom_headers', resources: '!*', prompts: '!*' },
    })),
    auth: () => new Server('auth', (ws) => {
        const file = path.join(ws, 'tokens');
        fs.writeFileSync(file, `# bearer tokens of the hostile HTTP suite\n${TOKENS[0]}\n\n  ${TOKENS[1]}  \n${TOKENS[2]}\n`);
        fs.chmodSync(file, 0o600);
        return {
            server: { name: 'mcph-http-hostile-auth', plugin_dir: TEST_PLUGINS, auth_token_file: file, http_timeout_s: 10 },
            'plugin.example': example(),
        };
    }, { Authorization: `Bearer ${TOKENS[0]}` }),
    // max_connections = 16: 8 long-lived streams at most, 2 a client (a bearer token); secret
    // files others may read (the token file) and write (the state key): warned about.
    streams: () => new Server('streams', (ws) => {
        const tokens = path.join(ws, 'tokens');
        const key = path.join(ws, 'state-key');
        fs.writeFileSync(tokens, `${STREAM_TOKENS.join('\n')}\n`);
        fs.chmodSync(tokens, 0o640);
        fs.writeFileSync(key, `${'k'.repeat(40)}\n`);
        fs.chmodSync(key, 0o666);
        return {
            server: {
                name: 'mcph-http-hostile-streams', plugin_dir: TEST_PLUGINS, max_connections: STREAM_CONNECTIONS,
                auth_token_file: tokens, state_key_file: key, http_timeout_s: 10,
            },
            'plugin.example': example(),
        };
    }, { Authorization: `Bearer ${STREAM_TOKENS[0]}` }),
    roomy: () => new Server('roomy', () => ({
        server: { name: 'mcph-http-hostile-roomy', plugin_dir: TEST_PLUGINS, workers: 8, max_connections: ROOMY_CONNECTIONS, http_timeout_s: 30 },
        'plugin.example': example(),
    })),
};
const running = {};

// --- The background stream of good calls. ---------------------------------------------------

class Background {
    constructor(srv) {
        this.srv = srv;
        this.stopping = false;
        this.stats = { legacy: { ok: 0, failed: 0 }, modern: { ok: 0, failed: 0 }, maxMs: 0, errors: [] };
        this.tag = Math.random().toString(36).slice(2, 8);
    }

    async start() {
        this.agents = [new http.Agent({ keepAlive: true, maxSockets: 1 }), new http.Agent({ keepAlive: true, maxSockets: 1 })];
        this.legacy = new Legacy(this.srv, { agent: this.agents[0], prefix: `bg-${this.tag}` });
        await this.legacy.openOk();
        // A first call of each before the case starts: both connections are open by then.
        await this.one('legacy', 'first');
        await this.one('modern', 'first');
        this.loops = ['legacy', 'modern'].map((kind) => this.loop(kind));
    }

    async loop(kind) {
        for (let i = 0; i < BG_MAX && !this.stopping; i++) {
            await this.one(kind, i);
            await sleep(BG_PAUSE_MS);
        }
    }

    async one(kind, i) {
        const text = `${kind} ${i} ${this.tag} ✓`;
        let r;
        let id;
        if (kind === 'legacy') {
            id = this.legacy.nextId();
            r = await this.legacy.post(rpc(id, 'tools/call', echoParams(text)), { ms: BG_MS });
        } else {
            id = `bg-${this.tag}-m${i}`;
            r = await modern(this.srv, modernMsg(id, 'tools/call', echoParams(text)), {}, { agent: this.agents[1], ms: BG_MS });
        }
        this.stats.maxMs = Math.max(this.stats.maxMs, r.ms);
        const ok = r.status === 200 && r.json?.id === id && r.json?.result?.content?.[0]?.text === text;
        this.stats[kind][ok ? 'ok' : 'failed']++;
        if (!ok && this.stats.errors.length < 5) {
            this.stats.errors.push(`${kind} call ${i}: ${r.status ? `HTTP ${r.status}` : ''} ${r.error || ''} ${short(r.text, 120)}`.trim());
        }
    }

    // Stop the loops, make one last call of each kind, end the session.
    async stop() {
        this.stopping = true;
        if (this.loops) {
            await capped(Promise.all(this.loops), BG_MS + 2000);
            await this.one('legacy', 'last');
            await this.one('modern', 'last');
            const d = await this.legacy.close();
            if (d.status !== 200) this.stats.errors.push(`DELETE of the background session: ${d.status || d.error}`);
        }
        for (const a of this.agents || []) a.destroy();
        return this.stats;
    }
}

// --- Cases. ---------------------------------------------------------------------------------

class Case extends BaseCase {
    constructor(name) {
        super(name);
        this.tries = [];
        this.cleanups = [];
    }

    tried(what) {
        this.tries.push(what);
    }

    // A bound on VmRSS: only reported under a sanitizer (its allocator keeps freed memory).
    memory(ok, what) {
        if (SAN.any) {
            if (!ok) this.note(`not checked under a sanitizer: ${what}`);
            return true;
        }
        return this.check(ok, what);
    }

    // An HTTP answer against what it must be: { status (one or a list), code (JSON-RPC error
    // code, one or a list), id (the error's or result's id), headers: { name: RegExp },
    // noHeaders: [names] }.
    answer(what, r, want) {
        const statuses = [].concat(want.status);
        const got = r.status ? `HTTP ${r.status}` : r.error;
        const body = r.text ? ` ${short(r.text, 160)}` : '';
        let ok = this.check(statuses.includes(r.status), `${what}: ${got} (want ${statuses.join(' or ')})${body}`);
        if (want.code !== undefined) {
            const codes = [].concat(want.code);
            ok = this.check(codes.includes(r.json?.error?.code), `${what}: JSON-RPC ${r.json?.error ? `error ${r.json.error.code}` : 'no error'} (want ${codes.join(' or ')})${body}`) && ok;
        }
        if ('id' in want) ok = this.check(JSON.stringify(r.json?.id) === JSON.stringify(want.id), `${what}: id ${JSON.stringify(r.json?.id)} (want ${JSON.stringify(want.id)})`) && ok;
        for (const [h, re] of Object.entries(want.headers || {})) {
            ok = this.check(re.test(r.headers?.[h.toLowerCase()] ?? ''), `${what}: header ${h}: ${JSON.stringify(r.headers?.[h.toLowerCase()])} (want ${re})`) && ok;
        }
        for (const h of want.noHeaders || []) ok = this.check(r.headers?.[h.toLowerCase()] === undefined, `${what}: has a ${h} header`) && ok;
        this.tried(`${what} → ${r.status || r.error}${r.json?.error ? ` ${r.json.error.code}` : ''}`);
        return ok;
    }

    // A raw exchange refused: a 4xx/5xx status (one of `statuses` when given), or the
    // connection closed without a response; never a 2xx.
    refused(what, r, statuses) {
        const first = r.responses[0];
        const got = first ? `HTTP ${first.status}` : r.closed ? 'closed without a response' : `no response within ${Math.round(r.ms)} ms, still open`;
        const ok = first ? (statuses ? statuses.includes(first.status) : first.status >= 400) : r.closed;
        this.check(ok, `${what}: ${got} (want ${statuses ? statuses.join(' or ') : 'a 4xx/5xx'} or the connection closed)`);
        this.tried(`${what} → ${got}`);
        return ok;
    }
}

const cases = [];
const define = (name, server, fn) => cases.push({ name, server, fn });

// A 2026-07-28 echo, for a plain good request.
const goodEcho = (id, text = 'fine') => modernMsg(id, 'tools/call', echoParams(text));

// 1. Methods other than POST, GET and DELETE: 405 with Allow (and a JSON-RPC error body).
define('methods', 'main', async (t, srv) => {
    for (const method of ['PUT', 'PATCH', 'OPTIONS', 'HEAD', 'TRACE']) {
        const r = await send(srv, { method, headers: { ...BASE }, body: method === 'HEAD' || method === 'TRACE' ? undefined : '{}' });
        t.answer(method, r, { status: 405, headers: { Allow: /POST/ }, ...(method === 'HEAD' ? {} : { code: -32000, id: null }) });
    }
    const r = await raw(srv, rawRequest(srv, { method: 'FROB', headers: BASE, body: '{}' }), { until: (rs) => rs.length > 0 });
    t.check(r.responses[0]?.status === 405 && /POST/.test(r.responses[0]?.headers.allow || ''), `FROB: ${r.responses[0] ? `HTTP ${r.responses[0].status}, Allow ${r.responses[0].headers.allow}` : 'no response'} (want 405 with Allow)`);
    t.tried(`FROB (raw) → ${r.responses[0]?.status ?? 'none'}`);
    // GET and DELETE are allowed (a legacy session's), so without a session they are a bad
    // request, not a method the endpoint lacks (the 2025-11-25 transport's 400).
    t.answer('GET without Mcp-Session-Id', await send(srv, { method: 'GET', headers: { Accept: 'text/event-stream' } }), { status: 400, code: -32000, noHeaders: ['Allow'] });
    t.answer('DELETE without Mcp-Session-Id', await send(srv, { method: 'DELETE' }), { status: 400, code: -32000, noHeaders: ['Allow'] });
});

// 2. Paths other than the endpoint: 404, whatever the method.
define('paths', 'main', async (t, srv) => {
    for (const p of ['/', '/mcp/', '/MCP', '/mcp/x', '/mcpx', '//mcp', '/mcp/../mcp', `/${'a'.repeat(4000)}`]) {
        const msg = goodEcho('p1');
        t.answer(`POST ${short(p, 20)}`, await send(srv, { path: p, body: msg, headers: modernHeaders(msg) }), { status: 404 });
    }
    const where = await send(srv, { method: 'GET', path: '/nowhere', headers: { Accept: 'text/event-stream' } });
    t.answer('GET /nowhere', where, { status: 404 });
    t.check(where.json?.error?.message?.includes(`the MCP endpoint is ${srv.path}`), `a 404 does not say where the endpoint is: ${short(where.text, 160)}`);
    t.answer('DELETE /nowhere', await send(srv, { method: 'DELETE', path: '/nowhere' }), { status: 404 });
    const q = goodEcho('q1');
    t.answer('POST /mcp?x=1 (a query is not the path)', await send(srv, { path: `${srv.path}?x=1`, body: q, headers: modernHeaders(q) }), { status: 200, id: 'q1' });
});

// 3. Content-Type: application/json (any case, with parameters) or 415.
define('content type', 'main', async (t, srv) => {
    const msg = goodEcho('ct');
    const cases415 = { missing: null, 'text/plain': 'text/plain', 'application/jsonx': 'application/jsonx', 'application/x-www-form-urlencoded': 'application/x-www-form-urlencoded', 'multipart/form-data': 'multipart/form-data; boundary=x', 'application/json-seq': 'application/json-seq', 'text/json': 'text/json' };
    for (const [what, type] of Object.entries(cases415)) {
        t.answer(`Content-Type ${what}`, await modern(srv, msg, { 'Content-Type': type }), { status: 415, code: -32000, id: null });
    }
    for (const type of ['application/json; charset=utf-8', 'Application/JSON', 'application/json;charset=UTF-8']) {
        t.answer(`Content-Type ${type}`, await modern(srv, msg, { 'Content-Type': type }), { status: 200, id: 'ct' });
    }
});

// 4. Accept: a POST must accept both types (406), a GET the event stream (406).
define('accept', 'main', async (t, srv) => {
    const msg = goodEcho('acc');
    for (const a of ['application/json', 'text/event-stream', 'text/html', 'application/xml, text/plain']) {
        t.answer(`POST Accept: ${a}`, await modern(srv, msg, { Accept: a }), { status: 406, code: -32000, id: null });
    }
    for (const a of ['*/*', 'application/*, text/*', 'text/event-stream;q=0.5, application/json;q=0.9', 'APPLICATION/JSON, TEXT/EVENT-STREAM']) {
        t.answer(`POST Accept: ${a}`, await modern(srv, msg, { Accept: a }), { status: 200, id: 'acc' });
    }
    const r = await modern(srv, msg, { Accept: null });
    t.tried(`POST without Accept → ${r.status} (served: no Accept means any type)`);
    const s = new Legacy(srv, { prefix: 'acc' });
    await s.openOk();
    try {
        t.answer('GET Accept: application/json', await s.stream({ headers: { Accept: 'application/json' } }), { status: 406, code: -32000 });
        t.answer('GET Accept: text/html', await s.stream({ headers: { Accept: 'text/html' } }), { status: 406, code: -32000 });
    } finally {
        await s.close();
    }
});

// 5. Bodies past 16 MiB: 413 at once when Content-Length says so, 413 after reading when the
// body comes chunked; exactly 16 MiB is taken.
define('body size', 'main', async (t, srv) => {
    const msg = goodEcho('big');
    const hdr = { ...modernHeaders(msg) };
    // Content-Length past the limit, no body sent: the answer comes without waiting for it.
    let r = await raw(srv, rawRequest(srv, { headers: { ...hdr, 'Content-Length': LIMIT_BODY + 1 } }), { until: (rs) => rs.length > 0, ms: 3000 * SLOW });
    t.check(r.responses[0]?.status === 413, `Content-Length ${LIMIT_BODY + 1} and no body: ${r.responses[0] ? `HTTP ${r.responses[0].status}` : r.closed ? 'closed' : 'no answer'} (want 413 at once)`);
    t.check(r.responses[0]?.status !== 413 || JSON.parse(r.responses[0].body || '{}').error?.code === -32000, `413 body: ${short(r.responses[0]?.body, 120)}`);
    t.tried(`Content-Length 16 MiB + 1, no body → ${r.responses[0]?.status ?? 'none'} after ${Math.round(r.ms)} ms`);
    r = await raw(srv, rawRequest(srv, { headers: { ...hdr, 'Content-Length': LIMIT_BODY * 4, Expect: '100-continue' } }), { until: (rs) => rs.some((x) => x.status !== 100), ms: 3000 * SLOW });
    t.check(r.responses.some((x) => x.status === 413) && !r.responses.some((x) => x.status === 100), `Expect: 100-continue with 64 MiB: ${r.responses.map((x) => x.status).join(',') || 'nothing'} (want 413, no 100)`);
    t.tried(`Expect: 100-continue, Content-Length 64 MiB → ${r.responses.map((x) => x.status).join(',') || 'nothing'}`);
    r = await raw(srv, rawRequest(srv, { headers: { ...hdr, 'Content-Length': '99999999999999999999999' } }), { until: (rs) => rs.length > 0 });
    t.refused('Content-Length 10^23', r, [400, 413]);
    // Exactly the limit: a good message padded with spaces.
    const text = JSON.stringify(msg);
    const exact = text + ' '.repeat(LIMIT_BODY - Buffer.byteLength(text));
    t.answer('a body of exactly 16 MiB', await send(srv, { body: exact, headers: hdr, ms: 30000 * SLOW }), { status: 200, id: 'big' });
    const over = text + ' '.repeat(LIMIT_BODY + 1 - Buffer.byteLength(text));
    // The 413 comes before the body is read, and the connection closes: a reset may take the
    // answer with it while the body is still being sent.
    r = await raw(srv, rawRequest(srv, { headers: hdr, body: over }), { until: (rs) => rs.length > 0 && rs[0].complete, ms: 30000 * SLOW });
    t.refused('a body of 16 MiB + 1', r, [413]);
    // Chunked, no length: read up to the limit, then 413.
    const chunk = Buffer.alloc(MiB, 0x20);
    const parts = [rawRequest(srv, { headers: { ...hdr, 'Transfer-Encoding': 'chunked' } }), Buffer.from(`${text.length.toString(16)}\r\n${text}\r\n`)];
    for (let i = 0; i < 17; i++) parts.push(Buffer.from(`${chunk.length.toString(16)}\r\n`), chunk, Buffer.from('\r\n'));
    parts.push(Buffer.from('0\r\n\r\n'));
    r = await raw(srv, parts, { until: (rs) => rs.length > 0, ms: 30000 * SLOW });
    t.check(r.responses[0]?.status === 413, `chunked 17 MiB: ${r.responses[0] ? `HTTP ${r.responses[0].status} ${short(r.responses[0].body, 100)}` : r.closed ? 'closed without a response' : 'no answer'} (want 413)`);
    t.tried(`chunked 17 MiB without a length → ${r.responses[0]?.status ?? 'none'}`);
    // A small chunked body is fine.
    r = await raw(srv, [rawRequest(srv, { headers: { ...hdr, 'Transfer-Encoding': 'chunked' } }), `5\r\n${text.slice(0, 5)}\r\n${(text.length - 5).toString(16)}\r\n${text.slice(5)}\r\n0\r\n\r\n`], { until: (rs) => rs.length > 0 && rs[0].complete });
    t.check(r.responses[0]?.status === 200 && JSON.parse(r.responses[0].body || '{}').id === 'big', `a small chunked body: ${r.responses[0] ? `HTTP ${r.responses[0].status}` : 'no answer'} (want 200)`);
    t.tried(`a small chunked body → ${r.responses[0]?.status ?? 'none'}`);
});

// 6. Bodies that are not one good JSON-RPC message: 400 with a JSON-RPC error and id null.
define('bad bodies', 'main', async (t, srv) => {
    const s = new Legacy(srv, { prefix: 'bad' });
    await s.openOk();
    const s03 = new Legacy(srv, { prefix: 'b03', rev: '2025-03-26' });
    try {
        const echoBytes = (bytes) => Buffer.concat([Buffer.from('{"jsonrpc":"2.0","id":"u","method":"tools/call","params":{"name":"echo","arguments":{"text":"a'), bytes, Buffer.from('b"}}}')]);
        const bodies = {
            'truncated JSON': ['{"jsonrpc":"2.0","id":1,"method":', -32700],
            'an empty body': ['', -32700],
            'only spaces': ['   \r\n ', -32700],
            'byte 0xFF': [echoBytes(Buffer.from([0xff])), -32700],
            'overlong 0xC0 0xAE': [echoBytes(Buffer.from([0xc0, 0xae])), -32700],
            'surrogate 0xED 0xA0 0x80': [echoBytes(Buffer.from([0xed, 0xa0, 0x80])), -32700],
            'a NUL byte': [echoBytes(Buffer.from([0])), -32700],
            'nested [ x 100000': ['['.repeat(100000), [-32700, -32600]],
            'nested {"a": x 100000': ['{"a":'.repeat(100000), [-32700, -32600]],
            'nesting 5000 in a request': [`{"jsonrpc":"2.0","id":9,"method":"tools/list","params":{"x":${'['.repeat(5000)}${']'.repeat(5000)}}}`, [-32700, -32600]],
            'null': ['null', -32600],
            '42': ['42', -32600],
            '"text"': ['"text"', -32600],
            '{}': ['{}', -32600],
            'an empty batch []': ['[]', -32600],
        };
        for (const [what, [body, code]] of Object.entries(bodies)) {
            t.answer(`in a session: ${what}`, await s.post(body), { status: 400, code, id: null });
        }
        // Not a request, though it has an id: the answer may carry the id, but it is an error
        // of the HTTP exchange too.
        for (const [what, body] of [
            ['jsonrpc 1.0', '{"jsonrpc":"1.0","id":1,"method":"ping"}'],
            ['a method that is a number', '{"jsonrpc":"2.0","id":2,"method":42}'],
            ['no jsonrpc member', '{"id":3,"method":"ping"}'],
        ]) {
            t.answer(`in a session: ${what}`, await s.post(body), { status: 400, code: -32600 });
        }
        // Sessionless, with 2026-07-28 headers.
        const hdr = modernHeaders(modernMsg(1, 'tools/list'));
        for (const what of ['truncated JSON', 'an empty body', 'byte 0xFF', 'nested [ x 100000']) {
            const [body, code] = bodies[what];
            t.answer(`2026-07-28: ${what}`, await send(srv, { body, headers: hdr }), { status: 400, code, id: null });
        }
        // A batch in a 2026-07-28 POST: one message per POST, so refused, and not run.
        const batch = [goodEcho('b1', 'one'), goodEcho('b2', 'two')];
        const r = await send(srv, { body: batch, headers: modernHeaders(batch[0]) });
        t.answer('2026-07-28 batch of two calls', r, { status: 400, code: [-32600, -32020] });
        t.check(!Array.isArray(r.json) && !/"one"|"two"/.test(r.text || ''), `the batch was run: ${short(r.text, 160)}`);
        // A 2025-03-26 session may send a batch: both answered, in one array.
        await s03.openOk();
        const br = await s03.post([rpc('e1', 'tools/call', echoParams('one')), rpc('e2', 'tools/call', echoParams('two'))]);
        const ids = Array.isArray(br.json) ? br.json.map((m) => m.id).sort() : [];
        t.check(br.status === 200 && ids.join() === 'e1,e2', `a 2025-03-26 batch of two calls: ${br.status || br.error} ${short(br.text, 160)} (want 200 and both answers)`);
        t.tried(`2025-03-26 session batch of two echoes → ${br.status} ${ids.join(',')}`);
        // Notifications and responses alone: 202, no body.
        let n = await s.post(note('notifications/roots/list_changed'));
        t.check(n.status === 202 && !n.text, `a notification: ${n.status} ${short(n.text, 80)} (want 202, empty)`);
        n = await s.post({ jsonrpc: '2.0', id: 'nobody-asked', result: {} });
        t.check(n.status === 202 && !n.text, `a response nobody asked for: ${n.status} ${short(n.text, 80)} (want 202, empty)`);
        t.tried('a notification → 202; an unsolicited response → 202');
        t.answer('the session still works', await s.post(rpc('fine', 'tools/call', echoParams('fine'))), { status: 200, id: 'fine' });
    } finally {
        await s.close();
        if (s03.id) await s03.close();
    }
});

// 7. Legacy sessions misused.
define('legacy sessions', 'main', async (t, srv) => {
    const call = rpc('l1', 'tools/list');
    t.answer('POST without Mcp-Session-Id', await send(srv, { body: call, headers: { ...BASE, 'MCP-Protocol-Version': LEGACY } }), { status: 400, code: -32000 });
    t.answer('POST, unknown session', await send(srv, { body: call, headers: { ...BASE, 'Mcp-Session-Id': '0123456789abcdef0123456789abcdef' } }), { status: 404, code: -32001 });
    t.answer('POST, a 8 KiB session id', await send(srv, { body: call, headers: { ...BASE, 'Mcp-Session-Id': 'f'.repeat(8192) } }), { status: [404, 431] });
    let r = await raw(srv, rawRequest(srv, { headers: { ...BASE, 'Mcp-Session-Id': Buffer.from([0xff, 0xfe, 0x41]).toString('latin1') }, body: JSON.stringify(call) }), { until: (rs) => rs.length > 0 && rs[0].complete });
    t.refused('POST, a session id with bytes 0xFF 0xFE', r, [400, 404]);
    const s = new Legacy(srv, { prefix: 'ls' });
    await s.openOk();
    const other = new Legacy(srv, { prefix: 'lo' });
    try {
        t.answer('POST with MCP-Protocol-Version 2099-01-01', await s.post(rpc('v', 'tools/list'), { headers: { 'MCP-Protocol-Version': '2099-01-01' } }), { status: 400, code: -32000 });
        t.answer('initialize again on the session', await s.post(rpc('again', 'initialize', { protocolVersion: LEGACY, capabilities: {}, clientInfo: { name: 'x', version: '1' } })), { status: 400, code: -32600, id: 'again' });
        // One GET stream per session.
        let first;
        const firstDone = s.stream({ ms: 30000 * SLOW, onResponse: (res, req) => { first = { res, req }; } });
        await waitFor(() => first, 3000 * SLOW);
        t.check(first?.res.statusCode === 200 && /text\/event-stream/.test(first?.res.headers['content-type'] || ''), `first GET: ${first ? `HTTP ${first.res.statusCode} ${first.res.headers['content-type']}` : 'no answer'} (want 200, text/event-stream)`);
        t.tried(`first GET → ${first?.res.statusCode ?? 'none'}`);
        t.answer('second GET on the session', await s.stream(), { status: 409, code: -32000 });
        // Another session's id does not reach this one.
        await other.openOk();
        t.answer('GET on another session while this one streams', await other.stream({ ms: 1000 * SLOW, onResponse: (res, req) => req.destroy() }), { status: [200] });
        // DELETE ends the session: its stream ends, and the id is gone.
        const d = await s.close();
        t.answer('DELETE', d, { status: 200 });
        const ended = await capped(firstDone, 3000 * SLOW);
        t.check(ended !== CAPPED, 'the session\'s GET stream stayed open after DELETE');
        t.tried(`the GET stream after DELETE → ${ended === CAPPED ? 'still open' : 'ended'}`);
        if (ended === CAPPED) first?.req.destroy();
        t.answer('POST after DELETE', await s.post(rpc('after', 'tools/list')), { status: 404, code: -32001 });
        t.answer('GET after DELETE', await s.stream(), { status: 404, code: -32001 });
        t.answer('DELETE after DELETE', await s.close(), { status: 404, code: -32001 });
        t.answer('the other session still works', await other.post(rpc('o1', 'tools/call', echoParams('o'))), { status: 200, id: 'o1' });
    } finally {
        if (other.id) await other.close();
    }
    r = await raw(srv, rawRequest(srv, { method: 'DELETE', headers: { 'Mcp-Session-Id': s.id } }), { until: (rs) => rs.length > 0 });
    t.refused('DELETE after DELETE (raw)', r, [404]);
});

// 8. 2026-07-28 requests whose headers are missing or do not say what the body says: 400
// -32020 with the request's id; versions and methods mcph does not have.
define('2026-07-28 headers', 'main', async (t, srv) => {
    const list = (id) => modernMsg(id, 'tools/list');
    const echo = (id) => goodEcho(id);
    const ask = (what, msg, over, want) => modern(srv, msg, over).then((r) => t.answer(what, r, want));
    const mismatch = (id) => ({ status: 400, code: -32020, id });
    await ask('no MCP-Protocol-Version', list(1), { 'MCP-Protocol-Version': null }, mismatch(1));
    await ask('no Mcp-Method', list('m2'), { 'Mcp-Method': null }, mismatch('m2'));
    await ask('no Mcp-Name (tools/call)', echo(3), { 'Mcp-Name': null }, mismatch(3));
    await ask('no Mcp-Name (prompts/get)', modernMsg(4, 'prompts/get', { name: 'review', arguments: { code: 'x' } }), { 'Mcp-Name': null }, mismatch(4));
    await ask('no Mcp-Name (resources/read)', modernMsg(5, 'resources/read', { uri: 'example://readme' }), { 'Mcp-Name': null }, mismatch(5));
    await ask('Mcp-Method prompts/list for tools/list', list(6), { 'Mcp-Method': 'prompts/list' }, mismatch(6));
    await ask('Mcp-Name add for echo', echo(7), { 'Mcp-Name': 'add' }, mismatch(7));
    await ask('Mcp-Method TOOLS/LIST (values are case-sensitive)', list(8), { 'Mcp-Method': 'TOOLS/LIST' }, mismatch(8));
    await ask('Mcp-Name ECHO', echo(9), { 'Mcp-Name': 'ECHO' }, mismatch(9));
    await ask('MCP-Protocol-Version 2025-11-25, body 2026-07-28', list(10), { 'MCP-Protocol-Version': LEGACY }, mismatch(10));
    await ask('MCP-Protocol-Version 2026-07-28, body 2099-01-01', modernMsg(11, 'tools/list', {}, { [KEY_VERSION]: '2099-01-01' }), { 'MCP-Protocol-Version': MODERN }, mismatch(11));
    await ask('MCP-Protocol-Version " 2026-07-28x"', list(12), { 'MCP-Protocol-Version': '2026-07-28x' }, mismatch(12));
    // Header names are case-insensitive.
    await ask('header names in lower case', list(13), { 'MCP-Protocol-Version': null, 'Mcp-Method': null, 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/list' }, { status: 200, id: 13 });
    await ask('header names in upper case', echo(14), { 'Mcp-Method': null, 'Mcp-Name': null, 'MCP-METHOD': 'tools/call', 'MCP-NAME': 'echo' }, { status: 200, id: 14 });
    // Base64-wrapped values.
    await ask('Mcp-Name =?base64?ZWNobw==?= (echo)', echo(15), { 'Mcp-Name': `=?base64?${b64('echo')}?=` }, { status: 200, id: 15 });
    const uri = 'example://greeting/Wörld ✓';
    await ask('Mcp-Name base64 of a non-ASCII URI', modernMsg(16, 'resources/read', { uri }), { 'Mcp-Name': `=?base64?${b64(uri)}?=` }, { status: 200, id: 16 });
    await ask('Mcp-Name base64, bad padding =?base64?ZWNobw=?=', echo(17), { 'Mcp-Name': '=?base64?ZWNobw=?=' }, mismatch(17));
    await ask('Mcp-Name base64, no padding =?base64?ZWNobw?=', echo(18), { 'Mcp-Name': '=?base64?ZWNobw?=' }, mismatch(18));
    await ask('Mcp-Name base64, bad characters =?base64?ZW*obw==?=', echo(19), { 'Mcp-Name': '=?base64?ZW*obw==?=' }, mismatch(19));
    await ask('Mcp-Name base64 of "echo\\0x"', echo(20), { 'Mcp-Name': `=?base64?${b64('echo\0x')}?=` }, mismatch(20));
    await ask('Mcp-Name =?BASE64?...?= (the sentinel is lower case: a literal)', echo(21), { 'Mcp-Name': `=?BASE64?${b64('echo')}?=` }, mismatch(21));
    await ask('Mcp-Name =?base64??= (empty)', echo(22), { 'Mcp-Name': '=?base64??=' }, mismatch(22));
    await ask('Mcp-Name "  echo  " (OWS is not part of the value)', echo(23), { 'Mcp-Name': '  echo  ' }, { status: 200, id: 23 });
    // Versions and methods.
    const unsupported = modernMsg('v', 'tools/list', {}, { [KEY_VERSION]: '2099-01-01' });
    const u = await modern(srv, unsupported, { 'MCP-Protocol-Version': '2099-01-01' });
    if (t.answer('version 2099-01-01 (header and body)', u, { status: 400, code: -32022, id: 'v' })) {
        const d = u.json.error.data || {};
        t.check(d.requested === '2099-01-01' && Array.isArray(d.supported) && d.supported.includes(MODERN), `-32022 data: ${short(d, 160)} (want requested and supported)`);
    }
    await ask('unknown method foo/bar', modernMsg('f', 'foo/bar'), {}, { status: 404, code: -32601, id: 'f' });
    await ask('ping (not in 2026-07-28)', modernMsg(30, 'ping'), {}, { status: 404, code: -32601, id: 30 });
    await ask('initialize with 2026-07-28 _meta', modernMsg(31, 'initialize', { protocolVersion: LEGACY, capabilities: {}, clientInfo: { name: 'x', version: '1' } }), {}, { status: 404, code: -32601, id: 31, noHeaders: ['Mcp-Session-Id'] });
    await ask('_meta without clientCapabilities', rpc(32, 'tools/list', { _meta: { [KEY_VERSION]: MODERN } }), {}, { status: 400, code: -32602, id: 32 });
    await ask('header 2026-07-28, body without _meta', rpc(33, 'tools/list'), { 'MCP-Protocol-Version': MODERN, 'Mcp-Method': 'tools/list' }, { status: 400, code: -32602, id: 33 });
    // A notification needs none of the headers.
    const n = await send(srv, { body: note('notifications/cancelled', { requestId: 'none', _meta: META }), headers: { ...BASE } });
    t.answer('a 2026-07-28 notification without the headers', n, { status: 202 });
    await ask('a good request after all that', echo(99), {}, { status: 200, id: 99 });
});

// 9. Host and Origin: only loopback names (and what the INI allows).
define('host and origin', 'main', async (t, srv) => {
    const msg = goodEcho('h');
    const port = srv.port;
    const forbidden = { status: 403, code: -32000, id: null };
    const ok = { status: 200, id: 'h' };
    for (const [host, want] of [
        ['evil.example.com', forbidden], [`evil.example.com:${port}`, forbidden], ['127.0.0.1.evil.example.com', forbidden],
        ['localhost.evil.example.com', forbidden], ['127.0.0.2', forbidden], ['[::2]', forbidden],
        [`localhost:${port}`, ok], ['LOCALHOST', ok], [`[::1]:${port}`, ok], [`127.0.0.1:${port}`, ok], ['127.0.0.1', ok],
    ]) {
        t.answer(`Host: ${host || '(empty)'}`, await modern(srv, msg, { Host: host }), want);
    }
    t.answer('GET with Host: evil.example.com', await send(srv, { method: 'GET', headers: { Host: 'evil.example.com', Accept: 'text/event-stream' } }), forbidden);
    t.answer('DELETE with Host: evil.example.com', await send(srv, { method: 'DELETE', headers: { Host: 'evil.example.com', 'Mcp-Session-Id': 'x' } }), forbidden);
    for (const [origin, want] of [
        ['http://evil.example.com', forbidden], [`http://evil.example.com:${port}`, forbidden], ['null', forbidden],
        ['http://localhost.evil.example.com', forbidden], ['http://127.0.0.1.evil.example.com', forbidden], ['file://', forbidden],
        ['ftp://localhost', forbidden], ['https://app.example.org.evil.example.com', forbidden],
        ['http://localhost:3000', ok], [`http://127.0.0.1:${port}`, ok], ['https://localhost', ok], ['http://[::1]:8080', ok],
        ['https://app.example.org', ok],
    ]) {
        t.answer(`Origin: ${origin}`, await modern(srv, msg, { Origin: origin }), want);
    }
    // No Host at all: HTTP/1.0 and HTTP/1.1.
    for (const version of ['1.0', '1.1']) {
        const r = await raw(srv, rawRequest(srv, { version, host: false, headers: modernHeaders(msg), body: JSON.stringify(msg) }), { until: (rs) => rs.length > 0 && rs[0].complete });
        t.refused(`HTTP/${version} without Host`, r, [400, 403]);
    }
    let r = await raw(srv, rawRequest(srv, { headers: { Host: '', ...modernHeaders(msg) }, body: JSON.stringify(msg) }), { until: (rs) => rs.length > 0 && rs[0].complete });
    t.refused('an empty Host', r, [400, 403]);
    r = await raw(srv, rawRequest(srv, { headers: { Host: [srv.host, 'evil.example.com'], ...modernHeaders(msg) }, body: JSON.stringify(msg) }), { until: (rs) => rs.length > 0 && rs[0].complete });
    t.refused('two Host lines (127.0.0.1, evil.example.com)', r, [400, 403]);
    r = await raw(srv, rawRequest(srv, { headers: { Host: `  ${srv.host} `, ...modernHeaders(msg) }, body: JSON.stringify(msg) }), { until: (rs) => rs.length > 0 && rs[0].complete });
    t.check(r.responses[0]?.status === 200, `Host with OWS around it: ${r.responses[0] ? `HTTP ${r.responses[0].status} ${short(r.responses[0].body, 100)}` : 'no answer'} (want 200: OWS is not part of the value)`);
    t.tried(`Host with OWS around it → ${r.responses[0]?.status ?? 'none'}`);
});

// 10. Bearer tokens.
define('auth', 'auth', async (t, srv) => {
    const msg = goodEcho('a');
    const www = (r) => r.headers?.['www-authenticate'] || '';
    let r = await modern(srv, msg, { Authorization: null });
    t.answer('no token', r, { status: 401, code: -32000, id: null, headers: { 'WWW-Authenticate': /^Bearer realm="mcph"/ } });
    t.check(!/invalid_token/.test(www(r)), `no token: WWW-Authenticate says invalid_token: ${www(r)}`);
    const invalid = { status: 401, code: -32000, headers: { 'WWW-Authenticate': /^Bearer .*error="invalid_token"/ } };
    for (const [what, value] of [
        ['a wrong token', 'Bearer wrong'], ['a prefix of the right one', `Bearer ${TOKENS[0].slice(0, -1)}`],
        ['the right one and one more character', `Bearer ${TOKENS[0]}x`], ['an empty token', 'Bearer '],
        ['Basic credentials', `Basic ${b64(`u:${TOKENS[0]}`)}`], ['the token without a scheme', TOKENS[0]],
        ['the two tokens at once', `Bearer ${TOKENS[0]} ${TOKENS[1]}`], ['a 4 KiB token', `Bearer ${'t'.repeat(4096)}`],
        ['the comment line as a token', 'Bearer # bearer tokens of the hostile HTTP suite'],
    ]) {
        t.answer(what, await modern(srv, msg, { Authorization: value }), invalid);
    }
    t.answer('the right token', await modern(srv, msg), { status: 200, id: 'a' });
    t.answer('the second token (trimmed in the file)', await modern(srv, msg, { Authorization: `Bearer ${TOKENS[1]}` }), { status: 200, id: 'a' });
    t.answer('scheme in lower case: bearer', await modern(srv, msg, { Authorization: `bearer ${TOKENS[0]}` }), { status: 200, id: 'a' });
    t.answer('a right token of 3 KiB', await modern(srv, msg, { Authorization: `Bearer ${TOKENS[2]}` }), { status: 200, id: 'a' });
    t.answer('that token cut by one character', await modern(srv, msg, { Authorization: `Bearer ${TOKENS[2].slice(0, -1)}` }), { status: 401 });
    t.answer('legacy initialize without a token', await send(srv, { body: rpc(1, 'initialize', { protocolVersion: LEGACY, capabilities: {}, clientInfo: { name: 'x', version: '1' } }), headers: BASE }), { status: 401, noHeaders: ['Mcp-Session-Id'] });
    const s = new Legacy(srv, { prefix: 'au' });
    await s.openOk();
    try {
        t.answer('a session POST with a wrong token', await s.post(rpc('x', 'tools/list'), { headers: { Authorization: 'Bearer wrong' } }), invalid);
        t.answer('GET with no token', await send(srv, { method: 'GET', headers: { Accept: 'text/event-stream', 'Mcp-Session-Id': s.id } }), { status: 401 });
        t.answer('DELETE with a wrong token', await send(srv, { method: 'DELETE', headers: { 'Mcp-Session-Id': s.id, Authorization: 'Bearer wrong' } }), { status: 401 });
        t.answer('the session lives on', await s.post(rpc('y', 'tools/call', echoParams('y'))), { status: 200, id: 'y' });
    } finally {
        await s.close();
    }
});

// 11. Slowloris: headers or a body a byte a second, and a connection that sends nothing, are
// closed after http_timeout_s; others are served meanwhile.
define('slowloris', 'main', async (t, srv) => {
    // The server's clock is not slowed by a sanitizer: only its reaction time is.
    const limit = (TIMEOUT_S + 2 + SLOW) * 1000;
    const give = limit + 1000;
    const trickle = (head, text) => new Promise((resolve) => {
        const s = net.connect(srv.port, '127.0.0.1');
        const t0 = performance.now();
        let sent = 0;
        let iv = null;
        const end = (closedMs) => {
            clearInterval(iv);
            clearTimeout(stop);
            s.destroy();
            resolve({ closedMs, sent });
        };
        const stop = setTimeout(() => end(null), give);
        s.on('error', () => {});
        s.on('close', () => end(performance.now() - t0));
        s.on('end', () => end(performance.now() - t0));
        s.on('data', () => {});
        s.on('connect', () => {
            if (head) s.write(head);
            if (text) {
                iv = setInterval(() => {
                    if (sent < text.length) s.write(text[sent++]);
                }, 1000);
            }
        });
    });
    const msg = goodEcho('slow');
    const body = JSON.stringify(msg).padEnd(400, ' ');
    const headerTrickle = trickle('', `POST ${srv.path} HTTP/1.1\r\nHost: ${srv.host}\r\nX-Slow: ${'a'.repeat(200)}`);
    const bodyTrickle = trickle(rawRequest(srv, { headers: { ...modernHeaders(msg), 'Content-Length': body.length } }), body);
    const idle = trickle('', '');
    const partial = trickle(`POST ${srv.path} HTTP/1.1\r\nHost: ${srv.host}\r\n`, '');
    // Meanwhile new clients are served at once.
    const lat = [];
    let over = false;
    const served = (async () => {
        const t0 = performance.now();
        for (let i = 0; !over && performance.now() - t0 < limit && i < 50; i++) {
            const r = await modern(srv, goodEcho(`during-${i}`), {}, { ms: 3000 * SLOW });
            lat.push(r.status === 200 && r.json?.id === `during-${i}` ? r.ms : Infinity);
            await sleep(500);
        }
    })();
    const [h, b, i, p] = await Promise.all([headerTrickle, bodyTrickle, idle, partial]);
    over = true;
    await served;
    const secs = (x) => (x.closedMs === null ? `still open after ${(give / 1000).toFixed(0)} s (${x.sent} bytes sent)` : `closed after ${(x.closedMs / 1000).toFixed(1)} s`);
    t.check(i.closedMs !== null && i.closedMs < limit, `a connection that sends nothing: ${secs(i)} (want closed within ${limit / 1000} s)`);
    t.check(p.closedMs !== null && p.closedMs < limit, `a request line and Host, then nothing: ${secs(p)} (want closed within ${limit / 1000} s)`);
    t.check(h.closedMs !== null && h.closedMs < limit, `headers a byte a second: ${secs(h)} (want closed within ${limit / 1000} s: http_timeout_s = ${TIMEOUT_S})`);
    t.check(b.closedMs !== null && b.closedMs < limit, `a body a byte a second: ${secs(b)} (want closed within ${limit / 1000} s)`);
    t.tried(`idle → ${secs(i)}; half a request → ${secs(p)}; headers 1 B/s → ${secs(h)}; body 1 B/s → ${secs(b)}`);
    const worst = Math.max(...lat);
    t.check(lat.length > 0 && worst < 2000 * SLOW, `new clients during the trickles: ${lat.length} calls, slowest ${worst === Infinity ? 'failed' : `${worst.toFixed(0)} ms`}`);
    t.note(`${lat.length} calls served during the trickles (slowest ${worst.toFixed(0)} ms)`);
});

// 12. Idle connections held: others are served up to max_connections; past it new ones wait
// or are refused; once the held ones close, the server serves again.
define('idle connections', 'roomy', async (t, srv) => {
    const fd0 = srv.fds();
    const held = [];
    try {
        for (let i = 0; i < 56; i++) held.push(await holder(srv));
        await sleep(300);
        const accepted = srv.fds() - fd0;
        t.check(accepted >= 50, `56 connections opened, the server holds ${accepted} more descriptors (want about 56)`);
        for (let i = 0; i < 5; i++) {
            t.answer(`a new client with 56 idle connections held (${i + 1})`, await modern(srv, goodEcho(`held-${i}`), {}, { ms: 3000 * SLOW }), { status: 200, id: `held-${i}` });
        }
        // Past the limit (64, the background stream holds 2 of them).
        for (let i = 0; i < 16; i++) held.push(await holder(srv));
        await sleep(300);
        const msg = goodEcho('over');
        let answered = null;
        const probe = raw(srv, rawRequest(srv, { headers: modernHeaders(msg), body: JSON.stringify(msg) }), {
            ms: 10000 * SLOW,
            until: (rs) => {
                if (rs.length > 0 && rs[0].complete) answered = performance.now();
                return answered !== null;
            },
        });
        await sleep(1500 * SLOW);
        t.check(answered === null, `a new request with ${ROOMY_CONNECTIONS + 8} connections open was answered at once (want it held back or refused: max_connections = ${ROOMY_CONNECTIONS})`);
        t.tried(`72 idle connections + 2 busy, max_connections ${ROOMY_CONNECTIONS}: a new request → ${answered === null ? 'not served' : 'served'}`);
        const t0 = performance.now();
        for (const s of held) s.release();
        held.length = 0;
        const pr = await probe;
        const first = pr.responses[0];
        t.tried(`after closing them, that request → ${first ? `HTTP ${first.status} after ${((performance.now() - t0) / 1000).toFixed(1)} s` : pr.closed ? 'closed (refused)' : 'no answer'}`);
        t.check(!first || first.status === 200, `the held-back request: HTTP ${first?.status} (want 200, or refused)`);
        const r = await modern(srv, goodEcho('again'), {}, { ms: 5000 * SLOW });
        t.answer('a new client once the idle connections are gone', r, { status: 200, id: 'again' });
        const fd1 = await srv.fdsSettle(fd0 + 2);
        t.check(fd1 <= fd0 + 2, `descriptors: ${fd0} before, ${fd1} after (want back within 2)`);
        t.note(`${accepted} connections held, fds ${fd0} → ${fd1}`);
    } finally {
        for (const s of held) s.release();
    }
});

// 13a. A 2026-07-28 client drops its event stream mid-call: the call is cancelled (the next
// slow_count, which waits for a free slot, runs at once) and the connection is let go.
define('drop a 2026-07-28 event stream', 'main', async (t, srv) => {
    const fd0 = srv.fds();
    const msg = modernMsg('long', 'tools/call', { name: 'slow_count', arguments: { to: 100, delay_ms: 100 } }, { progressToken: 'drop' });
    let progress = 0;
    const r = await modern(srv, msg, {}, {
        ms: 15000 * SLOW,
        onEvent: (m, req) => {
            if (m.method === 'notifications/progress' && ++progress >= 2) req.destroy();
        },
    });
    t.check(progress >= 2, `progress before the drop: ${progress} events (want 2; ${r.status || r.error})`);
    t.tried(`slow_count to 100 with a progress token, dropped after ${progress} progress events`);
    const t0 = performance.now();
    const next = await modern(srv, modernMsg('next', 'tools/call', { name: 'slow_count', arguments: { to: 1, delay_ms: 0 } }), {}, { ms: 15000 * SLOW });
    const waited = performance.now() - t0;
    t.answer('the next slow_count', next, { status: 200, id: 'next' });
    t.check(waited < 1500 * SLOW, `the next slow_count waited ${(waited / 1000).toFixed(1)} s for its slot (the dropped call was not cancelled)`);
    t.tried(`the next call on that plugin → answered after ${(waited / 1000).toFixed(2)} s`);
    const fd1 = await srv.fdsSettle(fd0);
    t.check(fd1 <= fd0, `descriptors: ${fd0} before, ${fd1} after the drop (want the dropped stream's gone)`);
});

// 13b. The same for a call that sends nothing before its answer (a JSON response): closing
// the connection is the cancellation.
define('drop a 2026-07-28 call waiting silently', 'main', async (t, srv) => {
    const fd0 = srv.fds();
    const msg = modernMsg('quiet', 'tools/call', { name: 'slow_count', arguments: { to: 100, delay_ms: 100 } });
    const r = await modern(srv, msg, {}, { ms: 700 });
    t.check(r.status === 0, `a 10 s call answered within 0.7 s: ${r.status}`);
    t.tried('slow_count to 100 without a progress token, connection closed after 0.7 s');
    const t0 = performance.now();
    const next = await modern(srv, modernMsg('next2', 'tools/call', { name: 'slow_count', arguments: { to: 1, delay_ms: 0 } }), {}, { ms: 20000 * SLOW });
    const waited = performance.now() - t0;
    t.answer('the next slow_count', next, { status: 200, id: 'next2' });
    t.check(waited < 1500 * SLOW, `the next slow_count waited ${(waited / 1000).toFixed(1)} s for its slot (the dropped call was not cancelled)`);
    t.tried(`the next call on that plugin → answered after ${(waited / 1000).toFixed(2)} s`);
    const fd1 = await srv.fdsSettle(fd0);
    t.check(fd1 <= fd0, `descriptors: ${fd0} before, ${fd1} after the drop`);
});

// 13c. A legacy client drops its call's stream: the call goes on (the spec: disconnection is
// not cancellation) until notifications/cancelled.
define('drop a legacy call', 'main', async (t, srv) => {
    const fd0 = srv.fds();
    const s = new Legacy(srv, { prefix: 'dl' });
    await s.openOk();
    try {
        let progress = 0;
        await s.post(rpc('dl-long', 'tools/call', { name: 'slow_count', arguments: { to: 100, delay_ms: 100 }, _meta: { progressToken: 'dl' } }), {
            ms: 15000 * SLOW,
            onEvent: (m, req) => {
                if (m.method === 'notifications/progress' && ++progress >= 2) req.destroy();
            },
        });
        t.check(progress >= 2, `progress before the drop: ${progress} (want 2)`);
        let nextAt = null;
        const t0 = performance.now();
        const next = s.post(rpc('dl-next', 'tools/call', { name: 'slow_count', arguments: { to: 1, delay_ms: 0 } }), { ms: 20000 * SLOW }).then((r) => {
            nextAt = performance.now();
            return r;
        });
        await sleep(1000);
        t.check(nextAt === null, `the dropped legacy call was cancelled by the disconnect: the next one ran after ${((nextAt - t0) / 1000).toFixed(2)} s (a legacy call goes on until notifications/cancelled)`);
        const c = await s.post(note('notifications/cancelled', { requestId: 'dl-long', reason: 'hostile' }));
        t.check(c.status === 202, `notifications/cancelled: ${c.status || c.error} (want 202)`);
        const tc = performance.now();
        const r = await next;
        t.answer('the next slow_count', r, { status: 200, id: 'dl-next' });
        t.check(nextAt !== null && nextAt - tc < 1500 * SLOW, `the next call ran ${((nextAt - tc) / 1000).toFixed(1)} s after notifications/cancelled`);
        t.tried(`legacy slow_count dropped after ${progress} progress events: the next call ran ${((nextAt - t0) / 1000).toFixed(2)} s later, ${((nextAt - tc) / 1000).toFixed(2)} s after notifications/cancelled`);
    } finally {
        await s.close();
    }
    const fd1 = await srv.fdsSettle(fd0);
    t.check(fd1 <= fd0, `descriptors: ${fd0} before, ${fd1} after`);
});

// 13d. A legacy client drops its GET stream: it can open a new one (no 409 for a stream
// that is gone), and nothing leaks.
define('drop a GET stream', 'main', async (t, srv) => {
    const fd0 = srv.fds();
    const s = new Legacy(srv, { prefix: 'dg' });
    await s.openOk();
    try {
        let got = null;
        await s.stream({ ms: 5000 * SLOW, onResponse: (res, req) => { got = res.statusCode; req.destroy(); } });
        t.check(got === 200, `GET: ${got} (want 200)`);
        const t0 = performance.now();
        let again = null;
        let tries = 0;
        await waitFor(async () => {
            tries++;
            let st = null;
            await s.stream({ ms: 2000 * SLOW, onResponse: (res, req) => { st = res.statusCode; if (st === 200) req.destroy(); } });
            again = st;
            return st === 200;
        }, (2 + SLOW) * 1000, 200);
        const ms = performance.now() - t0;
        t.check(again === 200, `a new GET after dropping the first: ${again} after ${(ms / 1000).toFixed(1)} s and ${tries} tries (want 200 within ${2 + SLOW} s)`);
        t.tried(`GET, dropped; a new GET → ${again} after ${(ms / 1000).toFixed(1)} s`);
    } finally {
        await s.close();
    }
    const fd1 = await srv.fdsSettle(fd0);
    t.check(fd1 <= fd0, `descriptors: ${fd0} before, ${fd1} after`);
});

// 14. A client that never reads what it asked for (15 MiB answers on an event stream, 8 MiB
// as JSON): others are served meanwhile, and once it is gone, so is what it held.
define('a client that never reads', 'main', async (t, srv) => {
    const fd0 = srv.fds();
    const rss0 = srv.rssKiB();
    const s = new Legacy(srv, { prefix: 'nr', rev: '2025-03-26' });
    await s.openOk();
    const sockets = [];
    try {
        const big = 'x'.repeat(5 * MiB);
        const batch = [rpc('nr-p', 'tools/call', { name: 'count', arguments: { to: 2, delay_ms: 0 }, _meta: { progressToken: 'nr' } }),
            ...[1, 2, 3].map((i) => rpc(`nr-${i}`, 'tools/call', echoParams(big)))];
        const m = goodEcho('nr-json', 'y'.repeat(8 * MiB));
        const open = (bytes) => new Promise((resolve) => {
            const c = net.connect(srv.port, '127.0.0.1');
            c.on('error', () => {});
            c.on('connect', () => {
                c.pause();
                c.write(bytes, () => resolve(c));
            });
            sockets.push(c);
        });
        await open(rawRequest(srv, { headers: s.headers(), body: JSON.stringify(batch) }));
        await open(rawRequest(srv, { headers: modernHeaders(m), body: JSON.stringify(m) }));
        t.tried('a 2025-03-26 batch (progress, then 3 echoes of 5 MiB) and a 2026-07-28 echo of 8 MiB, never read');
        let peak = srv.rssKiB();
        const t0 = performance.now();
        while (performance.now() - t0 < (TIMEOUT_S + 2) * 1000) {
            const r = await modern(srv, goodEcho('while'), {}, { ms: 3000 * SLOW });
            t.check(r.status === 200, `a call while the answers are not read: ${r.status || r.error}`);
            peak = Math.max(peak, srv.rssKiB());
            await sleep(300);
        }
        const fdHeld = srv.fds();
        t.memory(peak - rss0 < 256 * 1024, `VmRSS grew ${((peak - rss0) / 1024).toFixed(0)} MiB while holding the unread answers (limit 256)`);
        for (const c of sockets) c.destroy();
        const fd1 = await srv.fdsSettle(fd0);
        t.check(fd1 <= fd0, `descriptors: ${fd0} before, ${fdHeld} while unread, ${fd1} after the client left`);
        t.note(`VmRSS +${((peak - rss0) / 1024).toFixed(0)} MiB at most; fds ${fd0} → ${fdHeld} → ${fd1}`);
    } finally {
        for (const c of sockets) c.destroy();
        // Its batch over, the session may have been idle long enough to end.
        const d = await s.close();
        t.check(d.status === 200 || d.status === 404, `DELETE of the session: ${d.status || d.error}`);
    }
});

// 15. max_sessions: past it, initialize gets 503 and Retry-After; after a DELETE, a new one
// is taken. Sessionless requests are not counted.
define('max sessions', 'main', async (t, srv) => {
    // The background stream holds one of the 3.
    const a = new Legacy(srv, { prefix: 'ma' });
    const b = new Legacy(srv, { prefix: 'mb' });
    const c = new Legacy(srv, { prefix: 'mc' });
    try {
        await a.openOk();
        await b.openOk();
        const r = await c.open();
        t.answer(`initialize with ${MAX_SESSIONS} sessions open`, r, { status: 503, code: -32000, headers: { 'Retry-After': /^\d+$/ }, noHeaders: ['Mcp-Session-Id'] });
        t.answer('a 2026-07-28 request meanwhile', await modern(srv, goodEcho('ms')), { status: 200, id: 'ms' });
        t.answer(`DELETE one of them`, await a.close(), { status: 200 });
        a.id = null;
        const r2 = await c.open();
        t.answer('initialize after the DELETE', r2, { status: 200, headers: { 'Mcp-Session-Id': /^[\x21-\x7e]+$/ } });
        t.answer('the new session works', await c.post(rpc('c1', 'tools/call', echoParams('c'))), { status: 200, id: 'c1' });
        t.answer('the older one too', await b.post(rpc('b1', 'tools/call', echoParams('b'))), { status: 200, id: 'b1' });
    } finally {
        for (const s of [a, b, c]) if (s.id) await s.close();
    }
});

// 16. session_idle_s: a session left unused ends (404 afterwards); one with a GET stream open
// does not.
define('idle sessions', 'main', async (t, srv) => {
    const a = new Legacy(srv, { prefix: 'ia' });
    const b = new Legacy(srv, { prefix: 'ib' });
    let stream = null;
    try {
        await a.openOk();
        await b.openOk();
        t.answer('a call on the session', await a.post(rpc('ia1', 'tools/call', echoParams('a'))), { status: 200, id: 'ia1' });
        const streamDone = b.stream({ ms: 30000 * SLOW, onResponse: (res, req) => { stream = req; } });
        await waitFor(() => stream, 3000 * SLOW);
        const mark = srv.proc.stderr.length;
        await sleep(IDLE_S * 1000 + 2500);
        t.answer(`the session after ${IDLE_S + 2.5} s unused`, await a.post(rpc('ia2', 'tools/list')), { status: 404, code: -32001 });
        t.answer('the session with a GET stream open', await b.post(rpc('ib1', 'tools/call', echoParams('b'))), { status: 200, id: 'ib1' });
        t.check(/idle for \d+ s/.test(srv.proc.stderr.slice(mark)), 'mcph did not log the idle session it ended');
        stream?.destroy();
        await capped(streamDone, 3000 * SLOW);
        a.id = null;
    } finally {
        stream?.destroy();
        for (const s of [a, b]) if (s.id) await s.close();
    }
});

// 17. 200 POSTs, 32 at a time, both eras and both answer kinds: each answered, ids matched.
define('many at once', 'roomy', async (t, srv) => {
    const s = new Legacy(srv, { prefix: 'cc', agent: new http.Agent({ keepAlive: true, maxSockets: 16 }) });
    await s.openOk();
    const N = 200;
    const wrong = [];
    let sse = 0;
    const one = async (i) => {
        const text = `call ${i} ${'·'.repeat(i % 7)}`;
        let r;
        let id;
        let want;
        if (i % 10 === 3) {
            id = `cc-count-${i}`;
            const params = { name: 'count', arguments: { to: 2, delay_ms: 0 } };
            want = 'counted to 2';
            r = i % 2 ? await s.post(rpc(id, 'tools/call', { ...params, _meta: { progressToken: id } }), { ms: 20000 * SLOW }) :
                await modern(srv, modernMsg(id, 'tools/call', params, { progressToken: id }), {}, { ms: 20000 * SLOW });
            if (r.messages.length) sse++;
        } else if (i % 2) {
            id = `cc-${i}`;
            want = text;
            r = await s.post(rpc(id, 'tools/call', echoParams(text)), { ms: 20000 * SLOW });
        } else {
            id = i;
            want = text;
            r = await modern(srv, modernMsg(id, 'tools/call', echoParams(text)), {}, { ms: 20000 * SLOW });
        }
        if (!(r.status === 200 && r.json?.id === id && r.json?.result?.content?.[0]?.text === want)) {
            wrong.push(`${JSON.stringify(id)}: ${r.status || r.error} ${short(r.text, 100)}`);
        }
    };
    const t0 = performance.now();
    try {
        let next = 0;
        await Promise.all(Array.from({ length: 32 }, async () => {
            while (next < N) await one(next++);
        }));
    } finally {
        await s.close();
        s.agent.destroy();
    }
    const secs = (performance.now() - t0) / 1000;
    t.check(wrong.length === 0, `${wrong.length} of ${N} wrong: ${wrong.slice(0, 3).join('; ')}`);
    t.check(sse > 0, 'no count call with a progress token was answered as an event stream');
    t.tried(`${N} POSTs, 32 at a time (legacy and 2026-07-28, JSON and event streams) → ${N - wrong.length} right in ${secs.toFixed(1)} s`);
    t.note(`${N} calls in ${secs.toFixed(1)} s`);
});

// 18. 100 sessions made and ended in turn: descriptors and memory come back.
define('session churn', 'main', async (t, srv) => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const cycle = async (i) => {
        const s = new Legacy(srv, { prefix: `ch${i}`, agent });
        await s.openOk();
        const r = await s.post(rpc(`ch${i}-e`, 'tools/call', echoParams(`churn ${i}`)));
        if (r.status !== 200 || r.json?.result?.content?.[0]?.text !== `churn ${i}`) throw new Error(`session ${i}: echo ${r.status} ${short(r.text, 100)}`);
        const d = await s.close();
        if (d.status !== 200) throw new Error(`session ${i}: DELETE ${d.status || d.error}`);
        if (i % 10 === 0) {
            const gone = await s.post(rpc(`ch${i}-x`, 'tools/list'));
            if (gone.status !== 404) throw new Error(`session ${i}: a POST after DELETE got ${gone.status}`);
        }
    };
    try {
        for (let i = 0; i < 10; i++) await cycle(i);
        await sleep(200);
        const fd0 = srv.fds();
        const rss0 = srv.rssKiB();
        const t0 = performance.now();
        for (let i = 10; i < 110; i++) await cycle(i);
        const secs = (performance.now() - t0) / 1000;
        await sleep(200);
        const fd1 = await srv.fdsSettle(fd0 + 1);
        const rss1 = srv.rssKiB();
        t.check(fd1 <= fd0 + 1, `descriptors: ${fd0} before 100 sessions, ${fd1} after (want within 1)`);
        t.memory(rss1 - rss0 < 8 * 1024, `VmRSS grew ${((rss1 - rss0) / 1024).toFixed(1)} MiB over 100 sessions (limit 8)`);
        t.tried(`100 × (initialize, initialized, echo, DELETE) → fds ${fd0} → ${fd1}, VmRSS ${(rss0 / 1024).toFixed(1)} → ${(rss1 / 1024).toFixed(1)} MiB`);
        t.note(`100 sessions in ${secs.toFixed(1)} s; fds ${fd0} → ${fd1}; VmRSS ${rss1 - rss0 >= 0 ? '+' : ''}${((rss1 - rss0) / 1024).toFixed(1)} MiB`);
        // The slots are free: as many sessions as max_sessions allows besides the background.
        const held = [];
        for (let i = 0; i < MAX_SESSIONS - 1; i++) {
            const s = new Legacy(srv, { prefix: `chk${i}` });
            await s.openOk();
            held.push(s);
        }
        for (const s of held) await s.close();
    } finally {
        agent.destroy();
    }
});

// 19. Headers too big: 431 or the connection closed; the server lives on.
define('huge headers', 'main', async (t, srv) => {
    const msg = goodEcho('hh');
    const body = JSON.stringify(msg);
    const hdr = modernHeaders(msg);
    const until = (rs) => rs.length > 0;
    const many = {};
    for (let i = 0; i < 2000; i++) many[`X-Many-${i}`] = 'v'.repeat(30);
    for (const [what, bytes] of [
        ['one 64 KiB header', rawRequest(srv, { headers: { ...hdr, 'X-Big': 'a'.repeat(64 * 1024) }, body })],
        ['2000 headers (80 KiB)', rawRequest(srv, { headers: { ...hdr, ...many }, body })],
        ['a 64 KiB path', rawRequest(srv, { target: `/${'p'.repeat(64 * 1024)}`, headers: hdr, body })],
        ['a 64 KiB Mcp-Name', rawRequest(srv, { headers: { ...hdr, 'Mcp-Name': 'n'.repeat(64 * 1024) }, body })],
        ['a 1 MiB header line without an end', Buffer.from(`POST ${srv.path} HTTP/1.1\r\nHost: ${srv.host}\r\nX-Endless: ${'e'.repeat(MiB)}`)],
    ]) {
        t.refused(what, await raw(srv, bytes, { until, ms: 5000 * SLOW }), [400, 413, 414, 431]);
    }
    t.answer('a good request after them', await modern(srv, goodEcho('hh2')), { status: 200, id: 'hh2' });
});

// 20. Pipelined requests on one keep-alive connection: answered in order.
define('pipelining', 'main', async (t, srv) => {
    const msgs = [goodEcho('p1', 'one'), modernMsg('p2', 'tools/call', { name: 'count', arguments: { to: 3, delay_ms: 50 } }), goodEcho('p3', 'three')];
    const notice = note('notifications/cancelled', { requestId: 'none', _meta: META });
    const parts = [
        rawRequest(srv, { headers: modernHeaders(msgs[0]), body: JSON.stringify(msgs[0]) }),
        rawRequest(srv, { headers: modernHeaders(msgs[1]), body: JSON.stringify(msgs[1]) }),
        rawRequest(srv, { headers: BASE, body: JSON.stringify(notice) }),
        rawRequest(srv, { headers: modernHeaders(msgs[2]), body: JSON.stringify(msgs[2]) }),
        rawRequest(srv, { method: 'PUT', headers: BASE, body: '{}' }),
    ];
    const r = await raw(srv, Buffer.concat(parts), { until: (rs) => rs.length >= 5 && rs.every((x) => x.complete), ms: 10000 * SLOW });
    const got = r.responses.map((x) => {
        let id;
        try {
            id = JSON.parse(x.body || 'null')?.id;
        } catch {
            id = '?';
        }
        return `${x.status}${id !== undefined && id !== null ? `:${id}` : ''}`;
    });
    t.check(got.join(' ') === '200:p1 200:p2 202 200:p3 405', `5 pipelined requests: ${got.join(' ') || 'no response'} (want 200:p1 200:p2 202 200:p3 405)`);
    t.tried(`5 pipelined requests (echo, count 150 ms, notification, echo, PUT) → ${got.join(' ')}`);
    // Many small ones.
    const many = Array.from({ length: 50 }, (_, i) => goodEcho(`q${i}`, `q${i}`));
    const r2 = await raw(srv, Buffer.concat(many.map((m) => rawRequest(srv, { headers: modernHeaders(m), body: JSON.stringify(m) }))), { until: (rs) => rs.length >= 50 && rs.every((x) => x.complete), ms: 10000 * SLOW });
    const ids = r2.responses.map((x) => JSON.parse(x.body || '{}').id);
    t.check(ids.length === 50 && ids.every((id, i) => id === `q${i}`), `50 pipelined echoes: ${ids.length} answers, ${ids.filter((id, i) => id !== `q${i}`).length} out of place`);
    t.tried(`50 pipelined echoes in one write → ${ids.length} answers in order`);
});

// 21. Malformed HTTP: refused (4xx/5xx or closed), never misread.
define('malformed HTTP', 'main', async (t, srv) => {
    const msg = goodEcho('mh');
    const body = JSON.stringify(msg);
    const h = modernHeaders(msg);
    const req = (headers, extra = {}) => rawRequest(srv, { headers: { ...h, ...headers }, body, ...extra });
    const until = (rs) => rs.length > 0 && rs[0].complete;
    const ms = (TIMEOUT_S + 3) * 1000 * SLOW;
    for (const [what, bytes, statuses] of [
        ['a garbage request line', 'GARBAGE\r\n\r\n'],
        ['the HTTP/2 preface', 'PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n'],
        ['HTTP/9.9', req({}, { version: '9.9' })],
        ['a header line without a colon', req({ NoColonHere: undefined }).toString('latin1').replace('NoColonHere: undefined', 'NoColonHere')],
        ['Content-Length: abc', req({ 'Content-Length': 'abc' })],
        ['Content-Length: -1', req({ 'Content-Length': '-1' })],
        ['two different Content-Length lines', req({ 'Content-Length': [String(body.length), '5'] }), [400]],
        ['a bad chunk size', Buffer.concat([rawRequest(srv, { headers: { ...h, 'Transfer-Encoding': 'chunked' } }), Buffer.from(`zz\r\n${body}\r\n0\r\n\r\n`)])],
        ['Transfer-Encoding: gzip', Buffer.concat([rawRequest(srv, { headers: { ...h, 'Transfer-Encoding': 'gzip' } }), Buffer.from(body)])],
        ['Host : evil (space before the colon) and a good Host', Buffer.from(rawRequest(srv, { headers: { ...h }, body }).toString('latin1').replace(`Host: ${srv.host}\r\n`, `Host : evil.example.com\r\nHost: ${srv.host}\r\n`), 'latin1'), [400, 403]],
        ['two Mcp-Method lines (tools/call, tools/list)', req({ 'Mcp-Method': ['tools/call', 'tools/list'] }), [400]],
        ['a request line of 8 KiB method', `${'P'.repeat(8192)} ${srv.path} HTTP/1.1\r\nHost: ${srv.host}\r\n\r\n`],
        ['only CR LF CR LF', '\r\n\r\n'],
        ['binary noise', Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 7919) % 256))],
    ]) {
        t.refused(what, await raw(srv, bytes, { until, ms }), statuses);
    }
    // Content-Length and Transfer-Encoding both: served by the chunked body, then closed (or
    // refused); a request smuggled after it must not be answered.
    const smuggle = Buffer.concat([
        rawRequest(srv, { headers: { ...h, 'Content-Length': '4', 'Transfer-Encoding': 'chunked' } }),
        Buffer.from(`${body.length.toString(16)}\r\n${body}\r\n0\r\n\r\n`),
        rawRequest(srv, { method: 'DELETE', headers: { 'Mcp-Session-Id': 'smuggled' } }),
    ]);
    const r = await raw(srv, smuggle, { until: (rs) => rs.length >= 2, ms: 2000 * SLOW });
    const st = r.responses.map((x) => x.status);
    t.check(st.length === 1 && (st[0] === 400 || st[0] === 200), `Content-Length and Transfer-Encoding with a request behind: responses ${st.join(', ') || 'none'} (want one, 200 or 400, then the connection closed)`);
    t.tried(`Content-Length + Transfer-Encoding: chunked, then a DELETE → ${st.join(', ') || 'nothing'}${r.closed ? ', closed' : ', left open'}`);
    t.answer('a good request after them', await modern(srv, goodEcho('mh2')), { status: 200, id: 'mh2' });
});

// 22. SIGTERM with a GET stream, a call that runs until cancelled and a trickling client
// open: exit 0 within the grace period; the stream and the call's connection end.
async function shutdownMain(t, srv) {
    const s = new Legacy(srv, { prefix: 'sd' });
    await s.openOk();
    let stream = null;
    const streamDone = s.stream({ ms: 30000 * SLOW, onResponse: (res, req) => { stream = req; } });
    const block = modern(srv, modernMsg('sd-block', 'tools/call', { name: 'block', arguments: {} }), {}, { ms: 30000 * SLOW });
    const trickling = raw(srv, [`POST ${srv.path} HTTP/1.1\r\n`, 500, 'Host: 127.0.0.1\r\n', 500, 'X-A: b'], { ms: 30000 * SLOW });
    await waitFor(() => stream, 3000 * SLOW);
    await sleep(300);
    const mark = srv.proc.stderr.length;
    const r = await srv.stop();
    const log = srv.proc.stderr.slice(mark);
    const held = /[^\n]*(abandoned|held up|without unloading)[^\n]*/.exec(log);
    t.check(!held, `after SIGTERM mcph gave up on the call instead of cancelling it: ${held ? short(held[0], 200) : ''}`);
    const limit = LIMIT_SHUTDOWN_GRACE_MS + 3000 * SLOW;
    t.check(!r.timedOut && r.code === 0 && r.signal === null, `SIGTERM: ${r.timedOut ? 'no exit (killed)' : describeExit(r)} (want status 0)`);
    t.check(!r.timedOut && r.ms < limit, `exit took ${(r.ms / 1000).toFixed(1)} s (limit ${(limit / 1000).toFixed(1)} s)`);
    const ends = await capped(Promise.all([streamDone, block, trickling]), 3000 * SLOW);
    t.check(ends !== CAPPED, 'a connection stayed open after mcph exited');
    t.tried(`SIGTERM with a GET stream, a block call and a trickling client open → ${describeExit(r)} after ${(r.ms / 1000).toFixed(2)} s`);
    t.note(`exit after ${(r.ms / 1000).toFixed(2)} s`);
}

// 23. Mcp-Param-* (x-mcp-header): a 2026-07-28 tools/call's mirrored arguments must come in
// their headers and say what the body says, or 400 -32020 HeaderMismatch.
define('param headers', 'main', async (t, srv) => {
    const call = (id, args) => modernMsg(id, 'tools/call', { name: 'test_custom_headers', arguments: args });
    const ask = (what, msg, over, want) => modern(srv, msg, over).then((r) => t.answer(what, r, want));
    const mismatch = (id) => ({ status: 400, code: -32020, id });
    const region = { region: 'us-west1' };
    await ask('Mcp-Param-Region as in the body', call('r1', region), { 'Mcp-Param-Region': 'us-west1' }, { status: 200, id: 'r1' });
    await ask('mcp-param-region (a header name in any case)', call('r2', region), { 'mcp-param-region': 'us-west1' }, { status: 200, id: 'r2' });
    await ask('Mcp-Param-Region in its base64 form', call('r3', region), { 'Mcp-Param-Region': `=?base64?${b64('us-west1')}?=` }, { status: 200, id: 'r3' });
    await ask('Mcp-Param-Region missing', call('r4', region), {}, mismatch('r4'));
    await ask('Mcp-Param-Region eu-west1 for us-west1', call('r5', region), { 'Mcp-Param-Region': 'eu-west1' }, mismatch('r5'));
    await ask('Mcp-Param-Region base64 of another value', call('r6', region), { 'Mcp-Param-Region': `=?base64?${b64('eu-west1')}?=` }, mismatch('r6'));
    await ask('Mcp-Param-Region with a byte past ASCII', call('r7', { region: 'caf\u00e9' }), { 'Mcp-Param-Region': 'caf\u00e9' }, mismatch('r7'));
    await ask('Mcp-Param-Region for a region absent from the body', call('r8', {}), { 'Mcp-Param-Region': 'us-west1' }, mismatch('r8'));
    await ask('Mcp-Param-Region for a non-ASCII region, base64', call('r9', { region: 'Hello, 世界' }), { 'Mcp-Param-Region': `=?base64?${b64('Hello, 世界')}?=` }, { status: 200, id: 'r9' });
    await ask('an Mcp-Param header no schema names (ignored)', call('r10', region), { 'Mcp-Param-Region': 'us-west1', 'Mcp-Param-Other': 'x' }, { status: 200, id: 'r10' });
    await ask('Mcp-Param-Region on a tool that mirrors nothing (ignored)', goodEcho('r11'), { 'Mcp-Param-Region': 'anything' }, { status: 200, id: 'r11' });
    // The same header twice (raw: node:http joins them).
    const msg = call('r12', region);
    const r = await raw(srv, rawRequest(srv, { headers: { ...modernHeaders(msg), 'Mcp-Param-Region': 'us-west1', 'MCP-PARAM-REGION': 'eu-west1' }, body: JSON.stringify(msg) }), { until: (rs) => rs.length > 0 });
    t.check(r.responses[0]?.status === 400 && /-32020/.test(r.responses[0]?.body || ''), `Mcp-Param-Region twice: ${r.responses[0] ? `HTTP ${r.responses[0].status} ${short(r.responses[0].body, 120)}` : 'no response'} (want 400 -32020)`);
    t.tried(`Mcp-Param-Region twice (raw) → ${r.responses[0]?.status ?? 'none'}`);
});

// A subscriptions/listen stream with these headers: resolves once it is acknowledged
// ({ acked: true, req: to destroy it, done }) or answered otherwise (send's result).
function openListen(srv, id, over = {}) {
    return new Promise((resolve) => {
        const msg = modernMsg(id, 'subscriptions/listen', { notifications: { toolsListChanged: true } });
        const t0 = performance.now();
        let settled = false;
        const done = send(srv, {
            body: msg, headers: { ...modernHeaders(msg), ...over }, ms: 60000 * SLOW,
            onEvent: (m, req) => {
                if (settled || m.method !== 'notifications/subscriptions/acknowledged') return;
                settled = true;
                resolve({ acked: true, status: 200, req, done, ms: performance.now() - t0 });
            },
        });
        done.then((r) => {
            if (settled) return;
            settled = true;
            resolve({ ...r, acked: false, done });
        });
    });
}

// 24. Long-lived streams: at most half of max_connections, a quarter of those a client (its
// bearer token); past either a 503 at once with Retry-After, and short requests still answered.
define('stream cap', 'streams', async (t, srv) => {
    const most = STREAM_CONNECTIONS / STREAM_SHARE;
    const perClient = most / CLIENT_STREAM_SHARE;
    const bearer = (i) => ({ Authorization: `Bearer ${STREAM_TOKENS[i]}` });
    const open = [];
    const refusals = [];
    const refusedOk = (r) => r.status === 503 && /^\d+$/.test(r.headers?.['retry-after'] || '') && r.json?.error?.code === -32000 && r.ms < 1000 * SLOW;
    let session = null;
    try {
        // One client: its share, then a 503 naming it.
        for (let i = 0; i <= perClient; i++) {
            const r = await openListen(srv, `one-${i}`, bearer(0));
            if (r.acked) open.push(r);
            else refusals.push(r);
        }
        t.check(open.length === perClient, `one client (a token) opened ${open.length} listen streams (want ${perClient}, a ${CLIENT_STREAM_SHARE}th of ${most})`);
        t.check(refusals.length === 1 && refusedOk(refusals[0]) && /this client/.test(refusals[0].json?.error?.message || ''),
            `its next one: ${refusals[0] ? `HTTP ${refusals[0].status || refusals[0].error} Retry-After ${refusals[0].headers?.['retry-after']} ${short(refusals[0].text, 160)}` : 'accepted'} (want 503 at once, Retry-After, naming the client)`);
        // Other clients up to max_connections attempts in all: half of them get a stream.
        for (let i = 0; open.length + refusals.length < STREAM_CONNECTIONS; i++) {
            const r = await openListen(srv, `many-${i}`, bearer(1 + (i % (STREAM_TOKENS.length - 1))));
            if (r.acked) open.push(r);
            else refusals.push(r);
        }
        t.check(open.length === most, `${open.length} listen streams open of ${STREAM_CONNECTIONS} asked for (want ${most}: max_connections / ${STREAM_SHARE})`);
        const bad = refusals.filter((r) => !refusedOk(r));
        t.check(bad.length === 0, `${bad.length} of ${refusals.length} refusals not a 503 at once with Retry-After: ${bad.slice(0, 2).map((r) => `${r.status || r.error} ${Math.round(r.ms)} ms ${short(r.text, 100)}`).join('; ')}`);
        // Requests still get through, at once; a legacy GET stream is a stream too.
        const r = await modern(srv, goodEcho('short-1'), bearer(4), { ms: 3000 * SLOW });
        t.answer('a call with every stream slot held', r, { status: 200, id: 'short-1' });
        t.check(r.ms < 2000 * SLOW, `the call took ${Math.round(r.ms)} ms`);
        session = new Legacy(srv, { prefix: 'sg', headers: bearer(4) });
        await session.openOk();
        t.answer('a legacy GET stream with every stream slot held', await session.stream({ ms: 3000 * SLOW }), { status: 503, code: -32000, headers: { 'Retry-After': /^\d+$/ } });
        // Closed streams give their slots back.
        for (const o of open.splice(0)) o.req.destroy();
        let again = null;
        await waitFor(async () => {
            again = await openListen(srv, `again-${performance.now()}`, bearer(0));
            if (again.acked) return true;
            await sleep(100);
            return false;
        }, 5000 * SLOW);
        t.check(again?.acked, `a listen after the others closed: ${again ? again.status || again.error : 'none'} (want it acknowledged)`);
        if (again?.acked) open.push(again);
        t.note(`${most} streams, ${refusals.length} refused`);
    } finally {
        for (const o of open) o.req.destroy();
        await Promise.all(open.map((o) => capped(o.done, 3000 * SLOW)));
        if (session?.id) await session.close();
    }
});

// 25. A legacy session that never sends notifications/initialized ends after
// LIMIT_HTTP_SESSION_UNINIT_S unused, however long session_idle_s (1800 s here) is.
define('uninitialized sessions', 'streams', async (t, srv) => {
    const bare = new Legacy(srv, { prefix: 'ui' });
    const good = new Legacy(srv, { prefix: 'ug' });
    try {
        const r = await send(srv, {
            body: rpc('ui-init', 'initialize', { protocolVersion: LEGACY, capabilities: {}, clientInfo: { name: 'http-hostile', version: '1' } }),
            headers: { ...BASE, ...srv.auth },
        });
        bare.id = r.headers?.['mcp-session-id'] ?? null;
        t.check(r.status === 200 && bare.id, `initialize: ${r.status || r.error} (want 200 and a session)`);
        await good.openOk();
        const mark = srv.proc.stderr.length;
        await sleep(UNINIT_S * 1000 + 2500);
        t.answer(`the session without notifications/initialized after ${UNINIT_S + 2.5} s`, await bare.post(rpc('ui-1', 'tools/list')), { status: 404, code: -32001 });
        t.answer('the session that sent it', await good.post(rpc('ug-1', 'tools/call', echoParams('g'))), { status: 200, id: 'ug-1' });
        t.check(/sent no notifications\/initialized within \d+ s/.test(srv.proc.stderr.slice(mark)), 'mcph did not log the uninitialized session it ended');
        bare.id = null;
    } finally {
        for (const s of [bare, good]) if (s.id) await s.close();
    }
});

// 26. Secret files others may read or write: a warning at start naming the file and the fix;
// none for a file only its owner reads (auth).
define('secret file modes', 'streams', async (t, srv) => {
    const warned = (key, how) => new RegExp(`\\[server\\] ${key} = \\S+ is ${how} by group or others \\(mode \\d+\\)[^\\n]*chmod 600`).test(srv.proc.stderr);
    t.check(warned('auth_token_file', 'readable'), 'no warning for a token file its group may read (mode 640)');
    t.check(warned('state_key_file', 'writable'), 'no warning for a state key file others may write (mode 666)');
    const other = await serverFor('auth');
    t.check(!/by group or others/.test(other.proc.stderr), `a warning for a token file of mode 600: ${short(other.proc.stderr, 200)}`);
});

// 27. A listener off loopback with no bearer token: a warning at start. The address is one of
// TEST-NET-2 that no interface here has, so mcph cannot bind it and exits after the warning:
// nothing is ever served off loopback.
define('open listener', 'streams', async (t) => {
    const mine = new Set(Object.values(os.networkInterfaces()).flat().map((i) => i.address));
    const addr = ['198.51.100.77', '198.51.100.78', '198.51.100.79'].find((a) => !mine.has(a));
    const ws = workspace('http', 'hostile-open');
    const tokens = path.join(ws, 'tokens');
    fs.writeFileSync(tokens, `${TOKENS[0]}\n`);
    fs.chmodSync(tokens, 0o600);
    const run = async (name, extra) => {
        const ini = writeIni(ws, {
            server: { name: 'mcph-http-open', plugin_dir: TEST_PLUGINS, listen: `${addr}:0`, allowed_hosts: 'mcp.example', ...extra },
            'plugin.example': example(),
        }, `${name}.ini`);
        const p = new Proc([BIN, ini], { cwd: ROOT, env: ENV });
        const r = await p.wait(10000 * SLOW);
        t.check(!r.timedOut, `${name}: mcph listened on ${addr} (want it unable to)`);
        t.tried(`listen = ${addr}:0 (${name}) → ${describeExit(r)}`);
        return p.stderr;
    };
    const open = await run('no token', {});
    t.check(/listen = \S+ is not a loopback address and no auth_token_file is set[^\n]*auth_token_file/.test(open),
        `no warning for a listener off loopback without tokens: ${short(open, 300)}`);
    const closed = await run('with tokens', { auth_token_file: tokens });
    t.check(!/not a loopback address and no auth_token_file/.test(closed), `a warning with auth_token_file set: ${short(closed, 300)}`);
});

// 28. A secret file that is a FIFO nobody writes: refused at start at once (opening it used to
// wait for a writer, for ever).
define('secret fifo', 'streams', async (t) => {
    const ws = workspace('http', 'hostile-fifo');
    for (const key of ['auth_token_file', 'state_key_file']) {
        const fifo = path.join(ws, `${key}.fifo`);
        fs.rmSync(fifo, { force: true });
        execFileSync('mkfifo', ['-m', '600', fifo]);
        const ini = writeIni(ws, { server: { name: 'mcph-http-fifo', plugin_dir: TEST_PLUGINS, [key]: fifo }, 'plugin.example': example() }, `${key}.ini`);
        const p = new Proc([BIN, '--listen', '127.0.0.1:0', ini], { cwd: ROOT, env: ENV });
        const r = await p.wait(5000 * SLOW);
        t.check(!r.timedOut && r.code !== 0, `${key} a FIFO: ${r.timedOut ? 'no exit (killed)' : describeExit(r)} (want a start-up error at once)`);
        t.check(new RegExp(`${key} = \\S+: not a regular file`).test(p.stderr), `${key} a FIFO: ${short(p.stderr, 200)} (want "not a regular file")`);
        t.tried(`${key} = a FIFO → ${r.timedOut ? 'hung' : describeExit(r)}`);
    }
});

// --- Run. -----------------------------------------------------------------------------------

async function serverFor(key) {
    let srv = running[key];
    if (srv && srv.alive) return srv;
    srv = SERVERS[key]();
    await srv.start();
    running[key] = srv;
    return srv;
}

function printCase(t, secs) {
    const figs = [...t.notes, `${secs} s`].join(', ');
    if (t.ok) console.log(`ok   ${t.name}: ${figs}`);
    else {
        const shown = t.failures.slice(0, 8).join('; ') + (t.failures.length > 8 ? `; and ${t.failures.length - 8} more` : '');
        console.log(`FAIL ${t.name}: ${shown} [${figs}]`);
    }
    if (t.tries.length) console.log(`     tried: ${t.tries.join('; ')}`);
}

if (!fs.existsSync(BIN)) {
    console.log(`FAIL http-hostile: no binary ${BIN} (run make)`);
    process.exit(1);
}
let passed = 0;
let failed = 0;
const suiteStart = performance.now();
const selected = (name) => !ONLY.length || ONLY.some((o) => name.startsWith(o));
for (const c of cases) {
    if (!selected(c.name)) continue;
    const t = new Case(c.name);
    const t0 = performance.now();
    let srv = null;
    let bg = null;
    try {
        srv = await serverFor(c.server);
        bg = new Background(srv);
        await bg.start();
        await c.fn(t, srv);
    } catch (err) {
        t.check(false, `threw: ${err && err.stack ? err.stack.split('\n').slice(0, 3).join(' ') : err}`);
    }
    if (bg) {
        const st = await bg.stop();
        const bad = st.legacy.failed + st.modern.failed;
        t.check(bad === 0 && st.errors.length === 0, `background: ${bad} calls failed: ${st.errors.join('; ')}`);
        t.check(st.legacy.ok > 0 && st.modern.ok > 0, `background: ${st.legacy.ok} legacy and ${st.modern.ok} 2026-07-28 calls answered (want some of each)`);
        t.note(`background ${st.legacy.ok}+${st.modern.ok} calls ok, ${bad} failed, slowest ${st.maxMs.toFixed(0)} ms`);
    }
    if (srv) {
        if (srv.alive) {
            const r = await modern(srv, modernMsg('after', 'tools/list'), {}, { ms: 5000 * SLOW });
            t.check(r.status === 200 && Array.isArray(r.json?.result?.tools), `a new client after the case: ${r.status || r.error} ${short(r.text, 100)}`);
        } else {
            t.check(false, `mcph (${srv.name}) exited: ${describeExit(srv.proc.exitInfo)}; stderr: ${short(srv.proc.stderr.trim().split('\n').slice(-5).join(' | '), 600)}`);
        }
        for (const p of srv.problems()) t.check(false, p);
    }
    if (!t.ok) failed++;
    else passed++;
    printCase(t, ((performance.now() - t0) / 1000).toFixed(1));
}

// The end: SIGTERM to each server, exit 0 within a few seconds, clean output.
const end = new Case('shutdown');
const t0 = performance.now();
for (const [key, srv] of Object.entries(running)) {
    if (!srv.alive) {
        end.check(false, `${key}: already exited (${describeExit(srv.proc.exitInfo)})`);
    } else if (key === 'main') {
        try {
            await shutdownMain(end, srv);
        } catch (err) {
            end.check(false, `main: threw ${err.message}`);
        }
    } else {
        const r = await srv.stop();
        end.check(!r.timedOut && r.code === 0 && r.signal === null, `${key}: SIGTERM: ${r.timedOut ? 'no exit (killed)' : describeExit(r)} (want status 0)`);
        end.check(!r.timedOut && r.ms < 5000 * SLOW, `${key}: exit took ${(r.ms / 1000).toFixed(1)} s`);
        end.tried(`SIGTERM to ${key} → ${describeExit(r)} after ${(r.ms / 1000).toFixed(2)} s`);
    }
    for (const p of srv.problems()) end.check(false, p);
}
if (Object.keys(running).length) {
    if (end.ok) passed++;
    else failed++;
    printCase(end, ((performance.now() - t0) / 1000).toFixed(1));
}
for (const srv of Object.values(running)) if (srv.alive) srv.proc.kill('SIGKILL');
console.log(`http-hostile: ${passed} passed, ${failed} failed in ${((performance.now() - suiteStart) / 1000).toFixed(1)} s` +
    `${SAN.any ? ' (sanitizer build)' : ''}`);
process.exit(failed > 0 ? 1 : 0);
