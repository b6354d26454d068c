/**
 * The shapes perfgate works with. What results.json stores is derived from its schema
 * (results/schema.ts: each type is the schema's output), so it is written once; what the gate
 * derives from it (the Analysis, never stored) is declared below.
 */
import type { z } from 'zod';
import type { HealthMetricId, LevelMetricId, MetricId, StartupMetricId } from '../config/types.js';
import type * as schema from './schema.js';
import type { WarningCode } from './warnings.js';

export { RESULTS_VERSION } from './version.js';

/* ---------- stored in results.json (results/schema.ts documents every field) ---------- */

export type Side = z.output<typeof schema.sideSchema>;
export type Environment = z.output<typeof schema.environmentSchema>;
export type SideInfo = z.output<typeof schema.sideInfoSchema>;
export type LatencyUs = z.output<typeof schema.latencyUsSchema>;
export type OfferedLoad = z.output<typeof schema.offeredLoadSchema>;
export type RequestSlice = z.output<typeof schema.requestSliceSchema>;
export type Slice = z.output<typeof schema.sliceSchema>;
export type IdleCpu = z.output<typeof schema.idleCpuSchema>;
export type GcKind = z.output<typeof schema.gcKindSchema>;
export type ProcessHealth = z.output<typeof schema.processHealthSchema>;
export type IoTally = z.output<typeof schema.ioTallySchema>;
export type NamedCalls = z.output<typeof schema.namedCallsSchema>;
export type SliceHealth = z.output<typeof schema.sliceHealthSchema>;
export type Pair = z.output<typeof schema.pairSchema>;
export type StartRecord = z.output<typeof schema.startRecordSchema>;
export type ScenarioResults = z.output<typeof schema.scenarioResultsSchema>;
export type Confirmation = z.output<typeof schema.confirmationSchema>;
/** A scenario with a gated regression and the culprit its profile named: what the third arm tests (engine/phases/confirm.ts). */
export type ConfirmTarget = Pick<Confirmation, 'scenario' | 'culprit'>;
export type UnexpectedAnswer = z.output<typeof schema.unexpectedAnswerSchema>;
export type HeadBroken = z.output<typeof schema.headBrokenSchema>;
export type LoggedError = z.output<typeof schema.loggedErrorSchema>;
/**
 * A file may carry warning codes of other releases (the schema takes any short text); the codes
 * this release writes are WarningCode, so a misspelt one does not compile.
 */
export type RunWarning = Omit<z.output<typeof schema.runWarningSchema>, 'code'> & { code: WarningCode };
export type BenchLibrary = z.output<typeof schema.benchLibrarySchema>;
export type BenchmarkRecord = z.output<typeof schema.benchmarkRecordSchema>;
export type BenchLibraryCopy = z.output<typeof schema.benchLibraryCopySchema>;
export type BenchRun = z.output<typeof schema.benchRunSchema>;
export type BenchmarkResults = z.output<typeof schema.benchmarkResultsSchema>;
export type GitHubRecord = z.output<typeof schema.gitHubRecordSchema>;
export type DependencyChanges = z.output<typeof schema.dependencyChangesSchema>;
export type DependencyChange = z.output<typeof schema.dependencyChangeSchema>;
export type ChangeSet = z.output<typeof schema.changeSetSchema>;
export type ChangedFile = z.output<typeof schema.changedFileSchema>;
export type PlannedLook = z.output<typeof schema.plannedLookSchema>;
export type LookDecision = z.output<typeof schema.lookDecisionSchema>;
export type TakenLook = z.output<typeof schema.takenLookSchema>;
export type SequentialRecord = z.output<typeof schema.sequentialRecordSchema>;
export type ShardRecord = z.output<typeof schema.shardRecordSchema>;
export type FunctionCategory = z.output<typeof schema.functionCategorySchema>;
export type FunctionId = z.output<typeof schema.functionIdSchema>;
export type AttributedInto = z.output<typeof schema.attributedIntoSchema>;
export type FunctionStats = z.output<typeof schema.functionStatsSchema>;
export type ProfileSummary = z.output<typeof schema.profileSummarySchema>;
export type PackageTime = z.output<typeof schema.packageTimeSchema>;
export type SideProfile = z.output<typeof schema.sideProfileSchema>;
export type AllocationStats = z.output<typeof schema.allocationStatsSchema>;
export type AllocationProfile = z.output<typeof schema.allocationProfileSchema>;
export type RetainedHeap = z.output<typeof schema.retainedSchema>;
export type RetainedHolder = z.output<typeof schema.keptHolderSchema>;
export type ScenarioProfile = z.output<typeof schema.scenarioProfileSchema>;
export type StoredBaseline = z.output<typeof schema.storedBaselineSchema>;
export type Results = Omit<z.output<typeof schema.resultsSchema>, 'warnings'> & { warnings: RunWarning[] };

/* ---------- analysis: derived from Results by assessResults (pure) ---------- */

/**
 * `no-regression`: the run rules out a worsening beyond the limit (the worse end of the 90%
 * interval is inside it) but not an improvement beyond it, and no improvement is significant:
 * open only on the better side, which cannot change the build's decision (docs/method.md, "The
 * verdicts").
 */
export type Verdict = 'regression' | 'improvement' | 'unchanged' | 'no-regression' | 'inconclusive';

/** The middle half of a set of changes: their quartiles (R type 7), as fractions (0.05 = +5%). */
export interface Quartiles {
  q1: number;
  q3: number;
}

/** How much one unit moves on this machine: the spread a reader judges a change against. */
export interface Noise {
  /** The per-pair changes head/base − 1 (micro-benchmarks: per round); null with fewer than 2 usable pairs. */
  pairs: Quartiles | null;
  /** The start pairs' own changes (`starts`); null without starts (micro-benchmarks) or with fewer than 2. */
  starts: Quartiles | null;
  /**
   * How far a pair's log-ratio moves inside its start pair: the standard deviation around its
   * start's mean, pooled over the starts with 2 or more pairs. Set beside the starts' own spread
   * it tells pair noise from each start's own offset (assess/warnings.ts). Absent without starts.
   */
  withinStarts?: number | null;
}

/** What every paired comparison carries, an HTTP metric's or a micro-benchmark's. */
export interface PairedComparison {
  gated: boolean;
  /** Fraction, e.g. 0.05. */
  limit: number;
  /**
   * Independent units the test counted: start pairs for HTTP and health metrics (results of
   * perfgate 0.1 counted pairs), rounds with both sides for a benchmark.
   */
  n: number;
  /** Pairs (or rounds) with a finite ratio behind those units. */
  pairs?: number;
  /** HTTP and health metrics: each start pair's own change (the Hodges–Lehmann estimate of its pairs' ratios), in start order. */
  starts?: { start: number; change: number; pairs: number }[];
  /** Medians over slices (or benchmark processes), in the metric's unit (req/s, µs, µs per request, ops/s). */
  baseMedian: number;
  headMedian: number;
  /** Relative change head vs base: exp(HL estimate of paired log-ratios) − 1. */
  change: number;
  /** 95% distribution-free interval of the change (same scale as change). */
  ciLow: number;
  ciHigh: number;
  /** 90% interval, for the equivalence verdict "unchanged" (two one-sided tests at 5%); absent in analyses of perfgate 0.1. */
  eqLow?: number;
  eqHigh?: number;
  /**
   * One-sided sign-flip (Fisher–Pitman) p-value in the direction of the estimate (a slowdown is
   * tested only as a slowdown), unadjusted. Results written before perfgate 0.2 hold the two-sided
   * Wilcoxon signed-rank p, and later ones from before the sign-flip test the one-sided one.
   */
  p: number;
  /** Holm-adjusted p for gated metrics; equal to p for informational ones. */
  pAdjusted: number;
  /** Smallest change this run could detect (80% power at alpha), as a fraction. */
  detectable: number;
  verdict: Verdict;
  /** true when higher is better (throughput, ops/s). */
  higherIsBetter: boolean;
  /** The spread of the units behind the estimate (the report's noise table). */
  noise: Noise;
}

export interface MetricComparison extends PairedComparison {
  metric: MetricId;
  scenario: string;
  /**
   * Throughput only: the sides whose slices mostly measured the load generator (at its CPU limit
   * while the service was not); a verdict that rests on such a side is inconclusive. Absent: none.
   */
  generatorBound?: Side[];
  /**
   * An improvement on a route whose head fails requests base answered (its errors metric
   * regressed): an error page is cheaper than the route's work, so the faster head measures its
   * failures. The assessment makes such a verdict inconclusive and sets this; absent otherwise.
   */
  headFails?: true;
}

/** A service-health metric compared like an HTTP metric, with an absolute floor besides the relative limit. */
/** A start-up metric over every start pair (base start n against head start n); medians in ms or bytes. */
export interface StartupComparison extends PairedComparison {
  metric: StartupMetricId;
}

export interface HealthComparison extends PairedComparison {
  metric: HealthMetricId;
  scenario: string;
  /** Absolute change that a regression or improvement must also exceed, in the metric's unit (0: none). */
  min: number;
  /** Hodges–Lehmann estimate of the per-pair differences head − base, in the metric's unit, and its 95% interval. */
  absoluteChange: number;
  absoluteLow: number;
  absoluteHigh: number;
  /** As MetricComparison.headFails. */
  headFails?: true;
}

/** How one side's post-GC heap moved with the requests it served, within each start of the service. */
export interface HeapTrend {
  /** Slices with a heap number. */
  n: number;
  /** Theil–Sen slope of post-GC heap against requests served, pooled over blocks, bytes per request. */
  bytesPerRequest: number;
  /** The same slope in each block (each start of the service); null where a block has fewer than 3 slices. */
  blocks: (number | null)[];
  /** Seasonal Kendall trend statistic S (blocks as seasons): above 0 rising, below 0 falling. */
  s: number;
  /** Its two-sided p-value (normal approximation with ties and continuity correction). */
  p: number;
  /** Post-GC heap and RSS at the scenario's last slice with health data, bytes. */
  lastHeapBytes: number;
  lastRssBytes: number;
  /** Active handles at that slice. */
  lastActiveHandles: number;
}

/**
 * Head's post-GC heap minus base's, slice by slice of the start pairs, against the requests
 * served: whether head's heap pulls away from base's within the process lifetimes they share.
 */
export interface HeapGap {
  /** Slices with a heap number on both sides. */
  n: number;
  /** Theil–Sen slope of the gap against requests served, pooled over starts, bytes per request. */
  bytesPerRequest: number;
  /** Seasonal Kendall trend statistic S of the gap (starts as seasons): above 0 head pulls ahead. */
  s: number;
  /** Its two-sided p-value. */
  p: number;
}

/** The memory-growth rule's verdict: a regression here is a "possible leak". */
export interface HeapGrowthComparison {
  scenario: string;
  gated: boolean;
  /** How much faster head's heap must grow than base's to count, MB (10^6 bytes) per 10,000 requests. */
  limit: number;
  base: HeapTrend;
  head: HeapTrend;
  /** Each side's growth (its trend's bytesPerRequest), MB per 10,000 requests. */
  baseMbPer10k: number;
  headMbPer10k: number;
  /** Head's growth minus base's, MB per 10,000 requests. */
  change: number;
  /** The gap between the sides within each start pair; null when no slice has both sides' heap. */
  gap: HeapGap | null;
  verdict: Verdict;
  /** As MetricComparison.headFails. */
  headFails?: true;
}

/** Whether one side's slices measured the load generator rather than the service. */
export interface GeneratorLoad {
  /** Slices with both the generator's and the service's load known. */
  slices: number;
  /** Of those, slices where the generator was at its limit while the service had spare time. */
  boundSlices: number;
  /** Median CPU of the load generator over the slices, as a fraction of one core. */
  generatorCpu: number;
  /** Median share of the slice the generator's event loop was busy, 0–1; NaN in results that lack it. */
  generatorBusy: number;
  /** Median load of the service: its busiest event loop's utilisation, or (without health data) its CPU in cores. */
  serviceLoad: number;
  serviceLoadSource: 'event-loop' | 'cpu';
}

export interface GeneratorCheck {
  scenario: string;
  sides: Record<Side, GeneratorLoad>;
  /** Sides where most slices were generator-bound. */
  bound: Side[];
}

/** A finding worth a sentence in the report; the numbers come from the comparisons (src/report/health.ts words it). */
export type HealthHint =
  | { kind: 'blocked-loop'; scenario: string; side: Side; baseMaxUs: number; headMaxUs: number; profiled: boolean }
  | { kind: 'possible-leak'; scenario: string; baseMbPer10k: number; headMbPer10k: number; headBlocksMbPer10k: number[] }
  | { kind: 'leak-gone'; scenario: string; baseMbPer10k: number; headMbPer10k: number }
  | { kind: 'gc-pressure'; scenario: string; baseMsPer1k: number; headMsPer1k: number }
  | { kind: 'cpu-per-request'; scenario: string; baseUs: number; headUs: number; change: number; profiled: boolean }
  | { kind: 'waiting-outside'; scenario: string; change: number; headUtilization: number }
  | {
      kind: 'generator-bound';
      scenario: string;
      sides: Side[];
      generatorBusy: number;
      generatorCpu: number;
      serviceLoad: number;
      serviceLoadSource: 'event-loop' | 'cpu';
    };

/** How many of a service's processes reported health per slice: the fewest and the most over a scenario's slices. */
export interface ProcessCount {
  scenario: string;
  /** null: no slice of that side had a report. */
  base: { min: number; max: number } | null;
  head: { min: number; max: number } | null;
}

export interface HealthAnalysis {
  comparisons: HealthComparison[];
  heap: HeapGrowthComparison[];
  generator: GeneratorCheck[];
  hints: HealthHint[];
  /** Per scenario with health data, how many processes reported (a cluster's workers and primary). */
  processes: ProcessCount[];
  /** Gated health regressions (they fail the build like `Analysis.failing`). */
  failing: (HealthComparison | HeapGrowthComparison)[];
}

/** Which micro-benchmark, and how reports name it. */
export interface BenchmarkIdentity {
  /** Stable key of file, suite, name and occurrence (what base and head are matched on). */
  key: string;
  file: string;
  suite: string | null;
  name: string;
  occurrence: number;
  /** The shortest unique name in this run: the name, else suite › name, else file › suite › name. */
  label: string;
  library: BenchLibrary;
}

/** A benchmark present on both sides, compared round by round on its ops/s. */
export interface BenchmarkComparison extends PairedComparison, BenchmarkIdentity {}

/** A benchmark listed, not compared. */
export interface UncomparedBenchmark extends BenchmarkIdentity {
  /** added: only head has it; removed: only base; failed: it (or its file) gave no usable pair. */
  status: 'added' | 'removed' | 'failed';
  /** Median ops/s of each side's processes; null where that side has no number. */
  baseOpsPerSec: number | null;
  headOpsPerSec: number | null;
  /** Why a failed benchmark could not be compared. */
  reason: string | null;
}

/** A benchmark file whose process failed on one side (threw, exited non-zero, hung, captured nothing). */
export interface BenchFileFailure {
  file: string;
  side: Side;
  /** Rounds whose process failed, and how many ran on that side. */
  failedRounds: number[];
  runs: number;
  /** The last failure's message, with the tail of its stderr. */
  message: string;
}

export interface BenchmarkAnalysis {
  comparisons: BenchmarkComparison[];
  uncompared: UncomparedBenchmark[];
  failures: BenchFileFailure[];
  /** Gated benchmark regressions (they fail the build like `Analysis.failing`). */
  failing: BenchmarkComparison[];
  /**
   * What could not be compared, in words, for the decision text: failed benchmarks, and files
   * whose benchmarks are unknown because they never ran on either side. Empty when all compared.
   */
  notCompared: string[];
}

/** Requests that did not succeed, summed over one side's slices of one scenario. */
export interface FailureTally {
  scenario: string;
  side: Side;
  requests: number;
  non2xx: number;
  /** The unexpected statuses among them, summed over the slices that recorded them (empty for results from before they were). */
  statuses: Record<string, number>;
  errors: number;
  timeouts: number;
  /** An answer of an unexpected status this side gave, when one was sampled (ScenarioResults.unexpectedAnswer). */
  answer?: UnexpectedAnswer;
  /** The first error this side's service logged, when it failed requests (Results.serviceErrors). */
  logError?: LoggedError;
}

/**
 * The decision, the counts, the warnings and the comparisons one kind at a time, as the tables
 * show them: the part of the Assessment (src/assess/types.ts) that its one tagged list is split
 * into, derived from Results by assessResults (src/assess/compare.ts, pure). `perfgate report`
 * and the action's report mode derive it again from a results.json, so it is never stored.
 */
/** A service level's verdict: head significantly above the level (fail), surely at or below it (pass), or neither. */
export type LevelVerdict = 'fail' | 'pass' | 'inconclusive';

/** One service level (gate.<metric>.max) of one scenario, checked on head's starts (src/assess/levels.ts). */
export interface LevelComparison {
  scenario: string;
  metric: LevelMetricId;
  /** The level: µs for a latency, a share 0–1 for errors. */
  max: number;
  gated: boolean;
  /** Head's starts with a finite value: the units of the test. */
  n: number;
  /** Head's value, the Hodges–Lehmann estimate over its starts, in the level's unit. */
  estimate: number;
  /** The 95% interval of that value; ±Infinity when too few starts reach 95%. */
  low: number;
  high: number;
  /** One-sided p of "head is above the level", and after Holm's adjustment with the gated comparisons. */
  p: number;
  pAdjusted: number;
  verdict: LevelVerdict;
}

export interface Analysis {
  comparisons: MetricComparison[];
  decision: 'pass' | 'fail';
  regressions: number;
  improvements: number;
  /** Gated regressions, with metric and scenario. */
  failing: MetricComparison[];
  /** Every warning once: those recorded while running (results.warnings), then the analysis's own (src/assess/warnings.ts). */
  warnings: RunWarning[];
  /** Per scenario and side, only where some request failed (non-2xx, error or timeout). */
  failedRequests: FailureTally[];
  /** The look at which the pre-registered design stopped the run early; null when it ran every block (or had no interim look). */
  earlyStop: TakenLook | null;
  /** Micro-benchmark verdicts, when the run has micro-benchmarks; counted in decision, regressions and improvements. */
  benchmarks?: BenchmarkAnalysis;
  /** Service health, when any slice has health or load-generator data; counted in decision, regressions and improvements. */
  health?: HealthAnalysis;
  /** Start-up time and memory over the starts, when the run recorded them; counted in decision, regressions and improvements. */
  startup?: StartupComparison[];
  /** Outgoing I/O per request, when any slice counted some (information, never gated). */
  io?: IoAnalysis;
  /** The service levels (gate.<metric>.max), when any is set; a gated level that fails fails the decision. */
  levels?: LevelComparison[];
  /**
   * Why base and head were not measured on equal terms (src/assess/fairness.ts), when they were
   * not: the decision is then "fail" whatever the verdicts say, no accept label turns it into a
   * pass, and the CLI exits 2 (the run is invalid, not a regression).
   */
  unfair?: UnfairFinding[];
  /**
   * The routes head broke where base did not, found at their first warm-up (ScenarioResults.headBroken):
   * the decision is "fail" and the run measured no pair of them. Absent: none.
   */
  headBroken?: HeadBrokenRoute[];
}

/** A route head broke, as the headline and the check's message say it. */
export interface HeadBrokenRoute extends HeadBroken {
  scenario: string;
  method: string;
  path: string;
  /** The first error head's service logged (results.json's serviceErrors.head), when it logged one. */
  logError?: LoggedError;
}

/** One reason the comparison was not fair. */
export interface UnfairFinding {
  /** idle-cpu: the starts not under load burned more CPU while one side was measured than while the other was. */
  code: 'idle-cpu';
  /** Whose idle starts made the difference. */
  side: Side;
  /** How much more the idle starts used during the other side's slices than during this side's, as a share of one core (averages over each side's slices). */
  idleCoreShare: number;
  slices: number;
  message: string;
}

/** One side's I/O to one destination over a scenario's slices: its totals per request served. */
export interface IoSide {
  /** Round trips per request served. */
  roundTripsPerRequest: number;
  /** Time waited on those round trips per request served, ms. */
  waitMsPerRequest: number;
}

/** One destination of one scenario, base against head (src/assess/io.ts). */
export interface IoComparison {
  scenario: string;
  destination: string;
  /** null: the side never talked to it in this scenario. */
  base: IoSide | null;
  head: IoSide | null;
  /** Whether the round trips per request, or the wait per request, changed beyond the noise of the start pairs. */
  roundTripsChanged: boolean;
  waitChanged: boolean;
  /** The calls to this destination by name, where its client publishes them, the most changed first; empty when none is named. */
  named: IoNamedCalls[];
}

/** One name's calls per request served (a Redis command, a SQL statement, an HTTP route), base and head (0: none). */
export interface IoNamedCalls {
  name: string;
  base: number;
  head: number;
  /** Beyond the noise of the start pairs, and at least half a call per request and a fifth. */
  changed: boolean;
}

export interface IoAnalysis {
  comparisons: IoComparison[];
}
