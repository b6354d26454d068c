/**
 * A record (the results.json of a `mode: record` run, or `perfgate record`) as the stored baseline
 * of a comparison: what it must be to stand in for base, and whether this runner measures the
 * way the record's did. Pure.
 */
import type { Environment, Results, StoredBaseline } from './types.js';

/** A record that cannot serve as the baseline; the message says why and what to do. */
export class BaselineError extends Error {}

/** What must match between the record's run and this one, in the order a reader checks it. */
const COMPARED: readonly { field: string; value(environment: Environment, toolVersion: string): string | null }[] = [
  { field: 'configuration hash', value: (e) => e.configHash ?? null },
  { field: 'perfgate version', value: (_, tool) => tool },
  { field: 'CPU model', value: (e) => e.cpuModel },
  { field: 'CPU count', value: (e) => String(e.cpus) },
  { field: 'architecture', value: (e) => e.arch },
  { field: 'kernel', value: (e) => e.kernel ?? null },
  { field: 'OS image', value: (e) => e.osImage ?? null },
  { field: 'Node version', value: (e) => e.nodeVersion },
  { field: 'V8 version', value: (e) => e.v8Version ?? null },
  { field: 'Node flags', value: (e) => e.nodeFlags.join(' ') },
];

export interface EnvironmentDifference {
  field: string;
  record: string;
  here: string;
}

/**
 * The fields in which this run's environment differs from the record's. A field one side did not
 * record (an older perfgate, a Node that did not answer) differs too: nothing says it matched.
 * Each such field can move every number of a run (a kernel's scheduler, a Node's JIT, a new
 * runner image), and an unpaired comparison cannot tell that from the commit.
 */
export function environmentDifferences(
  record: { environment: Environment; toolVersion: string },
  here: { environment: Environment; toolVersion: string },
): EnvironmentDifference[] {
  return COMPARED.flatMap(({ field, value }) => {
    const a = value(record.environment, record.toolVersion);
    const b = value(here.environment, here.toolVersion);
    return a !== null && a === b ? [] : [{ field, record: a ?? '(not recorded)', here: b ?? '(not recorded)' }];
  });
}

/** One sentence naming every difference, both values each. */
export function describeDifferences(differences: readonly EnvironmentDifference[]): string {
  return differences.map((d) => `${d.field}: the record has "${d.record}", this run "${d.here}"`).join('; ');
}

/**
 * The record as this comparison's baseline, after checking it is one: a complete run whose two
 * sides measured `sha`, not measured for a pull request (whose code could have shaped it).
 * `source` names the file or artifact in messages.
 */
export function baselineOf(record: Results, sha: string, runId: string | null, source: string): StoredBaseline {
  const refuse = (why: string) =>
    new BaselineError(`${source} cannot serve as the baseline of ${sha.slice(0, 7)}: ${why}. Record the base commit again (mode: record on a push, or perfgate record).`);
  if (record.status !== 'complete') throw refuse(`its run is ${record.status}, not complete`);
  if (record.sides.base.sha !== record.sides.head.sha || record.sides.head.dirty) {
    throw refuse('it is an A/B comparison of two commits, not a record of one');
  }
  if (record.sides.head.sha !== sha) throw refuse(`it measured ${record.sides.head.sha}`);
  if (record.github?.event === 'pull_request' || record.github?.event === 'pull_request_target' || record.github?.pullRequest) {
    throw refuse("it was measured for a pull request, whose code could have shaped it; records come from pushes");
  }
  if (record.baseline) throw refuse('it was itself compared with a stored baseline');
  return {
    sha,
    runId,
    recordedAt: record.startedAt,
    toolVersion: record.tool.version,
    environment: record.environment,
    scenarios: record.scenarios,
  };
}

/** Refuses a baseline measured differently from this run, naming each field and both values. */
export function checkEnvironment(baseline: StoredBaseline, here: { environment: Environment; toolVersion: string }, source: string): void {
  const differences = environmentDifferences(baseline, here);
  if (differences.length === 0) return;
  throw new BaselineError(
    `Refusing the stored baseline (${source}): this runner differs from the one that recorded it (${describeDifferences(differences)}). ` +
      'An unpaired comparison cannot tell such a change from the commit: compare on one runner (the default, baseline: same-runner), ' +
      'or record the base commit again on this kind of runner.',
  );
}
