// A preload (node --import tests/gateway/tap.mjs server.js ...) that appends every chunk the
// server reads on stdin to the file named by MCPH_GW_TAP, so a test can see what mcph sent an
// external server (a cancellation, a subscription). It wraps stdin's emit() instead of adding
// a 'data' listener: a listener would start the stream before the server's own is attached,
// and the server would miss what came first.
import fs from 'node:fs';

const file = process.env.MCPH_GW_TAP;
if (file) {
    const stdin = process.stdin;
    const emit = stdin.emit;
    stdin.emit = function tapped(event, chunk, ...rest) {
        if (event === 'data') fs.appendFileSync(file, chunk);
        return emit.call(this, event, chunk, ...rest);
    };
}
