// Checks of tests/lib/util.mjs.
//
//   node --test tests/lib/

import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { sleep, waitFor, capped, CAPPED, short, median, sanitizersOf, jsonLines, ROOT } from './util.mjs';

test('waitFor: the predicate\'s value once true, its last (falsy) value after the time', async () => {
    let n = 0;
    assert.equal(await waitFor(() => (++n >= 3 ? 'yes' : 0), 2000, 1), 'yes');
    const t0 = Date.now();
    assert.equal(await waitFor(async () => null, 60), null);
    assert.ok(Date.now() - t0 >= 55);
});

test('capped: the value, or CAPPED when the time ran out', async () => {
    assert.equal(await capped(Promise.resolve(7), 100), 7);
    assert.equal(await capped(sleep(200).then(() => 1), 20), CAPPED);
    await assert.rejects(capped(Promise.reject(new Error('no')), 100), /no/);
});

test('short: strings as they are, values as JSON, cut with ...', () => {
    assert.equal(short('abc'), 'abc');
    assert.equal(short({ a: 1 }), '{"a":1}');
    assert.equal(short('x'.repeat(10), 6), 'xxx...');
    assert.equal(short(undefined), 'undefined');
});

test('median: odd, even, empty', () => {
    assert.equal(median([3, 1, 2]), 2);
    assert.equal(median([4, 1, 3, 2]), 2.5);
    assert.ok(Number.isNaN(median([])));
});

test('sanitizersOf: by the runtime symbols in the file', (t) => {
    const dir = fs.mkdtempSync(path.join(ROOT, 'build', '.util-test-'));
    t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
    fs.writeFileSync(path.join(dir, 'plain'), 'nothing here');
    fs.writeFileSync(path.join(dir, 'asan'), 'x __asan_init y __ubsan_handle_add');
    assert.deepEqual(sanitizersOf(path.join(dir, 'plain')), { address: false, thread: false, undefined: false, any: false });
    assert.deepEqual(sanitizersOf(path.join(dir, 'asan')), { address: true, thread: false, undefined: true, any: true });
    assert.equal(sanitizersOf(path.join(dir, 'missing')).any, false);
});

test('jsonLines: whole lines across chunks, bad lines reported, a partial line kept', () => {
    const got = [];
    const bad = [];
    const feed = jsonLines((m, l) => got.push([m, l]), (why) => bad.push(why));
    feed('{"a":');
    assert.deepEqual(got, []);
    feed('1}\r\n\nnope\n[2]\n{"b"');
    assert.deepEqual(got, [[{ a: 1 }, '{"a":1}'], [[2], '[2]']]);
    assert.equal(bad.length, 2);
    assert.match(bad[0], /not JSON \(empty line\)/);
    assert.match(bad[1], /not JSON .*: nope$/);
});
