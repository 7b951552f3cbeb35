// Helpers shared by tests/reload/reload.mjs and tests/reload/soak.mjs: workspaces with plugin
// copies and rebuilt variants of tests/plugins/reloadable.c, and a Session that drives one
// mcph process (routes answers by id, records notifications with their arrival time, and
// validates every message mcph sends against the schema of the negotiated revision).

import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { promisify } from 'node:util';
import { spawnProc, describeExit } from '../lib/proc.mjs';
import { makeValidator, defaultSpecDir } from '../lib/schema.mjs';

const execFileP = promisify(execFile);

export const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../..');
export const TEST_PLUGINS = path.join(ROOT, 'build/tests/plugins');
export const WS_ROOT = path.join(ROOT, 'build/tests/reload');

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

let validator = null;
export function getValidator() {
    if (!validator) validator = makeValidator(defaultSpecDir());
    return validator;
}

// A fresh workspace build/tests/reload/<name>/, mode 0755 (and its parents not writable by
// group/others: mcph checks the plugin's folder).
export function workspace(name) {
    for (const d of [path.join(ROOT, 'build'), path.join(ROOT, 'build/tests'), WS_ROOT]) {
        fs.mkdirSync(d, { recursive: true });
        fs.chmodSync(d, 0o755);
    }
    const ws = path.join(WS_ROOT, name);
    fs.rmSync(ws, { recursive: true, force: true });
    fs.mkdirSync(ws, { recursive: true });
    fs.chmodSync(ws, 0o755);
    return ws;
}

// Copy build/tests/plugins/<plugin>.so to ws/<as> (default <plugin>.so), overwriting in place
// when it exists (same inode, like cp).
export function copyPlugin(ws, plugin, as = `${plugin}.so`) {
    const dst = path.join(ws, as);
    fs.copyFileSync(path.join(TEST_PLUGINS, `${plugin}.so`), dst);
    fs.chmodSync(dst, 0o755);
    return dst;
}

// Compile a variant of tests/plugins/reloadable.c to `out` (absolute, or relative to ws).
// opts: { version: 'two', prompt: true, defines: ['X=1'], source: path }.
export async function buildReloadable(ws, out, opts = {}) {
    const dst = path.isAbsolute(out) ? out : path.join(ws, out);
    const args = ['-std=c11', '-D_GNU_SOURCE', '-O0', '-fPIC', '-shared', '-fvisibility=hidden', '-Iplugin-api'];
    if (opts.version !== undefined) args.push(`-DRELOADABLE_VERSION=${JSON.stringify(opts.version)}`);
    if (opts.prompt) args.push('-DRELOADABLE_PROMPT');
    for (const d of opts.defines || []) args.push(`-D${d}`);
    args.push('-o', dst, opts.source || 'tests/plugins/reloadable.c');
    await execFileP('cc', args, { cwd: ROOT });
    fs.chmodSync(dst, 0o755);
    return dst;
}

// Build a variant at a temporary name in the workspace, then rename it over `name`.
export async function buildReloadableAtomic(ws, name, opts = {}) {
    const tmp = path.join(ws, `.tmp-${process.pid}-${Math.random().toString(36).slice(2)}.so`);
    await buildReloadable(ws, tmp, opts);
    fs.renameSync(tmp, path.join(ws, name));
}

export function writeIni(ws, text, name = 'mcph.ini') {
    const file = path.join(ws, name);
    fs.writeFileSync(file, text.replace(/^\n/, ''));
    fs.chmodSync(file, 0o644);
    return file;
}

// One [plugin.NAME] section. keys: { path, prefix, enabled, label, ... }.
export function section(name, keys = {}) {
    let s = `[plugin.${name}]\n`;
    for (const [k, v] of Object.entries(keys)) if (v !== undefined && v !== null) s += `${k} = ${v}\n`;
    return s;
}

export function iniText(sections, server = '') {
    return `[server]\nplugin_dir = .\n${server}\n${sections.join('\n')}`;
}

export const LIST_CHANGED = new Set([
    'notifications/tools/list_changed',
    'notifications/resources/list_changed',
    'notifications/prompts/list_changed',
]);

export class Session {
    // mcph: the binary; ini: the INI path; opts: { watch, rev, initialized (default true),
    // setLevel ('info', or null to skip), args (extra argv), cwd }.
    constructor(mcph, ini, opts = {}) {
        this.mcph = mcph;
        this.ini = ini;
        this.opts = opts;
        this.rev = opts.rev || '2025-11-25';
        this.nextId = 1;
        this.pending = new Map(); // id -> { method, resolve, time }
        this.methods = new Map(); // id -> method (kept for validation of late answers)
        this.notes = []; // { method, params, time }
        this.errors = []; // validation and protocol problems
        this.unsolicited = [];
        this.pumpDone = null;
        this.noteWaiters = new Set();
    }

    async start() {
        const argv = [this.mcph];
        if (this.opts.watch) argv.push('--watch');
        argv.push(...(this.opts.args || []), this.ini);
        this.proc = spawnProc(argv, [], { cwd: this.opts.cwd || ROOT });
        await this.proc.started;
        if (this.proc.spawnError) throw new Error(`cannot start ${this.mcph}: ${this.proc.spawnError.message}`);
        this.pid = this.proc.pid;
        this.pumpDone = this._pump();
        const init = await this.request('initialize', {
            protocolVersion: this.rev,
            capabilities: {},
            clientInfo: { name: 'reload-test', version: '1.0' },
        });
        if (init.error) throw new Error(`initialize failed: ${JSON.stringify(init.error)}`);
        this.rev = init.result.protocolVersion;
        this.initResult = init.result;
        if (this.opts.initialized !== false) this.notify('notifications/initialized');
        const level = this.opts.setLevel === undefined ? 'info' : this.opts.setLevel;
        if (level) {
            const r = await this.request('logging/setLevel', { level });
            if (r.error) throw new Error(`logging/setLevel failed: ${JSON.stringify(r.error)}`);
        }
        return this;
    }

    async _pump() {
        for (;;) {
            const ev = await this.proc.nextEvent(3600_000);
            if (ev === null) break;
            if (ev.type === 'bad') {
                this.errors.push(`bad stdout line: ${ev.error}`);
                continue;
            }
            this._onMessage(ev.msg, ev.time);
        }
        for (const w of [...this.noteWaiters]) w();
        for (const [, p] of this.pending) p.resolve(null);
        this.pending.clear();
    }

    _onMessage(msg, time) {
        const isResponse = msg && typeof msg === 'object' && !Array.isArray(msg) && !('method' in msg);
        const errs = getValidator().validate(this.rev, msg, {
            answers: (id) => this.methods.get(id),
        });
        if (errs.length) {
            this.errors.push(`invalid message ${JSON.stringify(msg).slice(0, 300)}: ${errs.slice(0, 5).join('; ')}`);
        }
        if (isResponse) {
            const p = this.pending.get(msg.id);
            if (!p) {
                this.errors.push(`answer to an unknown id: ${JSON.stringify(msg).slice(0, 200)}`);
                return;
            }
            this.pending.delete(msg.id);
            msg.time = time;
            p.resolve(msg);
            return;
        }
        if ('id' in msg) {
            this.unsolicited.push(msg);
            this.errors.push(`unexpected request from mcph: ${JSON.stringify(msg).slice(0, 200)}`);
            return;
        }
        this.notes.push({ method: msg.method, params: msg.params, time });
        for (const w of [...this.noteWaiters]) w();
    }

    // Send a request; resolves with the whole response (null if mcph went away first).
    request(method, params) {
        const id = this.nextId++;
        const msg = { jsonrpc: '2.0', id, method };
        if (params !== undefined) msg.params = params;
        this.methods.set(id, method);
        return new Promise((resolve) => {
            this.pending.set(id, { method, resolve, time: performance.now() });
            try {
                this.proc.send(msg);
            } catch (err) {
                this.pending.delete(id);
                resolve(null);
            }
        });
    }

    // A request with a time limit: throws when no answer came.
    async call(method, params, ms = 10000) {
        let timer;
        const r = await Promise.race([
            this.request(method, params),
            new Promise((resolve) => {
                timer = setTimeout(() => resolve('timeout'), ms);
            }),
        ]);
        clearTimeout(timer);
        if (r === 'timeout') throw new Error(`no answer to ${method} within ${ms} ms`);
        if (r === null) throw new Error(`mcph exited before answering ${method} (${describeExit(this.proc.exitInfo)})\n${this.stderrTail()}`);
        return r;
    }

    notify(method, params) {
        const msg = { jsonrpc: '2.0', method };
        if (params !== undefined) msg.params = params;
        this.proc.send(msg);
    }

    // tools/call; returns { text, isError, error, msg }.
    async tool(name, args = {}, ms = 10000) {
        const r = await this.call('tools/call', { name, arguments: args }, ms);
        return toolOutcome(r);
    }

    // Every page of a list: names (tools, prompts) or URIs (resources).
    async list(kind) {
        const key = kind === 'resources/templates' ? 'resourceTemplates' : kind;
        const items = [];
        let cursor;
        for (let i = 0; i < 100; i++) {
            const r = await this.call(`${kind}/list`, cursor ? { cursor } : {});
            if (r.error) throw new Error(`${kind}/list: ${JSON.stringify(r.error)}`);
            items.push(...r.result[key]);
            cursor = r.result.nextCursor;
            if (!cursor) break;
        }
        return items;
    }

    async names(kind) {
        const items = await this.list(kind);
        if (kind === 'resources') return items.map((x) => x.uri);
        if (kind === 'resources/templates') return items.map((x) => x.uriTemplate);
        return items.map((x) => x.name);
    }

    // A snapshot of every list, as JSON text, to compare before/after.
    async snapshot() {
        const out = {};
        for (const k of ['tools', 'resources', 'resources/templates', 'prompts']) out[k] = await this.list(k);
        return JSON.stringify(out);
    }

    hup() {
        const t = performance.now();
        process.kill(this.pid, 'SIGHUP');
        return t;
    }

    mark() {
        return { notes: this.notes.length, stderr: this.proc.stderr.length };
    }

    // Run trigger() (may be async), then collect notifications for a bounded window: a ping
    // sent `after` ms later is answered, then `silence` ms pass with no new notification.
    // Returns { notes, listChanged: [methods], messages: [params of notifications/message],
    // stderr: new stderr text }.
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

    since(m) {
        const notes = this.notes.slice(m.notes);
        return {
            notes,
            listChanged: notes.filter((n) => LIST_CHANGED.has(n.method)).map((n) => n.method),
            messages: notes.filter((n) => n.method === 'notifications/message').map((n) => n.params),
            stderr: this.proc.stderr.slice(m.stderr),
        };
    }

    // Wait until pred(notesSinceMark) is true or ms passed; returns pred's last value.
    async waitNotes(m, pred, ms) {
        const deadline = performance.now() + ms;
        let v = pred(this.notes.slice(m.notes));
        while (!v) {
            const left = deadline - performance.now();
            if (left <= 0 || (this.proc.drained && !this.pending.size)) return v;
            await new Promise((resolve) => {
                const done = () => {
                    clearTimeout(timer);
                    this.noteWaiters.delete(done);
                    resolve();
                };
                const timer = setTimeout(done, Math.min(left, 250));
                this.noteWaiters.add(done);
            });
            v = pred(this.notes.slice(m.notes));
        }
        return v;
    }

    stderrTail(n = 1500) {
        const s = this.proc ? this.proc.stderr : '';
        return s.length > n ? `...${s.slice(-n)}` : s;
    }

    alive() {
        return this.proc && !this.proc.exited;
    }

    // Close stdin and wait for the exit status.
    async stop(ms = 10000) {
        if (!this.proc) return null;
        this.proc.close();
        const st = await this.proc.wait(ms);
        await this.pumpDone;
        return st;
    }

    kill() {
        if (this.proc && !this.proc.exited) this.proc.kill('SIGKILL');
    }
}

export function toolOutcome(r) {
    if (r.error) return { error: r.error, msg: r };
    const c = r.result.content || [];
    const text = c.filter((x) => x.type === 'text').map((x) => x.text).join('');
    return { text, isError: r.result.isError === true, msg: r };
}

// Multiset equality of method lists, with a readable diff.
export function sameMethods(got, want) {
    const a = [...got].sort();
    const b = [...want].sort();
    return a.length === b.length && a.every((x, i) => x === b[i]);
}

export function short(methods) {
    return `[${methods.map((m) => m.replace(/^notifications\//, '').replace(/\/list_changed$/, '')).join(', ')}]`;
}

export function median(xs) {
    if (!xs.length) return NaN;
    const s = [...xs].sort((a, b) => a - b);
    const mid = Math.floor(s.length / 2);
    return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
}
