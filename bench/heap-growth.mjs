#!/usr/bin/env node
// The memory-growth rule on recorded runs whose heap nothing changed: the calibration pools'
// A/A runs (one commit on both sides) and their +3/+5/+10% runs (head spins longer per request,
// allocating nothing more). Every "possible leak" or "growth gone" there is a false hint, and
// such a hint unfolds a quiet pass. The runs are decided with the looks by the engine at --root,
// so the same recordings can be decided by two versions of the rule. CPU only. A benchmark, not a test.
//
//   node bench/heap-growth.mjs [--in FILE[,FILE…]] [--root DIR]
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { wilson } from './calibrate.mjs';

const { values } = parseArgs({
  options: {
    in: { type: 'string', default: 'docs/calibration/looks3.jsonl,docs/calibration/continuous.jsonl' },
    root: { type: 'string', default: resolve(new URL('..', import.meta.url).pathname) },
  },
});
const root = resolve(values.root);
const gate = await import(resolve(root, 'bench/analyze.mjs'));
const { readLines, decide } = await import(resolve(root, 'bench/calibrate-starts.mjs'));

const lines = values.in
  .split(',')
  .flatMap((file) => readLines(resolve(file)).map((l) => (l.error ? l : gate.upgradeLine(l, file))))
  .filter((l) => !l.error);

const rows = new Map();
const hints = [];
for (const line of lines) {
  const { analysis } = await decide(line.results, gate);
  for (const growth of analysis.health?.heap ?? []) {
    const key = line.effect === 0 ? 'A/A' : `+${line.effect}% work`;
    const row = rows.get(key) ?? { runs: 0, hints: 0, unchanged: 0, inconclusive: 0 };
    row.runs++;
    if (growth.verdict === 'regression' || growth.verdict === 'improvement') {
      row.hints++;
      hints.push(`${line.cell} round ${line.round}: ${growth.verdict === 'regression' ? 'possible leak' : 'growth gone'} (base ${growth.baseMbPer10k.toFixed(2)}, head ${growth.headMbPer10k.toFixed(2)} MB per 10k requests)`);
    } else row[growth.verdict]++;
    rows.set(key, row);
  }
}

const rate = (k, n) => {
  const [lo, hi] = wilson(k, n);
  return `${k}/${n} = ${((100 * k) / n).toFixed(1)}% (${(100 * lo).toFixed(1)}–${(100 * hi).toFixed(1)}%)`;
};
console.log(`engine: ${root}\n`);
console.log('| runs | false "possible leak" or "growth gone" (95% Wilson) | unchanged | inconclusive |');
console.log('| :-- | --: | --: | --: |');
let total = { runs: 0, hints: 0, unchanged: 0, inconclusive: 0 };
for (const [key, row] of [...rows.entries()].sort()) {
  console.log(`| ${key} | ${rate(row.hints, row.runs)} | ${row.unchanged} | ${row.inconclusive} |`);
  total = { runs: total.runs + row.runs, hints: total.hints + row.hints, unchanged: total.unchanged + row.unchanged, inconclusive: total.inconclusive + row.inconclusive };
}
console.log(`| all | ${rate(total.hints, total.runs)} | ${total.unchanged} | ${total.inconclusive} |`);
if (hints.length > 0) console.log(`\n${hints.join('\n')}`);
