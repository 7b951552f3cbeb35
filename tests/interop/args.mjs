// Helpers of the SDK interop tests that need no SDK: arguments for a tool from its
// inputSchema, and one URI for a resource template.

// Arguments for a tool from its inputSchema: required members, plus every declared member of
// a simple type. string "hello", number/integer 2, boolean true; enum/const take their first
// value; a required object {} and a required array [].
export function buildArguments(inputSchema) {
    const props = inputSchema && typeof inputSchema.properties === 'object' ? inputSchema.properties : {};
    const required = Array.isArray(inputSchema?.required) ? inputSchema.required : [];
    const args = {};
    const valueFor = (s) => {
        if (s && 'const' in s) return s.const;
        if (s && Array.isArray(s.enum) && s.enum.length) return s.enum[0];
        const types = Array.isArray(s?.type) ? s.type : [s?.type];
        for (const t of types) {
            if (t === 'string') return 'hello';
            if (t === 'number' || t === 'integer') return 2;
            if (t === 'boolean') return true;
        }
        if (types.includes('object')) return {};
        if (types.includes('array')) return [];
        return undefined;
    };
    const simple = (s) => {
        if (s && ('const' in s || Array.isArray(s.enum))) return true;
        const types = Array.isArray(s?.type) ? s.type : [s?.type];
        return types.some((t) => ['string', 'number', 'integer', 'boolean'].includes(t));
    };
    for (const [k, s] of Object.entries(props)) {
        if (required.includes(k) || simple(s)) {
            const v = valueFor(s);
            args[k] = v === undefined ? 'hello' : v;
        }
    }
    for (const k of required) if (!(k in args)) args[k] = 'hello';
    return args;
}

// One URI for an RFC 6570 template: {var} -> "abc", {+var} -> "a/b" (others best effort).
export function expandTemplate(t) {
    return t.replace(/\{([+#./;?&]?)([^}]*)\}/g, (_, op, names) => {
        const vars = names.split(',').map((n) => n.replace(/[*]|:\d+$/g, ''));
        switch (op) {
            case '+':
                return vars.map(() => 'a/b').join(',');
            case '#':
                return '#' + vars.map(() => 'a/b').join(',');
            case '/':
                return vars.map(() => '/abc').join('');
            case '.':
                return vars.map(() => '.abc').join('');
            case ';':
                return vars.map((v) => `;${v}=abc`).join('');
            case '?':
                return '?' + vars.map((v) => `${v}=abc`).join('&');
            case '&':
                return vars.map((v) => `&${v}=abc`).join('');
            default:
                return vars.map(() => 'abc').join(',');
        }
    });
}
