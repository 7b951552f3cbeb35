#!/usr/bin/env node
// guide.mjs: checks that plugin-api/README.md shows only real, served code.
//
//   node plugin-api/examples/guide.mjs [README.md]
//
// Every fenced listing must follow a line naming its file, "File `path`:" (the listing is the
// whole file) or "From `path`:" (the listing is a part of it, verbatim), and that file must
// be one make test builds and serves: plugin-api/examples/ (examples.t, ask.t) or
// plugins/example/ (the example plugin's transcripts, make plugin's starter). Every path of
// the tree the guide names in backquotes must exist. Prints "guide: N listings checked" or
// the mismatches, and exits 1 on any.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const SERVED = [/^plugin-api\/examples\/[\w.-]+$/, /^plugins\/example\/[\w./-]+$/];
const TREE_PATH = /^(plugins|plugin-api|tests|conf|man|core)\/[\w./-]+$/;
const PLACEHOLDER = /\b(foo|NAME)\b/;

const guide = process.argv[2] ?? path.join(ROOT, 'plugin-api/README.md');
const lines = fs.readFileSync(guide, 'utf8').split('\n');
const failures = [];
let listings = 0;

function readTree(rel) {
    const file = path.join(ROOT, rel);
    return fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : null;
}

function checkListing(start, end) {
    let k = start - 1;
    while (k >= 0 && lines[k].trim() === '') k--;
    const m = k >= 0 ? lines[k].match(/^(File|From) `([^`]+)`/) : null;
    const where = `${path.basename(guide)}:${start + 1}`;
    if (!m) return failures.push(`${where}: a listing not preceded by "File \`path\`:" or "From \`path\`:"`);
    const [, kind, rel] = m;
    if (!SERVED.some((re) => re.test(rel)))
        return failures.push(`${where}: ${rel} is not a file make test builds and serves`);
    const text = readTree(rel);
    if (text === null) return failures.push(`${where}: ${rel} does not exist`);
    const body = lines.slice(start + 1, end).join('\n');
    if (kind === 'File' && body !== text.replace(/\n$/, ''))
        failures.push(`${where}: the listing is not the whole of ${rel} as it is now`);
    if (kind === 'From' && !text.includes(body))
        failures.push(`${where}: the listing is not a verbatim part of ${rel}`);
    listings++;
}

let open = -1;
lines.forEach((line, i) => {
    if (!line.startsWith('```')) return;
    if (open < 0) {
        open = i;
    } else {
        checkListing(open, i);
        open = -1;
    }
});
if (open >= 0) failures.push(`${path.basename(guide)}:${open + 1}: a listing never closed`);

for (const [i, line] of lines.entries()) {
    for (const [, token] of line.matchAll(/`([^`\s]+)`/g)) {
        if (TREE_PATH.test(token) && !PLACEHOLDER.test(token) && !fs.existsSync(path.join(ROOT, token)))
            failures.push(`${path.basename(guide)}:${i + 1}: names ${token}, which does not exist`);
    }
}

for (const f of failures) console.log(`FAIL ${f}`);
console.log(`guide: ${listings} listings checked, ${failures.length} failed`);
process.exit(failures.length > 0 || listings === 0 ? 1 : 0);
