// TLS for real between mcph's url sections and an upstream: the test makes a CA and two server
// certificates with openssl (one for IP:127.0.0.1 and DNS:localhost, one for DNS:other.test
// only), and runs nginx (Debian's, a process of its own with a prefix in the workspace)
// terminating TLS on two loopback ports with them and proxying (HTTP/1.1, no buffering, for
// event streams) to an upstream mcph --listen serving tests/plugins/basic.c. Then:
//   - a url section https://127.0.0.1:PORT/mcp with ca_file = the test CA: a call answered;
//     the same by https://localhost:PORT/mcp;
//   - the same section without ca_file: refused at start as a configuration error (mcph exits
//     3, its stderr names the section): verification is on by default;
//   - ca_file given, but the certificate is for another name: refused the same way.
//
//   node tests/remote/tls.mjs [build/mcph]

import fs from 'node:fs';
import path from 'node:path';
import { spawn, spawnSync } from 'node:child_process';
import { check, report } from '../lib/check.mjs';
import { startSession, endSession } from '../gateway/common.mjs';
import {
    binary, slowFactor, workspace, upstreamIni, frontIni, freePort, startUpstream,
    refusedAtStart, refusalLine, oneLine, stderrProblems, EXIT_CONFIG, short, waitFor, runSuite } from './common.mjs';

const mcph = binary();
const SLOW = slowFactor(mcph);
const LOOP = { allow_networks: '127.0.0.0/8 ::1/128' };
const TLS_REFUSAL = /certificate|verif|SSL|TLS|issuer|self.signed/i;

function openssl(ws, args) {
    const r = spawnSync('openssl', args, { cwd: ws, encoding: 'utf8', timeout: 30000 });
    if (r.status !== 0) throw new Error(`openssl ${args.join(' ')}: ${short(r.stderr || r.error?.message, 300)}`);
}

// ca.pem/ca.key, and NAME.pem/NAME.key signed by it with subjectAltName `san`.
function makeCerts(ws) {
    openssl(ws, ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'ca.key', '-out', 'ca.pem', '-days', '2',
        '-subj', '/CN=mcph test CA', '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign']);
    for (const [name, san] of [['good', 'IP:127.0.0.1,DNS:localhost'], ['other', 'DNS:other.test']]) {
        openssl(ws, ['req', '-newkey', 'rsa:2048', '-nodes', '-keyout', `${name}.key`, '-out', `${name}.csr`, '-subj', `/CN=${name}`]);
        fs.writeFileSync(path.join(ws, `${name}.ext`), `subjectAltName=${san}\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n`);
        openssl(ws, ['x509', '-req', '-in', `${name}.csr`, '-CA', 'ca.pem', '-CAkey', 'ca.key', '-CAcreateserial',
            '-out', `${name}.pem`, '-days', '2', '-extfile', `${name}.ext`]);
    }
    for (const f of fs.readdirSync(ws)) fs.chmodSync(path.join(ws, f), 0o644);
}

function nginxBinary() {
    for (const p of ['/usr/sbin/nginx', '/usr/bin/nginx', '/usr/local/sbin/nginx']) if (fs.existsSync(p)) return p;
    const r = spawnSync('sh', ['-c', 'command -v nginx'], { encoding: 'utf8' });
    return r.status === 0 ? r.stdout.trim() : null;
}

function nginxConf(dir, good, other, upstream) {
    const server = (port, cert) => `
    server {
        listen 127.0.0.1:${port} ssl;
        ssl_certificate ${dir}/${cert}.pem;
        ssl_certificate_key ${dir}/${cert}.key;
        location /mcp {
            proxy_pass http://127.0.0.1:${upstream};
            proxy_http_version 1.1;
            proxy_set_header Connection "";
            proxy_buffering off;
            proxy_cache off;
            proxy_read_timeout 1h;
        }
    }`;
    return `worker_processes 1;
pid ${dir}/nginx.pid;
error_log stderr notice;
events { worker_connections 64; }
http {
    client_body_temp_path ${dir}/client_body;
    proxy_temp_path ${dir}/proxy;
    fastcgi_temp_path ${dir}/fastcgi;
    uwsgi_temp_path ${dir}/uwsgi;
    scgi_temp_path ${dir}/scgi;
    access_log ${dir}/access.log;
${server(good, 'good')}
${server(other, 'other')}
}
`;
}

// nginx on two free ports; resolves { child, good, other, log() } once both accept.
async function startNginx(bin, dir, upstream) {
    for (let i = 0; i < 5; i++) {
        const good = await freePort();
        const other = await freePort();
        fs.writeFileSync(path.join(dir, 'nginx.conf'), nginxConf(dir, good, other, upstream));
        const child = spawn(bin, ['-p', dir, '-e', 'stderr', '-c', path.join(dir, 'nginx.conf'), '-g', 'daemon off;'], { stdio: ['ignore', 'ignore', 'pipe'] });
        let log = '';
        child.stderr.on('data', (d) => {
            log += d;
        });
        const up = await waitFor(() => child.exitCode !== null || fs.existsSync(path.join(dir, 'nginx.pid')), 10000 * SLOW, 50);
        if (up && child.exitCode === null) return { child, good, other, log: () => log };
        child.kill('SIGKILL');
        if (!/in use/.test(log)) throw new Error(`nginx did not start: ${short(log, 400)}`);
    }
    throw new Error('nginx found no free ports in 5 tries');
}

async function refused(ws, name, keys) {
    await check(`remote tls: ${name}: refused at start as a configuration error`, async () => {
        const ini = frontIni(ws, { sec: { startup_timeout_ms: 5000 * SLOW, ...LOOP, ...keys } }, {}, {}, `${name.replace(/\W+/g, '-')}.ini`);
        const r = await refusedAtStart(mcph, [ini], 20000 * SLOW);
        const problems = [...stderrProblems('mcph', r.stderr)];
        if (r.timedOut) problems.push(`mcph still running after ${20000 * SLOW} ms (killed)`);
        else if (r.code !== EXIT_CONFIG) problems.push(`mcph exited ${r.signal || r.code}, not ${EXIT_CONFIG}`);
        const line = refusalLine(r.stderr, 'sec', TLS_REFUSAL);
        if (!line) problems.push(`no stderr line naming the section 'sec' and the certificate: ${short(oneLine(r.stderr), 400)}`);
        return problems.length ? problems : `exit ${r.code}: "${short(line, 400)}"`;
    });
}

async function accepted(ws, name, keys) {
    await check(`remote tls: ${name}: a call answered through nginx's TLS`, async () => {
        const ini = frontIni(ws, { sec: { startup_timeout_ms: 10000 * SLOW, ...LOOP, ...keys } }, {}, {}, `${name.replace(/\W+/g, '-')}.ini`);
        const s = await startSession(mcph, ini, { initMs: 30000 * SLOW });
        const r = await s.tool('sec_echo', { text: 'over tls' }, 10000 * SLOW);
        const st = await endSession(s);
        const problems = [...s.problems(), ...stderrProblems('mcph', s.stderr)];
        if (r.error || r.isError || r.text !== 'over tls') problems.push(`sec_echo: ${short(r.msg)}`);
        if (st.code !== 0) problems.push(`mcph exit ${st.signal || st.code}`);
        return problems.length ? problems : 'sec_echo answered';
    });
}

async function main() {
    const nginx = nginxBinary();
    if (!report(nginx !== null, 'remote tls: nginx is installed', nginx || 'not found: apt-get install nginx (make test-remote installs it)')) return;
    const ws = workspace('tls');
    fs.chmodSync(ws, 0o755);
    makeCerts(ws);
    const up = await startUpstream(mcph, upstreamIni(ws), 'upstream', 0, 10000 * SLOW);
    const ng = await startNginx(nginx, ws, up.port);
    const ca = path.join(ws, 'ca.pem');
    try {
        await accepted(ws, 'https://127.0.0.1 with ca_file', { url: `https://127.0.0.1:${ng.good}/mcp`, ca_file: ca });
        await accepted(ws, 'https://localhost with ca_file', { url: `https://localhost:${ng.good}/mcp`, ca_file: ca });
        await refused(ws, 'without ca_file (the test CA is not trusted)', { url: `https://127.0.0.1:${ng.good}/mcp` });
        await refused(ws, 'a certificate for another name', { url: `https://127.0.0.1:${ng.other}/mcp`, ca_file: ca });
        await check('remote tls: the upstream and nginx stop cleanly; no sanitizer report', async () => {
            const r = await up.stop('SIGTERM', 10000 * SLOW);
            const problems = stderrProblems('upstream', up.stderr);
            if (r.code !== 0) problems.push(`upstream exit ${r.signal || r.code}`);
            if (/\[(alert|emerg|crit)\]/.test(ng.log())) problems.push(`nginx: ${short(ng.log(), 300)}`);
            return problems;
        });
    } finally {
        ng.child.kill('SIGQUIT');
        await waitFor(() => ng.child.exitCode !== null || ng.child.signalCode !== null, 5000);
        ng.child.kill('SIGKILL');
    }
}

await runSuite('tls', main, 90000 * SLOW);
