#!/usr/bin/env node
// Self-test of the transcript runner: runs every selftest/*.t against fake-server.mjs and
// checks each outcome against the transcript's first line, "# expect: ok" or
// "# expect: FAIL <regex>" (the regex is matched against the runner's "FAIL NAME: ..." text
// after "NAME: "). Prints one line per transcript and "N passed, N failed".
//
//   node tests/transcripts/selftest/check.mjs

import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { report, done } from '../../lib/check.mjs';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const RUNNER = path.join(HERE, '..', 'run.mjs');
const FAKE = `node ${path.join(HERE, 'fake-server.mjs')}`;

const files = fs.readdirSync(HERE).filter((f) => f.endsWith('.t')).sort();
for (const f of files) {
    const file = path.join(HERE, f);
    const first = fs.readFileSync(file, 'utf8').split('\n')[0];
    const m = first.match(/^# expect: (ok|FAIL (.*))$/);
    if (!m) {
        report(false, f, 'first line must be "# expect: ok" or "# expect: FAIL <regex>"');
        continue;
    }
    const r = spawnSync(process.execPath, [RUNNER, FAKE, file], { encoding: 'utf8', timeout: 60000 });
    const lines = (r.stdout || '').split('\n');
    const result = lines.find((l) => l.startsWith('ok ') || l.startsWith('FAIL '));
    const summary = lines.find((l) => /^\d+ passed, \d+ failed$/.test(l));
    let ok;
    let why = '';
    if (!result || !summary) {
        ok = false;
        why = `runner printed no result (status ${r.status}): ${(r.stdout + r.stderr).slice(0, 300)}`;
    } else if (m[1] === 'ok') {
        ok = result.startsWith('ok ') && r.status === 0 && summary === '1 passed, 0 failed';
        if (!ok) why = `expected ok, got: ${result} (status ${r.status})`;
    } else {
        const text = result.replace(/^FAIL [^:]*: /, '');
        ok = result.startsWith('FAIL ') && r.status === 1 && summary === '0 passed, 1 failed' &&
            new RegExp(m[2]).test(text);
        if (!ok) why = `expected FAIL /${m[2]}/, got: ${result} (status ${r.status})`;
    }
    report(ok, f, ok ? result : why);
}
done();
