// The chart of the gated changes (Mermaid xychart): what it draws for a failing and a passing
// run, which way is worse, when there is none, and that a scenario name cannot break it.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { assessResults } from '../../src/assess/compare.js';
import type { Assessment } from '../../src/assess/types.js';
import { chartSection, gatedCharts, MAX_CHART_ROWS } from '../../src/report/document/chart.js';
import { markdownCharts, mermaidLabel, renderMermaidChart } from '../../src/report/print/mermaid.js';
import { renderMarkdown } from '../../src/report/markdown.js';
import type { Results } from '../../src/results/types.js';
import { benchResults, benchRounds } from '../helpers/bench.js';
import { cleanPairs, regressedPairs } from '../helpers/github-runs.js';
import { resultsFromPairs } from '../helpers/results.js';

/** The charts' markdown, as the report shows them. */
function renderChart(results: Results, analysis: Assessment): string | null {
  return markdownCharts(chartSection(results, analysis));
}

/** The values of the series `kind "title"` of a chart's text. */
function series(text: string, kind: 'bar' | 'line', title: string): number[] {
  const line = text.split('\n').find((l) => l.startsWith(`  ${kind} "${title}" [`));
  assert.ok(line, `${kind} "${title}" in\n${text}`);
  return JSON.parse(line.slice(line.indexOf('[')));
}

/** The category labels of a chart's text. */
function labels(text: string): string[] {
  const line = text.split('\n').find((l) => l.startsWith('  x-axis ['))!;
  return JSON.parse(line.slice(line.indexOf('[')));
}

/** A second scenario whose head is `ratio` × base. */
function withScenario(results: Results, name: string, ratio: number): Results {
  const template = results.scenarios[0]!;
  const pairs = template.pairs.map((p) => ({ ...p, head: { ...p.head, rps: p.base.rps * ratio, latencyUs: { ...p.base.latencyUs } } }));
  results.scenarios.push({ ...template, name, pairs });
  return results;
}

test('a failing run: a chart per gated metric, the regression past the red line, drawn as a drop to the right', () => {
  const results = resultsFromPairs(regressedPairs());
  const analysis = assessResults(results);
  const charts = gatedCharts(results, analysis);
  assert.deepEqual(
    charts.map((c) => [c.metric, c.limit]),
    [
      ['throughput', 0.02],
      ['latency_p99', 0.15],
    ],
  );
  const throughput = analysis.comparisons.find((c) => c.metric === 'throughput')!;
  assert.equal(throughput.verdict, 'regression');
  const text = renderMermaidChart(charts[0]!);
  assert.match(text, /^%%\{init: \{.*\}\}%%\nxychart-beta horizontal\n/);
  assert.match(text, /title "throughput: change against its limit of 2%"/);
  assert.match(text, /y-axis "% drop in throughput \(right is worse\)" /);
  assert.deepEqual(labels(text), ['GET /hello ❌', 'limit ±2%']);
  // a 20% drop is drawn at +20, right of the limit line at +2, with the interval around it
  const band = series(text, 'bar', 'regression')[0]!;
  const tick = series(text, 'bar', 'estimate')[0]!;
  assert.ok(Math.abs(band - -throughput.ciLow * 100) < 0.001, `worse end ${band} = −ciLow`);
  assert.ok(tick > 19 && tick < 21, `estimate tick at the drop: ${tick}`);
  assert.deepEqual(series(text, 'line', 'limit 2%'), [2, 2]);
  assert.deepEqual(series(text, 'line', 'no change'), [0, 0]);
  // the zone row is the ±limit band
  assert.equal(series(text, 'bar', 'within ±2%').at(-1), 2);
  // the picture comes before the table in the comment
  const markdown = renderMarkdown(results, analysis);
  assert.ok(markdown.indexOf('```mermaid') < markdown.indexOf('| scenario | metric |'), 'the chart above the table');
  assert.ok(markdown.indexOf('```mermaid') < markdown.indexOf('<details>'), 'in view, not folded');
});

test('a passing run: every row unchanged inside ±limit, no mark; the chart folds away with the tables', () => {
  const results = withScenario(resultsFromPairs(cleanPairs()), 'POST /echo', 1.002);
  const analysis = assessResults(results);
  const [throughput] = gatedCharts(results, analysis);
  const text = renderMermaidChart(throughput!);
  assert.deepEqual(labels(text), ['GET /hello', 'POST /echo', 'limit ±2%']);
  const worseEnds = series(text, 'bar', 'unchanged').slice(0, 2);
  for (const end of worseEnds) assert.ok(end < 2, `inside the limit: ${end}`);
  assert.doesNotMatch(text, /bar "regression"|bar "improvement"|bar "inconclusive"/);
  const markdown = renderMarkdown(results, analysis);
  const fold = markdown.indexOf('<details><summary>Every metric');
  assert.ok(fold >= 0 && markdown.indexOf('```mermaid') > fold, 'the chart is inside the fold');
});

test('worse is to the right for every metric: a throughput rise and a latency fall are drawn left, as improvements', () => {
  const results = resultsFromPairs(cleanPairs().map(([base, head]) => [base, head * 1.25]));
  const analysis = assessResults(results);
  const [throughput, latency] = gatedCharts(results, analysis).map(renderMermaidChart);
  assert.deepEqual(labels(throughput!), ['GET /hello ✅', 'limit ±2%']);
  assert.ok(series(throughput!, 'bar', 'estimate')[0]! < -19, 'a 25% rise in throughput is a 20% "drop" below zero');
  assert.match(latency!, /y-axis "% rise in latency p99 \(right is worse\)"/);
  assert.ok(series(latency!, 'bar', 'estimate')[0]! < -15, 'latency fell 20%');
});

test('no chart when nothing gated was compared', () => {
  // micro-benchmarks only
  const bench = benchResults(benchRounds(6, 'bench/a.bench.js', (side) => [{ name: 'a', ops: side === 'base' ? 1000 : 800 }]));
  assert.equal(renderChart(bench, assessResults(bench)), null);
  assert.doesNotMatch(renderMarkdown(bench, assessResults(bench)), /```mermaid/);
  // every scenario failed before a pair was measured
  const empty = resultsFromPairs(regressedPairs());
  empty.scenarios[0]!.pairs = [];
  assert.equal(renderChart(empty, assessResults(empty)), null);
  // nothing gated: the project made every metric information only
  const ungated = resultsFromPairs(regressedPairs(), { gate: { throughput: { limit: '2%', gated: false }, latency_p99: { limit: '15%', gated: false }, errors: { limit: '1%', gated: false } } });
  const analysis = assessResults(ungated);
  assert.ok(analysis.comparisons.length > 0 && analysis.comparisons.every((c) => !c.gated));
  assert.equal(renderChart(ungated, analysis), null);
});

test('many scenarios: the most notable rows, and the markdown says how many are shown', () => {
  const results = resultsFromPairs(cleanPairs());
  for (let i = 1; i < MAX_CHART_ROWS + 5; i++) withScenario(results, `GET /s/${i}`, i === 22 ? 0.8 : 1.001);
  const analysis = assessResults(results);
  const [throughput] = gatedCharts(results, analysis);
  assert.equal(throughput!.rows.length, MAX_CHART_ROWS);
  assert.equal(throughput!.total, MAX_CHART_ROWS + 5);
  assert.ok(throughput!.rows.some((r) => r.scenario === 'GET /s/22' && r.tone === 'fail'), 'the regression is kept');
  assert.match(renderChart(results, analysis)!, /throughput shows 20 of 25 scenarios, the most notable\./);
});

test('a hostile scenario name cannot end the label, reach Mermaid\'s directives or leave the fence', () => {
  const hostile = 'GET /a"] \n```\n%%{init: {"theme":"dark"}}%% <script>x</script> @org `c` #quot; 50%';
  // what could break the chart is an entity Mermaid draws as that character: a quote, a backtick,
  // the second % of %%, a < (Mermaid's HTML sanitiser would eat a tag), and the name's own
  // "#quot;" and "&amp;" (entity syntax: they must stay text, not turn into a quote or an &)
  assert.equal(mermaidLabel('a"b`c%%d<e>@f'), 'a#34;b#96;c%#37;d#60;e>@\u200Df');
  assert.equal(mermaidLabel('#quot; &amp;\n g'), '#35;quot; #38;amp; g');
  const label = mermaidLabel(hostile);
  assert.doesNotMatch(label, /["\n`<]|%%/);
  assert.equal(label, 'GET /a#34;] #96;#96;… #35;quot; 50%', 'one line, cut in the middle to fit the axis');
  const results = resultsFromPairs(regressedPairs());
  results.scenarios[0]!.name = hostile;
  const markdown = renderChart(results, assessResults(results))!;
  // two fenced blocks, each opened and closed on its own line, nothing else at a line start
  assert.deepEqual(
    markdown.split('\n').filter((l) => l.startsWith('```')),
    ['```mermaid', '```', '```mermaid', '```'],
  );
  assert.equal(markdown.match(/%%\{init/g)?.length, 2, 'only perfgate\'s own directive, one per chart');
  assert.match(markdown, /x-axis \["GET \/a#34;\] #96;#96;… #35;quot; 50% ❌", "limit ±2%"\]/);
});

test('too few start pairs for an interval: the estimate alone, and every number one Mermaid can read', () => {
  const results = resultsFromPairs(regressedPairs(3));
  const analysis = assessResults(results);
  const throughput = analysis.comparisons.find((c) => c.metric === 'throughput')!;
  assert.equal(throughput.ciHigh, Number.POSITIVE_INFINITY, 'three start pairs reach no 95% interval');
  const [chart] = gatedCharts(results, analysis);
  assert.equal(chart!.rows[0]!.interval, null);
  const text = renderMermaidChart(chart!);
  const [min] = /y-axis "[^"]*" (\S+) --> (\S+)/.exec(text)!.slice(1).map(Number);
  // no band (the verdict's bar stays at the axis start), a tick at the estimate
  const band = text.split('\n').find((l) => /^ {2}bar "(regression|inconclusive|unchanged|improvement)"/.test(l))!;
  assert.equal(JSON.parse(band.slice(band.indexOf('[')))[0], min);
  assert.ok(series(text, 'bar', 'estimate')[0]! > 15);
  for (const line of text.split('\n').filter((l) => /^ {2}(bar|line|y-axis)/.test(l))) {
    assert.match(line.replace(/"[^"]*"/, ''), /^ {2}\w+(-axis)? *(\[(-?\d+(\.\d+)?(, )?)+\]|-?\d+(\.\d+)? --> -?\d+(\.\d+)?)$/, line);
  }
});

test('names that share a long start keep their ends, and rows that would read the same are told apart', () => {
  const results = resultsFromPairs(cleanPairs());
  const long = 'GET /api/v2/organisations/:orgId/projects/:projectId';
  results.scenarios[0]!.name = `${long}/builds`;
  withScenario(results, `${long}/deploys`, 1.001);
  withScenario(results, `${long}/x/${'step/'.repeat(8)}builds`, 1.001);
  withScenario(results, `${long}/y/${'step/'.repeat(8)}builds`, 1.001);
  withScenario(results, 'limit ±2%', 1.001);
  const text = renderMermaidChart(gatedCharts(results, assessResults(results))[0]!);
  const shown = labels(text);
  assert.equal(new Set(shown).size, shown.length, shown.join('\n'));
  assert.match(shown[0]!, /^GET \/api\/v2\/organisations.*….*\/builds$/);
  assert.match(shown[1]!, /…ojectId\/deploys$|….*\/deploys$/);
  // the last two differ only in the part the cut leaves out
  assert.equal(shown[3], `${shown[2]} (2)`);
  assert.deepEqual(shown.slice(4), ['limit ±2%', 'limit ±2% (2)']);
});

test('errors: drawn in points, and only when a request failed', () => {
  // head answers 500 to 30% of its requests in every slice
  const results = resultsFromPairs(regressedPairs());
  for (const pair of results.scenarios[0]!.pairs) pair.head.non2xx = Math.round(0.3 * pair.head.requests);
  const analysis = assessResults(results);
  const errors = gatedCharts(results, analysis).find((c) => c.metric === 'errors');
  assert.ok(errors, 'a chart for errors');
  assert.ok(Math.abs(errors.rows[0]!.worse - 30) < 0.5, `+30 points drawn: ${errors.rows[0]!.worse}`);
  assert.match(renderChart(results, analysis)!, /pt rise in errors \(right is worse\)/);
  // nobody failed: no errors chart, the others stay
  const clean = resultsFromPairs(regressedPairs());
  const charts = gatedCharts(clean, assessResults(clean));
  assert.ok(charts.length > 0 && !charts.some((c) => c.metric === 'errors'));
});
