// A JSON-RPC client session with mcph (or any program speaking MCP on stdio), over real pipes,
// for the suites that drive the binary themselves (tests/reload, tests/edges, tests/hostile).
// Built on Proc (tests/lib/proc.mjs): every stdout line is strict UTF-8 and one JSON value.
//
//   import { Session } from '../lib/session.mjs';
//   const s = new Session('build/mcph', ini, { validator, strict: true });  // spawned at once
//   await s.initialize({ rev: '2025-11-25', setLevel: 'info' });
//   const r = await s.call('tools/list');            // the whole response; throws when none came
//   const id = s.request('tools/call', { name: 'slow', arguments: {} });  // just send it
//   const a = await s.answer(id, 5000);              // its response, or null (timeout or exit)
//   s.send('{"raw": "line"}');                        // an object, a string or a Buffer, + "\n"
//   const m = s.mark(); s.hup(); await s.waitNotes(m, (ns) => ns.length > 0, 3000);
//   const st = await s.stop(5000);                   // close stdin: { code, signal, timedOut, ms }
//
// What arrives is sorted as it comes: responses and requests from the server wait in `inbox`
// ({ msg, raw, time }; answer() takes them by id), notifications go to `notes` ({ method,
// params, time }), and a request from the server is answered by opts.onRequest(msg) (its value
// is the result; a throw {code, message} an error). A batch is taken apart. `bad` lists stdout
// lines that are not JSON-RPC 2.0 messages in UTF-8 ("line N: why"; a line that is not UTF-8 is
// still read as a message); `errors` lists protocol problems: with opts.validator, every
// message that breaks the schema of the revision it belongs to (tests/lib/era.mjs); with
// opts.strict, answers to ids never asked (or asked once and answered twice) and requests no
// onRequest answers. problems() is both. Every wait has a time limit.

import fs from 'node:fs';
import { performance } from 'node:perf_hooks';
import { Proc, describeExit } from './proc.mjs';
import { EraTracker } from './era.mjs';
import { ROOT, sleep, short } from './util.mjs';

export const LIST_CHANGED = new Set([
    'notifications/tools/list_changed',
    'notifications/resources/list_changed',
    'notifications/prompts/list_changed',
]);

const isObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);
const key = (id) => JSON.stringify(id);

// { text, isError, error, msg } of a tools/call response.
export function toolOutcome(r) {
    if (r.error) return { error: r.error, msg: r };
    const c = r.result.content || [];
    const text = c.filter((x) => x.type === 'text').map((x) => x.text).join('');
    return { text, isError: r.result.isError === true, msg: r };
}

export class Session extends Proc {
    // bin: the program; ini: the INI it is given last (null: none). opts: { args (before the
    // INI), watch (--watch), cwd (default the repository root), env, validator, strict,
    // onRequest, idPrefix (ids are idPrefix + a counter; default plain numbers from 1),
    // timeoutMs (default 10000) }.
    constructor(bin, ini, opts = {}) {
        const argv = [bin, ...(opts.watch ? ['--watch'] : []), ...(opts.args || []), ...(ini ? [ini] : [])];
        super(argv, { cwd: opts.cwd ?? ROOT, env: opts.env, fds: opts.fds });
        this.opts = opts;
        this.timeoutMs = opts.timeoutMs ?? 10000;
        this.rev = null; // the negotiated revision, after initialize()
        this.initResult = null;
        this.inbox = [];
        this.notes = [];
        this.requests = []; // every request the server sent
        this.bad = [];
        this.errors = [];
        this.lines = 0;
        this.nextId = 1;
        this.open = new Map(); // JSON id -> method: requests sent and not answered yet
        this.era = opts.validator ? new EraTracker({ hasRevision: (r) => opts.validator.hasRevision(r) }) : null;
    }

    // --- What arrives. ---

    _lineBytes(bytes) {
        this.lines++;
        super._lineBytes(bytes);
    }

    _bad(raw, error) {
        this.bad.push(`line ${this.lines}: ${error}`);
    }

    _notUtf8(bytes) {
        super._notUtf8(bytes);
        this._line(bytes.toString('utf8'));
    }

    _line(text) {
        const time = performance.now();
        let msg;
        try {
            msg = JSON.parse(text);
        } catch (err) {
            this._bad(text, `not JSON (${err.message}): ${JSON.stringify(text.slice(0, 120))}`);
            return;
        }
        if (msg === null || typeof msg !== 'object') {
            this._bad(text, `not a JSON-RPC message: ${text.slice(0, 120)}`);
            return;
        }
        for (const m of Array.isArray(msg) ? msg : [msg]) {
            if (!isObject(m) || m.jsonrpc !== '2.0') {
                this._bad(text, `not a JSON-RPC 2.0 message: ${text.slice(0, 120)}`);
                continue;
            }
            this._receive(m, text, time);
        }
    }

    _receive(msg, raw, time) {
        if (this.era) {
            const c = this.era.received(msg);
            const errs = [...c.problems, ...this.opts.validator.validate(c.rev, msg, { answers: c.method })];
            if (errs.length) this.errors.push(`invalid message ${short(raw, 300)}: ${errs.slice(0, 5).join('; ')}`);
        }
        const isRequest = typeof msg.method === 'string' && 'id' in msg;
        if (typeof msg.method === 'string' && !isRequest) {
            this.notes.push({ method: msg.method, params: msg.params, time });
            return;
        }
        if (isRequest) {
            this.requests.push(msg);
            if (this.opts.onRequest) {
                this._answerServer(msg);
                return;
            }
            if (this.opts.strict) this.errors.push(`unexpected request from the server: ${short(raw, 200)}`);
        } else if (this.open.has(key(msg.id))) {
            this.open.delete(key(msg.id));
        } else if (this.opts.strict) {
            this.errors.push(`answer to an unknown id: ${short(raw, 200)}`);
        }
        Object.defineProperty(msg, 'time', { value: time, enumerable: false });
        this.inbox.push({ msg, raw, time });
    }

    async _answerServer(msg) {
        let reply;
        try {
            reply = { jsonrpc: '2.0', id: msg.id, result: await this.opts.onRequest(msg) };
        } catch (err) {
            reply = { jsonrpc: '2.0', id: msg.id, error: { code: Number.isInteger(err?.code) ? err.code : -32603, message: String(err?.message || err) } };
        }
        if (!this.stdinClosed) this.send(reply);
    }

    // --- Sending. ---

    // One message: an object (as JSON), a string (its UTF-8) or a Buffer (bytes as they are),
    // plus "\n". Returns write()'s answer (false: wait for drain()).
    send(x) {
        if (this.stdinClosed) throw new Error('send after close()');
        if (isObject(x) || Array.isArray(x)) {
            for (const m of Array.isArray(x) ? x : [x]) {
                if (isObject(m) && typeof m.method === 'string' && 'id' in m) this.open.set(key(m.id), m.method);
            }
            if (this.era) this.era.sent(x);
        }
        const data = Buffer.isBuffer(x) ? Buffer.concat([x, Buffer.from('\n')])
            : (typeof x === 'string' ? x : JSON.stringify(x)) + '\n';
        this.lastSendTime = performance.now();
        return this.child.stdin.write(data);
    }

    notify(method, params) {
        const msg = { jsonrpc: '2.0', method };
        if (params !== undefined) msg.params = params;
        this.send(msg);
    }

    // Send a request with the next id; returns the id.
    request(method, params) {
        const id = this.opts.idPrefix ? `${this.opts.idPrefix}${this.nextId++}` : this.nextId++;
        const msg = { jsonrpc: '2.0', id, method };
        if (params !== undefined) msg.params = params;
        this.send(msg);
        return id;
    }

    // Takes and returns the first response (result or error) to id; null after ms, or when the
    // server is gone without one.
    async answer(id, ms = this.timeoutMs) {
        const match = (e) => e.msg.id === id && e.msg.method === undefined && ('result' in e.msg || 'error' in e.msg);
        await this.waitFor(() => this.inbox.some(match) || this.drained, ms);
        const i = this.inbox.findIndex(match);
        return i >= 0 ? this.inbox.splice(i, 1)[0].msg : null;
    }

    // A request and its response; throws when none came within ms.
    async call(method, params, ms = this.timeoutMs) {
        const id = this.request(method, params);
        const r = await this.answer(id, ms);
        if (r === null) {
            if (this.exited) throw new Error(`the server exited before answering ${method} (${describeExit(this.exitInfo)})\n${this.stderrTail(15, '\n')}`);
            throw new Error(`no answer to ${method} within ${ms} ms`);
        }
        return r;
    }

    // Milliseconds a ping took, or null when not answered within ms.
    async ping(ms = this.timeoutMs) {
        const t0 = performance.now();
        const m = await this.answer(this.request('ping'), ms);
        return m && m.result ? performance.now() - t0 : null;
    }

    // Many lines at once, in slices, waiting for the pipe to take each (bounded by ms); false
    // when it did not.
    async flood(lines, ms = 30000) {
        const deadline = performance.now() + ms;
        for (let i = 0; i < lines.length; i += 2000) {
            if (!this.child.stdin.write(lines.slice(i, i + 2000).join('\n') + '\n')) {
                if (!(await this.drain(deadline - performance.now()))) return false;
            }
        }
        this.lastSendTime = performance.now();
        return true;
    }

    async drain(ms) {
        if (this.child.stdin.writableLength === 0) return true;
        return new Promise((resolve) => {
            const t = setTimeout(() => resolve(false), Math.max(0, ms));
            this.child.stdin.once('drain', () => {
                clearTimeout(t);
                resolve(true);
            });
        });
    }

    // --- The MCP session. ---

    // initialize (then notifications/initialized unless initialized is false, then
    // logging/setLevel when setLevel names a level); returns the result, throws when it failed.
    // opts: { rev (default 2025-11-25), capabilities, clientInfo, params (more members), ms }.
    async initialize(opts = {}) {
        await this.started;
        if (this.spawnError) throw new Error(`cannot start ${this.argv[0]}: ${this.spawnError.message}`);
        const r = await this.call('initialize', {
            protocolVersion: opts.rev || '2025-11-25',
            capabilities: opts.capabilities || {},
            clientInfo: opts.clientInfo || { name: 'mcph-tests', version: '1.0' },
            ...(opts.params || {}),
        }, opts.ms);
        if (!r.result) throw new Error(`initialize failed: ${short(r)}; stderr: ${this.stderrTail(3)}`);
        this.rev = r.result.protocolVersion;
        this.initResult = r.result;
        if (opts.initialized !== false) this.notify('notifications/initialized');
        if (opts.setLevel) {
            const l = await this.call('logging/setLevel', { level: opts.setLevel }, opts.ms);
            if (l.error) throw new Error(`logging/setLevel failed: ${short(l.error)}`);
        }
        return r.result;
    }

    // tools/call; { text, isError, error, msg }.
    async tool(name, args = {}, ms = this.timeoutMs) {
        return toolOutcome(await this.call('tools/call', { name, arguments: args }, ms));
    }

    // Every page of a list (kind: tools, resources, resources/templates, prompts).
    async list(kind) {
        const field = kind === 'resources/templates' ? 'resourceTemplates' : kind;
        const items = [];
        let cursor;
        for (let i = 0; i < 100; i++) {
            const r = await this.call(`${kind}/list`, cursor ? { cursor } : {});
            if (r.error) throw new Error(`${kind}/list: ${JSON.stringify(r.error)}`);
            items.push(...r.result[field]);
            cursor = r.result.nextCursor;
            if (!cursor) break;
        }
        return items;
    }

    // The names of a list: tool and prompt names, resource URIs, URI templates.
    async names(kind) {
        const items = await this.list(kind);
        if (kind === 'resources') return items.map((x) => x.uri);
        if (kind === 'resources/templates') return items.map((x) => x.uriTemplate);
        return items.map((x) => x.name);
    }

    // Every list, as JSON text, to compare before and after.
    async snapshot() {
        const out = {};
        for (const k of ['tools', 'resources', 'resources/templates', 'prompts']) out[k] = await this.list(k);
        return JSON.stringify(out);
    }

    // --- Notifications. ---

    // Where the notes and stderr are now, for since() and waitNotes().
    mark() {
        return { notes: this.notes.length, stderr: this.stderr.length };
    }

    // What came after a mark: { notes, listChanged: [methods], messages: [params of
    // notifications/message], stderr: new stderr text }.
    since(m) {
        const notes = this.notes.slice(m.notes);
        return {
            notes,
            listChanged: notes.filter((n) => LIST_CHANGED.has(n.method)).map((n) => n.method),
            messages: notes.filter((n) => n.method === 'notifications/message').map((n) => n.params),
            stderr: this.stderr.slice(m.stderr),
        };
    }

    // Wait until pred(notes since the mark) is true, ms passed or the server is gone; returns
    // pred's last value.
    async waitNotes(m, pred, ms) {
        await this.waitFor(() => pred(this.notes.slice(m.notes)) || this.drained, ms);
        return pred(this.notes.slice(m.notes));
    }

    // Run trigger() (may be async), then collect notifications for a bounded window: a ping
    // sent `after` ms later is answered, then `silence` ms pass with no new notification (at
    // most `max` ms). Returns since(the mark before the trigger).
    async window(trigger, { after = 300, silence = 250, max = 5000 } = {}) {
        const m = this.mark();
        if (trigger) await trigger();
        await sleep(after);
        await this.call('ping', undefined, max);
        let count = this.notes.length;
        const deadline = performance.now() + max;
        for (;;) {
            await sleep(silence);
            if (this.notes.length === count || performance.now() > deadline) break;
            count = this.notes.length;
        }
        return this.since(m);
    }

    // --- The process. ---

    hup() {
        const t = performance.now();
        process.kill(this.pid, 'SIGHUP');
        return t;
    }

    alive() {
        return !this.exited;
    }

    problems() {
        return [...this.bad.map((b) => `stdout ${b}`), ...this.errors];
    }

    // The last n lines of stderr, joined with sep.
    stderrTail(n = 5, sep = ' | ') {
        return this.stderr.trim().split('\n').slice(-n).join(sep);
    }

    // VmRSS in KiB (NaN when gone).
    rssKiB() {
        try {
            const m = /VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${this.pid}/status`, 'utf8'));
            return m ? Number(m[1]) : NaN;
        } catch {
            return NaN;
        }
    }

    // Bytes the process has read() so far (all files, stdin included).
    readBytes() {
        try {
            return Number(/rchar:\s+(\d+)/.exec(fs.readFileSync(`/proc/${this.pid}/io`, 'utf8'))[1]);
        } catch {
            return NaN;
        }
    }

    // Close stdin and wait for the exit: { code, signal, timedOut, ms } (killed after ms).
    async stop(ms = this.timeoutMs) {
        const t0 = performance.now();
        this.close();
        const r = await this.wait(ms);
        return { ...r, timedOut: !!r.timedOut, ms: performance.now() - t0 };
    }
}
