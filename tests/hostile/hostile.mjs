// tests/hostile/hostile.mjs: hostile input through the real binary, over real pipes.
//
//   node tests/hostile/hostile.mjs build/mcph [CASE ...]      (make test-hostile)
//
// Each case starts build/mcph afresh with tests/hostile/hostile.ini (its own test plugin
// tests/plugins/hostile.c, the example plugin, the files plugin over this folder) or
// tests/hostile/pending.ini, throws one kind of abuse at it, and checks the answers. Unless a
// case ends the process on purpose, it then checks that mcph still answers a ping, closes
// stdin and checks that mcph exits 0. Whatever the case, every line mcph wrote on stdout must
// be strict UTF-8, one JSON value, with "jsonrpc": "2.0", and stderr must hold no sanitizer
// report. Every wait is bounded (times triple under a sanitizer build).
//
// Prints one line per case, "ok   NAME: figures" or "FAIL NAME: what failed; figures", then a
// count; exits 1 if any case failed. CASE arguments run only the cases whose name starts with
// one of them ("3", "12b"). HOSTILE_DEBUG=1 prints each forged MRTR call's time and VmRSS.
//
// Memory bounds (VmRSS from /proc/PID/status) are checked on a plain build and only reported
// under a sanitizer, whose quarantine keeps freed memory; LeakSanitizer checks for leaks when
// mcph exits instead.

import fs from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';

import { describeExit } from '../lib/proc.mjs';
import { Session } from '../lib/session.mjs';
import { Case as BaseCase } from '../lib/check.mjs';
import { sleep, sanitizersOf, SANITIZER_REPORT } from '../lib/util.mjs';

const HERE = path.dirname(new URL(import.meta.url).pathname);
const ROOT = path.resolve(HERE, '../..');
const BIN = path.resolve(process.argv[2] || path.join(ROOT, 'build/mcph'));
const ONLY = process.argv.slice(3);
const CONF = path.join(HERE, 'hostile.ini');
const PENDING_CONF = path.join(HERE, 'pending.ini');
const MODERN = '2026-07-28';
const LIMIT_MESSAGE_BYTES = 16 * 1024 * 1024; // core/lib/limits.h
const LIMIT_JSON_DEPTH = 64;
const LIMIT_SHUTDOWN_GRACE_MS = 5000;
const MiB = 1024 * 1024;

// A sanitizer build is slower and holds freed memory in quarantine: times and memory bounds
// are scaled for it.
const SANITIZED = sanitizersOf(BIN).any;
const SLOW = SANITIZED ? 3 : 1;

// mcph over pipes (tests/lib/session.mjs: every stdout line must be strict UTF-8, one JSON-RPC
// 2.0 message; answers are taken from its inbox by id), and the time limits of its waits.
const SESSION = { cwd: ROOT, timeoutMs: 5000 * SLOW, idPrefix: 'hostile-' };
const INIT = { rev: '2025-11-25', clientInfo: { name: 'hostile', version: '1' }, ms: 10000 * SLOW };
const PING_MS = 3000 * SLOW;
const FLOOD_MS = 30000 * SLOW;

// --- Messages. -----------------------------------------------------------------------------

const req = (id, method, params) => ({ jsonrpc: '2.0', id, method, ...(params ? { params } : {}) });
const call = (id, name, args = {}, extra = {}) => req(id, 'tools/call', { name, arguments: args, ...extra });
const modernMeta = (caps = {}) => ({
    'io.modelcontextprotocol/protocolVersion': MODERN,
    'io.modelcontextprotocol/clientCapabilities': caps,
});
const cancelled = (requestId) => ({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId, reason: 'hostile' } });
const b64 = (s) => Buffer.from(s).toString('base64');
const errCode = (m) => (m && m.error ? m.error.code : undefined);
const brief = (m) => (m ? JSON.stringify(m).slice(0, 160) : 'no answer');
const mib = (kib) => (kib / 1024).toFixed(1);

// --- Cases. --------------------------------------------------------------------------------

class Case extends BaseCase {
    constructor(name) {
        super(name);
        this.procs = [];
    }

    // A bound on VmRSS: under a sanitizer build only reported (its quarantine holds freed
    // memory, hundreds of MiB by default; LeakSanitizer checks for leaks at exit instead).
    memory(ok, what) {
        if (SANITIZED) {
            if (!ok) this.note(`not checked under a sanitizer: ${what}`);
            return true;
        }
        return this.check(ok, what);
    }

    start(conf = CONF) {
        const p = new Session(BIN, conf, SESSION);
        this.procs.push(p);
        return p;
    }

    // The checks every case ends with: a ping (unless the case ended mcph on purpose), exit 0
    // at the end of input, clean stdout and stderr.
    async finish(p, { ping = true } = {}) {
        if (ping && !p.exited) {
            const ms = await p.ping(PING_MS);
            if (this.check(ms !== null, `no answer to a ping after the case (${p.exited ? 'mcph exited: ' + describeExit(p.exitInfo) : 'still running'}; stderr: ${p.stderrTail()})`)) {
                this.note(`ping after ${ms.toFixed(0)} ms`);
            }
        }
        if (!p.exited) {
            const r = await p.stop(8000 * SLOW);
            this.check(!r.timedOut && r.code === 0, `at the end of input: ${r.timedOut ? `no exit within ${(8 * SLOW)} s` : describeExit(r)}`);
        }
        this.checkOutput(p);
    }

    checkOutput(p) {
        this.check(p.bad.length === 0, `stdout: ${p.bad.length} bad lines: ${p.bad.slice(0, 3).join('; ')}`);
        const m = SANITIZER_REPORT.exec(p.stderr);
        this.check(!m, `stderr has a sanitizer report: ${m ? p.stderr.slice(Math.max(0, m.index - 200), m.index + 600).replace(/\n/g, ' | ') : ''}`);
    }
}

const cases = [];
const define = (name, fn) => cases.push({ name, fn });

// 1. Nesting far deeper than LIMIT_JSON_DEPTH: an error with id null, and mcph lives on.
define('1 nesting bombs', async (t) => {
    const p = t.start();
    await p.initialize(INIT);
    const N = 100000;
    const bombs = {
        'open [': '['.repeat(N),
        'open {': '{"a":'.repeat(N),
        'closed [': `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":${'['.repeat(N)}${']'.repeat(N)}}}`,
        'closed {': `{"jsonrpc":"2.0","id":2,"method":"ping","params":${'{"a":'.repeat(N)}1${'}'.repeat(N)}}`,
        'mixed': `{"jsonrpc":"2.0","id":3,"method":"ping","params":{"x":${'[{"a":'.repeat(N / 2)}0${'}]'.repeat(N / 2)}}}`,
        'batch': `[${'['.repeat(N)}`,
    };
    let answered = 0;
    for (const [what, line] of Object.entries(bombs)) {
        p.send(line);
        const before = p.inbox.length;
        await p.waitFor(() => p.inbox.length > before || p.exited, 5000 * SLOW);
        const m = p.inbox.shift();
        const ok = m && m.msg.error && m.msg.id === null && [-32700, -32600].includes(m.msg.error.code);
        answered += ok ? 1 : 0;
        t.check(ok, `${what}: ${m ? brief(m.msg) : 'no answer'} (want -32600 or -32700 with id null)`);
    }
    // Just inside the limit is served (the envelope is one level, params a second).
    const inner = LIMIT_JSON_DEPTH - 2;
    p.send(`{"jsonrpc":"2.0","id":"deep-ok","method":"ping","params":{"x":${'['.repeat(inner)}${']'.repeat(inner)}}}`);
    const ok = await p.answer('deep-ok');
    t.check(ok && ok.result, `${LIMIT_JSON_DEPTH} levels: ${brief(ok)} (want a result)`);
    t.note(`${answered}/${Object.keys(bombs).length} bombs refused, depth ${LIMIT_JSON_DEPTH} served`);
    await t.finish(p);
});

// 2. A line one byte over LIMIT_MESSAGE_BYTES: an error; the next request is answered. A line
// of exactly the limit is served.
define('2 oversized line', async (t) => {
    const p = t.start();
    await p.initialize(INIT);
    // A tools/call of echo exactly n bytes long; .pad is the length of its text.
    const frame = (id, n) => {
        const head = `{"jsonrpc":"2.0","id":"${id}","method":"tools/call","params":{"name":"echo","arguments":{"text":"`;
        const tail = '"}}}';
        const pad = n - head.length - tail.length;
        return { line: head + 'x'.repeat(pad) + tail, pad };
    };
    const over = frame('over', LIMIT_MESSAGE_BYTES + 1);
    let t0 = performance.now();
    await p.flood([over.line, JSON.stringify(req('after', 'ping'))], FLOOD_MS);
    await p.waitFor(() => p.inbox.length >= 2 || p.exited, 20000 * SLOW);
    const first = p.inbox.find((e) => e.msg.error);
    t.check(first && first.msg.id === null && first.msg.error.code === -32600,
        `${LIMIT_MESSAGE_BYTES + 1} bytes: ${first ? brief(first.msg) : 'no error'} (want -32600, id null)`);
    const after = await p.answer('after', 1000);
    t.check(after && after.result, `the ping after it: ${brief(after)}`);
    p.inbox = p.inbox.filter((e) => e !== first);
    t.note(`refused in ${(performance.now() - t0).toFixed(0)} ms`);
    // Exactly the limit (newline excluded) is a message like any other.
    t0 = performance.now();
    const exact = frame('exact', LIMIT_MESSAGE_BYTES);
    await p.flood([exact.line], FLOOD_MS);
    const m = await p.answer('exact', 30000 * SLOW);
    const text = m?.result?.content?.[0]?.text;
    t.check(typeof text === 'string' && text.length === exact.pad,
        `${LIMIT_MESSAGE_BYTES} bytes: ${m ? (m.error ? brief(m) : `text of ${text?.length}`) : 'no answer'} (want the text echoed)`);
    t.note(`${LIMIT_MESSAGE_BYTES} bytes echoed in ${(performance.now() - t0).toFixed(0)} ms`);
    await t.finish(p);
});

// 3a. Bytes that are not UTF-8, and lone surrogates as escapes: the line is not JSON text.
define('3a bad UTF-8 in requests', async (t) => {
    const p = t.start();
    await p.initialize(INIT);
    const lines = {
        'byte 0xFF': Buffer.from([0xff]),
        'overlong 0xC0 0xAE': Buffer.from([0xc0, 0xae]),
        'truncated 0xE2 0x82': Buffer.from([0xe2, 0x82]),
        'encoded surrogate 0xED 0xA0 0x80': Buffer.from([0xed, 0xa0, 0x80]),
        'above U+10FFFF 0xF4 0x90 0x80 0x80': Buffer.from([0xf4, 0x90, 0x80, 0x80]),
        'lone continuation 0x80': Buffer.from([0x80]),
        'escape \\ud800': Buffer.from('\\ud800'),
        'escape \\udc00': Buffer.from('\\udc00'),
        'escape \\ud800\\u0041': Buffer.from('\\ud800\\u0041'),
    };
    let n = 0;
    let right = 0;
    for (const [what, bytes] of Object.entries(lines)) {
        const id = `u${++n}`;
        // In a ping's params and in an argument a tool receives.
        for (const msg of [
            Buffer.concat([Buffer.from(`{"jsonrpc":"2.0","id":"${id}p","method":"ping","params":{"x":"a`), bytes, Buffer.from('b"}}')]),
            Buffer.concat([Buffer.from(`{"jsonrpc":"2.0","id":"${id}e","method":"tools/call","params":{"name":"echo","arguments":{"text":"a`), bytes, Buffer.from('b"}}}')]),
        ]) {
            const before = p.inbox.length;
            p.send(msg);
            await p.waitFor(() => p.inbox.length > before || p.exited, 3000 * SLOW);
            const m = p.inbox.length > before ? p.inbox.splice(before, 1)[0].msg : null;
            const ok = errCode(m) === -32700 && m.id === null;
            right += ok ? 1 : 0;
            t.check(ok, `${what}: ${brief(m)}`);
        }
    }
    t.note(`${right}/${2 * n} refused with -32700 and id null`);
    await t.finish(p);
});

// 3b. Requests of plain ASCII whose answers would carry bytes that are not UTF-8: every line
// written is still UTF-8, and the answers are answers.
define('3b no bad UTF-8 out', async (t) => {
    const p = t.start();
    await p.initialize(INIT);
    const tl = await (async () => {
        p.send(req('tl', 'resources/templates/list'));
        return p.answer('tl');
    })();
    const fileTemplate = tl?.result?.resourceTemplates?.find((x) => x.uriTemplate.startsWith('file://'))?.uriTemplate;
    const fileRoot = fileTemplate ? fileTemplate.replace('/{+path}', '') : 'file:///nowhere';
    const asks = [
        ['greeting %FF%FE', req('g1', 'resources/read', { uri: 'example://greeting/%FF%FE' }), 'result'],
        ['greeting %C0%AE%ED%A0%80%E2%82', req('g2', 'resources/read', { uri: 'example://greeting/%C0%AE%ED%A0%80%E2%82' }), 'result'],
        ['files: a path %FF%FE', req('f1', 'resources/read', { uri: `${fileRoot}/nope%FF%FE` }), 'error'],
        ['files: a path %C0%AE', req('f2', 'resources/read', { uri: `${fileRoot}/sub/%C0%AE%C0%AE/x` }), 'error'],
        ['tool text', call('h1', 'bad_utf8', { as: 'text' }), 'result'],
        ['tool error', call('h2', 'bad_utf8', { as: 'tool_error' }), 'result'],
        ['plugin error', call('h3', 'bad_utf8', { as: 'error' }), 'error'],
        ['modern tool error', call('h4', 'bad_utf8', { as: 'tool_error' }, { _meta: modernMeta() }), 'result'],
    ];
    for (const [what, msg, want] of asks) {
        const badBefore = p.bad.length;
        p.send(msg);
        const m = await p.answer(msg.id);
        t.check(m && want in m, `${what}: ${brief(m)} (want ${want === 'result' ? 'a result' : 'an error'})`);
        t.check(p.bad.length === badBefore, `${what}: the answer is not UTF-8`);
    }
    const fffd = p.bad.length === 0;
    t.note(`${asks.length} answers, ${fffd ? 'all' : 'not all'} valid UTF-8`);
    await t.finish(p);
});

// 4. Raw control characters (NUL included) inside strings are not JSON: -32700, id null. An
// escaped \u0000 is valid JSON that mcph refuses: -32602 with the id.
define('4 control characters', async (t) => {
    const p = t.start();
    await p.initialize(INIT);
    let n = 0;
    let right = 0;
    for (let c = 0; c < 0x20; c++) {
        if (c === 0x0a) continue; // the end of a line
        for (const where of ['method', 'argument']) {
            const id = `c${c}${where[0]}`;
            const msg = where === 'method'
                ? Buffer.concat([Buffer.from(`{"jsonrpc":"2.0","id":"${id}","method":"pi`), Buffer.from([c]), Buffer.from('ng"}')])
                : Buffer.concat([Buffer.from(`{"jsonrpc":"2.0","id":"${id}","method":"tools/call","params":{"name":"echo","arguments":{"text":"a`), Buffer.from([c]), Buffer.from('b"}}}')]);
            n++;
            const before = p.inbox.length;
            p.send(msg);
            await p.waitFor(() => p.inbox.length > before || p.exited, 3000 * SLOW);
            const m = p.inbox.length > before ? p.inbox.splice(before, 1)[0].msg : null;
            const ok = errCode(m) === -32700 && m.id === null;
            right += ok ? 1 : 0;
            t.check(ok, `raw 0x${c.toString(16).padStart(2, '0')} in ${where === 'method' ? 'a method name' : 'a tool argument'}: ${brief(m)}`);
        }
    }
    t.note(`${right}/${n} raw control characters refused with -32700`);
    for (const [id, line] of [
        ['esc1', '{"jsonrpc":"2.0","id":"esc1","method":"tools/call","params":{"name":"echo","arguments":{"text":"a\\u0000b"}}}'],
        ['esc2', '{"jsonrpc":"2.0","id":"esc2","method":"ping","params":{"x\\u0000":1}}'],
    ]) {
        p.send(line);
        const m = await p.answer(id);
        t.check(errCode(m) === -32602, `escaped \\u0000 (${id}): ${brief(m)} (want -32602 with the id)`);
    }
    await t.finish(p);
});

// 5. Ids of every JSON type. MCP's RequestId is string | integer (every revision's schema):
// those are answered with the same id; anything else is -32600 with id null.
define('5 ids of every type', async (t) => {
    const p = t.start();
    await p.initialize(INIT);
    const same = [
        ['"s"', 's'], ['""', ''], ['"1"', '1'], ['a unicode string', 'идент-✓-😀'], ['a 10 KB string', 'k'.repeat(10240)],
        ['0', 0], ['1', 1], ['-1', -1], ['-0', 0], ['2^53-1', 9007199254740991], ['-(2^53-1)', -9007199254740991],
    ];
    const refused = [['1.5', '1.5'], ['-0.25', '-0.25'], ['1e-3', '1e-3'], ['null', 'null'], ['true', 'true'], ['false', 'false'],
        ['{}', '{}'], ['{"a":1}', '{"a":1}'], ['[]', '[]'], ['[1]', '[1]']];
    let good = 0;
    for (const [what, id] of same) {
        const raw = what === '-0' ? '-0' : JSON.stringify(id);
        const before = p.inbox.length;
        p.send(`{"jsonrpc":"2.0","id":${raw},"method":"ping"}`);
        await p.waitFor(() => p.inbox.length > before || p.exited, 3000 * SLOW);
        const m = p.inbox.length > before ? p.inbox.splice(before, 1)[0].msg : null;
        const ok = m && m.result && m.id === id;
        good += ok ? 1 : 0;
        t.check(ok, `id ${what}: ${brief(m)} (want a result with the same id)`);
    }
    for (const [what, raw] of refused) {
        const before = p.inbox.length;
        p.send(`{"jsonrpc":"2.0","id":${raw},"method":"ping"}`);
        await p.waitFor(() => p.inbox.length > before || p.exited, 3000 * SLOW);
        const m = p.inbox.length > before ? p.inbox.splice(before, 1)[0].msg : null;
        const ok = errCode(m) === -32600 && m.id === null;
        good += ok ? 1 : 0;
        t.check(ok, `id ${what}: ${brief(m)} (want -32600 with id null)`);
    }
    // Integers JSON can carry but a double cannot: the exact id back, or -32600 with id null;
    // never another number. 1.0 and 1e3 are integers in JSON Schema: echoed as an integer
    // (1, 1000) or refused.
    for (const [raw, asInt] of [['9007199254740993', null], ['123456789012345678901234567890', null], ['-9007199254740993', null],
        ['1.0', '1'], ['1e3', '1000']]) {
        const before = p.inbox.length;
        p.send(`{"jsonrpc":"2.0","id":${raw},"method":"ping"}`);
        await p.waitFor(() => p.inbox.length > before || p.exited, 3000 * SLOW);
        const e = p.inbox.length > before ? p.inbox.splice(before, 1)[0] : null;
        const rawId = e ? /"id":(-?[0-9.eE+]+|null)/.exec(e.raw)?.[1] : undefined;
        const ok = e && ((e.msg.result && (rawId === raw || rawId === asInt)) || (errCode(e.msg) === -32600 && e.msg.id === null));
        good += ok ? 1 : 0;
        t.check(ok, `id ${raw}: ${e ? e.raw.slice(0, 160) : 'no answer'} (want the same id or -32600)`);
        if (e) t.note(`${raw}: ${e.msg.result ? `echoed as ${rawId}` : 'refused'}`);
    }
    // A request with an id of a wrong type must not run: a tools/call with id true.
    p.send('{"jsonrpc":"2.0","id":true,"method":"tools/call","params":{"name":"echo","arguments":{"text":"ran"}}}');
    await p.waitFor(() => p.inbox.length > 0, 3000 * SLOW);
    const m = p.inbox.shift()?.msg;
    t.check(errCode(m) === -32600 && m.id === null, `tools/call with id true: ${brief(m)}`);
    t.note(`${good}/${same.length + refused.length + 5} ids handled right`);
    await t.finish(p);
});

// 6. Two calls with the same id at once: the second is refused with an error, the first gets
// exactly one answer. 1 and "1" are different ids.
define('6 duplicate ids in flight', async (t) => {
    const p = t.start();
    await p.initialize(INIT);
    for (const [first, dup] of [['dup', 'dup'], [77, 77]]) {
        p.send(call(first, 'count', { to: 5, delay_ms: 100 }));
        await sleep(100);
        const t0 = performance.now();
        p.send(call(dup, 'echo', { text: 'second' }));
        const a = await p.answer(dup, 3000 * SLOW);
        const ms = performance.now() - t0;
        t.check(a && a.error && a.error.code < 0, `id ${JSON.stringify(dup)} twice: the first answer is ${brief(a)} (want an error for the second call, at once)`);
        if (a && a.error) t.note(`${JSON.stringify(dup)}: refused in ${ms.toFixed(0)} ms with ${a.error.code}`);
        const b = await p.answer(first, 5000 * SLOW);
        t.check(b && b.result && /counted to 5/.test(JSON.stringify(b.result)), `id ${JSON.stringify(first)}: the running call's answer is ${brief(b)}`);
        await sleep(300);
        const extra = p.inbox.filter((e) => e.msg.id === first);
        t.check(extra.length === 0, `id ${JSON.stringify(first)} answered ${2 + extra.length} times in all`);
    }
    // 1 and "1" are two ids.
    p.send(call(1, 'count', { to: 3, delay_ms: 100 }));
    await sleep(50);
    p.send(call('1', 'echo', { text: 'string one' }));
    const s = await p.answer('1');
    const n = await p.answer(1);
    t.check(s && s.result && n && n.result, `ids 1 and "1" at once: ${brief(s)} / ${brief(n)} (want two results)`);
    // After the first ended, its id is free again.
    p.send(call('dup', 'echo', { text: 'again' }));
    const again = await p.answer('dup');
    t.check(again && again.result, `id "dup" reused after its call ended: ${brief(again)}`);
    await t.finish(p);
});

// 7. 100,000 cancellations for ids nobody sent: no answer, memory flat, ping still prompt.
define('7 cancellation flood', async (t) => {
    const p = t.start();
    await p.initialize(INIT);
    await p.ping(PING_MS);
    const rss0 = p.rssKiB();
    const N = 100000;
    const odd = [null, true, 1.5, { a: 1 }, [1], 'x'.repeat(1000), -1, 9007199254740993];
    const lines = [];
    for (let i = 0; i < N; i++) {
        lines.push(JSON.stringify(cancelled(i % 1000 === 999 ? odd[(i / 1000) % odd.length | 0] : i % 2 ? `nobody-${i}` : 1000000 + i)));
    }
    let rssMax = rss0;
    const sampler = setInterval(() => { rssMax = Math.max(rssMax, p.rssKiB() || 0); }, 100);
    const t0 = performance.now();
    const took = await p.flood(lines, FLOOD_MS);
    const sent = performance.now() - t0;
    const t1 = performance.now();
    const ms = await p.ping(10000 * SLOW);
    const pingMs = performance.now() - t1;
    clearInterval(sampler);
    const rss1 = p.rssKiB();
    rssMax = Math.max(rssMax, rss1);
    t.check(took, 'mcph did not take the flood within 30 s');
    t.check(ms !== null && pingMs < 2000 * SLOW, `a ping after the flood: ${ms === null ? 'no answer' : `${pingMs.toFixed(0)} ms`}`);
    const answers = p.inbox.length;
    t.check(answers === 0, `${answers} answers to notifications: ${p.inbox.slice(0, 2).map((e) => brief(e.msg)).join(' ')}`);
    const limit = 20 * 1024;
    t.memory(rssMax - rss0 < limit, `VmRSS grew ${mib(rssMax - rss0)} MiB (limit ${mib(limit)})`);
    t.note(`${N} sent in ${sent.toFixed(0)} ms, ping ${pingMs.toFixed(0)} ms after, VmRSS ${mib(rss0)} -> max ${mib(rssMax)} MiB`);
    await t.finish(p);
});

// 8. Responses nobody asked for: ignored, no answer. That includes an error response with id
// null (what a client sends back when it could not parse a request: a valid JSON-RPC 2.0
// Response object); answering a response would let two peers bounce errors forever.
define('8 unsolicited responses', async (t) => {
    const p = t.start();
    await p.initialize(INIT);
    const stray = [
        { jsonrpc: '2.0', id: 'mcph-999', result: {} },
        { jsonrpc: '2.0', id: 'mcph-1', result: { roots: [] } },
        { jsonrpc: '2.0', id: 1, result: { x: 1 } },
        { jsonrpc: '2.0', id: 'x', error: { code: -1, message: 'no' } },
        { jsonrpc: '2.0', id: 'mcph-2', error: { code: -32601, message: 'Method not found' } },
        { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } },
        { jsonrpc: '2.0', id: -5, result: null },
        { jsonrpc: '2.0', id: 'mcph-3', result: 'x'.repeat(100000) },
    ];
    for (const s of stray) p.send(s);
    // Also in the 2026-07-28 era: mcph never asks such a client, so nothing is pending.
    p.send({ jsonrpc: '2.0', id: 'mcph-4', result: {}, _meta: modernMeta() });
    await sleep(400 * SLOW);
    t.check(p.inbox.length === 0, `${p.inbox.length} answers to responses: ${p.inbox.slice(0, 2).map((e) => brief(e.msg)).join(' ')}`);
    t.note(`${stray.length + 1} stray responses, ${p.inbox.length} answers`);
    await t.finish(p);
});

// 9. Forged and oversized inputResponses and requestState on a 2026-07-28 tools/call: each gets
// an answer, soon (many answers must not cost the square of their number), nothing leaks
// (LeakSanitizer at exit), VmRSS comes back near where it was.
define('9 forged MRTR state', async (t) => {
    const p = t.start();
    const meta = modernMeta({ elicitation: {} });
    const confirm = (id, extra) => call(id, 'confirm', { action: 'hostile' }, { ...extra, _meta: meta });
    // The real flow first.
    p.send(confirm('real-1'));
    const q = await p.answer('real-1');
    const state = q?.result?.requestState;
    t.check(q?.result?.resultType === 'input_required' && typeof state === 'string', `confirm: ${brief(q)} (want input_required)`);
    p.send(confirm('real-2', { requestState: state, inputResponses: { 'ask-1': { action: 'accept', content: { confirm: true } } } }));
    const done = await p.answer('real-2');
    t.check(done?.result?.resultType === 'complete', `the retry: ${brief(done)}`);
    await p.ping(PING_MS);
    const rss0 = p.rssKiB();
    const deep = (n) => '{"a":'.repeat(n) + '1' + '}'.repeat(n);
    const big = 5 * 1000 * 1000;
    // Many answers: merging them must not cost the square of their number.
    const KEYS = 25000;
    const quick = 750 * SLOW;
    const forged = {
        'not base64': { requestState: '!!!not base64 at all~~~' },
        'base64 of not JSON': { requestState: b64('{"m":"tools/call",') },
        'base64 of binary': { requestState: Buffer.from([0xff, 0x00, 0xfe, 0x01, 0x80]).toString('base64') },
        'wrong types, another tool': { requestState: b64('{"m":"tools/call","n":"echo","a":[1,2,3]}') },
        'wrong types, this tool': { requestState: b64('{"m":"tools/call","n":"confirm","a":[1,2,3]}') },
        'answer of the wrong type': { requestState: b64('{"m":"tools/call","n":"confirm","a":{"ask-1":"yes"}}') },
        'm and n of the wrong type': { requestState: b64('{"m":5,"n":null,"a":{"ask-1":{}}}') },
        'forged answer': { requestState: b64('{"m":"tools/call","n":"confirm","a":{"ask-1":{"action":"accept","content":{"confirm":"no"}}}}') },
        'state 900 levels deep': { requestState: b64(`{"m":"tools/call","n":"confirm","a":{"ask-1":${deep(900)}}}`) },
        'state 5000 levels deep': { requestState: b64(`{"m":"tools/call","n":"confirm","a":{"ask-1":${deep(5000)}}}`) },
        'state of 5 MB junk': { requestState: 'QUFB'.repeat(big / 4) },
        'state of 5 MB, one answer': { requestState: b64(`{"m":"tools/call","n":"confirm","a":{"ask-1":{"action":"accept","content":{"confirm":true},"pad":"${'p'.repeat(big * 3 / 4 - 200)}"}}}`) },
        [`state of ${KEYS} answers`]: { requestState: b64(JSON.stringify({ m: 'tools/call', n: 'confirm', a: Object.fromEntries(Array.from({ length: KEYS }, (_, i) => [`ask-${i}`, { action: 'decline' }])) })) },
        'state a number': { requestState: 12345 },
        'state an object': { requestState: { m: 'tools/call' } },
        'state an array': { requestState: ['a'] },
        'state empty': { requestState: '' },
        'responses an array': { requestState: state, inputResponses: [1, 2, 3] },
        'responses a string': { requestState: state, inputResponses: 'accept' },
        'responses null': { inputResponses: null },
        'responses a number': { inputResponses: 42 },
        'answer an array': { inputResponses: { 'ask-1': [true] } },
        'answer a string': { inputResponses: { 'ask-1': 'accept' } },
        'answer 5 MB': { inputResponses: { 'ask-1': { action: 'accept', content: { confirm: true }, pad: 'q'.repeat(big) } } },
        [`answers ${KEYS} keys`]: { inputResponses: Object.fromEntries(Array.from({ length: KEYS }, (_, i) => [`k${i}`, { v: i }])) },
        'answer 60 levels deep': { inputResponses: { 'ask-1': JSON.parse(deep(LIMIT_JSON_DEPTH - 6)) } },
    };
    let answered = 0;
    let i = 0;
    let rssMax = rss0;
    const slowest = [];
    for (const [what, extra] of Object.entries(forged)) {
        const id = `forged-${++i}`;
        const t0 = performance.now();
        await p.flood([JSON.stringify(confirm(id, extra))], FLOOD_MS);
        const m = await p.answer(id, 10000 * SLOW);
        rssMax = Math.max(rssMax, p.rssKiB() || 0);
        if (process.env.HOSTILE_DEBUG) console.log(`# ${what}: ${(performance.now() - t0).toFixed(0)} ms, VmRSS ${mib(p.rssKiB())} MiB`);
        const ms = performance.now() - t0;
        const ok = m && (m.result || (m.error && Number.isInteger(m.error.code)));
        answered += ok ? 1 : 0;
        t.check(ok, `${what}: ${brief(m)}`);
        if (ok && !t.check(ms < quick, `${what}: answered after ${ms.toFixed(0)} ms (limit ${quick})`)) slowest.push(`${what} ${ms.toFixed(0)} ms`);
        if (p.exited) break;
    }
    await sleep(300);
    await p.ping(PING_MS);
    const rss1 = p.rssKiB();
    const limit = 32 * 1024;
    t.memory(rss1 - rss0 < limit, `VmRSS ${mib(rss0)} -> ${mib(rss1)} MiB after the forged calls (limit +${mib(limit)})`);
    t.note(`${answered}/${Object.keys(forged).length} answered, VmRSS ${mib(rss0)} -> max ${mib(rssMax)} -> ${mib(rss1)} MiB`);
    await t.finish(p);
});

// 10. A client that stops reading stdout: mcph stops reading stdin too, its memory stays
// bounded, and once the client reads again every request is answered, in order.
define('10 client stops reading', async (t) => {
    const p = t.start();
    await p.initialize(INIT);
    await p.ping(PING_MS);
    const rss0 = p.rssKiB();
    const N = 200000;
    const E = 64;
    const text = 'e'.repeat(256 * 1024);
    p.child.stdout.pause();
    const lines = [];
    for (let i = 0; i < N; i++) lines.push(`{"jsonrpc":"2.0","id":${i},"method":"ping"}`);
    for (let i = 0; i < E; i++) lines.push(JSON.stringify(call(`echo-${i}`, 'echo', { text })));
    const total = lines.reduce((n, l) => n + l.length + 1, 0);
    const read0 = p.readBytes();
    // Everything at once: what the pipe does not take waits in this process.
    p.child.stdin.write(lines.join('\n') + '\n');
    let rssMax = rss0;
    let readMid = 0;
    for (let k = 0; k < 30; k++) {
        await sleep(100 * SLOW);
        rssMax = Math.max(rssMax, p.rssKiB() || 0);
        if (k === 14) readMid = p.readBytes();
    }
    const readEnd = p.readBytes();
    const held = p.child.stdin.writableLength;
    t.check(held > 0, `mcph read all ${(total / MiB).toFixed(1)} MiB while nobody read its answers`);
    t.check(readEnd === readMid, `mcph kept reading while blocked (${readMid} -> ${readEnd} bytes)`);
    const limit = 100 * 1024;
    t.memory(rssMax - rss0 < limit, `VmRSS grew ${mib(rssMax - rss0)} MiB while blocked (limit ${mib(limit)})`);
    t.note(`took ${((readEnd - read0) / MiB).toFixed(1)} of ${(total / MiB).toFixed(1)} MiB, VmRSS +${mib(rssMax - rss0)} MiB`);
    // Read again: every ping answered once, in order, then every echo.
    const t0 = performance.now();
    p.child.stdout.resume();
    await p.waitFor(() => p.inbox.length >= N + E || p.exited, 60000 * SLOW);
    const got = p.inbox.splice(0, p.inbox.length).map((e) => e.msg);
    const pings = got.filter((m) => typeof m.id === 'number');
    const inOrder = pings.every((m, i) => m.id === i && m.result);
    t.check(pings.length === N && inOrder, `${pings.length} of ${N} pings answered${inOrder ? '' : ', not in order'}`);
    const echoes = got.filter((m) => typeof m.id === 'string' && m.id.startsWith('echo-'));
    const echoOk = echoes.filter((m) => m.result?.content?.[0]?.text?.length === text.length).length;
    t.check(echoOk === E, `${echoOk} of ${E} echo calls answered whole`);
    t.note(`all read back in ${(performance.now() - t0).toFixed(0)} ms`);
    await t.finish(p);
});

// 11. initialize without notifications/initialized: served anyway, exits 0 at the end.
define('11 no initialized notification', async (t) => {
    const p = t.start();
    p.send(req('init', 'initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'hostile', version: '1' } }));
    const m = await p.answer('init');
    t.check(m && m.result, `initialize: ${brief(m)}`);
    const ms = await p.ping(PING_MS);
    t.check(ms !== null, 'ping not answered');
    p.send(req('tl', 'tools/list'));
    const tl = await p.answer('tl');
    t.check(tl && (tl.result || tl.error), `tools/list: ${brief(tl)}`);
    t.note(`ping ${ms?.toFixed(0)} ms, tools/list ${tl?.result ? 'served' : 'refused'}`);
    await t.finish(p);
});

// 12a. The end of input while a call that polls cancelled() runs: mcph cancels it and exits 0
// at once.
define('12a EOF with a cancellable call', async (t) => {
    const p = t.start();
    await p.initialize(INIT);
    p.send(call('long-count', 'count', { to: 100, delay_ms: 1000 }));
    p.send(call('long-block', 'block', {}));
    await sleep(300);
    t.check(await p.ping(PING_MS) !== null, 'no ping answer while the calls run');
    p.close();
    const limit = 1000 * SLOW + 500;
    const r = await p.stop(limit + 5000);
    t.check(!r.timedOut && r.code === 0, `after EOF: ${r.timedOut ? `still running after ${(r.ms / 1000).toFixed(1)} s (killed)` : describeExit(r)} (stderr: ${p.stderrTail(2)})`);
    t.check(!r.timedOut && r.ms < limit, `exit took ${(r.ms / 1000).toFixed(2)} s (limit ${(limit / 1000).toFixed(1)} s)`);
    t.note(`exit ${r.timedOut ? 'none (killed)' : r.code} after ${(r.ms / 1000).toFixed(2)} s`);
    t.checkOutput(p);
});

// 12b. The end of input while calls that never end and never poll run: mcph exits within the
// grace period plus a margin, and its log names the calls it abandoned.
define('12b EOF with calls that never end', async (t) => {
    const p = t.start();
    await p.initialize(INIT);
    const ids = ['hang-7f3a', 4242];
    for (const id of ids) p.send(call(id, 'hang', {}));
    await sleep(300);
    t.check(await p.ping(PING_MS) !== null, 'no ping answer while the calls hang');
    const logged = p.stderr.length;
    p.close();
    const limit = LIMIT_SHUTDOWN_GRACE_MS + (SANITIZED ? 4000 : 2500);
    const r = await p.stop(limit + 3000);
    t.check(!r.timedOut && r.signal === null, `after EOF: ${r.timedOut ? `still running after ${(r.ms / 1000).toFixed(1)} s (killed)` : describeExit(r)}`);
    t.check(!r.timedOut && r.ms < limit, `exit took ${(r.ms / 1000).toFixed(1)} s (limit ${(limit / 1000).toFixed(1)} s)`);
    const lines = p.stderr.slice(logged).split('\n');
    for (const id of ids) {
        const re = new RegExp(`(^|[^\\w-])${typeof id === 'string' ? `"?${id}"?` : id}([^\\w-]|$)`);
        t.check(lines.some((l) => re.test(l)), `stderr does not name the abandoned call ${JSON.stringify(id)} (${p.stderrTail(2)})`);
    }
    t.note(`${describeExit(r)} after ${(r.ms / 1000).toFixed(2)} s`);
    t.checkOutput(p);
});

// 13. [server] max_pending_mb caps what requests in flight hold: past it, calls are refused at
// once with -32000 naming the key; memory stays bounded; once the blocked calls are cancelled,
// a new call succeeds.
define('13 max_pending_mb', async (t) => {
    const p = t.start(PENDING_CONF);
    await p.initialize(INIT);
    await p.ping(PING_MS);
    const rss0 = p.rssKiB();
    const N = 500;
    const pad = 'p'.repeat(10 * 1024);
    const t0 = performance.now();
    await p.flood(Array.from({ length: N }, (_, i) => JSON.stringify(call(`b${i}`, 'block', { pad }))), FLOOD_MS);
    await sleep(1000 * SLOW);
    const refused = [];
    const other = [];
    for (const e of p.inbox.splice(0, p.inbox.length)) {
        if (errCode(e.msg) === -32000 && /max_pending_mb/.test(e.msg.error.message)) refused.push(e);
        else other.push(e);
    }
    const latest = refused.length ? Math.max(...refused.map((e) => e.time)) - t0 : 0;
    const rss1 = p.rssKiB();
    t.check(refused.length > 0 && refused.length >= N - 1024 * 1024 / pad.length,
        `${refused.length} of ${N} calls of 10 KB refused with -32000 naming max_pending_mb (want at least ${N - Math.floor(1024 * 1024 / pad.length)})`);
    t.check(other.length === 0, `${other.length} other answers: ${other.slice(0, 2).map((e) => brief(e.msg)).join(' ')}`);
    t.memory(rss1 - rss0 < 64 * 1024, `VmRSS grew ${mib(rss1 - rss0)} MiB (limit 64)`);
    t.note(`${refused.length}/${N} refused (last after ${latest.toFixed(0)} ms), VmRSS +${mib(rss1 - rss0)} MiB`);
    t.check(refused.length === 0 || latest < 2000 * SLOW, `the last refusal came ${latest.toFixed(0)} ms after the first call was sent (want at once)`);
    // Cancel what runs or waits: what they held is free again, so 50 more calls of 10 KB
    // (half the cap) are all taken, and a plain call is served.
    const refusedIds = new Set(refused.map((e) => e.msg.id));
    const held = Array.from({ length: N }, (_, i) => `b${i}`).filter((id) => !refusedIds.has(id));
    await p.flood(held.map((id) => JSON.stringify(cancelled(id))), FLOOD_MS);
    await sleep(500 * SLOW);
    await p.flood(Array.from({ length: 50 }, (_, i) => JSON.stringify(call(`c${i}`, 'block', { pad }))), FLOOD_MS);
    await sleep(500 * SLOW);
    const again = p.inbox.splice(0, p.inbox.length);
    t.check(again.length === 0, `after cancelling the ${held.length} held calls, ${again.length} of 50 new ones were answered at once: ${again.slice(0, 2).map((e) => brief(e.msg)).join(' ')}`);
    await p.flood(Array.from({ length: 50 }, (_, i) => JSON.stringify(cancelled(`c${i}`))), FLOOD_MS);
    await sleep(300);
    p.send(call('after', 'echo', { text: 'served' }));
    const m = await p.answer('after', 5000 * SLOW);
    t.check(m && m.result, `a call after cancelling the held ones: ${brief(m)}`);
    await t.finish(p);
});

// --- Run. ----------------------------------------------------------------------------------

if (!fs.existsSync(BIN)) {
    console.log(`FAIL hostile: no binary ${BIN} (run make)`);
    process.exit(1);
}
let passed = 0;
let failed = 0;
const suiteStart = performance.now();
for (const c of cases) {
    if (ONLY.length && !ONLY.some((o) => c.name.split(' ')[0] === o || c.name.startsWith(o + ' ') || c.name.split(' ')[0].startsWith(o))) continue;
    const t = new Case(c.name);
    const t0 = performance.now();
    try {
        await c.fn(t);
    } catch (err) {
        t.check(false, `threw: ${err.stack.split('\n').slice(0, 2).join(' ')}`);
        for (const p of t.procs) if (p.exited) t.checkOutput(p);
    }
    for (const p of t.procs) p.kill('SIGKILL');
    const secs = ((performance.now() - t0) / 1000).toFixed(1);
    const figs = [...t.notes, `${secs} s`].join(', ');
    if (t.ok) {
        passed++;
        console.log(`ok   ${c.name}: ${figs}`);
    } else {
        failed++;
        const shown = t.failures.slice(0, 6).join('; ') + (t.failures.length > 6 ? `; and ${t.failures.length - 6} more` : '');
        console.log(`FAIL ${c.name}: ${shown} [${figs}]`);
    }
}
console.log(`hostile: ${passed} passed, ${failed} failed in ${((performance.now() - suiteStart) / 1000).toFixed(1)} s` +
    `${SANITIZED ? ' (sanitizer build)' : ''}`);
process.exit(failed > 0 ? 1 : 0);
