// Preload (node --import ./loopback.mjs ...) that pins every TCP listen() of the process to
// 127.0.0.1. supergateway has no host option and would otherwise listen on all interfaces;
// the conformance run must only ever be reachable from this machine.
//
// Handles every TCP form of net.Server.prototype.listen (http.Server and express's
// app.listen() end up here): listen(), listen(cb), listen(port[, host][, backlog][, cb]) and
// listen(options[, cb]). A host the caller gave is replaced. Unix sockets and pipes
// (listen(path), {path}) and handles ({fd}, {handle}, a handle object) are left alone: they
// are not on the network.
//
// If LOOPBACK_PORT_FILE is set, the bound port is written to that file once the server
// listens, so a caller can ask for port 0 and learn the port without racing for a free one.
import net from 'node:net';
import fs from 'node:fs';

const HOST = '127.0.0.1';
const listen = net.Server.prototype.listen;

// A port in the sense of Node's own argument parsing: a number or a numeric string.
const isPort = (v) =>
    typeof v === 'number' || (typeof v === 'string' && v.trim() !== '' && Number(v) >= 0);

function pinned(args) {
    const first = args[0];

    // listen(options[, cb])
    if (first !== null && typeof first === 'object') {
        const isHandle = 'fd' in first || 'handle' in first || '_handle' in first;
        if (isHandle || first.path !== undefined)
            return args;
        return [{...first, host: HOST, ipv6Only: false}, ...args.slice(1)];
    }

    // listen(path[, backlog][, cb]): a pipe or Unix socket.
    if (typeof first === 'string' && !isPort(first))
        return args;

    // listen(), listen(cb), listen(port[, host][, backlog][, cb])
    const rest = typeof first === 'function' ? args : args.slice(1);
    const port = typeof first === 'function' || first == null ? 0 : Number(first);
    let i = 0;
    if (typeof rest[i] === 'string' || rest[i] === null || rest[i] === undefined && rest.length > 1)
        i++; // the host the caller asked for: replaced
    const options = {port, host: HOST};
    if (typeof rest[i] === 'number')
        options.backlog = rest[i++];
    const cb = rest.slice(i).find((a) => typeof a === 'function');
    return cb ? [options, cb] : [options];
}

net.Server.prototype.listen = function (...args) {
    const portFile = process.env.LOOPBACK_PORT_FILE;
    const call = pinned(args);
    if (portFile && call[0] !== null && typeof call[0] === 'object' && call[0].host === HOST) {
        this.once('listening', () => {
            const address = this.address();
            if (address && typeof address === 'object')
                fs.writeFileSync(portFile, `${address.port}\n`);
        });
    }
    return listen.apply(this, call);
};
