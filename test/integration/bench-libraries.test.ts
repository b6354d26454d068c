// lane: beside — its changed benchmarks are 10x apart and its A/A accepts "inconclusive"; each benchmark process uses one core.
/**
 * Each library, from CommonJS and from ESM (mitata's CommonJS file for one round: see its test),
 * through the whole CLI: in each suite one benchmark
 * does 10× less work on head (improvement), one 10× more (regression), one the same (A/A).
 * The benchmarks are information only here (gate.benchmarks gated: false), each decided on its
 * own, without a Holm family across the six. The limit is wide (50%) because these test the
 * plumbing on a shared 2-core machine, where a busy neighbour can slow a whole process by half.
 * Six rounds at alpha 0.05, the fewest a run takes (the one-sided test's smallest p is then 1/64):
 * the changed cases are 10× apart, far past the limit, and a busy round that widens the A/A
 * interval makes it "inconclusive", which the A/A assertion accepts. Every process is a few
 * seconds (mitata alone spends about 2.5 s calibrating in each), so rounds are what the file's
 * time is made of. Calibrating the verdicts is the statistics tests' job.
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

const config = (budget: string) => `benchmarks:
  files: bench/*.bench.{js,cjs,mjs}
  rounds: ${ROUNDS}
  timeout: 60s${budget ? `\n  budget: ${budget}` : ''}
gate:
  benchmarks: { limit: 50%, gated: false }
alpha: 0.05
`;

async function compareLibrary(library: Library, files: string[], budget = ''): Promise<{ results: Results; repo: string; out: string; stdout: string }> {
  const repo = makeRepo(
    {
      ...libraryFiles(library),
      ...benchFiles(...files),
      // "same" first: it runs before the benchmarks whose work changed, in every process.
      ...workFile({ same: 5_000, faster: 20_000, slower: 2_000 }),
      'perfgate.yml': config(budget),
    },
    workFile({ same: 5_000, faster: 2_000, slower: 20_000 }),
  );
  const out = join(repo, '.out');
  const run = await runCli(['compare', '--base', 'main', '--out', out, '--seed', '11'], repo);
  assert.equal(run.code, 0, `information-only regressions pass the build\n${run.stderr}\n${run.stdout}`);
  if (!budget) assert.match(run.stdout, new RegExp(`micro-benchmarks — each number is one process's mean ops/s; ${ROUNDS} rounds`));
  return { results: readResults(join(out, 'results.json')), repo, out, stdout: run.stdout };
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

test('benchmark.js, CommonJS and ESM: faster → improvement, slower → regression, A/A → no verdict', async () => {
  const files = ['benchmark-cjs.bench.js', 'benchmark-esm.bench.mjs'];
  const { results, out } = await compareLibrary('benchmark', files);
  assertRuns(results, out, 'benchmark', files);
  for (const file of files) assertVerdicts(results, `bench/${file}`);
  // Users keep their console output: the suite's own lines are in the process log.
  const log = results.benchmarks!.runs[0]!.logs.stdout;
  assert.match(readFileSync(log, 'utf8'), /same x [\d,.]+ ops\/sec/);
});

test('tinybench, CommonJS and ESM: faster → improvement, slower → regression, A/A → no verdict', async () => {
  const files = ['tinybench-cjs.bench.cjs', 'tinybench-esm.bench.mjs'];
  const { results, out } = await compareLibrary('tinybench', files);
  assertRuns(results, out, 'tinybench', files);
  for (const file of files) assertVerdicts(results, `bench/${file}`);
});

// mitata spends about 2.5 s of every process calibrating itself, so its verdicts are tested from
// ESM, and CommonJS is tested for what differs there, the loading and the capture, in the one
// round a budget of 1 s lets start.
test('mitata, ESM: faster → improvement, slower → regression, A/A → no verdict', async () => {
  const files = ['mitata-esm.bench.mjs'];
  const { results, out } = await compareLibrary('mitata', files);
  assertRuns(results, out, 'mitata', files);
  assertVerdicts(results, `bench/${files[0]}`);
});

test('mitata, CommonJS: each process runs and its three benchmarks are captured from the project\'s own mitata', async () => {
  const files = ['mitata-cjs.bench.cjs'];
  const { results, out, stdout } = await compareLibrary('mitata', files, '1s');
  assertRuns(results, out, 'mitata', files, 1);
  assert.match(stdout, /The micro-benchmarks stopped early: .*Raise benchmarks\.budget/);
  assert.deepEqual(Object.keys(verdictsOf(results, `bench/${files[0]}`)).sort(), ['faster', 'same', 'slower']);
});
