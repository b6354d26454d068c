import type { Analysis, MetricComparison, Results, RunWarning, Side, Verdict } from '../results/types.js';
import { median } from '../stats/descriptive.js';
import { hodgesLehmannInterval } from '../stats/hodges-lehmann.js';
import { holmAdjust } from '../stats/holm.js';
import { smallestDetectableShift } from '../stats/power.js';
import { signedRankTest } from '../stats/wilcoxon.js';
import { METRIC_DEFINITIONS } from './metrics.js';

/** Below this many pairs the verdicts are shown but flagged: the test has almost no power. */
export const MIN_RELIABLE_PAIRS = 10;
const CONFIDENCE = 0.95;

/**
 * Results → verdicts, as in shared/design/measurement.md §6–8: per metric, the paired
 * log-ratios ln(head/base); the Hodges–Lehmann estimate with its distribution-free 95%
 * interval; the Wilcoxon signed-rank p; Holm across the gated metrics of the whole run.
 * Pure: the same results always give the same analysis (the CLI's `report` relies on it).
 */
export function compareResults(results: Results): Analysis {
  const { config } = results;
  const draft: Omit<MetricComparison, 'pAdjusted' | 'verdict'>[] = [];
  for (const scenario of results.scenarios) {
    if (scenario.pairs.length === 0) continue;
    for (const definition of METRIC_DEFINITIONS) {
      const rule = config.gate[definition.id];
      const base = scenario.pairs.map((p) => definition.value(p.base));
      const head = scenario.pairs.map((p) => definition.value(p.head));
      const ratios = base.map((b, i) => Math.log(head[i]! / b)).filter(Number.isFinite);
      if (ratios.length === 0) continue;
      const interval = hodgesLehmannInterval(ratios, CONFIDENCE);
      // With very few pairs no interval reaches 95%: then the bounds are unknown, so the
      // verdict can never be "unchanged" on too little evidence.
      const reached = interval.confidence >= CONFIDENCE - 1e-9;
      const lower = reached ? interval.lower : Number.NEGATIVE_INFINITY;
      const upper = reached ? interval.upper : Number.POSITIVE_INFINITY;
      const test = signedRankTest(ratios);
      const halfWidth = (upper - lower) / 2;
      draft.push({
        metric: definition.id,
        scenario: scenario.name,
        gated: rule.gated,
        limit: rule.limit,
        n: ratios.length,
        baseMedian: median(base.filter(Number.isFinite)),
        headMedian: median(head.filter(Number.isFinite)),
        change: Math.expm1(interval.estimate),
        ciLow: Math.expm1(lower),
        ciHigh: Math.expm1(upper),
        p: test.p,
        detectable: Number.isFinite(halfWidth)
          ? Math.expm1(smallestDetectableShift(halfWidth, { confidence: CONFIDENCE, alpha: config.alpha }))
          : Number.NaN,
        higherIsBetter: definition.higherIsBetter,
      });
    }
  }

  const gatedIndexes = draft.flatMap((c, i) => (c.gated ? [i] : []));
  const adjusted = holmAdjust(gatedIndexes.map((i) => draft[i]!.p));
  const pAdjusted = draft.map((c) => c.p);
  gatedIndexes.forEach((index, k) => {
    pAdjusted[index] = adjusted[k]!;
  });

  const comparisons: MetricComparison[] = draft.map((c, i) => {
    const withP = { ...c, pAdjusted: pAdjusted[i]! };
    return { ...withP, verdict: decideVerdict(withP, config.alpha) };
  });
  const failing = comparisons.filter((c) => c.gated && c.verdict === 'regression');
  return {
    comparisons,
    decision: failing.length > 0 ? 'fail' : 'pass',
    regressions: comparisons.filter((c) => c.verdict === 'regression').length,
    improvements: comparisons.filter((c) => c.verdict === 'improvement').length,
    failing,
    warnings: [...results.warnings, ...deriveWarnings(results, comparisons)],
  };
}

/**
 * measurement.md §7: regression = significant and worse than the limit; improvement =
 * significant and better than the limit; unchanged = the whole interval inside ±limit;
 * anything else is inconclusive (the run cannot tell).
 */
export function decideVerdict(
  c: Pick<MetricComparison, 'change' | 'ciLow' | 'ciHigh' | 'pAdjusted' | 'limit' | 'higherIsBetter'>,
  alpha: number,
): Verdict {
  const worse = c.higherIsBetter ? -c.change : c.change;
  const significant = c.pAdjusted < alpha;
  if (significant && worse > c.limit) return 'regression';
  if (significant && -worse > c.limit) return 'improvement';
  if (c.ciLow > -c.limit && c.ciHigh < c.limit) return 'unchanged';
  return 'inconclusive';
}

function deriveWarnings(results: Results, comparisons: MetricComparison[]): RunWarning[] {
  const warnings: RunWarning[] = [];
  if (results.status !== 'complete') {
    warnings.push({
      code: 'incomplete',
      message: `The run did not finish (${results.error ?? results.status}); verdicts use the pairs measured before it stopped.`,
    });
  }
  for (const scenario of results.scenarios) {
    const n = scenario.pairs.length;
    if (n > 0 && n < MIN_RELIABLE_PAIRS) {
      warnings.push({
        code: 'few-pairs',
        scenario: scenario.name,
        message: `Only ${n} pairs: too few for a reliable verdict (use at least ${MIN_RELIABLE_PAIRS}; 60 is the default).`,
      });
    }
    for (const side of ['base', 'head'] as Side[]) {
      const slices = scenario.pairs.map((p) => p[side]);
      const requests = slices.reduce((a, s) => a + s.requests, 0);
      const non2xx = slices.reduce((a, s) => a + s.non2xx, 0);
      const failures = slices.reduce((a, s) => a + s.errors + s.timeouts, 0);
      if (non2xx > 0) {
        const share = requests ? ((100 * non2xx) / requests).toFixed(1) : '100';
        warnings.push({
          code: 'non-2xx',
          scenario: scenario.name,
          message: `${side} answered ${non2xx} of ${requests} requests with a non-2xx status (${share}%): the comparison may be measuring an error path. Check the request (method, path, headers, body) and the service log.`,
        });
      }
      if (failures > 0) {
        warnings.push({
          code: 'request-errors',
          scenario: scenario.name,
          message: `${side} had ${failures} connection errors or timeouts. Check the service log.`,
        });
      }
    }
  }
  // The exact signed-rank test's smallest two-sided p with n pairs is 2/2^n (all pairs
  // agree); Holm multiplies the smallest p by the number of gated metrics. Below that
  // floor no regression can ever be found, whatever the data.
  const gatedCount = comparisons.filter((c) => c.gated).length;
  for (const c of comparisons.filter((c) => c.gated)) {
    if (gatedCount * 2 * 2 ** -c.n >= results.config.alpha) {
      const needed = Math.floor(Math.log2((2 * gatedCount) / results.config.alpha)) + 1;
      warnings.push({
        code: 'underpowered',
        scenario: c.scenario,
        message: `With ${c.n} pairs and ${gatedCount} gated metrics no change can reach significance at alpha ${results.config.alpha}: a regression cannot be detected. Use at least ${needed} pairs (load.pairs).`,
      });
      break;
    }
  }
  const undecided = comparisons.filter((c) => c.gated && c.verdict === 'inconclusive');
  for (const c of undecided) {
    warnings.push({
      code: 'inconclusive',
      scenario: c.scenario,
      message: `${c.metric} is inconclusive: the run could detect changes of about ${(100 * c.detectable).toFixed(1)}% but the limit is ${(100 * c.limit).toFixed(0)}%. More pairs (load.pairs) narrow the interval.`,
    });
  }
  return warnings;
}

