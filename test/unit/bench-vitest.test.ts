/**
 * vitest bench's JSON report, as perfgate reads it: a report vitest 4.1 wrote for a file with a
 * describe() (one bench that works, one that throws) and a bench() outside it, plus a second
 * file that vitest's substring filter let in. (The whole run is test/integration/bench-vitest.test.ts.)
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { describeFailure } from '../../src/engine/phases/bench/runner.js';
import { parseVitestReport } from '../../src/engine/phases/bench/vitest.js';
import { FIXTURES } from '../helpers/repo.js';

const copy = { version: '4.1.12', path: '/project/node_modules/vitest', bin: '/project/node_modules/vitest/vitest.mjs' };
const report = readFileSync(join(FIXTURES, 'bench', 'vitest-report.json'), 'utf8');
const ok = { code: 0, signal: null, timedOut: false };

test('each bench of the file asked for becomes one record: its describe() as suite, hz as ops/s', () => {
  const capture = parseVitestReport(report, '/project/bench/t.bench.ts', 'bench/t.bench.ts', copy);
  assert.deepEqual(capture.libraries, [{ name: 'vitest', version: '4.1.12', path: copy.path, unsupported: null }]);
  const shown = capture.benchmarks.map((b) => [b.suite, b.name, b.opsPerSec !== null, b.error !== null]);
  assert.deepEqual(shown, [
    [null, 'alone', true, false],
    ['math', 'sqrt', true, false],
    ['math', 'throws', false, true],
  ]);
  const sqrt = capture.benchmarks[1]!;
  assert.ok(sqrt.opsPerSec! > 1e6 && sqrt.sampleCount > 1000 && sqrt.rme! > 0);
  assert.equal(sqrt.stats?.['samples'], undefined, 'samples are not stored twice');
  assert.match(capture.benchmarks[2]!.error!, /vitest measured no ops\/s for it .*throws/);
  assert.equal(describeFailure(ok, capture, 60_000), null, 'a file with one working bench is a working process');
});

test('a report without the file, or no report at all, is a failure that names vitest and its include', () => {
  for (const content of ['', '{"files":[]}', 'not json', '{"files":[{"filepath":3,"groups":"x"}]}']) {
    const capture = parseVitestReport(content, '/project/bench/x.bench.ts', 'bench/x.bench.ts', copy);
    assert.deepEqual(capture.benchmarks, [], content);
    assert.match(describeFailure(ok, capture, 60_000)!, /^ran with vitest 4\.1\.12, whose report has no benchmark of this file \(does vitest's benchmark\.include match its name/);
  }
});
