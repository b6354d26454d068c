/**
 * Matrix shards (docs/modes.md, "Shards"): `shard: i/n` runs a deterministic part of the
 * scenarios and benchmark files, every part measured as a complete base/head comparison on its
 * own runner, and `mode: merge` joins the parts' decisions into one.
 *
 * Every shard computes the same partition from the configuration alone: the scenarios in config
 * order, and the benchmark files as the sorted union of both sides' matches, dealt round-robin
 * (item k, 0-based, to shard k mod n + 1). Round-robin keeps the parts within one item of each
 * other, so no shard's runner waits on a much longer one.
 *
 * The merged decision keeps the family-wise alpha by a rule each shard follows, fixed before any
 * load: shard i runs its whole gate (its own sequential design, Holm inside) at alpha/n. A merged
 * false fail needs some shard to false-fail, so by the union bound its rate is at most
 * n · alpha/n = alpha, whatever the shards' data have in common and whenever each stops.
 * Equal shares, not shares by gated-metric count: the benchmark files, and so each shard's count,
 * are known only after checkout, and the sequential design (its levels come from alpha) is
 * planned before. With round-robin parts the shares differ little from the counts' anyway.
 */
import { createHash } from 'node:crypto';
import { ConfigError } from '../config/errors.js';
import { ruleFor } from '../config/scenario-rules.js';
import { type GateKey, type PerfgateConfig, SCENARIO_GATE_KEYS, STARTUP_METRICS } from '../config/types.js';
import { configHash } from '../results/config-hash.js';
import type { ShardRecord } from '../results/types.js';

/**
 * A stored baseline and shards do not combine yet. A record holds the whole configuration and is
 * checked against the run's by its hash, while a shard's configuration is its part (its scenarios,
 * alpha/n), so a shard's run would be refused for another configuration; a record of a part would
 * leave the other scenarios without a baseline. Refused up front, with the way that works.
 */
export const STORED_NOT_SHARDED = 'a stored baseline and shards do not combine yet (a record holds every scenario, a shard measures its part): record, and compare with the record, in one job without shard';

export interface Shard {
  /** 1-based. */
  index: number;
  count: number;
}

/** Shards over 64 would spend alpha/64 each: more runners than any suite here needs. */
const MAX_SHARDS = 64;

/** "2/3" → { index: 2, count: 3 }; a clear ConfigError otherwise. */
export function parseShard(text: string, source = 'shard'): Shard {
  const match = /^\s*(\d+)\s*\/\s*(\d+)\s*$/.exec(text);
  if (!match) throw new ConfigError([`${source}: "${text}" is not a shard; write i/n, e.g. 2/3 for the second of three shards.`]);
  const index = Number(match[1]);
  const count = Number(match[2]);
  if (count < 1 || count > MAX_SHARDS) throw new ConfigError([`${source} ${index}/${count}: n must be 1..${MAX_SHARDS}.`]);
  if (index < 1 || index > count) throw new ConfigError([`${source} ${index}/${count}: i must be 1..n (1..${count}).`]);
  return { index, count };
}

/** The items of `shard`: item k (0-based, in the given order) goes to shard k mod n + 1. */
export function dealShard<T>(items: readonly T[], shard: Shard): T[] {
  return items.filter((_, k) => k % shard.count === shard.index - 1);
}

/** A scenario's gated HTTP and health metrics and gated service levels, by its own rules: each is one test of the family. */
function gatedInScenario(config: PerfgateConfig, scenario: string): number {
  const rules = SCENARIO_GATE_KEYS.map((key) => ruleFor(config, scenario, key));
  return rules.filter((rule) => rule.gated).length + rules.filter((rule) => rule.level?.gated).length;
}

/** What results.json records before the benchmark files are known (benchmarks is filled after discovery). */
export function shardRecordOf(full: PerfgateConfig, shard: Shard): ShardRecord {
  const gated = (keys: readonly GateKey[]) => keys.filter((key) => full.gate[key].gated).length;
  return {
    index: shard.index,
    count: shard.count,
    familyAlpha: full.alpha,
    fullConfigHash: configHash(full),
    scenarios: dealShard(full.scenarios, shard).map((s) => s.name),
    benchmarks: null,
    // HTTP and health metrics per scenario; the start-up metrics once per shard (every shard starts both services).
    gatedMetrics: full.scenarios.reduce((n, s) => n + gatedInScenario(full, s.name), 0) + gated(STARTUP_METRICS) * shard.count,
  };
}

/**
 * The configuration shard `shard` runs: its scenarios, and alpha/n for its whole gate (the rule
 * above). The profile's scenario list keeps only those the shard measures. `check: false` for
 * base's configuration, which only supplies base's commands and the what-changed warning.
 */
export function shardConfig(full: PerfgateConfig, shard: Shard, { check = true }: { check?: boolean } = {}): PerfgateConfig {
  const scenarios = dealShard(full.scenarios, shard);
  if (check && scenarios.length === 0 && full.benchmarks === null) {
    throw new ConfigError([
      `shard ${shard.index}/${shard.count}: the configuration has ${full.scenarios.length} scenario(s) and no benchmarks, so this shard would measure nothing; use at most ${full.scenarios.length} shards.`,
    ]);
  }
  const names = new Set(scenarios.map((s) => s.name));
  return {
    ...full,
    scenarios,
    alpha: full.alpha / shard.count,
    profile: { ...full.profile, scenarios: full.profile.scenarios?.filter((name) => names.has(name)) ?? null },
  };
}

/** The benchmark files shard `shard` owns: dealt from the sorted union of both sides' matches. */
export function shardBenchmarkPaths(base: readonly string[], head: readonly string[], shard: Shard): Set<string> {
  const union = [...new Set([...base, ...head])].sort();
  return new Set(dealShard(union, shard));
}

/**
 * A shard's benchmark files, once both sides' matches are known (the engine calls this right after
 * discovery): the discovered files narrowed to those the shard owns, null when it owns none, and
 * the shard's record completed with their names and the count over all shards.
 */
export function ownBenchmarks<D extends { files: Record<'base' | 'head', { path: string }[]> }>(
  discovered: D,
  shard: Shard,
  record: ShardRecord,
  benchmarksGated: boolean,
): D | null {
  const base = discovered.files.base.map((f) => f.path);
  const head = discovered.files.head.map((f) => f.path);
  const owned = shardBenchmarkPaths(base, head, shard);
  const union = new Set([...base, ...head]);
  record.benchmarks = [...owned];
  if (benchmarksGated) record.gatedMetrics += union.size;
  if (owned.size === 0) return null;
  return {
    ...discovered,
    files: { base: discovered.files.base.filter((f) => owned.has(f.path)), head: discovered.files.head.filter((f) => owned.has(f.path)) },
  };
}

/**
 * The seed every shard of one matrix draws when the configuration names none: from what all of
 * them share (the whole configuration, base and head), so they agree without talking, and the
 * merge can refuse shards that did not run the same design.
 */
export function sharedSeed(fullConfigHash: string, baseSha: string, headSha: string): number {
  return createHash('sha256').update(`${fullConfigHash}\n${baseSha}\n${headSha}`).digest().readUInt32BE(0) >>> 1;
}
