// The SSRF guard of url sections (the relay, `mcph --remote SECTION`), inside a network and
// mount namespace of the test's own: the script runs itself again under `unshare --net
// --mount` (as root) or `unshare -rn --mount`, brings lo up, puts 10.1.2.3/32 and
// 169.254.169.254/32 on it and bind-mounts a hosts file of its own on /etc/hosts (localhost,
// and internal.test -> 10.1.2.3). A listener on each address counts the connections it gets,
// so a guard that fails would really connect, and nothing can leave the machine.
// Refused at start, mcph exiting with status 3 (a configuration error), its stderr naming the
// section, and no connection seen; each time the control, the same section with the allowance
// (allow_http, or an allow_networks CIDR holding the address) connects to the listener:
//   - an http:// URL without allow_http (https is the default);
//   - 127.0.0.1, [::1], 10.1.2.3, 169.254.169.254 and [::ffff:127.0.0.1] without
//     allow_networks;
//   - a hostname resolving to loopback (localhost) or to 10.1.2.3 (internal.test);
//   - a redirect (307) from an allowed address to 10.1.2.3, allowed too: never followed, the
//     redirector is asked, the listener it points to sees nothing.
// Accepted: an upstream mcph on 10.1.2.3 with allow_networks = 10.0.0.0/8, by address and by
// the name internal.test: tools listed and a call answered.
//
//   node tests/remote/ssrf.mjs [build/mcph]

import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { check, report, done } from '../lib/check.mjs';
import { Proc, describeExit } from '../lib/proc.mjs';
import { startSession, endSession } from '../gateway/common.mjs';
import {
    ROOT, binary, slowFactor, workspace, upstreamIni, frontIni, startUpstream,
    refusedAtStart, refusalLine, oneLine, stderrProblems, EXIT_CONFIG, short, runSuite } from './common.mjs';

const SCRIPT = fileURLToPath(import.meta.url);
const INSIDE = 'MCPH_REMOTE_SSRF_INSIDE';
const HOSTS = 'MCPH_REMOTE_SSRF_HOSTS';
const mcph = binary();
const SLOW = slowFactor(mcph);
const LIMIT_MS = 120000 * SLOW;
const PRIVATE = '10.1.2.3';
const METADATA = '169.254.169.254';
// What a refusal's message must hold besides the section's name: that it was refused and how
// to allow it.
const REFUSAL = /refus|not allowed|allow_networks|allow_http|https/i;

// --- The namespace. ---

function reexec() {
    const ws = workspace('ssrf');
    const hosts = path.join(ws, 'hosts');
    fs.writeFileSync(hosts, `127.0.0.1 localhost\n::1 localhost ip6-localhost\n${PRIVATE} internal.test\n`);
    fs.chmodSync(hosts, 0o644);
    const flags = process.getuid() === 0 ? ['--net', '--mount'] : ['-rn', '--mount'];
    const probe = spawnSync('unshare', [...flags, 'true'], { encoding: 'utf8', timeout: 10000 });
    if (probe.error || probe.status !== 0) {
        report(false, 'remote ssrf: a network namespace of its own',
            `unshare ${flags.join(' ')} is unavailable here (${probe.error ? probe.error.message : short(probe.stderr.trim(), 200)}): the refusals must not run outside one`);
        done();
    }
    const prelude = 'ip link set lo up && ip addr add "$1"/32 dev lo && ip addr add "$2"/32 dev lo && ' +
        'mount --bind "$3" /etc/hosts && shift 3 && exec "$@"';
    const r = spawnSync('unshare', [...flags, '--', 'sh', '-c', prelude, 'ssrf', PRIVATE, METADATA, hosts,
        process.execPath, SCRIPT, ...process.argv.slice(2)], {
        stdio: 'inherit',
        env: { ...process.env, [INSIDE]: flags.join(' '), [HOSTS]: hosts },
        timeout: LIMIT_MS + 30000,
    });
    process.exit(r.status === null ? 1 : r.status);
}

// --- Listeners that count connections. ---

function trap(host) {
    return new Promise((resolve, reject) => {
        const t = { host, hits: 0 };
        t.server = net.createServer((sock) => {
            t.hits++;
            sock.destroy();
        });
        t.server.once('error', reject);
        t.server.listen(0, host, () => {
            t.port = t.server.address().port;
            resolve(t);
        });
    });
}

// An HTTP server on host answering every request 307 to `to`; counts the requests.
function redirector(host, to) {
    return new Promise((resolve, reject) => {
        const r = { hits: 0 };
        r.server = http.createServer((req, res) => {
            r.hits++;
            req.resume();
            res.writeHead(307, { Location: to }).end();
        });
        r.server.once('error', reject);
        r.server.listen(0, host, () => {
            r.port = r.server.address().port;
            resolve(r);
        });
    });
}

// --- The cases. ---

// A refusal's line: names the section and says it was refused (common.mjs refusalLine).
const guardLine = (stderr) => refusalLine(stderr, 'guard', REFUSAL);

// mcph with one url section `guard` (keys), expected to refuse it at start without a
// connection to any trap; then the control: the same section with `allowance` added gets past
// the guard, seen as a connection to `target` (so that the refusal is the guard's, for this
// address, and the trap would have seen a guard that let it through).
async function refused(ws, name, keys, traps, allowance, target, more = () => []) {
    await check(`remote ssrf: ${name}: refused at start, nothing connected; allowed, it connects`, async () => {
        const file = name.replace(/\W+/g, '-');
        const before = traps.map((t) => t.hits);
        const ini = frontIni(ws, { guard: { startup_timeout_ms: 3000 * SLOW, ...keys } }, {}, {}, `${file}.ini`);
        const r = await refusedAtStart(mcph, [ini], 8000 * SLOW);
        const problems = [...stderrProblems('mcph', r.stderr)];
        if (r.timedOut) problems.push(`mcph still running after ${8000 * SLOW} ms (killed): ${short(oneLine(r.stderr, 3), 300)}`);
        else if (r.code !== EXIT_CONFIG) problems.push(`mcph exited ${r.signal || r.code}, not ${EXIT_CONFIG} (a configuration error)`);
        const line = guardLine(r.stderr);
        if (!line) problems.push(`no stderr line naming the section 'guard' and the refusal: ${short(oneLine(r.stderr), 400)}`);
        traps.forEach((t, i) => {
            if (t.hits !== before[i]) problems.push(`${t.host}:${t.port} saw ${t.hits - before[i]} connection(s)`);
        });
        problems.push(...more());
        // The control.
        const hits = target.hits;
        const ok = frontIni(ws, { guard: { startup_timeout_ms: 3000 * SLOW, ...keys, ...allowance } }, {}, {}, `${file}-allowed.ini`);
        const p = new Proc([mcph, ok], { cwd: ROOT });
        const reached = await p.waitFor(() => target.hits > hits || p.exited, 10000 * SLOW);
        p.kill('SIGTERM');
        await p.wait(10000 * SLOW);
        if (!reached || target.hits === hits) {
            problems.push(`with ${JSON.stringify(allowance)} no connection reached ${target.host}:${target.port} (${describeExit(p.exitInfo)}): ${short(oneLine(p.stderr, 3), 300)}`);
        }
        problems.push(...stderrProblems('mcph (allowed)', p.stderr));
        return problems.length ? problems : `exit ${r.code}: "${short(line, 400)}"`;
    });
}

// A redirect is never followed, even to an address the section allows: libcurl would carry
// headers_file's headers and the message there. mcph refuses the section at start, naming the
// redirect; the redirector was asked, and the address it points to saw nothing.
async function notFollowed(ws, redir, traps, keys) {
    await check('remote ssrf: a 307 to 10.1.2.3 (allowed too) is not followed: refused at start, nothing connected', async () => {
        const before = traps.map((t) => t.hits);
        const asked = redir.hits;
        const ini = frontIni(ws, { guard: { startup_timeout_ms: 3000 * SLOW, ...keys } }, {}, {}, 'redirect.ini');
        const r = await refusedAtStart(mcph, [ini], 8000 * SLOW);
        const problems = [...stderrProblems('mcph', r.stderr)];
        if (r.timedOut) problems.push(`mcph still running after ${8000 * SLOW} ms (killed)`);
        else if (r.code !== EXIT_CONFIG) problems.push(`mcph exited ${r.signal || r.code}, not ${EXIT_CONFIG} (a configuration error)`);
        const line = refusalLine(r.stderr, 'guard', /redirect/);
        if (!line) problems.push(`no stderr line naming the section 'guard' and the redirect: ${short(oneLine(r.stderr), 400)}`);
        if (redir.hits === asked) problems.push('the redirector on 127.0.0.1 was never asked');
        traps.forEach((t, i) => {
            if (t.hits !== before[i]) problems.push(`${t.host}:${t.port} saw ${t.hits - before[i]} connection(s)`);
        });
        return problems.length ? problems : `exit ${r.code}: "${short(line, 300)}"`;
    });
}

async function accepted(ws, name, url, keys) {
    await check(`remote ssrf: ${name}: accepted with the allowance, a call answered`, async () => {
        const ini = frontIni(ws, { ok: { url, startup_timeout_ms: 10000 * SLOW, ...keys } }, {}, {}, `${name.replace(/\W+/g, '-')}.ini`);
        const s = await startSession(mcph, ini, { initMs: 30000 * SLOW });
        const r = await s.tool('ok_echo', { text: 'allowed' }, 10000 * SLOW);
        const st = await endSession(s);
        const problems = [...s.problems(), ...stderrProblems('mcph', s.stderr)];
        if (r.error || r.isError || r.text !== 'allowed') problems.push(`ok_echo: ${short(r.msg)}`);
        if (st.code !== 0) problems.push(`mcph exit ${st.signal || st.code}`);
        return problems.length ? problems : 'ok_echo answered';
    });
}

async function main() {
    const ifs = fs.readFileSync('/proc/net/dev', 'utf8').split('\n').slice(2).map((l) => l.split(':')[0].trim()).filter(Boolean);
    if (!report(ifs.length === 1 && ifs[0] === 'lo', `remote ssrf: in a network namespace of its own (${process.env[INSIDE]})`,
        `interfaces: ${ifs.join(', ')}`)) return;
    const ws = workspace('ssrf', 'inside');
    const v4 = await trap('127.0.0.1');
    const v6 = await trap('::1');
    const priv = await trap(PRIVATE);
    const meta = await trap(METADATA);
    const traps = [v4, v6, priv, meta];
    const HTTP = { allow_http: 'yes' };

    const LO = { allow_networks: '127.0.0.0/8 ::1/128' };
    const TEN = { allow_networks: '10.0.0.0/8' };
    await refused(ws, 'http:// without allow_http', { url: `http://${PRIVATE}:${priv.port}/mcp`, ...TEN }, traps, HTTP, priv);
    await refused(ws, '127.0.0.1 without allow_networks', { url: `http://127.0.0.1:${v4.port}/mcp`, ...HTTP }, traps, LO, v4);
    await refused(ws, '[::1] without allow_networks', { url: `http://[::1]:${v6.port}/mcp`, ...HTTP }, traps, LO, v6);
    await refused(ws, '10.1.2.3 without allow_networks', { url: `http://${PRIVATE}:${priv.port}/mcp`, ...HTTP }, traps, TEN, priv);
    await refused(ws, '169.254.169.254 without allow_networks', { url: `http://${METADATA}:${meta.port}/mcp`, ...HTTP }, traps,
        { allow_networks: `${METADATA}/32` }, meta);
    await refused(ws, '169.254.169.254 with only 10.0.0.0/8 allowed', { url: `http://${METADATA}:${meta.port}/mcp`, ...TEN, ...HTTP }, traps,
        { allow_networks: '10.0.0.0/8 169.254.0.0/16' }, meta);
    await refused(ws, '[::ffff:127.0.0.1] without allow_networks', { url: `http://[::ffff:127.0.0.1]:${v4.port}/mcp`, ...HTTP }, traps, LO, v4);
    await refused(ws, 'localhost (a name for loopback)', { url: `http://localhost:${v4.port}/mcp`, ...HTTP }, traps, LO, v4);
    await refused(ws, 'internal.test (a name for 10.1.2.3)', { url: `http://internal.test:${priv.port}/mcp`, ...HTTP }, traps, TEN, priv);

    const redir = await redirector('127.0.0.1', `http://${PRIVATE}:${priv.port}/mcp`);
    await notFollowed(ws, redir, traps,
        { url: `http://127.0.0.1:${redir.port}/mcp`, allow_networks: '127.0.0.1/32 10.0.0.0/8', ...HTTP });

    const up = await startUpstream(mcph, upstreamIni(ws, { allowed_hosts: `${PRIVATE} internal.test` }), 'upstream', 0, 10000 * SLOW, PRIVATE);
    await accepted(ws, '10.1.2.3 with allow_networks = 10.0.0.0/8', `http://${PRIVATE}:${up.port}/mcp`, { ...HTTP, allow_networks: '10.0.0.0/8' });
    await accepted(ws, 'internal.test with allow_networks = 10.1.2.3/32', `http://internal.test:${up.port}/mcp`, { ...HTTP, allow_networks: `${PRIVATE}/32` });
    await check('remote ssrf: the upstream stops cleanly; no sanitizer report', async () => {
        const r = await up.stop('SIGTERM', 10000 * SLOW);
        return [...stderrProblems('upstream', up.stderr), ...(r.code !== 0 ? [`upstream exit ${r.signal || r.code}`] : [])];
    });
    for (const t of [...traps, redir]) t.server.close();
}

if (!process.env[INSIDE]) reexec();
await runSuite('ssrf', main, LIMIT_MS);
