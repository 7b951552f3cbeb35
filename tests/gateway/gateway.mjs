#!/usr/bin/env node
// The mcp plugin (plugins/mcp/) through the real binary: external MCP servers served by mcph
// as rows of its own. `make test-gateway` runs it; `make test` too.
//
//   node tests/gateway/gateway.mjs [BINARY [PART]]      BINARY: build/mcph
//
// Parts, in order (PART runs one; faults:NAME one scenario of faults.mjs, e.g. crashLoop):
//   everything  server-everything through mcph with the SDK v1 client (2025-11-25) and the v2
//               client (2026-07-28), every tool, read, prompt and completion compared with
//               the same server spoken to directly; sampling, elicitation, progress,
//               subscriptions, logging, cancellation (everything.mjs)
//   servers     server-filesystem and server-memory: real calls; the tools filter on an mcp
//               section (servers.mjs)
//   faults      tests/gateway/fake-server.mjs: crashes mid-call and restarts, start-up
//               failures, down after five crashes then SIGHUP, no server left after mcph
//               ends, SIGHUP keeping, changing and breaking the section, a reload storm,
//               list_changed, progress, cancellation, logs (faults.mjs)
// Workspaces are build/tests/gateway/NAME/. Every mcph and server started is killed at the
// end, also after a failure or the time limit. Prints "ok gateway ..." / "FAIL gateway ...:
// why" lines (figures in parentheses), then "gateway: N passed, N failed"; exits 1 on a
// failure.

import path from 'node:path';
import { done, report } from '../lib/check.mjs';
import * as everything from './everything.mjs';
import * as servers from './servers.mjs';
import * as faults from './faults.mjs';

const PARTS = { everything, servers, faults };
const LIMIT_MS = 170000;

const mcph = path.resolve(process.argv[2] || 'build/mcph');
const [only, scenario] = (process.argv[3] || '').split(':');
if (only && (!PARTS[only] || (scenario && !PARTS[only].runOne))) {
    console.error(`usage: node tests/gateway/gateway.mjs [BINARY [${Object.keys(PARTS).join('|')}]]`);
    process.exit(2);
}

async function cleanup() {
    for (const p of Object.values(PARTS)) await p.cleanup?.();
}

const watchdog = setTimeout(async () => {
    report(false, 'gateway suite', `did not finish within ${LIMIT_MS / 1000} s`);
    await cleanup();
    done('gateway');
}, LIMIT_MS);

const t0 = Date.now();
try {
    for (const [name, part] of Object.entries(PARTS)) {
        if (scenario && only === name) await part.runOne(scenario, mcph);
        else if (!only || only === name) await part.run(mcph);
    }
} catch (err) {
    report(false, 'gateway suite', `threw: ${err?.stack || err}`);
} finally {
    await cleanup();
    clearTimeout(watchdog);
}
done('gateway', ` in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
