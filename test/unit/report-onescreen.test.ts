/**
 * A failing comment tells its story in one screen: what failed and why above the first fold,
 * every other number below it. Checked on a recorded run of a three-route Express app whose
 * GET /users/42 lost 8.7% of its throughput and stopped at the first look.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { assessResults } from '../../src/assess/compare.js';
import type { Assessment } from '../../src/assess/types.js';
import { ONE_SCREEN_LINES, renderMarkdown } from '../../src/report/markdown.js';
import { renderTerminal } from '../../src/report/terminal.js';
import { upgradeResults } from '../../src/results/migrate.js';
import type { Results } from '../../src/results/types.js';

function recorded(name: string): Results {
  return upgradeResults(JSON.parse(readFileSync(new URL(`../fixtures/results/${name}`, import.meta.url), 'utf8')), name);
}

/** The lines a reader sees before the first `<details>`. */
function aboveFold(markdown: string): string[] {
  const lines = markdown.split('\n');
  return lines.slice(0, lines.findIndex((line) => line.startsWith('<details>')));
}

/** The same run, its two other routes unchanged in every metric. */
function onlyOneRouteMoved(analysis: Assessment): Assessment {
  const settle = <T extends { scenario: string; verdict: string }>(c: T): T => (c.scenario === 'GET /users/42' ? c : { ...c, verdict: 'unchanged' });
  return {
    ...analysis,
    comparisons: analysis.comparisons.map(settle),
    all: analysis.all.map((e) => (e.kind === 'http' ? { ...e, comparison: settle(e.comparison) } : e)),
  };
}

describe('the story in one screen', () => {
  const results = recorded('three-routes-regressed.json');
  const analysis = assessResults(results);
  const markdown = renderMarkdown(results, analysis);

  it('a failing comment on a three-route app: the headline, the rows that moved and the culprit above the fold, within one screen', () => {
    const above = aboveFold(markdown);
    assert.ok(above.length <= ONE_SCREEN_LINES, `${above.length} lines above the fold:\n${above.join('\n')}`);
    assert.equal(ONE_SCREEN_LINES, 40);
    const text = above.join('\n');
    assert.match(above[0]!, /^## perfgate: ❌ failing: GET \/users\/42 throughput −8\.7% \(limit 2%\): most new time in spin \(work\.js:21/);
    assert.match(text, /\| GET \/users\/42 \| \*\*throughput\*\* \| 1\.88k\/s \| 1\.7k\/s \| −8\.7% \(−10\.5 … −7\.3\) \| ❌ regression \|/);
    assert.match(text, /\| {2}\| CPU \/ request \| 184 µs \| 203 µs \| \+11\.6% \(\+9\.7 … \+13\.3\) \| ⚠️ regression \|/);
    assert.match(text, /- 💡 \*\*GET \/users\/42:\*\* CPU per request \+11\.6% \(184 µs → 203 µs\).*most new time in spin/);
    // An unchanged row waits in the fold (its route is one line above it); the service health and hot-function tables too.
    assert.doesNotMatch(text, /\|\s*latency p99\s*\|/);
    assert.match(text, /\*\*Unchanged or no regression\*\*, no metric worse beyond its limit:\n- GET \/hello: throughput \+1\.4% \(−1\.7 … \+5\.4\)/);
    assert.doesNotMatch(text, /Service health|Hot functions|event-loop delay/);
  });

  it('every detail stays below the fold, in the order a reader needs it', () => {
    const below = markdown.slice(markdown.indexOf('<details><summary>Every metric, service health and hot functions</summary>'));
    const order = [
      '```mermaid',
      'title "throughput: change against its limit of 2%"',
      'title "latency p99: change against its limit of 15%"',
      '| scenario | metric | base (median) |',
      '| POST /orders | **throughput** |',
      '|  | CPU / request | 253 µs | 251 µs |',
      '**Service health**',
      '**Hot functions, GET /users/42**',
      '<summary>Dependencies, Node core and V8 (top 10)</summary>',
      '<summary>Method, noise and warnings</summary>',
      '**Each start pair**',
    ];
    const at = order.map((part) => below.indexOf(part));
    for (const [i, index] of at.entries()) assert.ok(index >= 0, `missing below the fold: ${order[i]}`);
    assert.deepEqual([...at].sort((a, b) => a - b), at);
  });

  it('a route with no change is one line with its gated changes, above the fold', () => {
    const settled = onlyOneRouteMoved(analysis);
    const above = aboveFold(renderMarkdown(results, settled)).join('\n');
    assert.match(above, /\*\*Unchanged\*\*, every metric within its limit:\n- GET \/hello: throughput \+1\.4% \(−1\.7 … \+5\.4\) · latency p99 −4\.4% \(−12\.0 … \+6\.8\) · errors 0\.0 pt \(0\.0 … 0\.0\)\n- POST \/orders: throughput −0\.2% /);
    assert.doesNotMatch(above, /\| GET \/hello \|/);
    const terminal = renderTerminal(results, settled);
    assert.match(terminal, /\nunchanged, every metric within its limit:\n {2}GET \/hello: throughput \+1\.4% \(−1\.7 … \+5\.4\) · latency p99/);
  });

  it('the terminal tells the same story before every metric', () => {
    const lines = renderTerminal(results, analysis).split('\n');
    const full = lines.indexOf('every metric:');
    assert.ok(full > 0);
    const story = lines.slice(0, full).join('\n');
    assert.match(story, /GET \/users\/42 +throughput \* +1\.88k\/s +1\.7k\/s +−8\.7% \(−10\.5 … −7\.3\) +✗ regression/);
    assert.match(story, /→ GET \/users\/42: CPU per request \+11\.6%/);
    assert.doesNotMatch(story, /^ +latency p99 |service health/m);
  });

  it('a passing run is short too', () => {
    const passing = recorded('v0.1-calibration-5pct.json');
    const passed = assessResults(passing);
    assert.equal(passed.decision, 'pass');
    assert.ok(aboveFold(renderMarkdown(passing, passed)).length <= ONE_SCREEN_LINES);
  });
});
