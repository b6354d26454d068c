/**
 * What a comparison measures against, as one strategy type (as actions/cache's StateProvider
 * lets one restore sequence serve several entry points): the compare sequence (service.ts) is the
 * same for every variant, and asks the variant only what differs. Same runner: base and head
 * side by side. Record: one commit alone, kept as the baseline of later runs. Stored baseline:
 * head alone, compared with a record. Where a record comes from (a file, an artifact) and what
 * is published are the shells'; the checks and what the results become are here, once.
 */
import type { Preflight } from '../engine/preflight.js';
import type { Results, StoredBaseline } from '../results/types.js';
import { attachBaseline, checkRunner } from './baseline.js';

export interface Variant {
  kind: 'same-runner' | 'record' | 'stored-baseline';
  /**
   * Both of the engine's sides measure one commit (head's), and every planned block runs: there
   * is no A/B for the paired stopping rule to look at.
   */
  oneCommit: boolean;
  /** Once the refs and configuration are resolved, before anything is checked out or run: throws to refuse. */
  check(checked: Preflight): Promise<void>;
  /** The measured results → the results the comparison reports (a stored baseline attached). */
  finish(results: Results): Results;
}

/** Base and head measured side by side on this runner, paired. */
export const SAME_RUNNER: Variant = { kind: 'same-runner', oneCommit: false, check: async () => {}, finish: (results) => results };

/** One commit measured alone: its results are a stored baseline for later comparisons (docs/modes.md). */
export const RECORD: Variant = { kind: 'record', oneCommit: true, check: async () => {}, finish: (results) => results };

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
    check: (checked) => checkRunner(baseline, checked.config, runner.env, runner.cwd, source),
    finish: (results) => attachBaseline(results, baseline, source),
  };
}
