// Per-scenario verdicts of one conformance server run, checked against the expected-failures
// baseline. Used by run.sh after the suite (which applies the same baseline itself; this is
// the readable report and a second opinion).
//
//   node summarize.mjs RESULTS_DIR SUITE_LOG EXPECTED_FAILURES_YML [SERVER_PROBLEMS]
//
// RESULTS_DIR holds the suite's `-o` output: one server-<scenario>-<timestamp>/checks.json a
// scenario. A scenario fails when any of its checks is FAILURE or WARNING (the rule the
// suite's --expected-failures uses), or when it left no checks.json. SERVER_PROBLEMS, when
// given, is a file of what went wrong with the server process itself (one problem a line:
// it exited early, did not stop cleanly, a sanitizer report); it adds a row `mcph-process`,
// failing when the file is not empty. Exit 1 when a scenario not in the baseline failed, a
// baseline scenario passed (stale entry) or the server process had a problem; else 0. The
// last line is "conformance: N passed, N failed".
import fs from 'node:fs';
import path from 'node:path';
import {parse} from 'yaml';

const [resultsDir, suiteLog, baselineFile, problemsFile] = process.argv.slice(2);
if (!resultsDir || !suiteLog || !baselineFile) {
    console.error('usage: summarize.mjs RESULTS_DIR SUITE_LOG EXPECTED_FAILURES_YML [SERVER_PROBLEMS]');
    process.exit(2);
}

const baseline = new Set((parse(fs.readFileSync(baselineFile, 'utf8')) ?? {}).server ?? []);

// Scenario -> checks, from the result directories (server-NAME-2026-01-02T03-04-05-678Z).
const checks = new Map();
for (const dir of fs.existsSync(resultsDir) ? fs.readdirSync(resultsDir) : []) {
    const m = /^server-(.+)-\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d-\d{3}Z$/.exec(dir);
    const file = path.join(resultsDir, dir, 'checks.json');
    if (m && fs.existsSync(file))
        checks.set(m[1], JSON.parse(fs.readFileSync(file, 'utf8')));
}

// Every scenario the suite started, in order (a scenario that crashed has no checks.json).
const log = fs.existsSync(suiteLog) ? fs.readFileSync(suiteLog, 'utf8') : '';
const started = [...log.matchAll(/=== Running scenario: (\S+) ===|Running client scenario '([^']+)'/g)]
                    .map((m) => m[1] ?? m[2]);
const scenarios = [...new Set([...started, ...checks.keys()])];

let passed = 0, failed = 0;
const unexpected = [], stale = [], expected = [];
for (const name of scenarios) {
    const list = checks.get(name);
    const bad = list ? list.filter((c) => c.status === 'FAILURE' || c.status === 'WARNING')
                     : [{id: name, status: 'FAILURE', errorMessage: 'no results (the scenario crashed or timed out)'}];
    const ok = bad.length === 0;
    const listed = baseline.has(name);
    ok ? passed++ : failed++;
    let tag = ok ? 'PASS' : 'FAIL';
    if (!ok && listed) {
        tag = 'XFAIL';
        expected.push(name);
    } else if (!ok) {
        unexpected.push(name);
    } else if (listed) {
        tag = 'XPASS';
        stale.push(name);
    }
    console.log(`${tag.padEnd(5)} ${name}`);
    for (const c of bad)
        console.log(`        ${c.status} ${c.id}: ${c.errorMessage ?? c.description ?? ''}`);
}

// The server process: one more row, never in the baseline.
if (problemsFile) {
    const problems = (fs.existsSync(problemsFile) ? fs.readFileSync(problemsFile, 'utf8') : 'no record')
                         .split('\n')
                         .filter((l) => l.trim() !== '');
    problems.length ? failed++ : passed++;
    console.log(`${problems.length ? 'FAIL ' : 'PASS '} mcph-process`);
    for (const p of problems)
        console.log(`        ${p}`);
    if (problems.length)
        unexpected.push('mcph-process');
}

if (scenarios.length === 0)
    console.log('no scenario ran');
if (expected.length)
    console.log(`expected failures (${path.basename(baselineFile)}): ${expected.join(', ')}`);
if (unexpected.length)
    console.log(`UNEXPECTED failures: ${unexpected.join(', ')}`);
if (stale.length)
    console.log(`UNEXPECTED passes (remove them from ${path.basename(baselineFile)}): ${stale.join(', ')}`);
console.log(`conformance: ${passed} passed, ${failed} failed` +
            (expected.length ? ` (${expected.length} expected)` : ''));
process.exit(unexpected.length || stale.length || scenarios.length === 0 ? 1 : 0);
