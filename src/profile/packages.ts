/**
 * Dependencies the pull request changed, and the CPU time each installed package took. Pure:
 * lockfiles come in read (lockfile-formats.ts), a frame's package from a resolver the engine gives
 * (src/engine/workspace/lockfiles.ts reads the package.json nearest each file).
 *
 * A regression often comes from an upgrade, not from the service's code: the PR bumps a router
 * and every request now spends its new time inside it. The own-code culprit then names the
 * handler that calls the router, which the PR did not touch. Time by package, beside the
 * versions the lockfiles give, names the upgrade.
 */
import type { ChangeSet, DependencyChange, DependencyChanges, FunctionId, PackageTime, ScenarioProfile } from '../results/types.js';
import { changedByPr } from './changes.js';
import type { CallNode, CallTree } from './call-tree.js';
import { displayName } from './names.js';
import { addedTime, type FunctionChange, usPerSample } from './diff.js';
import type { Locked } from './lockfile-formats.js';

const NODE_MODULES = 'node_modules/';

/** Versions in a stable order: numerically by their parts ("1.10.0" after "1.9.0"). */
function sortVersions(versions: Iterable<string>): string[] {
  return [...new Set(versions)].sort((a, b) => a.localeCompare(b, 'en', { numeric: true }));
}

/**
 * The packages whose set of locked versions differs between the two lockfiles, by name, whatever
 * format each was read from (lockfile-formats.ts).
 */
export function diffLockfiles(base: Locked[], head: Locked[]): DependencyChange[] {
  const group = (list: Locked[]) => {
    const byName = new Map<string, { versions: Set<string>; direct: boolean }>();
    for (const p of list) {
      const entry = byName.get(p.name) ?? { versions: new Set<string>(), direct: false };
      entry.versions.add(p.version);
      entry.direct ||= p.direct;
      byName.set(p.name, entry);
    }
    return byName;
  };
  const b = group(base);
  const h = group(head);
  const changed: DependencyChange[] = [];
  for (const name of [...new Set([...b.keys(), ...h.keys()])].sort()) {
    const baseVersions = sortVersions(b.get(name)?.versions ?? []);
    const headVersions = sortVersions(h.get(name)?.versions ?? []);
    if (baseVersions.join('\u0000') === headVersions.join('\u0000')) continue;
    changed.push({ name, base: baseVersions, head: headVersions, direct: (b.get(name)?.direct ?? false) || (h.get(name)?.direct ?? false) });
  }
  return changed;
}

/** The package a dependency frame's code is in, from its nearest package.json; null for other code or when none is found. */
export type PackageResolver = (fn: FunctionId) => { name: string; version: string | null } | null;

/**
 * Samples per package: each sample goes to the innermost package frame on its stack, with the
 * Node core and V8/native frames it calls (a router's regex, a serializer's JSON.stringify); an
 * own function called back from a package (a route handler) takes its samples back, as in
 * own-code attribution (aggregate.ts). Most samples first.
 */
export function packageTimes(tree: CallTree, resolve: PackageResolver): PackageTime[] {
  const totals = new Map<string, PackageTime>();
  const visit = (node: CallNode, owner: PackageTime | null) => {
    let charged = owner;
    if (node.fn.category === 'own') charged = null;
    else if (node.fn.category === 'dependency') {
      const pkg = resolve(node.fn);
      if (pkg === null) charged = null;
      else {
        const key = `${pkg.name}\u0000${pkg.version ?? ''}`;
        charged = totals.get(key) ?? { name: pkg.name, version: pkg.version, samples: 0 };
        totals.set(key, charged);
      }
    }
    if (charged !== null) charged.samples += node.self;
    for (const child of node.children) visit(child, charged);
  };
  for (const child of tree.root.children) visit(child, null);
  return [...totals.values()].filter((p) => p.samples > 0).sort((a, b) => b.samples - a.samples || a.name.localeCompare(b.name));
}

/** A package's row in a report: its CPU time per request on each side, and its version change when the PR made one. */
export interface PackageRow {
  name: string;
  /** µs per request. */
  base: number;
  head: number;
  added: number;
  /** The lockfiles' change; null when the PR left its version alone. */
  change: DependencyChange | null;
}

/**
 * Every package sampled on either side, with its time per request (the most first); empty when
 * the results lack package times or time per request, or the PR changed no locked version (the
 * report is then as it was without dependency attribution).
 */
export function packageRows(profile: ScenarioProfile, dependencies: DependencyChanges | undefined): PackageRow[] {
  if (!dependencies || dependencies.changed.length === 0) return [];
  const { base, head } = profile.sides;
  const perSample = usPerSample(base, head, profile.intervalUs);
  if (perSample === null || !base.packages || !head.packages) return [];
  const rows = new Map<string, PackageRow>();
  const add = (list: PackageTime[], side: 'base' | 'head') => {
    for (const p of list) {
      const row = rows.get(p.name) ?? { name: p.name, base: 0, head: 0, added: 0, change: dependencies.changed.find((c) => c.name === p.name) ?? null };
      row[side] += p.samples * perSample[side];
      rows.set(p.name, row);
    }
  };
  add(base.packages, 'base');
  add(head.packages, 'head');
  return [...rows.values()]
    .map((r) => ({ ...r, added: r.head - r.base }))
    .sort((a, b) => Math.max(b.base, b.head) - Math.max(a.base, a.head) || a.name.localeCompare(b.name));
}

/** "2.3.1 → 2.4.0", "— → 1.0.0" (added), "1.0.0, 1.2.0 → 1.2.0". */
export function describeVersions(change: Pick<DependencyChange, 'base' | 'head'>): string {
  const side = (versions: string[]) => (versions.length === 0 ? '—' : versions.join(', '));
  return `${side(change.base)} → ${side(change.head)}`;
}

/** The path of a dependency's file inside its package: "lib/layer.js". */
export function pathInPackage(fn: Pick<FunctionId, 'file' | 'package'>): string {
  if (fn.package === null) return fn.file;
  const marker = `${NODE_MODULES}${fn.package}/`;
  const at = fn.file.lastIndexOf(marker);
  return at < 0 ? fn.file : fn.file.slice(at + marker.length);
}

/**
 * The time per request a package's function added: the growth of its time with the Node core and
 * V8/native frames it calls (withNatives; its self time in results without it), but never more
 * than what it and everything it calls added together. Self time alone misleads both ways: V8
 * books a regex the function runs to a frame of its own below it, and a built-in such as
 * JSON.stringify to the function itself, so a serializer that swaps the one for the other moves
 * time between its self time and the frame below without the package's work changing as much.
 */
export function packageFunctionGrowth(c: FunctionChange): number {
  const recorded = c.base?.withNatives !== undefined || c.head?.withNatives !== undefined;
  const self = (recorded ? addedTime(c.base?.withNatives ?? null, c.head?.withNatives ?? null, c.scale) : null) ?? c.added ?? 0;
  const total = addedTime(c.base?.total ?? null, c.head?.total ?? null, c.scale);
  return total === null ? self : Math.min(self, total);
}

export interface PackageCulprit {
  /** The changed package that took the most new time. */
  row: PackageRow & { change: DependencyChange };
  /** Its function that added the most time (packageFunctionGrowth), with that growth as `added`. */
  fn: FunctionChange;
  /** "some-router 2.3.1 → 2.4.0 (changed by this PR): matchLayer in lib/layer.js". */
  text: string;
}

/** The least share of head's added CPU time per request a package must add to be named. */
export const PACKAGE_MIN_SHARE = 0.25;

/**
 * The package culprit. What the pull request changed that can make a request slower is its own
 * functions' code and the packages it upgraded; an own function it did not change only grew
 * because of one of them (its attributed time holds the package code it calls: a handler calling
 * an upgraded router grows by the router's time). So the upgraded package that added the most
 * CPU time per request is named when it added more than any own function the PR changed did
 * outside the upgraded packages (any own function, when the run recorded no diff), and at least
 * a quarter of head's added time; with the function of it that added the most. Null otherwise,
 * and for a package none of whose functions grew (a package with no frames is never named).
 * `minUs`: the least growth that counts; `diff`: the lines the PR changed.
 */
export function packageCulprit(rows: readonly PackageRow[], changes: readonly FunctionChange[], minUs: number, diff?: ChangeSet): PackageCulprit | null {
  const scale = changes.find((c) => c.scale !== null)?.scale;
  const changed = rows.filter((r): r is PackageRow & { change: DependencyChange } => r.change !== null && r.added > 0);
  const best = [...changed].sort((a, b) => b.added - a.added)[0];
  if (!scale || !best || best.added < minUs || best.added < PACKAGE_MIN_SHARE * (scale.head - scale.base)) return null;
  const upgraded = new Set(changed.map((r) => r.name));
  const outside = (c: FunctionChange) =>
    (c.added ?? 0) - c.into.filter((i) => i.package !== null && upgraded.has(i.package)).reduce((sum, i) => sum + Math.max(0, i.added ?? 0), 0);
  const rivals = changes.filter((c) => c.category === 'own' && changedByPr(c, diff) !== false);
  if (best.added <= Math.max(0, ...rivals.map(outside))) return null;
  const grown = changes
    .filter((c) => c.category === 'dependency' && c.package === best.name)
    .map((c) => ({ ...c, added: packageFunctionGrowth(c) }))
    .filter((c) => c.added > 0)
    .sort((a, b) => b.added - a.added);
  const fn = grown[0];
  if (!fn) return null;
  return { row: best, fn, text: `${best.name} ${describeVersions(best.change)} (changed by this PR): ${displayName(fn)} in ${pathInPackage(fn)}` };
}
