// Which protocol revision a server message is to be validated against, on a pipe that may
// carry both eras: legacy revisions (2024-11-05..2025-11-25) chosen by initialize, and the
// per-request revision 2026-07-28 (every request carries
// params._meta["io.modelcontextprotocol/protocolVersion"]).
//
//   import { EraTracker } from './era.mjs';
//   const era = new EraTracker({ hasRevision: (r) => validator.hasRevision(r) });
//   era.sent(message);                       // every message we write (object or batch array)
//   const { rev, method, problems } = era.received(message);   // every message the server writes
//   validator.validate(rev, message, { answers: method });
//
// Rules, in order:
//  - A response is validated as the revision its request was sent under: the revision named
//    in the request's claim (a claimed string no schema exists for, or a claim that is not a
//    string, counts as 2026-07-28); without a claim, the legacy revision negotiated when it
//    was sent, or the default (2025-11-25) before any initialize result. The response to
//    initialize sets the negotiated revision from its protocolVersion.
//  - notifications/subscriptions/acknowledged and any notification whose params._meta carries
//    "io.modelcontextprotocol/subscriptionId" (a listen stream's): 2026-07-28.
//  - notifications/progress whose progressToken is that of a claiming request: that request's
//    revision.
//  - notifications/message and notifications/progress while a claiming request other than
//    subscriptions/listen is unanswered and no legacy session was negotiated: its revision.
//  - Anything else: the negotiated legacy revision, or the default before initialize.
// A request counts as answered when its response arrives or when we send
// notifications/cancelled for it.

export const MODERN_REVISION = '2026-07-28';
export const DEFAULT_REVISION = '2025-11-25';
export const KEY_VERSION = 'io.modelcontextprotocol/protocolVersion';
export const KEY_CAPS = 'io.modelcontextprotocol/clientCapabilities';
export const KEY_SUB = 'io.modelcontextprotocol/subscriptionId';

const isObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);
const key = (id) => JSON.stringify(id);

// The claim of a request's params: { version } when params._meta has the protocolVersion key
// (version may be any JSON value), else null.
export function claimOf(params) {
    const meta = isObject(params) ? params._meta : undefined;
    if (!isObject(meta) || !Object.prototype.hasOwnProperty.call(meta, KEY_VERSION)) return null;
    return { version: meta[KEY_VERSION] };
}

// A progress token of a request (string or integer), or undefined.
function progressTokenOf(params) {
    const t = isObject(params) && isObject(params._meta) ? params._meta.progressToken : undefined;
    return typeof t === 'string' || Number.isInteger(t) ? t : undefined;
}

export class EraTracker {
    // opts.hasRevision(rev): whether a schema exists for rev (default: any string);
    // opts.defaultRevision: the revision before initialize (default 2025-11-25).
    constructor(opts = {}) {
        this.hasRevision = opts.hasRevision || ((r) => typeof r === 'string');
        this.defaultRevision = opts.defaultRevision || DEFAULT_REVISION;
        this.negotiated = null; // legacy revision from the initialize result
        this.requests = new Map(); // JSON id -> { method, rev, modern }
        this.open = new Map(); // JSON id -> record, modern requests not yet answered
        this.tokens = new Map(); // JSON progress token -> revision (modern requests)
    }

    get legacyRevision() {
        return this.negotiated || this.defaultRevision;
    }

    // The revision a claim names, for validation.
    claimRevision(claim) {
        return typeof claim.version === 'string' && this.hasRevision(claim.version) ?
            claim.version : MODERN_REVISION;
    }

    // Record a message we send (an object, or a batch array of them).
    sent(msg) {
        for (const m of Array.isArray(msg) ? msg : [msg]) {
            if (!isObject(m) || typeof m.method !== 'string') continue;
            if (!('id' in m)) {
                if (m.method === 'notifications/cancelled' && isObject(m.params)) {
                    this.open.delete(key(m.params.requestId));
                }
                continue;
            }
            const claim = claimOf(m.params);
            const rec = {
                method: m.method,
                rev: claim ? this.claimRevision(claim) : this.legacyRevision,
                modern: claim !== null,
            };
            this.requests.set(key(m.id), rec);
            if (rec.modern) {
                this.open.set(key(m.id), rec);
                const token = progressTokenOf(m.params);
                if (token !== undefined) this.tokens.set(key(token), rec.rev);
            }
        }
    }

    // The method the request with this id was sent with (for batches).
    methodOf(id) {
        return this.requests.get(key(id))?.method;
    }

    // Classify a message the server wrote: { rev, method, problems } (method: for a response,
    // the method of the request it answers). Updates the negotiated revision and the set of
    // open requests.
    received(msg) {
        const problems = [];
        if (!isObject(msg)) return { rev: this.legacyRevision, method: undefined, problems };
        const isResponse = !('method' in msg) && ('result' in msg || 'error' in msg);
        if (isResponse) {
            const rec = this.requests.get(key(msg.id));
            if (!rec) return { rev: this.legacyRevision, method: undefined, problems };
            if (rec.modern) this.open.delete(key(msg.id));
            let rev = rec.rev;
            const pv = msg.result?.protocolVersion;
            if (!rec.modern && rec.method === 'initialize' && typeof pv === 'string') {
                if (this.hasRevision(pv)) {
                    this.negotiated = pv;
                    rev = pv;
                } else {
                    problems.push(`initialize result announces protocolVersion ${JSON.stringify(pv)}, ` +
                        'which is no known revision');
                }
            }
            return { rev, method: rec.method, problems };
        }
        if (typeof msg.method !== 'string' || 'id' in msg) {
            return { rev: this.legacyRevision, method: undefined, problems };
        }
        const params = isObject(msg.params) ? msg.params : undefined;
        const meta = isObject(params?._meta) ? params._meta : undefined;
        if (msg.method === 'notifications/subscriptions/acknowledged' ||
            (meta && Object.prototype.hasOwnProperty.call(meta, KEY_SUB))) {
            return { rev: MODERN_REVISION, method: undefined, problems };
        }
        if (msg.method === 'notifications/progress' && params &&
            (typeof params.progressToken === 'string' || Number.isInteger(params.progressToken)) &&
            this.tokens.has(key(params.progressToken))) {
            return { rev: this.tokens.get(key(params.progressToken)), method: undefined, problems };
        }
        if ((msg.method === 'notifications/message' || msg.method === 'notifications/progress') &&
            this.negotiated === null) {
            const during = [...this.open.values()].filter((r) => r.method !== 'subscriptions/listen');
            if (during.length > 0) return { rev: during[during.length - 1].rev, method: undefined, problems };
        }
        return { rev: this.legacyRevision, method: undefined, problems };
    }
}
