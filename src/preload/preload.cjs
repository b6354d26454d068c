'use strict';
/*
 * perfgate's preload, injected into every Node.js process of the measured service with
 * NODE_OPTIONS="--require <this file>" (so child processes and cluster workers get it too).
 *
 * It forces the first TCP listen of each process onto PERFGATE_PORT, so base and head can run
 * side by side even when the code hard-codes `listen(3000)`, and appends the bound address to
 * PERFGATE_STATUS_FILE (one JSON line per event) so the engine knows where to send load.
 * Later listens (a metrics port, say) are left alone. It also loads health.cjs, the per-slice
 * health collection, when the engine asks for it. Plain CommonJS with no dependencies:
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

/*
 * Health collection (PERFGATE_HEALTH_SOCKET, set by the engine for the timed phase): event-loop
 * delay and utilisation, GC and heap per slice, measured only while the engine has a slice open
 * (health.cjs). Main thread only: worker threads share the process's heap and CPU.
 */
if (process.env.PERFGATE_HEALTH_SOCKET && require('node:worker_threads').isMainThread) {
  try {
    require('./health.cjs').startHealth(process.env.PERFGATE_HEALTH_SOCKET);
  } catch {
    // no health data from this process: the report says which slices lack it
  }
}

/*
 * perfgate init's probe only (PERFGATE_ROUTES_FILE): the routes the framework registers
 * (routes.cjs). Loaded before the user's code, so it sees the framework being loaded.
 */
if (process.env.PERFGATE_ROUTES_FILE) {
  try {
    require('./routes.cjs');
  } catch {
    // init says no routes could be read
  }
}

/*
 * Profiling phase only (PERFGATE_PROFILE=1, set by the engine when it restarts a service to
 * profile it; never during the timed slices).
 *
 * V8 writes a CPU profile only when the process exits cleanly: `--cpu-prof` writes it as the
 * Node.js environment shuts down, and a process killed by a signal never gets there. The engine
 * stops services with SIGTERM to the whole process group, so here SIGTERM and SIGINT become a
 * clean process.exit(). When the service handles the signal itself (graceful shutdown), its own
 * handler gets a moment to finish first.
 *
 * Where the service's Node refuses --cpu-prof in NODE_OPTIONS (it is allowed from Node 22.x
 * and 23.x, nodejs/node#57018), the engine sets PERFGATE_PROFILE_INSPECTOR_US (the sampling
 * interval) instead, and this preload starts the same V8 sampling profiler through an inspector
 * session (`--cpu-prof` itself drives V8's profiler through the inspector protocol) and writes
 * the profile on exit. Session.post is synchronous for a session on the same thread, so the file
 * is on disk before the process is gone. Worker threads are not profiled this way.
 *
 * In both cases, on exit, the source ranges of the functions that ran (V8's best-effort
 * coverage: names and start/end offsets, nothing measured while running) go next to the profile
 * as FUNCTIONS.<pid>.json: the engine needs them to give inlined functions their samples back.
 */
if (process.env.PERFGATE_PROFILE === '1' && require('node:worker_threads').isMainThread) {
  const path = require('node:path');
  const GRACE_MS = 2000;
  for (const signal of ['SIGTERM', 'SIGINT']) {
    process.on(signal, () => {
      if (process.listenerCount(signal) > 1) setTimeout(() => process.exit(0), GRACE_MS).unref();
      else process.exit(0);
    });
  }
  // What V8's optimizing compilers do to the code, one stdout line per deoptimization or
  // optimization (not per call): the engine reads it from the service's log
  // (src/profile/optimization.ts). NODE_OPTIONS refuses these V8 flags; at run time V8 takes them.
  try {
    require('node:v8').setFlagsFromString('--trace-deopt');
    require('node:v8').setFlagsFromString('--trace-opt');
    require('node:v8').setFlagsFromString('--trace-file-names');
  } catch {
    // a Node without them: no optimization notes
  }
  const profileDir = process.env.PERFGATE_PROFILE_DIR;
  const interval = Number(process.env.PERFGATE_PROFILE_INSPECTOR_US);
  let session = null;
  try {
    session = new (require('node:inspector').Session)();
    session.connect();
    session.post('Profiler.enable');
    if (interval > 0) {
      session.post('Profiler.setSamplingInterval', { interval });
      session.post('Profiler.start');
    }
  } catch {
    session = null; // no inspector in this Node build: the engine reports a side without profiles
  }
  /*
   * Allocations (PERFGATE_PROFILE_HEAP_BYTES, V8's mean sampling interval in bytes): the sampling
   * heap profiler with the objects the collector freed kept in, so the profile is what each
   * function allocated, not what is still live. It starts at the process's first HTTP response
   * (the service has loaded by then: its start-up allocations would otherwise be divided among
   * the requests) and counts the responses from there, so bytes per request divide the same span.
   * A process that serves no response is not sampled.
   *
   * Where the timed slices flagged a possible leak (PERFGATE_PROFILE_SNAPSHOTS=1), the process
   * also writes a heap snapshot at that first response and another on exit, after the load: the
   * engine compares them by constructor. Each pauses the process while V8 walks its heap, which
   * is why they are taken here and never in a timed slice.
   */
  const heapInterval = Number(process.env.PERFGATE_PROFILE_HEAP_BYTES);
  const snapshots = process.env.PERFGATE_PROFILE_SNAPSHOTS === '1';
  const snapshot = (when) => {
    try {
      fs.mkdirSync(profileDir, { recursive: true });
      require('node:v8').writeHeapSnapshot(path.join(profileDir, `SNAP.${process.pid}.${when}.heapsnapshot`));
    } catch {
      // the engine reports the side without a comparison
    }
  };
  let heapResponses = -1;
  if (session && profileDir && (heapInterval > 0 || snapshots)) {
    try {
      require('node:diagnostics_channel').subscribe('http.server.response.finish', () => {
        if (heapResponses >= 0) {
          heapResponses++;
          return;
        }
        heapResponses = 0;
        if (snapshots) snapshot('start');
        if (heapInterval > 0) {
          session.post('HeapProfiler.enable');
          session.post('HeapProfiler.startSampling', {
            samplingInterval: heapInterval,
            includeObjectsCollectedByMajorGC: true,
            includeObjectsCollectedByMinorGC: true,
          });
        }
      });
    } catch {
      // no allocation profile from this process: the engine reports the side without one
    }
  }
  const write = (name, value) => {
    try {
      fs.mkdirSync(profileDir, { recursive: true });
      fs.writeFileSync(path.join(profileDir, name), JSON.stringify(value));
    } catch {
      // the engine reports what is missing
    }
  };
  process.on('exit', () => {
    if (!session || !profileDir) return;
    if (interval > 0) {
      session.post('Profiler.stop', (error, result) => {
        if (!error && result) write(`CPU.${Date.now()}.${process.pid}.cpuprofile`, result.profile);
      });
    }
    if (heapResponses >= 0 && heapInterval > 0) {
      session.post('HeapProfiler.stopSampling', (error, result) => {
        if (error || !result) return;
        write(`HEAP.${process.pid}.heapprofile`, result.profile);
        write(`HEAP.${process.pid}.json`, { responses: heapResponses, intervalBytes: heapInterval });
      });
    }
    session.post('Profiler.getBestEffortCoverage', (error, result) => {
      if (error || !result) return;
      const scripts = {};
      for (const script of result.result) {
        if (!script.url.startsWith('file:') && !script.url.startsWith('/')) continue;
        const functions = [];
        for (const fn of script.functions) {
          const range = fn.ranges[0];
          if (range && range.count > 0) functions.push([fn.functionName, range.startOffset, range.endOffset]);
        }
        if (functions.length > 0) scripts[script.url] = functions;
      }
      write(`FUNCTIONS.${process.pid}.json`, scripts);
    });
    if (heapResponses >= 0 && snapshots) snapshot('end');
  });
}
