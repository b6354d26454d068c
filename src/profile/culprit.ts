/**
 * The culprit of a scenario's regression in the user's own code, in words: the own function
 * whose attributed time per request (aggregate.ts: its self time plus the dependency, Node
 * core, V8/native and regex frames it calls, up to the next own function; diff.ts: per request)
 * grew the most between base and head, and what that time went into; when the pull request did
 * not change that function, also the one it changed that grew the most. Pure: a ScenarioProfile
 * in, short text out; the reports (headline, health hints, hot-function rows) only place it.
 */
import type { ChangeSet, DependencyChanges, ScenarioProfile } from '../results/types.js';
import { changedByPr } from './changes.js';
import { addedTime, diffProfiles, type FunctionChange, type IntoChange } from './diff.js';
import { describeCulpritPlace, describeFunction, describeOrigin } from './names.js';
import { type PackageCulprit, type PackageRow, packageCulprit, packageRows } from './packages.js';

/** What the run recorded of the pull request's change: its lines, and its lockfile's packages (both absent in older results). */
export interface RunChanges {
  changes?: ChangeSet;
  dependencies?: DependencyChanges;
}

/**
 * Below this growth no function is called a culprit: 1% of base's CPU time per request (1
 * percentage point of the samples when there is no time per request).
 */
export const CULPRIT_MIN_CHANGE = 0.01;

export interface Culprit {
  /** The own function whose attributed time per request grew the most. */
  fn: FunctionChange;
  /** The frame below it that took most of that growth; null when its own code did. */
  into: IntoChange | null;
  /** Whether the pull request changed the function's lines (changes.ts); null when the run recorded no diff. */
  changed: boolean | null;
  /** When most new time is in packages the PR upgraded: the one that took the most (fn is then its function that grew most); else null. */
  package: PackageCulprit['row'] | null;
  /**
   * When the PR did not change `fn`: the own function it did change that grew the most (by
   * CULPRIT_MIN_CHANGE or more), the likelier fix site; else null.
   */
  edited: FunctionChange | null;
  /** "most new time in compressBody (server.js:7, changed by this PR) → zlib". */
  text: string;
}

/** An own function's growth: time per request added (µs), or attributed share change without it. */
function growthOf(c: FunctionChange): number {
  return c.added ?? c.attributedChange;
}

/** Its self time's growth, in the same unit as growthOf. */
function selfGrowth(c: FunctionChange): number {
  return addedTime(c.base?.self ?? null, c.head?.self ?? null, c.scale) ?? c.change;
}

/**
 * The frame below an own function that holds most of its growth: the one that grew the most,
 * when that is at least half the function's attributed growth and more than its own self time
 * grew.
 */
function mainInto(c: FunctionChange): IntoChange | null {
  const [top] = c.into;
  const grew = top ? (top.added ?? top.change) : 0;
  if (!top || grew <= 0) return null;
  return grew >= growthOf(c) / 2 && grew > selfGrowth(c) ? top : null;
}

/**
 * The culprit among already diffed functions (diffProfiles); null when no own function grew by
 * CULPRIT_MIN_CHANGE or more. `diff`: what the pull request changed, to mark the culprit.
 * `packages` (packageRows): when packages the PR upgraded took most of the new time, the
 * culprit is the one of them that took the most (packages.ts), not an own function.
 */
export function culpritAmong(changes: readonly FunctionChange[], diff?: ChangeSet, packages: readonly PackageRow[] = []): Culprit | null {
  const scaled = changes.find((c) => c.scale !== null);
  const upgrade = scaled ? packageCulprit(packages, changes, CULPRIT_MIN_CHANGE * scaled.scale!.base, diff) : null;
  if (upgrade !== null) return { fn: upgrade.fn, into: null, changed: true, package: upgrade.row, edited: null, text: `most new time in ${upgrade.text}` };
  const grown = changes.filter((c) => c.category === 'own' && growthOf(c) >= CULPRIT_MIN_CHANGE * (c.scale?.base ?? 1));
  const largest = (list: readonly FunctionChange[]) => list.reduce<FunctionChange | null>((best, c) => (best === null || growthOf(c) > growthOf(best) ? c : best), null);
  const best = largest(grown);
  if (best === null) return null;
  const into = mainInto(best);
  const changed = changedByPr(best, diff);
  // An untouched function grows because changed code calls it more, or from what it calls
  // moving between runs (a handler's kernel writes): the function the PR did edit that grew is
  // where a reviewer starts, so it is named beside the largest growth rather than instead of it.
  const edited = changed === false ? largest(grown.filter((c) => changedByPr(c, diff) === true)) : null;
  const text = `most new time in ${describeCulpritPlace({ fn: best, changed, edited })}${into ? ` → ${describeOrigin(into)}` : ''}${edited === null ? '' : `; most in code this PR changed: ${describeFunction(edited)}`}`;
  return { fn: best, into, changed, package: null, edited, text };
}

/**
 * The own function this pull request changed that grew the most after those already `tried`
 * (by file and line), by CULPRIT_MIN_CHANGE or more; null when none is left. The next culprit
 * to revert when the first explains too little of a drop.
 */
export function nextOwnCulprit(changes: readonly FunctionChange[], diff: ChangeSet | undefined, tried: readonly { file: string; line: number }[]): FunctionChange | null {
  const candidates = changes.filter(
    (c) =>
      c.category === 'own' &&
      growthOf(c) >= CULPRIT_MIN_CHANGE * (c.scale?.base ?? 1) &&
      changedByPr(c, diff) === true &&
      !tried.some((t) => t.file === c.file && t.line === c.line),
  );
  return candidates.reduce<FunctionChange | null>((best, c) => (best === null || growthOf(c) > growthOf(best) ? c : best), null);
}

/** A profiled scenario's two sides diffed, its packages' time, and the culprit among them. */
export interface ProfileExplanation {
  changes: FunctionChange[];
  packages: PackageRow[];
  culprit: Culprit | null;
}

/**
 * Diffs one profiled scenario's sides and names its culprit (see culpritAmong); `run`: what the
 * run recorded of the change (the results). The assessment calls it once per profiled scenario
 * and everything after reads what it found.
 */
export function explainProfile(profile: ScenarioProfile, run: RunChanges = {}): ProfileExplanation {
  const changes = diffProfiles(profile.sides.base, profile.sides.head, profile.intervalUs);
  const packages = packageRows(profile, run.dependencies);
  return { changes, packages, culprit: culpritAmong(changes, run.changes, packages) };
}
