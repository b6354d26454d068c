import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { assessResults } from '../../src/assess/compare.js';
import { boundSummaries } from '../../src/profile/diff.js';
import { gatedCharts } from '../../src/report/document/chart.js';
import { renderMarkdown, renderTerminal } from '../../src/report/index.js';
import { describeCounts } from '../../src/report/document/headline.js';
import { allComparisons, countVerdicts } from '../../src/report/verdicts.js';
import type { ProfileSummary, SideProfile } from '../../src/results/types.js';
import { buildVerdicts, describeEntry } from '../../src/assess/verdicts.js';
import { WARNING_CODES } from '../../src/results/warnings.js';
import { formatChange } from '../../src/stats/format.js';
import { createRandom } from '../../src/stats/random.js';
import { fixtureSummary } from '../helpers/profiles.js';
import { ROOT } from '../helpers/repo.js';
import { resultsFromPairs } from '../helpers/results.js';
import { HEALTHY, healthResults } from '../helpers/health.js';

/** A side of the recorded profiles (test/fixtures/profiles), as the engine stores it. */
function profileSide(summary: ProfileSummary, requests: number): SideProfile {
  return { ...summary, profiler: 'cpu-prof', nodeVersion: 'v24.21.0', requests, windowMs: 2000, wallMs: 4100, processes: [], merged: '', inlinedSamples: 0 };
}

function bounded(side: 'base' | 'head'): ProfileSummary {
  return boundSummaries(fixtureSummary('base'), fixtureSummary('head'), 25)[side];
}

function noisyPairs(n: number, ratio: number, seed = 1): [number, number][] {
  const random = createRandom(seed);
  const noise = () => Math.exp((random() + random() + random() - 1.5) * 0.06);
  return Array.from({ length: n }, () => [10_000 * noise(), 10_000 * ratio * noise()]);
}

const schema = JSON.parse(readFileSync(join(ROOT, 'docs', 'verdicts.schema.json'), 'utf8'));
const compiled = new Ajv2020({ allErrors: true, strict: false }).compile(schema);
/** Untyped, so the documents stay `any` as a script reads them. */
const validate = (data: unknown): boolean => compiled(data);
const errorsOf = () => JSON.stringify(compiled.errors);

test('verdicts as data: a failing run, per metric estimate, interval, p and verdict, valid against docs/verdicts.schema.json', () => {
  const results = resultsFromPairs(noisyPairs(20, 0.8));
  const verdicts = buildVerdicts(results, assessResults(results));
  // through JSON, as a script reads it (infinite bounds become null)
  const doc = JSON.parse(JSON.stringify(verdicts));
  const valid = validate(doc);
  assert.ok(valid, errorsOf());
  assert.equal(doc.decision, 'fail');
  const throughput = doc.metrics.find((m: { metric: string }) => m.metric === 'throughput');
  assert.equal(throughput.kind, 'http');
  assert.equal(throughput.verdict, 'regression');
  assert.ok(throughput.estimate < -0.15 && throughput.interval[0] < throughput.estimate && throughput.estimate < throughput.interval[1]);
  assert.ok(throughput.p < 0.01 && throughput.worsening > 0.15);
  // the worst: the gated regression that moved most in the worse direction
  const gatedRegressions = doc.metrics.filter((m: { gated: boolean; verdict: string }) => m.gated && m.verdict === 'regression');
  assert.equal(doc.worst.verdict, 'regression');
  assert.equal(doc.worst.worsening, Math.max(...gatedRegressions.map((m: { worsening: number }) => m.worsening)));
  assert.match(describeEntry(verdicts.worst!, formatChange), /^GET \/hello \w+ [+−]\d+(\.\d)?% \(regression\)$/);
});

test('verdicts as data: a passing run validates too, and says pass', () => {
  const results = resultsFromPairs(noisyPairs(40, 1, 3));
  const doc = JSON.parse(JSON.stringify(buildVerdicts(results, assessResults(results))));
  const valid = validate(doc);
  assert.ok(valid, errorsOf());
  assert.equal(doc.decision, 'pass');
  assert.equal(doc.worst.gated, true);
});

test('docs/verdicts.md lists every warning code with its meaning, and no other', () => {
  const doc = readFileSync(join(ROOT, 'docs', 'verdicts.md'), 'utf8');
  const rows = [...doc.matchAll(/^\| `([a-z0-9-]+)` \| (.+) \|$/gm)].map((m) => [m[1], m[2]]);
  assert.deepEqual(rows, Object.entries(WARNING_CODES));
});

test('verdicts as data: base and head medians, and the culprit of a regressed, profiled scenario', () => {
  const results = resultsFromPairs(noisyPairs(20, 0.8));
  const base = bounded('base');
  const head = bounded('head');
  results.profiles = [
    {
      scenario: 'GET /hello',
      durationMs: 2000,
      intervalUs: 1000,
      sides: { base: profileSide(base, 20_000), head: profileSide(head, 18_200) },
      files: { head: null, base: null, diff: null },
      renderMs: 0,
    },
  ];
  const analysis = assessResults(results);
  const doc = JSON.parse(JSON.stringify(buildVerdicts(results, analysis)));
  assert.ok(validate(doc), errorsOf());
  const throughput = analysis.comparisons.find((c) => c.metric === 'throughput')!;
  const entry = doc.metrics.find((m: { metric: string }) => m.metric === 'throughput');
  assert.equal(entry.base, throughput.baseMedian);
  assert.equal(entry.head, throughput.headMedian);
  assert.ok(entry.head < entry.base * 0.9, 'head serves less');
  assert.deepEqual(
    { function: doc.worst.culprit.function, file: doc.worst.culprit.file, line: doc.worst.culprit.line },
    { function: 'slowEtag', file: 'src/payload.js', line: 10 },
  );
  assert.match(doc.worst.culprit.text, /^most new time in slowEtag \(src\/payload\.js:10\)/);
  assert.equal(doc.worst.culprit.changedByPr, null, 'no diff recorded: unknown');
  // what the pull request changed is part of what the assessment reads: each variant is assessed again
  // the pull request edited line 12, inside slowEtag (lines 10 to 16)
  results.changes = { since: '0'.repeat(40), files: [{ file: 'src/payload.js', hunks: [[12, 1]] }] };
  const marked = JSON.parse(JSON.stringify(buildVerdicts(results, assessResults(results))));
  assert.ok(validate(marked), errorsOf());
  assert.equal(marked.worst.culprit.changedByPr, true);
  assert.match(marked.worst.culprit.text, /^most new time in slowEtag \(src\/payload\.js:10, changed by this PR\)/);
  assert.equal(marked.worst.culprit.changedFunction, null, 'the culprit itself changed');
  // the pull request edited buildPayload (lines 5 to 8), which grew less, and not slowEtag
  results.changes = { since: '0'.repeat(40), files: [{ file: 'src/payload.js', hunks: [[6, 1]] }] };
  const beside = JSON.parse(JSON.stringify(buildVerdicts(results, assessResults(results))));
  assert.ok(validate(beside), errorsOf());
  assert.equal(beside.worst.culprit.changedByPr, false);
  assert.deepEqual({ ...beside.worst.culprit.changedFunction, addedUs: typeof beside.worst.culprit.changedFunction.addedUs }, { function: 'buildPayload', file: 'src/payload.js', line: 5, addedUs: 'number' });
  delete results.changes;
  // a scenario whose verdict is unchanged names no culprit: its profile differences are noise
  const quiet = resultsFromPairs(noisyPairs(40, 1, 3));
  quiet.profiles = results.profiles;
  const quietDoc = buildVerdicts(quiet, assessResults(quiet));
  assert.ok(quietDoc.metrics.every((m) => m.culprit === null));
});

test('errors in verdicts.json: a difference of shares, the worst when head broke a route, and said in points', () => {
  const results = resultsFromPairs(Array.from({ length: 12 }, (_, i) => [1000, 1100 + i] as [number, number]));
  for (const pair of results.scenarios[0]!.pairs) {
    pair.head.non2xx = Math.round(pair.head.requests / 4);
    pair.head.statuses = { '500': pair.head.non2xx };
  }
  const verdicts = buildVerdicts(results, assessResults(results));
  const errors = verdicts.metrics.find((m) => m.metric === 'errors')!;
  assert.equal(errors.kind, 'http');
  assert.equal(errors.verdict, 'regression');
  assert.equal(errors.limit, 0.01);
  assert.equal(errors.base, 0);
  assert.ok(Math.abs(errors.head! - 0.25) < 0.001 && Math.abs(errors.estimate - 0.25) < 0.001, `${errors.head} ${errors.estimate}`);
  assert.equal(verdicts.decision, 'fail');
  assert.equal(verdicts.worst?.metric, 'errors', 'a failing route leads, although throughput improved');
  assert.equal(describeEntry(errors, formatChange), 'GET /hello errors +25.0 pt (regression)');
});

test("a faster head that fails requests is no improvement in the tables: its rows say head fails requests", () => {
  const results = resultsFromPairs(Array.from({ length: 12 }, (_, i) => [1000, 1100 + i] as [number, number]));
  const analysis = assessResults(results);
  const throughputCell = (text: string) => text.split('\n').find((l) => /throughput \*/.test(l)) ?? '';
  assert.match(throughputCell(renderTerminal(results, analysis, { full: true })), /✓ improvement/, 'no errors: the faster head is an improvement');
  for (const pair of results.scenarios[0]!.pairs) {
    pair.head.non2xx = Math.round(pair.head.requests / 4);
    pair.head.statuses = { '500': pair.head.non2xx };
  }
  const failing = assessResults(results);
  assert.match(throughputCell(renderTerminal(results, failing)), /\? not comparable: head fails requests/);
  assert.doesNotMatch(renderTerminal(results, failing), /✓ improvement/);
  const markdownRow = renderMarkdown(results, failing).split('\n').find((l) => l.startsWith('| GET /hello | **throughput** | 1k/s')) ?? '';
  assert.match(markdownRow, /\| ❔ not comparable: head fails requests \|$/);
  assert.doesNotMatch(renderMarkdown(results, failing), /✅ improvement/);
  // The counts line and the chart read it as the table does: no improvement anywhere.
  assert.match(describeCounts(countVerdicts(allComparisons(analysis))), /[1-9]\d* improvements?/, 'before: counted as an improvement');
  assert.match(describeCounts(countVerdicts(allComparisons(failing))), /· 0 improvements ·/);
  const throughputChart = gatedCharts(results, failing).find((chart) => chart.metric === 'throughput')!;
  assert.deepEqual(
    throughputChart.rows.map((row) => row.tone),
    ['unknown'],
  );
  assert.equal(gatedCharts(results, analysis).find((chart) => chart.metric === 'throughput')!.rows[0]!.tone, 'good');
  // verdicts.json reads the same decision: no improvement counted, the throughput entry inconclusive.
  const document = buildVerdicts(results, failing);
  assert.equal(document.improvements, 0);
  assert.equal(document.metrics.find((m) => m.kind === 'http' && m.metric === 'throughput')?.verdict, 'inconclusive');
  assert.equal(buildVerdicts(results, analysis).metrics.find((m) => m.kind === 'http' && m.metric === 'throughput')?.verdict, 'improvement');
});

test('the counts say which inconclusive rows the gate weighed: a quiet pass with only ungated ones says "none gated"', () => {
  const row = (verdict: 'unchanged' | 'inconclusive', gated: boolean) => ({ verdict, gated });
  assert.equal(
    describeCounts(countVerdicts([row('unchanged', true), row('unchanged', true), row('inconclusive', false), row('inconclusive', false)])),
    '0 regressions · 0 improvements · 2 unchanged · 2 inconclusive (none gated)',
  );
  assert.equal(
    describeCounts(countVerdicts([row('inconclusive', true), row('inconclusive', false), row('inconclusive', false)])),
    '0 regressions · 0 improvements · 0 unchanged · 3 inconclusive (1 gated)',
  );
  assert.equal(describeCounts(countVerdicts([row('inconclusive', true)])), '0 regressions · 0 improvements · 0 unchanged · 1 inconclusive');
});

test('a head that fails requests is no health improvement either: fewer GCs on its error page count as not comparable', () => {
  // Head collects garbage for a quarter of base's time per request, as an error page would.
  const results = healthResults(20, { base: HEALTHY, head: { ...HEALTHY, gcMsPer1k: 0.2 } }, { noise: 0.01 });
  const gcRow = (text: string) => text.split('\n').find((l) => l.startsWith('| GET /hello | GC / 1k requests') || l.startsWith('|  | GC / 1k requests')) ?? '';
  const serving = assessResults(results);
  assert.match(gcRow(renderMarkdown(results, serving)), /✅ improvement/, 'head answers every request: a real improvement');
  assert.match(describeCounts(countVerdicts(allComparisons(serving))), /[1-9]\d* improvements?/);
  for (const pair of results.scenarios[0]!.pairs) {
    pair.head.non2xx = Math.round(pair.head.requests / 4);
    pair.head.statuses = { '404': pair.head.non2xx };
  }
  const failing = assessResults(results);
  const gc = failing.health!.comparisons.find((c) => c.metric === 'gc_per_request')!;
  assert.deepEqual([gc.verdict, gc.headFails], ['inconclusive', true], 'the assessment decides it once, for every reader');
  assert.match(gcRow(renderMarkdown(results, failing)), /❔ not comparable: head fails requests/);
  assert.match(describeCounts(countVerdicts(allComparisons(failing))), /· 0 improvements ·/);
});
