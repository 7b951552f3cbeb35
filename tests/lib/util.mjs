// Small helpers every Node test suite uses: sleep, waitFor, a time cap, short text for
// messages, median, the repository root, and whether a binary is a sanitizer build.
//
//   import { sleep, waitFor, short, median, ROOT } from '../lib/util.mjs';
//   await waitFor(() => s.listChanged > 0, 5000);     // the predicate's last value (may be async)
//   const r = await capped(run(), 60000);             // run()'s value, or CAPPED after 60 s

import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

// The repository root (tests/lib/ is two levels down).
export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// Poll pred (sync or async) every `every` ms until it is truthy or ms passed; returns its last
// value, so a caller can tell a timeout (falsy) from success.
export async function waitFor(pred, ms, every = 25) {
    const deadline = Date.now() + ms;
    for (;;) {
        const v = await pred();
        if (v || Date.now() >= deadline) return v;
        await sleep(Math.min(every, Math.max(1, deadline - Date.now())));
    }
}

// What capped() resolves with when the time ran out.
export const CAPPED = Symbol('capped');

// promise's value, or CAPPED when it has not settled within ms (the promise keeps running).
export async function capped(promise, ms) {
    let timer;
    const cap = new Promise((resolve) => {
        timer = setTimeout(() => resolve(CAPPED), ms);
    });
    try {
        return await Promise.race([promise, cap]);
    } finally {
        clearTimeout(timer);
    }
}

// Text for messages: a string as it is, anything else as JSON; cut to n characters.
export function short(v, n = 200) {
    const s = typeof v === 'string' ? v : JSON.stringify(v);
    if (s === undefined) return String(v);
    return s.length > n ? `${s.slice(0, n - 3)}...` : s;
}

export function median(xs) {
    if (!xs.length) return NaN;
    const s = [...xs].sort((a, b) => a - b);
    const mid = Math.floor(s.length / 2);
    return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
}

// Which sanitizers a binary was built with, from the runtime symbols it carries:
// { address, thread, undefined, any }. A missing file has none.
export function sanitizersOf(bin) {
    let b;
    try {
        b = fs.readFileSync(bin);
    } catch {
        b = Buffer.alloc(0);
    }
    const s = {
        address: b.includes('__asan_init'),
        thread: b.includes('__tsan_init'),
        undefined: b.includes('__ubsan_handle'),
    };
    s.any = s.address || s.thread || s.undefined;
    return s;
}

// A sanitizer's report in a process's stderr.
export const SANITIZER_REPORT = /ERROR: (Address|Leak|Thread|Memory)Sanitizer|runtime error:|SUMMARY: \w*Sanitizer/;

// A reader of newline-delimited JSON arriving in chunks (what an SDK transport reads, tapped
// raw): each whole line is parsed and given to onMessage(msg, line); a line that is not JSON
// (an empty one included) to onBad(why). Returns the function to feed text to.
export function jsonLines(onMessage, onBad) {
    let buf = '';
    return (text) => {
        buf += text;
        let nl;
        while ((nl = buf.indexOf('\n')) >= 0) {
            const line = buf.slice(0, nl).replace(/\r$/, '');
            buf = buf.slice(nl + 1);
            let msg;
            try {
                if (line.trim() === '') throw new Error('empty line');
                msg = JSON.parse(line);
            } catch (err) {
                onBad(`stdout line is not JSON (${err.message}): ${short(line)}`);
                continue;
            }
            onMessage(msg, line);
        }
    };
}
