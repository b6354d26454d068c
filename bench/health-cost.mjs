#!/usr/bin/env node
// The cost of the health collection, on the example service (a benchmark, not a timed test).
//
// perfgate itself measures it, paired and randomized as in the measurement protocol: base is the
// example service as perfgate runs it (the preload collects event-loop delay, utilisation, GC and
// heap in every slice); head is the same code started with PERFGATE_HEALTH_SOCKET emptied, so the
// preload still forces the port but collects nothing. The change in throughput and in CPU per
// request, head against base, is what the collection costs (positive: faster without it).
//
//   node bench/health-cost.mjs [--pairs 60] [--scenario "GET /hello"] [--without all|counters] [--out docs/health.md]
// --without counters: head keeps the health collection but not the work counters
// (PERFGATE_HEALTH_COUNTERS=off), so the change is what the counters alone cost;
// --without counters:gc,responses leaves out only those parts of them (also sockets, syscalls).
// --out appends the markdown table. Uses dist/cli.js (npm run bundle first); the services run
// under the `node` on PATH.
import { execFileSync, spawnSync } from 'node:child_process';
import { appendFileSync, cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const root = resolve(fileURLToPath(new URL('..', import.meta.url)));
const { values } = parseArgs({
  options: {
    pairs: { type: 'string', default: '60' },
    scenario: { type: 'string', multiple: true, default: ['GET /hello', 'POST /echo'] },
    without: { type: 'string', default: 'all' },
    out: { type: 'string' },
  },
});
const { assessResults } = await import(join(root, 'bench', 'analyze.mjs'));

const work = mkdtempSync(join(tmpdir(), 'perfgate-health-cost-'));
const repo = join(work, 'service');
const git = (...args) => execFileSync('git', ['-c', 'user.name=bench', '-c', 'user.email=bench@perfgate.invalid', ...args], { cwd: repo });

// The example service; main starts it as perfgate would, head with the collection switched off.
cpSync(join(root, 'examples/service'), repo, { recursive: true });
writeFileSync(join(repo, 'start.sh'), 'exec node server.js\n');
const yml = readFileSync(join(repo, 'perfgate.yml'), 'utf8').replace('start: node server.js', 'start: sh start.sh');
writeFileSync(join(repo, 'perfgate.yml'), yml.replace(/\nprofile:[\s\S]*$/, '\nprofile: false\n'));
git('init', '--quiet', '--initial-branch=main');
git('add', '-A');
git('commit', '--quiet', '-m', 'with health collection');
git('checkout', '--quiet', '-b', 'head');
// counters:<parts>: the counters' parts named (gc, responses, sockets, syscalls), the rest kept
const parts = values.without.match(/^counters:((?:gc|responses|sockets|syscalls)(?:,(?:gc|responses|sockets|syscalls))*)$/)?.[1];
const switchOff = parts ? `PERFGATE_HEALTH_COUNTERS=${parts}` : { all: 'PERFGATE_HEALTH_SOCKET=', counters: 'PERFGATE_HEALTH_COUNTERS=off' }[values.without];
if (switchOff === undefined) throw new Error(`--without: all, counters or counters:<gc,responses,sockets,syscalls>, not "${values.without}"`);
writeFileSync(join(repo, 'start.sh'), `${switchOff} exec node server.js\n`);
git('commit', '--quiet', '-am', `without ${values.without === 'all' ? 'health collection' : 'work counters'}`);

const json = join(work, 'results.json');
const started = Date.now();
const args = ['compare', '--base', 'main', '--json', json, '--quiet', '--pairs', values.pairs, ...values.scenario.flatMap((s) => ['--scenario', s])];
const run = spawnSync(process.execPath, [join(root, 'dist/cli.js'), ...args], { cwd: repo, encoding: 'utf8' });
if (run.status === 2) throw new Error(`perfgate failed:\n${run.stderr}`);
const results = JSON.parse(readFileSync(json, 'utf8'));
const seconds = Math.round((Date.now() - started) / 1000);
const analysis = assessResults(results);

// Head is without the collection: its gain over base is the collection's cost.
const pct = (x) => `${x >= 0 ? '+' : '−'}${Math.abs(100 * x).toFixed(1)}%`;
const interval = (c) => `${pct(c.change)} (${pct(c.ciLow)} … ${pct(c.ciHigh)})`;
// Collected: health at all, or (--without counters) the counters within it, or (counters:<parts>)
// the first part left out (gc: the allocated bytes; syscalls: their count; responses: the count).
const PART_FIELD = { gc: 'allocatedBytes', syscalls: 'syscalls', responses: 'responses', sockets: 'socketBytesRead' };
const field = parts ? PART_FIELD[parts.split(',')[0]] : 'allocatedBytes';
const measured = (slice) => (values.without === 'all' ? Boolean(slice.health) : slice.health?.processes.some((p) => p[field] !== null && p[field] !== 0) === true);
const collected = results.scenarios[0].pairs.filter((p) => measured(p.base) && !measured(p.head)).length;
const rows = results.scenarios.map((s) => {
  const metric = (id) => analysis.comparisons.find((c) => c.scenario === s.name && c.metric === id);
  const t = metric('throughput');
  const cpu = metric('cpu_per_request');
  return `| ${s.name} | ${t.n} | ${Math.round(t.baseMedian).toLocaleString('en')} / ${Math.round(t.headMedian).toLocaleString('en')} req/s | ${interval(t)} | ${interval(cpu)} |`;
});
for (const row of rows) console.log(row);

const when = new Date().toISOString().slice(0, 10);
const env = results.environment;
const text = `
Measured ${when} on ${env.cpus} × ${env.cpuModel}, service on Node ${env.nodeVersion}, ${seconds} s:
\`node bench/health-cost.mjs --pairs ${values.pairs} --without ${values.without}\`. The example service (examples/service), ${values.pairs} paired
${results.config.load.sliceMs / 1000} s slices over ${results.config.load.blocks} blocks per scenario; base collects health in every slice
(${collected} of ${results.scenarios[0].pairs.length} pairs checked: base reported, head did not), head runs with the collection off.
Change of head (without) against base (with): Hodges–Lehmann estimate and 95% interval.

| scenario | pairs | with / without | throughput without collection | CPU per request without collection |
| :-- | --: | :-- | :-- | :-- |
${rows.join('\n')}
`;
console.log(text);
if (values.out) appendFileSync(values.out, text);
rmSync(work, { recursive: true, force: true });
