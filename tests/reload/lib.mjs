// What tests/reload/reload.mjs, scaffold.mjs and soak.mjs share beyond tests/lib/: workspaces
// build/tests/reload/<name>/, INIs with plugin_dir = . (the plugins are copied in), rebuilt
// variants of tests/plugins/reloadable.c, and the session defaults of these suites (initialize
// 2025-11-25, notifications/initialized, logging/setLevel info; every message validated
// against the schema of its revision; answers to ids never asked and requests from mcph are
// problems).

import path from 'node:path';
import { Session as BaseSession } from '../lib/session.mjs';
import { makeValidator, defaultSpecDir } from '../lib/schema.mjs';
import { workspace as libWorkspace, writeIni, section } from '../lib/workspace.mjs';
import { buildPlugin, copyPlugin } from '../lib/plugin.mjs';

export { ROOT, sleep, median } from '../lib/util.mjs';
export { toolOutcome } from '../lib/session.mjs';
export { copyPlugin, writeIni, section };

let validator = null;
export function getValidator() {
    if (!validator) validator = makeValidator(defaultSpecDir());
    return validator;
}

// A fresh workspace build/tests/reload/<name>/.
export const workspace = (name) => libWorkspace('reload', name);

// Compile a variant of tests/plugins/reloadable.c (or opts.source) to `out` (absolute, or
// relative to ws), written in place as cc does. opts: { version: 'two', prompt: true,
// defines: ['X=1'], source: path }.
export function buildReloadable(ws, out, opts = {}, atomic = false) {
    const defines = [...(opts.defines || [])];
    if (opts.version !== undefined) defines.unshift(`RELOADABLE_VERSION=${JSON.stringify(opts.version)}`);
    if (opts.prompt) defines.push('RELOADABLE_PROMPT');
    return buildPlugin(opts.source || 'tests/plugins/reloadable.c', path.resolve(ws, out), { defines, atomic });
}

// The same, built at a temporary name in the workspace and renamed over `name`.
export async function buildReloadableAtomic(ws, name, opts = {}) {
    await buildReloadable(ws, name, opts, true);
}

// An INI serving the plugins of `sections` from its own folder; `server`: more [server] lines.
export function iniText(sections, server = '') {
    return `[server]\nplugin_dir = .\n${server}\n${sections.join('\n')}`;
}

// Multiset equality of method lists.
export function sameMethods(got, want) {
    const a = [...got].sort();
    const b = [...want].sort();
    return a.length === b.length && a.every((x, i) => x === b[i]);
}

// "[tools, resources]" for a list of list_changed methods.
export function methodsText(methods) {
    return `[${methods.map((m) => m.replace(/^notifications\//, '').replace(/\/list_changed$/, '')).join(', ')}]`;
}

// A session (tests/lib/session.mjs) with the defaults above; start() initializes it. opts:
// { watch, rev, initialized (default true), setLevel ('info', or null to skip), args, cwd }.
export class Session extends BaseSession {
    constructor(mcph, ini, opts = {}) {
        super(mcph, ini, { validator: getValidator(), strict: true, ...opts });
    }

    async start() {
        await this.initialize({
            rev: this.opts.rev || '2025-11-25',
            clientInfo: { name: 'reload-test', version: '1.0' },
            initialized: this.opts.initialized,
            setLevel: this.opts.setLevel === undefined ? 'info' : this.opts.setLevel,
        });
        return this;
    }

    stderrTail(n = 15, sep = '\n') {
        return super.stderrTail(n, sep);
    }
}
