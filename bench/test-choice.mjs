#!/usr/bin/env node
// Would another test over the start pairs catch more drops at the same false-fail rate? A
// benchmark of alternatives that were tried and not adopted (docs/calibration-log.md, "A sixth pass").
//
//   node bench/test-choice.mjs [--in docs/calibration/sliced.jsonl,docs/calibration/turns.jsonl]
//
// For every recorded run of calibrate-starts.mjs with 12 start pairs: each start pair's
// throughput change (the median of its pairs' log-ratios, as the gate summarises a start), then
// three exact one-sided tests of "no change", towards the estimate:
//   - mean: the sign-flip test on the sum, the gate's own (src/stats/sign-flip.ts);
//   - hl:   the sign-flip test with the Hodges–Lehmann estimate as its statistic (robust to one
//           start pair far off);
//   - sign: the sign test (counts only the direction of each start pair).
// A run is called a regression when the p, times the run's number of gated comparisons (Holm's
// factor for the smallest p), is below alpha (0.01; the runs were recorded without the interim
// look) and the Hodges–Lehmann estimate is worse than the 2% limit. Prints per file, effect and
// noise: runs, and how many each test calls a regression (on A/A runs: false fails).
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { register } from 'tsx/esm/api';

register();
const { signFlipTest } = await import('../src/stats/sign-flip.ts');
const { median } = await import('../src/stats/descriptive.ts');
const { hodgesLehmann } = await import('../src/stats/hodges-lehmann.ts');

const root = resolve(fileURLToPath(new URL('..', import.meta.url)));
const files = ['sliced.jsonl', 'turns.jsonl'].map((f) => join(root, 'docs', 'calibration', f)).join(',');
const { values } = parseArgs({ options: { in: { type: 'string', default: files } } });
const ALPHA = 0.01;
const LIMIT = 0.02;

/** Exact one-sided sign-flip p with `statistic`, towards `less` (every sign pattern of |x|). */
function signFlipWith(x, statistic, less) {
  const observed = statistic(x);
  const sizes = x.map(Math.abs);
  let count = 0;
  const patterns = 2 ** x.length;
  for (let bits = 0; bits < patterns; bits++) {
    const t = statistic(sizes.map((v, i) => ((bits >> i) & 1 ? -v : v)));
    if (less ? t <= observed + 1e-12 : t >= observed - 1e-12) count++;
  }
  return count / patterns;
}

function signTest(x, less) {
  const n = x.filter((v) => v !== 0).length;
  const k = x.filter((v) => (less ? v < 0 : v > 0)).length;
  let tail = 0;
  let choose = 1;
  for (let i = 0; i <= n; i++) {
    if (i >= k) tail += choose;
    choose = (choose * (n - i)) / (i + 1);
  }
  return tail / 2 ** n;
}

const groups = new Map();
for (const file of values.in.split(',')) {
  for (const text of readFileSync(resolve(file), 'utf8').trim().split('\n')) {
    const line = JSON.parse(text);
    if (line.error) continue;
    const byStart = new Map();
    for (const pair of line.results.scenarios[0].pairs) {
      const start = pair.start ?? pair.block;
      byStart.set(start, [...(byStart.get(start) ?? []), Math.log(pair.head.rps / pair.base.rps)]);
    }
    if (byStart.size !== 12) continue;
    const starts = [...byStart.values()].map(median);
    const estimate = hodgesLehmann(starts);
    const less = estimate < 0;
    const gated = line.verdicts ? line.verdicts.metrics.filter((m) => m.gated && m.metric !== 'heap_growth').length : 3;
    const p = {
      mean: signFlipTest(starts, { alternative: less ? 'less' : 'greater' }).p,
      hl: signFlipWith(starts, hodgesLehmann, less),
      sign: signTest(starts, less),
    };
    const key = `${file.split('/').at(-1)} | ${line.effect}% | ${line.noise ? 'noisy' : 'quiet'}`;
    const group = groups.get(key) ?? { runs: 0, mean: 0, hl: 0, sign: 0 };
    group.runs++;
    for (const test of ['mean', 'hl', 'sign']) if (Math.min(1, gated * p[test]) < ALPHA && estimate < Math.log1p(-LIMIT)) group[test]++;
    groups.set(key, group);
  }
}
console.log('| file | effect | noise | runs | regression: sign-flip on the mean (the gate) | sign-flip on Hodges–Lehmann | sign test |');
console.log('| :-- | --: | :-- | --: | --: | --: | --: |');
for (const [key, g] of [...groups].sort()) console.log(`| ${key} | ${g.runs} | ${g.mean} | ${g.hl} | ${g.sign} |`);
