// lane: beside — its regression is 10x; it tests what the run does with broken, hanging, added and removed files.
/**
 * One run through the CLI with everything that is not a plain comparison: a lone Benchmark
 * whose head is 10× slower (a gated regression that fails the build), the project's own patched
 * copy of benchmark.js, duplicate names, an added and a removed benchmark, a file that throws on
 * head, a file that hangs on head, and a TypeScript file run through the project's tsx.
 * The fewest rounds a run takes (6) decide it: the regression is 10×, the limit 50% and the level
 * 0.1, so the one-sided sign-flip p of six rounds that agree (1/64) clears Holm's first step over
 * the four gated benchmarks (0.1/4), and identical code would need to move by half in every round
 * to be called a regression. The gate's sensitivity is the statistics tests' job.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { assessResults } from '../../src/assess/compare.js';
import { readResults } from '../../src/results/io.js';
import { benchFiles, libraryFiles, workFile } from '../helpers/bench.js';
import { runCli } from '../helpers/cli.js';
import { makeRepo, ROOT } from '../helpers/repo.js';

const ROUNDS = 6;
// A hanging file is killed at this limit in two rounds, so the run waits for it twice; every other
// process here takes under a second (at most 0.8 s, the three-benchmark suites file), so a
// neighbour that halves its speed still leaves it well inside the limit.
const TIMEOUT_S = 3;

/** The project's benchmark.js is its own copy: a version perfgate's copy does not have. */
function projectsOwnBenchmarkJs() {
  const files = libraryFiles('benchmark', 'tinybench');
  const pkg = JSON.parse(readFileSync(join(ROOT, 'node_modules/benchmark/package.json'), 'utf8'));
  files['node_modules/benchmark/package.json'] = JSON.stringify({ ...pkg, version: '2.1.4-project' });
  return files;
}

/** Commits a link to perfgate's tsx as the project's node_modules/tsx, on both branches. */
function addTsx(repo: string): void {
  const git = (...args: string[]) =>
    execFileSync('git', ['-c', 'user.name=perfgate-test', '-c', 'user.email=test@perfgate.invalid', ...args], { cwd: repo });
  git('checkout', '--quiet', 'main');
  symlinkSync(join(ROOT, 'node_modules', 'tsx'), join(repo, 'node_modules', 'tsx'));
  git('add', 'node_modules/tsx');
  git('commit', '--quiet', '-m', 'tsx');
  git('checkout', '--quiet', 'head');
  git('rebase', '--quiet', 'main');
}

test('a lone Benchmark regresses and fails the build; the rest is listed, and broken files do not stop the run', async (t) => {
  const repo = makeRepo(
    {
      ...projectsOwnBenchmarkJs(),
      ...benchFiles('standalone.bench.js', 'suites.bench.js', 'throws.bench.js', 'hangs.bench.js', 'typed.bench.mts'),
      ...workFile({ standalone: 2_000, dup: 2_000 }),
      'perfgate.yml': `benchmarks:\n  files: bench/*.bench.{js,mts}\n  rounds: ${ROUNDS}\n  timeout: ${TIMEOUT_S}s\ngate:\n  benchmarks: 50%\nalpha: 0.1\n`,
    },
    workFile({ standalone: 20_000, dup: 2_000, renamed: true, throw: true, hang: true }),
  );
  addTsx(repo);
  const out = join(repo, '.out');
  const markdownFile = join(repo, 'report.md');
  const started = Date.now();
  const run = await runCli(['compare', '--base', 'main', '--out', out, '--seed', '5', '--markdown', markdownFile], repo);
  const wallSeconds = (Date.now() - started) / 1000;
  assert.equal(run.code, 1, `a gated regression fails the build\n${run.stderr}\n${run.stdout}`);

  const results = readResults(join(out, 'results.json'));
  assert.equal(results.status, 'complete', 'the failing files did not stop the run');
  const analysis = assessResults(results);
  const bench = analysis.benchmarks!;
  const byLabel = Object.fromEntries(bench.comparisons.map((c) => [c.label, c]));

  // The lone Benchmark (no Suite): 10× more work on head, every round.
  const standalone = byLabel['standalone']!;
  assert.equal(standalone.verdict, 'regression');
  assert.ok(standalone.gated && standalone.n === ROUNDS);
  assert.ok(standalone.change < -0.6, `change ${standalone.change}`);
  assert.deepEqual(bench.failing.map((c) => c.label), ['standalone']);

  // Duplicate names, told apart by suite; the TypeScript file ran through tsx.
  assert.deepEqual(Object.keys(byLabel).sort(), ['A › dup', 'B › dup', 'standalone', 'typed']);
  assert.equal(byLabel['typed']!.n, ROUNDS);

  // Added and removed; the benchmarks of the files that broke on head could not be compared.
  assert.deepEqual(
    bench.uncompared.map((b) => [b.label, b.status, b.reason]),
    [
      ['patient', 'failed', 'bench/hangs.bench.js failed on head'],
      ['old', 'removed', null],
      ['new', 'added', null],
      ['steady', 'failed', 'bench/throws.bench.js failed on head'],
    ],
  );
  assert.equal(analysis.decision, 'fail');

  // A throwing file: its error, with the tail of its stderr; a hanging one: killed at the limit.
  const failures = Object.fromEntries(bench.failures.map((f) => [f.file, f]));
  assert.deepEqual(Object.keys(failures).sort(), ['bench/hangs.bench.js', 'bench/throws.bench.js']);
  assert.equal(failures['bench/throws.bench.js']!.side, 'head');
  assert.match(failures['bench/throws.bench.js']!.message, /^exited with code 1\n--- last lines of its stderr .*---\n[\s\S]*Error: boom: this benchmark file is broken on head/);
  assert.match(failures['bench/hangs.bench.js']!.message, new RegExp(`^did not finish within ${TIMEOUT_S}s \\(benchmarks\\.timeout\\) and was killed`));
  const hung = results.benchmarks!.runs.filter((r) => r.file === 'bench/hangs.bench.js' && r.side === 'head');
  assert.equal(hung.length, 2, 'dropped after failing in two rounds in a row');
  for (const r of hung) {
    assert.equal(r.timedOut, true);
    assert.ok(r.durationMs >= TIMEOUT_S * 1000 && r.durationMs < TIMEOUT_S * 1000 + 5000, `killed at the limit: ${r.durationMs} ms`);
  }
  assert.ok(results.warnings.some((w) => w.code === 'benchmark-file-dropped' && w.benchmark === 'bench/hangs.bench.js'));

  // The project's own copy of benchmark.js was the one hooked, on both sides.
  for (const r of results.benchmarks!.runs.filter((r) => r.file === 'bench/standalone.bench.js')) {
    const tree = join(out, 'trees', r.side);
    assert.deepEqual(r.libraries, [
      { name: 'benchmark', version: '2.1.4-project', path: join(tree, 'node_modules/benchmark/benchmark.js'), unsupported: null },
    ]);
  }

  // The reports say it.
  assert.match(run.stdout, /failing \(micro-benchmark limit 50%\); 2 micro-benchmarks could not be compared: patient \(bench\/hangs\.bench\.js failed on head\); steady \(bench\/throws\.bench\.js failed on head\)/);
  assert.match(run.stdout, /^standalone \* +[\d.]+k +[\d.]+k +−\d/m);
  const markdown = readFileSync(markdownFile, 'utf8');
  assert.match(markdown, /\*\*Micro-benchmarks\*\*/);
  assert.match(markdown, /\| new \| — \| [\d.]+k? \| — \| ➕ added \|/);
  assert.match(markdown, /Error: boom: this benchmark file is broken on head/);
  // What the hanging file may cost is bounded above (two rounds, each killed at the limit); the
  // whole run's wall time is this machine's speed, so it is reported, not asserted.
  t.diagnostic(`the run took ${wallSeconds.toFixed(0)} s`);
});
