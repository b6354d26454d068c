#!/usr/bin/env node
// Calibration matrix with the process start as the unit: eight kinds of service (six closed-loop
// ones, the http service at a fixed rate, and a service with a PostgreSQL database), effects of 0,
// 3, 5 and 10% more work, quiet or with a noisy neighbour. A benchmark, not a test.
//
//   node bench/calibrate-starts.mjs record [--kinds http,express,fastify,cpu,io,cluster,rate]
//   npx tsx bench/calibrate-starts.mjs record --kinds pg …   (starts its own PostgreSQL server)
//        [--effects 0,3,5,10] [--noise off|on|both] [--rounds 1] [--blocks 3] [--instances 8]
//        [--pairs-per-start 3] [--warmup 4s] [--pin auto|on|off] [--out FILE] [--cli dist/cli.js] [--tiny]
//        [--boundary]   (each run inside the cgroup boundary, compare --boundary: root or sudo -n)
//   node bench/calibrate-starts.mjs report [--in FILE[,FILE…]] [--draws 400] [--doc docs/calibration-log.md] [--marker starts-table] [--svg FILE]
//        [--draw-load JSON]   (draw in another layout, e.g. '{"instances":8,"pairs":48}')
//   node bench/calibrate-starts.mjs spread [--in FILE]
//   node bench/calibrate-starts.mjs layouts [--in FILE] [--budget 96]   (runs recorded with --blocks 1 --pairs-per-start 12)
//
// `record` drives the bundled CLI (dist/cli.js compare, as a user runs it) on a throwaway
// repository per cell: the kind's service (bench/services/<kind>) in two commits whose work.json
// makes the head do 0/3/5/10% more work per request. Each run records every pair of many start
// pairs (load.early-stop off, profiles off) and appends one JSON line to FILE, so recording
// resumes; rounds go round-robin over the cells so slow hours of the machine spread over all.
//
// `report` estimates the gate's rates per kind by drawing whole gate runs from each cell's pool
// of recorded start pairs, with the start pair as the resampled unit (Kalibera & Jones 2013):
// each draw takes as many start pairs as the defaults use (load.blocks × load.instances),
// without replacement, keeps each start's first pairs up to the default pairs per start, and
// decides it with the engine's own assessResults and interim look (decideLook). The recorded
// runs that used the drawn layout (the defaults, or --draw-load) are also decided as they are:
// those are real end-to-end runs; runs of other layouts only lend their start pairs to the pools.
// Rates come with 95% Wilson intervals; draws from one pool overlap, so they bracket what the
// pool allows and are not independent runs (the report says how many starts each pool has).
import { execFileSync } from 'node:child_process';
import { appendFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { recordCliRun, wilson } from './calibrate.mjs';
import { renderRatePlot } from './plot.mjs';

const root = resolve(fileURLToPath(new URL('..', import.meta.url)));
const DEFAULT_FILE = join(root, 'docs', 'calibration', 'starts.jsonl');
export const KINDS = ['http', 'express', 'fastify', 'cpu', 'io', 'cluster', 'rate', 'pg'];

/**
 * Kinds that are another kind's service measured differently: "rate" is the http service at a
 * fixed rate of 60% of base's capacity (open loop), "pg" a service with a database (its
 * service.setup makes each side's database on the PostgreSQL server `record` starts).
 */
const KIND_SETUPS = {
  rate: { dir: 'http', scenarios: ['  - name: GET /json', '    path: /json', '    rate: 60%'] },
  pg: { dir: 'pg', scenarios: ['  - GET /json'], service: (pg) => ['  setup: node setup.js', `  env: { PGHOST: ${pg.host}, PGPORT: "${pg.port}", PGUSER: ${pg.user} }`] },
};

// ------------------------------------------------------------------------------------ record

function cellKey(cell) {
  return `${cell.kind}/${cell.effect}%/${cell.noise ? 'noisy' : 'quiet'}/${cell.mode}`;
}

export function readLines(file) {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line));
}

function makeRepo(scratch, cell, load, pg) {
  const repo = join(scratch, cellKey(cell).replace(/[/%]/g, '_'));
  rmSync(repo, { recursive: true, force: true });
  mkdirSync(repo, { recursive: true });
  const git = (...args) => execFileSync('git', ['-c', 'user.name=calibrate', '-c', 'user.email=calibrate@perfgate.invalid', ...args], { cwd: repo });
  const setup = KIND_SETUPS[cell.kind] ?? { dir: cell.kind, scenarios: ['  - GET /json'] };
  cpSync(join(root, 'bench', 'services', setup.dir), repo, { recursive: true });
  cpSync(join(root, 'bench', 'services', 'work.js'), join(repo, 'work.js'));
  const service = ['service:', '  start: node server.js', ...(setup.service ? setup.service(pg) : [])];
  const yaml = [...service, 'scenarios:', ...setup.scenarios, `load: ${JSON.stringify(load)}`, 'profile: false', ''].join('\n');
  writeFileSync(join(repo, 'perfgate.yml'), yaml);
  writeFileSync(join(repo, 'work.json'), '{"extra": 0}\n');
  writeFileSync(join(repo, '.gitignore'), 'node_modules/\nresults.json\n');
  git('init', '--quiet', '--initial-branch=base');
  git('add', '-A');
  git('commit', '--quiet', '-m', 'base');
  git('checkout', '--quiet', '-b', 'head');
  // A/A: head differs from base by a comment only, as a no-op PR does.
  writeFileSync(join(repo, 'work.json'), `{"extra": ${cell.effect / 100}}\n`);
  writeFileSync(join(repo, 'server.js'), `${readFileSync(join(repo, 'server.js'), 'utf8')}// head\n`);
  git('commit', '--quiet', '-am', `head: ${cell.effect}% more work per request`);
  return repo;
}

async function recordOnce(cli, repo, cell, round, boundary) {
  // Whole results: the health verdicts (gated event-loop delay among them) are derived from the
  // per-process reports, so a line without them re-derives a smaller Holm family than the gate's.
  const fields = { cell: cellKey(cell), ...cell, round, ...(boundary && { boundary: true }) };
  return recordCliRun(cli, repo, cell.noise, fields, boundary ? ['--boundary'] : []);
}

function parseList(text, what) {
  return text.split(',').map((part) => {
    const value = part.trim();
    if (value === '') throw new Error(`--${what}: empty item in "${text}"`);
    return value;
  });
}

async function record(values) {
  const cli = resolve(values.cli);
  if (!existsSync(cli)) throw new Error(`${cli} is missing: run \`npm run bundle\` first.`);
  const kinds = parseList(values.kinds, 'kinds');
  for (const k of kinds) if (!KINDS.includes(k)) throw new Error(`--kinds: unknown "${k}"; known: ${KINDS.join(', ')}`);
  const effects = parseList(values.effects, 'effects').map(Number);
  const noises = { off: [false], on: [true], both: [false, true] }[values.noise];
  if (!noises) throw new Error(`--noise: use off, on or both, not "${values.noise}"`);
  const blocks = Number(values.blocks);
  const instances = Number(values.instances);
  const perStart = Number(values['pairs-per-start']);
  const load = values.tiny
    ? { pairs: 6, blocks: 1, instances: 2, slice: '150ms', warmup: '300ms', 'early-stop': false, pin: values.pin }
    : { pairs: blocks * instances * perStart, blocks, instances, 'early-stop': false, pin: values.pin, warmup: values.warmup, mode: values.mode };
  const file = resolve(values.out);
  mkdirSync(dirname(file), { recursive: true });
  const cells = noises.flatMap((noise) => kinds.flatMap((kind) => effects.map((effect) => ({ kind, effect, noise, mode: values.mode }))));
  const done = new Map();
  for (const line of readLines(file)) if (!line.error) done.set(line.cell, (done.get(line.cell) ?? 0) + 1);
  const scratch = mkdtempSync(join(tmpdir(), 'perfgate-starts-'));
  const repos = new Map();
  const rounds = Number(values.rounds);
  // The database kind's server, one for the session: test/helpers/postgres.ts, so run the harness
  // with tsx for it (npx tsx bench/calibrate-starts.mjs record --kinds pg).
  const pg = kinds.includes('pg') ? await (await import('../test/helpers/postgres.ts')).startPostgres() : null;
  try {
    for (let r = 1; r <= rounds; r++) {
      for (const cell of cells) {
        const key = cellKey(cell);
        if ((done.get(key) ?? 0) >= r) continue;
        if (!repos.has(key)) repos.set(key, makeRepo(scratch, cell, load, pg));
        const line = await recordOnce(cli, repos.get(key), cell, r, values.boundary);
        appendFileSync(file, `${JSON.stringify(line)}\n`);
        if (!line.error) done.set(key, r);
        const outcome = line.error ? `error: ${line.error}` : `exit ${line.exit}`;
        console.log(`${key} round ${r}: ${outcome}, ${line.wallSeconds} s, load ${line.loadavg1}`);
      }
    }
  } finally {
    await pg?.stop();
    rmSync(scratch, { recursive: true, force: true });
  }
}

// ------------------------------------------------------------------------------------ spread

/**
 * What the CLI itself decided (its --verdicts file): the decision and every gated verdict of the
 * scenario. Lines recorded before 2026-11-23 16:10 have none, and their health reports were
 * stripped, so the verdict re-derived beside it lacks the gated health metrics.
 */
function cliVerdicts(line, scenario) {
  if (!line.verdicts) return `exit ${line.exit} (no verdicts recorded)`;
  const gated = line.verdicts.metrics.filter((m) => m.gated && m.scenario === scenario);
  return `${line.verdicts.decision}: ${gated.map((m) => `${m.metric} ${m.verdict}`).join(', ')}`;
}

/** Sample standard deviation. */
function sd(values) {
  const m = values.reduce((a, b) => a + b, 0) / values.length;
  return Math.sqrt(values.reduce((a, b) => a + (b - m) ** 2, 0) / (values.length - 1));
}

/**
 * Where each recorded run's noise is: its pairs' throughput log-ratios split into the spread
 * between pairs of one start and the spread of the start pairs' means (one-way random effects,
 * method of moments: offset² = SD(means)² − within² / pairs per start, floored at 0), with the
 * run's verdict over starts.
 */
async function spread(values) {
  const gate = await import('./analyze.mjs');
  console.log('run | load s | pairs per start | SD within a start | SD of start means | start offset SD | throughput over starts | the CLI: decision, gated verdicts');
  for (const line of readLines(resolve(values.in))
    .filter((l) => !l.error)
    .map((l) => gate.upgradeLine(l, values.in))) {
    for (const scenario of line.results.scenarios) {
      const byStart = new Map();
      for (const pair of scenario.pairs) {
        const key = pair.start ?? pair.block;
        if (!byStart.has(key)) byStart.set(key, []);
        byStart.get(key).push(100 * Math.log(pair.head.rps / pair.base.rps));
      }
      const groups = [...byStart.values()];
      const means = groups.map((g) => g.reduce((a, b) => a + b, 0) / g.length);
      const residuals = groups.flatMap((g, i) => g.map((x) => x - means[i]));
      const within = Math.sqrt(residuals.reduce((a, b) => a + b * b, 0) / (residuals.length - groups.length));
      const perStart = residuals.length / groups.length;
      const offset = Math.sqrt(Math.max(0, sd(means) ** 2 - within ** 2 / perStart));
      const t = gate.assessResults(line.results).comparisons.find((c) => c.scenario === scenario.name && c.metric === 'throughput');
      const pct = (x) => `${x >= 0 ? '+' : ''}${(100 * x).toFixed(1)}`;
      console.log(
        `${line.cell}${line.variant ? ` (${line.variant})` : ''} | ${line.wallSeconds} | ${perStart.toFixed(1)} | ${within.toFixed(1)}% | ${sd(means).toFixed(1)}% | ${offset.toFixed(1)}% | ${pct(t.change)}% (${pct(t.ciLow)} … ${pct(t.ciHigh)}) ${t.verdict} | ${cliVerdicts(line, scenario.name)}`,
      );
    }
  }
}

// ----------------------------------------------------------------------------------- layouts

/**
 * How to spend a scenario's load on one start pair: warm-up W seconds, then P pairs. Reads runs
 * recorded with many pairs per start (`record --blocks 1 --pairs-per-start 12`, the "ramp"
 * runs): pair k of a start was measured after about W0 + k s of load (W0: the run's warm-up), so
 * the layout (W, P) is that start's pairs W − W0 … W − W0 + P − 1, summarised by their median as
 * the gate does. For each kind and layout: the spread of the start estimates over the pool, and
 * the standard error of a run's mean estimate within a fixed load budget (budget ÷ (W + P)
 * start pairs, so a layout pays for its warm-up with fewer starts) and with the default 12 start
 * pairs (whatever load that takes). A benchmark, not a test: the pools are small and the SDs
 * carry about ±20% of sampling error at 18 starts. It assumes a pair's noise depends on how long
 * its start has been loaded; runs recorded before the warm-up was loaded in slices
 * (docs/calibration/ramp.jsonl) mostly measured the disturbance after the one long warm-up
 * slice instead (docs/calibration-log.md, "The first pair after the warm-up").
 */
function layouts(values) {
  const budget = Number(values.budget);
  const byKind = new Map();
  for (const line of readLines(resolve(values.in)).filter((l) => !l.error)) {
    const w0 = line.results.config.load.warmupMs / 1000;
    const starts = poolOf([line]).map((unit) => unit.pairs.map((p) => 100 * Math.log(p.head.rps / p.base.rps)));
    if (!byKind.has(line.kind)) byKind.set(line.kind, { w0, starts: [] });
    const pool = byKind.get(line.kind);
    if (pool.w0 !== w0) throw new Error(`${values.in}: ${line.kind} runs with warm-ups of ${pool.w0} s and ${w0} s; record one warm-up per file`);
    pool.starts.push(...starts);
  }
  if (byKind.size === 0) throw new Error(`${values.in} has no recorded runs: run \`record --blocks 1 --pairs-per-start 12\` first.`);
  const shapes = [];
  for (const w of [4, 5, 6, 7, 8]) for (const p of [1, 2, 3, 4, 6]) shapes.push([w, p]);
  console.log(`| kind | start pairs | layout | SD of start estimates | SE of a run's estimate, ${budget} s of load | SE with 12 start pairs (load s) |`);
  console.log('| :-- | --: | :-- | --: | --: | --: |');
  for (const [kind, { w0, starts }] of [...byKind].sort()) {
    const perStart = Math.min(...starts.map((s) => s.length));
    for (const [w, p] of shapes) {
      if (w < w0 || w - w0 + p > perStart) continue;
      const estimates = starts.map((s) => median(s.slice(w - w0, w - w0 + p)));
      const spread = sd(estimates);
      const n = budget / (w + p);
      console.log(
        `| ${kind} | ${starts.length} | ${w} s + ${p} | ${spread.toFixed(2)}% | ${(spread / Math.sqrt(n)).toFixed(2)}% (${n.toFixed(1)} start pairs) | ${(spread / Math.sqrt(12)).toFixed(2)}% (${12 * (w + p)} s) |`,
      );
    }
  }
}

// ------------------------------------------------------------------------------------ report

function median(values) {
  const s = [...values].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

/** A cell's pool: every recorded start pair, as its list of pairs (its first pairs first). */
export function poolOf(lines) {
  const pool = [];
  for (const line of lines) {
    for (const scenario of line.results.scenarios) {
      const byStart = new Map();
      for (const pair of scenario.pairs) {
        const key = pair.start ?? pair.block;
        if (!byStart.has(key)) byStart.set(key, []);
        byStart.get(key).push(pair);
      }
      for (const pairs of byStart.values()) pool.push({ line, pairs: pairs.sort((a, b) => a.index - b.index) });
    }
  }
  return pool;
}

/** Whether a recorded run measured in the layout of `config` (so it counts as a real run of it). */
function recordedIn(line, config) {
  const recorded = line.results.config.load;
  return ['blocks', 'instances', 'pairs', 'warmupMs', 'sliceMs', 'mode'].every((key) => recorded[key] === config.load[key]);
}

/**
 * One gate run drawn from the pool: `starts` start pairs without replacement, laid out as the
 * defaults lay them out (blocks of `instances`), each with up to `perStart` of its pairs.
 */
export function drawRun(template, pool, config, rand) {
  const { blocks, instances, pairs } = config.load;
  const starts = blocks * instances;
  const perStart = Math.ceil(pairs / starts);
  const chosen = [];
  const taken = new Set();
  while (chosen.length < Math.min(starts, pool.length)) {
    const i = Math.floor(rand() * pool.length);
    if (taken.has(i)) continue;
    taken.add(i);
    chosen.push(pool[i]);
  }
  let index = 0;
  const drawn = chosen.flatMap((unit, s) =>
    unit.pairs.slice(0, perStart).map((p) => ({ ...p, block: Math.floor(s / instances), start: s, index: index++ })),
  );
  return { ...template, config, status: 'complete', scenarios: [{ ...template.scenarios[0], pairs: drawn }], sequential: undefined };
}

/**
 * A drawn run decided as the engine decides it: at each interim look of `design` (by default the
 * paired one of its configuration; null: none, every block), then at the end.
 */
export async function decide(results, gate, design = gate.planSequential(results.config)) {
  const { assessResults, decideLook } = gate;
  if (!design) return { analysis: assessResults(results), stoppedAt: null };
  const taken = [];
  for (const [index, look] of design.looks.entries()) {
    if (index === design.looks.length - 1) break;
    const partial = {
      ...results,
      sequential: { ...design, taken: [...taken] },
      status: 'running',
      scenarios: results.scenarios.map((s) => ({ ...s, pairs: s.pairs.filter((p) => p.block <= look.afterBlock) })),
    };
    const decision = decideLook(partial, index, assessResults(partial, { httpLevel: look.nominalAlpha }));
    taken.push(decision);
    if (decision.decision.startsWith('stop')) {
      const stopped = { ...partial, status: 'complete', sequential: { ...design, taken } };
      return { analysis: assessResults(stopped), stoppedAt: look.afterBlock };
    }
  }
  const complete = { ...results, sequential: { ...design, taken } };
  taken.push(decideLook(complete, design.looks.length - 1, assessResults(complete)));
  return { analysis: assessResults(complete), stoppedAt: null };
}

function verdictOf(analysis, metric = 'throughput') {
  return analysis.comparisons.find((c) => c.metric === metric)?.verdict ?? 'missing';
}

function allGatedClear(analysis) {
  const gated = [...analysis.comparisons, ...(analysis.health?.comparisons ?? [])].filter((c) => c.gated);
  return gated.length > 0 && gated.every((c) => c.verdict === 'unchanged');
}

function rate(k, n) {
  if (n === 0) return '–';
  const [lo, hi] = wilson(k, n);
  const pct = (x) => `${(100 * x).toFixed(x < 0.1 && x > 0 ? 1 : 0)}%`;
  return `${k}/${n} = ${pct(k / n)} (${pct(lo)}–${pct(hi)})`;
}

/**
 * Seconds of load a drawn run would take with the defaults: per block its warm-up (warmup ×
 * instances) and about 2 s to boot and stop, plus its slices (one slice per pair when
 * simultaneous, two when alternating).
 */
export function loadSeconds(results, stoppedAt, config) {
  const { load } = config;
  const blocks = stoppedAt === null ? load.blocks : stoppedAt + 1;
  const pairs = results.scenarios[0].pairs.filter((p) => stoppedAt === null || p.block <= stoppedAt).length;
  const perBlock = (load.warmupMs * load.instances) / 1000 + 2;
  return blocks * perBlock + (pairs * (load.mode === 'simultaneous' ? 1 : 2) * load.sliceMs) / 1000;
}

export async function summarize(lines, draws, seed = 1, drawLoad = {}) {
  const gate = await import('./analyze.mjs');
  const config = gate.resolveConfig({ document: { service: { start: 'node server.js' }, scenarios: ['GET /json'], profile: false, load: drawLoad } });
  const cells = new Map();
  for (const line of lines.filter((l) => !l.error)) {
    if (!cells.has(line.cell)) cells.set(line.cell, []);
    cells.get(line.cell).push(line);
  }
  const rows = [];
  for (const [cell, cellLines] of [...cells].sort()) {
    const { kind, effect, noise, mode } = cellLines[0];
    const pool = poolOf(cellLines);
    const rand = gate.createRandom(seed);
    const tally = { n: 0, fail: 0, clear: 0, unchanged: 0, stopped: 0, seconds: [], change: [] };
    // A pool with fewer start pairs than a run uses cannot give a run without repeating starts,
    // which would hide their spread: such a cell has its real runs only.
    const drawable = pool.length >= config.load.blocks * config.load.instances;
    for (let d = 0; drawable && d < draws; d++) {
      const drawn = drawRun(cellLines[0].results, pool, config, rand);
      const { analysis, stoppedAt } = await decide(drawn, gate);
      tally.n++;
      if (analysis.decision === 'fail') tally.fail++;
      if (verdictOf(analysis) === 'unchanged') tally.unchanged++;
      if (allGatedClear(analysis)) tally.clear++;
      if (stoppedAt !== null) tally.stopped++;
      tally.seconds.push(loadSeconds(drawn, stoppedAt, config));
    }
    // The recorded runs themselves. They are recorded with early stop off (every block measured,
    // so the pools hold every start), so `fail` is what the CLI decided without looks. The same
    // recorded pairs are then decided by the current engine with the design's looks, as the CLI
    // with its defaults would have: it sees the same blocks up to the look it stops at. Lines from
    // before the harness kept the CLI's verdicts also lack the health reports, so they would be
    // decided with a smaller Holm family: they count as the CLI decided them.
    const realLines = cellLines.filter((line) => recordedIn(line, config));
    const real = { n: realLines.length, fail: 0, redecided: 0, unchanged: 0, clear: 0, stopped: 0, withVerdicts: 0, seconds: realLines.map((l) => l.wallSeconds) };
    for (const line of realLines) {
      if (line.exit === 1) real.fail++;
      if (!line.verdicts) {
        if (line.exit === 1) real.redecided++;
        if (verdictOf(gate.assessResults(line.results)) === 'unchanged') real.unchanged++;
        continue;
      }
      real.withVerdicts++;
      const load = { ...line.results.config.load, earlyStop: true };
      const { analysis, stoppedAt } = await decide({ ...line.results, config: { ...line.results.config, load }, sequential: undefined }, gate);
      if (analysis.decision === 'fail') real.redecided++;
      if (verdictOf(analysis) === 'unchanged') real.unchanged++;
      if (allGatedClear(analysis)) real.clear++;
      if (stoppedAt !== null) real.stopped++;
    }
    // The measured drop: every recorded pair's throughput ratio, pooled by start.
    const startChanges = pool.map((u) => median(u.pairs.map((p) => Math.log(p.head.rps / p.base.rps))));
    const spread = 1.4826 * median(startChanges.map((x) => Math.abs(x - median(startChanges))));
    rows.push({
      cell,
      kind,
      effect,
      noise,
      mode,
      runs: cellLines.length,
      starts: pool.length,
      measured: Math.expm1(median(startChanges)),
      startSd: spread,
      ...tally,
      medianSeconds: tally.seconds.length > 0 ? median(tally.seconds) : null,
      real: { ...real, medianSeconds: real.n > 0 ? median(real.seconds) : null },
    });
  }
  return rows;
}

export function renderTables(rows, draws) {
  const out = [];
  for (const kind of KINDS) {
    const mine = rows.filter((r) => r.kind === kind);
    if (mine.length === 0) continue;
    out.push(`#### ${kind}`, '');
    out.push('Real end-to-end runs of the bundled CLI in the layout drawn below, recorded with early stop off, then decided by the current engine with the looks (runs of other layouts only add their start pairs to the pools):', '');
    out.push('| effect | noise | runs | failed without looks (exit 1) | failed with the looks | throughput unchanged | every gated metric unchanged (runs with recorded verdicts) | stopped at an interim look | median wall time (every block) |');
    out.push('| --: | :-- | --: | --: | --: | --: | --: | --: | --: |');
    for (const r of mine.sort((a, b) => a.effect - b.effect || Number(a.noise) - Number(b.noise))) {
      const { real } = r;
      if (real.n === 0) continue;
      out.push(
        `| ${r.effect}% | ${r.noise ? 'noisy' : 'quiet'} | ${real.n} | ${rate(real.fail, real.n)} | ${rate(real.redecided, real.n)} | ${r.effect === 0 ? rate(real.unchanged, real.n) : '–'} | ${r.effect === 0 ? rate(real.clear, real.withVerdicts) : '–'} | ${rate(real.stopped, real.withVerdicts)} | ${real.medianSeconds.toFixed(0)} s |`,
      );
    }
    out.push('', `Gate runs drawn from the cell's pool of start pairs (${draws} per cell; with few recorded runs the draws mostly repeat them):`, '');
    out.push('| effect | noise | mode | recorded runs · start pairs | measured change (median of starts) | start-to-start SD | false fail / caught | throughput unchanged | every gated metric unchanged | stopped at an interim look | median load time |');
    out.push('| --: | :-- | :-- | --: | --: | --: | --: | --: | --: | --: | --: |');
    for (const r of mine.sort((a, b) => a.effect - b.effect || Number(a.noise) - Number(b.noise))) {
      out.push(
        `| ${r.effect}% | ${r.noise ? 'noisy' : 'quiet'} | ${r.mode} | ${r.runs} · ${r.starts} | ${(100 * r.measured).toFixed(1)}% | ${(100 * r.startSd).toFixed(1)}% | ${rate(r.fail, r.n)} | ${r.effect === 0 ? rate(r.unchanged, r.n) : '–'} | ${r.effect === 0 ? rate(r.clear, r.n) : '–'} | ${rate(r.stopped, r.n)} | ${r.medianSeconds === null ? '–' : `${r.medianSeconds.toFixed(0)} s`} |`,
      );
    }
    out.push('');
  }
  // Every kind together: the issue's totals (false fails from at least 150 A/A gate runs).
  out.push('#### All kinds together', '');
  out.push('| effect | noise | kinds | real runs failed with the looks | real runs, every gated metric unchanged | drawn runs failed | drawn runs, every gated metric unchanged |');
  out.push('| --: | :-- | --: | --: | --: | --: | --: |');
  const groups = new Map();
  for (const r of rows) {
    const key = `${r.effect}|${r.noise}`;
    groups.set(key, [...(groups.get(key) ?? []), r]);
  }
  for (const group of [...groups.values()].sort((a, b) => a[0].effect - b[0].effect || Number(a[0].noise) - Number(b[0].noise))) {
    const sum = (f) => group.reduce((total, r) => total + f(r), 0);
    const aa = group[0].effect === 0;
    out.push(
      `| ${group[0].effect}% | ${group[0].noise ? 'noisy' : 'quiet'} | ${group.length} | ${rate(sum((r) => r.real.redecided), sum((r) => r.real.n))} | ${aa ? rate(sum((r) => r.real.clear), sum((r) => r.real.withVerdicts)) : '–'} | ${rate(sum((r) => r.fail), sum((r) => r.n))} | ${aa ? rate(sum((r) => r.clear), sum((r) => r.n)) : '–'} |`,
    );
  }
  out.push('', 'Drawn runs of one pool share their start pairs, so they are not independent: their intervals say what the pools allow, not what that many independent runs would show.', '');
  return out.join('\n');
}

async function report(values) {
  const { upgradeLine } = await import('./analyze.mjs');
  const lines = values.in.split(',').flatMap((file) => readLines(resolve(file)).map((l) => (l.error ? l : upgradeLine(l, file))));
  if (lines.length === 0) throw new Error(`${values.in} has no recorded runs: run \`record\` first.`);
  // --draw-load '{"instances":8,"pairs":48}': draw gate runs in another layout than the defaults'
  // (the pools' start pairs, up to the layout's pairs per start; only the runs recorded in that
  // layout count as its real runs).
  const rows = await summarize(lines, Number(values.draws), 1, values['draw-load'] ? JSON.parse(values['draw-load']) : {});
  const table = renderTables(rows, Number(values.draws));
  console.log(table);
  if (values.svg) {
    // the real runs: the share the CLI failed, per kind and effect (drawn runs repeat them)
    const points = rows.filter((r) => r.real.n > 0).map((r) => {
      const [lo, hi] = wilson(r.real.redecided, r.real.n);
      return { series: r.kind, effect: r.effect, rate: r.real.redecided / r.real.n, lo, hi, dashed: r.noise };
    });
    const targets = [
      { rate: 0.95, label: '5% drop: caught ≥ 95%' },
      { rate: 0.8, label: '3% drop: caught ≥ 80%' },
    ];
    writeFileSync(values.svg, await renderRatePlot({ title: 'Real runs of the defaults that failed, per kind (0% = A/A: false fails)', points, targets }));
  }
  if (values.doc) {
    const doc = readFileSync(values.doc, 'utf8');
    const begin = `<!-- ${values.marker}:begin -->`;
    const end = `<!-- ${values.marker}:end -->`;
    if (!doc.includes(begin) || !doc.includes(end)) throw new Error(`${values.doc} has no ${begin} … ${end} markers`);
    const first = lines.find((l) => !l.error);
    const when = `${lines[0].startedAt.slice(0, 10)} to ${lines.at(-1).startedAt.slice(0, 10)}`;
    const machine = `${first.results.environment.cpus} vCPU ${first.results.environment.cpuModel}, Node ${first.results.environment.nodeVersion}`;
    const header = `Recorded ${when} on ${machine}; ${lines.length} recorded runs (${lines.filter((l) => l.error).length} errors); ${values.draws} drawn gate runs per cell.\n\n`;
    writeFileSync(values.doc, doc.replace(new RegExp(`${begin}[\\s\\S]*${end}`), `${begin}\n${header}${table}\n${end}`));
  }
}

const isMain = process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url);
if (isMain) {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      // pg needs tsx (its PostgreSQL helper is TypeScript): named only when asked for
      kinds: { type: 'string', default: KINDS.filter((k) => k !== 'pg').join(',') },
      effects: { type: 'string', default: '0,3,5,10' },
      noise: { type: 'string', default: 'off' },
      rounds: { type: 'string', default: '1' },
      blocks: { type: 'string', default: '3' },
      instances: { type: 'string', default: '8' },
      'pairs-per-start': { type: 'string', default: '3' },
      pin: { type: 'string', default: 'auto' },
      warmup: { type: 'string', default: '4s' },
      mode: { type: 'string', default: 'simultaneous' },
      out: { type: 'string', default: DEFAULT_FILE },
      in: { type: 'string', default: DEFAULT_FILE },
      draws: { type: 'string', default: '400' },
      budget: { type: 'string', default: '96' },
      marker: { type: 'string', default: 'starts-table' },
      svg: { type: 'string' },
      doc: { type: 'string' },
      'draw-load': { type: 'string' },
      cli: { type: 'string', default: join(root, 'dist', 'cli.js') },
      tiny: { type: 'boolean', default: false },
      boundary: { type: 'boolean', default: false },
    },
  });
  try {
    if (positionals[0] === 'record') await record(values);
    else if (positionals[0] === 'report') await report(values);
    else if (positionals[0] === 'spread') await spread(values);
    else if (positionals[0] === 'layouts') layouts(values);
    else throw new Error('usage: node bench/calibrate-starts.mjs record|report|spread|layouts [options] (see the comment at the top)');
  } catch (e) {
    console.error(`calibrate-starts: ${e.stack ?? e.message}`);
    process.exit(process.exitCode || 2);
  }
}
