/**
 * The third arm with a known truth: head adds gzip to one own function (compressBody) and its
 * `require('node:zlib')` outside it; reverting this PR's change to compressBody alone must give
 * back the drop, and the headline must say so. Short: one block of few pairs each.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { assessResults } from '../../src/assess/compare.js';
import { buildVerdicts } from '../../src/assess/verdicts.js';
import { renderMarkdown } from '../../src/report/markdown.js';
import { readResults } from '../../src/results/io.js';
import { runCli } from '../helpers/cli.js';
import { makeRepo } from '../helpers/repo.js';

test("reverting this PR's change to the culprit gives the drop back: confirmed, in the headline, the comment and verdicts.json", async () => {
  const repo = makeRepo(
    {
      'server.js': { copy: 'services/culprits/zlib-base.js' },
      'perfgate.yml': `service:
  start: node server.js
  ready: { timeout: 10s }
scenarios: [GET /]
load: { pairs: 12, blocks: 1, instances: 12, slice: 300ms, warmup: 300ms }
profile: { duration: 2s }
`,
    },
    { 'server.js': { copy: 'services/culprits/zlib-head.js' } },
  );
  const out = join(repo, '.out');
  const run = await runCli(['compare', '--base', 'main', '--out', out, '--seed', '13'], repo);
  assert.equal(run.code, 1, run.stderr + run.stdout);
  const results = readResults(join(out, 'results.json'));
  const [record] = results.confirmations ?? [];
  assert.ok(record, 'the culprit was tested');
  assert.equal(record.culprit.name, 'compressBody');
  assert.equal(record.status, 'measured', record.reason ?? '');
  assert.deepEqual(record.reverted, { file: 'server.js', hunks: 1 });
  assert.equal(record.pairs.length, 12);
  const assessment = assessResults(results);
  const subject = assessment.subjects.find((s) => s.type === 'scenario')!;
  assert.ok(subject.type === 'scenario' && subject.confirmation);
  const { givenBack, points } = subject.confirmation;
  assert.equal(subject.confirmation.status, 'confirmed', JSON.stringify(subject.confirmation));
  assert.ok(givenBack!.estimate >= 0.9 * points!, `gives back ${givenBack!.estimate} of ${points}`);
  const said = /reverting this PR's change to compressBody gives back [\d.]+ of the [\d.]+ points \(95% CI [\d.]+ … [\d.]+\): confirmed/;
  assert.match(run.stdout.split('\n').slice(0, 4).join('\n'), said);
  assert.match(renderMarkdown(results, assessment).replace(/\\(.)/g, '$1'), said);
  const culprit = buildVerdicts(results, assessment).metrics.find((m) => m.culprit)?.culprit;
  assert.equal(culprit?.confirmation?.status, 'confirmed');
  console.log(`confirmation: ${givenBack!.estimate.toFixed(1)} of ${points!.toFixed(1)} points (${givenBack!.low.toFixed(1)} … ${givenBack!.high.toFixed(1)}), ${record.pairs.length} pairs, ${record.wallMs} ms`);
});
