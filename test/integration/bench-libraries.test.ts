// lane: beside — its changed benchmarks are 25x apart and its A/A accepts "inconclusive"; each benchmark process uses one core.
/**
 * Each library, from CommonJS and from ESM, through the whole CLI: in each suite one benchmark
 * does 25× less work on head (improvement), one 25× more (regression), one the same (A/A).
 * The benchmarks are information only here (gate.benchmarks gated: false), each decided on its
 * own, without a Holm family across them. The limit is wide (50%) because these test the
 * plumbing on a shared 2-core machine, where a busy neighbour can slow a whole process by half.
 *
 * What differs between libraries and between module forms is how a process is hooked and what it
 * captures; the verdict is computed from each process's ops/s the same way whatever the library
 * (assess/benchmarks.ts). So the verdicts are tested once per library that is cheap to run (six
 * rounds of benchmark.js from CommonJS, of tinybench from ESM), and every other form is run for
 * one round (a budget of 1 s lets one pair of processes start, so those fixtures sample long
 * enough for a pair to outlast it; the six-round ones sample only as long as a 25× change needs):
 * each process ran, captured its three benchmarks from the project's own copy, and its numbers
 * follow the work (25× apart, so one round shows it even when a neighbour slows one side's
 * process by half). A mitata process takes about 6 s whatever its suite asks: run() first
 * measures four empty functions, and every measurement runs for its fixed 642 ms of CPU at least
 * (k_min_cpu_time, which neither run() nor bench() lets a suite change), so both its forms are
 * one-round runs.
 * Six rounds at alpha 0.05 are the fewest a run takes (the one-sided test's smallest p is then
 * 1/64): the changed cases are 25× apart, far past the limit, and a busy round that widens the
 * A/A interval makes it "inconclusive", which the A/A assertion accepts. Calibrating the verdicts
 * is the statistics tests' job.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { assessResults } from '../../src/assess/compare.js';
import { readResults } from '../../src/results/io.js';
import type { BenchmarkComparison, Results } from '../../src/results/types.js';
import { benchFiles, libraryFiles, workFile } from '../helpers/bench.js';
import { runCli } from '../helpers/cli.js';
import { makeRepo } from '../helpers/repo.js';

const ROUNDS = 6;
type Library = 'benchmark' | 'tinybench' | 'mitata';

const config = (oneRound: boolean) => `benchmarks:
  files: bench/*.bench.{js,cjs,mjs}
  rounds: ${ROUNDS}
  timeout: 60s${oneRound ? '\n  budget: 1s' : ''}
gate:
  benchmarks: { limit: 50%, gated: false }
alpha: 0.05
`;

interface Compared {
  results: Results;
  out: string;
  stdout: string;
}

/** `oneRound`: a budget of 1 s, so only the first pair of processes starts (checked before each pair). */
async function compareLibrary(library: Library, files: string[], oneRound = false): Promise<Compared> {
  const repo = makeRepo(
    {
      ...libraryFiles(library),
      ...benchFiles(...files),
      // "same" first: it runs before the benchmarks whose work changed, in every process.
      ...workFile({ same: 5_000, faster: 50_000, slower: 2_000 }),
      'perfgate.yml': config(oneRound),
    },
    workFile({ same: 5_000, faster: 2_000, slower: 50_000 }),
  );
  const out = join(repo, '.out');
  const run = await runCli(['compare', '--base', 'main', '--out', out, '--seed', '11'], repo);
  assert.equal(run.code, 0, `information-only regressions pass the build\n${run.stderr}\n${run.stdout}`);
  if (oneRound) assert.match(run.stdout, /The micro-benchmarks stopped early: .*Raise benchmarks\.budget/);
  else assert.match(run.stdout, new RegExp(`micro-benchmarks — each number is one process's mean ops/s; ${ROUNDS} rounds`));
  return { results: readResults(join(out, 'results.json')), out, stdout: run.stdout };
}

function verdictsOf(results: Results, file: string): Record<string, BenchmarkComparison> {
  const comparisons = assessResults(results).benchmarks!.comparisons.filter((c) => c.file === file);
  return Object.fromEntries(comparisons.map((c) => [c.name, c]));
}

function assertVerdicts(results: Results, file: string): void {
  const rounds = results.config.benchmarks!.rounds;
  const v = verdictsOf(results, file);
  assert.deepEqual(Object.keys(v).sort(), ['faster', 'same', 'slower'], file);
  const shown = (name: string) => `${file} ${name}: ${v[name]!.verdict}, change ${v[name]!.change.toFixed(3)} (${v[name]!.ciLow.toFixed(3)} … ${v[name]!.ciHigh.toFixed(3)})`;
  assert.equal(v['faster']!.verdict, 'improvement', shown('faster'));
  assert.ok(v['faster']!.change > 2, shown('faster'));
  assert.equal(v['slower']!.verdict, 'regression', shown('slower'));
  assert.ok(v['slower']!.change < -0.6, shown('slower'));
  // Identical code never gets a verdict: "unchanged" when the rounds agree within the limit,
  // "inconclusive" on a machine too noisy for that (seen with a neighbour hogging a core).
  assert.ok(['unchanged', 'no-regression', 'inconclusive'].includes(v['same']!.verdict), shown('same'));
  for (const c of Object.values(v)) assert.equal(c.n, rounds, 'every round paired');
}

/**
 * One round's numbers follow the work: head's ops/s of the benchmark with 25× less work is over
 * 3× base's, of the one with 25× more under 0.4× (the bounds the verdict test's change holds
 * to), so what was captured is each benchmark's own rate, in ops/s, not a constant or an inverse.
 */
function assertFollowsWork(results: Results, file: string): void {
  const ops = (side: 'base' | 'head', name: string) => {
    const run = results.benchmarks!.runs.find((r) => r.file === file && r.side === side && r.round === 0)!;
    return run.benchmarks.find((b) => b.name === name)!.opsPerSec!;
  };
  const ratio = (name: string) => ops('head', name) / ops('base', name);
  assert.deepEqual(Object.keys(verdictsOf(results, file)).sort(), ['faster', 'same', 'slower'], file);
  assert.ok(ratio('faster') > 3, `${file} faster: head/base ops/s ${ratio('faster').toFixed(2)}`);
  assert.ok(ratio('slower') < 0.4, `${file} slower: head/base ops/s ${ratio('slower').toFixed(2)}`);
}

/** Every process ran, captured three benchmarks, and hooked the project's own library copy. */
function assertRuns(results: Results, out: string, library: Library, files: string[], rounds = ROUNDS): void {
  const runs = results.benchmarks!.runs;
  assert.equal(runs.length, rounds * 2 * files.length);
  for (const run of runs) {
    assert.equal(run.error, null, run.error ?? '');
    assert.equal(run.benchmarks.length, 3);
    for (const b of run.benchmarks) assert.ok(b.opsPerSec! > 0 && b.sampleCount > 0);
    const tree = join(out, 'trees', run.side); // both sides run from worktrees perfgate made
    assert.ok(run.libraries[0]!.path.startsWith(join(tree, 'node_modules', library)), `${run.side}: ${run.libraries[0]!.path}`);
  }
  assert.deepEqual(results.benchmarks!.files, { base: files.map((f) => `bench/${f}`), head: files.map((f) => `bench/${f}`) });
}

/** One round of one file: every process captured, its numbers following the work. */
async function assertOneRound(library: Library, file: string): Promise<Compared> {
  const compared = await compareLibrary(library, [file], true);
  assertRuns(compared.results, compared.out, library, [file], 1);
  assertFollowsWork(compared.results, `bench/${file}`);
  return compared;
}

test('benchmark.js, CommonJS: faster → improvement, slower → regression, A/A → no verdict', async () => {
  const files = ['benchmark-cjs.bench.js'];
  const { results, out } = await compareLibrary('benchmark', files);
  assertRuns(results, out, 'benchmark', files);
  assertVerdicts(results, `bench/${files[0]}`);
  // Users keep their console output: the suite's own lines are in the process log.
  const log = results.benchmarks!.runs[0]!.logs.stdout;
  assert.match(readFileSync(log, 'utf8'), /same x [\d,.]+ ops\/sec/);
});

test('benchmark.js, ESM (a CommonJS library imported by an ES module): each process captures its three benchmarks, following the work', async () => {
  await assertOneRound('benchmark', 'benchmark-esm.bench.mjs');
});

test('tinybench, ESM: faster → improvement, slower → regression, A/A → no verdict', async () => {
  const files = ['tinybench-esm.bench.mjs'];
  const { results, out } = await compareLibrary('tinybench', files);
  assertRuns(results, out, 'tinybench', files);
  assertVerdicts(results, `bench/${files[0]}`);
});

test('tinybench, CommonJS (require of an ES module, runSync): each process captures its three benchmarks, following the work', async () => {
  await assertOneRound('tinybench', 'tinybench-cjs.bench.cjs');
});

test("mitata, ESM and CommonJS: each process captures its three benchmarks from the project's own mitata, following the work", async () => {
  await assertOneRound('mitata', 'mitata-esm.bench.mjs');
  await assertOneRound('mitata', 'mitata-cjs.bench.cjs');
});
