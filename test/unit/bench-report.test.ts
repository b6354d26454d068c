import assert from 'node:assert/strict';
import { test } from 'node:test';
import { assessResults } from '../../src/assess/compare.js';
import { renderMarkdown, renderTerminal } from '../../src/report/index.js';
import type { Side } from '../../src/results/types.js';
import { benchResults, benchRounds, benchRun, WOBBLE } from '../helpers/bench.js';
import { matchSnapshot } from '../helpers/snapshot.js';

const HOSTILE = '<img src=x onerror=alert(1)> | @org/team `code`';
const wobble = (side: Side, round: number) => 1 + WOBBLE[(round + (side === 'head' ? 3 : 0)) % WOBBLE.length]!;

/** The seed's three divideByAndSum versions as one suite, plus everything that is listed, not compared. */
function run() {
  const runs = [
    ...benchRounds(10, 'bench/divide.bench.js', (side, round) => [
      { name: 'divideByAndSum', suite: 'divide', ops: (side === 'base' ? 6_300 : 255_900) * wobble(side, round) },
      { name: 'sum of squares', suite: 'divide', ops: (side === 'base' ? 120_000 : 90_000) * wobble(side, round) },
      { name: 'baseline', suite: 'divide', ops: 1_200_000 * wobble(side, round) },
      side === 'base' ? { name: 'removed one', suite: 'divide', ops: 5_000 } : { name: HOSTILE, suite: 'divide', ops: 7_000 },
    ]),
    ...[0, 1].flatMap((round) => [
      benchRun(round, 'bench/parse.bench.mjs', 'base', [{ name: 'parse', ops: 31_000, library: 'tinybench' }]),
      benchRun(round, 'bench/parse.bench.mjs', 'head', [], `exited with code 1\n--- last lines of its stderr ---\nfile:///repo/bench/parse.bench.mjs:3\nthrow new Error('${HOSTILE}');\n^`),
    ]),
  ];
  const results = benchResults(runs);
  return { results, analysis: assessResults(results) };
}

test('benchmarks-only run: the Micro-benchmarks table in markdown, names and messages escaped', () => {
  const { results, analysis } = run();
  const markdown = renderMarkdown(results, analysis);
  matchSnapshot('bench-report.md', markdown);
  assert.doesNotMatch(markdown, /<img/);
  assert.doesNotMatch(markdown, /@org/, '@ is broken up so nobody is pinged');
  assert.match(markdown, /^\| \*\*divideByAndSum\*\* \| 6\.33k \| 257k \| \+3,958% /m, 'gated: bold; ops/s in k');
  assert.doesNotMatch(markdown, /Nothing was compared/, 'no HTTP table without scenarios');
  assert.match(markdown.split('\n')[0]!, /^## perfgate: ❌ failing \(micro-benchmark limit 10%\); 1 micro-benchmark could not be compared: parse \(bench\/parse\.bench\.mjs failed on head\)$/);
  assert.equal(markdown.split('\n')[2], '1 regression · 1 improvement · 1 unchanged');
});

test('benchmarks-only run in the terminal', () => {
  const { results, analysis } = run();
  const text = renderTerminal(results, analysis, { width: 100 });
  matchSnapshot('bench-report.terminal', text);
  assert.match(text, /micro-benchmarks — each number is one process's mean ops\/s; 10 rounds/);
});

test('with HTTP scenarios too: both tables, one headline', () => {
  const runs = benchRounds(10, 'bench/a.bench.js', (side, round) => [{ name: 'a', ops: 1000 * wobble(side, round) }]);
  const results = benchResults(runs, {}, true);
  const analysis = assessResults(results);
  const markdown = renderMarkdown(results, analysis);
  assert.match(markdown, /\| scenario \| metric \| base \(median\) \| head \(median\) \| paired change \(95% CI\) \| verdict \|/);
  assert.match(markdown, /\*\*Micro-benchmarks\*\* · each number/);
  assert.match(markdown, /20 pairs × 1 s · 10 rounds of micro-benchmarks · seed 1/);
  assert.match(markdown.split('\n')[0]!, /^## perfgate: ✅ passing/);
  assert.match(markdown.split('\n')[2]!, / 7 unchanged$/, '6 HTTP metrics and 1 benchmark');
  // nothing changed: folded to one line like the comment, both tables with --full
  assert.match(renderTerminal(results, analysis), /\n\nNothing changed beyond its limit: all 4 gated metrics are unchanged \(GET \/hello: throughput .+\)\.\nEvery metric: --full\n$/);
  const text = renderTerminal(results, analysis, { full: true });
  assert.ok(text.indexOf('scenario') >= 0 && text.indexOf('scenario') < text.indexOf('micro-benchmarks —'), 'HTTP table first');
});
