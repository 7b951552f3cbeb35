// Two conformance server runs of the same suite compared scenario by scenario and check by
// check: A against a server directly, B against mcph in front of it (everything.sh). What
// passes in A must pass in B; what fails in A may fail in B.
//
//   node compare.mjs A_DIR B_DIR ALLOW_YML [PROBLEMS]
//
// A_DIR and B_DIR hold the suite's `--output-dir` output (server-<scenario>-<timestamp>/
// checks.json, and suite.log, whose "=== Running scenario" lines name scenarios that left no
// checks.json). A scenario passes when it has checks and none is FAILURE or WARNING (the rule
// of the suite's --expected-failures and of summarize.mjs). Differences:
//   - a scenario that passes in A and not in B;
//   - a check that is SUCCESS in A and in B is another status or missing (checks matched by
//     id, the n-th of an id with the n-th), even when the scenario still passes;
//   - a check SUCCESS in both whose details list other names (tools-list's `tools`,
//     resources-list's `resources`, prompts-list's `prompts`): the names only one side lists.
// ALLOW_YML lists the differences that are expected, each with its reason:
//   differences:
//     - scenario: NAME          # the whole scenario (all its checks)
//       check: ID               # optional: only this check
//       reason: why             # required
//       mcph_gives: REGEX       # optional: what mcph must give for the entry to apply (matched
//                               # against the line's "through mcph ..." text), so that a
//                               # scenario failing for another reason is not excused
//       mcph_bug: true          # optional: a known mcph fault, to be fixed
// PROBLEMS, when given, is a file of what went wrong with the processes (one line a problem).
// Exit 1 when a difference is not allowed, an allow-list entry matched nothing (stale), a
// problem was recorded or no scenario ran; else 0.
//
// A line a scenario, tagged as tests/count.sh reads a conformance run: PASS (passes both
// ways), XFAIL (fails both ways), BETTER (fails directly only), ALLOWED (differs as
// ALLOW_YML says), FAIL (differs otherwise); then a row mcph-process (PASS, or FAIL with the
// problems) when PROBLEMS is given, and a FAIL row for each stale entry. The last line is
// "conformance: N passed, N failed (...)": failed counts the FAIL rows, passed the others.
import fs from 'node:fs';
import path from 'node:path';
import {parse} from 'yaml';

const [dirA, dirB, allowFile, problemsFile] = process.argv.slice(2);
if (!dirA || !dirB || !allowFile) {
    console.error('usage: compare.mjs A_DIR B_DIR ALLOW_YML [PROBLEMS]');
    process.exit(2);
}

// Scenario -> checks (null: started, no checks.json) of one run.
function load(dir) {
    const runs = new Map();
    const log = path.join(dir, 'suite.log');
    const text = fs.existsSync(log) ? fs.readFileSync(log, 'utf8') : '';
    for (const m of text.matchAll(/=== Running scenario: (\S+) ===/g))
        runs.set(m[1], null);
    for (const entry of fs.existsSync(dir) ? fs.readdirSync(dir) : []) {
        const m = /^server-(.+)-\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d-\d{3}Z$/.exec(entry);
        const file = path.join(dir, entry, 'checks.json');
        if (m && fs.existsSync(file))
            runs.set(m[1], JSON.parse(fs.readFileSync(file, 'utf8')));
    }
    return runs;
}

const passes = (list) => Array.isArray(list) && list.length > 0 &&
                         !list.some((c) => c.status === 'FAILURE' || c.status === 'WARNING');

// Checks keyed "id" for the first of an id, "id#2" for the second, and so on.
function keyed(list) {
    const out = new Map();
    const seen = new Map();
    for (const c of list ?? []) {
        const n = (seen.get(c.id) ?? 0) + 1;
        seen.set(c.id, n);
        out.set(n === 1 ? c.id : `${c.id}#${n}`, c);
    }
    return out;
}

// What the lists of names in two checks' details differ by (tools-list's `tools`,
// resources-list's `resources`, prompts-list's `prompts`), as "tools not through mcph: a, b;
// tools only through mcph: c"; '' when the same sets. Other details (ids, URLs, content
// types) differ from run to run or by transport, and are not compared.
const NAMES = ['tools', 'resources', 'resourceTemplates', 'prompts'];
function listed(a, b) {
    const out = [];
    for (const key of NAMES) {
        const list = a.details?.[key], other = b.details?.[key];
        if (!Array.isArray(list) || !Array.isArray(other) || ![...list, ...other].every((x) => typeof x === 'string'))
            continue;
        const gone = list.filter((x) => !other.includes(x));
        const added = other.filter((x) => !list.includes(x));
        gone.length && out.push(`${key} not through mcph: ${gone.join(', ')}`);
        added.length && out.push(`${key} only through mcph: ${added.join(', ')}`);
    }
    return out.join('; ');
}

const why = (c) => (c ? `${c.status}${c.errorMessage ? `: ${c.errorMessage}` : ''}` : 'missing');

const allowed = ((parse(fs.readFileSync(allowFile, 'utf8')) ?? {}).differences ?? []);
for (const e of allowed) {
    if (!e?.scenario || !e?.reason) {
        console.error(`${allowFile}: every entry needs a scenario and a reason: ${JSON.stringify(e)}`);
        process.exit(2);
    }
}
const used = new Set();
function allowance(scenario, check, gives) {
    const i = allowed.findIndex((e) => e.scenario === scenario && (!e.check || e.check === check) &&
                                       (!e.mcph_gives || new RegExp(e.mcph_gives).test(gives)));
    if (i >= 0)
        used.add(i);
    return i >= 0 ? allowed[i] : null;
}

const runsA = load(dirA);
const runsB = load(dirB);
const scenarios = [...new Set([...runsA.keys(), ...runsB.keys()])];
let passA = 0, passB = 0, nAllowed = 0, failedScenarios = 0;
const bad = [];
for (const name of scenarios) {
    const a = runsA.get(name), b = runsB.get(name);
    const okA = passes(a), okB = passes(b);
    okA && passA++;
    okB && passB++;
    // Differences of this scenario: [check or null, what A gave, what B gave].
    const diffs = [];
    if (okA && !okB) {
        const failing = (b ?? []).filter((c) => c.status === 'FAILURE' || c.status === 'WARNING');
        diffs.push([null, 'pass', b ? `fail (${failing.map((c) => `${c.id} ${why(c)}`).join('; ')})`
                                    : 'no results (crashed or timed out)']);
    }
    const checksB = keyed(b);
    // A check that fails in B is already named by the scenario's line when the scenario passes in A.
    for (const [key, c] of keyed(a)) {
        const d = checksB.get(key);
        const named = okA && !okB && (d?.status === 'FAILURE' || d?.status === 'WARNING');
        if (c.status === 'SUCCESS' && d?.status !== 'SUCCESS' && !named)
            diffs.push([key, why(c), why(d)]);
        else if (c.status === 'SUCCESS' && d?.status === 'SUCCESS' && listed(c, d))
            diffs.push([key, 'SUCCESS', `SUCCESS, ${listed(c, d)}`]);
    }
    const notes = [];
    let refused = 0;
    for (const [check, was, is] of diffs) {
        const e = allowance(name, check ?? undefined, is);
        notes.push(`${check ? `check ${check}` : 'scenario'}: direct ${was}; through mcph ${is}`);
        if (e) {
            nAllowed++;
            notes.push(`allowed${e.mcph_bug ? ' (a known mcph fault)' : ''}: ${e.reason.trim()}`);
        } else {
            refused++;
            bad.push(`${name}${check ? `/${check}` : ''}`);
        }
    }
    refused && failedScenarios++;
    const tag = refused ? 'FAIL' : diffs.length ? 'ALLOWED' : okA === okB ? (okA ? 'PASS' : 'XFAIL') : 'BETTER';
    const aside = {XFAIL: ' (fails directly and through mcph)', BETTER: ' (fails directly, passes through mcph)'};
    console.log(`${tag.padEnd(7)} ${name}${aside[tag] ?? ''}`);
    for (const n of notes)
        console.log(`          ${n}`);
}

// The processes (as summarize.mjs's mcph-process row), then each stale entry: rows of their own.
const problems = !problemsFile ? []
                 : fs.existsSync(problemsFile)
                     ? fs.readFileSync(problemsFile, 'utf8').split('\n').filter((l) => l.trim() !== '')
                     : ['no record of the processes'];
let rows = scenarios.length;
if (problemsFile) {
    rows++;
    problems.length && failedScenarios++;
    console.log(`${(problems.length ? 'FAIL' : 'PASS').padEnd(7)} mcph-process`);
    for (const p of problems)
        console.log(`          ${p}`);
}
const stale = allowed.filter((_, i) => !used.has(i)).map((e) => `${e.scenario}${e.check ? `/${e.check}` : ''}`);
for (const e of stale) {
    rows++;
    failedScenarios++;
    console.log(`FAIL    ${e}: an entry of ${path.basename(allowFile)} that matched no difference`);
}
if (scenarios.length === 0)
    console.log('no scenario ran');
if (bad.length)
    console.log(`UNEXPECTED differences (mcph's fault, or add them to ${path.basename(allowFile)} with the reason): ${bad.join(', ')}`);
if (stale.length)
    console.log(`STALE entries of ${path.basename(allowFile)} (no such difference now; remove them): ${stale.join(', ')}`);
console.log(`conformance: ${rows - failedScenarios} passed, ${failedScenarios} failed ` +
            `(directly against through mcph; ${passA} pass directly, ${passB} through mcph; ` +
            `${nAllowed + bad.length} differences, ${nAllowed} allowed)`);
process.exit(bad.length || stale.length || problems.length || scenarios.length === 0 ? 1 : 0);
