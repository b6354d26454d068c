// A results.json written by perfgate 0.1 (one start of each side per block, alternating slices,
// no `start` on its pairs) still renders, and is re-derived with the start pair as the unit: its
// two blocks are two start pairs, too few for a verdict, and the report says so.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { assessResults } from '../../src/assess/compare.js';
import { renderMarkdown } from '../../src/report/markdown.js';
import { renderTerminal } from '../../src/report/terminal.js';
import { readResults } from '../../src/results/io.js';
import type { Results } from '../../src/results/types.js';
import { ROOT } from '../helpers/repo.js';

const FIXTURE = join(ROOT, 'test/fixtures/results/v0.1-calibration-5pct.json');
const raw = JSON.parse(readFileSync(FIXTURE, 'utf8')) as Results;
// Read as perfgate reads any results.json: through the migration.
const old = readResults(FIXTURE);

test('a perfgate 0.1 results file renders, counted by start pairs (its blocks)', () => {
  assert.equal(raw.scenarios[0]!.pairs.some((p) => p.start !== undefined), false, 'the fixture predates starts');
  const analysis = assessResults(old);
  const throughput = analysis.comparisons.find((c) => c.metric === 'throughput')!;
  assert.equal(throughput.n, 2, 'two blocks = two start pairs');
  assert.equal(throughput.pairs, 60);
  // Two start pairs cannot support a regression, whatever the 60 slices say.
  assert.notEqual(throughput.verdict, 'regression');
  assert.ok(analysis.warnings.some((w) => w.code === 'few-starts'));
  const markdown = renderMarkdown(old, analysis);
  assert.match(markdown, /load alternated between them in pairs of adjacent 1 s slices/);
  assert.match(markdown, /Each side was started 2 times \(2 blocks of 1 fresh start each\)/);
  assert.match(markdown, /Only 2 start pairs: the verdicts count starts, not slices/);
  assert.match(renderTerminal(old, analysis, { color: false }), /each start pair: [−+]\d/);
});
