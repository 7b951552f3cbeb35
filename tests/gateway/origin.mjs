#!/usr/bin/env node
// The mcp plugin's requests parked for a 2026-07-28 client's answer, with two requests making
// the same call at once (tests/gateway/fake-server.mjs, mode origin: its tool `whose` asks
// "question N" and answers "question N answered A"). `make test-gateway` runs it.
//
//   node tests/gateway/origin.mjs [BINARY [PART]]   BINARY: build/mcph; PART: plain|legacy|isolated
//
// Under 2026-07-28 the client answers a question by retrying its request, and the server's
// request waits meanwhile, parked; the retry must find its own. Two requests with the same
// call and arguments in flight at once: each is asked its own question, each answer reaches
// the server's request that asked it, whichever retries first; a legacy call of the same
// tool meanwhile takes nothing of theirs. The same through an isolated
// mcp section (isolate = process), whose child serves the parent's requests in requests of
// its own. Prints "ok gateway ..." / "FAIL gateway ...: why" lines, then "gateway origin: N
// passed, N failed"; exits 1 on a failure.

import path from 'node:path';
import { Session } from '../lib/session.mjs';
import { MODERN_REVISION, KEY_VERSION, KEY_CAPS } from '../lib/era.mjs';
import { done, report, expect } from '../lib/check.mjs';
import { describeExit } from '../lib/proc.mjs';
import { workspace, gatewayIni, fakeCommand, getValidator, step, killMarker, short } from './common.mjs';

const LIMIT_MS = 90000;
const RUN = `${process.pid}`;
const markers = [];
const sessions = [];
const mcph = path.resolve(process.argv[2] || 'build/mcph');

function marker(name) {
    const m = `gw-${name}-${RUN}`;
    markers.push(m);
    return m;
}

function cleanup() {
    for (const s of sessions) s.kill('SIGKILL');
    for (const m of markers) killMarker(m);
}

// A 2026-07-28 client: no initialize, every request carries its envelope. opts.onRequest
// answers the server's requests (a legacy session's questions).
async function modernSession(ini, opts = {}) {
    const s = new Session(mcph, ini, { validator: getValidator(), strict: true, timeoutMs: 15000, ...opts });
    sessions.push(s);
    await s.started;
    if (s.spawnError) throw new Error(`cannot start ${mcph}: ${s.spawnError.message}`);
    return s;
}

const META = { [KEY_VERSION]: MODERN_REVISION, [KEY_CAPS]: { elicitation: {} } };

// tools/call `name` with no arguments; a retry carries answers and the round's state.
function whose(s, name, retry = {}) {
    return s.request('tools/call', { name, arguments: {}, _meta: META, ...retry });
}

// The one question of an input_required answer: { key, message, state }.
function question(r, who) {
    const res = r?.result;
    expect(res?.resultType === 'input_required', `${who}: not input_required: ${short(r)}`);
    const keys = Object.keys(res.inputRequests || {});
    expect(keys.length === 1, `${who}: ${keys.length} questions: ${short(res.inputRequests)}`);
    const q = res.inputRequests[keys[0]];
    expect(q.method === 'elicitation/create', `${who}: asked ${q.method}`);
    expect(typeof res.requestState === 'string', `${who}: no requestState`);
    return { key: keys[0], message: q.params?.message, state: res.requestState };
}

const textOf = (r) => (r?.result?.content || []).map((c) => c.text).join('');

// Two requests of `tool`, A and B, in flight at once: each gets a question, then B answers
// first, then A. Each result names the question its own client was asked.
async function twoAtOnce(s, tool, label) {
    const a1 = await s.answer(whose(s, tool), 15000);
    const qa = question(a1, 'A');
    const b1 = await s.answer(whose(s, tool), 15000);
    const qb = question(b1, 'B');
    expect(qa.message !== qb.message, `both requests were asked "${qa.message}": B took over A's waiting request`);
    const b2 = await s.answer(whose(s, tool, { inputResponses: { [qb.key]: { action: 'accept', content: { a: 'bee' } } }, requestState: qb.state }), 15000);
    const a2 = await s.answer(whose(s, tool, { inputResponses: { [qa.key]: { action: 'accept', content: { a: 'ay' } } }, requestState: qa.state }), 15000);
    expect(textOf(b2) === `${qb.message} answered bee`, `B was asked "${qb.message}" and got ${short(b2)}`);
    expect(textOf(a2) === `${qa.message} answered ay`, `A was asked "${qa.message}" and got ${short(a2)}`);
    return `${label}: A "${qa.message}" -> "${textOf(a2)}", B "${qb.message}" -> "${textOf(b2)}"`;
}

async function ends(s, what) {
    const st = await s.stop(5000);
    await step(`origin: mcph ends cleanly after ${what}`, async () => {
        expect(!st.timedOut && st.code === 0, `exit: ${describeExit(st)}; stderr: ${s.stderrTail(5)}`);
        expect(!/LeakSanitizer|AddressSanitizer|ThreadSanitizer/.test(s.stderr), `sanitizer: ${short(s.stderr, 400)}`);
    });
}

async function plain() {
    const ws = workspace('origin-plain');
    const ini = gatewayIni(ws, { fake: { command: fakeCommand('origin', marker('origin')) } });
    const s = await modernSession(ini);
    await step('origin: two 2026-07-28 requests make the same call at once: each answer reaches its own question', () => twoAtOnce(s, 'fake_whose', 'in process'), () => s);
    await step('origin: the same, A answering first: each answer still reaches its own question', async () => {
        const qa = question(await s.answer(whose(s, 'fake_whose'), 15000), 'A');
        const qb = question(await s.answer(whose(s, 'fake_whose'), 15000), 'B');
        const r = await s.answer(whose(s, 'fake_whose', { inputResponses: { [qa.key]: { action: 'accept', content: { a: 'x' } } }, requestState: qa.state }), 15000);
        expect(textOf(r) === `${qa.message} answered x`, `A's state got ${short(r)}`);
        const rb = await s.answer(whose(s, 'fake_whose', { inputResponses: { [qb.key]: { action: 'accept', content: { a: 'y' } } }, requestState: qb.state }), 15000);
        expect(textOf(rb) === `${qb.message} answered y`, `B's state got ${short(rb)}`);
        return `"${textOf(r)}", "${textOf(rb)}"`;
    }, () => s);
    await ends(s, 'the parked requests');
}

// A legacy call (its questions are requests to the client, it never parks) of the same tool
// while a 2026-07-28 request's is parked: each answers its own question.
async function legacy() {
    const ws = workspace('origin-legacy');
    const ini = gatewayIni(ws, { fake: { command: fakeCommand('origin', marker('origin-legacy')) } });
    const asked = [];
    const onRequest = (msg) => {
        asked.push(msg.params?.message);
        return { action: 'accept', content: { a: 'legacy' } };
    };
    const s = await modernSession(ini, { onRequest });
    await step('origin: a legacy call of the same tool while a 2026-07-28 one waits: each answers its own question', async () => {
        await s.initialize({ rev: '2025-11-25', capabilities: { elicitation: {} } });
        const qa = question(await s.answer(whose(s, 'fake_whose'), 15000), 'A');
        const l = await s.tool('fake_whose', {}, 15000);
        expect(asked.length === 1 && asked[0] !== qa.message, `the legacy client was asked ${JSON.stringify(asked)}, A "${qa.message}"`);
        expect(l.text === `${asked[0]} answered legacy`, `the legacy call got ${short(l.msg)}`);
        const a2 = await s.answer(whose(s, 'fake_whose', { inputResponses: { [qa.key]: { action: 'accept', content: { a: 'ay' } } }, requestState: qa.state }), 15000);
        expect(textOf(a2) === `${qa.message} answered ay`, `A was asked "${qa.message}" and got ${short(a2)}`);
        return `A "${qa.message}" -> "${textOf(a2)}", legacy "${l.text}"`;
    }, () => s);
    await ends(s, 'the legacy call');
}

async function isolated() {
    const ws = workspace('origin-isolated');
    const ini = gatewayIni(ws, { fake: { command: fakeCommand('origin', marker('origin-iso')), isolate: 'process' } });
    const s = await modernSession(ini);
    await step('origin: the same through an isolated mcp section: its child keys by the parent\'s request', () => twoAtOnce(s, 'fake_whose', 'isolated'), () => s);
    await ends(s, 'the isolated parked requests');
}

const watchdog = setTimeout(() => {
    report(false, 'gateway origin suite', `did not finish within ${LIMIT_MS / 1000} s`);
    cleanup();
    done('gateway origin');
}, LIMIT_MS);

const only = process.argv[3];
const t0 = Date.now();
try {
    for (const [name, fn] of Object.entries({ plain, legacy, isolated })) {
        if (!only || only === name) await fn();
    }
} catch (err) {
    report(false, 'gateway origin suite', `threw: ${err?.stack || err}`);
} finally {
    cleanup();
    clearTimeout(watchdog);
}
done('gateway origin', ` in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
