#!/usr/bin/env node
// What the first look can do: gate runs drawn from the recorded pools (as `calibrate-starts.mjs
// report` draws them: the start pair is the resampled unit) and decided with the looks by the
// engine at --root, so the same draws can be decided by two versions of the engine (a checkout
// of main: before; this tree: after). CPU only, no load is sent. A benchmark, not a test.
//
//   node bench/first-look.mjs [--in FILE[,FILE…]] [--draws 200] [--scenarios 1] [--root DIR] [--kinds express,fastify] [--json FILE]
//
// Per kind and noise: A/A false fails and every-gated-metric-unchanged (95% Wilson intervals),
// +3% and +5% caught, and two clear regressions made from the kind's A/A pool by shifting
// head's slices (throughput × 0.9 or × 0.8, latencies ÷ the same: 10% and 20% less capacity):
// caught, and the share stopped at the first look. Load seconds per drawn run as the report
// counts them (warm-ups + 2 s per block + the slices), median over the draws, with the warm-ups
// of start-major turns (one scenario: the schedule it always was).
// --scenarios N draws N scenarios per run, each from the same pool with its own starts, so
// Holm's family is that of an N-route service (the starts' shared offsets are not modelled).
import { resolve } from 'node:path';
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { wilson } from './calibrate.mjs';

const { values } = parseArgs({
  options: {
    in: { type: 'string', default: 'docs/calibration/looks3.jsonl,docs/calibration/continuous.jsonl' },
    draws: { type: 'string', default: '200' },
    scenarios: { type: 'string', default: '1' },
    root: { type: 'string', default: resolve(new URL('..', import.meta.url).pathname) },
    kinds: { type: 'string' },
    json: { type: 'string' },
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

/** A pool's start pairs with head's capacity cut by `drop`: throughput × (1 − drop), latencies ÷ (1 − drop). */
function shifted(pool, drop) {
  const scale = (slice) => ({
    ...slice,
    rps: slice.rps * (1 - drop),
    latencyUs: Object.fromEntries(Object.entries(slice.latencyUs).map(([k, v]) => [k, v / (1 - drop)])),
  });
  return pool.map((unit) => ({ ...unit, pairs: unit.pairs.map((p) => ({ ...p, head: scale(p.head) })) }));
}

const config = gate.resolveConfig({ document: { service: { start: 'node server.js' }, scenarios: ['GET /json'], profile: false } });

function loadSeconds(results, stoppedAt) {
  const { load } = config;
  const blocks = stoppedAt === null ? load.blocks : stoppedAt + 1;
  const pairs = results.scenarios.reduce((n, s) => n + s.pairs.filter((p) => stoppedAt === null || p.block <= stoppedAt).length, 0);
  // start-major turns (plan.ts, turnWarmup): the whole warm-up for a turn's first scenario, one slice for each other
  const warmup = load.warmupMs + (results.scenarios.length - 1) * Math.min(load.warmupMs, load.sliceMs);
  const perBlock = (warmup * load.instances) / 1000 + 2;
  return blocks * perBlock + (pairs * load.sliceMs) / 1000;
}

function allGatedClear(analysis) {
  const gated = [...analysis.comparisons, ...(analysis.health?.comparisons ?? [])].filter((c) => c.gated);
  return gated.length > 0 && gated.every((c) => c.verdict === 'unchanged');
}

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? Number.NaN : s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}

async function drawCell(template, pool) {
  const rand = gate.createRandom(1);
  const tally = { n: 0, fail: 0, clear: 0, firstLook: 0, firstLookFail: 0, seconds: [] };
  if (pool.length < config.load.blocks * config.load.instances) return tally;
  for (let d = 0; d < draws; d++) {
    const runs = Array.from({ length: scenarioCount }, () => drawRun(template, pool, config, rand));
    const drawn = { ...runs[0], scenarios: runs.map((r, i) => ({ ...r.scenarios[0], name: `GET /route${i + 1}`, path: `/route${i + 1}` })) };
    const { analysis, stoppedAt } = await decide(drawn, gate);
    tally.n++;
    if (analysis.decision === 'fail') tally.fail++;
    if (allGatedClear(analysis)) tally.clear++;
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

const rows = [];
for (const [key, byEffect] of [...groups].sort()) {
  const [kind, noise] = key.split('|');
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
  }
  rows.push(row);
  console.error(`${key} done`);
}

const pct = (x) => `${(100 * x).toFixed(x < 0.1 && x > 0 ? 1 : 0)}%`;
const rate = (k, n) => (n ? `${k}/${n} = ${pct(k / n)} (${pct(wilson(k, n)[0])}–${pct(wilson(k, n)[1])})` : '–');
const share = (k, n) => (n ? pct(k / n) : '–');
const seconds = (t) => (t?.n ? `${median(t.seconds).toFixed(0)} s` : '–');
const out = [
  `Drawn from ${values.in} (${draws} draws per cell, ${scenarioCount} scenario${scenarioCount > 1 ? 's' : ''} per run; engine at ${root}):`,
  '',
  '| kind | noise | A/A false fails | A/A every gated metric unchanged | A/A load | +3% caught | +5% caught | −10% caught · at look 1 | −20% caught · at look 1 | −20% load |',
  '| :-- | :-- | --: | --: | --: | --: | --: | --: | --: | --: |',
];
for (const r of rows) {
  const a = r[0];
  out.push(
    `| ${r.kind} | ${r.noise} | ${a?.n ? rate(a.fail, a.n) : '–'} | ${a?.n ? share(a.clear, a.n) : '–'} | ${seconds(a)} | ${r[3]?.n ? share(r[3].fail, r[3].n) : '–'} | ${r[5]?.n ? share(r[5].fail, r[5].n) : '–'} | ${r.drop10?.n ? `${share(r.drop10.fail, r.drop10.n)} · ${share(r.drop10.firstLookFail, r.drop10.n)}` : '–'} | ${r.drop20?.n ? `${share(r.drop20.fail, r.drop20.n)} · ${share(r.drop20.firstLookFail, r.drop20.n)}` : '–'} | ${seconds(r.drop20)} |`,
  );
}
const sum = (pick) => rows.reduce((t, r) => t + (pick(r) ?? 0), 0);
out.push(
  '',
  `All A/A cells: ${rate(sum((r) => r[0]?.fail), sum((r) => r[0]?.n))} false fails, ${share(sum((r) => r[0]?.clear), sum((r) => r[0]?.n))} every gated metric unchanged; −20% stopped failing at look 1: ${share(sum((r) => r.drop20?.firstLookFail), sum((r) => r.drop20?.n))}; −10%: ${share(sum((r) => r.drop10?.firstLookFail), sum((r) => r.drop10?.n))}.`,
);
console.log(out.join('\n'));
if (values.json) writeFileSync(values.json, JSON.stringify(rows.map((r) => ({ ...r })), null, 1));
