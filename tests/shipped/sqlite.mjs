#!/usr/bin/env node
// The sqlite plugin through the real binary and the official SDK v1 client.
//
//   node tests/shipped/sqlite.mjs build/mcph
//
// Fixtures are made at run time in a temp dir with the sqlite3 shell: shop.db (30 items, a
// view, a table whose name needs percent-encoding) and other.db (to try ATTACH). Four servers:
//   ro.ini      shop.db read-only (max_rows 25, timeout_ms 1500, cell_width 16), a second
//               instance with max_bytes 1024 (prefix tiny), and an instance whose database is
//               missing (prefix gone), which must be refused at load while the others serve;
//   rw.ini      rw.db writable, and fresh.db made by create = yes (prefix fresh);
//   sample.ini  build/conf/sample.db, the default deployment's sample.
// Every line the server writes is validated against the protocol revision's schema
// (tests/lib/schema.mjs); structured results against the tool's outputSchema. Hostile input
// must give a tool error that says what was refused and why, leave the data as it was, and
// leave the server serving. Output: "ok NAME" / "FAIL NAME: why", then "N passed, N failed".

import { execFileSync, spawn } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Ajv from 'ajv';
import { ResourceListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { Session } from '../interop/harness.mjs';
import { makeValidator, defaultSpecDir } from '../lib/schema.mjs';
import { check as checkStep, errorText, expect, expectEq as expectEqual, report, summary, tally } from '../lib/check.mjs';
import { CAPPED, capped, sanitizersOf, short, waitFor as waitUntil } from '../lib/util.mjs';
import { writeIni as writeIniFile, section as pluginSection } from '../lib/workspace.mjs';

const REV = '2025-11-25';
const CALL_MS = 10000; // one request
const WAIT_MS = 5000; // a notification, an exit
const SUITE_MS = 60000; // the whole suite

// Under AddressSanitizer, freed memory waits in a quarantine (256 MiB by default) that would
// count as the server's peak memory in the memory checks; keep it small. Other builds ignore it.
if (!/quarantine_size_mb/.test(process.env.ASAN_OPTIONS || '')) {
    process.env.ASAN_OPTIONS = [process.env.ASAN_OPTIONS, 'quarantine_size_mb=1'].filter(Boolean).join(':');
}

// Under ThreadSanitizer everything runs several times slower and its runtime keeps freed
// memory resident, so the time bounds of the memory checks stretch and their peak-memory
// bound is not asserted (ASan, with the small quarantine above, keeps both).
const TSAN = sanitizersOf(process.argv[2] || 'build/mcph').thread;
const SLOW = TSAN ? 8 : 1;

// Runs one check: fn returns a note, or throws / returns an array of problems. Schema and
// transport problems seen meanwhile fail the check too.
const check = (s, name, fn) => checkStep(name, fn, { problems: () => (s ? s.drainProblems() : []), max: 4 });

// --- Fixtures. -------------------------------------------------------------------------------

const mcph = path.resolve(process.argv[2] || 'build/mcph');
const pluginDir = path.join(path.dirname(mcph), 'plugins');
const sampleDb = path.join(path.dirname(mcph), 'conf', 'sample.db');
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'mcph-sqlite-'));
const validator = makeValidator(defaultSpecDir());
const ajv = new Ajv({ strict: false, allErrors: true });

const SHOP_SQL = `
CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT NOT NULL, price REAL NOT NULL DEFAULT 0,
                    data BLOB);
CREATE INDEX items_name ON items (name);
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 30)
INSERT INTO items (id, name, price) SELECT i, 'item ' || i, i * 0.5 FROM n;
UPDATE items SET data = x'00ff10' WHERE id = 1;
CREATE TABLE "odd name/%" (x TEXT);
CREATE VIEW cheap AS SELECT id, name FROM items WHERE price < 3;
`;

function sqlite3(db, sql) {
    return execFileSync('sqlite3', ['-bail', db], { input: sql, encoding: 'utf8' });
}

function sha256(file) {
    return crypto.createHash('sha256').update(fs.readFileSync(file)).digest('hex');
}

function writeIni(name, sections) {
    return writeIniFile(tmp, [`[server]\nplugin_dir = ${pluginDir}\nstrict = no\n`, ...sections].join('\n'), name);
}

function section(id, keys) {
    return pluginSection(id, { path: 'sqlite.so', ...keys });
}

// --- Calls. ----------------------------------------------------------------------------------

async function connect(ini) {
    const s = new Session(REV, [mcph], ini, validator);
    s.listChanged = 0;
    await s.client.connect(s.transport, { timeout: CALL_MS });
    s.client.setNotificationHandler(ResourceListChangedNotificationSchema, () => {
        s.listChanged++;
    });
    return s;
}

async function listTools(s) {
    const r = await s.client.listTools({}, { timeout: CALL_MS });
    s.tools = new Map(r.tools.map((t) => [t.name, t]));
    return r.tools;
}

async function call(s, name, args, opts = {}) {
    return s.client.callTool({ name, arguments: args }, undefined, { timeout: CALL_MS, ...opts });
}

function textOf(r) {
    return (r.content || []).filter((c) => c.type === 'text').map((c) => c.text).join('\n');
}

// A result that must succeed, with structured content that matches the tool's outputSchema.
async function ok(s, name, args) {
    const r = await call(s, name, args);
    if (r.isError) throw new Error(`${name} failed: ${short(textOf(r), 300)}`);
    const schema = s.tools?.get(name)?.outputSchema;
    expect(schema, `${name} has no outputSchema in tools/list`);
    expect(r.structuredContent, `${name} gave no structuredContent`);
    if (!ajv.validate(schema, r.structuredContent)) {
        throw new Error(`structuredContent breaks the outputSchema: ${ajv.errorsText(ajv.errors)}`);
    }
    return r;
}

// A call that must be a tool error whose text matches every pattern.
async function refused(s, name, args, ...patterns) {
    const r = await call(s, name, args);
    const text = textOf(r);
    expect(r.isError === true, `not a tool error: ${short(text, 200)}`);
    for (const re of patterns) expect(re.test(text), `message ${short(text, 300)} does not match ${re}`);
    return text;
}

// The server still answers, and the data is what it was.
async function stillServing(s, tool = 'query', count = 30) {
    await s.client.ping({ timeout: CALL_MS });
    const r = await ok(s, tool, { sql: 'SELECT count(*) FROM items' });
    expectEqual(r.structuredContent.rows, [[count]], 'items after the refusal');
}

const waitFor = (cond, ms = WAIT_MS) => waitUntil(cond, ms);

async function close(s, name) {
    await check(s, `${name}: clean exit on EOF`, async () => {
        const proc = s.transport._process;
        const exited = proc ? new Promise((r) => proc.once('close', r)) : Promise.resolve();
        proc?.stdin?.end();
        let timer;
        await Promise.race([exited, new Promise((r) => { timer = setTimeout(r, WAIT_MS); })]);
        clearTimeout(timer);
        await s.client.close();
        expect(s.exit, `no exit within ${WAIT_MS} ms of EOF`);
        expect(!s.exit.signal && s.exit.code === 0, `exit ${JSON.stringify(s.exit)}`);
        return 'status 0';
    });
}

// --- The read-only server. -------------------------------------------------------------------

async function readOnlyBasics(s, shop) {
    await check(s, 'missing database refused at load, others serve', async () => {
        const tools = await listTools(s);
        const missing = path.join(tmp, 'nope.db');
        const said = `the database file ${missing} does not exist`;
        await waitFor(() => s.stderr.includes(said)); // stderr may arrive after the handshake
        const err = s.stderr;
        expect(err.includes(said), `stderr: ${short(err, 600)}`);
        expect(err.includes('a read-only instance never creates its database'), 'no fix in the message');
        expect(!fs.existsSync(missing), 'nope.db was created');
        const names = tools.map((t) => t.name).sort();
        expectEqual(names, ['query', 'tiny_query'], 'tools');
        return 'gone_query absent, query and tiny_query served';
    });
    await check(s, 'tools/list: query with its schemas and hints', async () => {
        const q = s.tools.get('query');
        expectEqual(q.inputSchema.required, ['sql'], 'inputSchema.required');
        expectEqual(Object.keys(q.inputSchema.properties).sort(), ['limit', 'params', 'sql'], 'inputs');
        expectEqual(q.outputSchema.required, ['columns', 'rows', 'row_count', 'truncated'], 'outputSchema');
        expect(q.annotations?.readOnlyHint === true, 'readOnlyHint is not true');
        expect(/base64/.test(q.description) && /hex/.test(q.description), 'blobs not described');
        return 'ok';
    });
    await check(s, 'query: positional params', async () => {
        const r = await ok(s, 'query', {
            sql: 'SELECT id, name, price FROM items WHERE price > ?1 AND name LIKE ?2 ORDER BY id',
            params: [5, 'item 1%'],
        });
        const expected = [11, 12, 13, 14, 15, 16, 17, 18, 19].map((i) => [i, `item ${i}`, i * 0.5]);
        expectEqual(r.structuredContent, {
            columns: ['id', 'name', 'price'], rows: expected, row_count: 9, truncated: false,
        }, 'structuredContent');
        return '9 rows';
    });
    await check(s, 'query: named params (with and without sigil)', async () => {
        const r = await ok(s, 'query', {
            sql: 'SELECT name FROM items WHERE id = :id OR id = @other OR id = $third ORDER BY id',
            params: { id: 3, '@other': 4, third: 5 },
        });
        expectEqual(r.structuredContent.rows, [['item 3'], ['item 4'], ['item 5']], 'rows');
        return '3 rows';
    });
    await check(s, 'query: value types', async () => {
        const r = await ok(s, 'query', {
            sql: "SELECT 42 AS i, 1.5 AS r, 'héllo' AS t, NULL AS n, x'00ff10' AS b, " +
                '9007199254740993 AS big, -1234567890123456 AS neg, 999999999999999 AS max, ' +
                '9007199254740991 AS edge, 0.1 + 0.2 AS sum, ?1 AS yes, ?2 AS no, ?3 AS nul',
            params: [true, false, null],
        });
        expectEqual(r.structuredContent.rows,
            [[42, 1.5, 'héllo', null, { base64: 'AP8Q' }, '9007199254740993', -1234567890123456,
                999999999999999, 9007199254740991, 0.30000000000000004, 1, 0, null]], 'values');
        const text = textOf(r);
        expect(text.includes("x'00ff10'") && text.includes('NULL'), `text: ${text}`);
        const bytes = await ok(s, 'query', { sql: "SELECT CAST(x'ff41' AS TEXT) AS bad, CAST(x'610062' AS TEXT) AS nul" });
        expectEqual(bytes.structuredContent.rows, [['\ufffdA', 'a\ufffdb']], 'text that is not UTF-8');
        expect(textOf(bytes).includes('\ufffdA  | a?b'), `text: ${textOf(bytes)}`);
        return 'null, integer, real, text, blob, big integer, booleans, bad UTF-8, NUL';
    });
    await check(s, 'query: text table', async () => {
        const r = await ok(s, 'query', { sql: 'SELECT id, name FROM items WHERE id <= 3 ORDER BY id' });
        expectEqual(textOf(r), 'id | name\n---+-------\n 1 | item 1\n 2 | item 2\n 3 | item 3\n(3 rows)\n',
            'table');
        const wide = await ok(s, 'query', { sql: "SELECT 'abcdefghijklmnopqrstuvwxyz' AS s, 'a\nb' AS t" });
        expectEqual(textOf(wide), 's                | t\n-----------------+-----\nabcdefghijklmno… | a\\nb\n(1 row)\n',
            'capped cell');
        expectEqual(wide.structuredContent.rows, [['abcdefghijklmnopqrstuvwxyz', 'a\nb']], 'values not cut');
        return 'aligned, capped at cell_width 16';
    });
    await check(s, 'query: limit, max_rows and truncated', async () => {
        const a = await ok(s, 'query', { sql: 'SELECT id FROM items ORDER BY id', limit: 5 });
        expectEqual([a.structuredContent.row_count, a.structuredContent.truncated], [5, true], 'limit 5');
        expect(/truncated: the result has more rows than limit = 5/.test(textOf(a)), textOf(a));
        const b = await ok(s, 'query', { sql: 'SELECT id FROM items ORDER BY id' });
        expectEqual([b.structuredContent.row_count, b.structuredContent.truncated], [25, true], 'max_rows');
        expect(/more rows than max_rows = 25/.test(textOf(b)), textOf(b));
        const c = await ok(s, 'query', { sql: 'SELECT id FROM items WHERE id > 25', limit: 5 });
        expectEqual([c.structuredContent.row_count, c.structuredContent.truncated], [5, false], 'exactly 5');
        const d = await ok(s, 'query', { sql: 'SELECT id FROM items', limit: 1000 });
        expect(d.structuredContent.row_count === 25 && /limit 1000 is above max_rows = 25/.test(textOf(d)),
            textOf(d).slice(0, 200));
        return 'limit 5, max_rows 25';
    });
    await check(s, 'query: max_bytes cuts the result', async () => {
        const r = await ok(s, 'tiny_query', { sql: 'SELECT * FROM items ORDER BY id' });
        const { row_count: n, truncated } = r.structuredContent;
        expect(truncated === true && n > 0 && n < 30, `row_count ${n}, truncated ${truncated}`);
        expect(/larger than max_bytes = 1024 bytes/.test(textOf(r)), textOf(r).slice(-300));
        return `${n} rows fit in 1024 bytes`;
    });
    await check(s, 'query: PRAGMA that reads', async () => {
        const r = await ok(s, 'query', { sql: 'SELECT name FROM pragma_table_info(?1) ORDER BY cid', params: ['items'] });
        expectEqual(r.structuredContent.rows, [['id'], ['name'], ['price'], ['data']], 'columns');
        const v = await ok(s, 'query', { sql: 'PRAGMA user_version' });
        expectEqual(v.structuredContent.rows, [[0]], 'user_version');
        return 'table_info, user_version';
    });
    await resourcesChecks(s, shop);
}

async function resourcesChecks(s) {
    let resources = [];
    await check(s, 'resources/list: one per table and view, and the overview', async () => {
        const r = await s.client.listResources({}, { timeout: CALL_MS });
        resources = r.resources;
        const mine = resources.filter((x) => x.uri.startsWith('sqlite://ro/')).map((x) => x.uri).sort();
        expectEqual(mine, ['sqlite://ro/cheap/schema', 'sqlite://ro/items/schema',
            'sqlite://ro/odd%20name%2F%25/schema', 'sqlite://ro/tables'], 'uris');
        const tiny = resources.filter((x) => x.uri.startsWith('sqlite://tiny/'));
        expect(tiny.length === 4, `tiny has ${tiny.length} resources`);
        const items = resources.find((x) => x.uri === 'sqlite://ro/items/schema');
        expect(items.name === 'items' && items.mimeType === 'text/markdown', short(items));
        return `${resources.length} resources`;
    });
    await check(s, 'resources/read: every schema', async () => {
        for (const res of resources) {
            const r = await s.client.readResource({ uri: res.uri }, { timeout: CALL_MS });
            expect(r.contents.length === 1 && r.contents[0].uri === res.uri, `contents of ${res.uri}`);
            expect(r.contents[0].text.length > 0, `${res.uri} is empty`);
        }
        const items = (await s.client.readResource({ uri: 'sqlite://ro/items/schema' })).contents[0].text;
        const want = [
            '# Table `items`', 'Rows: 30', '| `id` | `INTEGER` | no |  | 1 |',
            '| `name` | `TEXT` | yes |  |  |', '| `price` | `REAL` | yes | `0` |  |',
            '- `items_name` on (`name`)', '```sql\nCREATE TABLE items (',
        ];
        for (const w of want) expect(items.includes(w), `items schema lacks ${JSON.stringify(w)}:\n${items}`);
        const view = (await s.client.readResource({ uri: 'sqlite://ro/cheap/schema' })).contents[0].text;
        expect(view.includes('# View `cheap`') && view.includes('Rows: 5') && view.includes('CREATE VIEW cheap'),
            `view schema:\n${view}`);
        const odd = (await s.client.readResource({ uri: 'sqlite://ro/odd%20name%2F%25/schema' })).contents[0].text;
        expect(odd.includes('# Table `odd name/%`') && odd.includes('Rows: 0'), `odd:\n${odd}`);
        const all = (await s.client.readResource({ uri: 'sqlite://ro/tables' })).contents[0].text;
        expect(all.includes('| `items` | table | 30 | sqlite://ro/items/schema |'), `overview:\n${all}`);
        return `${resources.length} read`;
    });
    await check(s, 'resources/read: an unknown table', async () => {
        try {
            await s.client.readResource({ uri: 'sqlite://ro/nosuch/schema' }, { timeout: CALL_MS });
        } catch (err) {
            expect(/-32002|not found/i.test(String(err.code) + err.message), errorText(err));
            return 'resource not found';
        }
        throw new Error('read of an unknown table succeeded');
    });
}

// Each: the arguments, the patterns its message must match.
const HOSTILE_RO = [
    ['INSERT', { sql: "INSERT INTO items (name) VALUES ('x')" }, /^refused: INSERT into items is not allowed: the database is served read-only/],
    ['UPDATE', { sql: 'UPDATE items SET price = 0' }, /^refused: UPDATE of items is not allowed: .*read-only/],
    ['DELETE', { sql: 'DELETE FROM items' }, /^refused: DELETE from items is not allowed: .*read-only/],
    ['DROP TABLE', { sql: 'DROP TABLE items' }, /^refused: DROP TABLE items is not allowed: .*read-only/],
    ['CREATE TABLE', { sql: 'CREATE TABLE x (y)' }, /^refused: CREATE TABLE x is not allowed: .*read-only/],
    ['CREATE TEMP TABLE', { sql: 'CREATE TEMP TABLE x (y)' }, /^refused: CREATE TEMP TABLE x is not allowed/],
    ['PRAGMA query_only = OFF', { sql: 'PRAGMA query_only = OFF' }, /^refused: PRAGMA query_only = OFF is not allowed: the connection's settings are fixed/],
    ['PRAGMA writable_schema = ON', { sql: 'PRAGMA writable_schema = ON' }, /^refused: PRAGMA writable_schema is not allowed: only PRAGMAs that read/],
    ['PRAGMA user_version = 5', { sql: 'PRAGMA user_version = 5' }, /^refused: PRAGMA user_version = 5 is not allowed: .*read-only/],
    ['ATTACH /etc/passwd', { sql: "ATTACH '/etc/passwd' AS p" }, /^refused: ATTACH is not allowed: it would open another database file/],
    ['SELECT load_extension', { sql: "SELECT load_extension('/tmp/evil.so')" }, /^refused: the function load_extension\(\) is not allowed: loading an extension would run native code/],
    ['two statements', { sql: 'SELECT 1; DROP TABLE items' }, /^refused: only one SQL statement may run per call/, /line 1, column 11/, /\n {4}SELECT 1; DROP TABLE items\n {14}\^/],
    ['BEGIN', { sql: 'BEGIN' }, /^refused: BEGIN is not allowed: each call runs as a transaction of its own/],
    ['syntax error', { sql: 'SELEC * FROM items' }, /^SQL error: near "SELEC": syntax error \(line 1, column 1\)/],
    ['unknown column', { sql: 'SELECT *\nFROM items\nWHERE nope = 1' }, /^SQL error: no such column: nope \(line 3, column 7\)/],
    ['empty SQL', { sql: ' -- only a comment\n' }, /^refused: the SQL holds no statement/],
    ['params: nested value', { sql: 'SELECT ?1', params: [[1]] }, /params\/0/],
    ['params: too few', { sql: 'SELECT ?, ?', params: [1] }, /^refused: the statement has 2 placeholders \(\?1, \?2\) but params gives values for 1 of them/],
    ['params: too many', { sql: 'SELECT ?', params: [1, 2] }, /^refused: params has more values than the statement has placeholders/],
    ['params: missing', { sql: 'SELECT * FROM items WHERE id = ?' }, /^refused: the statement has placeholders \(\?1\) but no params were given/],
    ['params: unknown name', { sql: 'SELECT :a', params: { a: 1, b: 2 } }, /^refused: params gives "b", which is not a placeholder of the statement \(it has: :a\)/],
    ['params: name not given', { sql: 'SELECT :a, :b', params: { a: 1 } }, /^refused: the statement uses the placeholder :b, which params does not give/],
    ['params: names for ?', { sql: 'SELECT ?', params: { a: 1 } }, /^refused: params gives "a", which is not a placeholder/],
];

async function readOnlyHostile(s, shop) {
    const before = sha256(shop);
    for (const [name, args, ...patterns] of HOSTILE_RO) {
        await check(s, `refused: ${name}`, async () => {
            await refused(s, 'query', args, ...patterns);
            await stillServing(s);
        });
    }
    await check(s, 'refused: ATTACH another database', async () => {
        const other = path.join(tmp, 'other.db');
        await refused(s, 'query', { sql: 'ATTACH ?1 AS o', params: [other] }, /^refused: ATTACH is not allowed/);
        await refused(s, 'query', { sql: 'SELECT * FROM o.secret' }, /no such table: o.secret/);
        await stillServing(s);
    });
    await check(s, 'refused: the path of the database file', async () => {
        const why = /^refused: PRAGMA database_list is not allowed: it would show where the database file is on the server; this server serves one database, main, whose tables the resource sqlite:\/\/ro\/tables lists$/;
        for (const sql of ['PRAGMA database_list', 'PRAGMA main.database_list', 'SELECT file FROM pragma_database_list',
            'SELECT * FROM main.pragma_database_list()', 'WITH d AS (SELECT * FROM pragma_database_list) SELECT file FROM d']) {
            const text = await refused(s, 'query', { sql }, why);
            expect(!text.includes(tmp), `the message shows the path: ${text}`);
        }
        await stillServing(s);
        return '5 forms';
    });
    await check(s, 'refused: VACUUM INTO a new file', async () => {
        const out = path.join(tmp, 'copy.db');
        // SQLite skips blanks, comments, empty statements and a byte-order mark before a
        // statement, and so must the check.
        for (const lead of ['', ';', ' ;\n; ', '\ufeff', '\ufeff;\ufeff ', '/* a */ ; -- b\n', 'EXPLAIN ', '\ufeffEXPLAIN ;']) {
            const sql = `${lead}VACUUM INTO '${out}'`;
            const r = await call(s, 'query', { sql });
            const text = textOf(r);
            if (lead === '\ufeffEXPLAIN ;') {
                // ";" ends the EXPLAIN: a second statement, refused as such.
                expect(r.isError && /^SQL error: near ";": syntax error/.test(text), `${JSON.stringify(sql)}: ${short(text, 200)}`);
                continue;
            }
            expect(r.isError && /^refused: VACUUM is not allowed: VACUUM INTO would write a new database file/.test(text),
                `${JSON.stringify(sql)}: ${short(text, 200)}`);
        }
        expect(!fs.existsSync(out), 'copy.db was written');
        const bom = await ok(s, 'query', { sql: '\ufeff;SELECT 1 AS one' });
        expectEqual(bom.structuredContent.rows, [[1]], 'a statement after a byte-order mark');
        await stillServing(s);
        return '7 ways to write it';
    });
    await check(s, 'injection through params stays data', async () => {
        const evil = "'; DROP TABLE items; --";
        const r = await ok(s, 'query', { sql: 'SELECT count(*), ?1 FROM items WHERE name = ?1', params: [evil] });
        expectEqual(r.structuredContent.rows, [[0, evil]], 'rows');
        const n = await ok(s, 'query', { sql: 'SELECT :x AS x', params: { x: "1); DELETE FROM items; --" } });
        expectEqual(n.structuredContent.rows, [['1); DELETE FROM items; --']], 'named');
        await stillServing(s);
    });
    await check(s, 'recursive CTE: the row limit stops it', async () => {
        const r = await ok(s, 'query', {
            sql: 'WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT x FROM c',
        });
        expectEqual([r.structuredContent.row_count, r.structuredContent.truncated, r.structuredContent.rows[24]],
            [25, true, [25]], 'rows');
    });
    await check(s, 'recursive CTE: the time limit stops it', async () => {
        const t0 = Date.now();
        await refused(s, 'query', {
            sql: 'WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c',
        }, /^stopped: the statement ran longer than timeout_ms = 1500 ms/);
        const ms = Date.now() - t0;
        expect(ms >= 1400 && ms < 5000, `took ${ms} ms`);
        await stillServing(s);
        return `${ms} ms`;
    });
    await check(s, 'huge value: the length limit stops it', async () => {
        await refused(s, 'query', { sql: 'SELECT length(zeroblob(100000000))' }, /^SQL error: string or blob too big/);
        await stillServing(s);
    });
    await check(s, 'cancelled query stops at once', async () => {
        const ac = new AbortController();
        const slow = call(s, 'query', {
            sql: 'WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c',
        }, { signal: ac.signal }).catch((err) => err);
        await new Promise((r) => setTimeout(r, 200));
        const t0 = Date.now();
        ac.abort();
        await slow;
        await ok(s, 'query', { sql: 'SELECT 1' });
        const ms = Date.now() - t0;
        expect(ms < 1000, `the next call waited ${ms} ms: the cancelled statement kept running`);
        return `next call after ${ms} ms`;
    });
    await check(s, 'the database file is unchanged', async () => {
        expect(sha256(shop) === before, 'shop.db changed');
    });
    await check(s, 'a locked database: busy timeout, then a clear error', async () => {
        const holder = await lockDatabase(shop);
        try {
            const t0 = Date.now();
            await refused(s, 'query', { sql: 'SELECT count(*) FROM items' },
                /^SQL error: database is locked \(another connection held a lock on the database for longer than timeout_ms = 1500 ms; try again\)/);
            const ms = Date.now() - t0;
            expect(ms >= 1400 && ms < 5000, `took ${ms} ms`);
        } finally {
            await holder.release();
        }
        await stillServing(s);
    });
}

// --- Memory and size. -------------------------------------------------------------------------

// The peak resident memory of a process, in MiB (VmHWM of /proc/PID/status).
function peakMiB(pid) {
    const m = /^VmHWM:\s+(\d+) kB/m.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
    if (!m) throw new Error(`no VmHWM in /proc/${pid}/status`);
    return Number(m[1]) / 1024;
}

// n copies of a select-list term.
const terms = (n, term) => Array.from({ length: n }, (_, i) => `${term} AS c${i + 1}`).join(', ');

const COUNT_FOREVER = '(WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c)';

// The read-only server has max_bytes 1048576 (ro) and 1024 (tiny), timeout_ms 1500; SQLite's
// memory for the process is the two instances' shares, 20 MiB each. Each query must end well
// before the time limit, with a clear error or a truncated result, and the server's peak
// memory must stay within 64 MiB of what it was before them.
const TOOBIG = /^SQL error: string or blob too big \(here one string, blob or row may hold at most max_bytes = 1048576 bytes, the most one result may hold, and one statement's text at most 100 KiB; make the value or the statement smaller\)$/;
const NOMEM = /^SQL error: out of memory \(SQLite may use 40 MiB of memory in this server for all the databases it serves, and the statement needed more/;
const HUGE = [
    ['40 zeroblobs of 16 MB', 'query', { sql: `SELECT ${terms(40, 'zeroblob(16000000)')}` }, TOOBIG],
    ['a 100 MB text from printf()', 'query', { sql: "SELECT printf('%.*c', 100000000, 'x') AS t" }, 'NULL'],
    ['a 100 MB group_concat()', 'query', {
        sql: "SELECT group_concat(printf('%.*c', 1000, 'x')) FROM (WITH RECURSIVE c(x) AS " +
            '(SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 100000) SELECT x FROM c)',
    }, TOOBIG],
    ['100 randomblobs of 1 MB', 'query', { sql: `SELECT ${terms(100, 'randomblob(1000000)')}` }, NOMEM],
    ['60 printf() texts of 1 MB', 'query', { sql: `SELECT ${terms(60, "printf('%.*c', 1000000, 'x')")}` }, NOMEM],
    ['36 MB held while it runs', 'query', { sql: `SELECT ${terms(36, 'randomblob(1000000)')}, ${COUNT_FOREVER} AS n` },
        /^stopped: the statement held more than 20 MiB of memory, this database's share, while SQLite's memory in this server \(40 MiB for all the databases it serves\) was nearly used up; select fewer or smaller values$/],
    ['40 zeroblobs of 1 MB, max_bytes 1024', 'tiny_query', { sql: `SELECT ${terms(40, 'zeroblob(1000000)')}` },
        /^\(0 rows shown, truncated: in the next row, column "c1" holds a blob of 1000000 bytes, larger than max_bytes = 1024 bytes, the most one result may hold; select part of it \(substr\(\), length\(\)\) instead\)$/m],
    ['a 2 MB zeroblob, max_bytes 1024', 'tiny_query', { sql: 'SELECT zeroblob(2000000)' },
        /^SQL error: string or blob too big \(here one string, blob or row may hold at most 1048576 bytes: max_bytes = 1024, raised to 1 MiB for SQLite's own reads, and one statement's text at most 100 KiB/],
    ['a 1 MB text, max_bytes 1024', 'tiny_query', { sql: "SELECT 1 AS n, printf('%.*c', 1000000, 'x') AS t" },
        /^\(0 rows shown, truncated: in the next row, column "t" holds a text of 1000000 bytes, larger than max_bytes = 1024 bytes/m],
];

async function readOnlyMemory(s) {
    const pid = s.transport.pid;
    const start = peakMiB(pid);
    for (const [name, tool, args, want] of HUGE) {
        await check(s, `huge result: ${name}`, async () => {
            const t0 = Date.now();
            const r = await call(s, tool, args);
            const ms = Date.now() - t0;
            const text = textOf(r);
            if (want === 'NULL') {
                // SQLite's printf() gives NULL when its text would pass the length limit.
                expect(!r.isError, `failed: ${short(text, 300)}`);
                expectEqual(r.structuredContent.rows, [[null]], 'rows');
            } else if (want.flags.includes('m')) {
                expect(!r.isError, `failed: ${short(text, 300)}`);
                expectEqual([r.structuredContent.row_count, r.structuredContent.truncated], [0, true], 'row_count, truncated');
                expect(want.test(text), `text ${short(text, 400)} does not match ${want}`);
            } else {
                expect(r.isError === true, `not a tool error: ${short(text, 300)}`);
                expect(want.test(text), `message ${short(text, 400)} does not match ${want}`);
            }
            expect(ms < 1200 * SLOW, `took ${ms} ms (timeout_ms is 1500)`);
            const grown = peakMiB(pid) - start;
            if (!TSAN) expect(grown < 64, `the server's peak memory grew by ${grown.toFixed(1)} MiB`);
            await stillServing(s);
            return `${ms} ms, peak +${grown.toFixed(1)} MiB`;
        });
    }
}

// Holds an exclusive lock on db with the sqlite3 shell until release().
async function lockDatabase(db) {
    const child = spawn('sqlite3', [db], { stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d) => { out += d; });
    child.stdin.write("BEGIN EXCLUSIVE;\nSELECT 'locked';\n");
    const locked = await waitFor(() => out.includes('locked'));
    const exited = new Promise((r) => child.once('close', r));
    const release = async () => {
        child.stdin.end('ROLLBACK;\n');
        let timer;
        await Promise.race([exited, new Promise((r) => { timer = setTimeout(r, WAIT_MS); })]);
        clearTimeout(timer);
        child.kill('SIGKILL');
    };
    if (!locked) {
        await release();
        throw new Error('the sqlite3 shell did not take the lock');
    }
    return { release };
}

async function reloadCheck(s, shop) {
    await check(s, 'SIGHUP: a new table shows up as a resource', async () => {
        sqlite3(shop, 'CREATE TABLE added (z INTEGER);');
        const seen = s.listChanged;
        process.kill(s.transport.pid, 'SIGHUP');
        expect(await waitFor(() => s.listChanged > seen), 'no resources/list_changed after SIGHUP');
        const r = await s.client.listResources({}, { timeout: CALL_MS });
        const uris = r.resources.map((x) => x.uri);
        expect(uris.includes('sqlite://ro/added/schema'), `uris: ${short(uris, 400)}`);
        await stillServing(s);
        return 'listed after the reload';
    });
    await check(s, 'SIGHUP: SQLite\'s memory is still the two instances\' shares', async () => {
        // The rebuilt instances added their shares, and the old ones, once shut down, took
        // theirs back: the limit is 40 MiB again, neither 0 nor 80.
        const sql = `SELECT ${terms(100, 'randomblob(1000000)')}`;
        const end = Date.now() + WAIT_MS;
        let text = textOf(await call(s, 'query', { sql }));
        while (!NOMEM.test(text) && Date.now() < end) {
            await new Promise((r) => setTimeout(r, 100));
            text = textOf(await call(s, 'query', { sql }));
        }
        expect(NOMEM.test(text), `message ${short(text, 300)} does not match ${NOMEM}`);
        await stillServing(s);
    });
    await check(s, 'a dropped table: not found, and the list follows', async () => {
        sqlite3(shop, 'DROP TABLE added;');
        const seen = s.listChanged;
        try {
            await s.client.readResource({ uri: 'sqlite://ro/added/schema' }, { timeout: CALL_MS });
            throw new Error('the read of a dropped table succeeded');
        } catch (err) {
            expect(err.code === -32002 && /the table added no longer exists in shop.db/.test(err.message),
                errorText(err));
        }
        expect(await waitFor(() => s.listChanged > seen), 'no resources/list_changed after the drop');
        const r = await s.client.listResources({}, { timeout: CALL_MS });
        expect(!r.resources.some((x) => x.uri === 'sqlite://ro/added/schema'), 'added is still listed');
        await stillServing(s);
        return 'gone from the list without a reload';
    });
}

async function readOnlySuite() {
    const shop = path.join(tmp, 'shop.db');
    sqlite3(shop, SHOP_SQL);
    sqlite3(path.join(tmp, 'other.db'), "CREATE TABLE secret (x); INSERT INTO secret VALUES ('s3cret');");
    const ini = writeIni('ro.ini', [
        section('ro', { database: 'shop.db', max_rows: 25, timeout_ms: 1500, cell_width: 16 }),
        section('tiny', { prefix: 'tiny', database: 'shop.db', max_bytes: 1024 }),
        section('gone', { prefix: 'gone', database: 'nope.db' }),
    ]);
    let s;
    const connected = await check(null, 'read-only server starts', async () => {
        s = await connect(ini);
        return `server ${s.client.getServerVersion()?.name}`;
    });
    if (!connected) return;
    await readOnlyBasics(s, shop);
    await readOnlyHostile(s, shop);
    await readOnlyMemory(s);
    await reloadCheck(s, shop);
    await close(s, 'read-only');
}

// --- The writable server. --------------------------------------------------------------------

const HOSTILE_RW = [
    ['query that writes', 'query', { sql: "INSERT INTO items (name) VALUES ('x')" }, /^refused: INSERT into items is not allowed in query, which only reads: use the execute tool/],
    ['execute that reads', 'execute', { sql: 'SELECT * FROM items' }, /^refused: execute runs statements that change the database, and this one only reads; use the query tool/],
    ['execute two statements', 'execute', { sql: "INSERT INTO items (name) VALUES ('x'); DROP TABLE items" }, /^refused: only one SQL statement may run per call/],
    ['execute BEGIN', 'execute', { sql: 'BEGIN IMMEDIATE' }, /^refused: BEGIN is not allowed/],
    ['execute SAVEPOINT', 'execute', { sql: 'SAVEPOINT a' }, /^refused: SAVEPOINT, RELEASE and ROLLBACK TO are not allowed/],
    ['execute ATTACH', 'execute', { sql: "ATTACH 'x.db' AS x" }, /^refused: ATTACH is not allowed/],
    ['execute PRAGMA journal_mode', 'execute', { sql: 'PRAGMA journal_mode = OFF' }, /^refused: PRAGMA journal_mode = OFF is not allowed/],
    ['execute PRAGMA writable_schema', 'execute', { sql: 'PRAGMA writable_schema = 1' }, /^refused: PRAGMA writable_schema is not allowed/],
    ['execute write of sqlite_master', 'execute', { sql: "UPDATE sqlite_master SET sql = 'x'" }, /^SQL error: table sqlite_master may not be modified/],
    ['execute VACUUM', 'execute', { sql: 'VACUUM' }, /^refused: VACUUM is not allowed/],
    ['execute ;VACUUM', 'execute', { sql: ';VACUUM' }, /^refused: VACUUM is not allowed/],
    ['execute BOM VACUUM', 'execute', { sql: '\ufeffVACUUM' }, /^refused: VACUUM is not allowed/],
    ['execute comment ; VACUUM INTO', 'execute', { sql: "/* x */ ;\n VACUUM INTO 'rw-copy.db'" }, /^refused: VACUUM is not allowed/],
    ['execute constraint', 'execute', { sql: 'INSERT INTO items (id, name) VALUES (1, ?1)', params: ['dup'] }, /^SQL error: UNIQUE constraint failed: items.id/],
    ['execute load_extension', 'execute', { sql: "UPDATE items SET name = load_extension('x')" }, /^refused: the function load_extension\(\) is not allowed/],
];

async function writableSuite() {
    const rw = path.join(tmp, 'rw.db');
    sqlite3(rw, 'CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT NOT NULL);');
    const ini = writeIni('rw.ini', [
        section('rw', { database: 'rw.db', writable: 'yes' }),
        section('fresh', { prefix: 'fresh', database: 'fresh.db', writable: 'yes', create: 'yes' }),
    ]);
    let s;
    const connected = await check(null, 'writable server starts', async () => {
        s = await connect(ini);
        const tools = (await listTools(s)).map((t) => t.name).sort();
        expectEqual(tools, ['execute', 'fresh_execute', 'fresh_query', 'query'], 'tools');
        const ex = s.tools.get('execute');
        expect(ex.annotations?.destructiveHint === true && ex.annotations?.readOnlyHint === false,
            `execute annotations ${short(ex.annotations)}`);
        expect(fs.existsSync(path.join(tmp, 'fresh.db')), 'create = yes did not create fresh.db');
        return tools.join(', ');
    });
    if (!connected) return;
    await check(s, 'execute inserts, query sees them', async () => {
        const a = await ok(s, 'execute', { sql: 'INSERT INTO items (name) VALUES (?1), (?2)', params: ['ant', 'bee'] });
        expectEqual(a.structuredContent, { changes: 2, last_insert_rowid: 2 }, 'insert');
        expect(/^2 rows changed; last insert rowid 2/.test(textOf(a)), textOf(a));
        const b = await ok(s, 'execute', { sql: 'INSERT INTO items (name) VALUES (:n) RETURNING id, name', params: { n: 'cat' } });
        expectEqual([b.structuredContent.changes, b.structuredContent.rows], [1, [[3, 'cat']]], 'returning');
        const q = await ok(s, 'query', { sql: 'SELECT id, name FROM items ORDER BY id' });
        expectEqual(q.structuredContent.rows, [[1, 'ant'], [2, 'bee'], [3, 'cat']], 'rows');
        const u = await ok(s, 'execute', { sql: 'UPDATE items SET name = upper(name) WHERE id < ?', params: [3] });
        expectEqual(u.structuredContent.changes, 2, 'update');
        const evil = "x'); DROP TABLE items; --";
        await ok(s, 'execute', { sql: 'INSERT INTO items (name) VALUES (?)', params: [evil] });
        const e = await ok(s, 'query', { sql: 'SELECT name FROM items WHERE id = 4' });
        expectEqual(e.structuredContent.rows, [[evil]], 'injected text kept as data');
        return 'insert, returning, update';
    });
    for (const [name, tool, args, ...patterns] of HOSTILE_RW) {
        await check(s, `refused: ${name}`, async () => {
            await refused(s, tool, args, ...patterns);
            await stillServing(s, 'query', 4);
        });
    }
    await check(s, 'execute PRAGMA user_version', async () => {
        await ok(s, 'execute', { sql: 'PRAGMA user_version = 3' });
        const r = await ok(s, 'query', { sql: 'PRAGMA user_version' });
        expectEqual(r.structuredContent.rows, [[3]], 'user_version');
    });
    await check(s, 'execute CREATE TABLE: the resource list follows', async () => {
        const seen = s.listChanged;
        const r = await ok(s, 'execute', { sql: 'CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT)' });
        expectEqual(r.structuredContent.changes, 0, 'changes');
        expect(await waitFor(() => s.listChanged > seen), 'no resources/list_changed after CREATE TABLE');
        const list = await s.client.listResources({}, { timeout: CALL_MS });
        expect(list.resources.some((x) => x.uri === 'sqlite://rw/notes/schema'), 'notes is not listed');
        await ok(s, 'execute', { sql: "INSERT INTO notes (body) VALUES ('after the rebuild')" });
        const n = await ok(s, 'query', { sql: 'SELECT body FROM notes' });
        expectEqual(n.structuredContent.rows, [['after the rebuild']], 'notes');
        return 'listed, and the rebuilt instance serves';
    });
    await check(s, 'fresh database made by create = yes', async () => {
        await ok(s, 'fresh_execute', { sql: 'CREATE TABLE t (x)' });
        await ok(s, 'fresh_execute', { sql: 'INSERT INTO t VALUES (?)', params: [1.25] });
        const r = await ok(s, 'fresh_query', { sql: 'SELECT x FROM t' });
        expectEqual(r.structuredContent.rows, [[1.25]], 'rows');
    });
    await close(s, 'writable');
    await check(null, 'writes are on disk', async () => {
        const out = sqlite3(rw, 'SELECT group_concat(name, \',\') FROM items;').trim();
        expectEqual(out, "ANT,BEE,cat,x'); DROP TABLE items; --", 'items on disk');
    });
}

// --- The default sample. ---------------------------------------------------------------------

async function sampleSuite() {
    const ini = writeIni('sample.ini', [section('sample', { database: sampleDb })]);
    let s;
    const connected = await check(null, 'sample: server starts', async () => {
        expect(fs.existsSync(sampleDb), `${sampleDb} is missing: run make`);
        s = await connect(ini);
        await listTools(s);
        return sampleDb;
    });
    if (!connected) return;
    await check(s, 'sample: tables and views as resources', async () => {
        const r = await s.client.listResources({}, { timeout: CALL_MS });
        const names = r.resources.map((x) => x.name).sort();
        expectEqual(names, ['authors', 'book_sales', 'books', 'covers', 'customers', 'order_lines',
            'order_totals', 'orders', 'tables'], 'names');
        for (const res of r.resources) await s.client.readResource({ uri: res.uri }, { timeout: CALL_MS });
        return `${names.length} read`;
    });
    await check(s, 'sample: a join with a param', async () => {
        const r = await ok(s, 'query', {
            sql: 'SELECT b.title, b.year FROM books AS b JOIN authors AS a ON a.id = b.author_id ' +
                'WHERE a.name = :author ORDER BY b.year',
            params: { author: 'Ursula K. Le Guin' },
        });
        expectEqual(r.structuredContent.rows, [['A Wizard of Earthsea', 1968],
            ['The Left Hand of Darkness', 1969], ['The Dispossessed', 1974]], 'rows');
    });
    await check(s, 'sample: the views', async () => {
        const t = await ok(s, 'query', { sql: 'SELECT order_id, customer, total FROM order_totals ORDER BY total DESC LIMIT 1' });
        expectEqual(t.structuredContent.rows, [[11, 'Kofi Mensah', 84.99]], 'order_totals');
        const b = await ok(s, 'query', { sql: 'SELECT title, sold FROM book_sales WHERE book_id = 11' });
        expectEqual(b.structuredContent.rows, [['The Art of Computer Programming, Vol. 1', 0]], 'cancelled order not sold');
    });
    await close(s, 'sample');
}

async function main() {
    const run = (async () => {
        await readOnlySuite();
        await writableSuite();
        await sampleSuite();
    })();
    const r = await capped(run, SUITE_MS);
    if (r === CAPPED) report(false, 'time limit', `the suite ran longer than ${SUITE_MS / 1000} s`);
}

try {
    await main();
} catch (err) {
    report(false, 'main', err.stack || String(err));
} finally {
    fs.rmSync(tmp, { recursive: true, force: true });
}
summary();
process.exit(tally.exitCode);
