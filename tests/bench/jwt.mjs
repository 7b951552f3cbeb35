#!/usr/bin/env node
// jwt.mjs: the key set and the access token of `make bench`'s "mcph jwt" column
// (tests/bench/bench-http-jwt.ini): an RSA key made here, its public half as a JWKS in
// DIR/jwks.json, and a JWT (RS256) signed with it for that INI's issuer and resource, valid
// for two hours, in DIR/jwt.txt.
//
//   node tests/bench/jwt.mjs DIR

import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

const dir = process.argv[2];
if (!dir) {
    console.error('usage: node tests/bench/jwt.mjs DIR');
    process.exit(2);
}
const { publicKey, privateKey } = crypto.generateKeyPairSync('rsa', { modulusLength: 2048 });
const jwk = { ...publicKey.export({ format: 'jwk' }), kid: 'bench', alg: 'RS256', use: 'sig' };
const b64 = (v) => Buffer.from(typeof v === 'string' ? v : JSON.stringify(v)).toString('base64url');
const now = Math.floor(Date.now() / 1000);
const head = b64({ alg: 'RS256', typ: 'JWT', kid: 'bench' });
const body = b64({
    iss: 'https://issuer.bench.invalid', aud: 'https://mcp.bench.invalid/mcp', sub: 'bench',
    scope: 'mcp', iat: now, nbf: now, exp: now + 7200,
});
const sig = crypto.sign('sha256', Buffer.from(`${head}.${body}`), privateKey).toString('base64url');
fs.writeFileSync(path.join(dir, 'jwks.json'), JSON.stringify({ keys: [jwk] }));
fs.writeFileSync(path.join(dir, 'jwt.txt'), `${head}.${body}.${sig}\n`);
