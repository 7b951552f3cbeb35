// Named test steps and their count, for every Node test suite.
//
//   import { check, report, expect, expectEq, summary, done } from '../lib/check.mjs';
//   await check('tools/list', async () => {          // fn: a note, a list of problems, or throws
//       expectEq(names, ['echo'], 'tool names');
//       return '1 tool';
//   });                                              // -> "ok tools/list (1 tool)"
//   report(ms < 200, 'ping at once', `${ms} ms`);    // a verdict already known
//   done();                                          // "N passed, N failed"; exit 1 on a failure
//
// A step passes when fn returns a string or nothing (or an empty list) and fails when it throws
// or returns a non-empty list of problems; problems from opts.problems() (e.g. schema errors a
// session saw meanwhile) are added first. Lines: "ok NAME (note)" or "FAIL NAME: why".
// A Case gathers the checks of one larger scenario and is reported as a single line by its
// suite (tests/hostile, tests/reload).

export class Assert extends Error {}

export function expect(cond, what) {
    if (!cond) throw new Assert(what);
}

// Equal as JSON text.
export function expectEq(actual, wanted, what) {
    const a = JSON.stringify(actual);
    const w = JSON.stringify(wanted);
    if (a !== w) throw new Assert(`${what}: got ${cut(a, 300)}, wanted ${cut(w, 300)}`);
}

function cut(s, n) {
    return s !== undefined && s.length > n ? `${s.slice(0, n - 3)}...` : String(s);
}

// One line for an error: an Assert's message; a ZodError (the SDK's own result validation)
// lists its issues; anything else "Name: message".
export function errorText(err) {
    if (err instanceof Assert) return err.message;
    if (Array.isArray(err?.issues)) {
        const flat = err.issues.map((i) => {
            const p = (i.path || []).join('.') || '/';
            return i.code === 'invalid_union' && Array.isArray(i.errors) ? `${p}: matches no union member` : `${p}: ${i.message}`;
        });
        return `SDK validation (${err.name}): ${cut(flat.join('; '), 300)}`;
    }
    return cut(`${err?.name || 'Error'}: ${err?.message || err}`.replace(/\s+/g, ' '), 300);
}

// A count of passed and failed steps; the module's functions use one shared Tally.
export class Tally {
    constructor(log = console.log) {
        this.passed = 0;
        this.failed = 0;
        this.log = log;
    }

    report(ok, name, why) {
        if (ok) {
            this.passed++;
            this.log(`ok ${name}${why ? ` (${why})` : ''}`);
        } else {
            this.failed++;
            this.log(`FAIL ${name}${why ? `: ${why}` : ''}`);
        }
        return !!ok;
    }

    // Run one named step; see the header. opts: { problems: () => [...], max: problems shown }.
    async check(name, fn, opts = {}) {
        const problems = [];
        let note;
        try {
            const r = await fn();
            if (Array.isArray(r)) problems.push(...r);
            else if (r !== undefined && r !== null) note = String(r);
        } catch (err) {
            problems.push(errorText(err));
        }
        if (opts.problems) problems.unshift(...opts.problems());
        const max = opts.max ?? 5;
        const why = problems.length ? problems.slice(0, max).join(' | ') +
            (problems.length > max ? ` (+${problems.length - max} more)` : '') : note;
        return this.report(problems.length === 0, name, why);
    }

    // "N passed, N failed" (after `label: ` when given, then `tail`); returns the failures.
    summary(label = '', tail = '') {
        this.log(`${label ? `${label}: ` : ''}${this.passed} passed, ${this.failed} failed${tail}`);
        return this.failed;
    }

    get exitCode() {
        return this.failed > 0 ? 1 : 0;
    }
}

export const tally = new Tally();
export const report = (ok, name, why) => tally.report(ok, name, why);
export const check = (name, fn, opts) => tally.check(name, fn, opts);
export const summary = (label, tail) => tally.summary(label, tail);

// Print the summary and exit: 1 when a step failed.
export function done(label, tail) {
    summary(label, tail);
    process.exit(tally.exitCode);
}

// Thrown by Case.require: the rest of the case depends on what failed.
export class CaseFailure extends Error {}

// The checks of one scenario: each failure is kept with what it was; notes are figures shown
// with the case's line.
export class Case {
    constructor(name) {
        this.name = name;
        this.failures = [];
        this.notes = [];
    }

    check(ok, what) {
        if (!ok) this.failures.push(what);
        return !!ok;
    }

    require(ok, what) {
        if (!this.check(ok, what)) throw new CaseFailure(what);
    }

    note(text) {
        this.notes.push(text);
    }

    // An exception from the case: a CaseFailure is already recorded.
    threw(err) {
        if (!(err instanceof CaseFailure)) this.failures.push(`exception: ${err && err.stack ? err.stack : err}`);
    }

    get ok() {
        return this.failures.length === 0;
    }
}
