#!/usr/bin/env node
// The official SDK v1 client against every feature mcph offers beyond lists and calls:
// logging, progress, cancellation, completions, subscriptions, input validation failures,
// structured output (and a plugin breaking its outputSchema), annotations, and a client that
// declares sampling, elicitation and roots and answers the server's requests for them.
//
//   node tests/interop/sdk-v1-features.mjs BINARY CONFIG     (CONFIG: tests/interop/features.ini)
//
// Each legacy revision runs in its own server process; every message mcph sends is validated
// against that revision's schema by the Session (tests/interop/harness.mjs).

import path from 'node:path';
import {
    CreateMessageRequestSchema,
    ElicitRequestSchema,
    ListRootsRequestSchema,
    LoggingMessageNotificationSchema,
    ResourceUpdatedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { REVISIONS, REQUEST_TIMEOUT_MS, order, report, summary, Session, check } from './harness.mjs';
import { makeValidator, defaultSpecDir } from '../lib/schema.mjs';
import { commandWords } from '../lib/proc.mjs';
import { CAPPED, capped, sleep } from '../lib/util.mjs';

const REVISION_CAP_MS = 60000;
const CAPS = { sampling: {}, elicitation: {}, roots: { listChanged: true } };
const since = (rev, first) => order(rev) >= order(first);
const textOf = (r) => (r.content || []).filter((c) => c.type === 'text').map((c) => c.text).join('\n');
const call = (c, name, args, opts = {}) =>
    c.callTool({ name, arguments: args }, undefined, { timeout: REQUEST_TIMEOUT_MS, ...opts });

// Notifications of one schema, collected as they come.
function collect(client, schema) {
    const got = [];
    client.setNotificationHandler(schema, (n) => {
        got.push(n.params);
    });
    return got;
}

async function answerTheServer(s) {
    const c = s.client;
    const asked = [];
    c.setRequestHandler(CreateMessageRequestSchema, async (req) => {
        asked.push('sampling');
        const text = req.params.messages?.[0]?.content?.text ?? '';
        return { role: 'assistant', content: { type: 'text', text: `sampled: ${text}` }, model: 'mcph-test-model', stopReason: 'endTurn' };
    });
    c.setRequestHandler(ElicitRequestSchema, async () => {
        asked.push('elicitation');
        return { action: 'accept', content: { name: 'Ada' } };
    });
    c.setRequestHandler(ListRootsRequestSchema, async () => {
        asked.push('roots');
        return { roots: [{ uri: 'file:///srv/project', name: 'project' }] };
    });
    return asked;
}

async function checkLogging(s, logs) {
    const c = s.client;
    await check(s, 'logging/setLevel + notifications/message', async () => {
        await c.setLoggingLevel('info', { timeout: REQUEST_TIMEOUT_MS });
        await call(c, 'log', { level: 'warning', text: 'hello from a plugin' });
        await sleep(100);
        const hit = logs.find((l) => JSON.stringify(l.data).includes('hello from a plugin'));
        if (!hit) return [`no notifications/message with the plugin's text (got ${logs.length})`];
        if (hit.level !== 'warning') return [`level ${hit.level}, expected warning`];
        await c.setLoggingLevel('error', { timeout: REQUEST_TIMEOUT_MS });
        const before = logs.length;
        await call(c, 'log', { level: 'warning', text: 'below the level' });
        await sleep(200);
        return logs.length === before ? `logger ${hit.logger}` : ['a message below the client\'s level was sent'];
    });
}

async function checkProgress(s, rev) {
    await check(s, 'progress', async () => {
        const seen = [];
        // Steps 20 ms apart, like real work: the SDK handles notifications a tick after the
        // response, so one arriving in the same read as the response would be dropped by it.
        const r = await call(s.client, 'progress', { steps: 5, delay_ms: 20 }, { onprogress: (p) => seen.push(p) });
        const problems = [];
        if (textOf(r) !== 'done') problems.push(`result ${textOf(r)}`);
        if (seen.length === 0) problems.push('no progress notification');
        for (let i = 1; i < seen.length; i++) {
            if (seen[i].progress < seen[i - 1].progress) problems.push(`progress went back: ${seen[i - 1].progress} -> ${seen[i].progress}`);
        }
        const last = seen[seen.length - 1];
        if (last && (last.progress !== 5 || last.total !== 5)) problems.push(`last progress ${JSON.stringify(last)}`);
        const hasMessage = seen.some((p) => typeof p.message === 'string');
        if (hasMessage !== since(rev, '2025-03-26')) problems.push(`progress message ${hasMessage ? 'sent' : 'missing'} under ${rev}`);
        return problems.length ? problems : `${seen.length} notifications`;
    });
}

async function checkCancellation(s) {
    await check(s, 'cancellation', async () => {
        const ac = new AbortController();
        const started = Date.now();
        const pending = call(s.client, 'wait_cancel', { ms: 5000 }, { signal: ac.signal });
        setTimeout(() => ac.abort('test cancels'), 200);
        let aborted = false;
        try {
            await pending;
        } catch {
            aborted = true;
        }
        if (!aborted) return ['the call was not aborted'];
        await sleep(400);
        // The server must not answer the cancelled request: the SDK reports a response to an
        // unknown id as a client error, which the Session collects.
        await s.client.ping({ timeout: REQUEST_TIMEOUT_MS });
        return `aborted after ${Date.now() - started} ms, server still answers`;
    });
}

async function checkCompletions(s, rev) {
    if (!since(rev, '2025-03-26')) {
        await check(s, 'no completions capability', async () =>
            s.client.getServerCapabilities()?.completions ? ['completions advertised under 2024-11-05'] : 'absent');
        return;
    }
    await check(s, 'completion/complete (prompt argument)', async () => {
        const r = await s.client.complete({ ref: { type: 'ref/prompt', name: 'pick' }, argument: { name: 'fruit', value: 'ap' } },
            { timeout: REQUEST_TIMEOUT_MS });
        const v = r.completion.values;
        return JSON.stringify(v) === '["apple","apricot"]' ? v.join(',') : [`values ${JSON.stringify(v)}`];
    });
    await check(s, 'completion/complete (template variable)', async () => {
        const r = await s.client.complete({ ref: { type: 'ref/resource', uri: 'features://items/{id}' }, argument: { name: 'id', value: 'b' } },
            { timeout: REQUEST_TIMEOUT_MS });
        const v = r.completion.values;
        return JSON.stringify(v) === '["banana"]' ? v.join(',') : [`values ${JSON.stringify(v)}`];
    });
}

async function checkSubscriptions(s, updates) {
    await check(s, 'resources/subscribe + resources/updated', async () => {
        await s.client.subscribeResource({ uri: 'features://doc' }, { timeout: REQUEST_TIMEOUT_MS });
        await call(s.client, 'touch', { uri: 'features://doc' });
        await call(s.client, 'touch', { uri: 'features://not-subscribed' });
        await sleep(150);
        const uris = updates.map((u) => u.uri);
        if (JSON.stringify(uris) !== '["features://doc"]') return [`updates ${JSON.stringify(uris)}`];
        await s.client.unsubscribeResource({ uri: 'features://doc' }, { timeout: REQUEST_TIMEOUT_MS });
        await call(s.client, 'touch', { uri: 'features://doc' });
        await sleep(150);
        return updates.length === 1 ? 'one update, none after unsubscribe' : [`${updates.length} updates`];
    });
}

async function checkValidation(s, rev) {
    await check(s, 'invalid arguments are a tool error naming the path', async () => {
        const r = await call(s.client, 'strict', { count: 'three', name: 'abc' });
        return r.isError && /\/count: expected integer/.test(textOf(r)) ? textOf(r) : [`result ${JSON.stringify(r)}`];
    });
    await check(s, 'structured output', async () => {
        const r = await call(s.client, 'good_output', {});
        const problems = [];
        if (since(rev, '2025-06-18') && typeof r.structuredContent !== 'object') problems.push('no structuredContent');
        if (!since(rev, '2025-06-18') && 'structuredContent' in r) problems.push('structuredContent before 2025-06-18');
        if (!textOf(r)) problems.push('no text mirror');
        return problems.length ? problems : textOf(r);
    });
    await check(s, 'a tool breaking its outputSchema gets an error naming it', async () => {
        try {
            await call(s.client, 'bad_output', {});
        } catch (err) {
            return err.code === -32603 && /bad_output/.test(err.message) ? err.message : [`error ${err.code} ${err.message}`];
        }
        return ['no error'];
    });
}

async function checkAsks(s, rev, asked) {
    await check(s, 'sampling (the client answers)', async () => {
        const r = await call(s.client, 'sample', {});
        return !r.isError && /sampled: hi/.test(textOf(r)) && asked.includes('sampling') ? 'answered' : [`result ${JSON.stringify(r)}`];
    });
    await check(s, 'roots (the client answers)', async () => {
        const r = await call(s.client, 'roots', {});
        return !r.isError && /file:\/\/\/srv\/project/.test(textOf(r)) ? 'answered' : [`result ${JSON.stringify(r)}`];
    });
    await check(s, 'elicitation', async () => {
        const r = await call(s.client, 'elicit', {});
        if (since(rev, '2025-06-18')) {
            return !r.isError && /Ada/.test(textOf(r)) && asked.includes('elicitation') ? 'accepted' : [`result ${JSON.stringify(r)}`];
        }
        // The revision has no elicitation: a clear tool error, and nothing asked.
        return r.isError && !asked.includes('elicitation') ? `tool error: ${textOf(r)}` : [`result ${JSON.stringify(r)}`];
    });
}

async function runRevision(rev, argv, config, validator) {
    const s = new Session(rev, argv, config, validator, CAPS);
    const asked = await answerTheServer(s);
    const logs = collect(s.client, LoggingMessageNotificationSchema);
    const updates = collect(s.client, ResourceUpdatedNotificationSchema);
    const ok = await check(s, 'initialize', async () => {
        await s.client.connect(s.transport, { timeout: REQUEST_TIMEOUT_MS });
        return s.negotiated === rev ? 'negotiated' : [`negotiated ${s.negotiated}`];
    });
    if (ok) {
        await checkLogging(s, logs);
        await checkProgress(s, rev);
        await checkCancellation(s);
        await checkCompletions(s, rev);
        await checkSubscriptions(s, updates);
        await checkValidation(s, rev);
        await checkAsks(s, rev, asked);
    }
    await s.client.close().catch(() => {});
}

async function main() {
    const [binary, config] = process.argv.slice(2);
    if (!binary || !config) {
        console.error('usage: node tests/interop/sdk-v1-features.mjs BINARY CONFIG');
        process.exit(2);
    }
    const argv = commandWords(binary);
    const validator = makeValidator(defaultSpecDir());
    for (const rev of REVISIONS) {
        const r = await capped(runRevision(rev, argv, path.resolve(config), validator), REVISION_CAP_MS);
        if (r === CAPPED) report(false, rev, 'time limit', `exceeded ${REVISION_CAP_MS / 1000} s`);
    }
    process.exit(summary() > 0 ? 1 : 0);
}

main().catch((err) => {
    report(false, '-', 'main', err.stack || String(err));
    summary();
    process.exit(1);
});
