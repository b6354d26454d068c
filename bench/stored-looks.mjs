#!/usr/bin/env node
// The interim looks against a stored baseline, on drawn runs: a record and a later run of head,
// both drawn from one recorded A/A pool (the start pair is the resampled unit, as
// `calibrate-starts.mjs report` draws), decided the way `compare --baseline` decides them —
// head's starts against the record's, unpaired (assess/unpaired.ts) — three ways: with no look
// (every block, at alpha), with the looks at the levels planned for this comparison
// (planSequential 'unpaired'), and with the looks at the paired design's levels. CPU only, no
// load is sent. A benchmark, not a test.
//
//   node bench/stored-looks.mjs [--in FILE[,FILE…]] [--draws 200] [--kinds express,fastify] [--cache FILE] [--json FILE]
//
// Per kind and noise: A/A false fails (95% Wilson intervals), and head's capacity cut by 3, 5
// and 10% (throughput × 0.97 … and latencies ÷ the same, on both of head's engine sides) caught;
// the share of runs stopped at each look, and seconds of load of head's run per scenario (median).
// Each draw takes 2 × load.blocks × load.instances distinct start pairs of the pool: the first
// half is the record (both of its sides measured base), the second half head's run; a pool with
// fewer start pairs is left out. Draws of one pool overlap: the intervals bracket what the pool
// allows, they are not independent runs. The record and head's run come from one pool, so an
// offset between two real runs (another hour, another runner) is not in these draws:
// bench/cross-run.mjs measures that one (docs/modes.md).
import { appendFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { cachedRows, wilson } from './calibrate.mjs';

const { values } = parseArgs({
  options: {
    in: { type: 'string', default: 'docs/calibration/looks3.jsonl,docs/calibration/continuous.jsonl' },
    draws: { type: 'string', default: '200' },
    kinds: { type: 'string' },
    cache: { type: 'string' },
    json: { type: 'string' },
  },
});

const gate = await import('./analyze.mjs');
const { readLines, poolOf, decide, loadSeconds } = await import('./calibrate-starts.mjs');
const draws = Number(values.draws);
const kinds = values.kinds ? values.kinds.split(',') : null;
const config = gate.resolveConfig({ document: { service: { start: 'node server.js' }, scenarios: ['GET /json'], profile: false } });
const DESIGNS = {
  none: null,
  unpaired: gate.planSequential(config, 'unpaired'),
  paired: gate.planSequential(config, 'paired'),
};
const DROPS = [0, 0.03, 0.05, 0.1];

/** A pool unit's first pairs, each side's slice scaled: throughput × keep, latencies ÷ keep. */
function scaled(pairs, keep) {
  const scale = (slice) => ({
    ...slice,
    rps: slice.rps * keep,
    latencyUs: Object.fromEntries(Object.entries(slice.latencyUs).map(([k, v]) => [k, v / keep])),
  });
  return keep === 1 ? pairs : pairs.map((p) => ({ ...p, base: scale(p.base), head: scale(p.head) }));
}

/** `units` laid out as the defaults lay out a run's start pairs: blocks of load.instances, load.pairs in all. */
function layout(units, keep) {
  const { instances, pairs, blocks } = config.load;
  const perStart = Math.ceil(pairs / (blocks * instances));
  let index = 0;
  return units.flatMap((unit, s) =>
    scaled(unit.pairs.slice(0, perStart), keep).map((p) => ({ ...p, block: Math.floor(s / instances), start: s, index: index++ })),
  );
}

/** One stored-baseline comparison drawn from `pool`: the record, then head's run with its capacity cut by `drop`. */
function drawComparison(template, pool, drop, rand) {
  const starts = config.load.blocks * config.load.instances;
  const taken = new Set();
  while (taken.size < 2 * starts) taken.add(Math.floor(rand() * pool.length));
  const units = [...taken].map((i) => pool[i]);
  const scenario = (pairs) => [{ ...template.scenarios[0], pairs }];
  const baseline = {
    sha: template.sides.base.sha,
    runId: null,
    recordedAt: template.startedAt,
    toolVersion: template.tool.version,
    environment: template.environment,
    scenarios: scenario(layout(units.slice(0, starts), 1)),
  };
  return { ...template, config, status: 'complete', scenarios: scenario(layout(units.slice(starts), 1 - drop)), sequential: undefined, baseline };
}

async function drawCell(template, pool, drop) {
  const tallies = Object.fromEntries(Object.keys(DESIGNS).map((d) => [d, { n: 0, fail: 0, stops: new Array(config.load.blocks).fill(0), seconds: [] }]));
  const rand = gate.createRandom(1);
  for (let d = 0; d < draws; d++) {
    const drawn = drawComparison(template, pool, drop, rand);
    for (const [name, design] of Object.entries(DESIGNS)) {
      const { analysis, stoppedAt } = await decide(drawn, gate, design);
      const t = tallies[name];
      t.n++;
      if (analysis.decision === 'fail') t.fail++;
      t.stops[stoppedAt ?? config.load.blocks - 1]++;
      t.seconds.push(loadSeconds(drawn, stoppedAt, config));
    }
  }
  return tallies;
}

const lines = values.in
  .split(',')
  .flatMap((file) => readLines(resolve(file)).map((l) => (l.error ? l : gate.upgradeLine(l, file))))
  .filter((l) => !l.error && l.effect === 0 && (!kinds || kinds.includes(l.kind)));
const groups = new Map();
for (const line of lines) {
  const key = `${line.kind}|${line.noise ? 'noisy' : 'quiet'}`;
  if (!groups.has(key)) groups.set(key, []);
  groups.get(key).push(line);
}

// One cache line per kind and noise, for these draws and pools: a long run resumes where it stopped.
const cacheKey = JSON.stringify({ in: values.in, draws, version: 1 });
const cached = cachedRows(values.cache, cacheKey);

const rows = [];
for (const [key, group] of [...groups].sort()) {
  const [kind, noise] = key.split('|');
  const pool = poolOf(group);
  if (pool.length < 2 * config.load.blocks * config.load.instances) {
    console.error(`${key}: ${pool.length} start pairs, fewer than a record and a run need; left out`);
    continue;
  }
  if (cached.has(key)) {
    rows.push(cached.get(key));
    continue;
  }
  const row = { kind, noise, pool: pool.length };
  for (const drop of DROPS) row[drop] = await drawCell(group[0].results, pool, drop);
  rows.push(row);
  if (values.cache) appendFileSync(values.cache, `${JSON.stringify({ cacheKey, row })}\n`);
  console.error(`${key} done`);
}

const pct = (x) => `${(100 * x).toFixed(x < 0.1 && x > 0 ? 1 : 0)}%`;
const rate = (k, n) => (n ? `${k}/${n} = ${pct(k / n)} (${pct(wilson(k, n)[0])}–${pct(wilson(k, n)[1])})` : '–');
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const stops = (t) => t.stops.map((k) => pct(k / t.n)).join(' · ');
const both = (row, drop, show) => `${show(row[drop].none)} → ${show(row[drop].unpaired)}`;
const sum = (drop, design, pick) => rows.reduce((n, r) => n + pick(r[drop][design]), 0);
const out = [
  `Drawn from ${values.in} (${draws} draws per cell; the defaults: ${config.load.blocks} blocks of ${config.load.instances} start pairs, alpha ${config.alpha}). Each cell: no look → looks at the levels planned against a record.`,
  '',
  '| kind | noise | pool (start pairs) | A/A false fails | −3% caught | −5% caught | −10% caught | −10% stopped at look 1 · 2 · 3 | A/A stopped at look 1 · 2 · 3 | −10% load (median) | A/A load (median) |',
  '| :-- | :-- | --: | --: | --: | --: | --: | :-- | :-- | --: | --: |',
];
for (const r of rows) {
  const caught = (t) => pct(t.fail / t.n);
  const seconds = (t) => `${median(t.seconds).toFixed(0)} s`;
  out.push(
    `| ${r.kind} | ${r.noise} | ${r.pool} | ${both(r, 0, (t) => `${t.fail}/${t.n}`)} | ${both(r, 0.03, caught)} | ${both(r, 0.05, caught)} | ${both(r, 0.1, caught)} | ${stops(r[0.1].unpaired)} | ${stops(r[0].unpaired)} | ${both(r, 0.1, seconds)} | ${both(r, 0, seconds)} |`,
  );
}
out.push('', 'All cells:', '', '| looks | A/A false fails | −3% caught | −5% caught | −10% caught | −10% stopped at look 1 · 2 · 3 | A/A stopped at look 1 · 2 · 3 |', '| :-- | --: | --: | --: | --: | :-- | :-- |');
for (const [design, label] of [
  ['none', 'none (every block, at alpha)'],
  ['unpaired', 'at the levels planned against a record'],
  ['paired', "at the paired design's levels"],
]) {
  const all = (drop) => ({ n: sum(drop, design, (t) => t.n), fail: sum(drop, design, (t) => t.fail), stops: [0, 1, 2].map((k) => sum(drop, design, (t) => t.stops[k])) });
  const caught = (drop) => rate(all(drop).fail, all(drop).n);
  out.push(`| ${label} | ${caught(0)} | ${caught(0.03)} | ${caught(0.05)} | ${caught(0.1)} | ${stops(all(0.1))} | ${stops(all(0))} |`);
}
console.log(out.join('\n'));
if (values.json) writeFileSync(values.json, JSON.stringify(rows, null, 1));
