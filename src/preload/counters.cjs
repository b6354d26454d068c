'use strict';
/*
 * Work counters of one health window (loaded by health.cjs): what the process did, counted rather
 * than timed, so a neighbour that steals the CPU cannot move them. docs/health.md, "Work counters".
 *
 * - Bytes allocated on the V8 heap, V8's compiled code and its metadata left out (JIT_SPACES).
 *   Neither Node 20 nor Node 24 exposes V8's cumulative allocation counter
 *   (`v8.getHeapStatistics()` has no total_allocated_bytes in either), so it is rebuilt exactly
 *   from what they do expose: between two collections the heap's used size only grows by what is
 *   allocated, and each collection lowers it by what it freed. v8.GCProfiler
 *   (Node ≥ 18.15) records the used size before and after every collection, so
 *   allocated = used at the end − used at the start + Σ (before − after) over the collections.
 *   A 'gc' PerformanceObserver is not enough alone: its entries carry no heap sizes.
 *
 *   One profiler runs from the first window to the engine's "flush" (the start's end), not one
 *   per window: a stopped GCProfiler keeps its GC callbacks, and goes on recording into a buffer
 *   nobody reads, until its object is collected by a full collection (node/src/node_v8.cc:
 *   GCProfiler::Stop removes no callback; the destructor does). One per window left a stopped
 *   profiler behind each window, every one of them reading the heap's statistics twice per
 *   collection: 200 of them made a loop of small allocations 13 times slower, and in a loaded
 *   service the collection cost ~4% of throughput (docs/health.md, "What it costs"). The profiler's
 *   records carry no time, so each is matched, in order, to the 'gc' observer's entry of the same
 *   collection (same count and kinds, or nothing is counted), whose start time says which window
 *   it fell in. The windows' bytes are therefore known only at the flush, and sent then.
 * - Read and write system calls (Linux /proc/self/io syscr + syscw: read, readv, write, writev and
 *   the like, every thread of the process, libuv's pool included).
 * - Bytes read from and written to TCP/Unix sockets (Node's own per-socket bytesRead/bytesWritten,
 *   so file I/O is not mixed in, as /proc's rchar/wchar would): every socket the process accepts
 *   (the load, via the 'net.server.socket' diagnostics channel) or connects (passed in by health.cjs).
 * - HTTP responses finished (the 'http.server.response.finish' channel): the window's own count of
 *   requests, so "per request" divides the window's work by the requests served in that same
 *   window. The load generator's count covers a different span (the slice, not the window around
 *   it), and a side that finishes more requests after the load stops would read as doing more work.
 *
 * Between windows nothing runs but a 'close' listener per socket, a check per response and, from
 * the first window to the flush, the profiler and the observer (a callback per collection).
 */
const fs = require('node:fs');
const v8 = require('node:v8');
const { performance, PerformanceObserver } = require('node:perf_hooks');

/** read + write system calls so far (Linux), or null where /proc/self/io cannot be read. */
function systemCalls() {
  try {
    const text = fs.readFileSync('/proc/self/io', 'latin1');
    const field = (name) => Number(new RegExp(`^${name}: (\\d+)$`, 'm').exec(text)?.[1]);
    const calls = field('syscr') + field('syscw');
    return Number.isFinite(calls) ? calls : null;
  } catch {
    return null;
  }
}

/**
 * The heap spaces of V8's compiled code and its metadata (the trusted spaces: V8 12, Node 22 on).
 * They are left out of the allocated bytes: optimizing a function allocates there once, whenever
 * V8 gets to it, and on a service of a few hundred requests a second that lands in one measured
 * window of one side (a CPU-bound service's first pairs read 239 kB of code, +18% per request).
 */
const JIT_SPACES = new Set(['code_space', 'code_large_object_space', 'trusted_space', 'trusted_large_object_space', 'shared_trusted_space', 'shared_trusted_large_object_space']);

/** The used size of the code and trusted spaces: only compiling code moves it, not the program's allocations. */
function jitHeap() {
  let jit = 0;
  for (const space of v8.getHeapSpaceStatistics()) if (JIT_SPACES.has(space.space_name)) jit += space.space_used_size;
  return jit;
}

/** The same, from a GCProfiler record's statistics. */
function programHeapOf(statistics) {
  let jit = 0;
  for (const space of statistics.heapSpaceStatistics ?? []) if (JIT_SPACES.has(space.spaceName)) jit += space.spaceUsedSize;
  return statistics.heapStatistics.usedHeapSize - jit;
}

/**
 * The names GCProfiler gives the 'gc' observer's kinds (perf_hooks constants; V8's GCType). Node
 * names V8's minor mark-sweep (2, off by default) "Unknown" where it does not know it.
 */
const GC_KIND_NAMES = { 1: ['Scavenge'], 2: ['MinorMarkSweep', 'Unknown'], 4: ['MarkSweepCompact'], 8: ['IncrementalMarking'], 16: ['ProcessWeakCallbacks'] };
const sameCollection = (entry, record) => (GC_KIND_NAMES[entry.detail?.kind ?? entry.kind] ?? []).includes(record.gcType);
/**
 * Collections one profile may hold before it is read and restarted between windows: its buffer
 * takes about 1.5 kB per collection, and reading it parses all of it on the service's heap.
 */
const MAX_PROFILED_GCS = 5000;

/**
 * The heap's used size at a window's edge, less the code and trusted spaces, between two clock
 * readings: a collection that starts between them (reading the heap allocates) cannot be placed
 * on either side of the edge. The spaces left out are read first, outside the readings: the
 * objects that reading makes do not go there, and it makes a dozen.
 */
function heapMark() {
  const jit = jitHeap();
  const before = performance.now();
  const used = v8.getHeapStatistics().used_heap_size - jit;
  return { before, used, after: performance.now() };
}

/**
 * Bytes allocated per window, found at the flush (above). `open(id)` and `close()` mark a window's
 * edges; `flush()` reads the profile and resolves to [{ id, allocatedBytes }] for the windows
 * closed since the last flush (null where a collection could not be placed).
 */
function allocationLedger() {
  let observer = null;
  /** The observer's entries since it started, as they are delivered. */
  let entries = [];
  let profiler = null;
  let profiledFrom = null;
  /** Profiles read so far: their records and the clock readings around their start and stop. */
  let profiles = [];
  let windows = [];

  function startProfile() {
    if (observer === null) {
      observer = new PerformanceObserver((list) => entries.push(...list.getEntries()));
      observer.observe({ entryTypes: ['gc'] });
    }
    const from = performance.now();
    profiler = new v8.GCProfiler();
    profiler.start();
    profiledFrom = [from, performance.now()];
  }

  function stopProfile() {
    const from = performance.now();
    const records = profiler.stop()?.statistics ?? [];
    profiles.push({ edges: [...profiledFrom, from, performance.now()], records });
    profiler = null;
  }

  /**
   * Each profile's collections, placed at the start time of the observer's entry for the same
   * collection, or the profile's whole span marked unknown when the two do not agree in number
   * and kinds. A collection that begins while the profiler is started or stopped is not in it:
   * the wrapper allocates before the native start, and stop() builds its string and parses it
   * after the native stop took the records.
   */
  function collections() {
    const placed = [];
    for (const { edges, records } of profiles) {
      const inside = entries.filter((e) => e.startTime >= edges[1] && e.startTime <= edges[2]);
      const matched = inside.length === records.length && inside.every((e, i) => sameCollection(e, records[i]));
      if (!matched) {
        placed.push({ unknownFrom: edges[0], unknownTo: edges[3] });
        continue;
      }
      for (const [i, gc] of records.entries()) {
        placed.push({ at: inside[i].startTime, freed: programHeapOf(gc.beforeGC) - programHeapOf(gc.afterGC) });
      }
    }
    return placed;
  }

  function bytesOf(window, placed) {
    const { begin, end } = window;
    let freed = 0;
    for (const gc of placed) {
      if (gc.at === undefined) {
        if (gc.unknownFrom < end.after && gc.unknownTo > begin.before) return null;
      } else if ((gc.at > begin.before && gc.at < begin.after) || (gc.at > end.before && gc.at < end.after)) {
        return null; // began while an edge was read
      } else if (gc.at >= begin.after && gc.at <= end.before) {
        freed += gc.freed;
      }
    }
    return end.used - begin.used + freed;
  }

  return {
    open(id) {
      // A long-lived profile is read and restarted between windows, so its buffer stays small.
      if (profiler !== null && entries.length > MAX_PROFILED_GCS * (profiles.length + 1)) stopProfile();
      if (profiler === null) startProfile();
      windows.push({ id, begin: heapMark(), end: null });
    },
    close() {
      const window = windows.at(-1);
      if (window && window.end === null) window.end = heapMark();
    },
    async flush() {
      if (profiler !== null) stopProfile();
      // Node emits a collection's entry from a setImmediate after it: let the last ones through.
      await new Promise((resolve) => setImmediate(resolve));
      if (observer !== null) {
        entries.push(...observer.takeRecords());
        observer.disconnect();
        observer = null;
      }
      const placed = collections();
      const result = windows.filter((w) => w.end !== null).map((w) => ({ id: w.id, allocatedBytes: bytesOf(w, placed) }));
      windows = [];
      profiles = [];
      entries = [];
      return result;
    },
  };
}

/**
 * The counters of this process. `track(socket)` adds a socket the process connected (health.cjs
 * watches connects); accepted sockets are found by themselves. `begin(id)` opens a window, `end()`
 * closes it and returns its counts (null where one cannot be counted here; allocatedBytes is
 * undefined, as it is known at the flush), and `flush()` resolves to the allocated bytes of the
 * windows closed since the last flush.
 */
function startCounters() {
  // The switch bench/health-cost.mjs uses to measure what the counters cost: `off`, or the parts
  // left out (`gc,responses,sockets,syscalls`), whose counts then read null or 0.
  const setting = process.env.PERFGATE_HEALTH_COUNTERS ?? '';
  if (setting === 'off') return { track() {}, begin() {}, end: () => null, flush: async () => [] };
  const without = new Set(setting.split(','));
  /** Live sockets → their bytes [read, written] when the window opened (0 for a socket opened in it). */
  const sockets = new Map();
  /** Bytes of the sockets that closed during the open window. */
  const closed = { read: 0, written: 0 };
  let open = false;
  let responses = 0;
  const allocations = typeof v8.GCProfiler === 'function' && !without.has('gc') ? allocationLedger() : null;
  let callsAtBegin = null;

  function track(socket) {
    if (sockets.has(socket)) return;
    sockets.set(socket, [0, 0]);
    socket.once('close', () => {
      const since = sockets.get(socket);
      sockets.delete(socket);
      if (!open || since === undefined) return;
      closed.read += socket.bytesRead - since[0];
      closed.written += socket.bytesWritten - since[1];
    });
  }
  const diagnostics = require('node:diagnostics_channel');
  if (!without.has('sockets')) diagnostics.subscribe('net.server.socket', ({ socket }) => track(socket));
  if (!without.has('responses')) {
    diagnostics.subscribe('http.server.response.finish', () => {
      if (open) responses++;
    });
  }

  function begin(id) {
    for (const socket of sockets.keys()) sockets.set(socket, [socket.bytesRead, socket.bytesWritten]);
    closed.read = 0;
    closed.written = 0;
    responses = 0;
    callsAtBegin = without.has('syscalls') ? null : systemCalls();
    allocations?.open(id);
    open = true;
  }

  function end() {
    if (!open) return null;
    open = false;
    allocations?.close();
    const calls = systemCalls();
    let read = closed.read;
    let written = closed.written;
    for (const [socket, since] of sockets) {
      read += socket.bytesRead - since[0];
      written += socket.bytesWritten - since[1];
    }
    return {
      // known at the flush; null where the process cannot count it
      allocatedBytes: allocations === null ? null : undefined,
      syscalls: calls === null || callsAtBegin === null ? null : calls - callsAtBegin,
      socketBytesRead: read,
      socketBytesWritten: written,
      responses,
    };
  }

  return { track, begin, end, flush: async () => (allocations === null ? [] : allocations.flush()) };
}

module.exports = { startCounters, systemCalls };
