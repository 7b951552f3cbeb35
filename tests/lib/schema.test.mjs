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
