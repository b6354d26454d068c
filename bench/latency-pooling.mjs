#!/usr/bin/env node
// Would pooling a start pair's responses make a slow service's latency p99 steadier? A
// benchmark of an idea that was tried and not kept (docs/calibration-log.md, "Latency p99 on a slow
// service").
//
//   node bench/latency-pooling.mjs [--in docs/calibration/latency-pooling.jsonl]
//
// The runs in the file were recorded by `calibrate-starts.mjs record` with a bundle that also
// kept each slice's response times (an HdrHistogram at 2 significant digits, compressed base64,
// in each slice's `latencyHistogram`). For every run this prints, per start pair, the change in
// latency p99 two ways, and the gate's verdict for each:
//   - slices: the median of the pairs' p99 ratios (what the gate does);
//   - pooled: the p99 of all the start's responses per side, as one ratio.
// Both verdicts come from the gate's own assessResults: for the pooled way, each start is
// rewritten as one pair that carries the pooled p99s.
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import * as hdr from 'hdr-histogram-js';
import { assessResults } from './analyze.mjs';

const root = resolve(fileURLToPath(new URL('..', import.meta.url)));
const { values } = parseArgs({ options: { in: { type: 'string', default: join(root, 'docs', 'calibration', 'latency-pooling.jsonl') } } });

function pooledP99(slices) {
  const pooled = hdr.build({ numberOfSignificantValueDigits: 2, useWebAssembly: false });
  for (const slice of slices) pooled.add(hdr.decodeFromCompressedBase64(slice.latencyHistogram, 32, false));
  return { p99: pooled.getValueAtPercentile(99), responses: pooled.totalCount };
}

const pct = (x) => `${x >= 0 ? '+' : ''}${(x * 100).toFixed(0)}`;
const sd = (xs) => {
  const mean = xs.reduce((a, b) => a + b, 0) / xs.length;
  return Math.sqrt(xs.reduce((a, x) => a + (x - mean) ** 2, 0) / (xs.length - 1));
};

for (const text of readFileSync(resolve(values.in), 'utf8').trim().split('\n')) {
  const line = JSON.parse(text);
  const { results } = line;
  const scenario = results.scenarios[0];
  const p99Of = (analysis) => analysis.comparisons.find((c) => c.metric === 'latency_p99');
  const slices = p99Of(assessResults(results));
  const byStart = new Map();
  for (const pair of scenario.pairs) byStart.set(pair.start, [...(byStart.get(pair.start) ?? []), pair]);
  const onePairPerStart = [...byStart].map(([start, pairs], index) => {
    const base = pooledP99(pairs.map((p) => p.base));
    const head = pooledP99(pairs.map((p) => p.head));
    const first = pairs[0];
    return {
      ...first,
      index,
      base: { ...first.base, latencyUs: { ...first.base.latencyUs, p99: base.p99 } },
      head: { ...first.head, latencyUs: { ...first.head.latencyUs, p99: head.p99 } },
      responses: base.responses,
      start,
    };
  });
  const pooledResults = { ...results, scenarios: [{ ...scenario, pairs: onePairPerStart }] };
  const pooled = p99Of(assessResults(pooledResults));
  console.log(`${line.cell} round ${line.round}: ${byStart.size} start pairs, about ${Math.round(onePairPerStart.reduce((a, p) => a + p.responses, 0) / byStart.size)} responses per start and side`);
  for (const [name, c] of [['slices', slices], ['pooled', pooled]]) {
    const changes = c.starts.map((s) => s.change);
    console.log(
      `  ${name.padEnd(6)} ${pct(c.change)}% (90%: ${pct(c.eqLow)} … ${pct(c.eqHigh)}) ${c.verdict.padEnd(12)} SD of starts ${(sd(changes.map(Math.log1p)) * 100).toFixed(0)}%; starts ${changes.map(pct).join(' ')}`,
    );
  }
}
