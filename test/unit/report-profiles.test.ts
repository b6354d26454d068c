import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { assessResults } from '../../src/assess/compare.js';
import { renderMarkdown, renderTerminal } from '../../src/report/index.js';
import type { Results, ScenarioProfile } from '../../src/results/types.js';
import { fixtureScenarioProfile } from '../helpers/profiles.js';
import { resultsFromPairs } from '../helpers/results.js';
import { matchSnapshot } from '../helpers/snapshot.js';

const PAIRS: [number, number][] = Array.from({ length: 12 }, (_, i) => [1000 + (i % 3) * 7, 420 + (i % 4) * 5]);

/** A run of the recorded profiles, as the engine stores it. */
function profiledResults(mutate?: (p: ScenarioProfile) => void): Results {
  const results = resultsFromPairs(PAIRS);
  const profile = fixtureScenarioProfile();
  mutate?.(profile);
  results.profiles = [profile];
  return results;
}

/** The hot-function part of a report (the rest has its own snapshots). */
function hotPart(text: string, start: RegExp, end: RegExp): string {
  const from = text.search(start);
  assert.ok(from >= 0, 'the report has a hot-function section');
  const rest = text.slice(from);
  const to = rest.search(end);
  return to < 0 ? rest : rest.slice(0, to);
}

describe('report: hot functions', () => {
  test('markdown: own code first, links to the line at the head commit and to the flamegraphs', () => {
    const results = profiledResults();
    const urls = {
      'flamegraph-get-hello-head.html': 'https://example.test/artifacts/1',
      'flamegraph-get-hello-base.html': 'https://example.test/artifacts/2',
      'flamegraph-get-hello-diff.html': 'https://example.test/artifacts/3',
    };
    const markdown = renderMarkdown(results, assessResults(results), { artifactUrls: urls, repositoryUrl: 'https://github.com/acme/shop' });
    const part = hotPart(markdown, /\*\*Hot functions/, /<details><summary>Method/);
    matchSnapshot('report-profiles.md', part);
    assert.match(part, /\| slowEtag \| \[src\/payload\.js:10\]\(https:\/\/github\.com\/acme\/shop\/blob\/b{40}\/src\/payload\.js#L10\) \| — \| [\d.]+ (?:µs|ms) \| \+[\d.]+ (?:µs|ms) new \|/);
    assert.match(part, /Flamegraphs: \[head\]\(https:\/\/example\.test\/artifacts\/1\) · \[base\]\(https:\/\/example\.test\/artifacts\/2\) · \[differential\]\(https:\/\/example\.test\/artifacts\/3\)/);
    assert.match(part, /<details><summary>Dependencies, Node core and V8/);
  });

  test('results written before own-code attribution still render, as the self-time table they had', () => {
    const results = profiledResults((p) => {
      for (const side of [p.sides.base, p.sides.head]) {
        side.functions = side.functions.map(({ attributed, into, enclosing, kind, hash, optimization, ...old }) => old);
      }
    });
    const analysis = assessResults(results);
    const markdown = renderMarkdown(results, analysis);
    assert.match(markdown, /\| function \| where \| base \| head \| change \| total time \|/);
    assert.doesNotMatch(markdown, /spent in/);
    assert.match(markdown, /\| \(anonymous server\.js:7:17\) \|/, 'anonymous functions by their place, as before');
    assert.match(renderTerminal(results, analysis, { width: 120, color: false }), /slowEtag +src\/payload\.js:10 +— +[\d.]+ (?:µs|ms) +\+[\d.]+ (?:µs|ms) new +— → [\d.]+ (?:µs|ms)/);
  });

  test('a side that served no response while profiled: shares and percentage points, said so', () => {
    const results = profiledResults((p) => {
      p.sides.head.requests = 0;
    });
    const analysis = assessResults(results);
    const markdown = renderMarkdown(results, analysis);
    assert.match(markdown, /% of each side's CPU samples\)/);
    assert.match(markdown, /\| slowEtag \| src\/payload\.js:10 \| — \| \d+\.\d% \| \+\d+\.\d pp new \|/);
    assert.match(markdown, /Change: head share − base share, in percentage points/);
    assert.match(markdown, /🔎 Most new time: slowEtag \(src\/payload\.js:10\) \+\d+\.\d pp\./);
    const terminal = renderTerminal(results, analysis, { width: 120, color: false });
    assert.match(terminal, /slowEtag +src\/payload\.js:10 +— +\d+\.\d% +\+\d+\.\d pp new/);
  });

  test('a regressed, profiled scenario: the headline leads with its change, limit and culprit', () => {
    const results = profiledResults();
    const analysis = assessResults(results);
    assert.equal(analysis.comparisons.find((c) => c.metric === 'throughput')!.verdict, 'regression');
    const markdown = renderMarkdown(results, analysis);
    assert.match(
      markdown.split('\n')[0]!,
      /^## perfgate: ❌ failing: GET \/hello throughput −\d+(\.\d)?% \(limit \d+%\): most new time in slowEtag \(src\/payload\.js:10\)( \(and \d more gated regressions?\))?$/,
    );
    assert.match(
      renderTerminal(results, analysis, { width: 120, color: false }).split('\n')[0]!,
      /^perfgate: ✗ failing: GET \/hello throughput −[\d.]+% \(limit \d+%\): most new time in slowEtag \(src\/payload\.js:10\)/,
    );
  });

  test('markdown without URLs names the files; 0 rows leaves the section out', () => {
    const results = profiledResults();
    const markdown = renderMarkdown(results, assessResults(results));
    assert.match(markdown, /Flamegraphs \(files next to results\.json\): head flamegraph-get-hello-head\.html/);
    assert.doesNotMatch(markdown, /\]\(https:\/\/github\.com/, 'no repository: no source links');
    assert.doesNotMatch(renderMarkdown(results, assessResults(results), { hotFunctionRows: 0 }), /Hot functions/);
    assert.doesNotMatch(renderMarkdown(resultsFromPairs(PAIRS), assessResults(resultsFromPairs(PAIRS))), /Hot functions/);
  });

  test('terminal: the table, the switch for dependencies, and the flamegraph paths under the run directory', () => {
    const results = profiledResults();
    const analysis = assessResults(results);
    const text = renderTerminal(results, analysis, { runDir: '/tmp/run' });
    matchSnapshot('report-profiles.terminal', hotPart(text, /hot functions, /, /\nsmallest detectable/));
    assert.match(text, /flamegraphs: head \/tmp\/run\/flamegraph-get-hello-head\.html/);
    assert.match(text, /--all-functions also shows/);
    const all = renderTerminal(results, analysis, { runDir: '/tmp/run', allFunctions: true });
    assert.match(all, /dependencies, Node core and V8:\n/);
    assert.match(all, /writev/);
  });

  test('function names from the code are escaped; deoptimizations are reported', () => {
    const hostile = '<img src=x onerror=alert(1)> | @org/team `x`';
    const results = profiledResults((p) => {
      const slow = p.sides.head.functions.find((f) => f.name === 'slowEtag')!;
      slow.name = hostile;
      slow.deoptReasons = ['Insufficient type feedback'];
    });
    const markdown = renderMarkdown(results, assessResults(results));
    assert.ok(!markdown.includes('<img'));
    assert.match(markdown, /&lt;img src=x onerror=alert\(1\)&gt; &#124; @\u200Dorg\/team &#96;x&#96; ⚠️/);
    assert.match(markdown, /⚠️ Deoptimized by V8: .*: Insufficient type feedback/);
    const terminal = renderTerminal(results, assessResults(results));
    assert.match(terminal, /! deoptimized by V8: <img.*: Insufficient type feedback/);
  });

  test('a culprit line only for a scenario whose verdict is not unchanged', () => {
    const results = profiledResults();
    const analysis = assessResults(results);
    assert.match(renderTerminal(results, analysis, { color: false }), /most new time: slowEtag/);
    // the same profile on a run whose every verdict is unchanged: the growth is noise, not news
    const quiet = { ...analysis, comparisons: analysis.comparisons.map((c) => ({ ...c, verdict: 'unchanged' as const })), failing: [], decision: 'pass' as const };
    const text = renderTerminal(results, quiet, { color: false, full: true });
    assert.match(text, /hot functions, GET \/hello/);
    assert.doesNotMatch(text, /most new time/);
    assert.doesNotMatch(renderMarkdown(results, quiet), /Most new time/);
  });
});

test('scenarios left unprofiled because every verdict was unchanged are named, with the setting that profiles them', () => {
  const results = profiledResults();
  results.profilesSkipped = ['POST /echo', 'GET /[x](y)'];
  const analysis = assessResults(results);
  const terminal = renderTerminal(results, analysis, { full: true });
  assert.match(terminal, /\nNot profiled, every verdict unchanged: POST \/echo, GET \/\[x\]\(y\) \(profile\.when: always profiles every scenario\)/);
  const markdown = renderMarkdown(results, analysis);
  assert.match(markdown, /<sub>Not profiled, every verdict unchanged: POST \/echo, GET \/\\\[x\\\]\(y\) \(profile\.when: always profiles every scenario\)\.<\/sub>/);
  // nothing profiled at all: the note alone
  results.profiles = [];
  assert.match(renderTerminal(results, assessResults(results), { full: true }), /Not profiled, every verdict unchanged: POST \/echo/);
});
