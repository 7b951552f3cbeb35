// tests/trust/audit.mjs: the audit log ([server] audit) of the real binary, over real pipes and
// sockets on loopback.
//
//   node tests/trust/audit.mjs build/mcph          (make test-trust)
//
// Starts build/mcph --listen 127.0.0.1:0 with two bearer tokens, and build/mcph on stdio, each
// with an audit log of its own (build/tests/trust/audit/): two HTTP clients (one per token)
// and the stdio client make a few thousand calls, bounded in time: echo (a result), fail (a
// tool error), an unknown tool, arguments that are not an object and a tools/call without a
// name (invalid params), an unknown resource, a second add past [limit.add] (rate limited), a
// count cancelled over stdio, an echo with a traceparent in _meta; and b_echo, served by a
// second section with audit_arguments = yes. Then:
//   - every call has one line with its principal (token:1, token:2, local), transport,
//     request id, target, section, outcome (and code and why), duration, trace id (the one
//     sent, when one was) and the SHA-256 of its arguments' compact JSON; the arguments
//     themselves only for the audit_arguments section;
//   - mcph --verify-audit passes; copies with one changed byte, one removed line, two
//     swapped lines and the header removed fail (exit 1) naming that line;
//   - the file moved, SIGHUP: a new file starts with a header naming the old file's last MAC,
//     and both verify;
//   - a log on /dev/full: the calls still answer, stderr says the log cannot be written and
//     counts the lines lost.
// Time bounds are multiplied by MCPH_TEST_SLOW (default 1, 3 under ASan/UBSan, 5 under TSan).

import crypto from 'node:crypto';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

import { Proc } from '../lib/proc.mjs';
import { check, done, expect, expectEq } from '../lib/check.mjs';
import { workspace, writeIni, PLUGINS } from '../lib/workspace.mjs';
import { ROOT, sleep, waitFor, sanitizersOf, SANITIZER_REPORT } from '../lib/util.mjs';
import { modernRequest, post, startServer, stopAll, servers } from '../http/clients-lib.mjs';

const BIN = path.resolve(process.argv[2] || path.join(ROOT, 'build/mcph'));
const SAN = sanitizersOf(BIN);
const SLOW = Number(process.env.MCPH_TEST_SLOW) || (SAN.thread ? 5 : SAN.any ? 3 : 1);
const TOKENS = ['audit-token-one-0123456789abcdef', 'audit-token-two-0123456789abcdef'];
const AUTH = TOKENS.map((t) => ({ Authorization: `Bearer ${t}` }));
const START_MS = 15000 * SLOW;
const ECHOES = 1000; // calls per client
const IN_FLIGHT = 8; // HTTP requests at once per client
const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';

const ws = workspace('trust', 'audit');
const tokenFile = path.join(ws, 'tokens');
fs.writeFileSync(tokenFile, `${TOKENS.join('\n')}\n`);
fs.chmodSync(tokenFile, 0o600);
const httpLog = path.join(ws, 'http.jsonl');
const stdioLog = path.join(ws, 'stdio.jsonl');
const fullLog = path.join(ws, 'full.jsonl');
fs.symlinkSync('/dev/full', fullLog);

const example = { path: path.join(PLUGINS, 'example.so') };
const sections = {
    'plugin.example': example,
    'plugin.second': { ...example, prefix: 'b', tools: 'echo', resources: '!*', prompts: '!*', audit_arguments: 'yes' },
    'limit.add': { tools: 'add', rate: '1/min', burst: 1 },
};
const ini = (name, log, more = {}) => writeIni(ws, { server: { name, audit: log, workers: 4, ...more }, ...sections }, `${name}.ini`);

const sha = (v) => crypto.createHash('sha256').update(JSON.stringify(v)).digest('hex');
const readLines = (file) => {
    try {
        return fs.readFileSync(file, 'utf8').split('\n').filter((l) => l !== '').map((l) => JSON.parse(l));
    } catch {
        return [];
    }
};
const verify = (file, key) => spawnSync(BIN, ['--verify-audit', file, ...(key ? ['--audit-key', key] : [])], { encoding: 'utf8', timeout: 20000 * SLOW });

// What was sent and what its line must say: id -> {principal, target, plugin, outcome, code, why, args}.
const expected = new Map();
const want = (id, w) => expected.set(JSON.stringify(id), w);

// --- HTTP: two tokens, several clients at once. ---

const httpSrv = await startServer(BIN, ini('audit-http', httpLog, { auth_token_file: tokenFile }), 'http', START_MS);

// n requests made by make(i), IN_FLIGHT at a time; returns the answers.
async function runPool(n, make, headers) {
    const out = new Array(n);
    let next = 0;
    const deadline = Date.now() + 60000 * SLOW;
    async function worker() {
        while (next < n && Date.now() < deadline) {
            const i = next++;
            out[i] = await post(httpSrv.url, make(i), { headers, ms: 20000 * SLOW });
        }
    }
    await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
    return out;
}

await check('HTTP: two tokens make a few thousand calls, all answered', async () => {
    const jobs = [0, 1].map((k) => {
        const who = `token:${k + 1}`;
        const p = `t${k}-`;
        const make = (i) => {
            const id = `${p}${i}`;
            let msg;
            if (i % 50 === 1) {
                msg = modernRequest(id, 'tools/call', { name: 'fail', arguments: {} });
                want(id, { principal: who, target: 'fail', plugin: 'example', outcome: 'tool_error', args: {} });
            } else if (i % 50 === 2) {
                msg = modernRequest(id, 'tools/call', { name: 'nope', arguments: { x: i } });
                want(id, { principal: who, target: 'nope', plugin: null, outcome: 'refused', why: 'unknown', code: -32602, args: { x: i } });
            } else if (i % 50 === 3) {
                msg = modernRequest(id, 'tools/call', { name: 'echo', arguments: `not an object ${i}` });
                want(id, { principal: who, target: 'echo', plugin: null, outcome: 'refused', why: 'invalid', code: -32602, args: `not an object ${i}` });
            } else if (i % 50 === 4) {
                msg = modernRequest(id, 'resources/read', { uri: 'nowhere:///x' });
                want(id, { principal: who, target: 'nowhere:///x', plugin: null, outcome: 'refused', why: 'unknown', args: null });
            } else if (i % 10 === 5) {
                msg = modernRequest(id, 'tools/call', { name: 'b_echo', arguments: { text: `secret ${i}` } });
                want(id, { principal: who, target: 'b_echo', plugin: 'second', outcome: 'result', args: { text: `secret ${i}` }, logged: true });
            } else {
                msg = modernRequest(id, 'tools/call', { name: 'echo', arguments: { text: `hi ${i}` } });
                want(id, { principal: who, target: 'echo', plugin: 'example', outcome: 'result', args: { text: `hi ${i}` } });
            }
            return msg;
        };
        return runPool(ECHOES, make, AUTH[k]);
    });
    const answers = (await Promise.all(jobs)).flat();
    const missing = answers.filter((r) => !r || !r.answer).length;
    expectEq(missing, 0, 'requests without an answer');
    // [limit.add]: the first add of token 1 goes through, the second is refused.
    for (let i = 0; i < 2; i++) {
        const id = `add-${i}`;
        const r = await post(httpSrv.url, modernRequest(id, 'tools/call', { name: 'add', arguments: { a: 1, b: i } }), { headers: AUTH[0] });
        expect(r.answer, `add ${i}: ${r.status}`);
        want(id, i === 0
            ? { principal: 'token:1', target: 'add', plugin: 'example', outcome: 'result', args: { a: 1, b: i } }
            : { principal: 'token:1', target: 'add', plugin: 'example', outcome: 'refused', why: 'rate_limited', code: -32000, args: { a: 1, b: i } });
    }
    return `${answers.length + 2} HTTP calls`;
});

// --- stdio: a client of its own, with a cancelled call. ---

const stdio = new Proc([BIN, ini('audit-stdio', stdioLog)], { cwd: ROOT });

await check('stdio: echo calls and a cancelled count, all answered but the cancelled one', async () => {
    stdio.send({ jsonrpc: '2.0', id: 'init', method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'audit', version: '1' } } });
    stdio.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    stdio.send({ jsonrpc: '2.0', id: 's-cancel', method: 'tools/call', params: { name: 'count', arguments: { to: 100, delay_ms: 50 } } });
    want('s-cancel', { principal: 'local', target: 'count', plugin: 'example', outcome: 'cancelled', args: { to: 100, delay_ms: 50 } });
    for (let i = 0; i < ECHOES; i++) {
        stdio.send({ jsonrpc: '2.0', id: i, method: 'tools/call', params: { name: 'echo', arguments: { text: `s ${i}` } } });
        want(i, { principal: 'local', target: 'echo', plugin: 'example', outcome: 'result', args: { text: `s ${i}` } });
    }
    // A trace context from the client: its trace id is the line's.
    stdio.send({ jsonrpc: '2.0', id: 's-traced', method: 'tools/call', params: { name: 'echo', arguments: { text: 't' }, _meta: { traceparent: `00-${TRACE}-00f067aa0ba902b7-01` } } });
    want('s-traced', { principal: 'local', target: 'echo', plugin: 'example', outcome: 'result', args: { text: 't' }, trace: TRACE });
    // A protocol error: no tool named.
    stdio.send({ jsonrpc: '2.0', id: 's-noname', method: 'tools/call', params: { arguments: { y: 1 } } });
    want('s-noname', { principal: 'local', target: null, plugin: null, outcome: 'refused', why: 'invalid', code: -32602, args: { y: 1 } });
    await sleep(300);
    stdio.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 's-cancel', reason: 'test' } });
    const ok = await stdio.waitFor(() => stdio.events.filter((e) => e.msg && typeof e.msg.id === 'number').length >= ECHOES, 30000 * SLOW);
    expect(ok, `answers: ${stdio.events.length}; stderr ${stdio.stderr.slice(-300)}`);
});

// --- The lines. ---

await check('every call has one line with the right fields', async () => {
    const total = expected.size;
    const byId = new Map();
    await waitFor(() => {
        byId.clear();
        for (const l of [...readLines(httpLog), ...readLines(stdioLog)]) {
            if (l.kind === 'call') byId.set(JSON.stringify(l.id), [...(byId.get(JSON.stringify(l.id)) || []), l]);
        }
        return [...expected.keys()].every((k) => byId.has(k));
    }, 20000 * SLOW);
    const problems = [];
    for (const [k, w] of expected) {
        const ls = byId.get(k) || [];
        if (ls.length !== 1) {
            problems.push(`${k}: ${ls.length} lines`);
            continue;
        }
        const l = ls[0];
        const bad = [];
        if (l.principal !== w.principal) bad.push(`principal ${l.principal}`);
        if (l.transport !== (w.principal === 'local' ? 'stdio' : 'http')) bad.push(`transport ${l.transport}`);
        if (!l.principal_label) bad.push('no principal_label');
        if (l.target !== w.target) bad.push(`target ${l.target}`);
        if (l.plugin !== w.plugin) bad.push(`plugin ${l.plugin}`);
        if (l.outcome !== w.outcome) bad.push(`outcome ${l.outcome}`);
        if (w.why !== undefined && l.why !== w.why) bad.push(`why ${l.why}`);
        if (w.code !== undefined && l.code !== w.code) bad.push(`code ${l.code}`);
        if (l.args_sha256 !== (w.args === null ? null : sha(w.args))) bad.push(`args_sha256 ${l.args_sha256}`);
        if (w.logged ? JSON.stringify(l.args) !== JSON.stringify(w.args) : 'args' in l) bad.push(`args ${JSON.stringify(l.args)}`);
        if (w.outcome !== 'refused' && !(Number.isInteger(l.duration_us) && l.duration_us >= 0)) bad.push(`duration_us ${l.duration_us}`);
        if (!/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/.test(l.time)) bad.push(`time ${l.time}`);
        if (!/^[0-9a-f]{32}$/.test(l.trace_id || '') || (w.trace && l.trace_id !== w.trace)) bad.push(`trace_id ${l.trace_id}`);
        if (bad.length) problems.push(`${k}: ${bad.join(', ')}`);
    }
    return problems.length ? problems.slice(0, 10) : `${total} calls, one line each`;
});

await check('mcph --verify-audit passes on both logs', async () => {
    for (const f of [httpLog, stdioLog]) {
        const r = verify(f);
        expectEq(r.status, 0, `${f}: exit (${r.stderr.trim()})`);
        expect(new RegExp(`^${f.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: \\d+ lines verified$`, 'm').test(r.stdout), `report: ${r.stdout}`);
    }
});

// A copy of the HTTP log broken by fn (an array of lines), checked with the original key.
function broken(name, fn, line) {
    const lines = fs.readFileSync(httpLog, 'utf8').split('\n');
    lines.pop();
    const copy = path.join(ws, name);
    fs.writeFileSync(copy, `${fn(lines).join('\n')}\n`);
    const r = verify(copy, `${httpLog}.key`);
    expectEq(r.status, 1, `${name}: exit (${r.stdout}${r.stderr})`);
    expect(r.stderr.startsWith(`${copy}:${line}: `), `${name}: ${r.stderr.trim()} (line ${line} expected)`);
    return r.stderr.trim().slice(copy.length);
}

await check('tampering is caught at its line', async () => {
    const notes = [];
    notes.push(broken('changed.jsonl', (ls) => {
        // One digit of the time's microseconds: the JSON stays valid, the MAC does not.
        const changed = ls[500].replace(/(\.\d{5})(\d)Z"/, (_, head, d) => `${head}${(Number(d) + 1) % 10}Z"`);
        expect(changed !== ls[500], 'the line was changed');
        ls[500] = changed;
        return ls;
    }, 501));
    notes.push(broken('removed.jsonl', (ls) => [...ls.slice(0, 300), ...ls.slice(301)], 301));
    notes.push(broken('swapped.jsonl', (ls) => [...ls.slice(0, 700), ls[701], ls[700], ...ls.slice(702)], 701));
    notes.push(broken('noheader.jsonl', (ls) => ls.slice(1), 1));
    // The last line cut short (as a crash in the middle of a write leaves it).
    const text = fs.readFileSync(httpLog, 'utf8');
    const cut = path.join(ws, 'cut.jsonl');
    fs.writeFileSync(cut, text.slice(0, -10));
    const last = text.split('\n').length - 1;
    const r = verify(cut, `${httpLog}.key`);
    expectEq(r.status, 1, `cut.jsonl: exit (${r.stdout}${r.stderr})`);
    expect(r.stderr.startsWith(`${cut}:${last}: truncated`), `cut.jsonl: ${r.stderr.trim()} (line ${last} expected)`);
    return notes.filter(Boolean).join(' | ');
});

await check('the file moved, SIGHUP: a new file with a header chained to the old one', async () => {
    const moved = `${httpLog}.1`;
    fs.renameSync(httpLog, moved);
    httpSrv.hup();
    const reopened = await waitFor(() => /audit log .* reopened/.test(httpSrv.stderr), 10000 * SLOW);
    expect(reopened, `no reopen line: ${httpSrv.stderrTail()}`);
    const r = await post(httpSrv.url, modernRequest('after-hup', 'tools/call', { name: 'echo', arguments: { text: 'x' } }), { headers: AUTH[1] });
    expect(r.answer?.result, `echo after SIGHUP: ${r.status}`);
    const ok = await waitFor(() => readLines(httpLog).some((l) => l.id === 'after-hup'), 10000 * SLOW);
    expect(ok, 'the call after SIGHUP reached the new file');
    const old = readLines(moved);
    const fresh = readLines(httpLog);
    expectEq(fresh[0].kind, 'open', 'the new file starts with a header');
    expectEq(fresh[0].prev_mac, old[old.length - 1].mac, 'the header names the old file\'s last MAC');
    expectEq(fresh[0].seq, old[old.length - 1].seq + 1, 'the sequence goes on');
    for (const f of [moved, httpLog]) {
        const v = verify(f, `${httpLog}.key`);
        expectEq(v.status, 0, `${f}: ${v.stderr.trim()}`);
    }
});

await check('a full disk is reported on stderr, and calls still answer', async () => {
    const p = new Proc([BIN, ini('audit-full', fullLog)], { cwd: ROOT });
    try {
        p.send({ jsonrpc: '2.0', id: 'init', method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'audit', version: '1' } } });
        p.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
        for (let i = 0; i < 200; i++) p.send({ jsonrpc: '2.0', id: i, method: 'tools/call', params: { name: 'echo', arguments: { text: `f ${i}` } } });
        const ok = await p.waitFor(() => p.events.filter((e) => e.msg && typeof e.msg.id === 'number').length >= 200, 20000 * SLOW);
        expect(ok, `answers: ${p.events.length}`);
        const said = await p.waitFor(() => /error: audit log .*full\.jsonl: cannot write: No space left on device; \d+ line\(s\) lost/.test(p.stderr), 5000 * SLOW);
        expect(said, `stderr: ${p.stderr.slice(-400)}`);
        const lines = p.stderr.split('\n').filter((l) => /cannot write/.test(l)).length;
        expect(lines <= 2, `${lines} error lines: at most one every few seconds`);
    } finally {
        p.close();
        await p.wait(10000 * SLOW);
    }
    expectEq(p.exitInfo?.code, 0, 'exit status at the end of input');
    expect(!SANITIZER_REPORT.test(p.stderr), `sanitizer report: ${p.stderr.slice(-600)}`);
});

await check('the servers stop cleanly, with no sanitizer report', async () => {
    stdio.close();
    await stdio.wait(10000 * SLOW);
    const problems = await stopAll(15000 * SLOW);
    for (const s of servers) problems.push(...s.problems());
    if (stdio.exitInfo?.code !== 0) problems.push(`stdio: exit ${JSON.stringify(stdio.exitInfo)}`);
    if (SANITIZER_REPORT.test(stdio.stderr)) problems.push(`stdio: sanitizer report: ${stdio.stderr.slice(-600)}`);
    // What was buffered at the end is written: the stdio log verifies whole.
    const v = verify(stdioLog);
    if (v.status !== 0) problems.push(`stdio log after exit: ${v.stderr.trim()}`);
    return problems;
});

done('audit');
