// What the remote-upstream suites share (tests/remote/*.mjs, `make test-remote`): an upstream
// mcph serving Streamable HTTP on a loopback port of the test's choosing (so that it can be
// killed and started again on the same port), a gateway INI whose mcp sections name an upstream
// by `url`, free ports, the sanitizer slowness factor, and the checks every suite makes of a
// process's stderr (a sanitizer report; a secret that must never be printed).
//
//   const up = await startUpstream(mcph, upstreamIni(ws), 'up');    // up.url, up.port
//   const ini = frontIni(ws, { r: { url: up.url, allow_http: 'yes', allow_networks: '127.0.0.1/32' } });
//   const s = await startSession(mcph, ini);                        // tests/gateway/common.mjs
//   await up.kill('SIGKILL'); await startUpstream(mcph, ini, 'up', up.port);

import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { check, done } from '../lib/check.mjs';
import { endSessions } from '../gateway/common.mjs';
import { Proc, describeExit } from '../lib/proc.mjs';
import { ROOT, SANITIZER_REPORT, sanitizersOf, short, sleep, waitFor } from '../lib/util.mjs';
import { workspace as libWorkspace, writeIni, PLUGINS, TEST_PLUGINS } from '../lib/workspace.mjs';

export { ROOT, PLUGINS, TEST_PLUGINS, short, sleep, waitFor, writeIni };

// Waits scale with the build: 3 times under ASan/UBSan, 5 under TSan (or MCPH_TEST_SLOW).
export function slowFactor(bin) {
    if (process.env.MCPH_TEST_SLOW) return Number(process.env.MCPH_TEST_SLOW) || 1;
    const san = sanitizersOf(bin);
    return san.thread ? 5 : san.any ? 3 : 1;
}

// The binary under test (argv[2], default build/mcph), made absolute.
export function binary() {
    return path.resolve(process.argv[2] || path.join(ROOT, 'build/mcph'));
}

// A fresh build/tests/remote/<name>/.
export function workspace(name) {
    return libWorkspace('remote', name);
}

// An upstream's INI: tests/plugins/basic.c (echo, sleep, greet, fail) under no prefix, plus
// `server` keys (auth_token_file, ...) and more sections.
export function upstreamIni(ws, server = {}, more = {}, file = 'upstream.ini') {
    return writeIni(ws, {
        server: { name: 'mcph-upstream', plugin_dir: TEST_PLUGINS, ...server },
        'plugin.basic': { path: 'basic.so' },
        ...more,
    }, file);
}

// A gateway INI: [server] with the shipped plugins, then one mcp section per entry of
// `sections` ({ name: { url, allow_http, ... } }; prefix = name unless given), then `more`
// sections as they are.
export function frontIni(ws, sections, server = {}, more = {}, file = 'mcph.ini') {
    const spec = { server: { plugin_dir: PLUGINS, ...server } };
    for (const [name, keys] of Object.entries(sections)) {
        spec[`plugin.${name}`] = { path: 'mcp.so', prefix: name, ...keys };
    }
    return writeIni(ws, { ...spec, ...more }, file);
}

// The keys that let a url section reach a plain-http upstream on 127.0.0.1.
export const LOOPBACK = { allow_http: 'yes', allow_networks: '127.0.0.1/32' };

// A TCP port free on host just now (the kernel's choice; the caller binds it soon after).
export function freePort(host = '127.0.0.1') {
    return new Promise((resolve, reject) => {
        const srv = net.createServer();
        srv.once('error', reject);
        srv.listen(0, host, () => {
            const { port } = srv.address();
            srv.close(() => resolve(port));
        });
    });
}

const LISTENING = /listening on (http:\/\/[^ ]*?:(\d+)(\/\S*))/;
const upstreams = new Set();

// An mcph serving HTTP: `mcph --listen HOST:PORT INI`, its stdin closed never (it serves until
// SIGTERM), its stderr kept.
export class Upstream {
    constructor(bin, ini, name, port = 0, host = '127.0.0.1', opts = {}) {
        this.name = name;
        this.proc = new Proc([bin, '--listen', `${host}:${port}`, ini], { cwd: ROOT, env: opts.env });
        this.url = null;
        this.port = null;
        upstreams.add(this);
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
                short(this.proc.stderr.trim().split('\n').slice(-6).join(' | '), 400));
        }
        this.url = m[1];
        this.port = Number(m[2]);
        return this;
    }

    // A signal, then the exit ({ code, signal, timedOut }); SIGKILL after ms.
    async stop(signal = 'SIGTERM', ms = 10000) {
        this.proc.kill(signal);
        const r = await this.proc.wait(ms);
        upstreams.delete(this);
        return r;
    }
}

// An upstream started and listening (ms: how long it may take to say so).
export async function startUpstream(bin, ini, name, port = 0, ms = 10000, host = '127.0.0.1') {
    const up = new Upstream(bin, ini, name, port, host);
    await up.ready(ms);
    return up;
}

// Started again on a port just freed: a few tries while the kernel still holds it.
export async function restartUpstream(bin, ini, name, port, ms = 10000) {
    let last;
    for (let i = 0; i < 20; i++) {
        try {
            return await startUpstream(bin, ini, name, port, ms);
        } catch (err) {
            last = err;
            await sleep(100);
        }
    }
    throw last;
}

// Stop every upstream still running (SIGKILL).
export function killUpstreams() {
    for (const u of upstreams) u.proc.kill('SIGKILL');
    upstreams.clear();
}

// Problems of a process's stderr: a sanitizer report; any of `secrets` printed.
export function stderrProblems(who, text, secrets = []) {
    const out = [];
    const rep = SANITIZER_REPORT.exec(text);
    if (rep) out.push(`${who}: sanitizer report: ${short(text.slice(rep.index), 500)}`);
    for (const s of secrets) if (s && text.includes(s)) out.push(`${who} printed the secret ${short(s, 12)}...`);
    return out;
}

// A file of mode 0600 (a token, headers) in ws.
export function secretFile(ws, name, text) {
    const file = path.join(ws, name);
    fs.writeFileSync(file, text, { mode: 0o600 });
    return file;
}

// The exit of an mcph expected to refuse its INI at start: { code, signal, stderr } within ms.
export async function refusedAtStart(bin, args, ms, opts = {}) {
    const p = new Proc([bin, ...args], { cwd: opts.cwd ?? ROOT, env: opts.env });
    const r = await p.wait(ms);
    return { ...r, stderr: p.stderr, stdout: p.events.map((e) => e.raw).join('\n') };
}

// mcph's exit status for a configuration error (core/main.c EXIT_CONFIG).
export const EXIT_CONFIG = 3;

// The stderr line that says why a section was refused: it names `section` and, once paths and
// URLs are taken out (a workspace path may hold any word), matches `why`; the INI's own
// complaints (an unknown key, a missing command) are not it.
export function refusalLine(stderr, section, why) {
    const named = new RegExp(`(\\b|_)${section}(\\b|_)`);
    return stderr.split('\n').find((l) => {
        if (!named.test(l) || /unknown key|needs 'command'/.test(l)) return false;
        const words = l.split(/\s+/).filter((w) => !w.includes('/') && !w.includes(`.${section}]`));
        return why.test(words.join(' '));
    });
}

// Text on one line (stderr in a problem's message): its lines joined with " | ", the last n.
export function oneLine(text, n = 8) {
    return text.trim().split('\n').slice(-n).join(' | ');
}

// Run a suite's main() within limitMs: past it, or after it throws, the suite fails with a
// line that says so; every session and upstream is ended either way, then the tally printed.
export async function runSuite(name, main, limitMs) {
    const limit = setTimeout(() => {
        console.log(`FAIL remote ${name}: the suite did not end within ${Math.round(limitMs / 1000)} s`);
        endSessions();
        killUpstreams();
        process.exit(1);
    }, limitMs);
    try {
        await main();
    } catch (err) {
        await check(`remote ${name}: the suite ran`, () => [String(err?.stack || err)]);
    } finally {
        clearTimeout(limit);
        endSessions();
        killUpstreams();
    }
    done();
}
