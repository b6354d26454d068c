import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { decide, wantsNewComment } from '../../src/action/decision.js';
import { assessResults } from '../../src/assess/compare.js';
import { COMMENT_LIMIT, commentMarker, renderComment, renderReport } from '../../src/report/comment.js';
import { workflowOfRef } from '../../src/github/comments.js';
import { renderMarkdown } from '../../src/report/markdown.js';
import type { Results } from '../../src/results/types.js';
import { cleanPairs, regressedPairs } from '../helpers/github-runs.js';
import { resultsFromPairs } from '../helpers/results.js';

/** `count` scenarios; the one at `regressedAt` is 20% slower. */
function manyScenarios(count: number, regressedAt: number): Results {
  const results = resultsFromPairs(cleanPairs());
  const template = results.scenarios[0]!;
  const regressed = resultsFromPairs(regressedPairs()).scenarios[0]!.pairs;
  results.scenarios = Array.from({ length: count }, (_, i) => ({ ...template, name: `GET /s/${i}`, pairs: i === regressedAt ? regressed : template.pairs }));
  return results;
}

/** The verdict rows of the full table, in the fold under the story. */
function foldedRows(text: string): string[] {
  return text
    .slice(text.indexOf('<summary>Every metric'))
    .split('\n')
    .filter((l) => /^\| .*\| (unchanged|.*regression|.*improvement|.*inconclusive) \|$/.test(l));
}

describe('renderComment', () => {
  test('a hidden marker for the gate id, then the report as renderMarkdown writes it', () => {
    const results = resultsFromPairs(regressedPairs());
    const analysis = assessResults(results);
    const body = renderComment(results, analysis, 'api');
    assert.equal(body, `<!-- perfgate:comment id=api -->\n${renderMarkdown(results, analysis)}`);
    assert.throws(() => commentMarker('x --> <b>'), /Invalid gate id/);
  });

  test('artifact links: labels escaped, URLs kept whole', () => {
    const results = resultsFromPairs(cleanPairs());
    const text = renderReport(results, assessResults(results), {
      artifacts: [{ label: 'flame|graph <x>.html', url: 'https://github.com/a/b/actions/runs/1/artifacts/2?(x)' }],
    });
    assert.ok(text.includes('**Artifacts:** [flame&#124;graph &lt;x&gt;.html](https://github.com/a/b/actions/runs/1/artifacts/2?%28x%29)'));
  });

  test('an accept label: the headline and a warning name it; none when the run passes anyway', () => {
    const failing = resultsFromPairs(regressedPairs());
    const text = renderReport(failing, assessResults(failing), { acceptedBy: 'perf-ok' });
    assert.match(text, /^## perfgate: ⚠️ accepted by label \*\*perf-ok\*\*: failing: GET \/hello throughput −\d+\.\d% \(limit 2%\)/);
    assert.match(text, /\n> ⚠️ \*\*Regression accepted\.\*\* The label \*\*perf-ok\*\* is on this pull request/);
    const passing = resultsFromPairs(cleanPairs());
    assert.ok(!renderReport(passing, assessResults(passing), { acceptedBy: 'perf-ok' }).includes('accepted'));
  });

  test('a failing report says which label accepts it; a passing or accepted one does not; the run is linked', () => {
    const failing = resultsFromPairs(regressedPairs());
    const options = { acceptLabel: 'perf <ok>', runUrl: 'https://github.com/a/b/actions/runs/77' };
    const text = renderReport(failing, assessResults(failing), options);
    assert.match(text, /\nIf this regression is intended, add the label \*\*perf &lt;ok&gt;\*\* to the pull request/);
    assert.match(text, /<sub>perfgate [^<]* · \[workflow run\]\(https:\/\/github\.com\/a\/b\/actions\/runs\/77\)<\/sub>\n$/);
    assert.ok(!renderReport(failing, assessResults(failing), { ...options, acceptedBy: 'perf <ok>' }).includes('If this regression is intended'));
    const passing = resultsFromPairs(cleanPairs());
    assert.ok(!renderReport(passing, assessResults(passing), options).includes('If this regression is intended'));
  });

  test('forty routes, one regressed: its rows and the others named on one line fit one screen above the fold', () => {
    const results = manyScenarios(40, 25);
    const text = renderReport(results, assessResults(results));
    const lines = text.split('\n');
    const above = lines.slice(0, lines.findIndex((line) => line.startsWith('<details>')));
    assert.ok(above.length <= 40, `${above.length} lines above the fold`);
    const unchanged = above.find((line) => line.startsWith('- GET /s/0 · GET /s/1 · '));
    assert.ok(unchanged?.endsWith('GET /s/11 and 27 more (in the full table)'), unchanged);
    assert.ok(above.some((line) => line.startsWith('| GET /s/25 | **throughput** |')));
  });

  test('over the limit: the details go first, then the least notable rows, with a note and a link', () => {
    const results = manyScenarios(40, 25);
    const analysis = assessResults(results);
    const full = renderReport(results, analysis, { maxChars: Number.POSITIVE_INFINITY });
    const fullReport = { label: 'results', url: 'https://github.com/a/b/actions/runs/1/artifacts/9' };

    const noDetails = renderReport(results, analysis, { maxChars: full.length - 1, fullReport });
    assert.ok(noDetails.length < full.length);
    assert.ok(!noDetails.includes('<summary>Method, noise and warnings'));
    assert.match(noDetails, /_Method, noise and warnings are left out .*: the full report is in \[results\]\(https:\/\/github\.com\/a\/b\/actions\/runs\/1\/artifacts\/9\)\._/);
    assert.ok(!noDetails.includes('rows shown'), 'all rows still fit');

    const cut = renderReport(results, analysis, { maxChars: 5_000, fullReport });
    assert.ok(cut.length <= 5_000, `${cut.length}`);
    const shown = /⚠️ \*\*(\d+) of 240 rows shown\*\*/.exec(cut);
    assert.ok(shown, 'the note says how many rows are shown');
    assert.equal(foldedRows(cut).length, Number(shown[1]));
    assert.ok(cut.includes('| GET /s/25 |'), 'the regressed scenario is kept first');
    assert.ok(cut.includes('regression |'));
    const table = foldedRows(cut).filter((l) => l.startsWith('| GET /s/'));
    assert.deepEqual(table, [...table].sort((a, b) => Number(/s\/(\d+)/.exec(a)![1]) - Number(/s\/(\d+)/.exec(b)![1])), 'kept rows stay in display order');
  });

  test('over the limit: the chart goes after the details and before any verdict row', () => {
    const results = manyScenarios(40, 25);
    const analysis = assessResults(results);
    const fullReport = { label: 'results', url: 'https://github.com/a/b/actions/runs/1/artifacts/9' };
    const full = renderReport(results, analysis, { maxChars: Number.POSITIVE_INFINITY, fullReport });
    assert.match(full, /```mermaid\nxychart-beta|```mermaid\n%%\{init/);
    const noDetails = renderReport(results, analysis, { maxChars: full.length - 1, fullReport });
    assert.ok(!noDetails.includes('<summary>Method, noise and warnings'));
    assert.ok(noDetails.includes('```mermaid'), 'the chart outlives the details');

    const noChart = renderReport(results, analysis, { maxChars: noDetails.length - 1, fullReport });
    assert.ok(!noChart.includes('```mermaid'), 'the chart goes next');
    assert.match(noChart, /_The chart, method, noise and warnings are left out .*: the full report is in \[results\]/);
    assert.ok(!noChart.includes('rows shown'), 'every verdict row is still there');
    assert.equal(foldedRows(noChart).length, 240, 'five metrics and errors for each of the 40 scenarios');
  });

  test('a crafted results.json with an enormous name still yields a body under the limit', () => {
    const results = resultsFromPairs(regressedPairs());
    results.sides.head.ref = '<'.repeat(200_000);
    const body = renderComment(results, assessResults(results), 'default');
    assert.ok(body.length <= COMMENT_LIMIT, `${body.length}`);
    assert.match(body, /⚠️ \*\*This report was cut\*\*/);
    assert.ok(!body.includes('<<'), 'what is left is still escaped');
  });
});

describe('the action decisions', () => {
  const failing = assessResults(resultsFromPairs(regressedPairs()));
  const passing = assessResults(resultsFromPairs(cleanPairs()));

  test('the accept label turns a failure into a pass, matched case-insensitively', () => {
    assert.deepEqual(decide(failing, ['bug', 'Perf-Regression-Accepted'], 'perf-regression-accepted'), {
      decision: 'pass',
      acceptedBy: 'Perf-Regression-Accepted',
    });
    assert.deepEqual(decide(failing, ['bug'], 'perf-regression-accepted'), { decision: 'fail', acceptedBy: null });
    assert.deepEqual(decide(passing, ['perf-regression-accepted'], 'perf-regression-accepted'), { decision: 'pass', acceptedBy: null });
  });

  test('which runs create a comment', () => {
    assert.deepEqual(
      (['always', 'on-change', 'on-regression', 'never'] as const).map((mode) => [wantsNewComment(mode, passing), wantsNewComment(mode, failing)]),
      [
        [true, true],
        [false, true],
        [false, true],
        [false, false],
      ],
    );
  });
});

describe('commentMarker', () => {
  test('names the posting workflow when it is a plain path, and nothing a path could smuggle in', () => {
    assert.equal(commentMarker('api', '.github/workflows/perf.yml'), '<!-- perfgate:comment id=api workflow=.github/workflows/perf.yml -->');
    assert.equal(workflowOfRef('acme/shop/.github/workflows/perf-comment.yml@refs/heads/main'), '.github/workflows/perf-comment.yml');
    assert.equal(workflowOfRef(undefined), null);
    for (const hostile of ['x.yml --> <img src=x>', 'a--b.yml', 'x\ny', '']) assert.equal(commentMarker('api', hostile), '<!-- perfgate:comment id=api -->', JSON.stringify(hostile));
  });
});
