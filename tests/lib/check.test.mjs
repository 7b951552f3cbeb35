// Checks of tests/lib/check.mjs: a step that throws or returns problems fails and is counted,
// the summary says so and the exit code follows.
//
//   node --test tests/lib/

import test from 'node:test';
import assert from 'node:assert/strict';
import { Tally, Case, CaseFailure, Assert, expect, expectEq, errorText } from './check.mjs';

const quiet = () => {
    const lines = [];
    return { t: new Tally((l) => lines.push(l)), lines };
};

test('check: a note passes, a throw or a list of problems fails, each counted', async () => {
    const { t, lines } = quiet();
    assert.equal(await t.check('a', async () => 'fine'), true);
    assert.equal(await t.check('b', () => undefined), true);
    assert.equal(await t.check('c', async () => {
        throw new Error('boom');
    }), false);
    assert.equal(await t.check('d', () => ['one', 'two']), false);
    assert.equal(await t.check('e', () => []), true);
    assert.deepEqual([t.passed, t.failed], [3, 2]);
    assert.deepEqual(lines, ['ok a (fine)', 'ok b', 'FAIL c: Error: boom', 'FAIL d: one | two', 'ok e']);
    assert.equal(t.exitCode, 1);
    assert.equal(t.summary('suite', ' (1 s)'), 2);
    assert.equal(lines.at(-1), 'suite: 3 passed, 2 failed (1 s)');
});

test('check: problems from opts.problems come first and fail a step that passed', async () => {
    const { t, lines } = quiet();
    assert.equal(await t.check('x', () => 'ok', { problems: () => ['schema: bad'] }), false);
    assert.equal(await t.check('y', () => ['mine'], { problems: () => ['theirs'] }), false);
    assert.deepEqual(lines, ['FAIL x: schema: bad', 'FAIL y: theirs | mine']);
});

test('check: at most max problems are shown, with how many more', async () => {
    const { t, lines } = quiet();
    await t.check('many', () => ['1', '2', '3', '4'], { max: 2 });
    assert.equal(lines[0], 'FAIL many: 1 | 2 (+2 more)');
});

test('report and summary with nothing failed: exit code 0', () => {
    const { t, lines } = quiet();
    t.report(true, 'r', '12 ms');
    t.report(false, 'q', '');
    assert.deepEqual(lines, ['ok r (12 ms)', 'FAIL q']);
    const u = quiet();
    u.t.report(true, 'only');
    assert.equal(u.t.summary(), 0);
    assert.equal(u.t.exitCode, 0);
    assert.equal(u.lines.at(-1), '1 passed, 0 failed');
});

test('expect and expectEq throw an Assert saying what differs', () => {
    assert.doesNotThrow(() => expect(true, 'never'));
    assert.throws(() => expect(0, 'zero'), (e) => e instanceof Assert && e.message === 'zero');
    assert.doesNotThrow(() => expectEq({ a: [1] }, { a: [1] }, 'same'));
    assert.throws(() => expectEq([1, 2], [2, 1], 'order'), /order: got \[1,2\], wanted \[2,1\]/);
    assert.throws(() => expectEq(undefined, null, 'absent'), /absent: got undefined, wanted null/);
});

test('errorText: an Assert bare, a ZodError by its issues, others with their name', () => {
    assert.equal(errorText(new Assert('plain')), 'plain');
    assert.equal(errorText(new TypeError('x\n  y')), 'TypeError: x y');
    const zod = { name: 'ZodError', issues: [{ path: ['a', 0], message: 'Required' }, { path: [], code: 'invalid_union', errors: [] }] };
    assert.equal(errorText(zod), 'SDK validation (ZodError): a.0: Required; /: matches no union member');
});

test('Case: failures and notes kept; require stops the case, threw records other errors', () => {
    const c = new Case('c1');
    assert.equal(c.check(true, 'not kept'), true);
    assert.equal(c.check(false, 'kept'), false);
    c.note('3 ms');
    assert.throws(() => c.require(false, 'needed'), CaseFailure);
    c.threw(new CaseFailure('needed'));
    c.threw(new Error('surprise'));
    assert.equal(c.ok, false);
    assert.deepEqual(c.failures.slice(0, 2), ['kept', 'needed']);
    assert.match(c.failures[2], /^exception: Error: surprise/);
    assert.deepEqual(c.notes, ['3 ms']);
    assert.equal(new Case('empty').ok, true);
});
