'use strict';
/*
 * perfgate's preload, injected into every Node.js process of the measured service with
 * NODE_OPTIONS="--require <this file>" (so child processes and cluster workers get it too).
 *
 * It forces the first TCP listen of each process onto PERFGATE_PORT, so base and head can run
 * side by side even when the code hard-codes `listen(3000)`, and appends the bound address to
 * PERFGATE_STATUS_FILE (one JSON line per event) so the engine knows where to send load.
 * Later listens (a metrics port, say) are left alone. Plain CommonJS with no dependencies:
 * it runs inside the user's process before their code.
 */
const net = require('node:net');
const fs = require('node:fs');

const port = Number(process.env.PERFGATE_PORT);
const statusFile = process.env.PERFGATE_STATUS_FILE;

function report(event) {
  if (!statusFile) return;
  try {
    fs.appendFileSync(statusFile, `${JSON.stringify({ ...event, pid: process.pid, time: Date.now() })}\n`);
  } catch {
    // the engine falls back to probing the port
  }
}

function isPortLike(value) {
  return typeof value === 'number' || (typeof value === 'string' && /^\d+$/.test(value));
}

/** Returns the rewritten listen() arguments, or null when this call is not a TCP port listen. */
function forcePort(args) {
  const first = args[0];
  if (first === undefined || first === null || typeof first === 'function') return [port, ...args];
  if (isPortLike(first)) return [port, ...args.slice(1)];
  if (typeof first === 'object' && !Array.isArray(first)) {
    // a handle, an fd or a unix socket path is not ours to move
    if (first._handle || first.fd !== undefined || first.path !== undefined) return null;
    if (first.handle !== undefined) return null;
    return [{ ...first, port }, ...args.slice(1)];
  }
  return null; // a string path: unix socket
}

if (Number.isInteger(port) && port > 0) {
  const originalListen = net.Server.prototype.listen;
  let forced = false;
  net.Server.prototype.listen = function perfgateListen(...args) {
    if (!forced) {
      const rewritten = forcePort(args);
      if (rewritten) {
        forced = true;
        this.once('listening', () => {
          const address = this.address();
          if (address && typeof address === 'object') {
            report({ event: 'listening', address: address.address, family: address.family, port: address.port });
          }
        });
        return originalListen.apply(this, rewritten);
      }
    }
    return originalListen.apply(this, args);
  };
}
