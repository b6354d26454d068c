#!/usr/bin/env node
// What the first look can do: gate runs drawn from the recorded pools (as `calibrate-starts.mjs
// report` draws them: the start pair is the resampled unit) and decided with the looks by the
// engine at --root, so the same draws can be decided by two versions of the engine (a checkout
// of main: before; this tree: after). CPU only, no load is sent. A benchmark, not a test.
//
//   node bench/first-look.mjs [--in FILE[,FILE…]] [--draws 200] [--scenarios 1] [--root DIR] [--kinds express,fastify] [--json FILE]
//        [--cache FILE]   (one JSON line per kind and noise: a long run resumes where it stopped)
//        [--stop decision|verdicts]   (load.stop of the drawn runs; an engine without it ignores it)
//        [--against CACHE]   (also print each cell as "before → after", before from another run's --cache)
//
// Per kind and noise: A/A false fails and every-gated-metric-unchanged (95% Wilson intervals),
// +3% and +5% caught, and two clear regressions made from the kind's A/A pool by shifting
// head's slices (throughput × 0.9 or × 0.8, latencies ÷ the same: 10% and 20% less capacity):
// caught, and the share stopped at the first look; and two improvements made the same way
// (× 1.05 and × 1.1): how often each is called an improvement. Load seconds per drawn run as the report
// counts them (warm-ups + 2 s per block + the slices), median over the draws, with the warm-ups
// of start-major turns (one scenario: the schedule it always was).
// --scenarios N draws N scenarios per run, each from the same pool with its own starts, so
// Holm's family is that of an N-route service (the starts' shared offsets are not modelled).
import { resolve } from 'node:path';
import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { cachedRows, wilson } from './calibrate.mjs';

const { values } = parseArgs({
  options: {
    in: { type: 'string', default: 'docs/calibration/looks3.jsonl,docs/calibration/continuous.jsonl' },
    draws: { type: 'string', default: '200' },
    scenarios: { type: 'string', default: '1' },
    root: { type: 'string', default: resolve(new URL('..', import.meta.url).pathname) },
    kinds: { type: 'string' },
    json: { type: 'string' },
    cache: { type: 'string' },
    stop: { type: 'string' },
    against: { type: 'string' },
  },
});

const root = resolve(values.root);
const gate = await import(resolve(root, 'bench/analyze.mjs'));
const { readLines, poolOf, drawRun, decide } = await import(resolve(root, 'bench/calibrate-starts.mjs'));
const draws = Number(values.draws);
const scenarioCount = Number(values.scenarios);
const kinds = values.kinds ? values.kinds.split(',') : null;

const lines = values.in
  .split(',')
  .flatMap((file) => readLines(resolve(file)).map((l) => (l.error ? l : gate.upgradeLine(l, file))))
  .filter((l) => !l.error && (!kinds || kinds.includes(l.kind)));

/** A pool's start pairs with head's capacity cut by `drop` (negative: raised): throughput × (1 − drop), latencies ÷ (1 − drop). */
function shifted(pool, drop) {
  const scale = (slice) => ({
    ...slice,
    rps: slice.rps * (1 - drop),
    latencyUs: Object.fromEntries(Object.entries(slice.latencyUs).map(([k, v]) => [k, v / (1 - drop)])),
  });
  return pool.map((unit) => ({ ...unit, pairs: unit.pairs.map((p) => ({ ...p, head: scale(p.head) })) }));
}

const drawLoad = values.stop ? { stop: values.stop } : {};
const config = gate.resolveConfig({ document: { service: { start: 'node server.js' }, scenarios: ['GET /json'], profile: false, load: drawLoad } });

function loadSeconds(results, stoppedAt) {
  const { load } = config;
  const blocks = stoppedAt === null ? load.blocks : stoppedAt + 1;
  const pairs = results.scenarios.reduce((n, s) => n + s.pairs.filter((p) => stoppedAt === null || p.block <= stoppedAt).length, 0);
  // start-major turns (plan.ts, turnWarmup): the whole warm-up for a turn's first scenario, one slice for each other
  const warmup = load.warmupMs + (results.scenarios.length - 1) * Math.min(load.warmupMs, load.sliceMs);
  const perBlock = (warmup * load.instances) / 1000 + 2;
  return blocks * perBlock + (pairs * load.sliceMs) / 1000;
}

function gatedOf(analysis) {
  return [...analysis.comparisons, ...(analysis.health?.comparisons ?? [])].filter((c) => c.gated);
}

function allGatedClear(analysis) {
  const gated = gatedOf(analysis);
  return gated.length > 0 && gated.every((c) => c.verdict === 'unchanged');
}

/** Every gated metric unchanged or, open only on the better side, "no regression" (an engine without that verdict has none). */
function allGatedSettled(analysis) {
  const gated = gatedOf(analysis);
  return gated.length > 0 && gated.every((c) => c.verdict === 'unchanged' || c.verdict === 'no-regression' || c.verdict === 'improvement');
}

/** Whether every drawn scenario's throughput was called an improvement. */
function throughputImproved(analysis) {
  const t = analysis.comparisons.filter((c) => c.metric === 'throughput');
  return t.length > 0 && t.every((c) => c.verdict === 'improvement');
}

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? Number.NaN : s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}

async function drawCell(template, pool) {
  const rand = gate.createRandom(1);
  const tally = { n: 0, fail: 0, clear: 0, settled: 0, improved: 0, firstLook: 0, firstLookFail: 0, stops: new Array(config.load.blocks).fill(0), seconds: [] };
  if (pool.length < config.load.blocks * config.load.instances) return tally;
  for (let d = 0; d < draws; d++) {
    const runs = Array.from({ length: scenarioCount }, () => drawRun(template, pool, config, rand));
    const drawn = { ...runs[0], scenarios: runs.map((r, i) => ({ ...r.scenarios[0], name: `GET /route${i + 1}`, path: `/route${i + 1}` })) };
    const { analysis, stoppedAt } = await decide(drawn, gate);
    tally.n++;
    if (analysis.decision === 'fail') tally.fail++;
    if (allGatedClear(analysis)) tally.clear++;
    if (analysis.decision === 'pass' && allGatedSettled(analysis)) tally.settled++;
    if (throughputImproved(analysis)) tally.improved++;
    tally.stops[stoppedAt ?? config.load.blocks - 1]++;
    if (stoppedAt === 0) tally.firstLook++;
    if (stoppedAt === 0 && analysis.decision === 'fail') tally.firstLookFail++;
    tally.seconds.push(loadSeconds(drawn, stoppedAt));
  }
  return tally;
}

const groups = new Map();
for (const line of lines) {
  const key = `${line.kind}|${line.noise ? 'noisy' : 'quiet'}`;
  if (!groups.has(key)) groups.set(key, new Map());
  const byEffect = groups.get(key);
  if (!byEffect.has(line.effect)) byEffect.set(line.effect, []);
  byEffect.get(line.effect).push(line);
}

// The cache is keyed by what decides a row: a line per kind and noise, for these draws, scenarios, pools and engine.
const cacheKey = JSON.stringify({ in: values.in, draws, scenarioCount, root, stop: values.stop ?? null });
const cached = cachedRows(values.cache, cacheKey);

const rows = [];
for (const [key, byEffect] of [...groups].sort()) {
  const [kind, noise] = key.split('|');
  if (cached.has(key)) {
    rows.push(cached.get(key));
    continue;
  }
  const row = { kind, noise };
  for (const effect of [0, 3, 5]) {
    const cellLines = byEffect.get(effect);
    if (cellLines) row[effect] = await drawCell(cellLines[0].results, poolOf(cellLines));
  }
  const aa = byEffect.get(0);
  if (aa) {
    const pool = poolOf(aa);
    row.drop10 = await drawCell(aa[0].results, shifted(pool, 0.1));
    row.drop20 = await drawCell(aa[0].results, shifted(pool, 0.2));
    row.up5 = await drawCell(aa[0].results, shifted(pool, -0.05));
    row.up10 = await drawCell(aa[0].results, shifted(pool, -0.1));
  }
  rows.push(row);
  if (values.cache) appendFileSync(values.cache, `${JSON.stringify({ cacheKey, row })}\n`);
  console.error(`${key} done`);
}

const pct = (x) => `${(100 * x).toFixed(x < 0.1 && x > 0 ? 1 : 0)}%`;
const rate = (k, n) => (n ? `${k}/${n} = ${pct(k / n)} (${pct(wilson(k, n)[0])}–${pct(wilson(k, n)[1])})` : '–');
const share = (k, n) => (n ? pct(k / n) : '–');
const seconds = (t) => (t?.n ? `${median(t.seconds).toFixed(0)} s` : '–');
const stops = (t) => (t?.n ? t.stops.map((k) => share(k, t.n)).join(' · ') : '–');
const mean = (t) => (t?.n ? `${(t.seconds.reduce((a, b) => a + b, 0) / t.n).toFixed(0)} s` : '–');
const caught = (t) => (t?.n ? share(t.fail, t.n) : '–');
const improved = (t) => (t?.n ? share(t.improved, t.n) : '–');
const out = [
  `Drawn from ${values.in} (${draws} draws per cell, ${scenarioCount} scenario${scenarioCount > 1 ? 's' : ''} per run; engine at ${root}):`,
  '',
  '| kind | noise | A/A false fails | A/A every gated metric unchanged | A/A passed, every gated metric unchanged or no regression | +3% caught | +5% caught | −10% caught | −20% caught | 5% faster: improvement | 10% faster: improvement |',
  '| :-- | :-- | --: | --: | --: | --: | --: | --: | --: | --: | --: |',
];
for (const r of rows) {
  const a = r[0];
  out.push(
    `| ${r.kind} | ${r.noise} | ${a?.n ? rate(a.fail, a.n) : '–'} | ${a?.n ? share(a.clear, a.n) : '–'} | ${a?.n ? share(a.settled, a.n) : '–'} | ${caught(r[3])} | ${caught(r[5])} | ${caught(r.drop10)} | ${caught(r.drop20)} | ${improved(r.up5)} | ${improved(r.up10)} |`,
  );
}
out.push(
  '',
  'Where the runs stopped (share at look 1 · 2 · 3) and seconds of load per scenario (median, mean):',
  '',
  '| kind | noise | A/A stopped | A/A load | +3% stopped | +3% load | +5% stopped | +5% load | −10% stopped | −10% load | 5% faster stopped | 5% faster load |',
  '| :-- | :-- | :-- | --: | :-- | --: | :-- | --: | :-- | --: | :-- | --: |',
);
const load = (t) => (t?.n ? `${seconds(t)}, ${mean(t)}` : '–');
for (const r of rows) {
  out.push(`| ${r.kind} | ${r.noise} | ${stops(r[0])} | ${load(r[0])} | ${stops(r[3])} | ${load(r[3])} | ${stops(r[5])} | ${load(r[5])} | ${stops(r.drop10)} | ${load(r.drop10)} | ${stops(r.up5)} | ${load(r.up5)} |`);
}
const sum = (pick) => rows.reduce((t, r) => t + (pick(r) ?? 0), 0);
const all = (cell) => ({ n: sum((r) => r[cell]?.n), stops: [0, 1, 2].map((k) => sum((r) => r[cell]?.stops[k])), seconds: rows.flatMap((r) => r[cell]?.seconds ?? []) });
out.push(
  '',
  `All A/A cells: ${rate(sum((r) => r[0]?.fail), sum((r) => r[0]?.n))} false fails, ${share(sum((r) => r[0]?.clear), sum((r) => r[0]?.n))} every gated metric unchanged, ${share(sum((r) => r[0]?.settled), sum((r) => r[0]?.n))} passed with every gated metric unchanged or no regression; stopped ${stops(all(0))}, load ${load(all(0))}. Caught: +3% ${share(sum((r) => r[3]?.fail), sum((r) => r[3]?.n))}, +5% ${share(sum((r) => r[5]?.fail), sum((r) => r[5]?.n))}, −10% ${share(sum((r) => r.drop10?.fail), sum((r) => r.drop10?.n))} (${share(sum((r) => r.drop10?.firstLookFail), sum((r) => r.drop10?.n))} at look 1), −20% ${share(sum((r) => r.drop20?.fail), sum((r) => r.drop20?.n))}. Improvement called: 5% faster ${share(sum((r) => r.up5?.improved), sum((r) => r.up5?.n))}, 10% faster ${share(sum((r) => r.up10?.improved), sum((r) => r.up10?.n))}.`,
);
if (values.against) out.push('', ...againstTable(values.against));
console.log(out.join('\n'));
if (values.json) writeFileSync(values.json, JSON.stringify(rows.map((r) => ({ ...r })), null, 1));

/**
 * Each cell of this run against the same cell of another run's cache (the same pools and draws,
 * decided by another engine or setting): "before → after", one value where both agree.
 */
function againstTable(file) {
  const before = new Map(
    readFileSync(file, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l).row)
      .map((row) => [`${row.kind}|${row.noise}`, row]),
  );
  const pair = (a, b, show) => {
    const [x, y] = [show(a), show(b)];
    return x === y ? x : `${x} → ${y}`;
  };
  const meanLoad = (t) => (t?.n ? `${(t.seconds.reduce((s, x) => s + x, 0) / t.n).toFixed(0)} s` : '–');
  const lines = [
    `Against ${file} (before → after; one value where they agree):`,
    '',
    '| kind | noise | A/A false fails | A/A every gated unchanged | A/A passed, every gated unchanged or no regression | A/A stopped at look 1 · 2 · 3 | A/A mean load | +3% caught | +5% caught | +5% mean load | −10% caught | 5% faster: improvement | 10% faster: improvement | 5% faster mean load |',
    '| :-- | :-- | --: | --: | --: | :-- | --: | --: | --: | --: | --: | --: | --: | --: |',
  ];
  for (const r of rows) {
    const b = before.get(`${r.kind}|${r.noise}`) ?? {};
    const cell = (key, show) => pair(b[key], r[key], show);
    lines.push(
      `| ${r.kind} | ${r.noise} | ${cell(0, (t) => (t?.n ? `${t.fail}/${t.n}` : '–'))} | ${cell(0, (t) => (t?.n ? share(t.clear, t.n) : '–'))} | ${cell(0, (t) => (t?.n ? share(t.settled ?? t.clear, t.n) : '–'))} | ${cell(0, stops)} | ${cell(0, meanLoad)} | ${cell(3, caught)} | ${cell(5, caught)} | ${cell(5, meanLoad)} | ${cell('drop10', caught)} | ${cell('up5', improved)} | ${cell('up10', improved)} | ${cell('up5', meanLoad)} |`,
    );
  }
  return lines;
}
