#!/usr/bin/env node
// What the mcp plugin relays is still checked and converted for the client, now that a call's
// result reaches mcph as the text the server wrote (core/client/link_read.c): with
// tests/gateway/fake-server.mjs in mode convert behind mcph, an audio item reaches a
// 2025-11-25 client as it is and a 2024-11-05 client (whose revision has no audio) as mcph's
// text stand-in; a structured result that matches the tool's outputSchema passes and one that
// does not is refused with the error mcph gives for it; mcph's own envelope members and the
// protocol's _meta keys in a result are dropped, the rest passed on; many sequential calls
// answer each with its own result. `make test-gateway` runs it.
//
//   node tests/gateway/convert.mjs [BINARY]      BINARY: build/mcph
//
// Prints "ok gateway ..." / "FAIL gateway ...: why" lines, then "gateway convert: N passed, N
// failed"; exits 1 on a failure. Every mcph and server started is killed at the end.

import path from 'node:path';
import { expect, done, report } from '../lib/check.mjs';
import { workspace, gatewayIni, fakeCommand, startSession, endSession, endSessions, step, killMarker, short } from './common.mjs';

const LIMIT_MS = 60000;
const RUN = `${process.pid}`;
const MARK = `convert-${RUN}`;

async function client(mcph, ini, rev) {
    let s;
    const tool = async (name) => s.call('tools/call', { name: `fake_${name}`, arguments: {} });
    await step(`convert (${rev}): mcph starts with the convert server behind it`, async () => {
        s = await startSession(mcph, ini, { rev });
        const names = (await s.list('tools')).map((t) => t.name);
        expect(names.includes('fake_typed_bad'), `tools: ${names.join(' ')}`);
        return `${names.length} tools`;
    }, () => s);
    if (!s || !(await s.list('tools')).length) return;
    await step(`convert (${rev}): an audio item is passed on, or stood in for where the revision lacks it`, async () => {
        const r = await tool('audio');
        const item = r.result?.content?.[0];
        if (rev === '2024-11-05') {
            expect(item?.type === 'text' && /audio/.test(item.text), `not a text stand-in: ${short(JSON.stringify(r), 200)}`);
            expect(r.result.content.length === 1, `${r.result.content.length} items`);
        } else {
            expect(item?.type === 'audio' && item.data === 'AAAAAAAA' && item.mimeType === 'audio/wav', `not the audio item: ${short(JSON.stringify(r), 200)}`);
        }
        return short(JSON.stringify(item), 120);
    }, () => s);
    await step(`convert (${rev}): a structured result matching the outputSchema passes`, async () => {
        const r = await tool('typed');
        if (rev === '2024-11-05') expect(r.result?.structuredContent === undefined, `structuredContent for 2024-11-05: ${short(JSON.stringify(r), 200)}`);
        else expect(r.result?.structuredContent?.n === 3, `not passed: ${short(JSON.stringify(r), 200)}`);
        return short(JSON.stringify(r.result), 120);
    }, () => s);
    await step(`convert (${rev}): a structured result failing the outputSchema is refused, not passed on`, async () => {
        const r = await tool('typed_bad');
        expect(r.result === undefined && r.error?.code === -32603, `not refused: ${short(JSON.stringify(r), 200)}`);
        expect(/broke its own outputSchema/.test(r.error.message), `the error does not say why: ${r.error.message}`);
        return short(r.error.message, 140);
    }, () => s);
    await step(`convert (${rev}): mcph's envelope members and the protocol's _meta keys are dropped, _meta's other keys passed`, async () => {
        const r = (await tool('envelope')).result;
        expect(r?.content?.[0]?.text === 'enveloped', `content: ${short(JSON.stringify(r), 200)}`);
        expect(r.ttlMs === undefined && r.resultType === undefined, `envelope members passed: ${short(JSON.stringify(r), 200)}`);
        expect(r._meta === undefined || r._meta['io.modelcontextprotocol/related'] === undefined, `a protocol _meta key passed: ${JSON.stringify(r._meta)}`);
        if (rev !== '2024-11-05') expect(r._meta?.kept === 1, `_meta.kept lost: ${JSON.stringify(r._meta)}`);
        return short(JSON.stringify(r), 140);
    }, () => s);
    await step(`convert (${rev}): 500 sequential calls each get their own answer`, async () => {
        for (let i = 0; i < 500; i++) {
            const r = await s.call('tools/call', { name: 'fake_echo', arguments: { text: `n${i}` } });
            expect(r.result?.content?.[0]?.text === `echo: n${i}`, `call ${i}: ${short(JSON.stringify(r), 160)}`);
        }
        return '500 answers';
    }, () => s);
    await endSession(s);
}

async function main() {
    const mcph = path.resolve(process.argv[2] || 'build/mcph');
    const ws = workspace('convert');
    const ini = gatewayIni(ws, { fake: { command: fakeCommand('convert', MARK) } });
    await client(mcph, ini, '2025-11-25');
    await client(mcph, ini, '2024-11-05');
}

const watchdog = setTimeout(() => {
    report(false, 'gateway convert suite', `did not finish within ${LIMIT_MS / 1000} s`);
    endSessions();
    killMarker(MARK);
    done('gateway convert');
}, LIMIT_MS);
const t0 = Date.now();
try {
    await main();
} catch (err) {
    report(false, 'gateway convert suite', `threw: ${err?.stack || err}`);
} finally {
    endSessions();
    killMarker(MARK);
    clearTimeout(watchdog);
}
done('gateway convert', ` in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
