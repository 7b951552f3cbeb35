// tests/http/metrics.mjs: metrics and health over HTTP ([server] metrics_path, live_path,
// ready_path, metrics_listen), against the real binary on 127.0.0.1.
//
//   node tests/http/metrics.mjs build/mcph          (make test-http)
//
// Servers (INIs in build/tests/http-metrics/*/):
//   beside   the three paths beside the endpoint; the example plugin in process and
//            tests/plugins/fault.c isolated (prefix f). Calls of every outcome are made (ok, a
//            tool error, an unknown tool, a call cancelled by its client going away, a read, a
//            get, a read that crashes the child), refusals (404, 415), a SIGHUP; the scrape must
//            pass `promtool check metrics` (Debian's prometheus package) and every count must be
//            what was done. Then the isolated plugin's state: restarting after one crash, down
//            after five in a row; ready stays 200 (the example plugin serves).
//   auth     the same paths with auth_token_file: 401 without the token, 200 with it, and the
//            401s counted as unauthorized.
//   listen   metrics_listen = 127.0.0.1:0 with auth_token_file: the paths answer there without a
//            token and are 404 on the endpoint's port; the own listener refuses another Host
//            (403) and any other path (404); during shutdown it says 503 to live and ready.
//   empty    the only plugin's init fails: ready 503 with the reason, live 200, its state down.
// Prints "ok NAME (figures)" or "FAIL NAME: why", then the count; exits 1 on a failure. Every
// wait is bounded; bounds are multiplied by MCPH_TEST_SLOW (default 1, 3 under ASan/UBSan, 5
// under TSan).

import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { performance } from 'node:perf_hooks';

import { check, done, expect, expectEq, report } from '../lib/check.mjs';
import { workspace, writeIni, PLUGINS, TEST_PLUGINS } from '../lib/workspace.mjs';
import { ROOT, sleep, sanitizersOf } from '../lib/util.mjs';
import { startServer, stopAll, servers, post, modernRequest } from './clients-lib.mjs';

const BIN = path.resolve(process.argv[2] || path.join(ROOT, 'build/mcph'));
const SAN = sanitizersOf(BIN);
const SLOW = Number(process.env.MCPH_TEST_SLOW) || (SAN.thread ? 5 : SAN.any ? 3 : 1);
const TOKEN = 'metrics-test-token-0123456789abcdef';
const T0 = performance.now();

// --- The text format, parsed. ---

// The samples of a scrape: Map from "name{k="v",...}" (labels sorted) to the value.
function parseMetrics(text) {
    const samples = new Map();
    for (const line of text.split('\n')) {
        if (line === '' || line.startsWith('#')) continue;
        const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
        expect(m, `a line that is not a sample: ${line}`);
        const labels = [];
        for (const l of (m[2] || '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) labels.push([l[1], l[2]]);
        samples.set(key(m[1], Object.fromEntries(labels)), Number(m[3]));
    }
    return samples;
}

function key(name, labels = {}) {
    const l = Object.entries(labels).sort(([a], [b]) => (a < b ? -1 : 1)).map(([k, v]) => `${k}="${v}"`);
    return l.length ? `${name}{${l.join(',')}}` : name;
}

// A sample's value, 0 when absent.
const val = (s, name, labels) => s.get(key(name, labels)) ?? 0;

// promtool's verdict on a scrape: [] or its complaints.
function promtool(text) {
    try {
        execFileSync('promtool', ['check', 'metrics'], { input: text, stdio: ['pipe', 'pipe', 'pipe'], timeout: 10000 });
        return [];
    } catch (err) {
        return [`promtool check metrics: ${String(err.stdout || '') + String(err.stderr || '') || err.message}`.trim()];
    }
}

async function get(url, headers = {}) {
    const res = await fetch(url, { headers, signal: AbortSignal.timeout(10000 * SLOW) });
    return { status: res.status, ct: res.headers.get('content-type') || '', text: await res.text() };
}

// A GET with a Host header of our choosing (fetch will not send one): its status.
function hostGet(url, host) {
    return new Promise((resolve) => {
        const req = http.get(url, { headers: { host }, timeout: 10000 * SLOW }, (res) => {
            res.resume();
            res.on('end', () => resolve({ status: res.statusCode }));
        });
        req.on('timeout', () => req.destroy(new Error('timed out')));
        req.on('error', (err) => resolve({ status: err.message }));
    });
}

async function scrape(base, headers) {
    const r = await get(`${base}/metrics`, headers);
    expectEq(r.status, 200, `GET /metrics: ${r.text.slice(0, 200)}`);
    expect(r.ct.startsWith('text/plain; version=0.0.4'), `content type ${r.ct}`);
    return { text: r.text, s: parseMetrics(r.text) };
}

const root = (url) => url.replace(/\/mcp$/, '');
const call = (srv, id, name, args = {}) => post(srv.url, modernRequest(id, 'tools/call', { name, arguments: args }));

// Sanitizer reports that no deliberate crash of the fault plugin explains (as
// tests/isolate/common.mjs judges them: a SEGV, or UBSan's NULL store in fault.c).
function strayReports(stderr) {
    const out = [];
    for (const line of stderr.split('\n')) {
        const summary = /SUMMARY: (\w*Sanitizer): (\S+)(.*)/.exec(line);
        if (!summary && !/runtime error:/.test(line)) continue;
        const deliberate = summary ?
            /^(SEGV|stack-overflow)$/.test(summary[2]) || (summary[2] === 'undefined-behavior' && summary[3].includes('fault.c')) :
            line.includes('fault.c') && line.includes('null pointer');
        if (!deliberate) out.push(line.trim().slice(0, 300));
    }
    return out;
}

// --- The INIs. ---

const base = (more = {}) => ({
    plugin_dir: TEST_PLUGINS,
    workers: 8,
    metrics_path: '/metrics',
    live_path: '/livez',
    ready_path: '/readyz',
    ...more,
});

function faultyIni(ws, server = {}) {
    return writeIni(ws, {
        server: base(server),
        'plugin.example': { path: path.join(PLUGINS, 'example.so') },
        'plugin.faulty': { path: 'fault.so', prefix: 'f', isolate: 'process', call_timeout_ms: 3000 * SLOW },
    });
}

function tokenFile(ws) {
    const f = path.join(ws, 'tokens');
    fs.writeFileSync(f, `${TOKEN}\n`, { mode: 0o600 });
    return f;
}

// --- beside: counts. ---

async function caseBeside() {
    const ws = workspace('http-metrics', 'beside');
    const srv = await startServer(BIN, faultyIni(ws), 'beside', 15000 * SLOW);
    const url = root(srv.url);
    let id = 1;

    await check('beside: calls of every outcome are counted as made', async () => {
        for (let i = 0; i < 3; i++) expect((await call(srv, id++, 'echo', { text: `e${i}` })).answer?.result, 'echo answered');
        for (let i = 0; i < 2; i++) expect((await call(srv, id++, 'fail')).answer?.result?.isError, 'fail: a tool error');
        expect((await call(srv, id++, 'nope')).answer?.error, 'an unknown tool: an error');
        expect((await post(srv.url, modernRequest(id++, 'resources/read', { uri: 'example://readme' }))).answer?.result,
            'resources/read answered');
        expect((await post(srv.url, modernRequest(id++, 'prompts/get', { name: 'review', arguments: { code: 'x' } }))).answer,
            'prompts/get answered');
    });

    await check('beside: a call whose client went away counts as cancelled', async () => {
        const ac = new AbortController();
        const body = modernRequest(id++, 'tools/call', { name: 'count', arguments: { to: 100, delay_ms: 50 } });
        const p = fetch(srv.url, {
            method: 'POST',
            headers: {
                'content-type': 'application/json', accept: 'application/json, text/event-stream',
                'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'count',
            },
            body: JSON.stringify(body),
            signal: ac.signal,
        }).then((r) => r.text()).catch(() => null);
        await sleep(300);
        const inFlight = val((await scrape(url)).s, 'mcph_requests_in_flight');
        ac.abort();
        await p;
        let s;
        const until = performance.now() + 10000 * SLOW;
        do {
            await sleep(50);
            s = (await scrape(url)).s;
        } while (val(s, 'mcph_calls_total', { plugin: 'example', tool: 'count', outcome: 'cancelled' }) < 1 && performance.now() < until);
        expectEq(val(s, 'mcph_calls_total', { plugin: 'example', tool: 'count', outcome: 'cancelled' }), 1, 'count cancelled');
        expectEq([inFlight, val(s, 'mcph_requests_in_flight')], [1, 0], 'requests in flight during the call and after');
    });

    await check('beside: refusals by reason', async () => {
        for (let i = 0; i < 2; i++) expectEq((await get(`${url}/nope`)).status, 404, 'GET /nope');
        const r = await fetch(srv.url, {
            method: 'POST', headers: { 'content-type': 'text/plain', accept: 'application/json, text/event-stream' }, body: 'x',
        });
        await r.text();
        expectEq(r.status, 415, 'text/plain POST');
    });

    await check('beside: a reload counted', async () => {
        const before = val((await scrape(url)).s, 'mcph_reloads_total', { result: 'ok' });
        srv.hup();
        const until = performance.now() + 15000 * SLOW;
        let now = before;
        while (now === before && performance.now() < until) {
            await sleep(50);
            now = val((await scrape(url)).s, 'mcph_reloads_total', { result: 'ok' });
        }
        expectEq([before, now], [0, 1], 'reloads ok before and after a SIGHUP');
    });

    await check('beside: the scrape passes promtool and its counts are the calls made', async () => {
        const { text, s } = await scrape(url);
        const problems = promtool(text);
        const want = [
            ['mcph_up', {}, 1],
            ['mcph_build_info', { version: /mcph_build_info\{version="([^"]+)"\}/.exec(text)?.[1] }, 1],
            ['mcph_calls_total', { plugin: 'example', tool: 'echo', outcome: 'ok' }, 3],
            ['mcph_calls_total', { plugin: 'example', tool: 'echo', outcome: 'error' }, 0],
            ['mcph_calls_total', { plugin: 'example', tool: 'fail', outcome: 'tool_error' }, 2],
            ['mcph_calls_total', { plugin: 'example', tool: 'fail', outcome: 'ok' }, 0],
            ['mcph_call_duration_seconds_count', { plugin: 'example', tool: 'echo' }, 3],
            ['mcph_call_duration_seconds_bucket', { plugin: 'example', tool: 'echo', le: '+Inf' }, 3],
            ['mcph_plugin_calls_total', { plugin: 'example', method: 'tools/call', outcome: 'ok' }, 3],
            ['mcph_plugin_calls_total', { plugin: 'example', method: 'tools/call', outcome: 'tool_error' }, 2],
            ['mcph_plugin_calls_total', { plugin: 'example', method: 'tools/call', outcome: 'cancelled' }, 1],
            ['mcph_plugin_calls_total', { plugin: 'example', method: 'resources/read', outcome: 'ok' }, 1],
            ['mcph_plugin_calls_total', { plugin: 'example', method: 'prompts/get', outcome: 'ok' }, 1],
            ['mcph_plugin_call_duration_seconds_count', { plugin: 'example' }, 8],
            ['mcph_requests_in_flight', {}, 0],
            ['mcph_http_rejected_total', { reason: 'not_found' }, 2],
            ['mcph_http_rejected_total', { reason: 'unsupported_media' }, 1],
            ['mcph_reloads_total', { result: 'ok' }, 1],
            ['mcph_reloads_total', { result: 'failed' }, 0],
            ['mcph_plugin_state', { plugin: 'example', state: 'up' }, 1],
            ['mcph_plugin_state', { plugin: 'faulty', state: 'up' }, 1],
            ['mcph_plugin_state', { plugin: 'faulty', state: 'down' }, 0],
            ['mcph_sessions', {}, 0],
        ];
        for (const [name, labels, n] of want) {
            const got = s.get(key(name, labels));
            if (got !== n) problems.push(`${key(name, labels)} = ${got}, wanted ${n}`);
        }
        for (const k of s.keys()) if (k.includes('tool="nope"')) problems.push(`a series for the unknown tool: ${k}`);
        const buckets = [...s.entries()].filter(([k]) => k.startsWith('mcph_call_duration_seconds_bucket{') && k.includes('tool="echo"'));
        if (buckets.length !== 11) problems.push(`${buckets.length} buckets for echo, wanted 11`);
        return problems.length ? problems : `${s.size} samples`;
    });

    await check('beside: live and ready', async () => {
        const live = await get(`${url}/livez`);
        const ready = await get(`${url}/readyz`);
        expectEq([live.status, live.text, ready.status, ready.text], [200, 'ok\n', 200, 'ready\n'], 'live and ready');
        expectEq((await fetch(`${url}/readyz`, { method: 'POST', body: '' })).status, 405, 'POST /readyz');
    });

    await check('beside: an isolated plugin that crashes is restarting, then down after five crashes', async () => {
        const states = [];
        const stateOf = async () => {
            const s = (await scrape(url)).s;
            return ['up', 'restarting', 'down', 'idle'].filter((st) => val(s, 'mcph_plugin_state', { plugin: 'faulty', state: st }) === 1);
        };
        const r = await post(srv.url, modernRequest(id++, 'resources/read', { uri: 'fault://crash' }), { ms: 30000 * SLOW });
        expect(r.answer?.error, `the crashing read: an error (${r.text.slice(0, 120)})`);
        states.push((await stateOf()).join('+'));
        for (let i = 1; i < 5; i++) {
            const again = await post(srv.url, modernRequest(id++, 'resources/read', { uri: 'fault://crash' }), { ms: 30000 * SLOW });
            expect(again.answer?.error, `crash ${i + 1}: an error`);
        }
        let now = [];
        const until = performance.now() + 10000 * SLOW;
        do {
            now = await stateOf();
            if (now[0] !== 'down') await sleep(50);
        } while (now[0] !== 'down' && performance.now() < until);
        states.push(now.join('+'));
        expectEq(states, ['restarting', 'down'], 'faulty after one crash, then after five');
        const s = (await scrape(url)).s;
        expectEq(val(s, 'mcph_plugin_calls_total', { plugin: 'faulty', method: 'resources/read', outcome: 'error' }), 5, 'crashing reads counted as errors');
        expectEq((await get(`${url}/readyz`)).status, 200, 'ready while the example plugin serves');
        return states.join(' then ');
    });

}

// --- auth: behind the endpoint's token. ---

async function caseAuth() {
    const ws = workspace('http-metrics', 'auth');
    const srv = await startServer(BIN, faultyIni(ws, { auth_token_file: tokenFile(ws) }), 'auth', 15000 * SLOW);
    const url = root(srv.url);
    await check('auth: the paths need the token', async () => {
        const bare = await Promise.all(['/metrics', '/livez', '/readyz'].map((p) => get(`${url}${p}`)));
        expectEq(bare.map((r) => r.status), [401, 401, 401], 'without a token');
        const wrong = await get(`${url}/metrics`, { authorization: 'Bearer wrong' });
        expectEq(wrong.status, 401, 'a wrong token');
        const { s } = await scrape(url, { authorization: `Bearer ${TOKEN}` });
        expectEq(val(s, 'mcph_http_rejected_total', { reason: 'unauthorized' }), 4, 'the 401s counted');
        expectEq((await get(`${url}/livez`, { authorization: `Bearer ${TOKEN}` })).status, 200, 'live with the token');
    });
}

// --- listen: a listener of their own. ---

async function caseListen() {
    const ws = workspace('http-metrics', 'listen');
    const ini = faultyIni(ws, { auth_token_file: tokenFile(ws), metrics_listen: '127.0.0.1:0' });
    const srv = await startServer(BIN, ini, 'listen', 15000 * SLOW);
    const m = /metrics and health on (http:\/\/127\.0\.0\.1:\d+)/.exec(srv.stderr);
    await check('listen: served on metrics_listen without a token, not on the endpoint', async () => {
        expect(m, `no "metrics and health on" line: ${srv.stderrTail()}`);
        const ops = m[1];
        const { text } = await scrape(ops);
        const problems = promtool(text);
        expectEq((await get(`${ops}/livez`)).status, 200, 'live there');
        expectEq((await get(`${ops}/readyz`)).status, 200, 'ready there');
        expectEq((await get(`${ops}/mcp`)).status, 404, 'the endpoint is not there');
        const main = root(srv.url);
        const away = await Promise.all(['/metrics', '/livez', '/readyz'].map((p) => get(`${main}${p}`, { authorization: `Bearer ${TOKEN}` })));
        expectEq(away.map((r) => r.status), [404, 404, 404], 'the paths on the endpoint port');
        const host = await hostGet(`${ops}/livez`, 'evil.example');
        if (host.status !== 403) problems.push(`Host: evil.example got ${host.status}, wanted 403`);
        return problems;
    });
    await check('listen: live and ready say 503 while shutting down', async () => {
        expect(m, 'no listener');
        const ops = m[1];
        // A call running holds the shutdown open for a moment; the own listener answers meanwhile.
        const slow = post(srv.url, modernRequest(1, 'tools/call', { name: 'f_ok', arguments: { text: 'x', delay_ms: 1500 } }),
            { headers: { authorization: `Bearer ${TOKEN}` } }).catch(() => null);
        await sleep(200);
        process.kill(srv.pid, 'SIGTERM');
        const seen = new Set();
        const until = performance.now() + 3000 * SLOW;
        while (performance.now() < until) {
            const [live, ready] = await Promise.all([get(`${ops}/livez`), get(`${ops}/readyz`)]).catch(() => [null, null]);
            if (!live) break;
            seen.add(`${live.status}/${ready.status}`);
            if (live.status === 503 && ready.status === 503) break;
            await sleep(20);
        }
        await slow;
        expect(seen.has('503/503'), `statuses seen: ${[...seen].join(', ')}`);
        return [...seen].join(', ');
    });
    // One SIGTERM was sent: a second would end mcph at once, without its orderly stop.
    const t0 = performance.now();
    const r = await srv.proc.wait(15000 * SLOW);
    srv.stopped = { code: r.code, signal: r.signal, timedOut: !!r.timedOut, ms: Math.round(performance.now() - t0) };
    const st = await srv.stop(5000 * SLOW);
    report(st.code === 0 && srv.problems().length === 0, 'listen: exits 0 after SIGTERM, no sanitizer report',
        `${JSON.stringify(st)} ${srv.problems().join(' | ')}`);
}

// --- empty: nothing serves. ---

async function caseEmpty() {
    const ws = workspace('http-metrics', 'empty');
    const ini = writeIni(ws, { server: base(), 'plugin.broken': { path: 'init_fail.so' } });
    const srv = await startServer(BIN, ini, 'empty', 15000 * SLOW);
    const url = root(srv.url);
    await check('empty: not ready while no plugin serves', async () => {
        const ready = await get(`${url}/readyz`);
        expectEq(ready.status, 503, 'ready');
        expect(ready.text.startsWith('not ready: no plugin serves'), `the reason: ${ready.text}`);
        expectEq((await get(`${url}/livez`)).status, 200, 'live');
        const { text, s } = await scrape(url);
        expectEq(val(s, 'mcph_plugin_state', { plugin: 'broken', state: 'down' }), 1, 'broken is down');
        return promtool(text);
    });
}

try {
    await caseBeside();
    await caseAuth();
    await caseListen();
    await caseEmpty();
} catch (err) {
    report(false, 'metrics', err.stack || String(err));
}
const stops = await stopAll(15000 * SLOW);
report(stops.length === 0, 'every server exits 0 on SIGTERM', stops.join(' | '));
// The fault plugin's deliberate crashes leave their own reports under a sanitizer; any other is
// a problem.
const stray = [...servers].flatMap((s) => [
    ...(s.proc.events.length ? [`${s.name}: wrote on stdout`] : []),
    ...strayReports(s.stderr).map((r) => `${s.name}: ${r}`),
]);
report(stray.length === 0, 'nothing on stdout, no sanitizer report but the deliberate crashes', stray.join(' | '));
done('metrics', ` in ${Math.round((performance.now() - T0) / 1000)} s`);
