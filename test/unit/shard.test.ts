import assert from 'node:assert/strict';
import { test } from 'node:test';
import { resolveConfig } from '../../src/config/load.js';
import { ConfigError } from '../../src/config/errors.js';
import { mergeShards, ShardMismatchError } from '../../src/compare/merge.js';
import { ownBenchmarks, parseShard, sharedSeed, shardConfig, shardRecordOf } from '../../src/compare/shard.js';
import { configHash } from '../../src/results/config-hash.js';
import { validateResults } from '../../src/results/validate.js';
import type { Results } from '../../src/results/types.js';
import { resultsFromPairs } from '../helpers/results.js';

const config = resolveConfig({
  document: { service: { start: 'node s.js' }, scenarios: ['GET /a', 'GET /b', 'GET /c', 'GET /d', 'GET /e'], alpha: 0.05 },
});

test('shard i/n: parsed, or refused with a message that names the fix', () => {
  assert.deepEqual(parseShard('2/3'), { index: 2, count: 3 });
  assert.deepEqual(parseShard(' 1 / 1 '), { index: 1, count: 1 });
  assert.throws(() => parseShard('4/3'), (e: Error) => e instanceof ConfigError && /shard 4\/3: i must be 1\.\.n/.test(e.message));
  assert.throws(() => parseShard('0/3'), /shard 0\/3: i must be 1\.\.n/);
  assert.throws(() => parseShard('two'), /"two" is not a shard; write i\/n/);
  assert.throws(() => parseShard('1/0'), /n must be 1\.\.64/);
});

test('every shard deals the same partition: round-robin in config order, disjoint, covering, alpha/n each', () => {
  const parts = [1, 2, 3].map((index) => shardConfig(config, { index, count: 3 }));
  assert.deepEqual(parts.map((c) => c.scenarios.map((s) => s.name)), [['GET /a', 'GET /d'], ['GET /b', 'GET /e'], ['GET /c']]);
  for (const part of parts) assert.equal(part.alpha, 0.05 / 3);
  // The record names the whole configuration, so the merge can tell shards of one matrix.
  const records = [1, 2, 3].map((index) => shardRecordOf(config, { index, count: 3 }));
  assert.equal(new Set(records.map((r) => r.fullConfigHash)).size, 1);
  assert.equal(records[0]!.fullConfigHash, configHash(config));
  // The default gate: throughput, p99 latency, errors and event-loop delay p99 per scenario, over all 5 scenarios.
  assert.equal(records[0]!.gatedMetrics, 4 * 5);
  assert.equal(sharedSeed(records[0]!.fullConfigHash, 'a', 'b'), sharedSeed(records[2]!.fullConfigHash, 'a', 'b'));
  assert.throws(() => shardConfig(config, { index: 6, count: 6 }), /shard 6\/6: .*5 scenario\(s\) and no benchmarks.*use at most 5 shards/);
});

test('benchmark files: dealt from the sorted union of both sides, the count over all shards recorded', () => {
  const files = (paths: string[]) => paths.map((path) => ({ path }));
  const discovered = { files: { base: files(['b.js', 'a.js']), head: files(['c.js', 'a.js']) } };
  const owned = [1, 2].map((index) => {
    const record = shardRecordOf(config, { index, count: 2 });
    const mine = ownBenchmarks(discovered, { index, count: 2 }, record, true);
    return { record, mine };
  });
  assert.deepEqual(owned[0]!.record.benchmarks, ['a.js', 'c.js']);
  assert.deepEqual(owned[1]!.record.benchmarks, ['b.js']);
  assert.deepEqual(owned[1]!.mine!.files, { base: [{ path: 'b.js' }], head: [] });
  assert.equal(owned[0]!.record.gatedMetrics, shardRecordOf(config, { index: 1, count: 2 }).gatedMetrics + 3);
});

/** Shard `index` of `count`: its results as a shard of it writes them, from paired throughputs. */
function shardResults(index: number, count: number, pairs: [number, number][]): Results {
  const results = resultsFromPairs(pairs, { alpha: 0.05 / count });
  results.shard = { index, count, familyAlpha: 0.05, fullConfigHash: 'f'.repeat(64), scenarios: ['GET /hello'], benchmarks: null, gatedMetrics: 2 * count };
  return validateResults(JSON.parse(JSON.stringify(results)), 'a test shard');
}

const same = Array.from({ length: 12 }, (): [number, number] => [1000, 1000]);
const drop = Array.from({ length: 12 }, (_, i): [number, number] => [1000 + i, 700 + i]);

test('merge: pass only when every shard is there and passed; a missing shard or a failing one fails', () => {
  const pass = mergeShards([1, 2, 3].map((index) => ({ index, results: shardResults(index, 3, same), missing: null })), 3);
  assert.equal(pass.decision, 'pass');
  const missing = mergeShards(
    [
      { index: 1, results: shardResults(1, 3, same), missing: null },
      { index: 2, results: null, missing: 'no artifact' },
      { index: 3, results: shardResults(3, 3, same), missing: null },
    ],
    3,
  );
  assert.deepEqual([missing.decision, missing.missing], ['fail', [2]]);
  const failing = mergeShards([1, 2, 3].map((index) => ({ index, results: shardResults(index, 3, index === 3 ? drop : same), missing: null })), 3);
  assert.deepEqual([failing.decision, failing.failing, failing.missing], ['fail', [3], []]);
});

test('merge: shards of another head, configuration or seed are refused, naming the difference', () => {
  const other = shardResults(2, 3, same);
  other.sides.head.sha = 'c'.repeat(40);
  const parts = [shardResults(1, 3, same), other, shardResults(3, 3, same)].map((results, i) => ({ index: i + 1, results, missing: null }));
  assert.throws(() => mergeShards(parts, 3), (e: Error) => e instanceof ShardMismatchError && /shard 2\/3 has head commit "c{40}", shard 1\/3 has "b{40}"/.test(e.message));
  const seed = shardResults(3, 3, same);
  seed.seed = 7;
  assert.throws(() => mergeShards([{ index: 1, results: shardResults(1, 3, same), missing: null }, { index: 3, results: seed, missing: null }], 3), /has seed 7/);
  const swapped = shardResults(1, 3, same);
  assert.throws(() => mergeShards([{ index: 2, results: swapped, missing: null }], 3), /artifact of shard 2\/3 holds the results of shard 1\/3/);
});

test('perfgate compare --shard 4/3: refused before anything runs, the message names the rule', async () => {
  const { runCli } = await import('../helpers/cli.js');
  const run = await runCli(['compare', '--base', 'main', '--shard', '4/3'], process.cwd());
  assert.equal(run.code, 2, run.stderr);
  assert.match(run.stderr, /shard 4\/3: i must be 1\.\.n \(1\.\.3\)/);
});

test('a stored baseline and shards do not combine yet: each of the four ways is refused before anything runs, naming why', async () => {
  const { runCli } = await import('../helpers/cli.js');
  for (const args of [['record', '--shard', '1/3'], ['compare', '--baseline', 'record.json', '--shard', '1/3']]) {
    const run = await runCli(args, process.cwd());
    assert.equal(run.code, 2, run.stderr);
    assert.match(run.stderr, /(record|--baseline) with --shard 1\/3: a stored baseline and shards do not combine yet .*in one job without shard/);
  }
  const { recordRun } = await import('../../src/action/record-mode.js');
  const { storedBaselineRun } = await import('../../src/action/stored-baseline.js');
  type Inputs = Parameters<typeof recordRun>[0];
  type Context = Parameters<typeof recordRun>[1];
  const inputs = { settings: { shard: '2/3' }, github: { id: 'default', token: 't' } } as unknown as Inputs;
  const push = { eventName: 'push', env: {} } as unknown as Context;
  assert.throws(() => recordRun(inputs, push), /mode: record with shard: 2\/3: a stored baseline and shards do not combine yet .*\(example-workflows\/perf-baseline\.yml\)/);
  const pr = { eventName: 'pull_request', env: {}, payload: { pull_request: { base: { sha: 'a'.repeat(40) } } } } as unknown as Context;
  await assert.rejects(storedBaselineRun(inputs, pr), /baseline: stored with shard: 2\/3: a stored baseline and shards do not combine yet/);
});
