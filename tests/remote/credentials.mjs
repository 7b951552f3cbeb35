// Credentials a url section sends to its upstream: an upstream mcph with [server]
// auth_token_file (401 without one of its tokens), behind a recording proxy (node, on
// loopback) that keeps the headers of every request and passes it on. Then:
//   - token_file (the token with whitespace around it) and headers_file ("Name: value" lines,
//     a comment and a blank line): a call answered; every request the proxy saw carried
//     "Authorization: Bearer TOKEN" and the file's headers, and the comment was not sent;
//   - token_env: the same with the token from the environment;
//   - a token the upstream refuses (401): mcph refuses the section at start as a
//     configuration error (exit 3), its stderr names the section and not the token;
//   - the front mcph serving HTTP with its own bearer token: the client's token is never
//     passed to the upstream;
//   - no token's text in mcph's stderr, nor in what `mcph --check` prints.
//
//   node tests/remote/credentials.mjs [build/mcph]

import http from 'node:http';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { check } from '../lib/check.mjs';
import { startSession, endSession } from '../gateway/common.mjs';
import {
    binary, slowFactor, workspace, upstreamIni, frontIni, startUpstream, secretFile,
    refusedAtStart, refusalLine, oneLine, stderrProblems, EXIT_CONFIG, short, runSuite } from './common.mjs';

const mcph = binary();
const SLOW = slowFactor(mcph);
const GOOD = 'upstream-token-5b1e0c7d9a';
const BAD = 'refused-token-8f3a2e61c4';
const CLIENT = 'client-own-token-2d7c91b0e5';
const LOOP = { allow_http: 'yes', allow_networks: '127.0.0.1/32' };

// A proxy on 127.0.0.1 in front of `target` (a port): every request's headers kept in `seen`.
function recordingProxy(target) {
    return new Promise((resolve) => {
        const seen = [];
        const server = http.createServer((req, res) => {
            seen.push({ method: req.method, headers: { ...req.headers } });
            const up = http.request({ host: '127.0.0.1', port: target, method: req.method, path: req.url, headers: { ...req.headers, host: `127.0.0.1:${target}` } }, (r) => {
                res.writeHead(r.statusCode, r.headers);
                r.pipe(res);
            });
            up.on('error', () => res.destroy());
            req.pipe(up);
        });
        server.listen(0, '127.0.0.1', () => resolve({ server, seen, port: server.address().port }));
    });
}

async function served(ws, name, section, env, proxy) {
    const from = proxy.seen.length;
    const ini = frontIni(ws, { cred: { startup_timeout_ms: 10000 * SLOW, ...LOOP, url: `http://127.0.0.1:${proxy.port}/mcp`, ...section } }, {}, {}, `${name}.ini`);
    const s = await startSession(mcph, ini, { initMs: 30000 * SLOW, env: { ...process.env, ...env } });
    const r = await s.tool('cred_echo', { text: 'with credentials' }, 10000 * SLOW);
    const st = await endSession(s);
    const problems = [...s.problems(), ...stderrProblems('mcph', s.stderr, [GOOD, BAD, CLIENT])];
    if (r.error || r.isError || r.text !== 'with credentials') problems.push(`cred_echo: ${short(r.msg)}`);
    if (st.code !== 0) problems.push(`mcph exit ${st.signal || st.code}`);
    return { problems, seen: proxy.seen.slice(from), ini };
}

async function main() {
    const ws = workspace('credentials');
    const tokens = secretFile(ws, 'upstream-tokens', `# the upstream's tokens\n${GOOD}\n`);
    const up = await startUpstream(mcph, upstreamIni(ws, { auth_token_file: tokens }), 'upstream', 0, 10000 * SLOW);
    const proxy = await recordingProxy(up.port);
    const tokenFile = secretFile(ws, 'token', `  ${GOOD}  \n\n`);
    const headersFile = secretFile(ws, 'headers', '# sent with every request\nX-Team: blue\n\nX-Trace-Tag: remote 42\n# X-Not-Sent: no\n');
    try {
        await check('remote credentials: token_file and headers_file: every request carries the token and the headers', async () => {
            const r = await served(ws, 'files', { token_file: tokenFile, headers_file: headersFile }, {}, proxy);
            const problems = [...r.problems];
            if (!r.seen.length) problems.push('the proxy saw no request');
            const bad = r.seen.filter((q) => q.headers.authorization !== `Bearer ${GOOD}` || q.headers['x-team'] !== 'blue' ||
                q.headers['x-trace-tag'] !== 'remote 42' || 'x-not-sent' in q.headers);
            if (bad.length) problems.push(`${bad.length} of ${r.seen.length} requests without them: ${short(bad[0], 300)}`);
            return problems.length ? problems : `${r.seen.length} requests (${[...new Set(r.seen.map((q) => q.method))].join(', ')})`;
        });
        await check('remote credentials: token_env: the token from the environment', async () => {
            const r = await served(ws, 'env', { token_env: 'MCPH_REMOTE_TEST_TOKEN' }, { MCPH_REMOTE_TEST_TOKEN: GOOD }, proxy);
            const problems = [...r.problems];
            if (!r.seen.length || r.seen.some((q) => q.headers.authorization !== `Bearer ${GOOD}`)) {
                problems.push(`requests without the token: ${short(r.seen.map((q) => q.headers.authorization), 200)}`);
            }
            return problems.length ? problems : `${r.seen.length} requests`;
        });
        await check('remote credentials: a token the upstream refuses (401): a configuration error naming the section, not the token', async () => {
            const bad = secretFile(ws, 'bad-token', `${BAD}\n`);
            const from = proxy.seen.length;
            const file = frontIni(ws, { cred: { startup_timeout_ms: 5000 * SLOW, ...LOOP, url: `http://127.0.0.1:${proxy.port}/mcp`, token_file: bad } }, {}, {}, 'bad.ini');
            const r = await refusedAtStart(mcph, [file], 20000 * SLOW);
            const problems = stderrProblems('mcph', r.stderr, [BAD, GOOD]);
            if (r.timedOut) problems.push(`mcph still running after ${20000 * SLOW} ms (killed)`);
            else if (r.code !== EXIT_CONFIG) problems.push(`mcph exited ${r.signal || r.code}, not ${EXIT_CONFIG}`);
            const line = refusalLine(r.stderr, 'cred', /401|unauthori[sz]ed|refused|forbidden|token|credential/i);
            if (!line) problems.push(`no stderr line naming the section 'cred' and the 401: ${short(oneLine(r.stderr), 400)}`);
            if (!proxy.seen.slice(from).some((q) => q.headers.authorization === `Bearer ${BAD}`)) problems.push('the refused token never reached the upstream');
            return problems.length ? problems : `exit ${r.code}: "${short(line, 160)}"`;
        });
        await check('remote credentials: mcph --check prints no token', async () => {
            const problems = [];
            for (const f of ['files.ini', 'env.ini', 'bad.ini']) {
                const r = await refusedAtStart(mcph, ['--check', `${ws}/${f}`], 20000 * SLOW, { env: { ...process.env, MCPH_REMOTE_TEST_TOKEN: GOOD } });
                problems.push(...stderrProblems(`mcph --check ${f} (stderr)`, r.stderr, [GOOD, BAD]), ...stderrProblems(`mcph --check ${f} (stdout)`, r.stdout, [GOOD, BAD]));
                if (f !== 'bad.ini' && r.code !== 0) problems.push(`mcph --check ${f}: exit ${r.signal || r.code}: ${short(oneLine(r.stderr), 200)}`);
            }
            return problems.length ? problems : 'no token printed (files.ini, env.ini, bad.ini)';
        });
        await check('remote credentials: the client\'s own token is never passed to the upstream', async () => {
            const clientTokens = secretFile(ws, 'client-tokens', `${CLIENT}\n`);
            const file = frontIni(ws, { cred: { startup_timeout_ms: 10000 * SLOW, ...LOOP, url: `http://127.0.0.1:${proxy.port}/mcp`, token_file: tokenFile } },
                { auth_token_file: clientTokens }, {}, 'front-http.ini');
            const front = await startUpstream(mcph, file, 'front', 0, 30000 * SLOW);
            const from = proxy.seen.length;
            const c = new Client({ name: 'mcph-remote-tests', version: '1.0.0' });
            await c.connect(new StreamableHTTPClientTransport(new URL(front.url), { requestInit: { headers: { Authorization: `Bearer ${CLIENT}` } } }), { timeout: 20000 * SLOW });
            const r = await c.callTool({ name: 'cred_echo', arguments: { text: 'mine' } }, undefined, { timeout: 20000 * SLOW });
            await c.close();
            const st = await front.stop('SIGTERM', 10000 * SLOW);
            const seen = proxy.seen.slice(from);
            const problems = stderrProblems('front mcph', front.stderr, [GOOD, CLIENT]);
            if (r.content?.[0]?.text !== 'mine') problems.push(`cred_echo: ${short(r)}`);
            const leaked = seen.filter((q) => JSON.stringify(q.headers).includes(CLIENT));
            if (leaked.length) problems.push(`${leaked.length} upstream request(s) carried the client's token`);
            if (!seen.length) problems.push('the call did not reach the upstream');
            if (st.code !== 0) problems.push(`front mcph exit ${st.signal || st.code}`);
            return problems.length ? problems : `${seen.length} upstream requests, all with the section's own token`;
        });
        await check('remote credentials: the upstream stops cleanly; no sanitizer report', async () => {
            const r = await up.stop('SIGTERM', 10000 * SLOW);
            return [...stderrProblems('upstream', up.stderr), ...(r.code !== 0 ? [`upstream exit ${r.signal || r.code}`] : [])];
        });
    } finally {
        proxy.server.closeAllConnections?.();
        proxy.server.close();
    }
}

await runSuite('credentials', main, 90000 * SLOW);
