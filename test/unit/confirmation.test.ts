/**
 * The third arm's finding from its pairs, and its words: a revert that gives the drop back is
 * confirmed; one that gives back little explains little; a skipped one says why. Known truth:
 * throughput pairs built to the ratio each case needs.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { assessResults } from '../../src/assess/compare.js';
import { culpritAnnotations } from '../../src/action/annotations.js';
import { describeConfirmation, scenarioConfirmation } from '../../src/report/confirmation.js';
import type { Confirmation, Pair, Results } from '../../src/results/types.js';
import { confirmTargets, nextConfirmTarget } from '../../src/assess/look.js';
import { buildVerdicts } from '../../src/assess/verdicts.js';
import { renderMarkdown, renderTerminal } from '../../src/report/index.js';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describeRevertFailed } from '../../src/results/errors.js';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fixtureScenarioProfile } from '../helpers/profiles.js';
import { ROOT } from '../helpers/repo.js';
import { resultsFromPairs, slice } from '../helpers/results.js';

/** Twelve start pairs, base at ~1000 req/s, head 35% slower: a gated regression. */
function failingRun(): Results {
  return resultsFromPairs(Array.from({ length: 12 }, (_, i) => [1000 + (i % 3) * 5, 650 + (i % 4) * 3]));
}

/** The arm's record: reverted head at `reverted` req/s against head at 650. */
function arm(reverted: (i: number) => number, status: Confirmation['status'] = 'measured', reason: string | null = null): Confirmation {
  const pairs = Array.from({ length: 12 }, (_, i): Pair => ({ block: 0, start: i, index: i, order: ['base', 'head'], base: slice('base', reverted(i)), head: slice('head', 650 + (i % 4) * 3) }));
  return {
    scenario: 'GET /hello',
    culprit: { name: 'resolvePermissions', file: 'server.js', line: 25, endLine: 30, package: null },
    status,
    reason,
    reverted: status === 'measured' ? { file: 'server.js', hunks: 1 } : null,
    pairs: status === 'measured' ? pairs : [],
    wallMs: 41_000,
  };
}

function finding(results: Results) {
  const subject = assessResults(results).subjects.find((s) => s.type === 'scenario');
  assert.ok(subject?.type === 'scenario');
  return subject.confirmation;
}

test("a revert that restores base's speed gives back the drop: confirmed, with its interval", () => {
  const results = { ...failingRun(), confirmations: [arm((i) => 995 + (i % 3) * 7)] };
  const found = finding(results)!;
  assert.equal(found.status, 'confirmed');
  assert.ok(found.givenBack!.estimate > 0.9 * found.points!, JSON.stringify(found));
  assert.ok(found.givenBack!.low > found.points! / 2);
  assert.match(describeConfirmation(found)!, /^reverting this PR's change to resolvePermissions gives back [\d.]+ of the 3\d\.\d points \(95% CI [\d.]+ … [\d.]+\): confirmed$/);
});

test('a revert measured faster than base gives back all of the drop, said with the figure measured', () => {
  const found = finding({ ...failingRun(), confirmations: [arm((i) => 1400 + (i % 3) * 7)] })!;
  assert.equal(found.status, 'confirmed');
  assert.match(describeConfirmation(found)!, /^reverting this PR's change to resolvePermissions gives back all of the 3\d\.\d points \(measured [\d.]+; 95% CI [\d.]+ … [\d.]+\): confirmed$/);
});

test('a revert that changes almost nothing explains little of the drop', () => {
  const results = { ...failingRun(), confirmations: [arm((i) => 660 + (i % 3) * 4)] };
  const found = finding(results)!;
  assert.equal(found.status, 'explains-little');
  assert.match(describeConfirmation(found)!, /gives back [\d.]+ of the 3\d\.\d points \(95% CI −?[\d.]+ … [\d.]+\): resolvePermissions explains little of this drop$/);
});

test("a reverted head that answers errors, fast, is not a revert of the function: said as not tested, never 'confirmed'", () => {
  // Base's handler read a cache head no longer builds at start-up: the reverted head answers 500s, three times as fast.
  const record = arm((i) => 3000 + i);
  for (const pair of record.pairs) pair.base = { ...pair.base, non2xx: pair.base.requests };
  const found = finding({ ...failingRun(), confirmations: [record] })!;
  assert.equal(found.status, 'skipped');
  assert.match(describeConfirmation(found)!, /^not tested by a revert: the reverted head failed 100(\.0)?% of its requests \(head 0(\.0)?%\): the function's old lines need what this PR changed elsewhere/);
});

test('a revert that could not be applied says why, where the culprit is named', () => {
  const results = { ...failingRun(), confirmations: [arm(() => 0, 'skipped', 'could not revert resolvePermissions (server.js:25–30): git apply -R refused this PR\'s 1 hunk(s) in it: error: server.js: patch does not apply')] };
  assert.equal(finding(results)!.status, 'skipped');
  assert.equal(scenarioConfirmation(assessResults(results), 'GET /hello'), "not tested by a revert: could not revert resolvePermissions (server.js:25–30): git apply -R refused this PR's 1 hunk(s) in it: error: server.js: patch does not apply");
});

test('without a third arm nothing is said, and the annotations are as before', () => {
  const results = failingRun();
  assert.equal(finding(results), null);
  assert.equal(scenarioConfirmation(assessResults(results), 'GET /hello'), null);
  assert.deepEqual(culpritAnnotations(results, assessResults(results)), []);
});

/** The failing run with a profile whose culprit is slowEtag, a function this PR changed. */
function profiledFailingRun(): Results {
  const results = failingRun();
  results.profiles = [fixtureScenarioProfile()];
  results.changes = { since: '0'.repeat(40), files: [{ file: 'src/payload.js', hunks: [[12, 1]] }] };
  return results;
}

test('the third arm tests the culprit of a failing scenario only: never on a pass (A/A), nor with profile.confirm off', () => {
  const failing = profiledFailingRun();
  assert.deepEqual(
    confirmTargets(failing).map((t) => [t.scenario, t.culprit.name, t.culprit.file, t.culprit.package]),
    [['GET /hello', 'slowEtag', 'src/payload.js', null]],
  );
  const same = resultsFromPairs(Array.from({ length: 12 }, (_, i): [number, number] => [1000 + (i % 3) * 5, 1000 + (i % 4) * 4]));
  same.profiles = [fixtureScenarioProfile()];
  same.changes = failing.changes;
  assert.equal(assessResults(same).decision, 'pass');
  assert.deepEqual(confirmTargets(same), []);
  assert.deepEqual(confirmTargets({ ...failing, config: { ...failing.config, profile: { ...failing.config.profile, confirm: false } } }), []);
});

test('the finding is said after the culprit in the headline, the comment, verdicts.json and the annotation', () => {
  const run = profiledFailingRun();
  const results = { ...run, confirmations: [{ ...arm((i) => 995 + (i % 3) * 7), culprit: { name: 'slowEtag', file: 'src/payload.js', line: 10, package: null } }] };
  const assessment = assessResults(results);
  const said = /reverting this PR's change to slowEtag gives back [\d.]+ of the 3\d\.\d points \(95% CI [\d.]+ … [\d.]+\): confirmed/;
  assert.match(renderTerminal(results, assessment).split('\n').slice(0, 3).join('\n'), said);
  assert.match(renderMarkdown(results, assessment).replace(/\\(.)/g, '$1'), said);
  const document = buildVerdicts(results, assessment);
  const validate = new Ajv2020({ allErrors: true, strict: false }).compile(JSON.parse(readFileSync(join(ROOT, 'docs', 'verdicts.schema.json'), 'utf8')));
  assert.ok(validate(JSON.parse(JSON.stringify(document))), JSON.stringify(validate.errors));
  const verdict = document.worst?.culprit?.confirmation;
  assert.equal(verdict?.status, 'confirmed');
  assert.equal(verdict?.pairs, 12);
  assert.ok(verdict!.givenBack! > 0.9 * verdict!.points!);
  assert.match(culpritAnnotations(results, assessment)[0]!.message, said);
});

/** The profiled run's first arm on slowEtag, reverted head at `reverted` req/s; this PR also changed the handler at server.js:8. */
function firstArmRun(reverted: (i: number) => number): Results {
  const run = profiledFailingRun();
  run.changes!.files.push({ file: 'server.js', hunks: [[8, 1]] });
  return { ...run, confirmations: [{ ...arm(reverted), culprit: { name: 'slowEtag', file: 'src/payload.js', line: 10, endLine: 16, package: null } }] };
}

test("when the first culprit's revert explains little, the next own function this PR changed is tried; a confirmed one ends it", () => {
  const little = firstArmRun((i) => 660 + (i % 3) * 4);
  assert.deepEqual(nextConfirmTarget(little, 'GET /hello'), { name: '(anonymous server.js:7:17)', file: 'server.js', line: 7, endLine: 11, package: null });
  assert.equal(nextConfirmTarget(firstArmRun((i) => 995 + (i % 3) * 7), 'GET /hello'), null, 'a confirmed culprit needs no other');
  // the handler's arm tried too: no changed own function that grew is left
  const both = { ...little, confirmations: [...little.confirmations!, { ...arm((i) => 900 + (i % 3) * 4), culprit: nextConfirmTarget(little, 'GET /hello')! }] };
  assert.equal(nextConfirmTarget(both, 'GET /hello'), null);
});

test('two arms: the report says what each revert gives back, and what neither does', () => {
  const little = firstArmRun((i) => 660 + (i % 3) * 4);
  const both = { ...little, confirmations: [...little.confirmations!, { ...arm((i) => 900 + (i % 3) * 4), culprit: nextConfirmTarget(little, 'GET /hello')! }] };
  // The anonymous handler is named as the profile names it, not by V8's "(anonymous server.js:7:17)".
  const said = scenarioConfirmation(assessResults(both), 'GET /hello')!;
  assert.match(
    said,
    /^reverting this PR's change to slowEtag gives back [\d.]+ of the 3\d\.\d points \([^)]*\): slowEtag explains little of this drop; the next culprit: reverting this PR's change to arrow at top level gives back 2\d\.\d of the 3\d\.\d points \([^)]*\): confirmed; together the two reverts give back 2\d\.\d of the 3\d\.\d points; the other [\d.]+ are in neither culprit$/,
  );
  assert.match(renderTerminal(both, assessResults(both)).split('\n').slice(0, 3).join('\n'), /the next culprit: reverting this PR's change to arrow at top level gives back/);
  const document = buildVerdicts(both, assessResults(both));
  const validate = new Ajv2020({ allErrors: true, strict: false }).compile(JSON.parse(readFileSync(join(ROOT, 'docs', 'verdicts.schema.json'), 'utf8')));
  assert.ok(validate(JSON.parse(JSON.stringify(document))), JSON.stringify(validate.errors));
  assert.equal(document.worst?.culprit?.confirmation?.status, 'explains-little');
  assert.deepEqual([document.worst?.culprit?.nextConfirmation?.function, document.worst?.culprit?.nextConfirmation?.status], ['(anonymous server.js:7:17)', 'confirmed']);
});

test("a revert that failed where none of head's requests had finished yet says so, not NaN%", () => {
  assert.match(describeRevertFailed(1, 0), /the reverted head failed 100% of its requests \(head 0%\)/);
  const text = describeRevertFailed(1, Number.NaN);
  assert.match(text, /the reverted head failed 100% of its requests \(head: no request finished yet\)/);
  assert.doesNotMatch(text, /NaN/);
});
