// Checks of tests/lib/era.mjs: which revision each server message is validated against when
// both eras share one pipe.
//
//   node --test tests/lib/

import test from 'node:test';
import assert from 'node:assert/strict';
import { EraTracker, claimOf, KEY_VERSION, KEY_CAPS, KEY_SUB } from './era.mjs';

const KNOWN = new Set(['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25', '2026-07-28']);
const tracker = () => new EraTracker({ hasRevision: (r) => KNOWN.has(r) });
const claim = (v = '2026-07-28', extra = {}) => ({ _meta: { [KEY_VERSION]: v, [KEY_CAPS]: {}, ...extra } });
const req = (id, method, params) => ({ jsonrpc: '2.0', id, method, ...(params ? { params } : {}) });
const result = (id, r = {}) => ({ jsonrpc: '2.0', id, result: r });
const note = (method, params) => ({ jsonrpc: '2.0', method, ...(params ? { params } : {}) });
const init = (id, v) => req(id, 'initialize', { protocolVersion: v, capabilities: {}, clientInfo: { name: 't', version: '1' } });

test('claimOf: only a protocolVersion key in params._meta is a claim', () => {
    assert.deepEqual(claimOf(claim()), { version: '2026-07-28' });
    assert.deepEqual(claimOf({ _meta: { [KEY_VERSION]: 5 } }), { version: 5 });
    assert.equal(claimOf({ _meta: { [KEY_CAPS]: {} } }), null);
    assert.equal(claimOf({ _meta: null }), null);
    assert.equal(claimOf(undefined), null);
    assert.equal(claimOf([]), null);
});

test('responses: the claimed revision, else the legacy one in force when sent', () => {
    const e = tracker();
    e.sent(req(1, 'server/discover', claim()));
    e.sent(req(2, 'tools/list'));
    assert.deepEqual(e.received(result(1)), { rev: '2026-07-28', method: 'server/discover', problems: [] });
    assert.equal(e.received(result(2)).rev, '2025-11-25');
    e.sent(init(3, '2024-11-05'));
    assert.equal(e.received(result(3, { protocolVersion: '2024-11-05' })).rev, '2024-11-05');
    assert.equal(e.negotiated, '2024-11-05');
    e.sent(req(4, 'tools/list'));
    e.sent(req(5, 'tools/list', claim()));
    e.sent(req(6, 'tools/list', claim('2025-06-18')));
    e.sent(req(7, 'tools/list', claim('2099-01-01')));
    e.sent(req(8, 'tools/list', { _meta: { [KEY_VERSION]: 7 } }));
    assert.equal(e.received(result(5)).rev, '2026-07-28');
    assert.equal(e.received(result(4)).rev, '2024-11-05');
    assert.equal(e.received(result(6)).rev, '2025-06-18');
    assert.equal(e.received({ jsonrpc: '2.0', id: 7, error: { code: -32022, message: 'x' } }).rev, '2026-07-28');
    assert.equal(e.received({ jsonrpc: '2.0', id: 8, error: { code: -32602, message: 'x' } }).rev, '2026-07-28');
    // An id we never sent: the legacy revision, no method.
    assert.deepEqual(e.received(result(99)), { rev: '2024-11-05', method: undefined, problems: [] });
});

test('responses: a request sent before initialize is answered under the default', () => {
    const e = tracker();
    e.sent(req(1, 'ping'));
    e.sent(init(2, '2025-03-26'));
    e.received(result(2, { protocolVersion: '2025-03-26' }));
    assert.equal(e.received(result(1)).rev, '2025-11-25');
    assert.equal(e.methodOf(1), 'ping');
});

test('an initialize with a claim does not negotiate; an unknown version is a problem', () => {
    const e = tracker();
    e.sent({ ...init(1, '2025-06-18'), params: { ...init(1, '2025-06-18').params, ...claim() } });
    assert.equal(e.received(result(1, { protocolVersion: '2025-06-18' })).rev, '2026-07-28');
    assert.equal(e.negotiated, null);
    e.sent(init(2, '1999-01-01'));
    const r = e.received(result(2, { protocolVersion: '1999-01-01' }));
    assert.match(r.problems[0], /no known revision/);
    assert.equal(e.negotiated, null);
});

test('listen stream notifications are 2026-07-28, whatever the session', () => {
    const e = tracker();
    e.sent(init(1, '2024-11-05'));
    e.received(result(1, { protocolVersion: '2024-11-05' }));
    assert.equal(e.received(note('notifications/subscriptions/acknowledged', { notifications: {} })).rev, '2026-07-28');
    assert.equal(e.received(note('notifications/tools/list_changed', { _meta: { [KEY_SUB]: 3 } })).rev, '2026-07-28');
    assert.equal(e.received(note('notifications/resources/updated', { _meta: { [KEY_SUB]: 'x' }, uri: 'a://b' })).rev, '2026-07-28');
    // Untagged: the legacy session's.
    assert.equal(e.received(note('notifications/tools/list_changed')).rev, '2024-11-05');
    assert.equal(e.received(note('notifications/tools/list_changed', { _meta: {} })).rev, '2024-11-05');
});

test('log and progress during a modern request, with no legacy session', () => {
    const e = tracker();
    const log = note('notifications/message', { level: 'info', data: 'x' });
    const progress = (t) => note('notifications/progress', { progressToken: t, progress: 1 });
    assert.equal(e.received(log).rev, '2025-11-25');
    e.sent(req('L', 'subscriptions/listen', claim()));
    assert.equal(e.received(log).rev, '2025-11-25', 'an open listen is no request in progress');
    e.sent(req(1, 'tools/call', claim()));
    assert.equal(e.received(log).rev, '2026-07-28');
    assert.equal(e.received(progress('unknown')).rev, '2026-07-28');
    e.received(result(1));
    assert.equal(e.received(log).rev, '2025-11-25');
    // A cancelled request is over too.
    e.sent(req(2, 'tools/call', claim()));
    e.sent(note('notifications/cancelled', { requestId: 2 }));
    assert.equal(e.received(log).rev, '2025-11-25');
});

test('progress follows its token; logs follow the legacy session once there is one', () => {
    const e = tracker();
    e.sent(init(1, '2025-03-26'));
    e.received(result(1, { protocolVersion: '2025-03-26' }));
    e.sent(req(2, 'tools/call', claim('2026-07-28', { progressToken: 'p' })));
    e.sent(req(3, 'tools/call', { _meta: { progressToken: 'q' } }));
    e.sent(req(4, 'tools/call', claim('2026-07-28', { progressToken: 9 })));
    const progress = (t) => note('notifications/progress', { progressToken: t, progress: 1 });
    assert.equal(e.received(progress('p')).rev, '2026-07-28');
    assert.equal(e.received(progress(9)).rev, '2026-07-28');
    assert.equal(e.received(progress('9')).rev, '2025-03-26');
    assert.equal(e.received(progress('q')).rev, '2025-03-26');
    assert.equal(e.received(note('notifications/message', { level: 'info', data: 'x' })).rev, '2025-03-26');
});

test('batches are recorded element by element', () => {
    const e = tracker();
    e.sent([req(1, 'ping'), req(2, 'tools/list', claim()), note('notifications/initialized')]);
    assert.equal(e.methodOf(1), 'ping');
    assert.equal(e.received(result(2)).rev, '2026-07-28');
});
