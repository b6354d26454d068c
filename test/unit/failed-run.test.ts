import assert from 'node:assert/strict';
import { test } from 'node:test';
import { keptResultsLine, ScenarioError } from '../../src/engine/errors.js';

const failed = (measured: number | undefined, resultsPath?: string) => Object.assign(new ScenarioError('route fails'), { measured, resultsPath });

test('a failed run says its pairs are kept only when some were measured, and that nothing was otherwise', () => {
  assert.equal(keptResultsLine(failed(3, '.perfgate/results.json')), 'The pairs measured before the error are kept in .perfgate/results.json');
  const none = keptResultsLine(failed(0, '.perfgate/results.json'));
  assert.match(none!, /^Nothing was measured before the error; .* are in \.perfgate\/results\.json$/);
  assert.doesNotMatch(none!, /pairs measured/);
  assert.equal(keptResultsLine(failed(undefined)), null, 'a run that never started wrote no file to point to');
});
