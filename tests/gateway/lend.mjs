#!/usr/bin/env node
// While a call waits for its server's reply it may read the server's stdout itself (reading
// lent by the link's thread, core/client/link_read.c); what it reads that is not a reply must
// still be handled as the link's thread handles it, not in that call's name. With
// tests/gateway/fake-server.mjs behind mcph: a 2025-11-25 session at level debug makes call A
// (fake_slow, sent as a 2026-07-28 request whose logLevel is emergency: A itself hears no
// log) and, while A waits, call B (fake_log at info): the session must get B's log line, as
// it does with no call waiting; A and B each get their own answer. `make test-gateway` runs it.
//
//   node tests/gateway/lend.mjs [BINARY]      BINARY: build/mcph
//
// Prints "ok gateway ..." / "FAIL gateway ...: why" lines, then "gateway lend: N passed, N
// failed"; exits 1 on a failure. Every mcph and server started is killed at the end.

import path from 'node:path';
import { expect, done } from '../lib/check.mjs';
import { workspace, gatewayIni, fakeCommand, startSession, endSessions, step, killMarker, short, sleep } from './common.mjs';

const MARK = `lend-${process.pid}`;
const mcph = path.resolve(process.argv[2] || 'build/mcph');
const ws = workspace('lend');
const ini = gatewayIni(ws, { fake: { command: fakeCommand('normal', MARK) } });
const modern = (level) => ({
    'io.modelcontextprotocol/protocolVersion': '2026-07-28',
    'io.modelcontextprotocol/clientCapabilities': {},
    'io.modelcontextprotocol/logLevel': level,
});

let s;
await step('lend: mcph starts with the fake server behind it, a session at level debug', async () => {
    s = await startSession(mcph, ini, { rev: '2025-11-25', setLevel: 'debug' });
    return 'started';
}, () => s);
for (const waiting of [false, true]) {
    const what = waiting ? 'while another call waits' : 'with no call waiting';
    await step(`lend: a log line of the server's reaches the session ${what}`, async () => {
        const m = s.mark();
        let a;
        if (waiting) {
            a = s.request('tools/call', { name: 'fake_slow', arguments: { ms: 1500 }, _meta: modern('emergency') });
            await sleep(300);
        }
        const b = await s.call('tools/call', { name: 'fake_log', arguments: { level: 'info', text: `hello ${waiting}` } });
        await sleep(300);
        const logs = s.since(m).messages; // the params of notifications/message
        expect(!b.error, `B: ${short(JSON.stringify(b), 200)}`);
        expect(logs.some((p) => JSON.stringify(p?.data ?? '').includes(`hello ${waiting}`)), `no log line for B: ${short(JSON.stringify(logs), 300)}`);
        if (a !== undefined) {
            const ra = await s.answer(a);
            expect(!ra?.error && ra?.result, `A: ${short(JSON.stringify(ra), 200)}`);
        }
        return `${logs.length} log line(s)`;
    }, () => s);
}
endSessions();
killMarker(MARK);
done('gateway lend');
