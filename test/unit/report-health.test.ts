import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { wantsNewComment } from '../../src/action/decision.js';
import { assessResults } from '../../src/assess/compare.js';
import { renderReport } from '../../src/report/comment.js';
import { describeHint, formatGrowth } from '../../src/report/health.js';
import { renderMarkdown } from '../../src/report/markdown.js';
import { renderTerminal } from '../../src/report/terminal.js';
import type { HealthHint, Results } from '../../src/results/types.js';
import { runCli } from '../helpers/cli.js';
import { HEALTHY, healthResults, healthSection, withoutHealthRules } from '../helpers/health.js';
import { resultsFromPairs } from '../helpers/results.js';
import { matchSnapshot } from '../helpers/snapshot.js';

/** A head that blocks its loop (~480 ms at worst) and leaks ~1.2 MB per 10k requests. */
function blockingAndLeaking(): Results {
  return healthResults(20, {
    base: HEALTHY,
    head: { ...HEALTHY, delayP99Us: 48_000, delayMaxUs: 480_000, heapBytesPerRequest: 120, gcMsPer1k: 1.6 },
  });
}

describe('service health in the reports', () => {
  it('snapshot: markdown', () => {
    const results = blockingAndLeaking();
    matchSnapshot('report-health.md', renderMarkdown(results, assessResults(results)));
  });

  it('snapshot: terminal', () => {
    const results = blockingAndLeaking();
    matchSnapshot('report-health.terminal', renderTerminal(results, assessResults(results)));
  });

  it('says what to do, with the numbers of the table', () => {
    const results = blockingAndLeaking();
    const text = healthSection(renderMarkdown(results, assessResults(results)));
    assert.match(text, /\| GET \/hello \| \*\*event-loop delay p99\*\* \| 1\.\d+ ms \| 4\d\.\d ms \| \+[\d,]+% \(.*\) · \+4\d(\.\d)? ms \| ❌ regression \|/);
    assert.match(text, /- 💡 \*\*GET \/hello:\*\* event loop blocked up to 4\d\d ms in head \(base [\d.]+ ms\): a synchronous call holds the loop — turn on profiling/);
    assert.match(text, /- ⚠️ \*\*GET \/hello:\*\* heap grows \\~1\.\d MB per 10k requests in head only \(base [+−]0\.0\d+ MB; rising in \d+ of \d+ starts\): possible leak/);
    assert.match(text, /\| {2}\| heap growth \/ 10k req \| [+−]0\.0\d+ MB \| \+1\.\d MB \| \+1\.\d MB \| ⚠️ possible leak \|/);
    assert.match(text, /garbage collection takes 1\.\d+ ms per 1,000 requests in head \(base 8\d\d µs\)/);
  });

  it('points at the hot functions when the scenario was profiled', () => {
    const hint: HealthHint = { kind: 'blocked-loop', scenario: 'GET /', side: 'head', baseMaxUs: 3000, headMaxUs: 480_000, profiled: true };
    assert.equal(describeHint(hint), 'event loop blocked up to 480 ms in head (base 3 ms): a synchronous call holds the loop — see hot functions');
    assert.equal(
      describeHint({ kind: 'possible-leak', scenario: 'GET /', baseMbPer10k: 0.004, headMbPer10k: 1.23, headBlocksMbPer10k: [1.31, 1.18] }),
      'heap grows ~1.2 MB per 10k requests in head only (base +0.004 MB; rising in 2 of 2 starts): possible leak — something keeps a reference per request (a map or cache without a bound, listeners never removed)',
    );
    // With heap snapshots, what head kept in place of the advice.
    assert.equal(
      describeHint({ kind: 'possible-leak', scenario: 'GET /', baseMbPer10k: 0.004, headMbPer10k: 1.23, headBlocksMbPer10k: [1.31] }, 'head keeps +5.1 MB more than base in 52k Object'),
      'heap grows ~1.2 MB per 10k requests in head only (base +0.004 MB): possible leak — head keeps +5.1 MB more than base in 52k Object',
    );
    assert.equal(formatGrowth(-0.0333), '−0.033 MB');
    assert.equal(formatGrowth(0), '0 MB');
  });

  it('names a failing event-loop delay limit in the headline', () => {
    const results = blockingAndLeaking();
    const heading = renderMarkdown(results, assessResults(results)).split('\n')[0]!;
    assert.match(heading, /❌ failing: GET \/hello event-loop delay p99 \+[\d,]+% \(limit 50% and 10 ms\)$/);
    assert.match(heading, /^## perfgate: ❌ failing/);
  });

  it('a generator-bound run says so in the section and marks the generator row', () => {
    const bound = { ...HEALTHY, utilization: 0.3, generatorCpu: 0.66, generatorBusy: 0.95 };
    const results = healthResults(20, { base: bound, head: bound });
    const markdown = renderMarkdown(results, assessResults(results));
    assert.match(markdown, /\| {2}\| generator busy \/ CPU \| 9\d(\.\d)?% \/ 6\d(\.\d)?% \| .* \| {2}\| ⚠️ at its limit \|/);
    assert.match(markdown, /- ⚠️ \*\*GET \/hello:\*\* the load generator was busy 9\d(\.\d)?% of the time \(6\d(\.\d)?% of a CPU core\) in most base and head slices while the service's busiest event loop was [23]\d(\.\d)?% busy: throughput measures the generator, not the service/);
    assert.match(markdown, /\| GET \/hello \| \*\*throughput\*\* \| .* \| ❔ inconclusive \|/);
    assert.match(renderTerminal(results, assessResults(results)), /! GET \/hello: the load generator was busy/);
  });

  it('no section for results without health data (older runs render as before)', () => {
    const results = resultsFromPairs(Array.from({ length: 12 }, () => [1000, 1000]));
    assert.doesNotMatch(renderMarkdown(results, assessResults(results)), /Service health/);
    assert.doesNotMatch(renderTerminal(results, assessResults(results)), /service health/);
  });

  it('perfgate report renders a results.json written before health existed (no health fields, no health rules)', async () => {
    const old = withoutHealthRules(resultsFromPairs(Array.from({ length: 12 }, (_, i) => [1000 + i, 1000 - i])));
    const dir = mkdtempSync(join(tmpdir(), 'perfgate-old-results-'));
    writeFileSync(join(dir, 'results.json'), JSON.stringify(old));
    const run = await runCli(['report', join(dir, 'results.json'), '--markdown', join(dir, 'report.md')], dir);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /^\nperfgate: ✓ passing/);
    assert.doesNotMatch(run.stdout, /service health/);
  });

  it('a possible leak counts as a change for comment: on-change', () => {
    const results = healthResults(20, { base: HEALTHY, head: { ...HEALTHY, heapBytesPerRequest: 120 } }, { noise: 0.01 });
    const analysis = assessResults(results);
    assert.ok(analysis.comparisons.every((c) => c.verdict === 'unchanged'), 'the HTTP metrics did not move');
    assert.equal(wantsNewComment('on-change', analysis), true);
    assert.equal(wantsNewComment('on-change', assessResults(healthResults(30, { base: HEALTHY, head: HEALTHY }, { noise: 0.01 }))), false);
  });

  it('a comment that must shrink keeps the notable health rows and every hint', () => {
    const results = blockingAndLeaking();
    const analysis = assessResults(results);
    const full = renderReport(results, analysis);
    const short = renderReport(results, analysis, { maxChars: full.length - 200 });
    assert.ok(short.length <= full.length - 200);
    const text = healthSection(short);
    assert.match(text, /event-loop delay p99/);
    assert.match(text, /possible leak/);
    assert.doesNotMatch(text, /heap \/ RSS/);
    assert.match(text, /_Unchanged health metrics are left out to keep this text short\._/);
    assert.match(text, /event loop blocked up to/);
  });
});
