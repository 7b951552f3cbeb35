// Checks of tests/lib/schema.mjs on hand-made messages: valid ones pass in the revisions that
// define their members, and each kind of violation is reported.
//
//   node --test tests/lib/

import test from 'node:test';
import assert from 'node:assert/strict';
import { makeValidator, defaultSpecDir } from './schema.mjs';

const v = makeValidator(defaultSpecDir());
const LEGACY = ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25'];
const since = (rev) => LEGACY.slice(LEGACY.indexOf(rev));
const before = (rev) => LEGACY.slice(0, LEGACY.indexOf(rev));

const ok = (rev, msg, ctx) => assert.deepEqual(v.validate(rev, msg, ctx), [], `${rev}: ${JSON.stringify(msg)}`);
function bad(rev, msg, ctx, re) {
    const errs = v.validate(rev, msg, ctx);
    assert.ok(errs.some((e) => re.test(e)), `${rev}: expected an error matching ${re}, got ${JSON.stringify(errs)}`);
}
const res = (result) => ({ jsonrpc: '2.0', id: 1, result });

const tool = {
    name: 'echo',
    description: 'Echo',
    // A plugin's schema: keywords the MCP schema does not list must stay allowed here.
    inputSchema: {
        type: 'object', properties: { s: { type: 'string', minLength: 1 } }, required: ['s'],
        additionalProperties: false, description: 'args', $defs: { x: {} },
    },
};

test('all legacy revisions and 2026-07-28 load', () => {
    for (const r of [...LEGACY, '2026-07-28']) assert.ok(v.hasRevision(r), r);
    assert.ok(!v.hasRevision('1999-01-01'));
    assert.match(v.validate('1999-01-01', {}, 'ping')[0], /unknown protocol revision/);
});

test('tools/list: members by revision', () => {
    for (const r of LEGACY) ok(r, res({ tools: [tool], nextCursor: 'c' }), 'tools/list');
    for (const r of before('2025-06-18')) {
        bad(r, res({ tools: [{ ...tool, title: 'T' }] }), 'tools/list', /unknown member "title".*Tool/);
        bad(r, res({ tools: [{ ...tool, outputSchema: { type: 'object' } }] }), 'tools/list', /"outputSchema"/);
    }
    for (const r of since('2025-06-18')) {
        ok(r, res({ tools: [{ ...tool, title: 'T', outputSchema: { type: 'object', properties: {}, additionalProperties: false } }] }), 'tools/list');
    }
    bad('2024-11-05', res({ tools: [{ ...tool, annotations: { readOnlyHint: true } }] }), 'tools/list', /"annotations"/);
    ok('2025-03-26', res({ tools: [{ ...tool, annotations: { title: 'T', readOnlyHint: true } }] }), 'tools/list');
    bad('2025-03-26', res({ tools: [{ ...tool, annotations: { bogus: true } }] }), 'tools/list', /"bogus".*ToolAnnotations/);
    bad('2025-06-18', res({ tools: [{ ...tool, icons: [] }] }), 'tools/list', /"icons"/);
    ok('2025-11-25', res({ tools: [{ ...tool, icons: [{ src: 'data:image/png;base64,AAAA' }] }] }), 'tools/list');
    bad('2025-11-25', res({ tools: [{ name: 'x' }] }), 'tools/list', /missing required member "inputSchema"/);
});

test('tools/call: content types and structuredContent by revision', () => {
    const audio = { type: 'audio', data: 'UklGRg==', mimeType: 'audio/wav' };
    const link = { type: 'resource_link', uri: 'example://a', name: 'a' };
    for (const r of LEGACY) {
        ok(r, res({ content: [{ type: 'text', text: 'x' }, { type: 'image', data: 'AAAA', mimeType: 'image/png' },
            { type: 'resource', resource: { uri: 'example://a', text: 't' } }], isError: true }), 'tools/call');
    }
    bad('2024-11-05', res({ content: [audio] }), 'tools/call', /content\/0: matches none/);
    for (const r of since('2025-03-26')) ok(r, res({ content: [audio] }), 'tools/call');
    for (const r of before('2025-06-18')) {
        bad(r, res({ content: [link] }), 'tools/call', /content\/0/);
        bad(r, res({ content: [], structuredContent: { a: 1 } }), 'tools/call', /"structuredContent"/);
    }
    for (const r of since('2025-06-18')) {
        ok(r, res({ content: [link], structuredContent: { any: { nested: [1] } } }), 'tools/call');
    }
    bad('2025-06-18', res({ content: [{ type: 'text', text: 'x', extra: 1 }] }), 'tools/call', /"extra".*TextContent/);
    bad('2025-06-18', res({ content: [{ type: 'image', data: 'not base64!', mimeType: 'image/png' }] }), 'tools/call', /valid "byte"/);
    bad('2025-06-18', res({ content: [{ type: 'text' }] }), 'tools/call', /missing required member "text"/);
    bad('2025-06-18', res({}), 'tools/call', /missing required member "content"/);
});

test('initialize: capabilities and serverInfo by revision', () => {
    const caps = { tools: { listChanged: true }, resources: { subscribe: true, listChanged: true }, prompts: { listChanged: true }, logging: {} };
    const init = (r, extra = {}) => res({ protocolVersion: r, capabilities: caps, serverInfo: { name: 'mcph', version: '1' }, ...extra });
    for (const r of LEGACY) ok(r, init(r, { instructions: 'x' }), 'initialize');
    bad('2024-11-05', init('2024-11-05', { capabilities: { ...caps, completions: {} } }), 'initialize', /"completions".*ServerCapabilities/);
    for (const r of since('2025-03-26')) ok(r, init(r, { capabilities: { ...caps, completions: {} } }), 'initialize');
    for (const r of before('2025-06-18')) {
        bad(r, init(r, { serverInfo: { name: 'm', version: '1', title: 'M' } }), 'initialize', /"title".*Implementation/);
    }
    bad('2025-06-18', init('2025-06-18', { capabilities: { tools: { listChanged: true, extra: 1 } } }), 'initialize', /capabilities\/tools: unknown member "extra"/);
    // Open by the schema: experimental and logging.
    ok('2025-06-18', init('2025-06-18', { capabilities: { experimental: { x: { y: 1 } }, logging: { z: 1 } } }), 'initialize');
    bad('2025-06-18', init('2025-06-18', { bogus: true }), 'initialize', /\/result: unknown member "bogus"/);
    bad('2025-06-18', res({ capabilities: caps, serverInfo: { name: 'm', version: '1' } }), 'initialize', /"protocolVersion"/);
});

test('lists, reads and prompts', () => {
    ok('2024-11-05', res({ resources: [{ uri: 'example://a', name: 'a', mimeType: 'text/plain' }] }), 'resources/list');
    bad('2024-11-05', res({ resources: [{ uri: 'example://a', name: 'a', title: 'A' }] }), 'resources/list', /"title".*Resource/);
    ok('2025-06-18', res({ resources: [{ uri: 'example://a', name: 'a', title: 'A', size: 3 }] }), 'resources/list');
    bad('2025-06-18', res({ resources: [{ uri: 'not a uri', name: 'a' }] }), 'resources/list', /valid "uri"/);
    ok('2024-11-05', res({ resourceTemplates: [{ uriTemplate: 'example://g/{name}', name: 'g' }] }), 'resources/templates/list');
    ok('2024-11-05', res({ contents: [{ uri: 'example://a', text: 'x' }, { uri: 'example://b', blob: 'AAAA' }] }), 'resources/read');
    bad('2024-11-05', res({ contents: [{ uri: 'example://a', text: 'x', blob: 'AAAA' }] }), 'resources/read', /"blob"/);
    ok('2024-11-05', res({ prompts: [{ name: 'p', arguments: [{ name: 'a', required: true }] }] }), 'prompts/list');
    bad('2024-11-05', res({ prompts: [{ name: 'p', arguments: [{ name: 'a', title: 'A' }] }] }), 'prompts/list', /"title".*PromptArgument/);
    ok('2025-06-18', res({ prompts: [{ name: 'p', title: 'P', arguments: [{ name: 'a', title: 'A' }] }] }), 'prompts/list');
    ok('2024-11-05', res({ messages: [{ role: 'user', content: { type: 'text', text: 'hi' } }] }), 'prompts/get');
    bad('2024-11-05', res({ messages: [{ role: 'system', content: { type: 'text', text: 'hi' } }] }), 'prompts/get', /role: must be one of/);
    ok('2025-03-26', res({ completion: { values: ['a'], total: 1, hasMore: false } }), 'completion/complete');
});

test('EmptyResult is closed; a result with no known request is only checked as Result', () => {
    for (const r of LEGACY) {
        ok(r, res({}), 'ping');
        ok(r, res({ _meta: { a: 1 } }), 'logging/setLevel');
        bad(r, res({ foo: 1 }), 'ping', /unknown member "foo".*EmptyResult/);
        bad(r, res({ foo: 1 }), 'resources/subscribe', /EmptyResult/);
        ok(r, res({ foo: 1 }));
    }
});

test('error responses and the parse-error id null exception', () => {
    for (const r of LEGACY) {
        ok(r, { jsonrpc: '2.0', id: 5, error: { code: -32601, message: 'nope', data: { any: 1 } } });
        ok(r, { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } });
        bad(r, { jsonrpc: '2.0', id: null, error: { code: -32601, message: 'x' } }, undefined, /\/id: must be of type/);
        bad(r, { jsonrpc: '2.0', id: 5, error: { code: 1.5, message: 'x' } }, undefined, /\/error\/code/);
        bad(r, { jsonrpc: '2.0', id: 5, error: { code: 1, message: 'x', extra: 1 } }, undefined, /\/error: unknown member "extra"/);
        bad(r, { jsonrpc: '2.0', id: 5, error: { code: 1, message: 'x' }, result: {} }, 'ping', /unknown member "result"/);
        bad(r, { jsonrpc: '1.0', id: 5, result: {} }, 'ping', /\/jsonrpc: must be "2.0"/);
        bad(r, { jsonrpc: '2.0', id: 5, result: {}, extra: 1 }, 'ping', /\/: unknown member "extra"/);
        bad(r, { jsonrpc: '2.0', id: 1.5, result: {} }, 'ping', /\/id/);
        bad(r, 'text', undefined, /must be an object/);
        bad(r, { jsonrpc: '2.0', id: 1 }, undefined, /neither a request/);
    }
});

test('notifications and server requests', () => {
    for (const r of LEGACY) {
        ok(r, { jsonrpc: '2.0', method: 'notifications/tools/list_changed' });
        ok(r, { jsonrpc: '2.0', method: 'notifications/resources/list_changed', params: {} });
        ok(r, { jsonrpc: '2.0', method: 'notifications/prompts/list_changed' });
        ok(r, { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'error', logger: 'x', data: { any: [1] } } });
        bad(r, { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'loud', data: 1 } }, undefined, /level: must be one of/);
        ok(r, { jsonrpc: '2.0', method: 'notifications/resources/updated', params: { uri: 'example://a' } });
        ok(r, { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 3 } });
        ok(r, { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 't', progress: 1, total: 2 } });
        ok(r, { jsonrpc: '2.0', id: 's1', method: 'roots/list' });
        ok(r, { jsonrpc: '2.0', id: 's2', method: 'ping' });
        ok(r, { jsonrpc: '2.0', id: 's3', method: 'sampling/createMessage', params: { messages: [{ role: 'user', content: { type: 'text', text: 'hi' } }], maxTokens: 5 } });
        bad(r, { jsonrpc: '2.0', method: 'notifications/bogus' }, undefined, /not a notification method/);
        bad(r, { jsonrpc: '2.0', method: 'notifications/tools/list_changed', extra: 1 }, undefined, /unknown member "extra"/);
    }
    bad('2024-11-05', { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 't', progress: 1, message: 'm' } }, undefined, /"message"/);
    for (const r of since('2025-03-26')) ok(r, { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 't', progress: 1, message: 'm' } });
    for (const r of before('2025-06-18')) bad(r, { jsonrpc: '2.0', id: 'e', method: 'elicitation/create', params: {} }, undefined, /not a request method/);
    for (const r of since('2025-06-18')) {
        ok(r, { jsonrpc: '2.0', id: 'e', method: 'elicitation/create', params: { message: 'm', requestedSchema: { type: 'object', properties: { a: { type: 'string' } } } } });
    }
    bad('2025-06-18', { jsonrpc: '2.0', method: 'notifications/elicitation/complete', params: { elicitationId: 'x' } }, undefined, /not a notification method/);
    ok('2025-11-25', { jsonrpc: '2.0', method: 'notifications/elicitation/complete', params: { elicitationId: 'x' } });
});

test('batches only where the revision has them', () => {
    const answers = (id) => (id === 1 ? 'ping' : 'tools/list');
    const batch = [{ jsonrpc: '2.0', id: 1, result: {} }, { jsonrpc: '2.0', id: 2, result: { tools: [] } }];
    ok('2025-03-26', batch, { answers });
    bad('2025-03-26', [{ jsonrpc: '2.0', id: 1, result: { x: 1 } }], { answers }, /^\/0\/result: unknown member "x"/);
    for (const r of ['2024-11-05', '2025-06-18', '2025-11-25']) bad(r, batch, { answers }, /batch/);
});

// --- 2026-07-28: per-request results, discover, listen, MRTR, -32022. ---

const M = '2026-07-28';
const SERVER_INFO = { 'io.modelcontextprotocol/serverInfo': { name: 'mcph', version: '1' } };
const SUB = 'io.modelcontextprotocol/subscriptionId';
const modern = (result) => res({ resultType: 'complete', _meta: SERVER_INFO, ...result });
const cache = { ttlMs: 0, cacheScope: 'private' };

test('2026-07-28: cacheable lists need resultType, ttlMs and cacheScope; legacy lists must not have them', () => {
    ok(M, modern({ tools: [tool], nextCursor: 'c', ...cache }), 'tools/list');
    ok(M, modern({ tools: [{ ...tool, title: 'T', icons: [{ src: 'https://example.com/i.png' }], _meta: { any: 1 } }], ttlMs: 5000, cacheScope: 'public' }), 'tools/list');
    bad(M, modern({ tools: [tool], cacheScope: 'private' }), 'tools/list', /missing required member "ttlMs".*ListToolsResult/);
    bad(M, modern({ tools: [tool], ttlMs: 0 }), 'tools/list', /missing required member "cacheScope"/);
    bad(M, modern({ tools: [tool], ttlMs: -1, cacheScope: 'private' }), 'tools/list', /\/result\/ttlMs/);
    bad(M, modern({ tools: [tool], ttlMs: 0, cacheScope: 'shared' }), 'tools/list', /cacheScope: must be one of/);
    bad(M, res({ tools: [tool], ...cache }), 'tools/list', /missing required member "resultType"/);
    bad(M, modern({ tools: [tool], ...cache, bogus: 1 }), 'tools/list', /\/result: unknown member "bogus" \(not defined by 2026-07-28/);
    bad(M, modern({ tools: [{ ...tool, bogus: 1 }], ...cache }), 'tools/list', /tools\/0: unknown member "bogus".*Tool/);
    ok(M, modern({ resources: [{ uri: 'example://a', name: 'a' }], ...cache }), 'resources/list');
    ok(M, modern({ resourceTemplates: [{ uriTemplate: 'example://g/{n}', name: 'g' }], ...cache }), 'resources/templates/list');
    ok(M, modern({ prompts: [{ name: 'p' }], ...cache }), 'prompts/list');
    ok(M, modern({ contents: [{ uri: 'example://a', text: 'x' }], ...cache }), 'resources/read');
    bad(M, modern({ contents: [{ uri: 'example://a', text: 'x' }] }), 'resources/read', /missing required member "ttlMs".*ReadResourceResult/);
    // Not cacheable: no ttlMs/cacheScope defined there.
    ok(M, modern({ content: [{ type: 'text', text: 'x' }] }), 'tools/call');
    bad(M, modern({ content: [{ type: 'text', text: 'x' }], ...cache }), 'tools/call', /unknown member "ttlMs".*CallToolResult/);
    ok(M, modern({ messages: [{ role: 'user', content: { type: 'text', text: 'hi' } }] }), 'prompts/get');
    ok(M, modern({ completion: { values: ['a'], total: 1, hasMore: false } }), 'completion/complete');
    for (const r of LEGACY) {
        bad(r, res({ tools: [tool], resultType: 'complete' }), 'tools/list', /unknown member "resultType"/);
        bad(r, res({ tools: [tool], ttlMs: 0 }), 'tools/list', /unknown member "ttlMs"/);
    }
});

test('2026-07-28: result _meta is open, but serverInfo is an Implementation', () => {
    ok(M, modern({ content: [], _meta: { ...SERVER_INFO, 'example.com/x': { y: [1] } } }), 'tools/call');
    bad(M, modern({ content: [], _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'm' } } }), 'tools/call', /serverInfo: missing required member "version"/);
    bad(M, modern({ content: [], _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'm', version: '1', bogus: 1 } } }), 'tools/call', /serverInfo: unknown member "bogus".*Implementation/);
});

test('2026-07-28: server/discover answers a DiscoverResult', () => {
    const caps = { logging: {}, tools: { listChanged: true }, resources: { listChanged: true, subscribe: true }, prompts: { listChanged: true }, completions: {} };
    const disc = (extra = {}) => modern({ supportedVersions: [M, '2025-11-25'], capabilities: caps, ...cache, ...extra });
    ok(M, disc({ instructions: 'x' }), 'server/discover');
    // extensions and experimental are open maps of objects.
    ok(M, disc({ capabilities: { ...caps, extensions: { 'io.example/ext': { a: 1, b: { c: true } } }, experimental: { x: {} } } }), 'server/discover');
    bad(M, disc({ capabilities: { ...caps, tasks: {} } }), 'server/discover', /capabilities: unknown member "tasks".*ServerCapabilities/);
    bad(M, disc({ capabilities: { ...caps, tools: { listChanged: true, x: 1 } } }), 'server/discover', /capabilities\/tools: unknown member "x"/);
    bad(M, modern({ capabilities: caps, ...cache }), 'server/discover', /missing required member "supportedVersions".*DiscoverResult/);
    bad(M, modern({ supportedVersions: [M], capabilities: caps }), 'server/discover', /missing required member "ttlMs"/);
    bad(M, disc({ serverInfo: { name: 'm', version: '1' } }), 'server/discover', /unknown member "serverInfo".*DiscoverResult/);
    for (const r of LEGACY) bad(r, disc(), 'server/discover', new RegExp(`revision ${r} has no DiscoverResult`));
});

test('2026-07-28: subscriptions/listen, its acknowledgement and tagged notifications', () => {
    ok(M, res({ resultType: 'complete', _meta: { [SUB]: 1, ...SERVER_INFO } }), 'subscriptions/listen');
    ok(M, res({ resultType: 'complete', _meta: { [SUB]: 'listen:1' } }), 'subscriptions/listen');
    bad(M, res({ resultType: 'complete', _meta: SERVER_INFO }), 'subscriptions/listen', /missing required member "io.modelcontextprotocol\/subscriptionId"/);
    bad(M, res({ resultType: 'complete' }), 'subscriptions/listen', /missing required member "_meta".*SubscriptionsListenResult/);
    bad(M, res({ resultType: 'complete', _meta: { [SUB]: 1 }, extra: 1 }), 'subscriptions/listen', /unknown member "extra"/);
    const ack = (params) => ({ jsonrpc: '2.0', method: 'notifications/subscriptions/acknowledged', params });
    ok(M, ack({ _meta: { [SUB]: 1 }, notifications: { toolsListChanged: true, resourceSubscriptions: ['example://a'] } }));
    ok(M, ack({ _meta: { [SUB]: 's' }, notifications: {} }));
    bad(M, ack({ _meta: { [SUB]: 1 } }), undefined, /missing required member "notifications"/);
    bad(M, ack({ _meta: { [SUB]: 1 }, notifications: { bogus: true } }), undefined, /notifications: unknown member "bogus".*SubscriptionFilter/);
    bad(M, ack({ _meta: { [SUB]: 1.5 }, notifications: {} }), undefined, /subscriptionId/);
    for (const r of LEGACY) bad(r, ack({ notifications: {} }), undefined, /not a notification method/);
    const tagged = (method, extra = {}) => ({ jsonrpc: '2.0', method, params: { _meta: { [SUB]: 7, 'example.com/k': 1 }, ...extra } });
    ok(M, tagged('notifications/tools/list_changed'));
    ok(M, tagged('notifications/resources/list_changed'));
    ok(M, tagged('notifications/prompts/list_changed'));
    ok(M, tagged('notifications/resources/updated', { uri: 'example://a' }));
    bad(M, tagged('notifications/tools/list_changed', { extra: 1 }), undefined, /params: unknown member "extra"/);
    bad(M, tagged('notifications/resources/updated'), undefined, /missing required member "uri"/);
    // The server ends a listen on stdio with notifications/cancelled: CancelledNotification, not
    // the schema's single-member ClientNotification union.
    ok(M, { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 3 } });
    bad(M, { jsonrpc: '2.0', method: 'notifications/cancelled', params: {} }, undefined, /missing required member "requestId".*Cancelled/);
});

test('2026-07-28: input_required answers tools/call, prompts/get and resources/read only', () => {
    const elicit = { method: 'elicitation/create', params: { message: 'Name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] } } };
    const sample = { method: 'sampling/createMessage', params: { messages: [{ role: 'user', content: { type: 'text', text: 'hi' } }], maxTokens: 10 } };
    const ir = (extra) => res({ resultType: 'input_required', _meta: SERVER_INFO, ...extra });
    for (const method of ['tools/call', 'prompts/get', 'resources/read']) {
        ok(M, ir({ inputRequests: { 'ask-1': elicit, 'ask-2': sample, 'ask-3': { method: 'roots/list' } }, requestState: 'abc' }), method);
        ok(M, ir({ requestState: 'abc' }), method);
        ok(M, ir({ inputRequests: { a: elicit } }), method);
        bad(M, ir({}), method, /needs inputRequests or requestState/);
        bad(M, ir({ inputRequests: { a: { method: 'ping' } } }), method, /inputRequests\/a: matches none of/);
        bad(M, ir({ inputRequests: { a: { ...elicit, id: 1 } } }), method, /inputRequests\/a/);
        bad(M, ir({ requestState: 'abc', content: [] }), method, /unknown member "content".*InputRequiredResult/);
    }
    bad(M, ir({ requestState: 'abc' }), 'completion/complete', /"input_required" answers only/);
    bad(M, ir({ requestState: 'abc' }), 'tools/list', /"input_required" answers only/);
    // Legacy revisions have no such result: the member set of CallToolResult applies.
    bad('2025-11-25', ir({ requestState: 'abc' }), 'tools/call', /unknown member "resultType"/);
});

test('2026-07-28: -32022 is an UnsupportedProtocolVersionError', () => {
    const err = (data) => ({ jsonrpc: '2.0', id: 1, error: { code: -32022, message: 'Unsupported protocol version', data } });
    ok(M, err({ supported: [M, '2025-11-25'], requested: '2099-01-01' }));
    bad(M, err({ supported: [M] }), undefined, /error\/data: missing required member "requested"/);
    bad(M, err(undefined), undefined, /missing required member "data"/);
    bad(M, err({ supported: M, requested: 'x' }), undefined, /supported: must be of type array/);
    bad(M, err({ supported: [M], requested: 'x', extra: 1 }), undefined, /data: unknown member "extra"/);
    // Other revisions know no such error: only the generic error envelope applies.
    for (const r of LEGACY) ok(r, err({ supported: [M] }));
    const cap = { jsonrpc: '2.0', id: 1, error: { code: -32021, message: 'Missing capability', data: { requiredCapabilities: { elicitation: {} } } } };
    ok(M, cap);
    bad(M, { ...cap, error: { ...cap.error, data: {} } }, undefined, /missing required member "requiredCapabilities"/);
});

test('2026-07-28: log and progress notifications', () => {
    ok(M, { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'warning', logger: 'plugin x', data: 'hey' } });
    bad(M, { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'warn', data: 'hey' } }, undefined, /level: must be one of/);
    ok(M, { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 'p', progress: 1, total: 2, message: 'm' } });
    bad(M, { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 'p' } }, undefined, /missing required member "progress"/);
    // Server->client requests do not exist in 2026-07-28.
    bad(M, { jsonrpc: '2.0', id: 's1', method: 'ping' }, undefined, /not a request method of revision 2026-07-28/);
    for (const method of ['elicitation/create', 'sampling/createMessage', 'roots/list']) {
        bad(M, { jsonrpc: '2.0', id: 's2', method, params: {} }, undefined, /is no JSON-RPC request in revision 2026-07-28/);
    }
});
