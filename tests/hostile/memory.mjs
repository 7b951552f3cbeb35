// tests/hostile/memory.mjs: what one client message may cost mcph once parsed, through the
// real binary over real pipes. A JSON text of tiny values ("0,0,0,...") takes cJSON a node of
// 64 bytes and more per two bytes of text, so a message under the 16 MiB line limit could take
// over 600 MiB parsed and leave most of it behind.
//
//   node tests/hostile/memory.mjs build/mcph        (make test-hostile)
//
// Each case starts build/mcph afresh with tests/hostile/hostile.ini and measures VmRSS and
// VmHWM (the peak, reset through /proc/PID/clear_refs) from /proc/PID/status: "base B, peak P,
// after A MiB". The bounds are checked on a plain build and only reported under a sanitizer.
// Then mcph must still answer a ping and exit 0 at the end of its input. Prints "ok ..." /
// "FAIL ..." lines, then a count; exits 1 on a failure.

import fs from 'node:fs';
import path from 'node:path';

import { Proc } from '../lib/proc.mjs';
import { Session } from '../lib/session.mjs';
import { check, done } from '../lib/check.mjs';
import { workspace, writeIni, TEST_PLUGINS } from '../lib/workspace.mjs';
import { sleep, waitFor, sanitizersOf, short, SANITIZER_REPORT } from '../lib/util.mjs';

const HERE = path.dirname(new URL(import.meta.url).pathname);
const ROOT = path.resolve(HERE, '../..');
const BIN = path.resolve(process.argv[2] || path.join(ROOT, 'build/mcph'));
const CONF = path.join(HERE, 'hostile.ini');
const MiB = 1024 * 1024;
const SANITIZED = sanitizersOf(BIN).any;
const SLOW = SANITIZED ? 3 : 1;
// plugin-api/mcph-json.h: MCPH_JSON_COST_MAX.
const COST_MAX_MIB = 64;
// 15 MiB of "0,": about 7.8 million values (the line limit is 16 MiB).
const HUGE = Math.floor((15 * MiB) / 2);
// About 400,000 values: 0.8 MiB of text, about 45 MiB parsed, under the limit.
const LARGE = 400000;
// What a case may add to mcph's memory at its peak and keep afterwards (MiB). Before these
// bounds, 15 MiB of tiny values took mcph to 612 MiB and it kept 597.
const PEAK_MIB = 160;
const AFTER_MIB = 24;

const zeros = (n) => `[${'0,'.repeat(n - 1)}0]`;

function mem(pid) {
    const text = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
    const kib = (name) => Number(new RegExp(`${name}:\\s+(\\d+)`).exec(text)?.[1] || NaN);
    return { rss: kib('VmRSS') / 1024, hwm: kib('VmHWM') / 1024 };
}

// Start mcph, send one line (text) and wait for the answer to id; { answer, base, peak, after }
// in MiB, after the memory settled (at most 2 s). The session is returned for the end checks.
async function measure(line, id) {
    const s = new Session(BIN, CONF, { cwd: ROOT, timeoutMs: 20000 * SLOW });
    await s.initialize({ rev: '2025-11-25', ms: 10000 * SLOW });
    await s.call('tools/call', { name: 'echo', arguments: { text: 'warm' } });
    const base = mem(s.pid).rss;
    fs.writeFileSync(`/proc/${s.pid}/clear_refs`, '5');
    s.send(line);
    const answer = await s.answer(id, 30000 * SLOW);
    return settled(s, answer, base);
}

// The figures once the memory settled (at most 2 s).
async function settled(s, answer, base) {
    const peak = mem(s.pid).hwm;
    let after = mem(s.pid).rss;
    for (let i = 0; i < 20 && after - base > AFTER_MIB / 2; i++) {
        await sleep(100);
        after = mem(s.pid).rss;
    }
    return { s, answer, base, peak, after };
}

// The problems of a case: its own (checks: [ok, why] pairs), its memory's, and the end of mcph
// (a ping answered, exit 0 at the end of input, no sanitizer report); its figures otherwise.
async function verdict(m, checks, afterMiB = AFTER_MIB) {
    const p = checks.filter(([ok]) => !ok).map(([, why]) => why);
    const figures = `base ${m.base.toFixed(0)}, peak ${m.peak.toFixed(0)}, after ${m.after.toFixed(0)} MiB`;
    if (!SANITIZED && m.peak - m.base > PEAK_MIB) p.push(`peak ${(m.peak - m.base).toFixed(0)} MiB above base, over ${PEAK_MIB}`);
    if (!SANITIZED && m.after - m.base > afterMiB) p.push(`kept ${(m.after - m.base).toFixed(0)} MiB after, over ${afterMiB}`);
    if ((await m.s.ping(3000 * SLOW)) === null) p.push('no answer to ping after it');
    const st = await m.s.stop(10000 * SLOW);
    if (st.code !== 0) p.push(`exit ${JSON.stringify(st)}`);
    const report = SANITIZER_REPORT.exec(m.s.stderr);
    if (report) p.push(`sanitizer report: ${short(m.s.stderr.slice(report.index), 300)}`);
    return p.length ? [...p, figures] : figures;
}

const limitNamed = (a) => typeof a?.error?.message === 'string' && a.error.message.includes(`limit of ${COST_MAX_MIB} MiB`);

await check('memory: a request of 15 MiB of tiny values is refused with its id, naming the limit', async () => {
    const id = 'huge-1';
    const line = `{"jsonrpc":"2.0","id":"${id}","method":"tools/call","params":{"name":"echo","arguments":{"text":"x"},"_meta":{"pad":${zeros(HUGE)}}}}`;
    const m = await measure(line, id);
    return verdict(m, [
        [m.answer?.error?.code === -32600, `not -32600: ${short(m.answer, 200)}`],
        [limitNamed(m.answer), `the message does not name the limit: ${short(m.answer, 200)}`],
    ]);
});

await check('memory: a batch of 15 MiB of tiny values is refused, naming the limit', async () => {
    const line = `[{"jsonrpc":"2.0","id":"b-1","method":"ping","params":{"pad":${zeros(HUGE)}}}]`;
    const s = new Session(BIN, CONF, { cwd: ROOT, timeoutMs: 20000 * SLOW });
    await s.initialize({ rev: '2025-03-26', ms: 10000 * SLOW });
    const base = mem(s.pid).rss;
    fs.writeFileSync(`/proc/${s.pid}/clear_refs`, '5');
    s.send(line);
    await s.waitFor(() => s.inbox.some((e) => e.msg.id === null), 30000 * SLOW);
    const answer = s.inbox.find((e) => e.msg.id === null)?.msg;
    const m = await settled(s, answer, base);
    return verdict(m, [
        [answer?.error?.code === -32600, `not -32600 with a null id: ${short(answer, 200)}`],
        [limitNamed(answer), `the message does not name the limit: ${short(answer, 200)}`],
    ]);
});

await check('memory: a request of 400,000 values is served, and mcph gives the memory back', async () => {
    const id = 'large-1';
    const line = `{"jsonrpc":"2.0","id":"${id}","method":"tools/call","params":{"name":"echo","arguments":{"text":"x"},"_meta":{"pad":${zeros(LARGE)}}}}`;
    const m = await measure(line, id);
    return verdict(m, [[m.answer?.result?.content?.[0]?.text === 'x', `not echoed: ${short(m.answer, 200)}`]]);
});

// A 2026-07-28 retry whose requestState (not sealed: no state_key_file) is base64 of 9 MiB of
// tiny values: the state is not ours (it would cost more than a message may), so the question
// is asked again, and the state is never parsed.
await check('memory: a requestState of 9 MiB of tiny values is ignored unparsed', async () => {
    const id = 'state-1';
    const state = Buffer.from(`{"m":"tools/call","n":"confirm","a":{"ask-1":{"pad":${zeros(Math.floor((9 * MiB) / 2))}}}}`).toString('base64');
    const meta = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': { elicitation: {} } };
    const line = JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'confirm', arguments: { action: 'x' }, requestState: state, _meta: meta } });
    const m = await measure(line, id);
    return verdict(m, [[m.answer?.result?.resultType === 'input_required', `not asked again: ${short(m.answer, 200)}`]]);
});

// A hostile plugin: tests/plugins/relay.c in an isolated child, asked to relay as its log
// message a JSON text of 10 MiB of tiny values (handed over as a string, so the client's own
// message costs little). The child refuses it (host->client_log: MCPH_ERR_LIMIT); mcph's link
// would drop such a line from the child unparsed.
await check('memory: an isolated plugin relaying a log message of 10 MiB of tiny values', async () => {
    const ws = workspace('hostile', 'memory');
    const ini = writeIni(ws, {
        server: { name: 'mcph-memory', plugin_dir: TEST_PLUGINS },
        'plugin.relay': { path: 'relay.so', isolate: 'process' },
    });
    const s = new Session(BIN, ini, { cwd: ROOT, timeoutMs: 20000 * SLOW });
    await s.initialize({ rev: '2025-11-25', setLevel: 'debug', ms: 15000 * SLOW });
    await s.call('tools/call', { name: 'log', arguments: { level: 6, raw: '"warm"' } });
    const base = mem(s.pid).rss;
    fs.writeFileSync(`/proc/${s.pid}/clear_refs`, '5');
    const id = s.request('tools/call', { name: 'log', arguments: { level: 6, raw: zeros(5 * MiB) } });
    const m = await settled(s, await s.answer(id, 30000 * SLOW), base);
    const text = m.answer?.result?.content?.[0]?.text || '';
    const big = s.notes.some((n) => n.method === 'notifications/message' && Array.isArray(n.params?.data));
    return verdict(m, [
        [text.startsWith('client_log said -'), `the plugin was not refused: ${short(m.answer, 200)}`],
        [!big, 'the log message reached the client'],
        // The 10 MiB string itself passed through mcph (read, and written to the child): blocks
        // that size may stay in glibc's heap, which the transport's buffers do not trim.
    ], 2 * AFTER_MIB);
});

// The same request of 400,000 values over Streamable HTTP (mcph --listen, a 2026-07-28 POST):
// the transport counts what it costs parsed and gives the memory back as stdio does.
await check('memory: an HTTP request of 400,000 values is served, and mcph gives the memory back', async () => {
    const proc = new Proc([BIN, '--listen', '127.0.0.1:0', CONF], { cwd: ROOT });
    const listening = /listening on http:\/\/127\.0\.0\.1:(\d+)(\/\S*)/;
    await waitFor(() => listening.test(proc.stderr), 10000 * SLOW);
    const [, port, where] = listening.exec(proc.stderr);
    const meta = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} };
    const post = async (id, extra) => {
        const body = `{"jsonrpc":"2.0","id":"${id}","method":"tools/call","params":{"name":"echo","arguments":{"text":"x"},"_meta":${JSON.stringify(meta).slice(0, -1)}${extra}}}}`;
        const r = await fetch(`http://127.0.0.1:${port}${where}`, {
            method: 'POST', body,
            headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream',
                'MCP-Protocol-Version': '2026-07-28', 'Mcp-Method': 'tools/call', 'Mcp-Name': 'echo' },
        });
        return r.json().catch(() => null);
    };
    await post('warm', '');
    const base = mem(proc.pid).rss;
    fs.writeFileSync(`/proc/${proc.pid}/clear_refs`, '5');
    const answer = await post('large-http', `,"pad":${zeros(LARGE)}`);
    const peak = mem(proc.pid).hwm;
    let after = mem(proc.pid).rss;
    for (let i = 0; i < 20 && after - base > AFTER_MIB / 2; i++) {
        await sleep(100);
        after = mem(proc.pid).rss;
    }
    const p = [];
    const figures = `base ${base.toFixed(0)}, peak ${peak.toFixed(0)}, after ${after.toFixed(0)} MiB`;
    if (answer?.result?.content?.[0]?.text !== 'x') p.push(`not echoed: ${short(answer, 200)}`);
    if (!SANITIZED && peak - base > PEAK_MIB) p.push(`peak ${(peak - base).toFixed(0)} MiB above base, over ${PEAK_MIB}`);
    if (!SANITIZED && after - base > AFTER_MIB) p.push(`kept ${(after - base).toFixed(0)} MiB after, over ${AFTER_MIB}`);
    proc.kill('SIGTERM');
    const st = await proc.wait(10000 * SLOW);
    if (st?.code !== 0) p.push(`exit ${JSON.stringify(st)}`);
    const report = SANITIZER_REPORT.exec(proc.stderr);
    if (report) p.push(`sanitizer report: ${short(proc.stderr.slice(report.index), 300)}`);
    return p.length ? [...p, figures] : figures;
});

done('hostile memory');
