// lane: beside — its changed benchmark is 10x slower and its unchanged one may be "inconclusive"; each vitest process uses one core.
/**
 * vitest bench through the whole CLI, with the project's own vitest (a link to perfgate's
 * devDependency, committed as node_modules/vitest): a TypeScript bench file, compiled by vitest,
 * where one benchmark in a describe() does 10× more work on head and one outside it the same.
 * The slowdown is gated and fails the build; the unchanged one gets no verdict. Six rounds at
 * alpha 0.05 are the fewest that can decide, and the limit is wide (50%) because this tests the
 * plumbing on a shared 2-core machine; each process is about 1.5 s, most of it vitest starting.
 */
import assert from 'node:assert/strict';
import { readFileSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { assessResults } from '../../src/assess/compare.js';
import { readResults } from '../../src/results/io.js';
import { benchFiles, workFile } from '../helpers/bench.js';
import { runCli } from '../helpers/cli.js';
import { makeRepo, ROOT } from '../helpers/repo.js';

const ROUNDS = 6;
const VITEST = {
  path: realpathSync(join(ROOT, 'node_modules', 'vitest')),
  version: (JSON.parse(readFileSync(join(ROOT, 'node_modules', 'vitest', 'package.json'), 'utf8')) as { version: string }).version,
};

test('vitest bench: a 10× slowdown is caught and fails the build; the unchanged benchmark passes', async () => {
  const repo = makeRepo(
    {
      'node_modules/vitest': { link: join(ROOT, 'node_modules', 'vitest') },
      ...benchFiles('vitest.bench.ts'),
      ...workFile({ same: 5_000, slower: 2_000 }),
      'perfgate.yml': `benchmarks:\n  files: bench/*.bench.ts\n  rounds: ${ROUNDS}\n  timeout: 60s\ngate:\n  benchmarks: { limit: 50% }\nalpha: 0.05\n`,
    },
    workFile({ same: 5_000, slower: 20_000 }),
  );
  const out = join(repo, '.out');
  const run = await runCli(['compare', '--base', 'main', '--out', out, '--seed', '3'], repo);
  assert.equal(run.code, 1, `a gated regression fails the build\n${run.stderr}\n${run.stdout}`);

  const results = readResults(join(out, 'results.json'));
  const runs = results.benchmarks!.runs;
  assert.equal(runs.length, ROUNDS * 2);
  for (const r of runs) {
    assert.equal(r.error, null, r.error ?? '');
    // one process per file per side per round, each with the project's vitest: the link it
    // committed as node_modules/vitest, which Node resolves to the linked directory
    assert.deepEqual(r.libraries.map((l) => [l.name, l.version, l.path]), [['vitest', VITEST.version, VITEST.path]]);
    assert.deepEqual(r.benchmarks.map((b) => [b.suite, b.name]).sort(), [[null, 'same'], ['work', 'slower']]);
  }

  const comparisons = assessResults(results).benchmarks!.comparisons;
  const byName = Object.fromEntries(comparisons.map((c) => [c.name, c]));
  const shown = (name: string) => `${name}: ${byName[name]!.verdict}, change ${byName[name]!.change.toFixed(3)}`;
  assert.equal(byName['slower']!.verdict, 'regression', shown('slower'));
  assert.ok(byName['slower']!.change < -0.6 && byName['slower']!.n === ROUNDS, shown('slower'));
  assert.ok(['unchanged', 'no-regression', 'inconclusive'].includes(byName['same']!.verdict), shown('same'));
  assert.match(run.stdout, /slower/);
});
