import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ConfigError, parseConfigText, resolveConfig } from '../../src/config/index.js';
import { buildOverrides } from '../../src/config/options.js';
import { SNIPPETS } from '../../scripts/write-schema.js';

function problems(document: unknown, overrides?: unknown): string {
  try {
    resolveConfig({ document, overrides });
  } catch (error) {
    assert.ok(error instanceof ConfigError);
    return error.message;
  }
  assert.fail('the configuration resolved, but it should not have');
}

const DEFAULTS = { rounds: 10, timeoutMs: 120_000, budgetMs: 900_000 };

test('benchmarks: a glob, a list of globs, or a mapping; every form gets the defaults', () => {
  assert.deepEqual(resolveConfig({ document: { benchmarks: 'bench/*.bench.js' } }).benchmarks, {
    files: ['bench/*.bench.js'],
    ...DEFAULTS,
  });
  assert.deepEqual(resolveConfig({ document: { benchmarks: ['./bench/*.js', 'x/**/*.mjs'] } }).benchmarks, {
    files: ['bench/*.js', 'x/**/*.mjs'],
    ...DEFAULTS,
  });
  assert.deepEqual(
    resolveConfig({ document: { benchmarks: { files: 'a/*.js', rounds: 12, timeout: '30s', budget: '5m' } } }).benchmarks,
    { files: ['a/*.js'], rounds: 12, timeoutMs: 30_000, budgetMs: 300_000 },
  );
  assert.equal(resolveConfig({ document: { service: { start: 'x' }, scenarios: ['/'] } }).benchmarks, null);
  assert.equal(resolveConfig({ document: { service: { start: 'x' }, scenarios: ['/'], benchmarks: null } }).benchmarks, null);
});

test('a benchmarks-only project needs neither service.start nor scenarios', () => {
  const config = resolveConfig({ document: parseConfigText('benchmarks: bench/**/*.bench.js\n', 'perfgate.yml') });
  assert.equal(config.service.start, null);
  assert.deepEqual(config.scenarios, []);
  assert.deepEqual(config.gate.benchmarks, { limit: 0.1, gated: true }, 'gated at 10% by default');
  // with scenarios, the service must still be started
  assert.equal(
    problems({ benchmarks: 'b/*.js', scenarios: ['GET /'] }),
    'service.start is required: set it in perfgate.yml or pass --start / the start input',
  );
});

test('gate.benchmarks takes the same rules as the HTTP metrics', () => {
  const gate = (rule: unknown) => resolveConfig({ document: { benchmarks: 'b/*.js', gate: { benchmarks: rule } } }).gate.benchmarks;
  assert.deepEqual(gate('5%'), { limit: 0.05, gated: true });
  assert.deepEqual(gate('off'), { limit: 0.1, gated: false });
  assert.deepEqual(gate({ limit: '20%', gated: false }), { limit: 0.2, gated: false });
});

test('bad values name the key, the value and what is allowed', () => {
  assert.deepEqual(problems({ benchmarks: { files: [], rounds: 3, timeout: 'x', budget: '3h' } }).split('\n'), [
    'perfgate.yml: benchmarks.files: [] is empty; list at least one glob, e.g. "- bench/**/*.bench.js"',
    'perfgate.yml: benchmarks.rounds: 3 is not allowed; use an integer from 6 to 1000 (with n rounds the smallest possible p is 1/2^n, and 6 give 0.016)',
    'perfgate.yml: benchmarks.timeout: "x" is not a duration; write e.g. 500ms, 1s, 2m (a bare number is seconds)',
    'perfgate.yml: benchmarks.budget: "3h" is not a duration; write e.g. 500ms, 1s, 2m (a bare number is seconds)',
  ]);
  assert.equal(
    problems({ benchmarks: '/abs/*.js' }),
    'perfgate.yml: benchmarks: "/abs/*.js" is absolute; write a glob relative to the service directory, e.g. bench/**/*.bench.js',
  );
  assert.equal(
    problems({ benchmarks: ['ok/*.js', '../up/*.js'] }),
    'perfgate.yml: benchmarks[1]: "../up/*.js" is outside the repository; write a glob inside it, e.g. bench/**/*.bench.js',
  );
  assert.equal(
    problems({ benchmarks: 42 }),
    'perfgate.yml: benchmarks: 42 is not a benchmarks setting; write a glob (bench/**/*.bench.js), a list of globs, or a mapping with files',
  );
  assert.equal(
    problems({ benchmarks: { rounds: 10 } }),
    'benchmarks.files is required: a glob or a list of globs, e.g. bench/**/*.bench.js',
  );
  assert.match(problems({ benchmarks: { files: 'a/*.js', round: 10 } }), /benchmarks\.round is not a known key; did you mean "rounds"\?/);
});

test('neither scenarios nor benchmarks: both ways out are named', () => {
  assert.deepEqual(problems({}).split('\n'), [
    'service.start is required: set it in perfgate.yml or pass --start / the start input',
    'scenarios is required: list at least one in perfgate.yml (e.g. "- GET /hello") or pass --scenario / the scenarios input; or list micro-benchmark files under benchmarks',
  ]);
});

test('flags and inputs: globs replace the files and keep the file’s other benchmarks keys', () => {
  const overrides = buildOverrides({ benchmarks: ['bench/x.js', ' '], 'benchmark-rounds': '12', 'benchmarks-limit': '5%' });
  assert.deepEqual(overrides, { benchmarks: { files: ['bench/x.js'], rounds: 12 }, gate: { benchmarks: '5%' } });
  const config = resolveConfig({
    document: { benchmarks: { files: 'bench/*.js', timeout: '10s' } },
    overrides,
  });
  assert.deepEqual(config.benchmarks, { files: ['bench/x.js'], rounds: 12, timeoutMs: 10_000, budgetMs: 900_000 });
  assert.deepEqual(config.gate.benchmarks, { limit: 0.05, gated: true });
});

test('the reference snippet resolves', () => {
  const config = resolveConfig({ document: parseConfigText(SNIPPETS.benchmarks, 'perfgate.yml') });
  assert.deepEqual(config.benchmarks, { files: ['bench/*.bench.js', 'bench/*.bench.ts'], rounds: 12, timeoutMs: 60_000, budgetMs: 600_000 });
});
