/**
 * What a comparison measures against, as one strategy type (as actions/cache's StateProvider
 * lets one restore sequence serve several entry points): the compare sequence (service.ts) is the
 * same for every variant, and asks the variant only what differs. Same runner: base and head
 * side by side. Record: one commit alone, kept as the baseline of later runs. Stored baseline:
 * head alone, compared with a record. Shard: one part of a matrix of same-runner comparisons.
 * Where a record comes from (a file, an artifact) and what is published are the shells'; the
 * checks and what the comparison and its results become are here, once.
 */
import { interimLook, interimLookAgainst } from '../assess/look.js';
import type { OptionValues } from '../config/options.js';
import type { LookDesign } from '../engine/plan.js';
import type { Preflight } from '../engine/preflight.js';
import type { Results, ShardRecord, StoredBaseline, TakenLook } from '../results/types.js';
import { attachBaseline, checkRunner } from './baseline.js';
import { parseShard, type Shard, sharedSeed, shardConfig, shardRecordOf } from './shard.js';

/** The refs and configuration, and for a matrix shard its part (`config` is then the shard's: its scenarios, alpha/n). */
export type ResolvedComparison = Preflight & { shard: { shard: Shard; record: ShardRecord } | null };

export interface Variant {
  kind: 'same-runner' | 'record' | 'stored-baseline' | 'shard';
  /** Both of the engine's sides measure one commit (head's): base's ref is head's. */
  oneCommit: boolean;
  /**
   * The interim looks between blocks: what they compare (the design's levels depend on it:
   * engine/plan.ts) and the stopping rule that decides at each (assess/look.ts); null when the run
   * compares nothing and measures every planned block (a record).
   */
  looks: { design: LookDesign; decide: (results: Results, index: number) => TakenLook } | null;
  /**
   * What the run measures of the resolved refs and configuration, before anything is checked out
   * or run: the whole (a shard: its part). Throws to refuse.
   */
  resolve(checked: Preflight): Promise<ResolvedComparison>;
  /** The measured results → the results the comparison reports (a stored baseline attached). */
  finish(results: Results): Results;
}

const whole = async (checked: Preflight): Promise<ResolvedComparison> => ({ ...checked, shard: null });
const unchanged = (results: Results): Results => results;

const PAIRED_LOOKS: Variant['looks'] = { design: 'paired', decide: interimLook };

/** Base and head measured side by side on this runner, paired. */
export const SAME_RUNNER: Variant = { kind: 'same-runner', oneCommit: false, looks: PAIRED_LOOKS, resolve: whole, finish: unchanged };

/** One commit measured alone: its results are a stored baseline for later comparisons (docs/modes.md). */
export const RECORD: Variant = { kind: 'record', oneCommit: true, looks: null, resolve: whole, finish: unchanged };

/**
 * Head measured alone and compared, unpaired, with a record of base: refused before anything runs
 * when this runner, perfgate or the configuration differ from the record's, and once measured
 * when the environment the run recorded does.
 */
export function storedBaseline(
  baseline: StoredBaseline,
  source: string,
  runner: { env: Record<string, string | undefined>; cwd: string },
): Variant {
  return {
    kind: 'stored-baseline',
    oneCommit: true,
    // A clear regression against the record stops at the first look, as a paired one does.
    looks: { design: 'unpaired', decide: interimLookAgainst(baseline) },
    async resolve(checked) {
      await checkRunner(baseline, checked.config, runner.env, runner.cwd, source);
      return { ...checked, shard: null };
    },
    finish: (results) => attachBaseline(results, baseline, source),
  };
}

/**
 * A matrix shard (`shard: i/n` among the settings; shard.ts), or null when the settings name
 * none. Parsed before the refs are resolved: a typo in the matrix costs nothing.
 */
export function shardOf(settings: OptionValues, settingsSource: string): Variant | null {
  const text = settings.shard;
  if (typeof text !== 'string' || text.trim() === '') return null;
  const shard = parseShard(text, `${settingsSource}: shard`);
  return {
    kind: 'shard',
    oneCommit: false,
    looks: PAIRED_LOOKS,
    async resolve(checked) {
      // The whole configuration is resolved first, so every shard deals the same scenarios.
      const record = shardRecordOf(checked.config, shard);
      const config = shardConfig(checked.config, shard);
      // One seed for the matrix, so the merge can check that every shard ran the same design.
      config.seed ??= sharedSeed(record.fullConfigHash, checked.base.sha, checked.head.sha);
      // Base's configuration takes its part the same way, so the run's what-changed warning compares like with like.
      const baseConfig = checked.baseConfig && shardConfig(checked.baseConfig, shard, { check: false });
      return { ...checked, config, baseConfig, shard: { shard, record } };
    },
    finish: unchanged,
  };
}
