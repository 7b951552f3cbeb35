// tests/http/ratelimit.mjs: rate limits of the real binary, over real sockets on loopback.
//
//   node tests/http/ratelimit.mjs build/mcph          (make test-http)
//
// Starts build/mcph --listen 127.0.0.1:0 with INIs of its own (build/tests/http/ratelimit/):
//   requests  auth_token_file with two tokens, [server] rate = 2/s, rate_burst = 2: the first
//             token's burst of requests is refused with 429, Retry-After and a JSON-RPC error
//             whose data holds retryAfterMs; the second token is not starved; one log line.
//   tools     the same two tokens, no [server] rate; [limit.echo] (echo, 1/min, burst 2, per
//             principal), [limit.shared] (add, 1/min, burst 2, per server), [limit.slow]
//             (count, 1/min, burst 1): a 2026-07-28 POST of a refused call gets 429 and
//             Retry-After; a legacy (2025-03-26) session's batch gets -32000 with
//             data.retryAfterMs beside the answers that went through; the per-principal
//             bucket is one token's, the per-server one everybody's; a refused call is
//             answered at once while the allowed one still runs (never queued); a SIGHUP that
//             raises the limits lets the same calls through.
// And over stdio: [limit.echo] refuses the second echo with -32000 and data.retryAfterMs.
// Rates are per minute where counting matters (no refill during the test) and bounds are
// generous (multiplied by MCPH_TEST_SLOW: default 1, 3 under ASan/UBSan, 5 under TSan).

import fs from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';

import { Proc } from '../lib/proc.mjs';
import { check, done, expect, expectEq } from '../lib/check.mjs';
import { workspace, writeIni, PLUGINS } from '../lib/workspace.mjs';
import { ROOT, sleep, waitFor, sanitizersOf, SANITIZER_REPORT } from '../lib/util.mjs';
import { modernRequest, post, startServer, stopAll, servers } from './clients-lib.mjs';

const BIN = path.resolve(process.argv[2] || path.join(ROOT, 'build/mcph'));
const SAN = sanitizersOf(BIN);
const SLOW = Number(process.env.MCPH_TEST_SLOW) || (SAN.thread ? 5 : SAN.any ? 3 : 1);
const TOKENS = ['rate-token-one-0123456789abcdef', 'rate-token-two-0123456789abcdef'];
const AUTH = TOKENS.map((t) => ({ Authorization: `Bearer ${t}` }));
const START_MS = 15000 * SLOW;
const OLD = '2025-03-26'; // a legacy revision with batches

const ws = workspace('http', 'ratelimit');
const tokenFile = path.join(ws, 'tokens');
fs.writeFileSync(tokenFile, `${TOKENS.join('\n')}\n`);
fs.chmodSync(tokenFile, 0o600);

const example = { path: path.join(PLUGINS, 'example.so') };
const limits = (echo, shared, slow) => ({
    'limit.echo': { tools: 'echo', rate: echo, burst: 2 },
    'limit.shared': { tools: 'add', rate: shared, burst: 2, per: 'server' },
    'limit.slow': { tools: 'count', rate: slow, burst: 1 },
});
const toolsIni = (l) => ({
    server: { name: 'mcph-rate-tools', auth_token_file: tokenFile, workers: 4 },
    'plugin.example': example,
    ...l,
});

const echo = (id, text = 'hi') => modernRequest(id, 'tools/call', { name: 'echo', arguments: { text } });
const add = (id) => modernRequest(id, 'tools/call', { name: 'add', arguments: { a: 1, b: 2 } });

// The refusal's shape: 429, Retry-After in whole seconds, a JSON-RPC -32000 whose data holds
// retryAfterMs (the id is the request's, or null when the request was refused before its body
// was read).
function expectRefused(r, what, id) {
    expectEq(r.status, 429, `${what}: status`);
    const after = r.headers.get('retry-after');
    expect(/^[1-9]\d*$/.test(after || ''), `${what}: Retry-After ${after}`);
    const m = r.messages[0];
    expect(m?.error?.code === -32000, `${what}: error ${JSON.stringify(m)}`);
    expect(/^Rate limit exceeded/.test(m.error.message), `${what}: message ${m.error.message}`);
    const ms = m.error.data?.retryAfterMs;
    expect(Number.isInteger(ms) && ms >= 1, `${what}: retryAfterMs ${ms}`);
    expectEq(Number(after), Math.ceil(ms / 1000), `${what}: Retry-After is retryAfterMs rounded up`);
    expectEq(m.id, id, `${what}: id`);
    return ms;
}

function countLines(srv, re) {
    return srv.stderr.split('\n').filter((l) => re.test(l)).length;
}

// --- [server] rate: HTTP requests per principal. ---

const reqSrv = await startServer(BIN, writeIni(path.join(ws), {
    server: { name: 'mcph-rate-requests', auth_token_file: tokenFile, rate: '2/s', rate_burst: 2 },
    'plugin.example': example,
}, 'requests.ini'), 'requests', START_MS);

await check('[server] rate: a burst past it gets 429 and Retry-After, before the body is read', async () => {
    // Ten at once: burst 2, then 2 a second; a slow machine refills a few meanwhile.
    const rs = await Promise.all(Array.from({ length: 10 }, (_, i) =>
        post(reqSrv.url, modernRequest(i, 'tools/list'), { headers: AUTH[0], ms: 20000 * SLOW })));
    const ok = rs.filter((r) => r.status === 200).length;
    const refused = rs.filter((r) => r.status === 429);
    expect(ok >= 2 && refused.length >= 4 && ok + refused.length === 10, `${ok} answered, ${refused.length} refused of 10`);
    for (const r of refused) {
        const ms = expectRefused(r, 'request', null);
        expect(ms <= 500, `retryAfterMs ${ms} at 2/s`);
    }
    return `${ok} answered, ${refused.length} refused`;
});

await check('[server] rate: another token is not starved', async () => {
    const r = await post(reqSrv.url, modernRequest(1, 'tools/list'), { headers: AUTH[1] });
    expectEq(r.status, 200, 'status');
    expect(Array.isArray(r.answer?.result?.tools), 'a tool list');
});

await check('[server] rate: refusals are logged once, not once per request', async () => {
    let refused = 0;
    for (let i = 0; i < 10; i++) refused += (await post(reqSrv.url, modernRequest(i, 'tools/list'), { headers: AUTH[0] })).status === 429;
    // One line every 5 s at most: one, or two on a machine slow enough to take 5 s here.
    const n = countLines(reqSrv, /refused by \[server\] rate/);
    expect(refused >= 5 && n >= 1 && n <= 2, `${n} log lines for ${refused} refusals here and more before`);
    expect(/warning: rate: \d+ HTTP request\(s\) of token 1 refused/.test(reqSrv.stderr), 'the line names the token');
});

await check('[server] rate: the bucket refills', async () => {
    await sleep(1200);
    const r = await post(reqSrv.url, modernRequest(1, 'tools/list'), { headers: AUTH[0] });
    expectEq(r.status, 200, 'status after a second');
});

// --- [limit.NAME]: tools/call. ---

const toolsPath = writeIni(ws, toolsIni(limits('1/min', '1/min', '1/min')), 'tools.ini');
const toolSrv = await startServer(BIN, toolsPath, 'tools', START_MS);

await check('[limit.echo] per principal: a 2026-07-28 POST past it gets 429 and Retry-After', async () => {
    const rs = [];
    for (let i = 0; i < 4; i++) rs.push(await post(toolSrv.url, echo(i), { headers: AUTH[0] }));
    expectEq(rs.map((r) => r.status), [200, 200, 429, 429], 'statuses');
    expectEq(rs[0].answer?.result?.content?.[0]?.text, 'hi', 'the first echo');
    const ms = expectRefused(rs[2], 'third echo', 2);
    // 1/min: a minute at most, and more than 50 s with no time gone.
    expect(ms > 50000 && ms <= 60000, `retryAfterMs ${ms}`);
    expect(/\[limit\.echo\]/.test(rs[2].messages[0].error.message), 'the message names the section');
    return `Retry-After ${rs[2].headers.get('retry-after')} s`;
});

await check('[limit.echo] per principal: the other token has its own bucket', async () => {
    const r = await post(toolSrv.url, echo(7, 'two'), { headers: AUTH[1] });
    expectEq(r.status, 200, 'status');
    expectEq(r.answer?.result?.content?.[0]?.text, 'two', 'echo');
});

await check('[limit.shared] per server: one bucket for every token', async () => {
    const a = await post(toolSrv.url, add(1), { headers: AUTH[0] });
    const b = await post(toolSrv.url, add(2), { headers: AUTH[1] });
    const c = await post(toolSrv.url, add(3), { headers: AUTH[1] });
    const d = await post(toolSrv.url, add(4), { headers: AUTH[0] });
    expectEq([a.status, b.status, c.status, d.status], [200, 200, 429, 429], 'statuses');
    expectRefused(c, 'third add', 3);
});

await check('a tool no section names is not limited', async () => {
    for (let i = 0; i < 5; i++) {
        const r = await post(toolSrv.url, modernRequest(i, 'tools/call', { name: 'greet', arguments: { name: 'x' } }), { headers: AUTH[0] });
        expectEq(r.status, 200, `greet ${i}`);
    }
});

// A legacy session: initialize, initialized, then its POSTs carry Mcp-Session-Id.
async function legacySession(url, headers) {
    const init = await post(url, { jsonrpc: '2.0', id: 'init', method: 'initialize', params: { protocolVersion: OLD, capabilities: {}, clientInfo: { name: 'rate', version: '1' } } }, { headers });
    const id = init.headers.get('mcp-session-id');
    expect(init.status === 200 && id, `initialize: ${init.status} ${init.text.slice(0, 200)}`);
    const h = { ...headers, 'mcp-session-id': id, 'mcp-protocol-version': OLD };
    const n = await post(url, { jsonrpc: '2.0', method: 'notifications/initialized' }, { headers: h });
    expectEq(n.status, 202, 'initialized');
    return h;
}
const legacyCall = (id, name, args) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } });

await check('[limit.echo] in a legacy session\'s batch: -32000 with data.retryAfterMs beside the answers', async () => {
    // token 2 has one echo left (it made one above).
    const h = await legacySession(toolSrv.url, AUTH[1]);
    const batch = [legacyCall(1, 'echo', { text: 'a' }), legacyCall(2, 'echo', { text: 'b' }), legacyCall(3, 'greet', { name: 'z' })];
    const r = await post(toolSrv.url, JSON.stringify(batch), { headers: h });
    expectEq(r.status, 200, 'status');
    const all = r.messages.flat();
    const byId = Object.fromEntries(all.map((m) => [m.id, m]));
    expect(byId[1]?.result, `echo 1 answered: ${JSON.stringify(byId[1])}`);
    expect(byId[3]?.result, `greet answered: ${JSON.stringify(byId[3])}`);
    expectEq(byId[2]?.error?.code, -32000, 'echo 2 refused');
    expect(byId[2].error.data?.retryAfterMs > 0, `retryAfterMs ${JSON.stringify(byId[2].error.data)}`);
    // The same session, the refused call alone in its POST: a 429.
    const one = await post(toolSrv.url, legacyCall(4, 'echo', { text: 'c' }), { headers: h });
    expectRefused(one, 'legacy echo alone', 4);
});

await check('a refused call is answered at once, not queued behind the call that runs', async () => {
    const t0 = performance.now();
    const first = post(toolSrv.url, modernRequest(1, 'tools/call', { name: 'count', arguments: { to: 3, delay_ms: 1000 } }), { headers: AUTH[0], ms: 30000 * SLOW });
    await sleep(300);
    const t1 = performance.now();
    const second = await post(toolSrv.url, modernRequest(2, 'tools/call', { name: 'count', arguments: { to: 1 } }), { headers: AUTH[0] });
    const refusedMs = performance.now() - t1;
    expectRefused(second, 'second count', 2);
    const f = await first;
    const firstMs = performance.now() - t0;
    expectEq(f.answer?.result?.content?.[0]?.text, 'counted to 3', 'the first count');
    expect(refusedMs < firstMs - 1000, `refused after ${Math.round(refusedMs)} ms, the first count took ${Math.round(firstMs)} ms`);
    return `refused in ${Math.round(refusedMs)} ms while the count ran ${Math.round(firstMs)} ms`;
});

await check('a SIGHUP that raises the limits lets the same calls through at once', async () => {
    const before = await post(toolSrv.url, echo(1), { headers: AUTH[0] });
    expectEq(before.status, 429, 'echo before the reload');
    const reloads = countLines(toolSrv, /reload: serving/);
    writeIni(ws, toolsIni(limits('1000/s', '1000/s', '1000/s')), 'tools.ini');
    toolSrv.hup();
    const seen = await waitFor(() => countLines(toolSrv, /reload: serving/) > reloads, 10000 * SLOW);
    expect(seen, `no reload line: ${toolSrv.stderrTail()}`);
    await sleep(20);
    for (let i = 0; i < 5; i++) {
        const r = await post(toolSrv.url, echo(i), { headers: AUTH[0] });
        expectEq(r.status, 200, `echo ${i} after the reload`);
        const s = await post(toolSrv.url, add(i), { headers: AUTH[1] });
        expectEq(s.status, 200, `add ${i} after the reload`);
    }
});

await check('a SIGHUP that removes a section drops its limit', async () => {
    writeIni(ws, toolsIni({ 'limit.echo': { tools: 'echo', rate: '1/min', burst: 1 } }), 'tools.ini');
    const reloads = countLines(toolSrv, /reload: serving/);
    toolSrv.hup();
    expect(await waitFor(() => countLines(toolSrv, /reload: serving/) > reloads, 10000 * SLOW), 'no reload line');
    for (let i = 0; i < 4; i++) expectEq((await post(toolSrv.url, add(i), { headers: AUTH[0] })).status, 200, `add ${i}`);
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await post(toolSrv.url, echo(i), { headers: AUTH[0] })).status);
    // Token 1's echo bucket is the one it had (full at 1000/s), cut to the new burst.
    expectEq(statuses, [200, 429, 429], 'echo with burst 1');
});

// --- stdio ---

await check('over stdio: -32000 with data.retryAfterMs', async () => {
    const ini = writeIni(ws, { server: { name: 'mcph-rate-stdio' }, 'plugin.example': example, 'limit.echo': { tools: 'echo', rate: '1/min', burst: 1 } }, 'stdio.ini');
    const p = new Proc([BIN, ini], { cwd: ROOT });
    try {
        p.send({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'rate', version: '1' } } });
        p.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
        for (let i = 1; i <= 3; i++) p.send(legacyCall(i, 'echo', { text: `t${i}` }));
        const ok = await p.waitFor(() => p.events.filter((e) => e.msg && 'id' in e.msg).length >= 4, 10000 * SLOW);
        expect(ok, `answers: ${p.events.length}; stderr ${p.stderr.slice(-300)}`);
        const byId = Object.fromEntries(p.events.filter((e) => e.msg).map((e) => [e.msg.id, e.msg]));
        expect(byId[1]?.result, `echo 1: ${JSON.stringify(byId[1])}`);
        for (const id of [2, 3]) {
            expectEq(byId[id]?.error?.code, -32000, `echo ${id}`);
            const ms = byId[id].error.data?.retryAfterMs;
            expect(ms > 50000 && ms <= 60000, `echo ${id}: retryAfterMs ${ms}`);
        }
        // stderr is a pipe of its own: the log line may reach us after the answers.
        const logged = await p.waitFor(() => /refused by \[limit\.echo\]/.test(p.stderr), 5000 * SLOW);
        expect(logged, `logged: ${p.stderr.slice(-300)}`);
    } finally {
        p.close();
        await p.wait(10000 * SLOW);
    }
    expectEq(p.exitInfo?.code, 0, 'exit status at the end of input');
    expect(!SANITIZER_REPORT.test(p.stderr), `sanitizer report: ${p.stderr.slice(-600)}`);
});

await check('the servers stop cleanly, with no sanitizer report', async () => {
    // Stopped first: a leak is reported at exit.
    const problems = await stopAll(15000 * SLOW);
    for (const s of servers) problems.push(...s.problems());
    return problems;
});

done('ratelimit');
