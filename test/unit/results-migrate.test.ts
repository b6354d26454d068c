// Every results.json is read through one migration (src/results/migrate.ts): a file from an
// earlier release gets the current shape, a file from a later one is refused with what to do.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { DEFAULT_GATE, DEFAULT_HEAP_GROWTH } from '../../src/config/defaults.js';
import { GATE_KEYS } from '../../src/config/types.js';
import { ResultsFileError, readResults } from '../../src/results/io.js';
import { upgradeResults } from '../../src/results/migrate.js';
import { RESULTS_VERSION } from '../../src/results/types.js';
import { validateResults } from '../../src/results/validate.js';
import { VERSION } from '../../src/version.js';
import { regressedPairs } from '../helpers/github-runs.js';
import { processHealth } from '../helpers/health.js';
import { ROOT } from '../helpers/repo.js';
import { resultsFromPairs } from '../helpers/results.js';

const FIXTURE = join(ROOT, 'test/fixtures/results/v0.1-calibration-5pct.json');
// biome-ignore lint/suspicious/noExplicitAny: an old file is loose JSON
type Loose = Record<string, any>;
const raw = (): Loose => JSON.parse(readFileSync(FIXTURE, 'utf8'));

function writeTemp(value: unknown): string {
  const path = join(mkdtempSync(join(tmpdir(), 'perfgate-migrate-')), 'results.json');
  writeFileSync(path, JSON.stringify(value));
  return path;
}

describe('a perfgate 0.1 results.json', () => {
  test('is read with what 0.1 did not record filled in: one start per block, alternating, no pinning, default rules', () => {
    const before = raw();
    const results = readResults(FIXTURE);
    for (const pair of results.scenarios[0]!.pairs) assert.equal(pair.start, pair.block);
    assert.deepEqual(results.config.load, { ...before.config.load, instances: 1, mode: 'alternate', pin: 'off' });
    assert.equal(results.config.service.setup, null);
    assert.equal(results.config.scenarios[0]!.rate, null);
    assert.equal(results.config.scenarios[0]!.expect, null);
    assert.equal(results.config.profile.when, 'always');
    assert.equal(results.config.profile.enabled, false);
    // The rules 0.1 wrote are kept; the ones it did not have are this release's defaults.
    assert.deepEqual(results.config.gate.throughput, { limit: 0.05, gated: true });
    for (const key of GATE_KEYS) {
      assert.deepEqual(results.config.gate[key], before.config.gate[key] ?? DEFAULT_GATE[key], key);
    }
    assert.deepEqual(results.config.gate.heap_growth, DEFAULT_HEAP_GROWTH);
  });

  test('passes validation as strict as report mode\'s, and validation gives what reading gives', () => {
    assert.deepEqual(validateResults(raw(), 'the fixture'), readResults(FIXTURE));
  });

  test('health data without I/O counts (before they were recorded) reads as none counted', () => {
    const results = resultsFromPairs(regressedPairs()) as unknown as Loose;
    const { io: _io, ioRequests: _requests, queries: _queries, ...older } = processHealth();
    results.scenarios[0].pairs[0].head.health = { requestsSinceStart: 100, missing: 0, processes: [older] };
    const read = readResults(writeTemp(results));
    const process = read.scenarios[0]!.pairs[0]!.head.health!.processes[0]!;
    assert.deepEqual([process.io, process.ioRequests, process.queries], [[], 0, []]);
  });

  test('I/O counts without named calls (before they were recorded) read as none named', () => {
    const results = resultsFromPairs(regressedPairs()) as unknown as Loose;
    const { queries: _queries, ...older } = processHealth({ io: [{ destination: '127.0.0.1:6379', roundTrips: 9, waitMs: 1 }], ioRequests: 9 });
    results.scenarios[0].pairs[0].head.health = { requestsSinceStart: 100, missing: 0, processes: [older] };
    const process = readResults(writeTemp(results)).scenarios[0]!.pairs[0]!.head.health!.processes[0]!;
    assert.deepEqual([process.io.length, process.queries], [1, []]);
  });
});

describe('the current shape', () => {
  test('passes through the migration unchanged', () => {
    const results = resultsFromPairs(regressedPairs());
    assert.deepEqual(upgradeResults(structuredClone(results), 'results.json'), results);
  });

  test('keys this release does not know are dropped by validation, not refused', () => {
    const results = resultsFromPairs(regressedPairs()) as unknown as Loose;
    results.fromLater = { anything: true };
    results.scenarios[0].pairs[0].head.fromLater = 1;
    const valid = validateResults(results, 'results.json') as unknown as Loose;
    assert.equal('fromLater' in valid, false);
    assert.equal('fromLater' in valid.scenarios[0].pairs[0].head, false);
  });
});

describe('versions this perfgate cannot read', () => {
  test('a later version names both versions, the release that wrote it, and the fix', () => {
    const results = resultsFromPairs(regressedPairs()) as unknown as Loose;
    results.version = RESULTS_VERSION + 1;
    results.tool.version = '9.1.0';
    const path = writeTemp(results);
    for (const read of [() => readResults(path), () => validateResults(structuredClone(results), 'the results artifact of run 7')]) {
      assert.throws(read, (e) => {
        assert.ok(e instanceof ResultsFileError);
        assert.match(e.message, new RegExp(`has results version ${RESULTS_VERSION + 1} \\(written by perfgate 9\\.1\\.0\\)`));
        assert.ok(e.message.includes(`this perfgate (${VERSION}) reads versions up to ${RESULTS_VERSION}`), e.message);
        assert.match(e.message, /Upgrade perfgate to 9\.1\.0 or later to report it\.$/);
        return true;
      });
    }
  });

  test('a later version with a forged tool version does not echo it', () => {
    const results = resultsFromPairs(regressedPairs()) as unknown as Loose;
    results.version = RESULTS_VERSION + 1;
    results.tool.version = '<img src=x> @org/team';
    assert.throws(() => validateResults(results, 'artifact'), (e) => e instanceof ResultsFileError && !/<img|@org/.test(e.message));
  });

  test('a version that is not a whole number from 1 is refused as no known version', () => {
    for (const version of [0, -1, 1.5, '1', null, undefined]) {
      const results = resultsFromPairs(regressedPairs()) as unknown as Loose;
      results.version = version;
      assert.throws(
        () => readResults(writeTemp(results)),
        (e) => e instanceof ResultsFileError && /has no results version this perfgate knows/.test(e.message),
        String(version),
      );
    }
  });
});
