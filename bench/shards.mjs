// Shards keep alpha: drawn matrices from the recorded calibration pools (docs/modes.md, "Shards").
//
//   node bench/shards.mjs [--k 3] [--n 2000] [--joined 300] [--alpha 0.01] [--seed 29]
//
// --alpha above the default (e.g. 0.2) makes false fails frequent enough to count: the A/A
// matrices then test the union bound itself, not only that nothing fails. --joined 0 skips the
// one-runner analysis (the slow part). --no-limits sets every gated limit to 0: a significant
// change in the worse direction fails whatever its size, so alpha alone bounds the false fails.
//
// CPU-only, on recorded runs: no load is sent. A matrix of k scenarios is k runs drawn (with
// replacement) from one layout's pool (same blocks, pairs and start pairs), each run standing for
// one scenario measured on its own runner. Two ways to gate it, both with today's gate and
// adaptive stopping replayed look by look (the looks the engine takes):
// - sharded (compare/shard.ts): each run is a shard gated alone at alpha/k, its own looks and
//   Holm inside; the matrix fails when any shard fails;
// - unsharded: the k runs joined into one run of k scenarios, one Holm family at alpha, one
//   sequential design (what one runner does today; the looks stop for every scenario at once).
// A/A matrices (every run from a 0% cell) count false fails; power matrices put one run of a
// +5% or +10% cell among k−1 A/A runs and count fails. Rates with 95% Wilson intervals. Draws
// reuse the pool's runs, so the intervals describe the draws, not more independent runs than the
// pools hold (their size is printed).
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import * as gate from './analyze.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const { values } = parseArgs({ options: {
    k: { type: 'string', default: '3' },
    n: { type: 'string', default: '2000' },
    joined: { type: 'string', default: '300' },
    seed: { type: 'string', default: '29' },
    alpha: { type: 'string', default: '0.01' },
    'no-limits': { type: 'boolean', default: false },
  }, });
const k = Number(values.k);
const n = Number(values.n);
// The joined run is analysed afresh for every draw (k scenarios, one Holm family): fewer draws.
const nJoined = Math.min(n, Number(values.joined));
// perfgate's default alpha is 0.01 (config/defaults.ts).
const ALPHA = Number(values.alpha);
const random = gate.createRandom(Number(values.seed));

/** 95% Wilson score interval of x in m (as bench/calibrate.mjs). */
function wilson(x, m, z = 1.959963984540054) {
  const p = x / m;
  const d = 1 + (z * z) / m;
  const c = (p + (z * z) / (2 * m)) / d;
  const h = (z * Math.sqrt((p * (1 - p)) / m + (z * z) / (4 * m * m))) / d;
  return [Math.max(0, c - h), Math.min(1, c + h)];
}
const pct = (x) => `${(100 * x).toFixed(1)}%`;
const rate = (x, m) => {
  if (m === 0) return '—';
  const [lo, hi] = wilson(x, m);
  return `${x}/${m} = ${pct(x / m)} (${pct(lo)}–${pct(hi)})`;
};

// Every recorded single-scenario run, in today's shape and with today's gate (as calibrate.mjs's report).
const runs = [];
for (const file of readdirSync(join(root, 'docs', 'calibration')).filter((f) => f.endsWith('.jsonl'))) {
  for (const text of readFileSync(join(root, 'docs', 'calibration', file), 'utf8').split('\n')) {
    if (!text.trim()) continue;
    const line = JSON.parse(text);
    if (line.error || !(line.results?.scenarios?.length === 1) || line.results.scenarios[0].pairs.length === 0) continue;
    const { results } = gate.upgradeLine(line, `${file}, a recorded run`);
    if (results.status !== 'complete') continue;
    const rules = values['no-limits']
      ? Object.fromEntries(Object.entries(gate.DEFAULT_GATE).map(([key, rule]) => [key, { ...rule, limit: 0 }]))
      : gate.DEFAULT_GATE;
    const config = { ...results.config, alpha: ALPHA, gate: { ...rules, heap_growth: { ...gate.DEFAULT_HEAP_GROWTH } } };
    config.load = { ...config.load, earlyStop: true };
    const layout = `${config.load.blocks} blocks × ${config.load.instances} start pairs, ${config.load.pairs} pairs`;
    runs.push({ effect: line.effect, layout, results: { ...results, config, sequential: undefined } });
    // A layout whose runs had one start pair per block counts pairs, not starts: too few units
    // for the sign-flip test at these levels (docs/calibration.md), so it is not today's gate.
  }
}

const withPairs = (results, keep) => ({ ...results, scenarios: results.scenarios.map((s) => ({ ...s, pairs: s.pairs.filter(keep) })) });

/** The gate's decision on a complete recorded run, its looks replayed as the engine takes them; and the block it stopped after. */
function gated(results, alpha) {
  const config = { ...results.config, alpha };
  const design = gate.planSequential(config);
  if (!design) return { fail: gate.assessResults({ ...results, config }).decision === 'fail' };
  const taken = [];
  for (let look = 0; look < design.looks.length; look++) {
    const planned = design.looks[look];
    const last = look === design.looks.length - 1;
    const partial = { ...withPairs(results, (p) => p.block <= planned.afterBlock), config, sequential: { ...design, taken: [...taken] }, status: last ? 'complete' : 'running' };
    const decision = gate.decideLook(partial, look, gate.assessResults(partial, { httpLevel: planned.nominalAlpha }));
    taken.push(decision);
    if (last || decision.decision !== 'continue') {
      const done = { ...partial, status: 'complete', sequential: { ...design, taken } };
      return { fail: gate.assessResults(done).decision === 'fail', block: planned.afterBlock };
    }
  }
}

/** k runs as one run of k scenarios on one runner: the scenarios renamed apart, the first run's starts and environment. */
function joined(list) {
  const scenarios = list.map((r, i) => ({ ...r.results.scenarios[0], name: `s${i + 1} ${r.results.scenarios[0].name}` }));
  const first = list[0].results;
  return { ...first, scenarios, config: { ...first.config, scenarios: scenarios.map((s, i) => ({ ...list[i].results.config.scenarios[0], name: s.name })) } };
}

const pick = (pool) => pool[Math.floor(random() * pool.length)];

// A run's own decision, alone at alpha/k (a shard) and at alpha, is the same in every draw: once per run.
for (const r of runs) {
  r.shard = gated(r.results, ALPHA / k);
  r.alone = gated(r.results, ALPHA);
}
const layouts = [...new Set(runs.filter((r) => r.results.config.load.instances > 1).map((r) => r.layout))];
const rows = [];
for (const layout of layouts) {
  const pools = new Map();
  for (const r of runs.filter((x) => x.layout === layout)) {
    if (!pools.has(r.effect)) pools.set(r.effect, []);
    pools.get(r.effect).push(r);
  }
  const aa = pools.get(0) ?? [];
  if (aa.length < 10) continue;
  for (const effect of [0, 5, 10]) {
    const pool = pools.get(effect);
    if (!pool || (effect > 0 && pool.length < 3)) continue;
    let sharded = 0;
    let unsharded = 0;
    let single = 0;
    let shardBlocks = 0;
    let joinedBlocks = 0;
    for (let i = 0; i < n; i++) {
      const list = Array.from({ length: k }, (_, j) => (effect > 0 && j === 0 ? pick(pool) : pick(aa)));
      if (list.some((r) => r.shard.fail)) sharded++;
      // The slowest shard sets the matrix's wall time; the joined run measures every scenario per block.
      shardBlocks += Math.max(...list.map((r) => r.shard.block ?? 0)) + 1;
      if (effect > 0 && list[0].alone.fail) single++;
      if (i < nJoined) {
        const one = gated(joined(list), ALPHA);
        if (one.fail) unsharded++;
        joinedBlocks += (one.block ?? 0) + 1;
      }
    }
    const aloneFails = (effect === 0 ? aa : pool).filter((r) => r.alone.fail).length;
    const shardFails = (effect === 0 ? aa : pool).filter((r) => r.shard.fail).length;
    rows.push({ layout, effect, pool: pool.length, aa: aa.length, sharded, unsharded, single, aloneFails, shardFails, shardBlocks: shardBlocks / n, joinedBlocks: nJoined ? joinedBlocks / nJoined : Number.NaN });
  }
}

console.log(`${k} shards, alpha ${ALPHA} (each shard ${ALPHA}/${k})${values['no-limits'] ? ', every gated limit 0' : ''}; ${n} drawn matrices per row (${nJoined} for one runner); recorded runs: ${runs.length}`);
console.log('| Layout | Cell | Pool runs failing alone at alpha / at alpha/k | Matrix fails, k shards | Matrix fails, one runner | The effect\'s scenario alone, at alpha | Blocks: last shard / one runner |');
console.log('|---|---|---|---|---|---|---|');
for (const r of rows) {
  const cell = r.effect === 0 ? `A/A (${r.aa} runs)` : `one of ${k} scenarios +${r.effect}% (${r.pool} runs)`;
  console.log(
    `| ${r.layout} | ${cell} | ${r.aloneFails} / ${r.shardFails} | ${rate(r.sharded, n)} | ${rate(r.unsharded, nJoined)} | ${r.effect === 0 ? '—' : rate(r.single, n)} | ${r.shardBlocks.toFixed(2)} / ${r.joinedBlocks.toFixed(2)} |`,
  );
}
