/**
 * Micro-benchmark runs → what can be compared. Each benchmark is matched across sides by file,
 * suite, name and occurrence; a round pairs the two processes' numbers (docs/benchmarks.md: one
 * number per process). What cannot be paired is listed instead: added (head only), removed
 * (base only), or failed (it threw, or its file failed, on a side). Pure.
 */
import type {
  BenchFileFailure,
  BenchmarkIdentity,
  BenchmarkResults,
  BenchRun,
  Side,
  UncomparedBenchmark,
} from '../results/types.js';
import { median } from '../stats/descriptive.js';

/** A benchmark both sides measured in at least one common round. */
export interface BenchmarkSeries {
  identity: BenchmarkIdentity;
  /** ops/s per paired round, same order on both sides. */
  base: number[];
  head: number[];
}

export interface BenchmarkInventory {
  series: BenchmarkSeries[];
  uncompared: UncomparedBenchmark[];
  failures: BenchFileFailure[];
  /** Plain words per benchmark or file that could not be compared (for the decision text). */
  notCompared: string[];
}

const SIDES: readonly Side[] = ['base', 'head'];

interface Seen {
  file: string;
  suite: string | null;
  name: string;
  occurrence: number;
  library: UncomparedBenchmark['library'];
  /** round → ops/s, per side, from processes that worked; errors per side. */
  values: Record<Side, Map<number, number>>;
  errors: Record<Side, string[]>;
  /** Position inside a process of each side (first seen), for a row order that does not depend on which side ran first. */
  position: Record<Side, number | null>;
}

function keyOf(file: string, suite: string | null, name: string, occurrence: number): string {
  return JSON.stringify([file, suite, name, occurrence]);
}

/**
 * Names as short as they can be while unique: the name alone, else "suite › name", else
 * "file › suite › name"; a repeated suite and name in one file gets " #2", " #3".
 */
function labelsOf(seen: Seen[]): Map<Seen, string> {
  const candidates = (s: Seen): string[] => {
    const suite = s.suite === null ? s.name : `${s.suite} › ${s.name}`;
    const full = `${s.file} › ${suite}`;
    return s.occurrence > 1 ? [`${full} #${s.occurrence}`] : [s.name, suite, full];
  };
  const counts = new Map<string, number>();
  for (const s of seen) for (const c of new Set(candidates(s))) counts.set(c, (counts.get(c) ?? 0) + 1);
  return new Map(seen.map((s) => [s, candidates(s).find((c) => counts.get(c) === 1) ?? candidates(s).at(-1)!]));
}

function failuresOf(runs: BenchRun[]): BenchFileFailure[] {
  const groups = new Map<string, BenchRun[]>();
  for (const run of runs) {
    const key = JSON.stringify([run.file, run.side]);
    groups.set(key, [...(groups.get(key) ?? []), run]);
  }
  const failures: BenchFileFailure[] = [];
  for (const group of groups.values()) {
    const failed = group.filter((r) => r.error !== null);
    if (failed.length === 0) continue;
    failures.push({
      file: group[0]!.file,
      side: group[0]!.side,
      failedRounds: failed.map((r) => r.round),
      runs: group.length,
      message: failed.at(-1)!.error!,
    });
  }
  return failures;
}

function firstLine(text: string): string {
  return text.split('\n')[0]!;
}

export function inventoryBenchmarks(benchmarks: BenchmarkResults): BenchmarkInventory {
  const seen = new Map<string, Seen>();
  for (const run of benchmarks.runs) {
    if (run.error !== null) continue;
    run.benchmarks.forEach((record, index) => {
      const key = keyOf(run.file, record.suite, record.name, record.occurrence);
      let entry = seen.get(key);
      if (!entry) {
        entry = {
          file: run.file,
          suite: record.suite,
          name: record.name,
          occurrence: record.occurrence,
          library: record.library,
          values: { base: new Map(), head: new Map() },
          errors: { base: [], head: [] },
          position: { base: null, head: null },
        };
        seen.set(key, entry);
      }
      entry.position[run.side] ??= index;
      if (record.opsPerSec !== null) entry.values[run.side].set(run.round, record.opsPerSec);
      else if (record.error !== null) entry.errors[run.side].push(record.error);
    });
  }

  const failures = failuresOf(benchmarks.runs);
  const fileFailedOn = (file: string, side: Side) => {
    const runs = benchmarks.runs.filter((r) => r.file === file && r.side === side);
    return runs.length > 0 && runs.every((r) => r.error !== null);
  };
  // Files sorted, then benchmarks in the order their process reported them (base's first).
  const fileOrder = [...new Set([...benchmarks.files.base, ...benchmarks.files.head])].sort();
  const rank = (e: Seen): [number, number] => (e.position.base !== null ? [e.position.base, 0] : [e.position.head!, 1]);
  const entries = [...seen.values()].sort(
    (a, b) => fileOrder.indexOf(a.file) - fileOrder.indexOf(b.file) || rank(a)[0] - rank(b)[0] || rank(a)[1] - rank(b)[1],
  );
  const labels = labelsOf(entries);

  const series: BenchmarkSeries[] = [];
  const uncompared: UncomparedBenchmark[] = [];
  const notCompared: string[] = [];
  for (const entry of entries) {
    const identity: BenchmarkIdentity = {
      key: keyOf(entry.file, entry.suite, entry.name, entry.occurrence),
      file: entry.file,
      suite: entry.suite,
      name: entry.name,
      occurrence: entry.occurrence,
      label: labels.get(entry)!,
      library: entry.library,
    };
    const rounds = [...entry.values.base.keys()].filter((r) => entry.values.head.has(r)).sort((a, b) => a - b);
    if (rounds.length > 0) {
      series.push({
        identity,
        base: rounds.map((r) => entry.values.base.get(r)!),
        head: rounds.map((r) => entry.values.head.get(r)!),
      });
      continue;
    }
    const sideMedian = (side: Side) => (entry.values[side].size > 0 ? median([...entry.values[side].values()]) : null);
    const present = (side: Side) => entry.values[side].size > 0 || entry.errors[side].length > 0;
    const missingSide = SIDES.find((side) => !present(side));
    let status: UncomparedBenchmark['status'];
    let reason: string | null = null;
    if (missingSide !== undefined && !fileFailedOn(entry.file, missingSide)) {
      status = missingSide === 'base' ? 'added' : 'removed';
    } else {
      status = 'failed';
      const erroredSide = SIDES.find((side) => entry.errors[side].length > 0 && entry.values[side].size === 0);
      reason =
        missingSide !== undefined
          ? `${entry.file} failed on ${missingSide}`
          : erroredSide !== undefined
            ? `it threw on ${erroredSide}: ${firstLine(entry.errors[erroredSide][0]!)}`
            : 'no round gave both sides a number';
      notCompared.push(`${identity.label} (${reason})`);
    }
    uncompared.push({ ...identity, status, baseOpsPerSec: sideMedian('base'), headOpsPerSec: sideMedian('head'), reason });
  }
  // A file that never worked on any side: its benchmarks are unknown, so the file is named.
  for (const file of fileOrder) {
    if (entries.some((e) => e.file === file)) continue;
    const failedSides = SIDES.filter((side) => fileFailedOn(file, side));
    if (failedSides.length > 0) notCompared.push(`${file} (failed on ${failedSides.join(' and ')})`);
  }
  return { series, uncompared, failures, notCompared };
}
