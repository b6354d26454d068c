/**
 * The Assessment: one list of comparisons tagged by subject and kind, one Holm family over the
 * gated ones whatever their kind, and each profiled scenario's culprit found once, the one the
 * reports, verdicts.json and the annotations all name.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { culpritAnnotations } from '../../src/action/annotations.js';
import { assessResults } from '../../src/assess/compare.js';
import { scenarioSubject } from '../../src/assess/read.js';
import { buildVerdicts } from '../../src/assess/verdicts.js';
import { renderMarkdown } from '../../src/report/markdown.js';
import { renderTerminal } from '../../src/report/terminal.js';
import type { PairedComparison } from '../../src/results/types.js';
import { holmAdjust } from '../../src/stats/holm.js';
import { HEALTHY, healthResults } from '../helpers/health.js';
import { fixtureScenarioProfile } from '../helpers/profiles.js';
import { resultsFromPairs } from '../helpers/results.js';

/** A head that blocks its loop: HTTP and service-health comparisons of one scenario, and its heap growth. */
const blocking = () => healthResults(20, { base: HEALTHY, head: { ...HEALTHY, delayP99Us: 48_000, delayMaxUs: 480_000 } });

describe('the assessment', () => {
  it('lists every comparison once, tagged with its scenario and kind', () => {
    const assessment = assessResults(blocking());
    const of = (kind: string) => assessment.all.filter((e) => e.kind === kind);
    assert.equal(of('http').length, assessment.comparisons.length);
    assert.equal(of('health').length, assessment.health!.comparisons.length);
    assert.equal(of('heap').length, assessment.health!.heap.length);
    assert.ok(of('health').length > 0 && of('heap').length > 0);
    for (const entry of assessment.all) {
      assert.equal(entry.subject.type, 'scenario');
      if (entry.subject.type === 'scenario') assert.equal(entry.subject.scenario, 'GET /hello');
    }
  });

  it('holds HTTP and health metrics to one Holm family: each gated p adjusted against all of them', () => {
    const assessment = assessResults(blocking());
    const paired = assessment.all.flatMap((e) => (e.kind === 'http' || e.kind === 'health' ? [{ kind: e.kind, c: e.comparison as PairedComparison }] : []));
    // p = 1: a comparison whose every unit is 0 (the errors of two clean sides) can never be rejected and is left out
    const members = paired.filter(({ c }) => c.gated && c.p < 1);
    assert.deepEqual([...new Set(members.map((m) => m.kind))], ['http', 'health'], 'both kinds are in the one family');
    const family = members.map((m) => m.c);
    assert.deepEqual(
      family.map((c) => c.pAdjusted),
      holmAdjust(family.map((c) => c.p)),
    );
    for (const { c } of paired.filter(({ c }) => !c.gated)) assert.equal(c.pAdjusted, c.p, 'an informational metric keeps its own p');
  });

  it('finds a profiled scenario’s culprit once: the reports, verdicts.json and the annotations name that one', () => {
    const results = resultsFromPairs(Array.from({ length: 12 }, (_, i): [number, number] => [1000 + (i % 3) * 7, 420 + (i % 4) * 5]));
    results.profiles = [fixtureScenarioProfile()];
    results.changes = { since: '0'.repeat(40), files: [{ file: 'src/payload.js', hunks: [[12, 1]] }] };
    const assessment = assessResults(results);
    const culprit = scenarioSubject(assessment, 'GET /hello')!.profile!.culprit!;
    assert.match(culprit.text, /^most new time in slowEtag \(src\/payload\.js:10, changed by this PR\)/);
    assert.equal(buildVerdicts(results, assessment).worst?.culprit?.text, culprit.text);
    assert.ok(renderMarkdown(results, assessment).includes(culprit.text));
    assert.ok(renderTerminal(results, assessment).includes(culprit.text));
    assert.deepEqual(
      culpritAnnotations(results, assessment).map((a) => `${a.file}:${a.line}`),
      [`${culprit.fn.file}:${culprit.fn.line}`],
    );
  });
});
