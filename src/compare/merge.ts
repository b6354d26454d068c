/**
 * The merged decision of a matrix's shards (docs/modes.md, "Shards"). Pure: the action's merge
 * job (action/merge-mode.ts) downloads and validates the shards' results, this checks they are
 * one matrix and decides.
 *
 * Each shard gated its part at familyAlpha/n (compare/shard.ts), so the merge fails when any
 * shard's gate failed: a merged false fail needs a shard's false fail, at most n · alpha/n =
 * alpha (the union bound). A shard that is missing, failed or incomplete counts as not measured:
 * the merge can then never pass.
 */
import { assessResults } from '../assess/compare.js';
import type { Assessment } from '../assess/types.js';
import type { Results } from '../results/types.js';

export class ShardMismatchError extends Error {}

export interface ShardPart {
  /** 1-based. */
  index: number;
  /** The shard's results as validated, or null when it left none that counts. */
  results: Results | null;
  /** Why it does not count (absent artifact, failed job, incomplete run); null when it does. */
  missing: string | null;
}

export interface MergedShard extends ShardPart {
  analysis: Assessment | null;
}

export interface MergedDecision {
  count: number;
  shards: MergedShard[];
  /** fail: a shard's gate failed, or a shard is missing (never pass without every part). */
  decision: 'pass' | 'fail';
  missing: number[];
  failing: number[];
  regressions: number;
  improvements: number;
}

/**
 * Refuses shards that are not the same matrix: another base or head commit, another whole
 * configuration, another seed or alpha. Their numbers would be the answer to another question.
 */
export function checkSameMatrix(parts: readonly ShardPart[], count: number): void {
  const present = parts.filter((p): p is ShardPart & { results: Results } => p.results !== null);
  if (present.length === 0) return;
  const first = present[0]!;
  const fields: [string, (r: Results) => unknown][] = [
    ['base commit', (r) => r.sides.base.sha],
    ['head commit', (r) => r.sides.head.sha],
    ['configuration hash', (r) => r.shard?.fullConfigHash],
    ['seed', (r) => r.seed],
    ['alpha', (r) => r.shard?.familyAlpha],
  ];
  const problems: string[] = [];
  for (const part of present) {
    const shard = part.results.shard;
    if (!shard) {
      problems.push(`shard ${part.index}/${count}'s results record no shard (it was not run with shard: ${part.index}/${count})`);
      continue;
    }
    if (shard.index !== part.index || shard.count !== count) {
      problems.push(`the artifact of shard ${part.index}/${count} holds the results of shard ${shard.index}/${shard.count}`);
    }
    for (const [what, read] of fields) {
      if (part !== first && read(part.results) !== read(first.results)) {
        problems.push(`shard ${part.index}/${count} has ${what} ${JSON.stringify(read(part.results))}, shard ${first.index}/${count} has ${JSON.stringify(read(first.results))}`);
      }
    }
  }
  if (problems.length > 0) {
    throw new ShardMismatchError(
      `Refusing to merge: the shards are not one matrix (${problems.join('; ')}). Every shard must measure the same base and head with the same configuration and seed; re-run the whole workflow.`,
    );
  }
}

/** The shards' analyses and the one decision (see the module comment). */
export function mergeShards(parts: readonly ShardPart[], count: number): MergedDecision {
  checkSameMatrix(parts, count);
  const shards = parts.map((part) => ({ ...part, analysis: part.results && part.missing === null ? assessResults(part.results) : null }));
  const missing = shards.filter((s) => s.analysis === null).map((s) => s.index);
  const failing = shards.filter((s) => s.analysis?.decision === 'fail').map((s) => s.index);
  const sum = (key: 'regressions' | 'improvements') => shards.reduce((total, s) => total + (s.analysis?.[key] ?? 0), 0);
  return {
    count,
    shards,
    decision: missing.length > 0 || failing.length > 0 ? 'fail' : 'pass',
    missing,
    failing,
    regressions: sum('regressions'),
    improvements: sum('improvements'),
  };
}
