// What the parts of the mcp plugin's suite share (tests/gateway/gateway.mjs runs them): the
// external servers and how to start them, workspaces with an [plugin.NAME] section of the mcp
// plugin, processes found by a marker in /proc, and the normalising of results that differ
// from call to call.

import fs from 'node:fs';
import path from 'node:path';
import { ROOT, sleep, waitFor, short, SANITIZER_REPORT } from '../lib/util.mjs';
import { check } from '../lib/check.mjs';
import { workspace as libWorkspace, writeIni, PLUGINS } from '../lib/workspace.mjs';
import { Session } from '../lib/session.mjs';
import { makeValidator, defaultSpecDir } from '../lib/schema.mjs';

export { ROOT, sleep, waitFor, short, PLUGINS };

export const NODE = process.execPath;
const MODULES = path.join(ROOT, 'tests/node_modules/@modelcontextprotocol');
export const SERVERS = {
    everything: path.join(MODULES, 'server-everything/dist/index.js'), // argument: stdio
    filesystem: path.join(MODULES, 'server-filesystem/dist/index.js'), // arguments: folders
    memory: path.join(MODULES, 'server-memory/dist/index.js'), // env MEMORY_FILE_PATH
};
export const FAKE = path.join(ROOT, 'tests/gateway/fake-server.mjs');
export const TAP = path.join(ROOT, 'tests/gateway/tap.mjs');
// The environment mcph gives a server (spawn.c): these three, then the section's env key.
export const BASE_ENV = { PATH: '/usr/local/bin:/usr/bin:/bin', LANG: 'C.UTF-8', HOME: process.env.HOME || '/' };

// A fresh build/tests/gateway/<name>/ with fake.mjs linked in, so that commands stay short
// (inih reads lines under 200 bytes) and relative to the workspace, the servers' cwd.
export function workspace(name) {
    const ws = libWorkspace('gateway', name);
    fs.symlinkSync(FAKE, path.join(ws, 'fake.mjs'));
    return ws;
}

// [server] with the shipped plugins, then one mcp section per entry of `sections`:
// { name: { command, prefix, env, cwd, startup_timeout_ms, ...more keys } }.
export function gatewayIni(ws, sections, server = {}, file = 'mcph.ini') {
    const spec = { server: { plugin_dir: PLUGINS, ...server } };
    for (const [name, keys] of Object.entries(sections)) {
        spec[`plugin.${name}`] = { path: 'mcp.so', prefix: name, ...keys };
    }
    return writeIni(ws, spec, file);
}

// The command of a fake server: `node fake.mjs MODE --marker MARKER [more]`.
export function fakeCommand(mode, marker, more = '') {
    return `${NODE} fake.mjs ${mode} --marker ${marker}${more ? ` ${more}` : ''}`;
}

let validator = null;
export function getValidator() {
    if (!validator) validator = makeValidator(defaultSpecDir());
    return validator;
}

const sessions = new Set(); // every session started and not ended: killed by endSessions()

// A raw JSON-RPC session with mcph (tests/lib/session.mjs), initialized at 2025-11-25 with
// logging at `setLevel`; every line validated against its revision's schema.
export async function startSession(mcph, ini, opts = {}) {
    const s = new Session(mcph, ini, { validator: getValidator(), strict: true, timeoutMs: 15000, ...opts });
    sessions.add(s);
    await s.initialize({ rev: opts.rev || '2025-11-25', setLevel: opts.setLevel === undefined ? 'debug' : opts.setLevel, capabilities: opts.capabilities, ms: opts.initMs || 30000 });
    return s;
}

// Close a session's stdin and wait for mcph to exit (killed after 5 s).
export async function endSession(s) {
    sessions.delete(s);
    return s.stop(5000);
}

// A session whose mcph the caller ended itself.
export function forgetSession(s) {
    sessions.delete(s);
}

// Kill every session still open (after a failure or the time limit).
export function endSessions() {
    for (const s of sessions) s.kill('SIGKILL');
    sessions.clear();
}

// What a session saw that breaks the protocol since the last look, and a sanitizer's report
// in mcph's stderr (once).
function drain(s) {
    if (!s) return [];
    const all = s.problems();
    const fresh = all.slice(s.seenProblems || 0);
    s.seenProblems = all.length;
    const report = SANITIZER_REPORT.exec(s.stderr);
    if (report && !s.sanitizerSeen) {
        s.sanitizerSeen = true;
        fresh.push(`sanitizer report in mcph's stderr: ${short(s.stderr.slice(report.index), 400)}`);
    }
    return fresh;
}

// One named check ("gateway NAME"); session() gives the session whose problems fail it too.
export function step(name, fn, session = () => null) {
    return check(`gateway ${name}`, fn, { problems: () => drain(session()) });
}

// --- Processes. ---

function cmdline(pid) {
    try {
        return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
    } catch {
        return null;
    }
}

function state(pid) {
    try {
        const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
        return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
    } catch {
        return null;
    }
}

// Live processes (zombies left out) with `marker` as one of their arguments.
export function pidsByMarker(marker) {
    const out = [];
    for (const e of fs.readdirSync('/proc')) {
        if (!/^\d+$/.test(e)) continue;
        const argv = cmdline(e);
        if (argv && argv.includes(marker) && state(e) !== 'Z' && state(e) !== null) out.push(Number(e));
    }
    return out;
}

// Wait (at most ms) until no live process carries marker; returns the ones left.
export async function waitNoMarker(marker, ms) {
    await waitFor(() => pidsByMarker(marker).length === 0, ms, 20);
    return pidsByMarker(marker);
}

// Wait (at most ms) until exactly one live process carries marker, and not one of `not`;
// returns its pid or null.
export async function waitOneMarker(marker, ms, not = []) {
    const ok = () => {
        const p = pidsByMarker(marker);
        return p.length === 1 && !not.includes(p[0]) ? p[0] : null;
    };
    return (await waitFor(ok, ms, 20)) || null;
}

export function fdCount(pid) {
    try {
        return fs.readdirSync(`/proc/${pid}/fd`).length;
    } catch {
        return NaN;
    }
}

// Threads of a process.
export function threadCount(pid) {
    try {
        return fs.readdirSync(`/proc/${pid}/task`).length;
    } catch {
        return NaN;
    }
}

export function killMarker(marker) {
    for (const pid of pidsByMarker(marker)) {
        try {
            process.kill(pid, 'SIGKILL');
        } catch {
            // gone
        }
    }
}

// The markers one check file gives its servers (gw-NAME-PID), and the clean-up that ends its
// sessions and every process a marker names.
export function markerSet(run = `${process.pid}`) {
    const made = [];
    return {
        marker(name) {
            const m = `gw-${name}-${run}`;
            made.push(m);
            return m;
        },
        cleanup() {
            endSessions();
            for (const m of made) killMarker(m);
        },
    };
}

// Lines of a fake server's --log file, parsed.
export function events(file) {
    try {
        return fs.readFileSync(file, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l));
    } catch {
        return [];
    }
}

// --- Results. ---

// The text of a CallToolResult's text items.
export const textOf = (r) => (r?.content || []).filter((c) => c.type === 'text').map((c) => c.text).join('\n');

const TIME = /\b\d{1,2}:\d{2}:\d{2}\s?[AP]M\b/g;
const isObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);
// Only behind mcph: the tap's variable (get-env) and, under 2026-07-28, the server's name in
// every result's _meta and the cache hints of cacheable results.
const GATEWAY_ONLY_ENV = 'MCPH_GW_TAP';
const GATEWAY_ONLY = new Set(['io.modelcontextprotocol/serverInfo', 'cacheScope', 'ttlMs']);

// Text that is a JSON object (get-env's environment, a structured result as text): parsed,
// normalised and printed again, so that the order of its members does not matter.
function normaliseText(t) {
    if (/^\s*\{/.test(t)) {
        try {
            const o = JSON.parse(t);
            if (isObject(o)) {
                delete o[GATEWAY_ONLY_ENV];
                return JSON.stringify(normalise(o), null, 2);
            }
        } catch {
            // not JSON after all
        }
    }
    return t.replace(TIME, '<time>');
}

// A result with what differs from call to call made the same: clock times in text (and in
// base64 blobs, decoded), JSON text re-printed with sorted members, what only mcph adds (see
// above), and members whose value is undefined. Key order is sorted.
export function normalise(v) {
    if (typeof v === 'string') return normaliseText(v);
    if (Array.isArray(v)) return v.map(normalise);
    if (!isObject(v)) return v;
    const out = {};
    for (const k of Object.keys(v).sort()) {
        if (v[k] === undefined || GATEWAY_ONLY.has(k)) continue;
        if (k === 'blob' && typeof v[k] === 'string') {
            const text = Buffer.from(v[k], 'base64').toString('utf8');
            out[k] = /^[\x20-\x7e\s]*$/.test(text) ? `base64 of: ${normaliseText(text)}` : v[k];
        } else {
            out[k] = normalise(v[k]);
        }
    }
    if (isObject(v._meta) && Object.keys(out._meta).length === 0) delete out._meta;
    return out;
}

// The first difference between two normalised values, as "path: a vs b", or null.
export function firstDifference(a, b, at = '') {
    if (JSON.stringify(a) === JSON.stringify(b)) return null;
    if (isObject(a) && isObject(b)) {
        for (const k of new Set([...Object.keys(a), ...Object.keys(b)])) {
            const d = firstDifference(a[k], b[k], `${at}.${k}`);
            if (d) return d;
        }
    }
    if (Array.isArray(a) && Array.isArray(b)) {
        if (a.length !== b.length) return `${at || '/'}: ${a.length} items vs ${b.length}`;
        for (let i = 0; i < a.length; i++) {
            const d = firstDifference(a[i], b[i], `${at}[${i}]`);
            if (d) return d;
        }
    }
    return `${at || '/'}: ${short(a, 160)} vs ${short(b, 160)}`;
}

