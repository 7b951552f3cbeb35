#!/usr/bin/env node
// OAuth for the scale-out test: the replicas accept only access tokens signed by a key of the
// test's own (an identity provider stands in, as docs/oauth.md shows with a JWKS file).
//
//   node tests/scale/oauth.mjs DIR      writes DIR/jwks.json (the public key, for the
//                                       replicas' oauth_jwks_file) and DIR/oauth-signing.pem
//   import { bearer } from './oauth.mjs'  bearer(DIR, SUB): "Bearer <JWT>" for subject SUB
//
// Tokens are EdDSA (Ed25519) JWTs signed with node:crypto: iss ISSUER, aud RESOURCE (the
// replicas' oauth_issuer and oauth_resource in tests/scale/replica.ini), scope "mcp:tools",
// valid for an hour.

import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ISSUER = 'https://issuer.scale.test';
export const RESOURCE = 'https://mcp.scale.test/mcp';
const KID = 'scale-ed25519';

const b64url = (v) => Buffer.from(JSON.stringify(v)).toString('base64url');

export function writeKeys(dir) {
    const { publicKey, privateKey } = crypto.generateKeyPairSync('ed25519');
    const jwk = { ...publicKey.export({ format: 'jwk' }), kid: KID, use: 'sig', alg: 'EdDSA' };
    fs.writeFileSync(path.join(dir, 'jwks.json'), JSON.stringify({ keys: [jwk] }), { mode: 0o644 });
    fs.writeFileSync(path.join(dir, 'oauth-signing.pem'), privateKey.export({ format: 'pem', type: 'pkcs8' }), { mode: 0o600 });
}

const keys = new Map();

export function bearer(dir, sub) {
    let key = keys.get(dir);
    if (!key) {
        key = crypto.createPrivateKey(fs.readFileSync(path.join(dir, 'oauth-signing.pem')));
        keys.set(dir, key);
    }
    const now = Math.floor(Date.now() / 1000);
    const head = `${b64url({ alg: 'EdDSA', typ: 'at+jwt', kid: KID })}.${b64url({ iss: ISSUER, aud: RESOURCE, sub, scope: 'mcp:tools', iat: now, exp: now + 3600 })}`;
    return `Bearer ${head}.${crypto.sign(null, Buffer.from(head), key).toString('base64url')}`;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
    if (!process.argv[2]) {
        console.error('usage: node tests/scale/oauth.mjs DIR');
        process.exit(2);
    }
    writeKeys(process.argv[2]);
}
