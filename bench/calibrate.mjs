#!/usr/bin/env node
// Calibration harness: how often the gate fails an unchanged PR, and how often it catches a
// real drop. A benchmark, not a test: a full calibration takes hours.
//
//   node bench/calibrate.mjs run    [--runs 20] [--settings default] [--effects 0,3,5,10]
//                                   [--noise off|on|both] [--out FILE] [--tiny] [--cli dist/cli.js]
//   node bench/calibrate.mjs report [--in FILE] [--doc docs/calibration-log.md] [--svg docs/calibration.svg]
//   node bench/calibrate.mjs resample [--n 1000]
//
// `run` drives the bundled CLI (dist/cli.js compare, the engine the action runs; --cli takes a
// copy of it, so a long calibration is not changed by a rebuild halfway) against the
// calibration service (bench/calibration-service): base and head are commits of one repository
// whose work.json makes the head do 0%, 3%, 5% or 10% more work per request. Each finished run
// appends one JSON line (its whole results.json, profiles off) to FILE, so runs resume: a second
// `run` only adds the runs each cell still lacks, round-robin over the cells so that slow hours
// of the machine spread over every cell. `--noise on` adds a noisy neighbour: a CPU hog that
// switches on and off at random every 1–4 s for the whole run.
//
// The runs record every pair (load.early-stop off). `report` then evaluates, on the same raw
// slices, perfgate's default rule (with its interim look taken by the same decideLook the engine
// uses, on the pairs measured by then), variants of it, and simpler rules other tools use, and
// prints rates with 95% Wilson intervals. With --doc it rewrites the table between the markers
// in that file; with --svg it draws detection rate against effect size.
//
// `resample` is the check the design's noise study made: today's default gate on 60-pair runs drawn from
// test/fixtures/slices (100 pairs of A/A and of 5% more work, a noisier machine than ours), with
// replacement (duplicated pairs make ties the test counts as independent evidence) and without
// (the runs overlap heavily). Neither is independent runs; both bracket what the data allows.
import { execFileSync, spawn } from 'node:child_process';
import { appendFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { renderRatePlot } from './plot.mjs';

const root = resolve(fileURLToPath(new URL('..', import.meta.url)));
const DEFAULT_FILE = join(root, 'docs', 'calibration', 'runs.jsonl');

/** Load settings to compare; the default is perfgate's own defaults. */
export const SETTINGS = {
  default: {},
  'slice-500ms': { slice: '500ms', pairs: 120 },
  'blocks-4': { blocks: 4 },
  'connections-50': { connections: 50 },
};
/**
 * A setting small enough for the harness's own test: the fewest pairs a run takes (6), in the two
 * blocks the interim look and the block recombination need, one start each (each start is a boot
 * and a warm-up).
 */
const TINY = { pairs: 6, blocks: 2, instances: 1, slice: '150ms', warmup: '300ms' };

// ------------------------------------------------------------------------------------ run

function cellKey(cell) {
  return `${cell.setting}/${cell.effect}%/${cell.noise ? 'noisy' : 'quiet'}`;
}

function readRuns(file) {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line));
}

function makeRepo(scratch, cell, tiny) {
  const repo = join(scratch, cellKey(cell).replace(/[/%]/g, '_'));
  rmSync(repo, { recursive: true, force: true });
  mkdirSync(repo, { recursive: true });
  const git = (...args) => execFileSync('git', ['-c', 'user.name=calibrate', '-c', 'user.email=calibrate@perfgate.invalid', ...args], { cwd: repo });
  cpSync(join(root, 'bench', 'calibration-service', 'server.js'), join(repo, 'server.js'));
  const load = { ...(tiny ? TINY : SETTINGS[cell.setting]), 'early-stop': false };
  const yaml = [
    'service:',
    '  start: node server.js',
    'scenarios:',
    '  - GET /work',
    `load: ${JSON.stringify(load)}`,
    'profile: false',
    '',
  ].join('\n');
  writeFileSync(join(repo, 'perfgate.yml'), yaml);
  writeFileSync(join(repo, 'work.json'), '{"extra": 0}\n');
  git('init', '--quiet', '--initial-branch=base');
  git('add', '-A');
  git('commit', '--quiet', '-m', 'base');
  git('checkout', '--quiet', '-b', 'head');
  writeFileSync(join(repo, 'work.json'), `{"extra": ${cell.effect / 100}}\n`);
  git('commit', '--quiet', '--allow-empty', '-am', `head: ${cell.effect}% more work per request`);
  return repo;
}

/** A CPU hog that switches on and off at random, 1–4 s per phase. */
export function startNoisyNeighbour() {
  const script = `let on = true; let until = Date.now() + 1000;
    for (;;) { const now = Date.now(); if (now > until) { on = !on; until = now + 1000 + Math.random() * 3000; }
      if (!on) { Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, until - now); } }`;
  return spawn(process.execPath, ['-e', script], { stdio: 'ignore' });
}

/**
 * One run of the bundled CLI on a calibration repository (base and head branches), with the
 * noisy neighbour on when the cell asks for it: the JSON line the harnesses append, its results
 * without profiles, or the error's last lines. `fields` go first (the cell, the run number).
 */
export async function recordCliRun(cli, repo, noise, fields, extraArgs = [], { profile = false } = {}) {
  const json = join(repo, 'results.json');
  const verdicts = join(repo, 'verdicts.json');
  rmSync(json, { force: true });
  rmSync(verdicts, { force: true });
  const hog = noise ? startNoisyNeighbour() : null;
  const started = Date.now();
  const load1 = loadavg()[0];
  let child;
  try {
    child = await runCli(cli, repo, ['compare', '--base', 'base', '--head', 'head', '--json', json, '--verdicts', verdicts, '--quiet', ...(profile ? [] : ['--no-profile']), ...extraArgs]);
  } finally {
    hog?.kill('SIGKILL');
  }
  const line = {
    ...fields,
    startedAt: new Date(started).toISOString(),
    wallSeconds: Math.round((Date.now() - started) / 100) / 10,
    loadavg1: Math.round(load1 * 100) / 100,
    exit: child.status,
  };
  if (child.status !== 0 && child.status !== 1) return { ...line, error: `${child.stderr}`.trim().split('\n').slice(-4).join(' ') };
  const results = JSON.parse(readFileSync(json, 'utf8'));
  delete results.profiles;
  // The CLI's own decision and verdicts, every gated metric included (health too), as a user sees them.
  return { ...line, verdicts: JSON.parse(readFileSync(verdicts, 'utf8')), results };
}

/**
 * The CLI as a child that a stopped harness stops too: SIGINT or SIGTERM to the harness is
 * passed on (perfgate then stops its services and removes its worktrees) and the harness stops
 * once the child has: a stopped harness no longer leaves a compare running beside the next one.
 */
function runCli(cli, repo, args) {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, [cli, ...args], { cwd: repo, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk) => {
      stderr = (stderr + chunk).slice(-20_000);
    });
    let stoppedBy = null;
    const forward = (signal) => {
      stoppedBy = signal;
      child.kill(signal);
    };
    process.on('SIGINT', forward);
    process.on('SIGTERM', forward);
    child.on('error', reject);
    child.on('close', (status) => {
      process.off('SIGINT', forward);
      process.off('SIGTERM', forward);
      if (stoppedBy) {
        process.exitCode = stoppedBy === 'SIGINT' ? 130 : 143;
        reject(new Error(`stopped by ${stoppedBy}; perfgate stopped its services (nothing appended for this run)`));
      } else resolvePromise({ status, stderr });
    });
  });
}

async function runOnce(cli, repo, cell, run) {
  return recordCliRun(cli, repo, cell.noise, { cell: cellKey(cell), ...cell, run });
}

function parseList(text, what) {
  return text.split(',').map((part) => {
    const value = part.trim();
    if (value === '') throw new Error(`--${what}: empty item in "${text}"`);
    return value;
  });
}

async function run(values) {
  const cli = resolve(values.cli);
  if (!existsSync(cli)) throw new Error(`${cli} is missing: run \`npm run bundle\` first.`);
  const runs = Number(values.runs);
  const settings = parseList(values.settings, 'settings');
  for (const s of settings) if (!(s in SETTINGS)) throw new Error(`--settings: unknown "${s}"; known: ${Object.keys(SETTINGS).join(', ')}`);
  const effects = parseList(values.effects, 'effects').map(Number);
  const noises = { off: [false], on: [true], both: [false, true] }[values.noise];
  if (!noises) throw new Error(`--noise: use off, on or both, not "${values.noise}"`);
  const file = resolve(values.out);
  mkdirSync(dirname(file), { recursive: true });
  const cells = settings.flatMap((setting) => noises.flatMap((noise) => effects.map((effect) => ({ setting: values.tiny ? 'tiny' : setting, effect, noise }))));
  const done = new Map();
  for (const line of readRuns(file)) done.set(line.cell, (done.get(line.cell) ?? 0) + 1);
  const scratch = mkdtempSync(join(tmpdir(), 'perfgate-calibrate-'));
  const repos = new Map();
  try {
    for (let r = 1; r <= runs; r++) {
      for (const cell of cells) {
        const key = cellKey(cell);
        if ((done.get(key) ?? 0) >= r) continue;
        if (!repos.has(key)) repos.set(key, makeRepo(scratch, cell, values.tiny));
        const line = await runOnce(cli, repos.get(key), cell, r);
        appendFileSync(file, `${JSON.stringify(line)}\n`);
        done.set(key, r);
        const outcome = line.error ? `error: ${line.error}` : `exit ${line.exit}`;
        console.log(`${key} run ${r}: ${outcome}, ${line.wallSeconds} s, load ${line.loadavg1}`);
      }
    }
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
  console.log(`all cells have ${runs} runs in ${file}`);
}

// --------------------------------------------------------------------------------- report

/**
 * The rows a drawn-run script cached in `path` (one JSON line each, `{ cacheKey, row }`) for this
 * `cacheKey`, by kind and noise: a long run resumes where it stopped.
 */
export function cachedRows(path, cacheKey) {
  if (!path || !existsSync(path)) return new Map();
  return new Map(
    readFileSync(path, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l))
      .filter((l) => l.cacheKey === cacheKey)
      .map((l) => [`${l.row.kind}|${l.row.noise}`, l.row]),
  );
}

/** 95% Wilson score interval of k successes in n. */
export function wilson(k, n, z = 1.959963984540054) {
  if (n === 0) return [0, 1];
  const p = k / n;
  const denominator = 1 + (z * z) / n;
  const centre = (p + (z * z) / (2 * n)) / denominator;
  const half = (z * Math.sqrt((p * (1 - p)) / n + (z * z) / (4 * n * n))) / denominator;
  return [Math.max(0, centre - half), Math.min(1, centre + half)];
}

function medianOf(values) {
  const s = [...values].sort((a, b) => a - b);
  if (s.length === 0) return Number.NaN;
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

function withPairs(results, keep) {
  return { ...results, scenarios: results.scenarios.map((s) => ({ ...s, pairs: s.pairs.filter(keep) })) };
}

/**
 * Two-sided tests at alpha, as perfgate had before this calibration: in the worse direction a
 * two-sided p is twice the one-sided one, so the rule is the one-sided one at alpha/2 (and so is
 * the sequential design).
 */
function twoSided(results) {
  return { ...results, config: { ...results.config, alpha: results.config.alpha / 2 } };
}

function withGate(results, metric, limit) {
  return { ...results, config: { ...results.config, gate: { ...results.config.gate, [metric]: { limit, gated: true } } } };
}

/** The first n/blocks pairs of each block: the same design with n pairs (re-indexed in time order). */
function firstPairsPerBlock(results, n) {
  const { blocks } = results.config.load;
  const perBlock = Math.floor(n / blocks);
  const counts = new Map();
  return withPairs(results, (p) => {
    const seen = counts.get(p.block) ?? 0;
    counts.set(p.block, seen + 1);
    return seen < perBlock;
  });
}

/** Seconds from the start of the run to the end of the last slice of `block`. */
function secondsUntilEndOf(results, block) {
  const ends = results.scenarios.flatMap((s) =>
    s.pairs.filter((p) => p.block === block).flatMap((p) => [p.base, p.head].map((sl) => Date.parse(sl.startedAt) + sl.durationMs)),
  );
  return (Math.max(...ends) - Date.parse(results.startedAt)) / 1000;
}

/** Per-slice throughput of one side, in time order. */
function throughputs(results, side) {
  return results.scenarios[0].pairs.map((p) => p[side].rps);
}

function welchT(a, b) {
  const mean = (x) => x.reduce((s, v) => s + v, 0) / x.length;
  const variance = (x, m) => x.reduce((s, v) => s + (v - m) ** 2, 0) / (x.length - 1);
  const ma = mean(a);
  const mb = mean(b);
  const va = variance(a, ma) / a.length;
  const vb = variance(b, mb) / b.length;
  const t = (mb - ma) / Math.sqrt(va + vb);
  const df = (va + vb) ** 2 / (va ** 2 / (a.length - 1) + vb ** 2 / (b.length - 1));
  return { t, df, change: mb / ma - 1 };
}

/** Two-sided p of Student's t with df degrees of freedom (regularized incomplete beta by continued fraction). */
export function tTwoSidedP(t, df) {
  const x = df / (df + t * t);
  return incompleteBeta(x, df / 2, 0.5);
}

function incompleteBeta(x, a, b) {
  if (x <= 0) return 0;
  if (x >= 1) return 1;
  const lnBeta = lgamma(a + b) - lgamma(a) - lgamma(b);
  const front = Math.exp(Math.log(x) * a + Math.log(1 - x) * b + lnBeta);
  if (x > (a + 1) / (a + b + 2)) return 1 - incompleteBeta(1 - x, b, a);
  // Lentz's continued fraction (Numerical Recipes §6.4)
  let f = 1;
  let c = 1;
  let d = 1 - ((a + b) * x) / (a + 1);
  d = 1 / (Math.abs(d) < 1e-300 ? 1e-300 : d);
  f = d;
  for (let m = 1; m <= 300; m++) {
    for (const step of [0, 1]) {
      const numerator =
        step === 0 ? (m * (b - m) * x) / ((a + 2 * m - 1) * (a + 2 * m)) : -((a + m) * (a + b + m) * x) / ((a + 2 * m) * (a + 2 * m + 1));
      d = 1 + numerator * d;
      d = 1 / (Math.abs(d) < 1e-300 ? 1e-300 : d);
      c = 1 + numerator / c;
      if (Math.abs(c) < 1e-300) c = 1e-300;
      f *= c * d;
    }
    if (Math.abs(c * d - 1) < 1e-12) break;
  }
  return (front * f) / a;
}

function lgamma(z) {
  const g = [
    676.5203681218851, -1259.1392167224028, 771.32342877765313, -176.61502916214059, 12.507343278686905, -0.13857109526572012,
    9.9843695780195716e-6, 1.5056327351493116e-7,
  ];
  if (z < 0.5) return Math.log(Math.PI / Math.abs(Math.sin(Math.PI * z))) - lgamma(1 - z);
  let x = 0.99999999999980993;
  const zz = z - 1;
  for (let i = 0; i < g.length; i++) x += g[i] / (zz + i + 1);
  const t = zz + g.length - 0.5;
  return 0.5 * Math.log(2 * Math.PI) + (zz + 0.5) * Math.log(t) - t + Math.log(x);
}

/** The rules evaluated on every run: name → (results, gate) → { fail, seconds }. */
function rules(gate) {
  const { assessResults, planSequential, decideLook } = gate;
  const fixed = (results) => ({ fail: assessResults(withPairs({ ...results, sequential: undefined }, () => true)).decision === 'fail' });
  const sequential = (results) => {
    const config = { ...results.config, load: { ...results.config.load, earlyStop: true } };
    const design = planSequential(config);
    if (!design) return fixed(results);
    const interim = design.looks[0];
    const partial = { ...withPairs(results, (p) => p.block <= interim.afterBlock), config, sequential: design, status: 'running' };
    const taken = decideLook(partial, 0, assessResults(partial, { httpLevel: interim.nominalAlpha }));
    if (taken.decision !== 'continue') {
      const stopped = { ...partial, status: 'complete', sequential: { ...design, taken: [taken] } };
      return { fail: assessResults(stopped).decision === 'fail', seconds: secondsUntilEndOf(results, interim.afterBlock) + 1, stopped: true };
    }
    const complete = { ...results, config, sequential: { ...design, taken: [taken] } };
    complete.sequential.taken.push(decideLook(complete, 1, assessResults(complete)));
    return { fail: assessResults(complete).decision === 'fail' };
  };
  const ratio = (slices, limit) => (results) => {
    const pairs = results.scenarios[0].pairs.slice(0, slices);
    const rate = (side) => pairs.reduce((s, p) => s + p[side].requests, 0) / pairs.reduce((s, p) => s + p[side].durationMs, 0);
    return { fail: rate('head') / rate('base') < 1 - limit };
  };
  const welch = (limit) => (results) => {
    const { t, df, change } = welchT(throughputs(results, 'base'), throughputs(results, 'head'));
    return { fail: tTwoSidedP(t, df) < 0.01 && change < -limit };
  };
  return [
    { id: 'perfgate', name: 'perfgate, default (interim look + final)', evaluate: sequential },
    { id: 'fixed', name: 'perfgate, no early stop', evaluate: fixed },
    { id: 'fixed-40', name: 'perfgate, no early stop, 2/3 of the pairs', evaluate: (r) => fixed(firstPairsPerBlock(r, Math.round((r.config.load.pairs * 2) / 3))) },
    { id: 'fixed-20', name: 'perfgate, no early stop, 1/3 of the pairs', evaluate: (r) => fixed(firstPairsPerBlock(r, Math.round(r.config.load.pairs / 3))) },
    { id: 'limit-3', name: 'perfgate, default, throughput limit 3%', evaluate: (r) => sequential(withGate(r, 'throughput', 0.03)) },
    { id: 'limit-5', name: 'perfgate, default, throughput limit 5%', evaluate: (r) => sequential(withGate(r, 'throughput', 0.05)) },
    { id: 'two-sided', name: 'perfgate, default, two-sided tests', evaluate: (r) => sequential(twoSided(r)) },
    { id: 'two-sided-5', name: 'perfgate, default, two-sided tests, throughput limit 5% (before calibration)', evaluate: (r) => sequential(twoSided(withGate(r, 'throughput', 0.05))) },
    // One more gated metric that can never fail (a 100% limit) only dilutes Holm: what a third gated metric costs.
    { id: 'family-3', name: 'perfgate, default, one more gated metric (Holm family of 3)', evaluate: (r) => sequential(withGate(r, 'latency_p90', 1)) },
    { id: 'cpu-3', name: 'perfgate, default, CPU per request also gated at 3%', evaluate: (r) => sequential(withGate(r, 'cpu_per_request', 0.03)) },
    { id: 'ratio-5', name: 'one 5-slice run per side, fail below −5%', evaluate: ratio(5, 0.05) },
    { id: 'ratio-10', name: 'one 5-slice run per side, fail below −10%', evaluate: ratio(5, 0.1) },
    { id: 'ratio-all-5', name: 'whole-run means, fail below −5%', evaluate: ratio(Number.POSITIVE_INFINITY, 0.05) },
    { id: 'welch', name: 'Welch t-test on slice throughputs, p < 0.01 and drop > 2%', evaluate: welch(0.02) },
  ];
}

function percent(x) {
  return `${Math.round(100 * x)}%`;
}

function rateCell(k, n) {
  if (n === 0) return '—';
  const [lo, hi] = wilson(k, n);
  return `${k}/${n} = ${percent(k / n)} (${percent(lo)}–${percent(hi)})`;
}

/**
 * Every ordered pair of distinct runs (a, b) of one cell gives one more run: block 1 of a
 * followed by block 2 of b. Each block is a fresh start of both services, so this keeps the
 * process-level variation that resampling single pairs would hide; the recombined runs share
 * blocks, so they are not independent: they refine the resolution below 1/n, they are no
 * substitute for more runs.
 */
function recombineBlocks(runs) {
  const twoBlocks = runs.filter((r) => r.config.load.blocks === 2);
  const out = [];
  for (const a of twoBlocks) {
    for (const b of twoBlocks) {
      if (a === b) continue;
      const first = a.scenarios[0].pairs.filter((p) => p.block === 0);
      const second = b.scenarios[0].pairs.filter((p) => p.block === 1);
      const pairs = [...first, ...second].map((p, index) => ({ ...p, index }));
      out.push({ ...a, scenarios: [{ ...a.scenarios[0], pairs }] });
    }
  }
  return out;
}

/** Everything the table and the plot need, from the recorded runs. */
export async function summarize(lines) {
  const gate = await import(join(root, 'bench', 'analyze.mjs'));
  const ruleList = rules(gate);
  // The runs used no gate section, so the gate is the defaults: today's, whatever the
  // recorded results say (the table must describe the code as it is).
  const ok = lines
    .filter((l) => !l.error && l.results?.scenarios?.[0]?.pairs?.length > 0)
    .map((l) => gate.upgradeLine(l, 'a recorded run'))
    .map((l) => ({ ...l, results: { ...l.results, config: { ...l.results.config, gate: { ...gate.DEFAULT_GATE, heap_growth: { ...gate.DEFAULT_HEAP_GROWTH } } } } }));
  const groups = new Map();
  for (const line of ok) {
    const group = `${line.setting}/${line.noise ? 'noisy' : 'quiet'}`;
    if (!groups.has(group)) groups.set(group, { setting: line.setting, noise: line.noise, effects: new Map() });
    const effects = groups.get(group).effects;
    if (!effects.has(line.effect)) effects.set(line.effect, []);
    effects.get(line.effect).push(line);
  }
  const summary = [];
  for (const group of groups.values()) {
    const effects = [...group.effects.keys()].sort((a, b) => a - b);
    const perEffect = effects.map((effect) => {
      const runs = group.effects.get(effect);
      const measured = runs.map((l) => gate.assessResults({ ...l.results, sequential: undefined }).comparisons.find((c) => c.metric === 'throughput')?.change ?? Number.NaN);
      const evaluated = ruleList.map((rule) => {
        const outcomes = runs.map((l) => rule.evaluate(l.results));
        return {
          id: rule.id,
          fails: outcomes.filter((o) => o.fail).length,
          stopped: outcomes.filter((o) => o.stopped).length,
          seconds: outcomes.map((o, i) => o.seconds ?? runs[i].wallSeconds),
        };
      });
      const recombined = recombineBlocks(runs.map((l) => l.results));
      const recombinedFails = Object.fromEntries(
        ['perfgate', 'fixed'].map((id) => [id, recombined.filter((r) => ruleList.find((x) => x.id === id).evaluate(r).fail).length]),
      );
      return {
        effect,
        n: runs.length,
        measuredDrop: -medianOf(measured),
        wall: runs.map((l) => l.wallSeconds),
        rules: evaluated,
        recombined: { n: recombined.length, fails: recombinedFails },
      };
    });
    summary.push({ setting: group.setting, noise: group.noise, effects: perEffect, errors: lines.filter((l) => l.error && l.setting === group.setting && l.noise === group.noise).length });
  }
  return { rules: ruleList.map(({ id, name }) => ({ id, name })), groups: summary, machine: describeMachine(ok[0]) };
}

function describeMachine(line) {
  if (!line) return 'no runs';
  const env = line.results.environment;
  return `${env.cpus} vCPU ${env.cpuModel}, Node ${env.nodeVersion}, ${env.os}`;
}

export function renderTable(summary, lines) {
  const out = [];
  const dates = lines.map((l) => l.startedAt).sort();
  out.push(`Runs from ${dates[0]?.slice(0, 10)} to ${dates.at(-1)?.slice(0, 10)} on ${summary.machine}; ${lines.length} runs (${lines.filter((l) => l.error).length} errors).`);
  for (const group of summary.groups) {
    const setting = group.setting === 'default' ? 'perfgate defaults' : `setting ${group.setting}`;
    out.push('', `#### ${setting}, ${group.noise ? 'with a noisy neighbour' : 'no added noise'}`, '');
    out.push(`| rule | ${group.effects.map((e) => (e.effect === 0 ? 'A/A: false fails' : `+${e.effect}% work: caught`)).join(' | ')} |`);
    out.push(`| :-- | ${group.effects.map(() => '--:').join(' | ')} |`);
    for (const rule of summary.rules) {
      const cells = group.effects.map((e) => {
        const r = e.rules.find((x) => x.id === rule.id);
        return rateCell(r.fails, e.n);
      });
      out.push(`| ${rule.name} | ${cells.join(' | ')} |`);
    }
    const recombined = (id) => group.effects.map((e) => (e.recombined.n === 0 ? '—' : `${e.recombined.fails[id]}/${e.recombined.n} = ${(100 * e.recombined.fails[id] / e.recombined.n).toFixed(1)}%`));
    out.push(`| perfgate, default, on block-recombined runs (not independent) | ${recombined('perfgate').join(' | ')} |`);
    out.push(`| perfgate, no early stop, on block-recombined runs (not independent) | ${recombined('fixed').join(' | ')} |`);
    out.push(`| measured throughput drop (median of runs) | ${group.effects.map((e) => `${(100 * e.measuredDrop).toFixed(1)}%`).join(' | ')} |`);
    const perfgate = (e) => e.rules.find((r) => r.id === 'perfgate');
    out.push(`| perfgate default: stopped at the interim look | ${group.effects.map((e) => `${perfgate(e).stopped}/${e.n}`).join(' | ')} |`);
    out.push(
      `| perfgate default: wall time, median / max | ${group.effects.map((e) => `${Math.round(medianOf(perfgate(e).seconds))} / ${Math.round(Math.max(...perfgate(e).seconds))} s`).join(' | ')} |`,
    );
    out.push(`| whole run without early stop: wall time, median / max | ${group.effects.map((e) => `${Math.round(medianOf(e.wall))} / ${Math.round(Math.max(...e.wall))} s`).join(' | ')} |`);
  }
  return out.join('\n');
}

const PLOT_LABELS = {
  perfgate: 'perfgate today',
  'two-sided-5': 'perfgate before',
  'ratio-5': 'one run, −5% ratio',
  'ratio-10': 'one run, −10% ratio',
  welch: 'Welch t-test',
};

/** Detection rate against the nominal effect, one line per rule and group of runs (noisy: dashed). */
export async function renderSvg(summary, ruleIds = ['perfgate', 'two-sided-5', 'ratio-5', 'ratio-10', 'welch']) {
  const points = [];
  for (const group of summary.groups) {
    for (const id of ruleIds) {
      const rule = summary.rules.find((x) => x.id === id);
      if (!rule) continue;
      const series = `${PLOT_LABELS[rule.id] ?? rule.id}${group.setting === 'default' ? '' : ` (${group.setting})`}`;
      for (const e of group.effects) {
        const fails = e.rules.find((x) => x.id === id).fails;
        const [lo, hi] = wilson(fails, e.n);
        points.push({ series, effect: e.effect, rate: fails / e.n, lo, hi, dashed: group.noise });
      }
    }
  }
  return renderRatePlot({
    title: 'Fail rate against extra work per request (0% = A/A: false fails)',
    points,
    targets: [
      { rate: 0.95, label: '95%' },
      { rate: 0.8, label: '80%' },
    ],
  });
}

async function report(values) {
  const file = resolve(values.in);
  const lines = readRuns(file);
  if (lines.length === 0) throw new Error(`${file} has no runs: start with \`node bench/calibrate.mjs run\`.`);
  const summary = await summarize(lines);
  const table = renderTable(summary, lines);
  console.log(table);
  if (values.doc) {
    const doc = resolve(values.doc);
    const text = readFileSync(doc, 'utf8');
    const start = '<!-- calibration-table:start -->';
    const end = '<!-- calibration-table:end -->';
    const a = text.indexOf(start);
    const b = text.indexOf(end);
    if (a < 0 || b < a) throw new Error(`${doc} lacks the markers ${start} … ${end}`);
    writeFileSync(doc, `${text.slice(0, a + start.length)}\n${table}\n${text.slice(b)}`);
  }
  if (values.svg) writeFileSync(resolve(values.svg), await renderSvg(summary));
}

// ------------------------------------------------------------------------------- resample

async function resample(values) {
  const gate = await import(join(root, 'bench', 'analyze.mjs'));
  const { createRandom } = await import(join(root, 'src', 'stats', 'random.ts'));
  const n = Number(values.n);
  const config = gate.resolveConfig({ document: { service: { start: 'node server.js' }, scenarios: ['GET /'], load: { pairs: 60 } } });
  const slice = (side, rps) => ({ side, startedAt: '', durationMs: 1000, requests: rps, rps, latencyUs: { p50: 1, p90: 1, p99: 1, max: 1, mean: 1 }, non2xx: 0, errors: 0, timeouts: 0, cpuSeconds: 1 });
  const asResults = (pairs) => ({
    status: 'complete',
    config,
    warnings: [],
    scenarios: [{ name: 'GET /', pairs: pairs.map(([a, b], index) => ({ block: index < 30 ? 0 : 1, index, order: ['base', 'head'], base: slice('base', a), head: slice('head', b) })) }],
  });
  const pool = (file) => JSON.parse(readFileSync(join(root, 'test', 'fixtures', 'slices', file), 'utf8')).pairs.map((p) => [p.A.rps, p.B.rps]);
  const evaluate = rules(gate).find((r) => r.id === 'perfgate').evaluate;
  const random = createRandom(11);
  const draw = (data, replace) => {
    if (replace) return Array.from({ length: 60 }, () => data[Math.floor(random() * data.length)]);
    const order = data.map((_, i) => i);
    for (let i = order.length - 1; i > 0; i--) {
      const j = Math.floor(random() * (i + 1));
      [order[i], order[j]] = [order[j], order[i]];
    }
    return order.slice(0, 60).map((i) => data[i]);
  };
  // Latency is a constant here: the data's p99 is whole milliseconds, so the gate is throughput's.
  for (const replace of [true, false]) {
    const rates = ['slices-aa.json', 'slices-ab5.json'].map((file) => {
      const data = pool(file);
      let fails = 0;
      for (let i = 0; i < n; i++) if (evaluate(asResults(draw(data, replace))).fail) fails++;
      return `${fails}/${n} = ${((100 * fails) / n).toFixed(1)}%`;
    });
    console.log(`${replace ? 'with' : 'without'} replacement: A/A false fails ${rates[0]}, 5% more work caught ${rates[1]}`);
  }
}

// ----------------------------------------------------------------------------------- main

const isMain = process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url);
if (isMain) {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      runs: { type: 'string', default: '20' },
      settings: { type: 'string', default: 'default' },
      effects: { type: 'string', default: '0,3,5,10' },
      noise: { type: 'string', default: 'off' },
      out: { type: 'string', default: DEFAULT_FILE },
      in: { type: 'string', default: DEFAULT_FILE },
      doc: { type: 'string' },
      svg: { type: 'string' },
      tiny: { type: 'boolean', default: false },
      cli: { type: 'string', default: join(root, 'dist', 'cli.js') },
      n: { type: 'string', default: '1000' },
    },
  });
  const command = positionals[0];
  try {
    if (command === 'run') await run(values);
    else if (command === 'report') await report(values);
    else if (command === 'resample') await resample(values);
    else throw new Error('usage: node bench/calibrate.mjs run|report|resample [options] (see the comment at the top of bench/calibrate.mjs)');
  } catch (e) {
    console.error(`calibrate: ${e.message}`);
    process.exit(process.exitCode || 2);
  }
}
