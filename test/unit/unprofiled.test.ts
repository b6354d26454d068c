import assert from 'node:assert/strict';
import { test } from 'node:test';
import { assessResults } from '../../src/assess/compare.js';
import { unprofiledScenarios } from '../../src/assess/look.js';
import { scenarioMoved, scenarioUnchanged } from '../../src/assess/read.js';
import { describeProfilesSkipped } from '../../src/report/document/function-words.js';
import type { Results } from '../../src/results/types.js';
import { resultsFromPairs } from '../helpers/results.js';

const STARTS = 24;
/** A scenario's throughput pairs: head × factor, with ±spread of noise alternating over the start pairs. */
const pairs = (factor: number, spread: number): [number, number][] =>
  Array.from({ length: STARTS }, (_, i) => {
    const noise = 1 + spread * (i % 2 ? 1 : -1) * ((i % 5) + 1) / 5;
    return [1000, 1000 * factor * noise];
  });

/** Results of three scenarios, each from its own throughput pairs. */
function threeScenarios(spec: Record<string, [number, number]>): Results {
  const names = Object.keys(spec);
  const results = resultsFromPairs(pairs(1, 0), { scenarios: names });
  results.scenarios = names.map((name, i) => {
    const [factor, spread] = spec[name]!;
    const one = resultsFromPairs(pairs(factor, spread)).scenarios[0]!;
    const [method, path] = name.split(' ');
    return { ...one, name, method: method!, path: path!, pairs: one.pairs.map((p) => ({ ...p, index: p.index + i * STARTS })) };
  });
  return results;
}

test('profile.when: changed leaves out the unchanged scenarios, and the undecided ones beside a scenario that moved', () => {
  const results = threeScenarios({ 'GET /slow': [0.7, 0.01], 'GET /noisy': [0.99, 0.2], 'GET /same': [1, 0.001] });
  const analysis = assessResults(results);
  assert.ok(scenarioMoved(analysis, 'GET /slow'), 'the 30% drop regressed');
  assert.ok(!scenarioMoved(analysis, 'GET /noisy') && !scenarioUnchanged(analysis, 'GET /noisy'), 'the noisy route is undecided');
  assert.ok(scenarioUnchanged(analysis, 'GET /same'));
  assert.deepEqual(unprofiledScenarios(results), ['GET /noisy', 'GET /same'], 'only the route that moved is profiled');

  // The report says why each was left out.
  results.profilesSkipped = unprofiledScenarios(results);
  assert.equal(
    describeProfilesSkipped(results, analysis),
    'Not profiled, every verdict unchanged: GET /same; no decided change for a CPU profile to explain while another scenario has one: GET /noisy (profile.when: always profiles every scenario)',
  );
});

test('a heap verdict alone is no change for a CPU profile to explain, though it keeps the scenario from reading unchanged', () => {
  const results = threeScenarios({ 'GET /slow': [0.7, 0.01], 'GET /noisy': [0.99, 0.2], 'GET /same': [1, 0.001] });
  const analysis = assessResults(results);
  const heap = { scenario: 'GET /same', gated: false, verdict: 'improvement' } as unknown as NonNullable<typeof analysis.health>['heap'][number];
  const withHeap = { ...analysis, health: { ...(analysis.health ?? { comparisons: [], hints: [], failing: [] }), heap: [heap] } } as typeof analysis;
  assert.ok(!scenarioMoved(withHeap, 'GET /same'));
  assert.ok(!scenarioUnchanged(withHeap, 'GET /same'));
});

test('profile.when: changed profiles the undecided scenarios when none moved: they are the open question', () => {
  const results = threeScenarios({ 'GET /a': [1, 0.001], 'GET /noisy': [0.99, 0.2], 'GET /b': [1, 0.001] });
  assert.deepEqual(unprofiledScenarios(results), ['GET /a', 'GET /b']);
});
