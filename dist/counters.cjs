'use strict';
/*
 * Work counters of one health window (loaded by health.cjs): what the process did, counted rather
 * than timed, so a neighbour that steals the CPU cannot move them. docs/health.md, "Work counters".
 *
 * - Bytes allocated on the V8 heap. Neither Node 20 nor Node 24 exposes V8's cumulative
 *   allocation counter (`v8.getHeapStatistics()` has no total_allocated_bytes in either), so it is
 *   rebuilt exactly from what they do expose: between two collections the heap's used size only
 *   grows by what is allocated, and each collection lowers it by what it freed. v8.GCProfiler
 *   (Node ≥ 18.15) records the used size before and after every collection, so
 *   allocated = used at the end − used at the start + Σ (before − after) over the collections.
 *   A 'gc' PerformanceObserver is not enough: its entries carry no heap sizes, and sampling the
 *   heap when the observer runs misses what was allocated between the collection and the callback.
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
 * Between windows nothing runs but a 'close' listener per socket and a check per response; a
 * window costs one profiler (a callback per collection) and two small reads of /proc.
 */
const fs = require('node:fs');
const v8 = require('node:v8');

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

function usedHeap() {
  return v8.getHeapStatistics().used_heap_size;
}

/**
 * The counters of this process. `track(socket)` adds a socket the process connected (health.cjs
 * watches connects); accepted sockets are found by themselves. `begin()` opens a window, `end()`
 * closes it and returns its counts (null where one cannot be counted here).
 */
function startCounters() {
  // The switch bench/health-cost.mjs uses to measure what the counters cost: `off`, or the parts
  // left out (`gc,responses,sockets,syscalls`), whose counts then read null or 0.
  const setting = process.env.PERFGATE_HEALTH_COUNTERS ?? '';
  if (setting === 'off') return { track() {}, begin() {}, end: () => null };
  const without = new Set(setting.split(','));
  /** Live sockets → their bytes [read, written] when the window opened (0 for a socket opened in it). */
  const sockets = new Map();
  /** Bytes of the sockets that closed during the open window. */
  const closed = { read: 0, written: 0 };
  let open = false;
  let responses = 0;
  let profiler = null;
  let heapAtBegin = 0;
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

  function begin() {
    for (const socket of sockets.keys()) sockets.set(socket, [socket.bytesRead, socket.bytesWritten]);
    closed.read = 0;
    closed.written = 0;
    responses = 0;
    callsAtBegin = without.has('syscalls') ? null : systemCalls();
    profiler = typeof v8.GCProfiler === 'function' && !without.has('gc') ? new v8.GCProfiler() : null;
    profiler?.start();
    heapAtBegin = usedHeap();
    open = true;
  }

  function end() {
    if (!open) return null;
    open = false;
    // Read before stop(): stop() builds the profile's objects on the heap.
    const heapAtEnd = usedHeap();
    let allocatedBytes = null;
    if (profiler !== null) {
      let freed = 0;
      for (const gc of profiler.stop()?.statistics ?? []) freed += gc.beforeGC.heapStatistics.usedHeapSize - gc.afterGC.heapStatistics.usedHeapSize;
      allocatedBytes = heapAtEnd - heapAtBegin + freed;
      profiler = null;
    }
    const calls = systemCalls();
    let read = closed.read;
    let written = closed.written;
    for (const [socket, since] of sockets) {
      read += socket.bytesRead - since[0];
      written += socket.bytesWritten - since[1];
    }
    return {
      allocatedBytes,
      syscalls: calls === null || callsAtBegin === null ? null : calls - callsAtBegin,
      socketBytesRead: read,
      socketBytesWritten: written,
      responses,
    };
  }

  return { track, begin, end };
}

module.exports = { startCounters, systemCalls };
