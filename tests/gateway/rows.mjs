#!/usr/bin/env node
// How an upstream's lists become rows, and what of the upstream reaches mcph's stderr, with
// tests/gateway/fake-server.mjs behind mcph (modes hostile-rows, stderr-noise, stderr-flood):
// a name holding \u0000 (cJSON cuts it) left out and said, never served cut; a name with a
// newline unable to forge a log line; a tool that requires tasks left out and said, one that
// may use them served; 4,100 tools: 4,096 served and one line for the rest; the server's
// stderr lines tagged with the section, escaped and cut at a bounded length; a server that
// floods its stderr neither blocks mcph nor grows it; a server's setsid() child ends with mcph
// (at the end of input, and after SIGKILL); the server's instructions passed on after its title.
// `make test-gateway` runs it.
//
//   node tests/gateway/rows.mjs [BINARY]      BINARY: build/mcph
//
// Prints "ok gateway ..." / "FAIL gateway ...: why" lines, then "gateway rows: N passed, N
// failed"; exits 1 on a failure. Every mcph and server started is killed at the end.

import path from 'node:path';
import fs from 'node:fs';
import { expect, done, report } from '../lib/check.mjs';
import {
    workspace, gatewayIni, fakeCommand, startSession, endSession, endSessions, forgetSession, step, killMarker, sleep,
    waitFor, pidsByMarker, short,
} from './common.mjs';

const LIMIT_MS = 120000;
const RUN = `${process.pid}`;
const markers = [];
const marker = (name) => {
    const m = `rows-${name}-${RUN}`;
    markers.push(m);
    return m;
};

const lines = (text) => text.split('\n').filter((l) => l !== '');

async function hostileRows(mcph) {
    const mk = marker('hostile');
    const ws = workspace('rows-hostile');
    const ini = gatewayIni(ws, { fake: { command: fakeCommand('hostile-rows', mk) } });
    let s;
    let tools = [];
    await step('rows: a server with 5,110 tools, NUL, newline and space names, tasks: mcph starts and lists', async () => {
        s = await startSession(mcph, ini, { initMs: 60000 });
        tools = await s.list('tools');
        return `${tools.length} tools`;
    }, () => s);
    if (!s) return;
    await step("rows: the server's instructions reach the client after its title, headed by the section", async () => {
        const got = s.initResult.instructions;
        const want = '[plugin.fake]\nFake Server: Call echo first.\nmcph: error: forged by instructions';
        expect(got === want, `initialize's instructions: ${JSON.stringify(got)}`);
        expect(!/^mcph: error: forged by instructions/m.test(s.stderr), 'a line of the instructions reached stderr raw');
        return JSON.stringify(got);
    }, () => s);
    const names = new Set(tools.map((t) => t.name));
    const err = s.stderr;
    await step('rows: a tool name holding \\u0000 is left out and said, never served cut', async () => {
        expect(!names.has('fake_nul'), 'the cut name fake_nul is served');
        expect(![...names].some((n) => n.includes('nul') || n.includes('\u0000')), `a nul tool is served: ${[...names].filter((n) => n.includes('nul'))}`);
        const said = lines(err).filter((l) => /tools\/list: 1 tool left out, for text holding a NUL character \(\\u0000\).*: 'nul'$/.test(l));
        expect(said.length === 1, `no one line naming it on stderr: ${lines(err).filter((l) => l.includes('NUL')).join(' | ') || '(none)'}`);
        return said[0];
    }, () => s);
    await step('rows: a result holding \\u0000 is refused naming it, never passed on cut', async () => {
        const r = await s.call('tools/call', { name: 'fake_zero_text', arguments: {} });
        const text = JSON.stringify(r);
        expect(!text.includes('"before"'), `passed on cut: ${short(text, 200)}`);
        expect(/U\+0000/.test(text), `the refusal does not name U+0000: ${short(text, 200)}`);
        return short(text, 160);
    }, () => s);
    await step('rows: a resource URI holding \\u0000 is left out and said', async () => {
        const uris = (await s.list('resources')).map((r) => r.uri);
        expect(!uris.some((u) => u.startsWith('fake://nul')), `served: ${uris}`);
        expect(/resources\/list: 1 resource left out, for text holding a NUL character/.test(err), 'not said on stderr');
        return uris.join(', ');
    }, () => s);
    await step('rows: a newline in a tool name cannot forge a line of mcph\'s log', async () => {
        const forged = lines(err).filter((l) => l.startsWith('mcph: error: forged'));
        expect(forged.length === 0, `a forged line: ${forged[0]}`);
        const escaped = lines(err).filter((l) => l.includes('evil\\nmcph: error: forged line'));
        expect(escaped.length >= 1, 'the refusal does not show the name escaped');
        return escaped[0];
    }, () => s);
    await step('rows: a tool that requires tasks is left out with one line; one that may use them is served', async () => {
        expect(!names.has('fake_needs_task'), 'fake_needs_task is listed, and calls to it would fail');
        expect(names.has('fake_may_task'), 'fake_may_task is not listed');
        const said = lines(err).filter((l) => /tools\/list: 1 tool left out, for requiring tasks .*: 'needs_task'$/.test(l));
        expect(said.length === 1, `not said once: ${said.length}`);
        return said[0];
    }, () => s);
    await step('rows: 1,000 tools with names mcph cannot serve: one line, not 1,000', async () => {
        const each = lines(err).filter((l) => /tool name 'bad name/.test(l));
        expect(each.length === 0, `${each.length} lines, one a tool, e.g. ${each[0]}`);
        const said = lines(err).filter((l) => /tools\/list: 1001 tools left out, for a name mcph cannot serve.*: .*'bad name 0'.* and more$/.test(l));
        expect(said.length === 1, `not one line for them: ${lines(err).filter((l) => l.includes('cannot serve')).join(' | ').slice(0, 300) || '(none)'}`);
        return said[0].slice(0, 160);
    }, () => s);
    await step('rows: 4,096 tools served of 4,110; one line for the rest, not one each', async () => {
        expect(tools.length === 4096, `${tools.length} tools listed`);
        const each = lines(err).filter((l) => /more than 4096/.test(l));
        expect(each.length === 0, `${each.length} lines of 'more than 4096', e.g. ${each[0]}`);
        const summary = lines(err).filter((l) => /tools\/list: \d+ tools left out, past the 4096/.test(l));
        expect(summary.length === 1, `${summary.length} summary lines`);
        const r = await s.tool('fake_echo', { text: 'still' });
        expect(r.text === 'echo: still', `echo: ${r.text}`);
        return summary[0].slice(0, 160);
    }, () => s);
    await endSession(s);
}

async function stderrNoise(mcph) {
    const mk = marker('noise');
    const ws = workspace('rows-noise');
    const ini = gatewayIni(ws, { noisy: { command: fakeCommand('stderr-noise', mk) } });
    let s;
    await step('stderr: each line of a server is tagged [section], escaped, and cut at a bounded length', async () => {
        s = await startSession(mcph, ini);
        const r = await s.tool('noisy_echo', { text: 'x' });
        expect(r.text === 'echo: x', `echo: ${r.text}`);
        await s.waitFor(() => s.stderr.includes('[noisy] second plain line'), 3000);
        const got = lines(s.stderr);
        const problems = [];
        for (const want of ['[noisy] first plain line', '[noisy] second plain line', '[noisy] before\\rmcph: error: forged \\x1b[31mred']) {
            if (!got.includes(want)) problems.push(`no line '${want}'`);
        }
        if (got.some((l) => l.startsWith('mcph: error: forged') || l.includes('\x1b'))) problems.push('a forged line or a raw escape');
        const long = got.find((l) => l.startsWith('[noisy] xxxx'));
        if (!long) problems.push('no line of the 100 KiB one');
        else if (long.length > 4200 || !long.endsWith('...')) problems.push(`the long line is ${long.length} bytes, ending ${long.slice(-5)}`);
        if (got.filter((l) => l.startsWith('[noisy] xxxx')).length !== 1) problems.push('the long line came out as several lines');
        if (got.some((l) => /^x{10}/.test(l))) problems.push('an untagged piece of the long line');
        return problems.length ? problems : `${got.filter((l) => l.startsWith('[noisy]')).length} tagged lines`;
    }, () => s);
    if (!s) return;
    await step('stderr: a last line without a newline comes out tagged when the server ends', async () => {
        await endSession(s);
        expect(lines(s.stderr).includes('[noisy] the last line, with no newline'), `not there: ${s.stderrTail(3).slice(-300)}`);
        return 'tagged';
    });
}

async function stderrFlood(mcph) {
    const mk = marker('flood');
    const ws = workspace('rows-flood');
    const ini = gatewayIni(ws, { flood: { command: fakeCommand('stderr-flood', mk) } });
    let s;
    await step('stderr: a server flooding its stderr neither blocks calls nor grows mcph', async () => {
        s = await startSession(mcph, ini);
        const slow = [];
        let rss = 0;
        for (let i = 0; i < 20; i++) {
            const t0 = Date.now();
            const r = await s.tool('flood_echo', { text: `${i}` }, 5000);
            expect(r.text === `echo: ${i}`, `call ${i}: ${r.text || JSON.stringify(r.error)}`);
            if (Date.now() - t0 > 1000) slow.push(Date.now() - t0);
            const status = fs.readFileSync(`/proc/${s.child.pid}/status`, 'utf8');
            rss = Math.max(rss, Number(/VmRSS:\s+(\d+)/.exec(status)[1]));
            await sleep(100);
        }
        const tagged = lines(s.stderr.slice(-200000)).filter((l) => l.startsWith('[flood] ffff')).length;
        expect(tagged > 0, 'no flood line on stderr');
        expect(slow.length === 0, `calls took ${slow.join(', ')} ms`);
        expect(rss < 200 * 1024, `mcph's RSS reached ${rss} KiB`);
        s.stderr = '';
        return `20 calls under 1 s; RSS at most ${Math.round(rss / 1024)} MiB`;
    }, () => s);
    if (s) await endSession(s);
}

// A server's detached (setsid) child ends with mcph: at the end of input, and after SIGKILL.
async function setsidChild(mcph) {
    for (const how of ['end of input', 'SIGKILL']) {
        const mk = marker(how === 'SIGKILL' ? 'setsid-kill' : 'setsid-end');
        const grand = `${mk}-grandchild`;
        markers.push(grand);
        const ws = workspace(`rows-${how === 'SIGKILL' ? 'setsid-kill' : 'setsid-end'}`);
        const ini = gatewayIni(ws, { launcher: { command: fakeCommand('setsid-child', mk) } });
        let s;
        await step(`tree: a server's setsid() child ends with mcph (${how})`, async () => {
            s = await startSession(mcph, ini);
            expect(await waitFor(() => pidsByMarker(grand).length === 1, 5000), `the server's setsid child is not running: ${pidsByMarker(grand)}`);
            if (how === 'SIGKILL') {
                s.kill('SIGKILL');
                await s.wait(5000);
                forgetSession(s);
            } else {
                await endSession(s);
            }
            const gone = await waitFor(() => pidsByMarker(grand).length === 0, 3000);
            expect(gone, `the setsid child outlived mcph: ${pidsByMarker(grand)}`);
            expect(await waitFor(() => pidsByMarker(mk).length === 0, 3000), `processes left: ${pidsByMarker(mk)}`);
            return 'gone';
        }, () => s);
    }
}

async function cleanup() {
    endSessions();
    for (const m of markers) killMarker(m);
}

const mcph = path.resolve(process.argv[2] || 'build/mcph');
const watchdog = setTimeout(async () => {
    report(false, 'gateway rows suite', `did not finish within ${LIMIT_MS / 1000} s`);
    await cleanup();
    done('gateway rows');
}, LIMIT_MS);
const t0 = Date.now();
try {
    await hostileRows(mcph);
    await stderrNoise(mcph);
    await stderrFlood(mcph);
    await setsidChild(mcph);
} catch (err) {
    report(false, 'gateway rows suite', `threw: ${err?.stack || err}`);
} finally {
    await cleanup();
    clearTimeout(watchdog);
}
done('gateway rows', ` in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
