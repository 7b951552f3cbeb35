// Checks of tests/lib/session.mjs against small fake servers (node -e scripts): replies by id,
// notifications, batches, requests from the server answered, bad lines, schema and protocol
// problems, and every wait bounded.
//
//   node --test tests/lib/

import test from 'node:test';
import assert from 'node:assert/strict';
import { Session } from './session.mjs';
import { makeValidator, defaultSpecDir } from './schema.mjs';

// A fake server: `handle` is the body of a function (m, out) run for each message read;
// out(x) writes x (an object as JSON, a string as it is) and a newline.
function fake(handle, opts = {}) {
    const script = `
        const out = (x) => process.stdout.write((typeof x === 'string' ? x : JSON.stringify(x)) + '\\n');
        const handle = (m, out) => { ${handle} };
        require('readline').createInterface({ input: process.stdin }).on('line', (l) => handle(JSON.parse(l), out));
        process.stdin.on('end', () => process.exit(${opts.exit ?? 0}));`;
    return new Session(process.execPath, null, { args: ['-e', script], timeoutMs: 2000, ...opts });
}

const INIT = `if (m.method === 'initialize') return out({ jsonrpc: '2.0', id: m.id, result: { protocolVersion: m.params.protocolVersion, capabilities: {}, serverInfo: { name: 'fake', version: '1' } } });`;

test('call: rejects when no reply comes within its time limit', async () => {
    const s = fake('/* never answers */');
    const t0 = Date.now();
    await assert.rejects(s.call('ping', undefined, 300), /no answer to ping within 300 ms/);
    assert.ok(Date.now() - t0 >= 290);
    assert.equal(await s.answer(12345, 50), null);
    const st = await s.stop(2000);
    assert.deepEqual([st.code, st.signal, st.timedOut], [0, null, false]);
});

test('call: rejects at once when the server exits, naming how', async () => {
    const s = fake('process.exit(3);');
    const t0 = Date.now();
    await assert.rejects(s.call('ping', undefined, 5000), /exited before answering ping \(status 3\)/);
    assert.ok(Date.now() - t0 < 4000);
    assert.equal((await s.stop()).code, 3);
});

test('initialize, replies by id out of order, notifications, batches', async () => {
    const s = fake(`${INIT}
        if (m.method === 'notifications/initialized') return;
        if (m.method === 'slow') return setTimeout(() => out({ jsonrpc: '2.0', id: m.id, result: { slow: true } }), 100);
        if (m.method === 'two') return out([{ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'x' } },
            { jsonrpc: '2.0', id: m.id, result: { two: true } }]);
        out({ jsonrpc: '2.0', method: 'notifications/tools/list_changed' });
        out({ jsonrpc: '2.0', id: m.id, error: { code: -32601, message: 'no ' + m.method } });`);
    const r = await s.initialize({ rev: '2025-06-18' });
    assert.equal(r.serverInfo.name, 'fake');
    assert.equal(s.rev, '2025-06-18');
    const m = s.mark();
    const slow = s.request('slow');
    const fast = await s.call('nope');
    assert.equal(fast.error.code, -32601);
    assert.equal(typeof fast.time, 'number');
    assert.equal(JSON.stringify(fast).includes('time'), false);
    assert.deepEqual((await s.answer(slow)).result, { slow: true });
    assert.deepEqual((await s.call('two')).result, { two: true });
    const w = s.since(m);
    assert.deepEqual(w.listChanged, ['notifications/tools/list_changed']);
    assert.deepEqual(w.messages, [{ level: 'info', data: 'x' }]);
    assert.ok(await s.waitNotes(m, (ns) => ns.length === 2, 100));
    assert.equal(await s.waitNotes(m, (ns) => ns.length === 3, 100), false);
    assert.deepEqual(s.problems(), []);
    assert.equal((await s.stop()).code, 0);
});

test('onRequest answers what the server asks; without it, strict counts the request', async () => {
    const ask = `if (m.method === 'go') return out({ jsonrpc: '2.0', id: 'srv-1', method: 'roots/list' });
        if (!m.method && m.id === 'srv-1') return out({ jsonrpc: '2.0', id: 'done', result: { got: m.result || m.error } });`;
    const s = fake(ask, { onRequest: (msg) => ({ roots: [{ uri: `file:///${msg.method}` }] }) });
    s.notify('go');
    const got = await s.answer('done');
    assert.deepEqual(got.result.got, { roots: [{ uri: 'file:///roots/list' }] });
    assert.equal(s.requests.length, 1);
    await s.stop();
    const e = fake(ask, { onRequest: () => {
        throw Object.assign(new Error('not here'), { code: -32601 });
    } });
    e.notify('go');
    assert.deepEqual((await e.answer('done')).result.got, { code: -32601, message: 'not here' });
    await e.stop();
    const strict = fake(`${ask} if (m.method === 'stray') out({ jsonrpc: '2.0', id: 999, result: {} });`, { strict: true });
    strict.notify('go');
    strict.notify('stray');
    assert.ok(await strict.waitFor(() => strict.errors.length === 2, 2000));
    assert.match(strict.errors[0], /unexpected request from the server/);
    assert.match(strict.errors[1], /answer to an unknown id/);
    assert.equal(strict.inbox.length, 2); // both kept to be looked at
    await strict.stop();
});

test('bad lines: recorded with their number; a line that is not UTF-8 is still read', async () => {
    const s = fake(`process.stdout.write('not json\\n[1]\\n');
        process.stdout.write(Buffer.concat([Buffer.from('{"jsonrpc":"2.0","id":' + JSON.stringify(m.id) + ',"result":{"t":"'), Buffer.from([0xff]), Buffer.from('"}}\\n')]));
        out({ jsonrpc: '1.0', id: 5 });`, { idPrefix: 'q' });
    const r = await s.call('x');
    assert.equal(s.lastSendTime > 0, true);
    assert.equal(r.id, 'q1');
    assert.equal(r.result.t, '\ufffd');
    assert.ok(await s.waitFor(() => s.bad.length === 4, 2000));
    assert.match(s.bad[0], /^line 1: not JSON/);
    assert.match(s.bad[1], /^line 2: not a JSON-RPC 2\.0 message/);
    assert.match(s.bad[2], /^line 3: stdout line is not UTF-8 \(byte \d+/);
    assert.match(s.bad[3], /^line 4: not a JSON-RPC 2\.0 message/);
    assert.equal(s.problems().length, 4);
    await s.stop();
});

test('validator: a message that breaks the negotiated revision\'s schema is an error', async () => {
    const validator = makeValidator(defaultSpecDir());
    const s = fake(`if (m.method === 'initialize') return out({ jsonrpc: '2.0', id: m.id, result: { protocolVersion: '2025-06-18', capabilities: {} } });
        out({ jsonrpc: '2.0', id: m.id, result: {} });`, { validator });
    await s.initialize({ rev: '2025-06-18', initialized: false });
    assert.equal(s.errors.length, 1);
    assert.match(s.errors[0], /invalid message .*serverInfo/);
    await s.call('ping');
    assert.equal(s.errors.length, 1);
    await s.stop();
});

test('stop: a server that ignores the end of input is killed after the time limit', async () => {
    const s = fake('', { args: ['-e', 'process.stdin.resume(); process.stdin.on("end", () => setInterval(() => {}, 1000));'] });
    await s.started;
    const st = await s.stop(300);
    assert.equal(st.timedOut, true);
    assert.equal(st.signal, 'SIGKILL');
    assert.ok(st.ms >= 290);
});
