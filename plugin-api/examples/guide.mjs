#!/usr/bin/env node
// guide.mjs: checks that plugin-api/README.md shows only real, served code.
//
//   node plugin-api/examples/guide.mjs [README.md]
//
// Every fenced listing must follow a line naming its file, "File `path`:" (the listing is the
// whole file) or "From `path`:" (the listing is a part of it, verbatim), and that file must
// be one make test builds and serves: plugin-api/examples/ (examples.t, ask.t) or
// plugins/example/ (the example plugin's transcripts, make plugin's starter). Every path of
// the tree the guide names in backquotes must exist, and every member of the descriptor and of
// the host vtable in plugin-api.h carries one thread tag, which the guide's table lists. Prints "guide: N listings checked" or
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

// The thread tags: every member of the descriptor and of the host vtable carries exactly one
// tag of plugin-api.h's vocabulary, in its comment (the lines above it back to the previous
// member or blank line) or on its own line, and the guide's table lists that vocabulary.
const TAGS = ['main-thread', 'during-init', 'pool-thread', 'handler-thread', 'any-thread'];
const header = fs.readFileSync(path.join(ROOT, 'plugin-api/plugin-api.h'), 'utf8').split('\n');
let members = 0;

function memberTags(body, i) {
    let text = body[i];
    for (let k = i - 1; k >= 0; k--) {
        const t = body[k].trim();
        if (t === '' || !(t.startsWith('/*') || t.startsWith('*'))) break;
        text = body[k] + '\n' + text;
    }
    return new Set([...text.matchAll(/\[([a-z-]+)\]/g)].map((m) => m[1]).filter((t) => TAGS.includes(t)));
}

for (const name of ['mcph_plugin', 'mcph_host']) {
    const start = header.indexOf(`struct ${name} {`);
    const end = header.indexOf('};', start);
    const body = header.slice(start + 1, end);
    body.forEach((line, i) => {
        const t = line.trim();
        if (!/^ {4}\S/.test(line) || t.startsWith('/*') || t.startsWith('*')) return;
        if (!/^[\w ]+?\**\w+;|\(\*\w+\)\(/.test(t)) return;
        const tags = memberTags(body, i);
        members++;
        if (tags.size !== 1)
            failures.push(`plugin-api.h:${start + i + 2}: struct ${name} member has ${tags.size} thread tags: ${t}`);
    });
}
for (const tag of TAGS) {
    if (!lines.some((l) => l.startsWith(`| \`[${tag}]\``)))
        failures.push(`${path.basename(guide)}: the threads table lacks [${tag}]`);
}

for (const f of failures) console.log(`FAIL ${f}`);
console.log(`guide: ${listings} listings and the thread tags of ${members} members checked, ${failures.length} failed`);
process.exit(failures.length > 0 || listings === 0 ? 1 : 0);
