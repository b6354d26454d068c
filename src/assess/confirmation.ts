/**
 * What the third arm (engine/phases/confirm.ts) says about a culprit: how much of the gated
 * drop reverting it gives back. docs/profiling.md, "Confirming the culprit", explains the rule.
 *
 * The drop is the failing metric's change base → head; the arm measured reverted head → head on
 * the same metric, start pair by start pair (each start's pairs summarised by the
 * Hodges–Lehmann estimate of their log-ratios, as the main comparison does). The given-back
 * share is the arm's log-ratio over the drop's: 1 when the revert restores base's speed, 0 when
 * it changes nothing. Its interval is the arm's interval over the drop's estimate: the arm's
 * uncertainty, with the drop taken as measured.
 *
 * An arm looks after each of its blocks and measures another while the answer is unclear, up to
 * a budget of blocks fixed before its first (record.maxBlocks). Each look's interval is at
 * 1 − 0.05 / maxBlocks (Bonferroni): whichever look the arm stops at, the chance that any of its
 * intervals missed the true share is at most 5%, so "confirmed" and "explains little" keep the
 * single look's 5% error however the stopping went, and the interval said is a 95% one (a
 * conservative one: wider than a single look's).
 */
import { describeRevertFailed, errorShare } from '../results/errors.js';
import type { FunctionChange } from '../profile/diff.js';
import { displayName } from '../profile/names.js';
import type { Confirmation, MetricComparison, Results, ScenarioResults } from '../results/types.js';
import { hodgesLehmannInterval } from '../stats/hodges-lehmann.js';
import { METRIC_DEFINITIONS } from './metrics.js';
import { startOf, summarizeStarts } from './starts.js';
import type { ConfirmationFinding } from './types.js';

/** A share of the drop whose whole interval is above this is "confirmed"; below it, "explains little". */
export const CONFIRM_SHARE = 0.5;

/** The error the arm's looks share, and each look's interval level when it may take `looks` of them. */
const CONFIRM_ERROR = 0.05;
export const lookLevel = (looks: number): number => 1 - CONFIRM_ERROR / Math.max(1, looks);

/**
 * How many more of its requests the reverted head failed than head, when it failed more than
 * ERRORS_TOLERATED: the revert does not stand on its own (describeRevertFailed).
 */
const ERRORS_TOLERATED = 0.01;

function revertFailed(pairs: ScenarioResults['pairs']): string | null {
  const sum = (side: 'base' | 'head') =>
    pairs.reduce((t, p) => ({ requests: t.requests + p[side].requests, non2xx: t.non2xx + p[side].non2xx, errors: t.errors + p[side].errors }), { requests: 0, non2xx: 0, errors: 0 });
  const reverted = errorShare(sum('base'));
  const head = Number.isFinite(errorShare(sum('head'))) ? errorShare(sum('head')) : 0;
  return reverted - head > ERRORS_TOLERATED ? describeRevertFailed(reverted, head) : null;
}

/**
 * The reverted culprit as the report names it elsewhere: a package by its name (its whole folder
 * was reverted), a function as the profile's words do ("arrow in matching", not V8's
 * "(anonymous server.js:4:56)") when the scenario's profile diff has it, else by V8's name.
 */
function culpritName(culprit: Confirmation['culprit'], changes: readonly FunctionChange[]): string {
  if (culprit.package !== null) return culprit.package;
  const fn = changes.find((c) => c.name === culprit.name && c.file === culprit.file && c.line === culprit.line);
  return fn ? displayName(fn) : culprit.name;
}

/**
 * The finding of a scenario's arm `arm` (0: the first culprit's, 1: the next one's, tried when
 * the first explained too little); null when no such arm ran or was skipped for it.
 */
export function assessConfirmation(results: Results, scenario: string, failing: readonly MetricComparison[], arm = 0, changes: readonly FunctionChange[] = []): ConfirmationFinding | null {
  const record = results.confirmations?.filter((c) => c.scenario === scenario)[arm];
  if (!record) return null;
  const blocks = record.blocks ?? 1;
  const base = { culprit: record.culprit, name: culpritName(record.culprit, changes), reason: record.reason, wallMs: record.wallMs, pairs: record.pairs.length, blocks, starts: 0, metric: null, points: null, givenBack: null };
  const drop = failing.find((c) => c.scenario === scenario && METRIC_DEFINITIONS.some((d) => d.id === c.metric && d.scale === 'ratio'));
  if (record.status === 'skipped') return { ...base, status: 'skipped' };
  const failed = revertFailed(record.pairs);
  if (failed !== null) return { ...base, status: 'skipped', reason: failed };
  if (!drop) return { ...base, status: 'skipped', reason: 'no failing metric of this scenario is a ratio the revert can be set against' };
  const definition = METRIC_DEFINITIONS.find((d) => d.id === drop.metric)!;
  const ratios = record.pairs.map((p) => Math.log(definition.value(p.head) / definition.value(p.base)));
  const perStart = summarizeStarts(ratios, record.pairs.map(startOf)).filter((s) => Number.isFinite(s.value));
  const dropLog = Math.log1p(drop.change);
  if (perStart.length === 0 || dropLog === 0) return { ...base, status: 'skipped', reason: 'the arm measured no finite change' };
  const level = lookLevel(record.maxBlocks ?? 1);
  const interval = hodgesLehmannInterval(perStart.map((s) => s.value), level);
  const reached = interval.confidence >= level - 1e-9;
  const share = (x: number) => x / dropLog;
  const bounds = reached ? [share(interval.lower), share(interval.upper)].sort((a, b) => a - b) : [Number.NEGATIVE_INFINITY, Number.POSITIVE_INFINITY];
  const points = Math.abs(drop.change) * 100;
  const givenBack = { estimate: share(interval.estimate) * points, low: bounds[0]! * points, high: bounds[1]! * points };
  const status = bounds[0]! > CONFIRM_SHARE ? 'confirmed' : bounds[1]! < CONFIRM_SHARE ? 'explains-little' : 'unclear';
  return { ...base, status, metric: drop.metric, points, givenBack, starts: perStart.length };
}
