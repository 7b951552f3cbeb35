// Validation of MCP messages against the official JSON Schema of one protocol revision.
//
//   import { makeValidator } from './schema.mjs';
//   const v = makeValidator('tests/spec');                 // holds <rev>/schema.json
//   const errors = v.validate('2025-06-18', message, { answers: 'tools/list' });
//   // errors: [] when valid, else ['/result/tools/0: unknown member "title" (Tool)', ...]
//
// validate(revision, message, context) never throws for a bad message; it returns a list of
// human-readable errors, each "<JSON pointer into the message>: <what is wrong>".
//   context.answers  for a response: the method of the request it answers (a string), or a
//                    function id => method (used for batches). Without it a result is only
//                    checked against the generic Result.
//   A string context is taken as context.answers.
//
// Two checks are made:
//  1. Schema validity: the message against the definition for what it is (the JSON-RPC
//     envelope, then the request, notification or result definition for its method).
//  2. Closed world: every object member the message carries must be defined by the revision's
//     schema. The MCP schemas leave most objects open (JSON Schema's default), so without this
//     a server could send Tool.title under 2024-11-05 and still validate. An object schema
//     that lists "properties" and says nothing about "additionalProperties" is treated as
//     closed. Places that are free-form stay open: any schema that sets additionalProperties
//     itself (Result, _meta, structuredContent, experimental, arguments, logging, ...), every
//     "_meta" member, and Tool.inputSchema / Tool.outputSchema (whole JSON Schemas of the
//     plugin's own). Two deliberate tightenings: EmptyResult (= Result, open in the schema) is
//     checked as closed, since a result that "carries no data" must not grow members, and
//     ServerCapabilities is closed too even though its description calls the set open: a
//     capability the negotiated revision does not define is exactly what we must not send.
//
// Revision 2026-07-28 (per request, no initialize) is checked the same way, with its own
// mapping: server/discover -> DiscoverResult, subscriptions/listen -> SubscriptionsListenResult,
// notifications/subscriptions/acknowledged -> SubscriptionsAcknowledgedNotification; a
// tools/call, prompts/get or resources/read result with resultType "input_required" ->
// InputRequiredResult (which must carry inputRequests or requestState; any other method
// answered so is an error); an error -32022 (-32021) is also checked as a whole against
// UnsupportedProtocolVersionError (MissingRequiredClientCapabilityError). Its _meta objects
// stay open (their known keys, such as serverInfo, are still checked), and so do the
// extensions/experimental capability maps. sampling/createMessage, roots/list and
// elicitation/create exist there only inside an InputRequiredResult: sent as a JSON-RPC
// request they are an error. Which revision applies to a message on a pipe carrying both
// eras is for the caller to say (tests/lib/era.mjs).
//
// The closed-world check walks the message alongside the schema; where the schema offers
// alternatives (anyOf/oneOf), the branches the value validates against are found with ajv
// and the walk continues in the one that explains the most members; allOf members' properties
// are merged. ajv (draft-07 for 2024-11-05..2025-06-18, 2020-12 for later revisions) does all
// the actual keyword checking; formats (uri, uri-template, byte = base64) are checked too.

import fs from 'node:fs';
import path from 'node:path';
import Ajv from 'ajv';
import Ajv2020 from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';

const addFormats = addFormatsModule.default || addFormatsModule;

// Members under these keys are free-form by nature (whole JSON Schemas, metadata).
const OPEN_KEYS = new Set(['_meta', 'inputSchema', 'outputSchema']);
// Definitions that the schema leaves open but that we check as closed (see above).
const FORCE_CLOSED_DEFS = new Set(['EmptyResult', 'ServerCapabilities']);

// Results whose definition name does not follow "<X>Request" -> "<X>Result".
const RESULT_DEFS = {
    initialize: 'InitializeResult',
    ping: 'EmptyResult',
    'tools/list': 'ListToolsResult',
    'tools/call': 'CallToolResult',
    'resources/list': 'ListResourcesResult',
    'resources/templates/list': 'ListResourceTemplatesResult',
    'resources/read': 'ReadResourceResult',
    'resources/subscribe': 'EmptyResult',
    'resources/unsubscribe': 'EmptyResult',
    'prompts/list': 'ListPromptsResult',
    'prompts/get': 'GetPromptResult',
    'completion/complete': 'CompleteResult',
    'logging/setLevel': 'EmptyResult',
    'sampling/createMessage': 'CreateMessageResult',
    'elicitation/create': 'ElicitResult',
    'roots/list': 'ListRootsResult',
    // 2026-07-28
    'server/discover': 'DiscoverResult',
    'subscriptions/listen': 'SubscriptionsListenResult',
};

// 2026-07-28 (MRTR): these three requests may be answered with an InputRequiredResult
// (resultType "input_required") instead of their own result; no other request may.
const INPUT_REQUIRED_METHODS = new Set(['tools/call', 'prompts/get', 'resources/read']);

// Notification methods whose definition is named explicitly: 2026-07-28 also has
// ClientNotification with method const "notifications/cancelled", which must not win.
const NOTIFICATION_DEFS = {
    'notifications/cancelled': 'CancelledNotification',
    'notifications/subscriptions/acknowledged': 'SubscriptionsAcknowledgedNotification',
};

// Error codes with a definition of their own (a whole JSON-RPC error response), in the
// revisions whose schema has it (2026-07-28).
const ERROR_DEFS = {
    [-32022]: 'UnsupportedProtocolVersionError',
    [-32021]: 'MissingRequiredClientCapabilityError',
};

// A JSON pointer segment (for paths in messages).
function ptrSeg(s) {
    return String(s).replace(/~/g, '~0').replace(/\//g, '~1');
}

// A JSON pointer segment inside a URI fragment (for $refs into the schema).
function escapePointerSegment(s) {
    return encodeURIComponent(ptrSeg(s));
}

function pointerGet(root, ptr) {
    if (ptr === '' || ptr === '#') return root;
    const parts = ptr.replace(/^#?\//, '').split('/');
    let node = root;
    for (const raw of parts) {
        const key = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
        if (node === null || typeof node !== 'object' || !(key in node)) return undefined;
        node = node[key];
    }
    return node;
}

function isObject(v) {
    return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function jsonType(v) {
    if (v === null) return 'null';
    if (Array.isArray(v)) return 'array';
    if (Number.isInteger(v)) return 'integer';
    return typeof v;
}

function short(v) {
    let s;
    try {
        s = JSON.stringify(v);
    } catch {
        s = String(v);
    }
    if (s === undefined) s = String(v);
    return s.length > 60 ? s.slice(0, 57) + '...' : s;
}

// One revision: its schema, an ajv instance and caches.
class Revision {
    constructor(rev, schema) {
        this.rev = rev;
        this.schema = schema;
        this.defsKey = schema.$defs ? '$defs' : 'definitions';
        this.defs = schema[this.defsKey];
        const is2020 = String(schema.$schema || '').includes('2020-12');
        const AjvClass = is2020 ? Ajv2020.default || Ajv2020 : Ajv.default || Ajv;
        this.ajv = new AjvClass({ strict: false, allErrors: true, validateFormats: true });
        addFormats(this.ajv);
        // Our own id, so that pointers into the schema can be compiled on their own.
        this.base = `mcp-${rev}.json`;
        this.ajv.addSchema({ ...schema, $id: this.base });
        this.validators = new Map();
        this.requestDefs = new Map();
        this.notificationDefs = new Map();
        for (const [name, def] of Object.entries(this.defs)) {
            const method = def?.properties?.method?.const;
            if (typeof method !== 'string') continue;
            // ClientRequest/ServerNotification & co. are unions in most revisions, but a union
            // of one member is generated as that member itself (2026-07-28 ClientNotification).
            if (/^(Client|Server)(Request|Notification)$/.test(name)) continue;
            if (name.endsWith('Request')) this.requestDefs.set(method, name);
            else if (name.endsWith('Notification')) this.notificationDefs.set(method, name);
        }
        for (const [method, name] of Object.entries(NOTIFICATION_DEFS)) {
            if (this.hasDef(name)) this.notificationDefs.set(method, name);
        }
        // 2026-07-28 has no server-to-client requests: sampling/createMessage, roots/list and
        // elicitation/create are defined only as members of InputRequest (inside an
        // InputRequiredResult), never as JSON-RPC requests of their own.
        this.embeddedOnly = new Set();
        for (const alt of this.hasDef('InputRequest') ? this.defs.InputRequest.anyOf || [] : []) {
            const m = this.resolve(alt.$ref || '').node?.properties?.method?.const;
            if (typeof m === 'string') this.embeddedOnly.add(m);
        }
    }

    defPtr(name) {
        return `#/${this.defsKey}/${escapePointerSegment(name)}`;
    }

    hasDef(name) {
        return Object.prototype.hasOwnProperty.call(this.defs, name);
    }

    // ajv errors of `value` against the subschema at `ptr` (open schema, whole subtree).
    errorsAt(ptr, value) {
        let fn = this.validators.get(ptr);
        if (!fn) {
            fn = this.ajv.compile({ $ref: this.base + ptr });
            this.validators.set(ptr, fn);
        }
        return fn(value) ? [] : fn.errors.slice();
    }

    // Follow $ref chains. Returns { ptr, node, def, forceClosed }.
    resolve(ptr) {
        let node = pointerGet(this.schema, ptr);
        let def = null;
        let forceClosed = false;
        const m0 = ptr.match(new RegExp(`^#/${this.defsKey.replace('$', '\\$')}/([^/]+)$`));
        if (m0) def = decodeURIComponent(m0[1]);
        if (def && FORCE_CLOSED_DEFS.has(def)) forceClosed = true;
        for (let guard = 0; node && typeof node.$ref === 'string' && guard < 32; guard++) {
            const ref = node.$ref;
            if (!ref.startsWith('#')) throw new Error(`external $ref ${ref} not supported`);
            ptr = ref;
            node = pointerGet(this.schema, ref);
            const m = ref.match(/^#\/(?:definitions|\$defs)\/([^/]+)$/);
            if (m) {
                def = decodeURIComponent(m[1]);
                if (FORCE_CLOSED_DEFS.has(def)) forceClosed = true;
            }
        }
        return { ptr, node, def, forceClosed };
    }
}

function formatAjvError(e, basePath, defName) {
    const where = basePath + (e.instancePath || '');
    const p = e.params || {};
    let msg;
    switch (e.keyword) {
        case 'required':
            msg = `missing required member "${p.missingProperty}"`;
            break;
        case 'additionalProperties':
            msg = `unknown member "${p.additionalProperty}"`;
            break;
        case 'const':
            msg = `must be ${short(p.allowedValue)}`;
            break;
        case 'enum':
            msg = `must be one of ${short(p.allowedValues)}`;
            break;
        case 'type':
            msg = `must be of type ${p.type}`;
            break;
        case 'format':
            msg = `must be a valid "${p.format}"`;
            break;
        default:
            msg = e.message || e.keyword;
    }
    return `${where || '/'}: ${msg}${defName ? ` (${defName})` : ''}`;
}

// The walker: schema errors at each level plus closed-world errors, in one pass.
class Walker {
    constructor(rt) {
        this.rt = rt;
    }

    // The definition a pointer names directly ("#/definitions/EmptyResult"), if any.
    forcedName(ptr) {
        const m = ptr.match(/^#\/(?:definitions|\$defs)\/([^/]+)$/);
        if (!m) return null;
        const n = this.rt.resolve(ptr);
        return n.forceClosed ? decodeURIComponent(m[1]) : null;
    }

    // ptr: schema pointer; value: instance; path: JSON pointer of value in the message;
    // key: the member name that led here (for OPEN_KEYS); out: error list.
    walk(ptr, value, path, key, out, defCtx) {
        const rt = this.rt;
        const r = rt.resolve(ptr);
        const node = r.node;
        const defName = r.forceClosed && FORCE_CLOSED_DEFS.has(this.forcedName(ptr)) ?
            this.forcedName(ptr) : r.def || defCtx;
        if (node === undefined) {
            out.push(`${path || '/'}: internal: no schema at ${ptr}`);
            return;
        }
        if (node === true || (isObject(node) && Object.keys(node).length === 0)) return;
        if (node === false) {
            out.push(`${path || '/'}: not allowed here${defName ? ` (${defName})` : ''}`);
            return;
        }
        const alts = node.anyOf ? 'anyOf' : node.oneOf ? 'oneOf' : null;
        if (alts) {
            this.walkAlternatives(r.ptr, node, alts, value, path, key, out, defName);
            return;
        }
        if (node.allOf) {
            this.walkAllOf(r.ptr, node, value, path, key, out, defName);
            return;
        }
        // Errors at this level (type, required, const, enum, format, additionalProperties:false).
        for (const e of rt.errorsAt(r.ptr, value)) {
            if (e.instancePath === '') out.push(formatAjvError(e, path, defName));
        }
        if (isObject(value)) {
            this.walkMembers(r, node, value, path, key, out, defName);
        } else if (Array.isArray(value) && isObject(node.items)) {
            value.forEach((item, i) => {
                this.walk(`${r.ptr}/items`, item, `${path}/${i}`, null, out, defName);
            });
        }
    }

    walkMembers(r, node, value, path, key, out, defName) {
        const props = isObject(node.properties) ? node.properties : null;
        const ap = node.additionalProperties;
        const open =
            (key !== null && OPEN_KEYS.has(key)) ||
            (!r.forceClosed && ap !== undefined && ap !== false) ||
            (!props && ap === undefined);
        for (const [k, v] of Object.entries(value)) {
            const childPath = `${path}/${ptrSeg(k)}`;
            if (props && Object.prototype.hasOwnProperty.call(props, k)) {
                this.walk(`${r.ptr}/properties/${escapePointerSegment(k)}`, v, childPath, k, out,
                    defName);
            } else if (isObject(ap) && Object.keys(ap).length > 0 && !r.forceClosed) {
                this.walk(`${r.ptr}/additionalProperties`, v, childPath, k, out, defName);
            } else if (ap === false) {
                // already reported by ajv at this level
            } else if (!open) {
                out.push(`${path || '/'}: unknown member "${k}" (not defined by ${this.rt.rev}` +
                    `${defName ? ` ${defName}` : ''})`);
            }
        }
    }

    walkAlternatives(ptr, node, alts, value, path, key, out, defName) {
        const branches = node[alts].map((_, i) => `${ptr}/${alts}/${i}`);
        const scored = branches.map((b) => ({ b, errs: this.rt.errorsAt(b, value) }));
        const passing = scored.filter((s) => s.errs.length === 0);
        const branchName = (b) => {
            const n = pointerGet(this.rt.schema, b);
            const m = n && typeof n.$ref === 'string' && n.$ref.match(/\/([^/]+)$/);
            return m ? decodeURIComponent(m[1]) : b.split('/').slice(-2).join('/');
        };
        if (passing.length === 0) {
            const best = scored.reduce((a, s) => (s.errs.length < a.errs.length ? s : a));
            out.push(`${path || '/'}: matches none of ${scored.map((s) => branchName(s.b)).join(
                ' | ')}${defName ? ` (in ${defName})` : ''}; closest is ${branchName(best.b)}`);
            this.walk(best.b, value, path, key, out, defName);
            return;
        }
        let bestOut = null;
        for (const s of passing) {
            const o = [];
            this.walk(s.b, value, path, key, o, defName);
            if (bestOut === null || o.length < bestOut.length) bestOut = o;
            if (o.length === 0) break;
        }
        out.push(...bestOut);
    }

    walkAllOf(ptr, node, value, path, key, out, defName) {
        for (const e of this.rt.errorsAt(ptr, value)) out.push(formatAjvError(e, path, defName));
        if (!isObject(value)) return;
        // Merge the members' properties: a member is known if any part declares it, and the
        // merged object is closed unless every part is open.
        const parts = node.allOf.map((_, i) => this.rt.resolve(`${ptr}/allOf/${i}`));
        let allOpen = true;
        for (const p of parts) {
            const ap = p.node?.additionalProperties;
            const partOpen = !p.forceClosed && ap !== undefined && ap !== false;
            if (!partOpen && p.node?.properties) allOpen = false;
        }
        const open = allOpen || (key !== null && OPEN_KEYS.has(key));
        for (const [k, v] of Object.entries(value)) {
            const childPath = `${path}/${ptrSeg(k)}`;
            const owners = parts.filter((p) => p.node?.properties && k in p.node.properties);
            if (owners.length === 0) {
                if (!open) {
                    out.push(`${path || '/'}: unknown member "${k}" (not defined by ${this.rt.rev}` +
                        `${defName ? ` ${defName}` : ''})`);
                }
                continue;
            }
            const seen = new Set(out);
            for (const o of owners) {
                const sub = [];
                this.walk(`${o.ptr}/properties/${escapePointerSegment(k)}`, v, childPath, k, sub,
                    o.def || defName);
                for (const s of sub) {
                    if (!seen.has(s)) {
                        seen.add(s);
                        out.push(s);
                    }
                }
            }
        }
    }
}

function methodOf(context, id) {
    if (context === undefined || context === null) return undefined;
    if (typeof context === 'string') return context;
    const a = context.answers;
    if (typeof a === 'function') return a(id);
    return a;
}

export function makeValidator(specDir) {
    const revisions = new Map();

    function load(rev) {
        if (revisions.has(rev)) return revisions.get(rev);
        const file = path.join(specDir, rev, 'schema.json');
        let rt = null;
        if (/^\d{4}-\d{2}-\d{2}$/.test(rev) && fs.existsSync(file)) {
            rt = new Revision(rev, JSON.parse(fs.readFileSync(file, 'utf8')));
        }
        revisions.set(rev, rt);
        return rt;
    }

    // Validate `value` (found at `path` in the message) against definition `defName`.
    function checkDef(rt, defName, value, path, out) {
        const walker = new Walker(rt);
        const ptr = rt.defPtr(defName);
        const before = out.length;
        walker.walk(ptr, value, path, null, out, defName);
        // Safety net: anything ajv rejects must show up, even if the walker missed it.
        if (out.length === before) {
            for (const e of rt.errorsAt(ptr, value)) out.push(formatAjvError(e, path, defName));
        }
    }

    // Request and notification definitions of 2024-11-05..2025-06-18 describe only
    // method/params (the envelope is JSONRPCRequest/JSONRPCNotification); later revisions
    // include jsonrpc and id in each definition.
    function bodyFor(rt, defName, msg) {
        const def = rt.resolve(rt.defPtr(defName)).node;
        if (def?.properties && 'jsonrpc' in def.properties) return msg;
        const body = { ...msg };
        delete body.jsonrpc;
        delete body.id;
        return body;
    }

    function validateOne(rt, msg, context, out) {
        if (!isObject(msg)) {
            out.push(`/: a JSON-RPC message must be an object, got ${jsonType(msg)}`);
            return;
        }
        const has = (k) => Object.prototype.hasOwnProperty.call(msg, k);
        if (has('method')) {
            const isRequest = has('id');
            const envelope = isRequest ? 'JSONRPCRequest' : 'JSONRPCNotification';
            checkDef(rt, envelope, msg, '', out);
            if (isRequest && rt.embeddedOnly.has(msg.method)) {
                out.push(`/method: ${short(msg.method)} is no JSON-RPC request in revision ${rt.rev}: ` +
                    'it only travels inside an InputRequiredResult (inputRequests)');
                return;
            }
            const table = isRequest ? rt.requestDefs : rt.notificationDefs;
            const defName = table.get(msg.method);
            if (!defName) {
                out.push(`/method: ${short(msg.method)} is not a ${isRequest ? 'request' :
                    'notification'} method of revision ${rt.rev}`);
                return;
            }
            checkDef(rt, defName, bodyFor(rt, defName, msg), '', out);
            return;
        }
        if (has('error')) {
            const envelope = rt.hasDef('JSONRPCErrorResponse') ? 'JSONRPCErrorResponse' :
                'JSONRPCError';
            let m = msg;
            // JSON-RPC 2.0 (section 5) requires "id": null when the request's id could not
            // be read: a parse error (-32700) or an invalid request (-32600) whose id is
            // missing or not a valid id. MCP's RequestId has no null. Accept exactly those
            // two codes with id null, checked as if they carried a valid id; any other null
            // id is still reported.
            if (msg.id === null && isObject(msg.error) &&
                (msg.error.code === -32700 || msg.error.code === -32600)) {
                m = { ...msg, id: 0 };
            }
            checkDef(rt, envelope, m, '', out);
            const own = isObject(msg.error) ? ERROR_DEFS[msg.error.code] : undefined;
            if (own && rt.hasDef(own)) checkDef(rt, own, m, '', out);
            return;
        }
        if (has('result')) {
            const envelope = rt.hasDef('JSONRPCResultResponse') ? 'JSONRPCResultResponse' :
                'JSONRPCResponse';
            checkDef(rt, envelope, msg, '', out);
            const method = methodOf(context, msg.id);
            if (method === undefined) return;
            let defName = RESULT_DEFS[method];
            if (!defName) {
                const reqDef = rt.requestDefs.get(method);
                const guess = reqDef ? reqDef.replace(/Request$/, 'Result') : null;
                defName = guess && rt.hasDef(guess) ? guess : 'EmptyResult';
            }
            if (rt.hasDef('InputRequiredResult') && isObject(msg.result) &&
                msg.result.resultType === 'input_required') {
                if (!INPUT_REQUIRED_METHODS.has(method)) {
                    out.push(`/result/resultType: "input_required" answers only tools/call, ` +
                        `prompts/get and resources/read, not ${method}`);
                    return;
                }
                defName = 'InputRequiredResult';
                // "At least one of inputRequests or requestState MUST be present" (prose only).
                if (!('inputRequests' in msg.result) && !('requestState' in msg.result)) {
                    out.push('/result: an InputRequiredResult needs inputRequests or requestState');
                }
            }
            if (!rt.hasDef(defName)) {
                out.push(`/result: revision ${rt.rev} has no ${defName} (answering ${method})`);
                return;
            }
            checkDef(rt, defName, msg.result, '/result', out);
            return;
        }
        out.push('/: neither a request, a notification nor a response (no method, result or error)');
    }

    function validate(revision, message, context) {
        const out = [];
        const rt = load(revision);
        if (!rt) return [`unknown protocol revision ${short(revision)} (no ${specDir}/${revision}/schema.json)`];
        try {
            if (Array.isArray(message)) {
                if (!rt.hasDef('JSONRPCBatchResponse')) {
                    return [`/: a JSON-RPC batch (array) is not allowed in revision ${revision}`];
                }
                if (message.length === 0) return ['/: empty batch'];
                message.forEach((m, i) => {
                    const sub = [];
                    validateOne(rt, m, context, sub);
                    for (const s of sub) out.push(`/${i}${s.startsWith('/') ? s : '/ ' + s}`);
                });
                return out;
            }
            validateOne(rt, message, context, out);
        } catch (err) {
            out.push(`validator error: ${err && err.stack ? err.stack : err}`);
        }
        return out;
    }

    function revisionsAvailable() {
        return fs.readdirSync(specDir).filter((d) => fs.existsSync(path.join(specDir, d, 'schema.json'))).sort();
    }

    return { validate, revisions: revisionsAvailable, hasRevision: (r) => load(r) !== null };
}

// The schema directory: $MCPH_SPEC_DIR, else tests/spec of this tree.
export function defaultSpecDir() {
    if (process.env.MCPH_SPEC_DIR) return process.env.MCPH_SPEC_DIR;
    return path.resolve(path.dirname(new URL(import.meta.url).pathname), '../spec');
}
