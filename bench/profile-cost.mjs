#!/usr/bin/env node
// The profiling phase's cost, on the example service (a benchmark, not a timed test).
//
// 1. Throughput with the profiler on, against without: perfgate itself measures it, paired and
//    randomized as in the measurement protocol. Base is the example service; head is the same
//    code started with V8's CPU profiler on (node --cpu-prof at the sampling interval), which is
//    what the profiling phase runs. Per interval: the change in throughput and CPU per request.
// 2. The phase's wall time at the defaults (10 s per side): an A/A run with profiling on, its
//    per-side time (start, warm-up, profiled load, stop, reading the profiles) and the time to
//    draw the three flamegraphs.
//
//   node bench/profile-cost.mjs [--pairs 40] [--intervals 1000,250] [--out docs/profiling.md]
// --out appends the markdown table. The services run under the `node` on PATH (printed).
import { execFileSync, spawnSync } from 'node:child_process';
import { appendFileSync, cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const root = resolve(fileURLToPath(new URL('..', import.meta.url)));
const { values } = parseArgs({
  options: { pairs: { type: 'string', default: '40' }, intervals: { type: 'string', default: '1000,250' }, out: { type: 'string' } },
});
const { assessResults } = await import(join(root, 'bench', 'analyze.mjs'));

const work = mkdtempSync(join(tmpdir(), 'perfgate-profile-cost-'));
const profiles = join(work, 'profiles');
const git = (repo, ...args) => execFileSync('git', ['-c', 'user.name=bench', '-c', 'user.email=bench@perfgate.invalid', ...args], { cwd: repo });

/** The example service in a repository: main starts it plainly, head through `startHead`. */
function makeRepo(name, startHead) {
  const repo = join(work, name);
  cpSync(join(root, 'examples/service'), repo, { recursive: true });
  writeFileSync(join(repo, 'start.sh'), 'exec node server.js\n');
  const yml = readFileSync(join(repo, 'perfgate.yml'), 'utf8').replace('start: node server.js', 'start: sh start.sh');
  writeFileSync(join(repo, 'perfgate.yml'), yml.replace(/\nprofile:[\s\S]*$/, '\n'));
  git(repo, 'init', '--quiet', '--initial-branch=main');
  git(repo, 'add', '-A');
  git(repo, 'commit', '--quiet', '-m', 'base');
  git(repo, 'checkout', '--quiet', '-b', 'head');
  writeFileSync(join(repo, 'start.sh'), startHead);
  git(repo, 'commit', '--quiet', '-am', 'head');
  return repo;
}

function compare(repo, args) {
  const json = join(repo, 'results.json');
  const started = Date.now();
  const run = spawnSync(process.execPath, [join(root, 'dist/cli.js'), 'compare', '--base', 'main', '--json', json, '--quiet', ...args], {
    cwd: repo,
    encoding: 'utf8',
  });
  if (run.status === 2) throw new Error(`perfgate failed:\n${run.stderr}`);
  return { results: JSON.parse(readFileSync(json, 'utf8')), seconds: Math.round((Date.now() - started) / 1000) };
}

const pct = (x) => `${x >= 0 ? '+' : '−'}${Math.abs(100 * x).toFixed(1)}%`;
const rows = [];
let nodeVersion = '';
// `1000+trace`: also V8's optimization trace, as the profiling phase's preload turns it on (src/profile/optimization.ts).
const TRACE_FLAGS = '--trace-deopt --trace-opt --trace-file-names';
for (const spec of values.intervals.split(',')) {
  const interval = Number.parseInt(spec, 10);
  const trace = spec.endsWith('+trace') ? ` ${TRACE_FLAGS}` : '';
  const repo = makeRepo(`cost-${spec.replace(/\W/g, '-')}`, `exec node --cpu-prof --cpu-prof-dir=${profiles} --cpu-prof-interval=${interval}${trace} server.js\n`);
  const { results, seconds } = compare(repo, ['--scenario', 'GET /hello', '--pairs', values.pairs, '--no-profile']);
  nodeVersion = results.environment.nodeVersion;
  const analysis = assessResults(results);
  const metric = (id) => analysis.comparisons.find((c) => c.metric === id);
  const t = metric('throughput');
  const cpu = metric('cpu_per_request');
  const row = `| ${interval} µs${trace ? ' + V8 optimization trace' : ''} | ${t.n} | ${pct(t.change)} (${pct(t.ciLow)} … ${pct(t.ciHigh)}) | ${pct(cpu.change)} (${pct(cpu.ciLow)} … ${pct(cpu.ciHigh)}) | ${seconds} s |`;
  rows.push(row);
  console.log(row);
}

// The phase at its defaults: A/A (head only touches a README), GET /hello profiled for 10 s per side.
const aa = makeRepo('phase', 'exec node server.js\n# A/A: same start\n');
const { results } = compare(aa, ['--scenario', 'GET /hello', '--pairs', '6', '--blocks', '1', '--slice', '300ms', '--warmup', '5s']);
const phase = results.profiles[0];
const sides = ['base', 'head'].map((s) => phase.sides[s]);
const phaseRow = `| ${phase.durationMs / 1000} s | ${sides.map((s) => `${(s.wallMs / 1000).toFixed(1)} s`).join(' / ')} | ${(phase.renderMs / 1000).toFixed(1)} s | ${sides.map((s) => ((s.wallMs + phase.renderMs / 2) / 1000).toFixed(1)).join(' / ')} s | ${sides.map((s) => s.profiler).join(' / ')} |`;
console.log(phaseRow);

const when = new Date().toISOString().slice(0, 10);
const machine = `${results.environment.cpus} × ${results.environment.cpuModel}, service on Node ${nodeVersion}`;
const text = `
Measured ${when} on ${machine}; \`node bench/profile-cost.mjs --pairs ${values.pairs}\`.

Throughput and CPU per request of the example service's GET /hello with V8's CPU profiler on (head)
against off (base), ${values.pairs} paired 1 s slices over 2 blocks (Hodges–Lehmann change, 95% interval):

| sampling interval | pairs | throughput | CPU / request | run time |
| --: | --: | :-- | :-- | --: |
${rows.join('\n')}

The phase's wall time at the defaults (10 s of load per side, warm-up 2 s), per side: restart,
warm-up, profiled load, stop and reading the profiles; then drawing the three flamegraphs (0x
for head and base at once, and the differential one):

| profiled load | base / head | flamegraphs | per side, flamegraphs shared | profiler |
| --: | :-- | --: | :-- | :-- |
${phaseRow}
`;
console.log(text);
if (values.out) appendFileSync(values.out, text);
rmSync(work, { recursive: true, force: true });
