// A child process speaking newline-delimited JSON-RPC on its stdio.
//
//   import { spawnProc, splitCommand } from './proc.mjs';
//   const p = spawnProc(['build/mcph', 'conf/x.ini']);     // or spawnProc('node srv.mjs', [...])
//   p.send({ jsonrpc: '2.0', id: 1, method: 'ping' });     // an object: JSON + "\n"
//   p.send('{"not json');                                  // a string: sent verbatim + "\n"
//   const msg = await p.next(5000);                        // next parsed message, or throws
//   p.close();                                             // close its stdin
//   const { code, signal } = await p.wait(5000);           // exit status (kills on timeout)
//
// Every stdout line must be one JSON value in strict UTF-8: a line that is not (including an
// empty line, bytes that are not UTF-8, or an unterminated last line) is recorded as a "bad"
// event, and next() throws when it reaches it, so a stray write to stdout fails the test.
// stderr is collected in p.stderr (its head and tail when it grows past 4 MiB). Every wait has a
// time limit; children still running when this process exits are killed.

import { spawn } from 'node:child_process';
import fs from 'node:fs';
import { performance } from 'node:perf_hooks';

const live = new Set();
const strictUtf8 = new TextDecoder('utf-8', { fatal: true });
const STDERR_KEEP = 4 * 1024 * 1024;

// Where the first byte that is not part of well-formed UTF-8 is in bytes, or -1 (for messages
// only: the verdict is TextDecoder's).
export function firstBadUtf8(b) {
    for (let i = 0; i < b.length;) {
        const c = b[i];
        let n;
        let lo = 0x80;
        let hi = 0xbf;
        if (c < 0x80) n = 0;
        else if (c >= 0xc2 && c <= 0xdf) n = 1;
        else if (c >= 0xe0 && c <= 0xef) {
            n = 2;
            if (c === 0xe0) lo = 0xa0;
            if (c === 0xed) hi = 0x9f;
        } else if (c >= 0xf0 && c <= 0xf4) {
            n = 3;
            if (c === 0xf0) lo = 0x90;
            if (c === 0xf4) hi = 0x8f;
        } else return i;
        for (let k = 1; k <= n; k++) {
            const d = b[i + k];
            if (d === undefined || d < (k === 1 ? lo : 0x80) || d > (k === 1 ? hi : 0xbf)) return i;
        }
        i += n + 1;
    }
    return -1;
}
process.on('exit', () => {
    for (const child of live) {
        try {
            child.kill('SIGKILL');
        } catch {
            // already gone
        }
    }
});

export class ProcError extends Error {
    constructor(code, message, extra = {}) {
        super(message);
        this.code = code;
        Object.assign(this, extra);
    }
}

// Split a command line into words: whitespace separates, '...' and "..." quote, \ escapes.
export function splitCommand(line) {
    const words = [];
    let cur = '';
    let inWord = false;
    let quote = null;
    for (let i = 0; i < line.length; i++) {
        const c = line[i];
        if (quote) {
            if (c === quote) quote = null;
            else if (c === '\\' && quote === '"' && i + 1 < line.length) cur += line[++i];
            else cur += c;
        } else if (c === "'" || c === '"') {
            quote = c;
            inWord = true;
        } else if (c === '\\' && i + 1 < line.length) {
            cur += line[++i];
            inWord = true;
        } else if (/\s/.test(c)) {
            if (inWord) words.push(cur);
            cur = '';
            inWord = false;
        } else {
            cur += c;
            inWord = true;
        }
    }
    if (quote) throw new Error(`unterminated quote in command: ${line}`);
    if (inWord) words.push(cur);
    return words;
}

export class Proc {
    // argv: array of words (argv[0] is the program). opts: { cwd, env, fds } (fds: more
    // descriptors for the program, as 3, 4, ..., inherited without close-on-exec).
    constructor(argv, opts = {}) {
        if (!Array.isArray(argv) || argv.length === 0) throw new Error('spawnProc: empty command');
        this.argv = argv;
        this.events = []; // { type: 'message'|'bad', msg?, raw, time, error? }
        this.stderr = '';
        this.exitInfo = null; // { code, signal }
        this.lastSendTime = null;
        this.stdinClosed = false;
        this.spawnError = null;
        this._chunks = []; // stdout bytes of the line not ended yet
        this._waiters = new Set();
        this.child = spawn(argv[0], argv.slice(1), {
            cwd: opts.cwd,
            env: opts.env || process.env,
            stdio: ['pipe', 'pipe', 'pipe', ...(opts.fds || [])],
        });
        live.add(this.child);
        this.pid = this.child.pid;
        // Settles once the program started (or failed to: then spawnError is set).
        this.started = new Promise((resolve) => {
            this.child.once('spawn', resolve);
            this.child.once('error', resolve);
        });
        this.child.stderr.setEncoding('utf8');
        this.child.stdout.on('data', (d) => this._onStdout(d));
        this.child.stdout.on('end', () => this._onStdoutEnd());
        this.child.stderr.on('data', (d) => {
            this.stderr += d;
            // Bounded: the head (start-up) and the tail (shutdown, sanitizer reports) matter.
            if (this.stderr.length > STDERR_KEEP) {
                this.stderr = this.stderr.slice(0, STDERR_KEEP / 4) + '\n[...]\n' + this.stderr.slice(-STDERR_KEEP / 2);
            }
            this._wake();
        });
        // Writing to a server that has exited gives EPIPE: that is visible through exit.
        this.child.stdin.on('error', () => {});
        this.child.on('error', (err) => {
            this.spawnError = err;
            if (!this.exitInfo) this.exitInfo = { code: null, signal: null, error: err };
            live.delete(this.child);
            this._wake();
        });
        this._stdoutEnded = false;
        this._closed = new Promise((resolve) => {
            this.child.on('close', (code, signal) => {
                if (!this.exitInfo || this.exitInfo.error) {
                    this.exitInfo = { code, signal, error: this.exitInfo?.error };
                }
                live.delete(this.child);
                this._wake();
                resolve();
            });
        });
    }

    // Lines are split on bytes and each is decoded as strict UTF-8, so that bytes that are not
    // UTF-8 are seen rather than silently replaced.
    _onStdout(buf) {
        let at = 0;
        let nl;
        while ((nl = buf.indexOf(0x0a, at)) >= 0) {
            this._chunks.push(buf.subarray(at, nl));
            const line = this._chunks.length === 1 ? this._chunks[0] : Buffer.concat(this._chunks);
            this._chunks = [];
            this._lineBytes(line);
            at = nl + 1;
        }
        if (at < buf.length) this._chunks.push(buf.subarray(at));
        this._wake();
    }

    _onStdoutEnd() {
        if (this._chunks.length > 0) {
            const raw = Buffer.concat(this._chunks).toString('utf8');
            this._chunks = [];
            this._bad(raw, 'unterminated stdout line at EOF (every message must end with "\\n")');
        }
        this._stdoutEnded = true;
        this._wake();
    }

    _lineBytes(bytes) {
        let text;
        try {
            text = strictUtf8.decode(bytes);
        } catch {
            this._notUtf8(bytes);
            return;
        }
        this._line(text);
    }

    // A stdout line that is not UTF-8 (subclasses may still look at it).
    _notUtf8(bytes) {
        const i = firstBadUtf8(bytes);
        this._bad(bytes.toString('utf8'), `stdout line is not UTF-8 (byte ${i}: ` +
            `${JSON.stringify(bytes.subarray(Math.max(0, i - 30), i + 8).toString('latin1'))})`);
    }

    // Record a bad stdout line.
    _bad(raw, error) {
        this.events.push({ type: 'bad', raw, time: performance.now(), error });
    }

    _line(line) {
        const time = performance.now();
        const text = line.endsWith('\r') ? line.slice(0, -1) : line;
        let msg;
        try {
            if (text.trim() === '') throw new Error('empty line');
            msg = JSON.parse(text);
        } catch (err) {
            this._bad(line, `stdout line is not JSON (${err.message}): ${JSON.stringify(line.slice(0, 200))}`);
            return;
        }
        const ev = { type: 'message', msg, raw: line, time };
        if (this.onMessage) this.onMessage(ev);
        this.events.push(ev);
    }

    _wake() {
        for (const w of [...this._waiters]) w();
    }

    // Resolve when pred() is true or after ms; returns pred()'s last value.
    async waitFor(pred, ms) {
        const deadline = performance.now() + ms;
        let v = pred();
        while (!v) {
            const left = deadline - performance.now();
            if (left <= 0) return v;
            await new Promise((resolve) => {
                const done = () => {
                    clearTimeout(timer);
                    this._waiters.delete(done);
                    resolve();
                };
                // Woken by output and exits; a predicate on anything else is looked at again
                // every 250 ms.
                const timer = setTimeout(done, Math.min(left, 250));
                this._waiters.add(done);
            });
            v = pred();
        }
        return v;
    }

    get exited() {
        return this.exitInfo !== null;
    }

    // True when no more stdout can come: the stream ended and the process is gone.
    get drained() {
        return this.exited && (this._stdoutEnded || this.spawnError !== null);
    }

    // Send an object (as one JSON line) or a raw string (verbatim, plus "\n").
    send(objOrLine) {
        const line = typeof objOrLine === 'string' ? objOrLine : JSON.stringify(objOrLine);
        if (this.stdinClosed) throw new ProcError('ECLOSED', 'send after close()');
        this.child.stdin.write(line + '\n');
        this.lastSendTime = performance.now();
    }

    // The next stdout event ({type:'message'|'bad', ...}), or null after timeoutMs or when the
    // process is gone and its stdout drained.
    async nextEvent(timeoutMs = 5000) {
        await this.waitFor(() => this.events.length > 0 || this.drained, timeoutMs);
        return this.events.length > 0 ? this.events.shift() : null;
    }

    // The next message. Throws ProcError: ETIMEDOUT, EEXITED (gone before sending one) or
    // EBADLINE (a non-JSON stdout line).
    async next(timeoutMs = 5000) {
        const ev = await this.nextEvent(timeoutMs);
        if (ev === null) {
            if (this.drained) {
                throw new ProcError('EEXITED', `process exited (${describeExit(this.exitInfo)}) ` +
                    'before sending the expected message');
            }
            throw new ProcError('ETIMEDOUT', `no message within ${timeoutMs} ms`);
        }
        if (ev.type === 'bad') throw new ProcError('EBADLINE', ev.error, { event: ev });
        return ev.msg;
    }

    // Close the child's stdin (EOF).
    close() {
        if (!this.stdinClosed) {
            this.stdinClosed = true;
            this.child.stdin.end();
        }
    }

    kill(signal = 'SIGTERM') {
        if (this.exited) return false;
        return this.child.kill(signal);
    }

    // Wait for the process to exit and its pipes to close. Returns { code, signal }. On timeout
    // kills it (SIGKILL) and returns { code, signal, timedOut: true }.
    async wait(timeoutMs = 5000) {
        let timer;
        const timedOut = await Promise.race([
            this._closed.then(() => false),
            new Promise((resolve) => {
                timer = setTimeout(() => resolve(true), timeoutMs);
            }),
        ]);
        clearTimeout(timer);
        if (timedOut) {
            this.child.kill('SIGKILL');
            await Promise.race([this._closed, new Promise((r) => setTimeout(r, 2000))]);
            return { ...(this.exitInfo || { code: null, signal: 'SIGKILL' }), timedOut: true };
        }
        return { ...this.exitInfo };
    }
}

export function describeExit(info) {
    if (!info) return 'still running';
    if (info.error && info.code === null) return `could not start: ${info.error.message}`;
    if (info.signal) return `killed by ${info.signal}`;
    return `status ${info.code}`;
}

// The words of a command given as a string: an existing file's path is one word (even with
// spaces in it), anything else is split with splitCommand ("node fake.mjs --flag").
export function commandWords(command) {
    if (fs.existsSync(command) && fs.statSync(command).isFile()) return [command];
    return splitCommand(command);
}

// spawnProc(command, extraArgs, opts): command is an argv array or a command line string
// (see commandWords); extraArgs are appended.
export function spawnProc(command, extraArgs = [], opts = {}) {
    const argv = Array.isArray(command) ? [...command] : commandWords(command);
    return new Proc([...argv, ...extraArgs], opts);
}
