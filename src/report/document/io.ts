/**
 * The "I/O per request" section of the reports: per scenario and destination, the round trips
 * and the wait on them per request served, base → head, from the analysis (src/assess/io.ts), and
 * in words what a change suggests, as document lines the printers lay out. Pure.
 */
import type { Analysis, IoComparison, IoSide } from '../../results/types.js';
import type { Intro, Line } from './types.js';

/** Most lines shown; the changed ones first, so a long list drops only unchanged destinations. */
const MAX_LINES = 12;

export interface IoLine {
  scenario: string;
  /** "127.0.0.1:5432: 1.0 → 21.0 round trips per request, 0.4 → 6.1 ms waiting" */
  text: string;
  changed: boolean;
  /** What the change suggests, a phrase; null when unchanged. */
  reason: string | null;
  /** The named calls behind a changed line, where the client publishes them: "most changed: GET (1.0 → 0 calls per request)"; null otherwise. */
  named: string | null;
}

function roundTrips(side: IoSide | null): string {
  return side === null ? 'none' : side.roundTripsPerRequest.toFixed(1);
}

/** Milliseconds with a decimal where it matters: 0.04, 0.4, 6.1, 35, 1200. */
function waitMs(side: IoSide | null): string {
  if (side === null) return 'none';
  const ms = side.waitMsPerRequest;
  if (ms < 0.1) return ms.toFixed(2);
  return ms < 20 ? ms.toFixed(1) : ms.toFixed(0);
}

/** "127.0.0.1:5432: 1.0 → 21.0 round trips per request, 0.4 → 6.1 ms waiting" (the destination as measured, unescaped). */
export function describeIo(c: IoComparison): string {
  return `${c.destination}: ${roundTrips(c.base)} → ${roundTrips(c.head)} round trips per request, ${waitMs(c.base)} → ${waitMs(c.head)} ms waiting`;
}

/** Whether the line changed: its round trips, its wait, or the calls of a name. */
export function ioChanged(c: IoComparison): boolean {
  return c.roundTripsChanged || c.waitChanged || c.named.some((n) => n.changed);
}

/** What a change suggests to the developer reading the pull request. */
export function explainIo(c: IoComparison): string | null {
  if (!ioChanged(c)) return null;
  if (c.base === null) return 'a new destination: every request now goes there';
  if (c.head === null) return 'no longer contacted';
  // Round trips first; where they did not move beyond the noise, a name's calls (a pipelining
  // client packs several calls in one round trip).
  if (c.roundTripsChanged) {
    return c.head.roundTripsPerRequest > c.base.roundTripsPerRequest
      ? 'more round trips per request: a query per item (N+1), a bigger result fetched in more batches, or a lost batch or cache?'
      : 'fewer round trips per request';
  }
  // The round trips did not move beyond the noise but a name's calls did: a client that pipelines
  // packs the calls of concurrent requests into fewer round trips.
  const calls = c.named.find((n) => n.changed);
  if (calls !== undefined) {
    return calls.head > calls.base ? 'more calls per request, pipelined: a query per item (N+1), or a lost batch or cache?' : 'fewer calls per request, pipelined';
  }
  return c.head.waitMsPerRequest > c.base.waitMsPerRequest
    ? 'as many round trips, each answered later: a slower query (a dropped index, a bigger result) or a busier server?'
    : 'as many round trips, each answered sooner';
}

/** Calls per request: 0, 0.4, 1.0, 20. */
function calls(perRequest: number): string {
  if (perRequest === 0) return '0';
  return perRequest < 10 ? perRequest.toFixed(1) : perRequest.toFixed(0);
}

/** The name whose calls per request changed most, "most changed: GET (1.0 → 0 calls per request)"; null when no call was named. */
export function describeNamed(c: IoComparison): string | null {
  const top = c.named[0];
  if (top === undefined) return null;
  const figures = calls(top.base) === calls(top.head) ? `${calls(top.base)} calls per request` : `${calls(top.base)} → ${calls(top.head)} calls per request`;
  return `${calls(top.base) === calls(top.head) ? 'calls' : 'most changed'}: ${top.name} (${figures})`;
}

/** Every destination of every scenario, changed ones first, at most MAX_LINES. */
export function ioLines(analysis: Analysis): IoLine[] {
  const lines = (analysis.io?.comparisons ?? []).map((c) => {
    const changed = ioChanged(c);
    // Names only where the line says something changed: that is where the reader asks which call.
    return { scenario: c.scenario, text: describeIo(c), changed, reason: changed ? explainIo(c) : null, named: changed ? describeNamed(c) : null };
  });
  return [...lines.filter((l) => l.changed), ...lines.filter((l) => !l.changed)].slice(0, MAX_LINES);
}

/** The section: what it counts, then one line per destination of a scenario; null when the run counted no outgoing I/O. */
export function ioSection(analysis: Analysis): { intro: Intro; items: Line[] } | null {
  const lines = ioLines(analysis);
  if (lines.length === 0) return null;
  return {
    intro: {
      title: 'I/O per request',
      about:
        "round trips the service's own processes made (a write, then the first answer), by destination, and the time requests waited on them; information, not gated",
    },
    items: lines.map(ioItem),
  };
}

/** One destination of a scenario: what changed in bold, and what it suggests. */
function ioItem(l: IoLine): Line {
  return [
    { kind: 'text', text: l.scenario },
    { kind: 'label', text: ' · ' },
    { kind: 'text', text: l.text, ...(l.changed && { strong: true }) },
    ...(l.reason ? ([{ kind: 'label', text: ': ' }, { kind: 'text', text: l.reason }] as const) : ([{ kind: 'label', text: ' (unchanged)' }] as const)),
    ...(l.named ? ([{ kind: 'label', text: '; ' }, { kind: 'text', text: l.named }] as const) : []),
  ];
}

/** Changed destinations said before the fold; the section below it has every one. */
const STORY_IO_LINES = 3;

/** The destinations whose round trips or wait changed, the first STORY_IO_LINES: what happened, in the reader's first screen. */
export function ioStory(analysis: Analysis): Line[] {
  return ioLines(analysis)
    .filter((l) => l.changed)
    .slice(0, STORY_IO_LINES)
    .map(ioItem);
}
