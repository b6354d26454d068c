/**
 * The Assessment: everything the gate derives from a results.json, built once (assessResults in
 * compare.ts) and read by everything after it: the decision, verdicts.json, the annotations and
 * every report. It holds one list of comparisons, each tagged with what it is about (a scenario,
 * a micro-benchmark, the service's start) and its kind, and one subject per scenario and
 * micro-benchmark carrying what explains its verdicts (profile diff, culprit, I/O, hints),
 * each computed once. The per-kind lists of Analysis are views of that one list, kept for the
 * tables that show one kind at a time. Never stored: a results.json is assessed again.
 */
import type { MetricId } from '../config/types.js';
import type { AllocationExplanation } from '../profile/allocation-culprit.js';
import type { Culprit } from '../profile/culprit.js';
import type { LeakExplanation } from '../profile/leak-culprit.js';
import type { FunctionChange } from '../profile/diff.js';
import type { PackageRow } from '../profile/packages.js';
import type {
  Analysis,
  BenchmarkComparison,
  Confirmation,
  HealthComparison,
  HealthHint,
  HeapGrowthComparison,
  IoComparison,
  MetricComparison,
  ScenarioProfile,
  StartupComparison,
} from '../results/types.js';

/** What a comparison is about: an HTTP scenario, a micro-benchmark, or the service's start. */
export type ScenarioRef = { type: 'scenario'; scenario: string };
export type BenchmarkRef = { type: 'benchmark'; key: string; label: string };
export type ServiceRef = { type: 'service' };
export type SubjectRef = ScenarioRef | BenchmarkRef | ServiceRef;

/**
 * One comparison of the run, tagged. http: a load metric of a scenario; health: measured inside
 * the service; heap: the memory-growth rule; io: outgoing I/O per request (information, never a
 * verdict); startup: the service's start; benchmark: a micro-benchmark's ops/s.
 */
export type AssessedComparison =
  | { kind: 'http'; subject: ScenarioRef; comparison: MetricComparison }
  | { kind: 'health'; subject: ScenarioRef; comparison: HealthComparison }
  | { kind: 'heap'; subject: ScenarioRef; comparison: HeapGrowthComparison }
  | { kind: 'io'; subject: ScenarioRef; comparison: IoComparison }
  | { kind: 'startup'; subject: ServiceRef; comparison: StartupComparison }
  | { kind: 'benchmark'; subject: BenchmarkRef; comparison: BenchmarkComparison };

export type ComparisonKind = AssessedComparison['kind'];

/** A profiled scenario's CPU profiles, diffed once: what the hot-function tables and the culprit read. */
export interface ProfileFindings {
  profile: ScenarioProfile;
  /** Every function of either side, base against head (profile/diff.ts). */
  changes: FunctionChange[];
  /** CPU time per request by package, the most first; empty unless the PR changed a locked version. */
  packages: PackageRow[];
  /**
   * The own function whose attributed time grew the most (or the upgraded package that took
   * most new time); null when nothing grew. Shown only where the scenario's verdict is not
   * unchanged (read.ts, scenarioUnchanged): a profile of an unchanged route names its noise.
   */
  culprit: Culprit | null;
  /**
   * Both sides' allocations per function, diffed (null without an allocation profile on both
   * sides); its culprit is kept only when the scenario's allocated-bytes counter regressed or
   * grew notably (assess/subjects.ts), else it is null.
   */
  allocations: AllocationExplanation | null;
  /**
   * What head's heap kept more of than base's over the profiled load, by constructor (null
   * without heap snapshots: they are taken only where the memory-growth rule flagged a possible
   * leak); its culprit is kept only while that rule says "possible leak".
   */
  leak: LeakExplanation | null;
}

/** One HTTP scenario and what explains its verdicts. */
/** What the third arm found about a scenario's culprit (assess/confirmation.ts). */
export interface ConfirmationFinding {
  /** The culprit the arm reverted (or would have), as results.json has it. */
  culprit: Confirmation['culprit'];
  /** The culprit as the report names it: a package by its name, a function as the profile's words do ("arrow in matching"). */
  name: string;
  /** skipped: `reason` says why, and nothing below is known. */
  status: 'confirmed' | 'explains-little' | 'unclear' | 'skipped';
  reason: string | null;
  /** The failing metric whose drop the share is of. */
  metric: MetricId | null;
  /** The drop, in percentage points of the metric (35.3 for −35.3%). */
  points: number | null;
  /** Of `points`, what the revert gives back, with its 95% interval (±Infinity when too few start pairs). */
  givenBack: { estimate: number; low: number; high: number } | null;
  /** Start pairs the arm measured. */
  starts: number;
  pairs: number;
  /** Blocks the arm measured: more than one when the first left the answer unclear. */
  blocks: number;
  wallMs: number;
}

export interface ScenarioSubject {
  type: 'scenario';
  scenario: string;
  /** Its profiles, when the run profiled it; else null. */
  profile: ProfileFindings | null;
  /** Its outgoing I/O, one comparison per destination. */
  io: IoComparison[];
  /** The service-health findings about it. */
  hints: HealthHint[];
  /** What reverting its culprit gave back (assess/confirmation.ts); null when no third arm ran for it. */
  confirmation: ConfirmationFinding | null;
  /** The next culprit's, tried when the first's revert explained too little of the drop; null when none was. */
  nextConfirmation: ConfirmationFinding | null;
}

/** One micro-benchmark that both sides ran. */
export interface BenchmarkSubject {
  type: 'benchmark';
  key: string;
  label: string;
}

export type Subject = ScenarioSubject | BenchmarkSubject;

export interface Assessment extends Analysis {
  /** Every comparison of the run, tagged by subject and kind: HTTP, health, heap, micro-benchmarks, start-up, then I/O. */
  all: AssessedComparison[];
  /** One per scenario (in the order of the results) and per compared micro-benchmark. */
  subjects: Subject[];
}
