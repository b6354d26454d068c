#!/usr/bin/env node
// Calibration of the work counters (docs/health.md, "Work counters"): their A/A spread and whether
// they catch a head that allocates 1% or 3% more per request, on real services. A benchmark, not a
// test. Run it under the load lock; each run is one whole `perfgate compare`.
//
//   node bench/counters-calibration.mjs record [--service fastify|orders|express|http|cluster] [--runs 3] [--effects 0,3]
//        [--syscalls 1]   (head also makes this many more write calls per request: express, http, cluster)
//        [--noise off|on] [--profile] [--out docs/calibration/counters.jsonl] [--cli dist/cli.js]
//   node bench/counters-calibration.mjs report [--in FILE[,FILE…]] [--svg FILE]   (--svg: the A/A noise plot)
//
// `record` builds one throwaway repository per effect: fastify 5 answering GET /json
// (bench/services/fastify's payload), the Koa order service of bench/services/orders (written
// for this calibration and not tuned to it), or one of calibrate-starts' kinds (express, http, the
// cluster) with a preloaded file allocating for it (ALLOC_HOOK), base and head commits whose
// alloc.json makes head allocate `effect`% more V8 heap per request, as one extra array of small
// integers. The 3% is of
// what base itself allocates per request, measured in that service's A/A runs already recorded (a
// first A/A run is made when there is none). With --profile the run profiles as by default (the
// scenario whose verdict moved), so the allocation culprit is named in verdicts.json. Each
// finished run appends one JSON line (its results.json without profiles, and verdicts.json) to
// the file; a second `record` adds only the runs each effect still lacks, alternating effects so
// that slow minutes of the machine spread over both.
//
// `report` judges every run by today's default rules for the counters (whatever the run recorded)
// and prints, per counter and for throughput beside them: the A/A runs' estimates (median and
// largest |change|, the 95% interval's median half-width) and how many gave a regression or an
// improvement (k/n, Wilson 95% interval); for a head that allocates more, how many found the
// allocations' regression, the change measured, and in profiled runs how many named the function
// that allocates it.
import { execFileSync } from 'node:child_process';
import { appendFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { readLines } from './calibrate-starts.mjs';
import { recordCliRun, wilson } from './calibrate.mjs';

const root = resolve(fileURLToPath(new URL('..', import.meta.url)));
const DEFAULT_FILE = join(root, 'docs', 'calibration', 'counters.jsonl');
/** 8 start pairs of 2 pairs each: the fewest with which the sign-flip test can reach alpha 0.01 on every start agreeing. */
const LOAD = { pairs: 16, blocks: 2, instances: 4, slice: '500ms', warmup: '1s', 'early-stop': false };
const COUNTERS = ['allocated_per_request', 'gc_count_per_request', 'syscalls_per_request', 'socket_written_per_request', 'socket_read_per_request'];
/** V8's headers of one JSArray and its FixedArray store on a 64-bit heap without pointer compression (Node's builds), bytes. */
const ARRAY_HEADER_BYTES = 48;

const SERVER = `// fastify 5, one JSON route; alloc.json's extraBytes are allocated once more per request.
const fastify = require('fastify')({ logger: false });
const { payload } = require('./work.js');
const { extraBytes } = require('./alloc.json');
const elements = Math.max(0, Math.round((extraBytes - ${ARRAY_HEADER_BYTES}) / 8));
const kept = { last: null };
fastify.get('/json', async () => {
  if (elements > 0) kept.last = new Array(elements).fill(1);
  return payload();
});
fastify.listen({ port: Number(process.env.PORT ?? 3000), host: '127.0.0.1' });
`;

/**
 * For the calibration kinds of bench/services (express, plain http, a 2-worker cluster) the extra
 * allocation comes from a file preloaded into every process (`node -r`; cluster workers inherit
 * it), so their own servers stay as bench/calibrate-starts.mjs measures them. It allocates in the
 * http server's 'request' event, before the handler, and its emit wrapper takes fixed arguments so
 * that it allocates nothing of its own: an A/A head (extraBytes 0) does not wrap at all.
 */
const ALLOC_HOOK = `// alloc.json's extraBytes allocated, and its extraSyscalls writes made, once more per request in
// every process that serves HTTP.
const fs = require('node:fs');
const http = require('node:http');
const { extraBytes = 0, extraSyscalls = 0 } = require('./alloc.json');
const elements = Math.max(0, Math.round((extraBytes - ${ARRAY_HEADER_BYTES}) / 8));
const kept = { last: null };
function allocateExtra() {
  kept.last = new Array(elements).fill(1);
}
const devNull = extraSyscalls > 0 ? fs.openSync('/dev/null', 'w') : null;
const oneByte = Buffer.alloc(1);
function writeExtra() {
  for (let i = 0; i < extraSyscalls; i++) fs.writeSync(devNull, oneByte, 0, 1);
}
if (elements > 0 || devNull !== null) {
  const emit = http.Server.prototype.emit;
  http.Server.prototype.emit = function emitWithExtra(event, a, b, c) {
    if (event === 'request') {
      if (elements > 0) allocateExtra();
      if (devNull !== null) writeExtra();
    }
    return emit.call(this, event, a, b, c);
  };
}
`;

/** A calibration kind of bench/services with ALLOC_HOOK preloaded: GET /json, as calibrate-starts measures it. */
const hooked = (kind) => ({
  scenario: 'GET /json',
  culprit: 'allocateExtra',
  start: 'node -r ./alloc-hook.js server.js',
  copy(repo) {
    cpSync(join(root, 'bench', 'services', kind), repo, { recursive: true });
    cpSync(join(root, 'bench', 'services', 'work.js'), join(repo, 'work.js'));
    writeFileSync(join(repo, 'alloc-hook.js'), ALLOC_HOOK);
  },
});

/**
 * The services: where their files come from, the scenario measured, and the function that head's
 * extra allocation is in (the allocation culprit a profiled run should name).
 */
const SERVICES = {
  express: hooked('express'),
  http: hooked('http'),
  cluster: hooked('cluster'),
  fastify: {
    scenario: 'GET /json',
    // its extra array is made in the route's anonymous arrow
    culprit: 'arrow at top level',
    copy(repo) {
      cpSync(join(root, 'bench', 'services', 'fastify'), repo, { recursive: true });
      cpSync(join(root, 'bench', 'services', 'work.js'), join(repo, 'work.js'));
      writeFileSync(join(repo, 'server.js'), SERVER);
    },
  },
  orders: {
    scenario: 'GET /orders/7',
    culprit: 'recordAudit',
    copy(repo) {
      cpSync(join(root, 'bench', 'services', 'orders'), repo, { recursive: true });
    },
  },
};

function makeRepo(scratch, service, effect, extraBytes, extraSyscalls, profile) {
  const repo = join(scratch, `${service}-effect-${effect}-${extraSyscalls}`);
  rmSync(repo, { recursive: true, force: true });
  mkdirSync(repo, { recursive: true });
  const git = (...args) => execFileSync('git', ['-c', 'user.name=calibrate', '-c', 'user.email=calibrate@perfgate.invalid', ...args], { cwd: repo });
  SERVICES[service].copy(repo);
  const server = readFileSync(join(repo, 'server.js'), 'utf8');
  writeFileSync(join(repo, 'alloc.json'), '{"extraBytes": 0}\n');
  const yaml = ['service:', `  start: ${SERVICES[service].start ?? 'node server.js'}`, 'scenarios:', `  - ${SERVICES[service].scenario}`, `load: ${JSON.stringify(LOAD)}`, ...(profile ? [] : ['profile: false']), ''];
  writeFileSync(join(repo, 'perfgate.yml'), yaml.join('\n'));
  writeFileSync(join(repo, '.gitignore'), 'node_modules/\nresults.json\nverdicts.json\n');
  git('init', '--quiet', '--initial-branch=base');
  git('add', '-A');
  git('commit', '--quiet', '-m', 'base');
  git('checkout', '--quiet', '-b', 'head');
  // A/A: head differs from base by a comment only, as a no-op PR does.
  writeFileSync(join(repo, 'alloc.json'), `${JSON.stringify({ extraBytes: Math.round(extraBytes), ...(extraSyscalls > 0 && { extraSyscalls }) })}\n`);
  writeFileSync(join(repo, 'server.js'), `${server}// head\n`);
  git('commit', '--quiet', '-am', `head: ${effect}% more allocated per request`);
  return repo;
}

/** A run of identical code: no extra bytes, no extra system calls. */
const isAA = (line) => line.effect === 0 && !(line.extraSyscalls > 0);

function median(values) {
  const s = values.filter(Number.isFinite).sort((a, b) => a - b);
  if (s.length === 0) return Number.NaN;
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

/** Per run, the comparisons of the scenario, the counters judged by today's default rules: throughput and the counters, by metric. */
function comparisonsOf({ assessResults, DEFAULT_GATE }, line) {
  const gate = { ...line.results.config.gate, ...Object.fromEntries(COUNTERS.map((c) => [c, DEFAULT_GATE[c]])) };
  const analysis = assessResults({ ...line.results, config: { ...line.results.config, gate } });
  const scenario = line.results.scenarios[0].name;
  const byMetric = new Map();
  for (const c of analysis.comparisons) if (c.scenario === scenario && c.metric === 'throughput') byMetric.set(c.metric, c);
  for (const c of analysis.health?.comparisons ?? []) if (c.scenario === scenario && COUNTERS.includes(c.metric)) byMetric.set(c.metric, c);
  return byMetric;
}

/** The allocation culprit's function the run's verdicts.json named, or null. */
const namedCulprit = (line) => line.verdicts?.metrics?.find((m) => m.metric === 'allocated_per_request')?.allocationCulprit?.function ?? null;

/** Base's allocated bytes per request, median over the A/A runs recorded so far; null when there are none. */
async function baseAllocation(lines) {
  const aa = lines.filter((l) => !l.error && isAA(l));
  if (aa.length === 0) return null;
  const analyze = await import('./analyze.mjs');
  return median(aa.map((l) => comparisonsOf(analyze, l).get('allocated_per_request')?.baseMedian ?? Number.NaN));
}

async function record(values) {
  const cli = resolve(values.cli);
  if (!existsSync(cli)) throw new Error(`${cli} is missing: run \`npm run bundle\` first.`);
  const effects = values.effects.split(',').map(Number);
  if (effects.some((e) => !Number.isFinite(e) || e < 0)) throw new Error(`--effects: whole percentages such as 0,3, not "${values.effects}"`);
  const noise = { off: false, on: true }[values.noise];
  if (noise === undefined) throw new Error(`--noise: use off or on, not "${values.noise}"`);
  const file = resolve(values.out);
  mkdirSync(dirname(file), { recursive: true });
  const service = values.service;
  if (!SERVICES[service]) throw new Error(`--service: ${Object.keys(SERVICES).join(' or ')}, not "${service}"`);
  const extraSyscalls = Number(values.syscalls);
  if (!Number.isInteger(extraSyscalls) || extraSyscalls < 0) throw new Error(`--syscalls: a whole number of writes, not "${values.syscalls}"`);
  if (extraSyscalls > 0 && !SERVICES[service].start) throw new Error(`--syscalls: only the services with the preloaded hook (express, http, cluster)`);
  const syscallsLabel = extraSyscalls > 0 ? `/+${extraSyscalls} syscall${extraSyscalls === 1 ? '' : 's'}` : '';
  const cellOf = (effect) => `${service}/${effect}%/${noise ? 'noisy' : 'quiet'}${values.profile ? '/profiled' : ''}${syscallsLabel}`;
  const done = new Map();
  for (const line of readLines(file)) if (!line.error) done.set(line.cell, (done.get(line.cell) ?? 0) + 1);
  const scratch = mkdtempSync(join(tmpdir(), 'perfgate-counters-'));
  const repos = new Map();
  try {
    for (let round = 1; round <= Number(values.runs); round++) {
      // A/A first: the +3% is 3% of what base allocates, measured there.
      for (const effect of [...effects].sort((a, b) => a - b)) {
        const cell = cellOf(effect);
        if ((done.get(cell) ?? 0) >= round) continue;
        let extraBytes = 0;
        if (effect > 0) {
          const base = await baseAllocation(readLines(file).filter((l) => l.noise === noise && l.kind === service));
          if (base === null) throw new Error(`no A/A run recorded yet to take ${effect}% of: include 0 in --effects`);
          extraBytes = (base * effect) / 100;
        }
        if (!repos.has(cell)) repos.set(cell, makeRepo(scratch, service, effect, extraBytes, extraSyscalls, values.profile));
        const fields = { cell, kind: service, effect, noise, profiled: values.profile, extraBytes: Math.round(extraBytes), extraSyscalls, round };
        const line = await recordCliRun(cli, repos.get(cell), noise, fields, [], { profile: values.profile });
        appendFileSync(file, `${JSON.stringify(line)}\n`);
        if (!line.error) done.set(cell, round);
        console.log(`${cell} round ${round}: ${line.error ? `error: ${line.error}` : `exit ${line.exit}`}, ${line.wallSeconds} s, load ${line.loadavg1}`);
      }
    }
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

const pct = (x) => (Number.isFinite(x) ? `${x >= 0 ? '+' : '−'}${Math.abs(100 * x).toFixed(2)}%` : 'n/a');
const rate = (k, n) => {
  const [lo, hi] = wilson(k, n);
  return `${k}/${n} (${(100 * lo).toFixed(0)}–${(100 * hi).toFixed(0)}%)`;
};

async function report(values) {
  const analyze = await import('./analyze.mjs');
  const lines = values.in.split(',').flatMap((file) => readLines(resolve(file))).filter((l) => !l.error);
  const cells = [...new Set(lines.map((l) => l.cell))].sort();
  if (values.svg) await noisePlot(analyze, lines, values.svg);
  const rows = [];
  for (const cell of cells) {
    const runs = lines.filter((l) => l.cell === cell).map((l) => comparisonsOf(analyze, l));
    const { effect, extraSyscalls } = lines.find((l) => l.cell === cell);
    const detects = (metric) => (effect > 0 && metric === 'allocated_per_request') || (extraSyscalls > 0 && metric === 'syscalls_per_request');
    for (const metric of ['throughput', ...COUNTERS]) {
      const cs = runs.map((r) => r.get(metric)).filter((c) => c !== undefined);
      if (cs.length === 0) continue;
      const worse = cs.filter((c) => c.verdict === 'regression').length;
      const better = cs.filter((c) => c.verdict === 'improvement').length;
      rows.push(
        `| ${cell} | ${metric} | ${cs.length} | ${pct(median(cs.map((c) => c.change)))} | ${pct(Math.max(...cs.map((c) => Math.abs(c.change))))} | ±${pct(median(cs.map((c) => (c.ciHigh - c.ciLow) / 2))).slice(1)} | ${rate(worse, cs.length)} | ${rate(better, cs.length)} |${detects(metric) ? ' ← detection' : ''}`,
      );
    }
  }
  console.log('| cell | metric | runs | median change | largest abs change | median CI half-width | regression k/n | improvement k/n |');
  console.log('| :-- | :-- | --: | --: | --: | --: | :-- | :-- |');
  for (const row of rows) console.log(row);
  // Profiled runs of a head that allocates more: the function verdicts.json named, against the one
  // head's change allocates in.
  const profiled = cells.filter((cell) => lines.some((l) => l.cell === cell && l.profiled && l.effect > 0));
  if (profiled.length === 0) return;
  console.log('\n| cell | runs | allocation culprit named | named otherwise |');
  console.log('| :-- | --: | :-- | :-- |');
  for (const cell of profiled) {
    const runs = lines.filter((l) => l.cell === cell);
    const expected = SERVICES[runs[0].kind].culprit;
    const named = runs.map(namedCulprit);
    const others = [...new Set(named.filter((n) => n !== expected).map((n) => n ?? 'none'))].join(', ') || '—';
    console.log(`| ${cell} | ${runs.length} | ${expected}: ${rate(named.filter((n) => n === expected).length, runs.length)} | ${others} |`);
  }
}

/** The A/A runs' changes of throughput and the counters, per kind (docs/calibration.md shows it). */
async function noisePlot(analyze, lines, file) {
  const { renderNoisePlot } = await import('./plot.mjs');
  const shown = ['throughput', 'allocated_per_request', 'syscalls_per_request', 'gc_count_per_request'];
  const points = lines
    .filter(isAA)
    .flatMap((l) => {
      const byMetric = comparisonsOf(analyze, l);
      // A row per kind, noise and layout: the default one, or this script's shorter one.
      const load = l.results.config.load;
      const cell = `${l.kind} ${l.noise ? 'noisy' : 'quiet'}, ${load.blocks * load.instances} × ${load.pairs / (load.blocks * load.instances)} pairs of ${load.sliceMs} ms`;
      return shown.flatMap((metric) => (byMetric.has(metric) ? [{ cell, metric, change: byMetric.get(metric).change }] : []));
    });
  const limits = shown.filter((m) => m !== 'gc_count_per_request').map((metric) => ({ metric, limit: analyze.DEFAULT_GATE[metric].limit }));
  writeFileSync(file, await renderNoisePlot({ title: 'A/A runs: throughput and the work counters', points, limits }));
  console.log(`wrote ${file} (${points.length} points)`);
}

const [command = 'report', ...rest] = process.argv.slice(2);
const { values } = parseArgs({
  args: rest,
  options: {
    runs: { type: 'string', default: '3' },
    effects: { type: 'string', default: '0,3' },
    noise: { type: 'string', default: 'off' },
    out: { type: 'string', default: DEFAULT_FILE },
    in: { type: 'string', default: DEFAULT_FILE },
    cli: { type: 'string', default: join(root, 'dist', 'cli.js') },
    service: { type: 'string', default: 'fastify' },
    profile: { type: 'boolean', default: false },
    syscalls: { type: 'string', default: '0' },
    svg: { type: 'string' },
  },
});
if (command === 'record') await record(values);
else if (command === 'report') await report(values);
else throw new Error(`unknown command "${command}": use record or report`);
