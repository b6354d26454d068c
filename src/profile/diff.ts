/**
 * Base against head, function by function. Pure.
 *
 * Functions are matched by name + file + line. A function whose name and file stayed but whose
 * line moved (code added above it) is the same function: when exactly one unmatched function
 * of that name and file is left on each side, they are paired. Shares are fractions of each
 * side's non-idle samples, so the two sides compare although they served different numbers of
 * requests; a change is the difference of the shares, in percentage points.
 */
import type { FunctionCategory, FunctionId, FunctionStats, ProfileSummary } from '../results/types.js';
import { compareHotness } from './aggregate.js';
import { functionKey } from './frames.js';

export interface Share {
  /** Fractions of the side's non-idle samples. */
  self: number;
  total: number;
}

export interface FunctionChange extends FunctionId {
  /** The line in base when it moved (the function is named by its head line), else null. */
  baseLine: number | null;
  /** new: only head has it; gone: only base; both. */
  status: 'new' | 'gone' | 'both';
  base: Share | null;
  head: Share | null;
  /** head self share − base self share (0.363 = +36.3 percentage points). */
  change: number;
  deoptReasons: string[];
}

type Pair = [FunctionStats | null, FunctionStats | null];

/** Pairs base and head functions: same name, file and line; then moved lines (see above). */
export function matchFunctions(base: readonly FunctionStats[], head: readonly FunctionStats[]): Pair[] {
  const pairs: Pair[] = [];
  const headByKey = new Map(head.map((f) => [functionKey(f), f]));
  const unmatchedBase: FunctionStats[] = [];
  const matchedHead = new Set<FunctionStats>();
  for (const b of base) {
    const h = headByKey.get(functionKey(b));
    if (h && !matchedHead.has(h)) {
      pairs.push([b, h]);
      matchedHead.add(h);
    } else {
      unmatchedBase.push(b);
    }
  }
  const unmatchedHead = head.filter((h) => !matchedHead.has(h));
  const byNameFile = (list: FunctionStats[]) => {
    const groups = new Map<string, FunctionStats[]>();
    for (const f of list) {
      const key = `${f.name}\u0000${f.file}`;
      groups.set(key, [...(groups.get(key) ?? []), f]);
    }
    return groups;
  };
  const headGroups = byNameFile(unmatchedHead);
  for (const [key, bases] of byNameFile(unmatchedBase)) {
    const heads = headGroups.get(key);
    if (bases.length === 1 && heads?.length === 1 && bases[0]!.file !== '') {
      pairs.push([bases[0]!, heads[0]!]);
      headGroups.delete(key);
    } else {
      for (const b of bases) pairs.push([b, null]);
    }
  }
  for (const heads of headGroups.values()) for (const h of heads) pairs.push([null, h]);
  return pairs;
}

function share(f: FunctionStats | null, samples: number): Share | null {
  if (f === null) return null;
  return samples > 0 ? { self: f.self / samples, total: f.total / samples } : { self: 0, total: 0 };
}

/** Every function of either side with its shares and change. */
export function diffProfiles(base: ProfileSummary, head: ProfileSummary): FunctionChange[] {
  return matchFunctions(base.functions, head.functions).map(([b, h]) => {
    const id = (h ?? b)!;
    const baseShare = share(b, base.samples);
    const headShare = share(h, head.samples);
    const reasons = [...new Set([...(h?.deoptReasons ?? []), ...(b?.deoptReasons ?? [])])];
    return {
      name: id.name,
      file: id.file,
      line: id.line,
      column: id.column,
      category: id.category,
      package: id.package,
      baseLine: b && h && b.line !== h.line ? b.line : null,
      status: b && h ? 'both' : h ? 'new' : 'gone',
      base: baseShare,
      head: headShare,
      change: (headShare?.self ?? 0) - (baseShare?.self ?? 0),
      deoptReasons: reasons,
    };
  });
}

/** The larger self share of the two sides. */
export function peakSelf(c: FunctionChange): number {
  return Math.max(c.base?.self ?? 0, c.head?.self ?? 0);
}

/**
 * The rows a report shows: the `limit` functions of these categories with the most self time
 * on either side, the biggest changes first (ties: hotter first).
 */
export function hottestChanges(changes: readonly FunctionChange[], categories: readonly FunctionCategory[], limit: number): FunctionChange[] {
  return changes
    .filter((c) => categories.includes(c.category) && peakSelf(c) > 0)
    .sort((a, b) => peakSelf(b) - peakSelf(a) || a.name.localeCompare(b.name))
    .slice(0, limit)
    .sort((a, b) => Math.abs(b.change) - Math.abs(a.change) || peakSelf(b) - peakSelf(a) || a.name.localeCompare(b.name));
}

/**
 * Bounds both sides' tables for results.json: per side and category the `limit` hottest by self
 * and by total time, plus each kept function's counterpart on the other side, so a diff of the
 * bounded tables gives the same shares and new/gone markers as a diff of the full ones.
 */
export function boundSummaries(base: ProfileSummary, head: ProfileSummary, limit: number): { base: ProfileSummary; head: ProfileSummary } {
  const keep = new Set<FunctionStats>();
  for (const side of [base, head]) {
    for (const category of ['own', 'dependency', 'node', 'native'] as const) {
      const inCategory = side.functions.filter((f) => f.category === category);
      for (const f of [...inCategory].sort(compareHotness).slice(0, limit)) keep.add(f);
      for (const f of [...inCategory].sort((a, b) => b.total - a.total || compareHotness(a, b)).slice(0, limit)) keep.add(f);
    }
  }
  for (const [b, h] of matchFunctions(base.functions, head.functions)) {
    if ((b && keep.has(b)) || (h && keep.has(h))) {
      if (b) keep.add(b);
      if (h) keep.add(h);
    }
  }
  const bound = (side: ProfileSummary): ProfileSummary => ({
    ...side,
    functions: side.functions.filter((f) => keep.has(f)),
    functionCount: side.functions.length,
  });
  return { base: bound(base), head: bound(head) };
}
