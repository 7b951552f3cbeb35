// tests/trust/audit.mjs: the audit log ([server] audit) of the real binary, over real pipes and
// sockets on loopback.
//
//   node tests/trust/audit.mjs build/mcph          (make test-trust)
//
// Starts build/mcph --listen 127.0.0.1:0 with two bearer tokens, and build/mcph on stdio, each
// with an audit log of its own (build/tests/trust/audit/): two HTTP clients (one per token)
// and the stdio client make a few thousand calls, bounded in time: echo (a result), fail (a
// tool error), an unknown tool, arguments that are not an object and a tools/call without a
// name (invalid params), an unknown resource and a read through a template the tokens do not
// see ([access.all]; both logged with the URI's digest only), a second add past [limit.add] (rate limited), a
// count cancelled over stdio, an echo with a traceparent in _meta; and b_echo, served by a
// second section with audit_arguments = yes. Then:
//   - every call has one line with its principal (token:1, token:2, local), transport,
//     request id, target, section, outcome (and code and why), duration, trace id (the one
//     sent, when one was) and the SHA-256 of its arguments' compact JSON; the arguments
//     themselves only for the audit_arguments section;
//   - mcph --verify-audit passes; copies with one changed byte, one removed line, two
//     swapped lines and the header removed fail (exit 1) naming that line;
//   - the file moved, SIGHUP: a new file starts with a header naming the old file's last MAC,
//     and both verify (the new one with --after that MAC only); a new file whose end is not a
//     whole line is not switched to (the old one goes on); after a second rotation the three
//     files concatenated verify as one, each verifies with --after the previous file's last
//     MAC (the oldest with its own header's prev_mac), and a cut start still fails;
//   - a restart appends a header chained to the line before: the file cut there fails at 1;
//   - a log not ending with a newline, or named through a symbolic link, is refused (exit 3);
//   - a reload that only changes audit_arguments applies it to the next call; a read through
//     a URI template logs the template and the URI's digest (the URI with audit_arguments);
//     an invalid_arguments refusal names its section; --lock makes no key;
//   - a log that cannot grow (RLIMIT_FSIZE): the calls still answer, stderr says the log
//     cannot be written and counts the lines lost.
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
const reloadLog = path.join(ws, 'reload.jsonl');

const example = { path: path.join(PLUGINS, 'example.so') };
const sections = {
    'plugin.example': example,
    'plugin.second': { ...example, prefix: 'b', tools: 'echo', resources: '!*', prompts: '!*', audit_arguments: 'yes' },
    'limit.add': { tools: 'add', rate: '1/min', burst: 1 },
};
// Over HTTP, both tokens see every tool and prompt but only the fixed resources: a read through
// the greeting template is refused as unknown.
const access = { 'access.all': { tokens: '1 2', tools: '*', prompts: '*', resources: 'example://readme example://note' } };
const ini = (name, log, more = {}) => writeIni(ws, { server: { name, audit: log, workers: 4, ...more }, ...sections }, `${name}.ini`);

const sha = (v) => crypto.createHash('sha256').update(JSON.stringify(v)).digest('hex');
const readLines = (file) => {
    try {
        return fs.readFileSync(file, 'utf8').split('\n').filter((l) => l !== '').map((l) => JSON.parse(l));
    } catch {
        return [];
    }
};
const verify = (file, key, after) => spawnSync(BIN, ['--verify-audit', file, ...(key ? ['--audit-key', key] : []), ...(after ? ['--after', after] : [])], { encoding: 'utf8', timeout: 20000 * SLOW });
const hash = (text) => crypto.createHash('sha256').update(text).digest('hex');

// What was sent and what its line must say: id -> {principal, target, plugin, outcome, code, why, args}.
const expected = new Map();
const want = (id, w) => expected.set(JSON.stringify(id), w);

// --- HTTP: two tokens, several clients at once. ---

const httpSrv = await startServer(BIN, writeIni(ws, { server: { name: 'audit-http', audit: httpLog, workers: 4, auth_token_file: tokenFile }, ...sections, ...access }, 'audit-http.ini'), 'http', START_MS);

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
            } else if (i % 100 === 4) {
                // A URI that matches nothing may carry a secret: only its digest is logged.
                const uri = `nowhere:///secret-${i}`;
                msg = modernRequest(id, 'resources/read', { uri });
                want(id, { principal: who, target: null, plugin: null, outcome: 'refused', why: 'unknown', args: null, uri_sha256: hash(uri) });
            } else if (i % 100 === 54) {
                // A template the principal does not see: the template, its section, the digest.
                const uri = `example://greeting/secret-${i}`;
                msg = modernRequest(id, 'resources/read', { uri });
                want(id, { principal: who, target: 'example://greeting/{name}', plugin: 'example', outcome: 'refused', why: 'unknown', args: null, uri_sha256: hash(uri) });
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
        if (l.uri_sha256 !== w.uri_sha256) bad.push(`uri_sha256 ${l.uri_sha256}`);
        if ('uri' in l || JSON.stringify(l).includes('secret-')) bad.push('the URI itself logged');
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
        expect(new RegExp(`^${f.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: \\d+ lines verified \\(seq 0 to \\d+\\)$`, 'm').test(r.stdout), `report: ${r.stdout}`);
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
    const v = verify(moved, `${httpLog}.key`);
    expectEq(v.status, 0, `${moved}: ${v.stderr.trim()}`);
    // The new file names a line before it: verified with --after that line's MAC only.
    const alone = verify(httpLog, `${httpLog}.key`);
    expectEq(alone.status, 1, `${httpLog} without --after: ${alone.stdout}`);
    const after = verify(httpLog, `${httpLog}.key`, old[old.length - 1].mac);
    expectEq(after.status, 0, `${httpLog} --after: ${after.stderr.trim()}`);
});

// The lines of stderr saying the log was reopened, or not.
const reopens = () => (httpSrv.stderr.match(/audit log \S+ reopened \(key/g) || []).length;
const refusals = () => (httpSrv.stderr.match(/audit log not reopened \(the old file goes on\)/g) || []).length;

await check('a new file whose end is not a whole line is not switched to: the old one goes on', async () => {
    const aside = `${httpLog}.aside`;
    const [ok0, no0] = [reopens(), refusals()];
    fs.renameSync(httpLog, aside);
    fs.writeFileSync(httpLog, '{"seq":0,"cut', { mode: 0o600 });
    httpSrv.hup();
    const said = await waitFor(() => refusals() > no0, 10000 * SLOW);
    expect(said, `no refusal: ${httpSrv.stderrTail()}`);
    expect(/not reopened \(the old file goes on\): .*does not end with a newline/.test(httpSrv.stderr), `why: ${httpSrv.stderrTail()}`);
    const r = await post(httpSrv.url, modernRequest('during-bad', 'tools/call', { name: 'echo', arguments: { text: 'x' } }), { headers: AUTH[1] });
    expect(r.answer?.result, `echo: ${r.status}`);
    const ok = await waitFor(() => readLines(aside).some((l) => l.id === 'during-bad'), 10000 * SLOW);
    expect(ok, 'the call went to the old file');
    expectEq(fs.readFileSync(httpLog, 'utf8'), '{"seq":0,"cut', 'the new file untouched');
    expectEq(reopens(), ok0, 'no reopen said');
    // The old file (still the one written) back in its place.
    fs.renameSync(aside, httpLog);
});

await check('two rotations: the files in order verify as one, each with --after, a cut start fails', async () => {
    // logrotate's order: .2 the oldest, then .1, then the live file.
    const [f2, f1] = [`${httpLog}.2`, `${httpLog}.1`];
    const key = `${httpLog}.key`;
    fs.renameSync(f1, f2);
    fs.renameSync(httpLog, f1);
    const ok0 = reopens();
    httpSrv.hup();
    expect(await waitFor(() => reopens() > ok0, 10000 * SLOW), `no reopen: ${httpSrv.stderrTail()}`);
    const r = await post(httpSrv.url, modernRequest('after-hup-2', 'tools/call', { name: 'echo', arguments: { text: 'y' } }), { headers: AUTH[0] });
    expect(r.answer?.result, `echo after the second SIGHUP: ${r.status}`);
    expect(await waitFor(() => readLines(httpLog).some((l) => l.id === 'after-hup-2'), 10000 * SLOW), 'the call reached the newest file');
    const last = (f) => readLines(f).at(-1).mac;
    const first = (f) => readLines(f)[0];
    expectEq(first(httpLog).prev_mac, last(f1), 'the second header names the last MAC of .1');
    // A collector's continuous copy: the three files, oldest first.
    const all = path.join(ws, 'rotated-all.jsonl');
    fs.writeFileSync(all, [f2, f1, httpLog].map((f) => fs.readFileSync(f, 'utf8')).join(''));
    const whole = verify(all, key);
    expectEq(whole.status, 0, `concatenation: ${whole.stderr.trim()}`);
    const v2 = verify(f2, key);
    expectEq(v2.status, 0, `.2 alone: ${v2.stderr.trim()}`);
    const v1 = verify(f1, key, last(f2));
    expectEq(v1.status, 0, `.1 --after: ${v1.stderr.trim()}`);
    const v0 = verify(httpLog, key, last(f1));
    expectEq(v0.status, 0, `live --after: ${v0.stderr.trim()}`);
    // The oldest file kept, its own chain only: --after the prev_mac its header names.
    const own = verify(f1, key, first(f1).prev_mac);
    expectEq(own.status, 0, `.1 --after its own prev_mac: ${own.stderr.trim()}`);
    // A cut start is still caught: without --after, with another MAC, and a header removed.
    const bare = verify(f1, key);
    expectEq(bare.status, 1, `.1 without --after: ${bare.stdout}`);
    const wrong = verify(httpLog, key, last(f2));
    expectEq(wrong.status, 1, `live --after .2's last MAC: ${wrong.stdout}`);
    const cut = path.join(ws, 'rotated-cut.jsonl');
    fs.writeFileSync(cut, [f1, httpLog].map((f) => fs.readFileSync(f, 'utf8')).join('').split('\n').slice(1).join('\n'));
    const c = verify(cut, key, last(f2));
    expectEq(c.status, 1, `header of .1 cut: ${c.stdout}`);
    expect(c.stderr.startsWith(`${cut}:1: `), `cut: ${c.stderr.trim()}`);
});

await check('a restart appends: a cut at the inner header is caught at line 1', async () => {
    const text = fs.readFileSync(stdioLog, 'utf8');
    const lines = text.split('\n').slice(0, -1);
    // The stdio log after a second server appended to it: [H0, ..., H1, ...].
    const again = new Proc([BIN, ini('audit-stdio', stdioLog)], { cwd: ROOT });
    again.send({ jsonrpc: '2.0', id: 'init', method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'audit', version: '1' } } });
    again.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    again.send({ jsonrpc: '2.0', id: 'again', method: 'tools/call', params: { name: 'echo', arguments: { text: 'again' } } });
    const ok = await again.waitFor(() => again.events.some((e) => e.msg?.id === 'again'), 10000 * SLOW);
    again.close();
    await again.wait(10000 * SLOW);
    expect(ok, 'the call after the restart answered');
    const all = fs.readFileSync(stdioLog, 'utf8').split('\n').slice(0, -1);
    const inner = JSON.parse(all[lines.length]);
    expectEq(inner.kind, 'open', 'the restart wrote a header');
    expectEq(inner.prev_mac, JSON.parse(lines[lines.length - 1]).mac, 'it names the line before it');
    const whole = verify(stdioLog);
    expectEq(whole.status, 0, `whole: ${whole.stderr.trim()}`);
    const cut = path.join(ws, 'cut-start.jsonl');
    fs.writeFileSync(cut, `${all.slice(lines.length).join('\n')}\n`);
    const r = verify(cut, `${stdioLog}.key`);
    expectEq(r.status, 1, `cut start: exit (${r.stdout})`);
    expect(r.stderr.startsWith(`${cut}:1: the header names a line before it`), `cut start: ${r.stderr.trim()}`);
});

await check('a log that does not end with a newline is refused (exit 3), and so is a link', async () => {
    const partial = path.join(ws, 'partial.jsonl');
    fs.writeFileSync(partial, fs.readFileSync(stdioLog, 'utf8').slice(0, -7), { mode: 0o600 });
    fs.copyFileSync(`${stdioLog}.key`, `${partial}.key`);
    const r = spawnSync(BIN, [ini('audit-partial', partial)], { input: '', encoding: 'utf8', timeout: 20000 * SLOW });
    expectEq(r.status, 3, `exit (${r.stderr.trim()})`);
    expect(/partial\.jsonl: the file does not end with a newline/.test(r.stderr), `stderr: ${r.stderr.trim()}`);
    const link = path.join(ws, 'link.jsonl');
    fs.symlinkSync(stdioLog, link);
    fs.copyFileSync(`${stdioLog}.key`, `${link}.key`);
    const l = spawnSync(BIN, [ini('audit-link', link)], { input: '', encoding: 'utf8', timeout: 20000 * SLOW });
    expectEq(l.status, 3, `link: exit (${l.stderr.trim()})`);
    expect(/link\.jsonl: cannot open the audit log: .*symbolic link/.test(l.stderr), `link: ${l.stderr.trim()}`);
});

await check('a reload that changes only audit_arguments applies it; reads through a template log a digest', async () => {
    const sect = (logged) => ({ 'plugin.example': { ...example, audit_arguments: logged ? 'yes' : 'no' } });
    const file = writeIni(ws, { server: { name: 'audit-reload', audit: reloadLog }, ...sect(true) }, 'audit-reload.ini');
    const p = new Proc([BIN, file], { cwd: ROOT });
    const call = async (id, method, params) => {
        p.send({ jsonrpc: '2.0', id, method, params });
        return p.waitFor(() => p.events.some((e) => e.msg?.id === id), 10000 * SLOW);
    };
    const problems = [];
    try {
        p.send({ jsonrpc: '2.0', id: 'init', method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'audit', version: '1' } } });
        p.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
        await call('r-echo-1', 'tools/call', { name: 'echo', arguments: { text: 'one' } });
        await call('r-read-1', 'resources/read', { uri: 'example://greeting/alice' });
        writeIni(ws, { server: { name: 'audit-reload', audit: reloadLog }, ...sect(false) }, 'audit-reload.ini');
        process.kill(p.pid, 'SIGHUP');
        // The instance is made again (a kept one is not logged at info level).
        const reloaded = await p.waitFor(() => /reload: example: [\s\S]*reload: serving/.test(p.stderr), 10000 * SLOW);
        if (!reloaded) problems.push(`no reload of example: ${p.stderr.slice(-300)}`);
        await call('r-echo-2', 'tools/call', { name: 'echo', arguments: { text: 'two' } });
        await call('r-read-2', 'resources/read', { uri: 'example://greeting/bob' });
        await call('r-fixed', 'resources/read', { uri: 'example://readme' });
        await call('r-invalid', 'tools/call', { name: 'echo', arguments: {} });
    } finally {
        p.close();
        await p.wait(10000 * SLOW);
    }
    const by = new Map(readLines(reloadLog).filter((l) => l.kind === 'call').map((l) => [l.id, l]));
    const is = (id, field, v) => {
        const got = by.get(id)?.[field];
        if (JSON.stringify(got) !== JSON.stringify(v)) problems.push(`${id}: ${field} ${JSON.stringify(got)}, not ${JSON.stringify(v)}`);
    };
    is('r-echo-1', 'args', { text: 'one' });
    is('r-echo-2', 'args', undefined);
    is('r-read-1', 'target', 'example://greeting/{name}');
    is('r-read-1', 'uri', 'example://greeting/alice');
    is('r-read-1', 'uri_sha256', hash('example://greeting/alice'));
    is('r-read-2', 'target', 'example://greeting/{name}');
    is('r-read-2', 'uri', undefined);
    is('r-read-2', 'uri_sha256', hash('example://greeting/bob'));
    is('r-fixed', 'target', 'example://readme');
    is('r-fixed', 'uri_sha256', undefined);
    is('r-invalid', 'why', 'invalid_arguments');
    is('r-invalid', 'plugin', 'example');
    if (p.exitInfo?.code !== 0) problems.push(`exit ${JSON.stringify(p.exitInfo)}`);
    if (SANITIZER_REPORT.test(p.stderr)) problems.push(`sanitizer report: ${p.stderr.slice(-600)}`);
    const v = verify(reloadLog);
    if (v.status !== 0) problems.push(`verify: ${v.stderr.trim()}`);
    return problems;
});

await check('--lock makes no audit key', async () => {
    const log = path.join(ws, 'lock-audit.jsonl');
    const file = writeIni(ws, { server: { name: 'audit-lock', audit: log, lock: path.join(ws, 'audit.lock') }, 'plugin.example': example }, 'audit-lock.ini');
    const r = spawnSync(BIN, ['--lock', file], { encoding: 'utf8', timeout: 20000 * SLOW });
    expectEq(r.status, 0, `--lock: ${r.stderr.trim()}`);
    expect(!fs.existsSync(`${log}.key`), 'no key file made');
    expect(!fs.existsSync(log), 'no log file made');
});

// A full disk, made honestly without root: the file may not grow (RLIMIT_FSIZE under its size
// in the server's process, SIGXFSZ ignored), so every write fails with EFBIG as ENOSPC would.
await check('a file that cannot grow is reported on stderr, and calls still answer', async () => {
    // The log: one line of 4 MiB (the last line is read back whole at open), the limit just
    // under its size (and above a plugin's copy, which counts too).
    fs.writeFileSync(`${fullLog}.key`, `${crypto.randomBytes(32).toString('hex')}\n`, { mode: 0o600 });
    fs.writeFileSync(fullLog, `{"seq":0,"pad":"${'x'.repeat(4 << 20)}","mac":"${'0'.repeat(64)}"}\n`, { mode: 0o600 });
    const blocks = Math.floor(fs.statSync(fullLog).size / 512) - 1;
    const p = new Proc(['/bin/sh', '-c', `trap "" XFSZ; ulimit -f ${blocks} && exec "$@"`, 'sh', BIN, ini('audit-full', fullLog)], { cwd: ROOT });
    try {
        p.send({ jsonrpc: '2.0', id: 'init', method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'audit', version: '1' } } });
        p.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
        for (let i = 0; i < 200; i++) p.send({ jsonrpc: '2.0', id: i, method: 'tools/call', params: { name: 'echo', arguments: { text: `f ${i}` } } });
        const ok = await p.waitFor(() => p.events.filter((e) => e.msg && typeof e.msg.id === 'number').length >= 200, 20000 * SLOW);
        expect(ok, `answers: ${p.events.length}`);
        const said = await p.waitFor(() => /error: audit log .*full\.jsonl: cannot write: File too large; \d+ line\(s\) lost/.test(p.stderr), 5000 * SLOW);
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
