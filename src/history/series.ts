/**
 * From runs to change points. Each results.json compares base and head once; for main's history a
 * run stands for its head commit, and a metric's point is head's median for that scenario. Points
 * are ordered by when they were measured (the run's start: the commit time is not recorded, and a
 * workflow on main measures commits in the order they land). A commit measured twice counts once,
 * by its latest run; a sharded gate's shards are each one part of it. Pure: (runs) → series and
 * change points.
 */
import { METRICS, type MetricId } from '../config/types.js';
import { assessResults } from '../assess/compare.js';
import { configHash } from '../results/config-hash.js';
import type { Results } from '../results/types.js';
import { type ChangePointOptions, detectChangePoints } from '../stats/change-points.js';

/** What the numbers depend on besides the code, as `perfgate history` compares it from run to run. */
export const ENVIRONMENT_KEYS = ['cpu', 'cpus', 'kernel', 'image', 'node', 'v8', 'flags', 'perfgate', 'configuration'] as const;
export type EnvironmentKey = (typeof ENVIRONMENT_KEYS)[number];
export type EnvironmentRecord = Record<EnvironmentKey, string>;

export interface HistoryPoint {
  sha: string;
  /** The run's start, ISO time. */
  time: string;
  /** Head's median, in the metric's unit. */
  value: number;
  /** Index into HistorySeries' environments. */
  environment: number;
}

export interface HistorySeries {
  scenario: string;
  metric: MetricId;
  points: HistoryPoint[];
}

export interface EnvironmentChange {
  key: EnvironmentKey;
  before: string;
  after: string;
}

export interface Shift {
  /** Index of the first point after the change. */
  index: number;
  sha: string;
  time: string;
  /** Means of the stretches before and after, between the neighbouring change points, in the metric's unit. */
  meanBefore: number;
  meanAfter: number;
  /** meanAfter / meanBefore − 1. */
  change: number;
  pValue: number;
  /** What differed between the run before and this one besides the code (empty: only the code did). */
  environment: EnvironmentChange[];
}

export interface SeriesAnalysis extends HistorySeries {
  shifts: Shift[];
}

export interface History {
  series: SeriesAnalysis[];
  /** Distinct environments, referred to by index from the points. */
  environments: EnvironmentRecord[];
  /** Runs left out: not complete, or of a work tree with uncommitted changes (no commit to name). */
  runsLeftOut: { file: string; reason: string }[];
  runs: number;
}

/** The environment of a run as the strings history compares; fields older files lack are read from what they have. */
export function environmentOf(results: Results): EnvironmentRecord {
  const env = results.environment;
  return {
    cpu: env.cpuModel,
    cpus: String(env.cpus),
    kernel: env.kernel ?? env.os.replace(/^\S+\s+/, ''),
    image: env.osImage ?? 'unknown',
    node: env.nodeVersion,
    v8: env.v8Version ?? 'unknown',
    flags: env.nodeFlags.join(' ') || 'none',
    perfgate: results.tool.version,
    configuration: (env.configHash ?? configHash(results.config)).slice(0, 12),
  };
}

/** The keys whose values differ; a value nobody recorded ("unknown") on either side is no evidence of a change. */
export function environmentChanges(before: EnvironmentRecord, after: EnvironmentRecord): EnvironmentChange[] {
  return ENVIRONMENT_KEYS.filter((k) => before[k] !== after[k] && before[k] !== 'unknown' && after[k] !== 'unknown').map((key) => ({
    key,
    before: before[key],
    after: after[key],
  }));
}

function meanOf(values: readonly number[]): number {
  return values.reduce((s, v) => s + v, 0) / values.length;
}

/**
 * The split step's window for history: 30 points rather than Otava's 50. Each window's t-test
 * compares the stretches on either side of a candidate, so a shift that is undone within the
 * window (a regression and its fix, a slowdown and a faster kernel) hides both: the stretch after
 * the first mixes the two levels. Weekly runs of main rarely hold 50 commits between such shifts.
 */
export const HISTORY_WINDOW = 30;

/** Runs into series per scenario and gated metric, the change points of each, and what changed around them. */
export function analyzeHistory(runs: readonly { file: string; results: Results }[], given: ChangePointOptions = {}): History {
  const options = { windowLength: HISTORY_WINDOW, ...given };
  const runsLeftOut: History['runsLeftOut'] = [];
  const latest = new Map<string, { file: string; results: Results }>();
  for (const run of runs) {
    const { results } = run;
    if (results.status !== 'complete') {
      runsLeftOut.push({ file: run.file, reason: `the run did not complete (status ${results.status})` });
      continue;
    }
    if (results.sides.head.dirty) {
      runsLeftOut.push({ file: run.file, reason: 'head was a work tree with uncommitted changes, not a commit' });
      continue;
    }
    // A shard measured its part of the commit's scenarios: each part counts once.
    const sha = results.sides.head.sha;
    const part = results.shard ? ` (shard ${results.shard.index}/${results.shard.count})` : '';
    const seen = latest.get(sha + part);
    if (seen) runsLeftOut.push({ file: seen.results.startedAt < results.startedAt ? seen.file : run.file, reason: `commit ${sha.slice(0, 7)}${part} was measured again later` });
    if (!seen || seen.results.startedAt < results.startedAt) latest.set(sha + part, run);
  }
  const ordered = [...latest.values()].sort((a, b) => (a.results.startedAt < b.results.startedAt ? -1 : a.results.startedAt > b.results.startedAt ? 1 : 0));

  const environments: EnvironmentRecord[] = [];
  const environmentIndex = new Map<string, number>();
  const byKey = new Map<string, HistorySeries>();
  for (const { results } of ordered) {
    const record = environmentOf(results);
    const key = JSON.stringify(record);
    let environment = environmentIndex.get(key);
    if (environment === undefined) {
      environment = environments.push(record) - 1;
      environmentIndex.set(key, environment);
    }
    for (const c of assessResults(results).comparisons) {
      if (!c.gated || !Number.isFinite(c.headMedian)) continue;
      const id = `${c.scenario}\u0000${c.metric}`;
      let series = byKey.get(id);
      if (!series) {
        series = { scenario: c.scenario, metric: c.metric, points: [] };
        byKey.set(id, series);
      }
      const point = { sha: results.sides.head.sha, time: results.startedAt, value: c.headMedian, environment };
      // One point per commit: a commit sharded two ways in two runs measured this scenario twice,
      // and the later run counts.
      const again = series.points.findIndex((p) => p.sha === point.sha);
      if (again >= 0) series.points.splice(again, 1);
      series.points.push(point);
    }
  }

  const series = [...byKey.values()]
    .sort((a, b) => (a.scenario < b.scenario ? -1 : a.scenario > b.scenario ? 1 : METRICS.indexOf(a.metric) - METRICS.indexOf(b.metric)))
    .map((s) => ({ ...s, shifts: shiftsOf(s, environments, options) }));
  return { series, environments, runsLeftOut, runs: ordered.length };
}

function shiftsOf(series: HistorySeries, environments: readonly EnvironmentRecord[], options: ChangePointOptions): Shift[] {
  const values = series.points.map((p) => p.value);
  const points = detectChangePoints(values, options);
  const cuts = [0, ...points.map((p) => p.index), values.length];
  return points.map((p, i) => {
    // The size from the final stretches around the point: the detector's own statistics of a point
    // can predate the merge of a neighbour (stats/change-points.ts).
    const meanBefore = meanOf(values.slice(cuts[i], p.index));
    const meanAfter = meanOf(values.slice(p.index, cuts[i + 2]));
    const here = series.points[p.index]!;
    const before = series.points[p.index - 1]!;
    return {
      index: p.index,
      sha: here.sha,
      time: here.time,
      meanBefore,
      meanAfter,
      change: meanBefore === 0 ? 0 : meanAfter / meanBefore - 1,
      pValue: p.pValue,
      environment: environmentChanges(environments[before.environment]!, environments[here.environment]!),
    };
  });
}
