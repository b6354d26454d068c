'use strict';
/*
 * perfgate's health collection, loaded by preload.cjs in every Node.js process of the measured
 * service when the engine sets PERFGATE_HEALTH_SOCKET (the timed phase; a cluster's primary and
 * workers and any forked child each report for themselves).
 *
 * The process connects to the engine's Unix socket and waits. Before its first window it measures
 * nothing: no timer, no GC hook; from then to the flush, only the allocation counter's GC profiler
 * runs between windows (counters.cjs). When the engine opens a window ({"op":"begin","id":n}) it turns
 * on the event-loop delay histogram (perf_hooks.monitorEventLoopDelay, one libuv timer every
 * RESOLUTION_MS) and a 'gc' PerformanceObserver and snapshots the event-loop utilisation; when
 * the engine closes it ({"op":"end","id":n}) it turns both off and sends one line: delay
 * percentiles, utilisation, GC pauses by kind, heap and RSS, active handles (counted at the
 * window's start, before the load connects), the process's outgoing I/O (below) and its work
 * counters (counters.cjs: system calls, socket bytes). The heap bytes each window allocated are
 * sent when the engine asks, once the start's load is over ({"op":"flush"}: one line for all
 * its windows). Nothing is ever written between windows, and nothing is sent unless asked.
 *
 * Outgoing I/O, in the spirit of clinic bubbleprof: every socket the process itself connects (a
 * database, a cache, another service; TCP, TLS or a Unix socket) is watched for round trips. A
 * round trip starts with a write while no answer is awaited and ends at the first bytes read
 * after it; its wait is the time between. Per destination (host:port, or the socket's path) the
 * window sums the round trips and waits of the HTTP requests that finished in it, and counts
 * those requests.
 * Many drivers (pg, mongodb) publish no diagnostics_channel events, so this works at the socket,
 * the one layer every driver shares. Inbound connections (the load) are accepted, never connected, so
 * they are not counted, and the engine's own health socket is connected before the watch starts.
 * Where a client does publish (node-redis, ioredis and mysql2 TracingChannels, undici and Node's
 * http client), its calls are also counted by name (a Redis command, a SQL text without its
 * literals, a method, host and path template) per destination: see nameQueries.
 *
 * Never in the service's way: the socket is unref'd (it never keeps the process alive), writes
 * are asynchronous, and any error (the engine gone, a socket that never connects) stops the
 * collection quietly. Node's own IPC channel (cluster, child_process.fork) is not touched.
 * Plain CommonJS with no dependencies: it runs inside the user's process before their code.
 */
const net = require('node:net');
const v8 = require('node:v8');
const { monitorEventLoopDelay, performance, PerformanceObserver } = require('node:perf_hooks');
const { startCounters } = require('./counters.cjs');

/** The histogram's sampling interval, ms (Node's default). Each sample is the time between two timer callbacks. */
const RESOLUTION_MS = 10;
/** Most destinations one window reports (the busiest by round trips); a service talks to a handful. */
const MAX_DESTINATIONS = 20;
/**
 * Most distinct (destination, name) pairs one request or one window keeps; later ones add to their
 * destination's "other". A service that builds SQL with inlined values nobody's normalizer
 * catches must not grow the preload's memory with every request.
 */
const MAX_NAMES = 50;
/** Longest name kept, characters: enough to tell two statements apart in a report line. */
const MAX_NAME_CHARS = 160;
/** perf_hooks.constants.NODE_PERFORMANCE_GC_* → the names results.json uses. */
const GC_KINDS = { 1: 'minor', 4: 'major', 8: 'incremental', 16: 'weakcb' };

function emptyGc() {
  return { minor: { count: 0, ms: 0 }, major: { count: 0, ms: 0 }, incremental: { count: 0, ms: 0 }, weakcb: { count: 0, ms: 0 } };
}

/** Where a socket connects, from connect()'s arguments: "host:port" or a Unix socket's path. */
function destinationOf(args) {
  let options = args[0];
  if (Array.isArray(options)) options = options[0]; // net's internal normalized form
  if (options !== null && typeof options === 'object') {
    if (typeof options.path === 'string') return options.path;
    return `${options.host || 'localhost'}:${options.port}`;
  }
  if (typeof options === 'string' && !/^\d+$/.test(options)) return options;
  return `${typeof args[1] === 'string' ? args[1] : 'localhost'}:${options}`;
}

/**
 * Watches every socket connected from now on. A round trip belongs to the HTTP request whose
 * code wrote it (AsyncLocalStorage, entered when the server starts the request); when the
 * response finishes, `finished(tally)` receives that request's round trips. Counting whole
 * requests makes "per request" exact where the window's edges would not be: at a slice's end
 * the requests still in flight have made round trips but sent no response. Round trips of no
 * request (a pool's keep-alive, a background job) are left out. Nothing of this is set up until
 * the process connects a socket, so a service without outgoing I/O pays nothing for it.
 */
function watchOutgoingIo(finished, late, lateQuery, connected) {
  const connect = net.Socket.prototype.connect;
  const watched = Symbol('perfgate.io');
  let requests = null;
  net.Socket.prototype.connect = function perfgateConnect(...args) {
    const result = connect.apply(this, args);
    connected(this);
    if (requests === null) {
      requests = attributeToRequests(finished);
      nameQueries(requests, lateQuery);
    }
    if (this[watched] === undefined) this[watched] = watchSocket(this, destinationOf(args), requests, late);
    // connect() resets an instance's write to the prototype's (a socket that ended and connects
    // again must be able to write), so write is wrapped after it, on every connect.
    if (this.write !== this[watched]) this.write = this[watched];
    return result;
  };
}

/** An AsyncLocalStorage whose store, inside an HTTP request's code, is that request's tally ({ io: destination → round trips, queries: named calls, done }). */
function attributeToRequests(finished) {
  const { AsyncLocalStorage } = require('node:async_hooks');
  const diagnostics = require('node:diagnostics_channel');
  const store = new AsyncLocalStorage();
  const tallies = new WeakMap();
  // Published synchronously just before the server emits 'request': what the handler starts
  // (promises, callbacks, a driver's queued write) carries the store.
  diagnostics.subscribe('http.server.request.start', ({ response }) => {
    const tally = { io: new Map(), queries: null, done: false };
    tallies.set(response, tally);
    store.enterWith(tally);
  });
  diagnostics.subscribe('http.server.response.finish', ({ response }) => {
    const tally = tallies.get(response);
    if (tally === undefined) return;
    tally.done = true;
    finished(tally);
  });
  return store;
}

/** Adds named calls (their count and summed wait, ns) to a "destination\nname" → { calls, waitNs } map, at most MAX_NAMES keys. */
function addCalls(queries, destination, name, calls, waitNs) {
  let key = `${destination}\n${name}`;
  let call = queries.get(key);
  if (call === undefined && queries.size >= MAX_NAMES) {
    key = `${destination}\nother`;
    call = queries.get(key);
  }
  if (call === undefined) queries.set(key, { calls, waitNs });
  else {
    call.calls += calls;
    call.waitNs += waitNs;
  }
}

/**
 * Normalized statement texts by their raw text, one map per quoting rule: the same few
 * statements run thousands of times, so each is normalized once. Cleared when full, which
 * bounds them whatever the service sends.
 */
const sqlNames = [new Map(), new Map()];

/** 'text' in standard SQL: a quote inside is doubled. */
const STANDARD_STRING = /'(?:[^']|'')*'/g;
/**
 * 'text' in MySQL's default mode, where a backslash escapes the next character: mysql2's
 * `query` puts its values into the text itself, "it's" as 'it\'s', which the standard rule
 * would end at the escaped quote.
 */
const BACKSLASH_STRING = /'(?:[^'\\]|\\[\s\S]|'')*'/g;

/**
 * A SQL statement without its literals: 'text' and numbers become ?, whitespace one space.
 * `backslashEscapes`: the text is MySQL's, where a backslash in a string escapes a quote.
 */
function sqlName(text, backslashEscapes = false) {
  if (typeof text !== 'string') return 'query';
  const names = sqlNames[backslashEscapes ? 1 : 0];
  let name = names.get(text);
  if (name !== undefined) return name;
  name = text
    .replace(backslashEscapes ? BACKSLASH_STRING : STANDARD_STRING, '?')
    .replace(/(?<![\w$.])-?\d+(?:\.\d+)?\b/g, '?')
    .replace(/\s+/g, ' ')
    .trim()
    .slice(0, MAX_NAME_CHARS);
  if (names.size >= 500) names.clear();
  names.set(text, name);
  return name;
}

/** A URL path as a template: no query, and ids (numbers, UUIDs, long hex or mixed tokens) as :id. */
function pathTemplate(path) {
  const end = path.search(/[?#]/);
  return (end >= 0 ? path.slice(0, end) : path)
    .split('/')
    .map((segment) => (/^\d+$|^[0-9a-f-]{16,}$|^(?=.*\d)[\w-]{20,}$/i.test(segment) ? ':id' : segment))
    .join('/')
    .slice(0, MAX_NAME_CHARS);
}

/** "host:port" of a TracingChannel context's server, as the clients name it; "" when unknown. */
function serverOf(context) {
  const address = context.serverAddress;
  if (typeof address !== 'string') return '';
  return context.serverPort === undefined ? address : `${address}:${context.serverPort}`;
}

/**
 * Subscribes to the diagnostics_channel events of the clients that publish them, and counts each
 * call a request's code makes by destination and name: calls (a pipelined batch of commands is
 * one round trip at the socket but several calls here) and the time from the call to its answer.
 * Only calls made inside a request are looked at; everything else returns at the first line.
 * Subscribing makes those clients build their event contexts (node-redis and ioredis sanitize
 * the command's arguments for it), a small cost per call, the same on both sides.
 *
 * - node-redis (@redis/client ≥ 5.12) `node-redis:command`, ioredis (≥ 5.11) `ioredis:command`:
 *   the command's name (GET, SET);
 * - mysql2 (≥ 3.20) `mysql2:query` and `mysql2:execute`: the statement without its literals;
 * - undici (the package, and Node's own fetch) `undici:request:create` to `…:headers`, and Node's
 *   http client `http.client.request.start` to `http.client.response.finish`: the method, host
 *   and path template.
 */
function nameQueries(requests, lateQuery) {
  const diagnostics = require('node:diagnostics_channel');
  const started = Symbol('perfgate.call');
  function begin(carrier, destination, name) {
    const tally = requests.getStore();
    if (tally === undefined || tally.done) return;
    carrier[started] = { tally, destination, name, since: process.hrtime.bigint() };
  }
  function end(carrier) {
    const call = carrier[started];
    if (call === undefined) return;
    carrier[started] = undefined;
    const waitNs = process.hrtime.bigint() - call.since;
    // As with round trips: a call a request made that ends after its response was sent still
    // belongs to the window it ends in.
    if (call.tally.done) lateQuery(call.destination, call.name, waitNs);
    else {
      if (call.tally.queries === null) call.tally.queries = new Map();
      addCalls(call.tally.queries, call.destination, call.name, 1, waitNs);
    }
  }
  if (typeof diagnostics.tracingChannel === 'function') {
    const traced = {
      'node-redis:command': (context) => String(context.command),
      'ioredis:command': (context) => String(context.command).toUpperCase(),
      // `query` formats its values into the text (the context's query has them, escaped), `execute`
      // sends them apart (its query keeps the placeholders): one name either way.
      'mysql2:query': (context) => sqlName(context.query, true),
      'mysql2:execute': (context) => sqlName(context.query, true),
    };
    for (const [channel, nameOf] of Object.entries(traced)) {
      diagnostics.tracingChannel(channel).subscribe({
        start(context) {
          if (requests.getStore() !== undefined) begin(context, serverOf(context), nameOf(context));
        },
        // Both a promise's and a callback's end, resolved or rejected.
        asyncEnd: end,
      });
    }
  }
  diagnostics.subscribe('undici:request:create', ({ request }) => {
    if (requests.getStore() === undefined) return;
    const host = String(request.origin).replace(/^\w+:\/\//, '');
    const port = /:\d+$/.test(host) ? '' : String(request.origin).startsWith('https:') ? ':443' : ':80';
    begin(request, host + port, `${request.method} ${host}${pathTemplate(String(request.path))}`);
  });
  diagnostics.subscribe('undici:request:headers', ({ request }) => end(request));
  diagnostics.subscribe('undici:request:error', ({ request }) => end(request));
  diagnostics.subscribe('http.client.request.start', ({ request }) => {
    if (requests.getStore() === undefined) return;
    const host = String(request.getHeader('host') ?? request.host);
    const port = /:\d+$/.test(host) ? '' : request.protocol === 'https:' ? ':443' : ':80';
    begin(request, host + port, `${request.method} ${host}${pathTemplate(String(request.path))}`);
  });
  diagnostics.subscribe('http.client.response.finish', ({ request }) => end(request));
  diagnostics.subscribe('http.client.request.error', ({ request }) => end(request));
}

/** Adds round trips and their wait (ns) to a destination → { roundTrips, waitNs } map. */
function addRoundTrips(tallies, destination, roundTrips, waitNs) {
  const io = tallies.get(destination);
  if (io === undefined) tallies.set(destination, { roundTrips, waitNs });
  else {
    io.roundTrips += roundTrips;
    io.waitNs += waitNs;
  }
}

/** Wraps one socket's push; returns the wrapper for its write. */
function watchSocket(socket, requested, requests, late) {
  /** hrtime (ns) of the write that started the awaited round trip (0n: none awaited), and the tally of the request that wrote it. */
  let since = 0n;
  let owner;
  const push = socket.push;
  socket.push = function perfgatePush(chunk, encoding) {
    if (since !== 0n && chunk !== null) {
      const waitNs = process.hrtime.bigint() - since;
      since = 0n;
      if (owner !== undefined) {
        // The resolved address once connected: "localhost" and "127.0.0.1" are one server.
        const destination = socket.remoteAddress
          ? `${socket.remoteFamily === 'IPv6' ? `[${socket.remoteAddress}]` : socket.remoteAddress}:${socket.remotePort}`
          : requested;
        // A round trip a request's code wrote can end after that request finished: a pool that
        // hands its connection to a waiting request does so in the releasing request's context.
        // It was made for some request all the same, so it goes to the window directly.
        if (owner.done) late(destination, waitNs);
        else addRoundTrips(owner.io, destination, 1, waitNs);
      }
    }
    return push.call(this, chunk, encoding);
  };
  const write = net.Socket.prototype.write;
  return function perfgateWrite(...args) {
    // Timed in and out of windows alike: a request that began before a window and finishes in
    // it brings all its round trips (with long requests and a load that runs on between slices,
    // counting only in the window lost a part of each such request).
    if (since === 0n) {
      since = process.hrtime.bigint();
      owner = requests.getStore();
    }
    return write.apply(this, args);
  };
}

/** A histogram value (ns, timer interval) as the delay beyond the interval, µs. */
function delayUs(ns) {
  return Math.max(0, Math.round(ns / 1000 - RESOLUTION_MS * 1000));
}

function activeHandles() {
  // Resources keeping the loop alive (sockets, servers, timers); the unref'd socket to the
  // engine is not among them.
  if (typeof process.getActiveResourcesInfo === 'function') return process.getActiveResourcesInfo().length;
  return process._getActiveHandles().length;
}

/** Counts the outgoing I/O of each request into the open window (`current()`; none: not counted); `connected(socket)` sees each socket connected. */
function countIoInto(current, connected) {
  watchOutgoingIo(
    (tally) => {
      const window = current();
      if (window === null) return;
      window.ioRequests++;
      for (const [destination, { roundTrips, waitNs }] of tally.io) addRoundTrips(window.io, destination, roundTrips, waitNs);
      if (tally.queries === null) return;
      for (const [key, { calls, waitNs }] of tally.queries) {
        const newline = key.indexOf('\n');
        addCalls(window.queries, key.slice(0, newline), key.slice(newline + 1), calls, waitNs);
      }
    },
    (destination, waitNs) => {
      const window = current();
      if (window !== null) addRoundTrips(window.io, destination, 1, waitNs);
    },
    (destination, name, waitNs) => {
      const window = current();
      if (window !== null) addCalls(window.queries, destination, name, 1, waitNs);
    },
    connected,
  );
}

/**
 * The window's event-loop delay, µs. No sample at all: the loop never turned between the
 * window's begin and end (one synchronous call held it throughout), so the whole window, less
 * one interval, is the delay. Reporting nothing would drop exactly the most blocked slices.
 */
function eventLoopDelayOf(histogram, window) {
  const samples = histogram.count;
  if (samples > 0) return { p50: delayUs(histogram.percentile(50)), p99: delayUs(histogram.percentile(99)), max: delayUs(histogram.max), samples };
  const blockedUs = delayUs(Number(process.hrtime.bigint() - window.startedAt));
  return { p50: blockedUs, p99: blockedUs, max: blockedUs, samples: 0 };
}

/** The report of a closed window, as the engine reads it (src/engine/service/health.ts). */
function windowReport(id, w, eventLoopDelayUs, utilization, counts) {
  const memory = process.memoryUsage();
  for (const tally of Object.values(w.gc)) tally.ms = Math.round(tally.ms * 1000) / 1000;
  return {
    op: 'report',
    id,
    windowMs: Math.round(Number(process.hrtime.bigint() - w.startedAt) / 1e5) / 10,
    eventLoopDelayUs,
    eventLoopUtilization: Math.round(utilization * 1e4) / 1e4,
    gc: w.gc,
    heapUsedBytes: memory.heapUsed,
    heapAfterGcBytes: w.heapAfterGc,
    rssBytes: memory.rss,
    activeHandles: w.activeHandles,
    io: [...w.io]
      .sort((a, b) => b[1].roundTrips - a[1].roundTrips)
      .slice(0, MAX_DESTINATIONS)
      .map(([destination, io]) => ({ destination, roundTrips: io.roundTrips, waitMs: Math.round(Number(io.waitNs) / 1e3) / 1e3 })),
    ioRequests: w.ioRequests,
    ...counts,
    queries: [...w.queries].map(([key, call]) => {
      const newline = key.indexOf('\n');
      return { destination: key.slice(0, newline), name: key.slice(newline + 1), calls: call.calls, waitMs: Math.round(Number(call.waitNs) / 1e3) / 1e3 };
    }),
  };
}

/** Calls `handle` with each JSON line the engine sends; a line that is not JSON is skipped. */
function onMessages(socket, handle) {
  let pending = '';
  socket.on('data', (chunk) => {
    pending += chunk;
    for (let newline = pending.indexOf('\n'); newline >= 0; newline = pending.indexOf('\n')) {
      const line = pending.slice(0, newline);
      pending = pending.slice(newline + 1);
      let message;
      try {
        message = JSON.parse(line);
      } catch {
        continue;
      }
      handle(message);
    }
    if (pending.length > 65536) pending = ''; // not ours: the engine's lines are short
  });
}

function startHealth(socketPath) {
  // A cluster worker: asked when reporting, because Node removes NODE_UNIQUE_ID from the
  // environment before preloads run, and the cluster module is set up by then.
  let worker = null;
  const histogram = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
  /** The open window: its id, start, utilisation snapshot, GC tally and the lowest heap seen after a GC. */
  let window = null;

  function countGc(entries) {
    if (window === null || entries.length === 0) return;
    for (const entry of entries) {
      const kind = GC_KINDS[entry.detail ? entry.detail.kind : entry.kind];
      const tally = window.gc[kind];
      if (!tally) continue;
      tally.count++;
      tally.ms += entry.duration;
    }
    // The observer runs shortly after the collection: the heap now is the heap after it, plus
    // what was allocated since. The lowest such value in the window is its post-GC floor.
    const used = v8.getHeapStatistics().used_heap_size;
    if (window.heapAfterGc === null || used < window.heapAfterGc) window.heapAfterGc = used;
  }
  const observer = new PerformanceObserver((list) => countGc(list.getEntries()));

  const counters = startCounters();
  const socket = net.createConnection({ path: socketPath });
  socket.unref();
  countIoInto(() => window, counters.track);
  socket.setEncoding('utf8');

  function send(message) {
    if (socket.destroyed || !socket.writable) return;
    // Only a process with an IPC channel can be a worker: others never load the cluster module.
    if (worker === null) worker = typeof process.send === 'function' && require('node:cluster').isWorker === true;
    socket.write(`${JSON.stringify({ ...message, pid: process.pid, ppid: process.ppid, worker })}\n`);
  }

  function close() {
    if (window === null) return;
    window = null;
    histogram.disable();
    observer.disconnect();
    counters.end();
  }

  function begin(id) {
    close();
    // Handles are counted before the slice's load connects: the load's own sockets would
    // otherwise be counted, or not, depending on when the engine's end message arrives.
    window = {
      id,
      startedAt: process.hrtime.bigint(),
      elu: performance.eventLoopUtilization(),
      gc: emptyGc(),
      heapAfterGc: null,
      activeHandles: activeHandles(),
      io: new Map(),
      queries: new Map(),
      ioRequests: 0,
    };
    histogram.reset();
    histogram.enable();
    observer.observe({ entryTypes: ['gc'] });
    counters.begin(id);
    send({ op: 'begun', id });
  }

  function end(id) {
    if (window === null || window.id !== id) return;
    countGc(observer.takeRecords());
    const counts = counters.end();
    const w = window;
    const delays = eventLoopDelayOf(histogram, w);
    const utilization = performance.eventLoopUtilization(w.elu).utilization;
    close();
    send(windowReport(id, w, delays, utilization, counts));
  }

  /** The allocated bytes of the windows reported since the last flush, known only now (counters.cjs). */
  function flush() {
    close();
    counters.flush().then(
      (windows) => send({ op: 'allocations', windows }),
      () => send({ op: 'allocations', windows: [] }),
    );
  }

  onMessages(socket, (message) => {
    if (message.op === 'begin') begin(message.id);
    else if (message.op === 'end') end(message.id);
    else if (message.op === 'flush') flush();
  });
  // The engine gone or never there: stop measuring, stay out of the way.
  socket.on('error', close);
  socket.on('close', close);
}

module.exports = { startHealth, RESOLUTION_MS, sqlName, pathTemplate };
