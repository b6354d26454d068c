/**
 * Outgoing I/O per request (pure): what the service's processes counted of their own round trips
 * to databases, caches and other services (src/preload/health.cjs), per scenario and destination,
 * base against head. Information, never gated: it says why a latency or throughput verdict moved
 * (an N+1 query multiplies the round trips; a dropped index keeps them and lengthens each wait),
 * which a CPU profile of the service cannot show. docs/databases.md explains the numbers.
 */
import type { IoAnalysis, IoComparison, IoNamedCalls, IoSide, Results, ScenarioResults, Side, Slice } from '../results/types.js';
import { median } from '../stats/descriptive.js';
import { signFlipTest } from '../stats/sign-flip.js';
import { startOf, summarizeStarts } from './starts.js';

const SIDES: readonly Side[] = ['base', 'head'];
const SIGNIFICANCE = 0.05;
/**
 * A change worth a line must also be this large, relatively and absolutely: a fifth, and half a
 * round trip or a tenth of a millisecond per request. Below that a connection pool's keep-alive
 * or a retried handshake moves the counts without meaning anything.
 */
const MIN_RELATIVE = 0.2;
const MIN_ROUND_TRIPS = 0.5;
const MIN_WAIT_MS = 0.1;
const MIN_CALLS = 0.5;

/** Most names a destination's line keeps, the most changed first. */
const MAX_NAMED = 5;

interface SliceIo {
  /** Requests the service's processes finished in the slice (each counted whole, src/preload/health.cjs). */
  requests: number;
  /** Per destination, their round trips and wait (ms). */
  sums: Map<string, { roundTrips: number; waitMs: number }>;
  /** Their calls by name, where the client published them: destination as the client names it → name → calls. */
  named: Map<string, Map<string, number>>;
}

const LOOPBACK = new Set(['localhost', '127.0.0.1', '::1', '[::1]']);

/**
 * Whether a client's name for its server is the socket's destination: the socket has the resolved
 * address (127.0.0.1:6379), the client what it was given (localhost:6379). Loopback names are one
 * host; others must match exactly.
 */
export function sameDestination(named: string, socket: string): boolean {
  if (named === socket) return true;
  const split = (destination: string) => {
    const colon = destination.lastIndexOf(':');
    return colon < 0 ? [destination, ''] : [destination.slice(0, colon), destination.slice(colon + 1)];
  };
  const [namedHost, namedPort] = split(named);
  const [socketHost, socketPort] = split(socket);
  return namedPort === socketPort && namedPort !== '' && LOOPBACK.has(namedHost!) && LOOPBACK.has(socketHost!);
}

/** One slice's I/O; null when no request was counted (the service never connected out, or served none). */
function sliceIo(slice: Slice): SliceIo | null {
  const processes = slice.health?.processes ?? [];
  const requests = processes.reduce((sum, p) => sum + p.ioRequests, 0);
  if (requests === 0) return null;
  const sums = new Map<string, { roundTrips: number; waitMs: number }>();
  for (const tally of processes.flatMap((p) => p.io)) {
    const sum = sums.get(tally.destination) ?? { roundTrips: 0, waitMs: 0 };
    sum.roundTrips += tally.roundTrips;
    sum.waitMs += tally.waitMs;
    sums.set(tally.destination, sum);
  }
  const named = new Map<string, Map<string, number>>();
  for (const call of processes.flatMap((p) => p.queries)) {
    const names = named.get(call.destination) ?? new Map<string, number>();
    names.set(call.name, (names.get(call.name) ?? 0) + call.calls);
    named.set(call.destination, names);
  }
  return { requests, sums, named };
}

/** A slice's calls by name to a socket's destination (the client's names for it matched), per request served. */
function callsPerRequest(io: SliceIo, destination: string): Map<string, number> {
  const calls = new Map<string, number>();
  for (const [named, names] of io.named) {
    if (!sameDestination(named, destination)) continue;
    for (const [name, count] of names) calls.set(name, (calls.get(name) ?? 0) + count / io.requests);
  }
  return calls;
}

/**
 * Per name, the calls to a destination per request served, base and head, the most changed first.
 * The side's figure weighs the slices by their requests, as the round trips do; "changed" is the
 * round trips' test on the per-slice figures, with half a call as the least change. Calls are what
 * the code asked for: a client that pipelines (node-redis sends the commands of concurrent
 * requests in one write) makes fewer round trips than calls, so a dropped cache can take a GET off
 * every request while the round trips move by a fraction.
 */
function namedCalls(pairs: { base: SliceIo; head: SliceIo; start: number }[], destination: string): IoNamedCalls[] {
  const perSlice = pairs.map((p) => ({ base: callsPerRequest(p.base, destination), head: callsPerRequest(p.head, destination) }));
  const names = [...new Set(perSlice.flatMap((p) => [...p.base.keys(), ...p.head.keys()]))];
  const starts = pairs.map((p) => p.start);
  const side = (name: string, which: Side) => {
    const requests = pairs.reduce((total, p) => total + p[which].requests, 0);
    return pairs.reduce((total, p, i) => total + (perSlice[i]![which].get(name) ?? 0) * p[which].requests, 0) / requests;
  };
  return names
    .map((name) => {
      const series = (which: Side) => perSlice.map((p) => p[which].get(name) ?? 0);
      return { name, base: side(name, 'base'), head: side(name, 'head'), changed: changed(series('base'), series('head'), starts, MIN_CALLS) };
    })
    .sort((a, b) => Math.abs(b.head - b.base) - Math.abs(a.head - a.base) || b.head + b.base - (a.head + a.base) || a.name.localeCompare(b.name))
    .slice(0, MAX_NAMED);
}

/**
 * Whether head − base moved beyond the start pairs' noise: the sign-flip test of the per-start
 * differences (each start's pairs summarised first, as the verdicts do) rejects "no change" at 5%,
 * and the medians differ by the minimums above. Not a rank interval: counts are exact, so most
 * starts can differ by the very same number (1 → 21 queries), and ties that heavy leave a
 * signed-rank interval short of its level however clear the change is.
 */
function changed(base: number[], head: number[], starts: number[], minAbsolute: number): boolean {
  const baseMedian = median(base);
  const headMedian = median(head);
  const difference = Math.abs(headMedian - baseMedian);
  if (difference < minAbsolute || difference < MIN_RELATIVE * Math.min(baseMedian, headMedian)) return false;
  const perStart = summarizeStarts(
    head.map((h, i) => h - base[i]!),
    starts,
  ).map((s) => s.value);
  if (perStart.every((d) => d === 0)) return false;
  return signFlipTest(perStart).p < SIGNIFICANCE;
}

function compareScenario(scenario: ScenarioResults): IoComparison[] {
  const pairs = scenario.pairs.flatMap((pair) => {
    const base = sliceIo(pair.base);
    const head = sliceIo(pair.head);
    return base && head ? [{ base, head, start: startOf(pair) }] : [];
  });
  const destinations = [...new Set(pairs.flatMap((p) => [...p.base.sums.keys(), ...p.head.sums.keys()]))].sort();
  return destinations.map((destination) => {
    // A slice of a side that reported, with no round trip to this destination, made none.
    const sum = (io: SliceIo) => io.sums.get(destination) ?? { roundTrips: 0, waitMs: 0 };
    const series = (side: Side, key: 'roundTrips' | 'waitMs') => pairs.map((p) => sum(p[side])[key] / p[side].requests);
    // The side's figure is its totals over the slices, per request: a round trip that ended in
    // the slice after the one its request finished in (or before) evens out over the run, where
    // a median of the slices' own ratios keeps each slice's edge (with a dozen slow requests a
    // slice, 21.9 for 21).
    const summary = (side: Side): IoSide | null => {
      if (!pairs.some((p) => p[side].sums.has(destination))) return null;
      const requests = pairs.reduce((total, p) => total + p[side].requests, 0);
      const total = (key: 'roundTrips' | 'waitMs') => pairs.reduce((t, p) => t + sum(p[side])[key], 0);
      return { roundTripsPerRequest: total('roundTrips') / requests, waitMsPerRequest: total('waitMs') / requests };
    };
    const starts = pairs.map((p) => p.start);
    const [base, head] = SIDES.map(summary) as [IoSide | null, IoSide | null];
    return {
      scenario: scenario.name,
      destination,
      base,
      head,
      roundTripsChanged: changed(series('base', 'roundTrips'), series('head', 'roundTrips'), starts, MIN_ROUND_TRIPS),
      waitChanged: changed(series('base', 'waitMs'), series('head', 'waitMs'), starts, MIN_WAIT_MS),
      named: namedCalls(pairs, destination),
    };
  });
}

/** Every scenario's outgoing I/O, base against head; undefined when no slice counted any. */
export function analyzeIo(results: Results): IoAnalysis | undefined {
  const comparisons = results.scenarios.flatMap(compareScenario);
  return comparisons.length > 0 ? { comparisons } : undefined;
}
