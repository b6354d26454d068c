/**
 * Verdicts as data: the Assessment's one list of comparisons, projected into the metrics a
 * script can read (perfgate compare --verdicts <file>; verdicts.json in the action's run
 * directory), with the culprit the assessment found, so a script reads the function a reviewer
 * reads. The format is documented in docs/verdicts.md and described by
 * docs/verdicts.schema.json. Pure.
 */
import { displayName } from '../profile/names.js';
import { describeHeadBroken } from '../results/errors.js';
import type { LevelComparison, LevelVerdict, PairedComparison, Results, RunWarning, Verdict } from '../results/types.js';
import { scenarioAllocationCulprit, scenarioCulprit, scenarioLeakCulprit, scenarioUnchanged } from './read.js';
import type { AllocationCulprit } from '../profile/allocation-culprit.js';
import type { LeakCulprit } from '../profile/leak-culprit.js';
import type { AssessedComparison, Assessment, ConfirmationFinding } from './types.js';

export const VERDICTS_SCHEMA = 'perfgate/verdicts';
export const VERDICTS_VERSION = 1;

export interface VerdictEntry {
  /** http: a load metric of a scenario; health: measured inside the service; benchmark: a micro-benchmark's ops/s; heap: heap growth. */
  kind: 'http' | 'health' | 'benchmark' | 'heap';
  /** Metric id (throughput, latency_p99, event_loop_delay_p99, ops_per_sec, heap_growth, …). */
  metric: string;
  /** The HTTP scenario; null for micro-benchmarks. */
  scenario: string | null;
  /** The micro-benchmark ("file › suite › name"); null otherwise. */
  benchmark: string | null;
  gated: boolean;
  /** Relative limit as a fraction (0.02 = 2%); heap: MB per 10,000 requests. */
  limit: number;
  /** Pairs (or rounds) used; null for heap growth. */
  n: number | null;
  /** Relative change head vs base as a fraction (−0.05 = 5% lower); heap: MB per 10,000 requests faster growth. */
  estimate: number;
  /** 95% interval of the estimate; an unknown bound (too few pairs) is null; heap: null. */
  interval: [number | null, number | null] | null;
  /** One-sided sign-flip p-value, and Holm-adjusted for gated metrics; null for heap. */
  p: number | null;
  pAdjusted: number | null;
  verdict: Verdict;
  /** true when higher is better (throughput, ops/s). */
  higherIsBetter: boolean;
  /** The estimate in the worse direction: positive is worse, whatever the metric (−5% throughput → 0.05). */
  worsening: number;
  /**
   * Each side's median over its slices (micro-benchmarks: processes), in the metric's unit (req/s,
   * µs, µs per request, ops/s; health metrics as docs/health.md gives them); heap: each side's
   * growth, MB per 10,000 requests. null where a side has no finite number.
   */
  base: number | null;
  head: number | null;
  /** HTTP metrics of a profiled scenario whose verdict is not unchanged: the own function that took most of the new time; else null. */
  culprit: VerdictCulprit | null;
  /** allocated_per_request of a profiled scenario whose allocations regressed or grew notably: the own function head allocates the most more in; absent otherwise. */
  allocationCulprit?: VerdictAllocationCulprit;
  /** heap_growth flagged a possible leak, with heap snapshots: the constructor head's heap kept the most more of than base's; absent otherwise. */
  leakCulprit?: VerdictLeakCulprit;
}

export interface VerdictLeakCulprit {
  /** The constructor ("Object", "Array", "(string)", "(closure)"), as the heap snapshot's Comparison view names it. */
  constructor: string;
  /** Objects and shallow bytes head's heap gained more than base's over the profiled load (base's scaled to head's requests). */
  count: number;
  bytes: number;
  /**
   * What holds them in head, more than in base: the variable and properties that reach it
   * ("kept", "app.locals.history"), its own constructor, the file of the variable's scope, and the
   * function there whose code adds to it (the one the PR changed first); null when no variable
   * or property reaches it.
   */
  holder: { path: string; type: string; file: string | null; writer: { function: string; file: string; line: number; changedByPr: boolean | null } | null } | null;
  /** The own function head allocates the most more in, from its sampling heap profile; null when none grew enough to name. */
  allocation: { function: string; file: string; line: number; changedByPr: boolean | null } | null;
  /** The report's words: "head keeps +5.1 MB more than base in 52k Object, held in kept (an Array), which rememberRequest adds to (server.js:12, changed by this PR)". */
  text: string;
}

export interface VerdictAllocationCulprit {
  /** The function as the reports name it. */
  function: string;
  file: string;
  line: number;
  /**
   * Bytes per request head allocates more in it (with the dependency and Node core code it calls),
   * V8's sampled estimate; with `inlinedInto`, what that frame allocates more.
   */
  addedBytes: number;
  /** Whether the pull request changed the function's lines; null when the run recorded no diff. */
  changedByPr: boolean | null;
  /**
   * The frame that is not own code the bytes were booked to, when V8 inlined the service's code
   * into it (a framework's function that calls the handler): the function above is then the own
   * code below that frame most likely responsible. Absent otherwise.
   */
  inlinedInto?: { function: string; file: string; line: number };
  /** The reports' words: "+1.9 kB per request allocated in buildResponse (server.js:40, changed by this PR)". */
  text: string;
}

export interface VerdictCulprit {
  /** The function as the reports name it ("resolvePermissions", "arrow in formatPrices"). */
  function: string;
  /** Its file (relative to the repository root) and 1-based line. */
  file: string;
  line: number;
  /** Time per request it added in head (with the code it calls), µs; null when the profiles give shares only. */
  addedUs: number | null;
  /** Whether the pull request changed the function's lines; null when the run recorded no diff (profiling off before it, or git could not give one). */
  changedByPr: boolean | null;
  /** When most new time is in packages the PR upgraded: the one that took the most, with its locked versions on each side (the function is then its function that grew most); else null. */
  package: { name: string; base: string[]; head: string[] } | null;
  /** When changedByPr is false: the function the pull request did change that added the most time (by 1% of base's CPU per request or more); else null. */
  changedFunction: { function: string; file: string; line: number; addedUs: number | null } | null;
  /** The reports' words: "most new time in resolvePermissions (server.js:25, changed by this PR)". */
  text: string;
  /** What reverting this PR's change to it gave back (assess/confirmation.ts); absent when no third arm ran. */
  confirmation?: VerdictConfirmation;
  /** When that revert explained less than half of the drop: the next own function this PR changed, and what reverting it gave back; absent when no second arm ran. */
  nextConfirmation?: VerdictConfirmation & { function: string; file: string; line: number };
}

/** The third arm's finding as data: the drop in points of the failing metric, and what the revert gave back (null bounds: too few start pairs). */
export interface VerdictConfirmation {
  status: ConfirmationFinding['status'];
  reason: string | null;
  metric: string | null;
  points: number | null;
  givenBack: number | null;
  ciLow: number | null;
  ciHigh: number | null;
  pairs: number;
  wallMs: number;
}

function confirmationOf(finding: ConfirmationFinding): VerdictConfirmation {
  const finite = (x: number | undefined) => (x !== undefined && Number.isFinite(x) ? x : null);
  const { status, reason, metric, points, givenBack, pairs, wallMs } = finding;
  return { status, reason, metric, points, givenBack: finite(givenBack?.estimate), ciLow: finite(givenBack?.low), ciHigh: finite(givenBack?.high), pairs, wallMs };
}

export interface VerdictsDocument {
  schema: typeof VERDICTS_SCHEMA;
  version: typeof VERDICTS_VERSION;
  /** pass or fail, before any accept label (the action's decision output says after). */
  decision: 'pass' | 'fail';
  /** complete, or failed / running for an incomplete run. */
  status: Results['status'];
  base: { ref: string; sha: string };
  head: { ref: string; sha: string; dirty: boolean };
  regressions: number;
  improvements: number;
  /** The gated metric that moved most in the worse direction (a gated regression first); null with no gated metric. */
  worst: VerdictEntry | null;
  metrics: VerdictEntry[];
  /** The service levels (gate.<metric>.max), when any is set. */
  levels?: LevelEntry[];
  /** The routes head broke where base did not, found at their first warm-up (the run stopped there), when any. */
  headBroken?: HeadBrokenEntry[];
  warnings: RunWarning[];
}

/** A route head broke: what head answered, base's status, and the sentence the reports say. */
export interface HeadBrokenEntry {
  scenario: string;
  /** Head's status; null when it did not answer. */
  status: number | null;
  /** The start of head's body, on one line. */
  body: string;
  baseStatus: number | null;
  /** `head answered 404 "Cannot GET /users" where base answered 200 (100% of head's warm-up requests failed, base 0%)` */
  text: string;
}

/** One service level of one scenario, checked on head alone (docs/configuration.md, "Service levels"). */
export interface LevelEntry {
  /** latency_p50, latency_p90, latency_p99, latency_p999 or errors. */
  metric: string;
  scenario: string;
  gated: boolean;
  /** The level: µs for a latency, a share 0–1 for errors. */
  max: number;
  /** Head's starts used. */
  n: number;
  /** Head's value (Hodges–Lehmann estimate over its starts), in the level's unit, and its 95% interval (an unknown bound: null). */
  estimate: number;
  interval: [number | null, number | null];
  /** One-sided p of "head is above the level", and Holm-adjusted with the gated metrics. */
  p: number;
  pAdjusted: number;
  /** fail: significantly above the level; pass: the whole interval at or below it; inconclusive: neither. */
  verdict: LevelVerdict;
}

const finite = (x: number): number | null => (Number.isFinite(x) ? x : null);

function paired(
  kind: VerdictEntry['kind'],
  metric: string,
  scenario: string | null,
  benchmark: string | null,
  c: PairedComparison,
  culprit: VerdictCulprit | null = null,
): VerdictEntry {
  return {
    kind,
    metric,
    scenario,
    benchmark,
    gated: c.gated,
    limit: c.limit,
    n: c.n,
    estimate: c.change,
    interval: [finite(c.ciLow), finite(c.ciHigh)],
    p: finite(c.p),
    pAdjusted: finite(c.pAdjusted),
    verdict: c.verdict,
    higherIsBetter: c.higherIsBetter,
    worsening: c.higherIsBetter ? -c.change : c.change,
    base: finite(c.baseMedian),
    head: finite(c.headMedian),
    culprit,
  };
}

/** The scenario's culprit as data; null when it was not profiled, nothing of its own code grew, or its verdict is unchanged. */
function culpritOf(assessment: Assessment, scenario: string): VerdictCulprit | null {
  if (scenarioUnchanged(assessment, scenario)) return null;
  const culprit = scenarioCulprit(assessment, scenario);
  if (culprit === null) return null;
  const { fn } = culprit;
  const pkg = culprit.package && { name: culprit.package.name, base: culprit.package.change?.base ?? [], head: culprit.package.change?.head ?? [] };
  const { edited } = culprit;
  const changedFunction = edited && { function: displayName(edited), file: edited.file, line: edited.line, addedUs: edited.added };
  const subject = assessment.subjects.find((s) => s.type === 'scenario' && s.scenario === scenario);
  const finding = subject?.type === 'scenario' ? subject.confirmation : null;
  const next = subject?.type === 'scenario' ? subject.nextConfirmation : null;
  return {
    function: displayName(fn),
    file: fn.file,
    line: fn.line,
    addedUs: culprit.package?.added ?? fn.added,
    changedByPr: culprit.changed,
    package: pkg,
    changedFunction,
    text: culprit.text,
    ...(finding && { confirmation: confirmationOf(finding) }),
    ...(next && { nextConfirmation: { function: next.culprit.name, file: next.culprit.file, line: next.culprit.line, ...confirmationOf(next) } }),
  };
}

/** One comparison as a metric of verdicts.json; null for the kinds it does not list (start-up, I/O). */
/** A leak culprit as verdicts.json says it. */
export function verdictLeakCulprit(leak: LeakCulprit): VerdictLeakCulprit {
  const fn = leak.allocation?.fn;
  const held = leak.holder;
  const writer = held?.writer;
  return {
    constructor: leak.kept.name,
    count: leak.kept.count,
    bytes: leak.kept.size,
    holder:
      held === null
        ? null
        : { path: held.holder.path!, type: held.holder.holder, file: held.holder.file, writer: writer ? { function: displayName(writer), file: writer.file, line: writer.line, changedByPr: held.changed } : null },
    allocation: fn ? { function: displayName(fn), file: fn.file, line: fn.line, changedByPr: leak.allocation!.changed } : null,
    text: leak.text,
  };
}

/** The scenario's allocation culprit as data; null when none was named (assess/subjects.ts). */
function allocationCulpritOf(assessment: Assessment, scenario: string): VerdictAllocationCulprit | null {
  const culprit = scenarioAllocationCulprit(assessment, scenario);
  return culprit === null ? null : verdictAllocationCulprit(culprit);
}

/** An allocation culprit as verdicts.json says it. */
export function verdictAllocationCulprit(culprit: AllocationCulprit): VerdictAllocationCulprit {
  const { fn, inlinedInto } = culprit;
  return {
    function: displayName(fn),
    file: fn.file,
    line: fn.line,
    addedBytes: culprit.addedBytes,
    changedByPr: culprit.changed,
    ...(inlinedInto && { inlinedInto: { function: displayName(inlinedInto), file: inlinedInto.file, line: inlinedInto.line } }),
    text: culprit.text,
  };
}

function entryOf(entry: AssessedComparison, culprits: ReadonlyMap<string, VerdictCulprit | null>, assessment: Assessment): VerdictEntry | null {
  switch (entry.kind) {
    case 'http':
      return paired('http', entry.comparison.metric, entry.subject.scenario, null, entry.comparison, culprits.get(entry.subject.scenario) ?? null);
    case 'health': {
      const entryOfHealth = paired('health', entry.comparison.metric, entry.subject.scenario, null, entry.comparison);
      const allocation = entry.comparison.metric === 'allocated_per_request' ? allocationCulpritOf(assessment, entry.subject.scenario) : null;
      return allocation === null ? entryOfHealth : { ...entryOfHealth, allocationCulprit: allocation };
    }
    case 'heap': {
      const h = entry.comparison;
      const leak = scenarioLeakCulprit(assessment, h.scenario);
      return {
        kind: 'heap',
        metric: 'heap_growth',
        scenario: h.scenario,
        benchmark: null,
        gated: h.gated,
        limit: h.limit,
        n: null,
        estimate: h.change,
        interval: null,
        p: null,
        pAdjusted: null,
        verdict: h.verdict,
        higherIsBetter: false,
        worsening: h.change,
        base: finite(h.baseMbPer10k),
        head: finite(h.headMbPer10k),
        culprit: null,
        ...(leak && { leakCulprit: verdictLeakCulprit(leak) }),
      };
    }
    case 'benchmark': {
      const c = entry.comparison;
      return paired('benchmark', 'ops_per_sec', null, [c.file, c.suite, c.name].filter(Boolean).join(' › '), c);
    }
    default:
      return null;
  }
}

export function buildVerdicts(results: Results, assessment: Assessment): VerdictsDocument {
  const http = assessment.all.flatMap((entry) => (entry.kind === 'http' ? [entry.subject.scenario] : []));
  const culprits = new Map([...new Set(http)].map((scenario) => [scenario, culpritOf(assessment, scenario)]));
  const metrics = assessment.all.flatMap((entry) => entryOf(entry, culprits, assessment) ?? []);
  return {
    schema: VERDICTS_SCHEMA,
    version: VERDICTS_VERSION,
    decision: assessment.decision,
    status: results.status,
    base: { ref: results.sides.base.ref, sha: results.sides.base.sha },
    head: { ref: results.sides.head.ref, sha: results.sides.head.sha, dirty: results.sides.head.dirty },
    regressions: assessment.regressions,
    improvements: assessment.improvements,
    worst: worstOf(metrics),
    metrics,
    ...(assessment.levels && { levels: assessment.levels.map(levelEntry) }),
    ...(assessment.headBroken && {
      headBroken: assessment.headBroken.map((route) => ({
        scenario: route.scenario,
        status: route.status,
        body: route.body,
        baseStatus: route.baseStatus,
        text: describeHeadBroken(route),
      })),
    }),
    warnings: assessment.warnings,
  };
}

function levelEntry(l: LevelComparison): LevelEntry {
  const { scenario, metric, gated, max, n, estimate, p, pAdjusted, verdict } = l;
  return { metric, scenario, gated, max, n, estimate, interval: [finite(l.low), finite(l.high)], p, pAdjusted, verdict };
}

/** A gated errors regression if there is one, else a gated regression, else any gated metric; the largest worsening (heap growth, in MB, only when nothing else is gated). */
function worstOf(metrics: VerdictEntry[]): VerdictEntry | null {
  const gated = metrics.filter((m) => m.gated && Number.isFinite(m.worsening));
  const regressions = gated.filter((m) => m.verdict === 'regression');
  const relative = (list: VerdictEntry[]) => (list.some((m) => m.kind !== 'heap') ? list.filter((m) => m.kind !== 'heap') : list);
  // A route that fails leads, as in the reports' headline: its error page is often faster.
  const failingRoutes = regressions.filter((m) => m.metric === 'errors');
  const pool = relative(failingRoutes.length > 0 ? failingRoutes : regressions.length > 0 ? regressions : gated);
  return pool.reduce<VerdictEntry | null>((worst, m) => (worst === null || m.worsening > worst.worsening ? m : worst), null);
}

/** One line for logs and action outputs: "GET /work throughput −5.1% (regression)", "GET /work errors +33.3 pt (regression)". */
export function describeEntry(entry: VerdictEntry, formatChange: (fraction: number) => string): string {
  const what = [entry.scenario ?? entry.benchmark, entry.metric].filter(Boolean).join(' ');
  const sign = entry.estimate >= 0 ? '+' : '';
  const size =
    entry.kind === 'heap'
      ? `${sign}${entry.estimate.toFixed(2)} MB/10k requests`
      : // errors: a difference of shares, in percentage points
        entry.metric === 'errors'
        ? `${sign}${(100 * entry.estimate).toFixed(1)} pt`
        : formatChange(entry.estimate);
  return `${what} ${size} (${entry.verdict})`;
}
