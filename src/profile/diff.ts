/**
 * Base against head, function by function. Pure.
 *
 * Functions are matched by what stays when code moves, in this order, each step pairing only
 * what the previous ones left and only when exactly one candidate is left on each side:
 * 1. name + file + line;
 * 2. name + file (the line moved: code was added above it);
 * 3. the hash of the function's source text (own code: an anonymous handler whose line moved
 *    is named by its new place, but its text is the same);
 * 4. file + enclosing function + kind, for anonymous functions (the text changed too: "the
 *    arrow in formatPrices" is still the arrow in formatPrices).
 * Shares are fractions of each
 * side's non-idle samples; a change of shares is in percentage points.
 *
 * Time per request is what ranks and names: a share times the side's CPU time per request in
 * its profiled window (non-idle samples × V8's sampling interval ÷ the responses in the window).
 * Shares alone hide a regression in the function that already held most of the time: a
 * handler at 85% of a saturated process's samples that gets five times slower is still at 85%,
 * and only the time per request says it went from 190 µs to 1.2 ms. A side that served no
 * response in its window has no time per request; shares then rank (as in results from before).
 */
import type { AttributedInto, FunctionCategory, FunctionId, FunctionStats, ProfileSummary } from '../results/types.js';
import { compareHotness } from './aggregate.js';
import { functionKey } from './frames.js';

export interface Share {
  /** Fractions of the side's non-idle samples. */
  self: number;
  total: number;
  /** Dependency code: withNatives (aggregate.ts) as a fraction; absent for other code and in results without it. */
  withNatives?: number;
}

/** Each side's CPU time per request in its profiled window, µs: a share of the side's samples times it is the function's time per request. */
export interface SideScale {
  base: number;
  head: number;
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
  /** Own code: attributed shares (aggregate.ts) of base and head (null: not on that side, or results without attribution). */
  attributed: { base: number | null; head: number | null } | null;
  /** Own code: head attributed share − base attributed share; for other code (and old results) the self change. */
  attributedChange: number;
  /** Own code: what its attributed time went into (frames other than itself), the biggest growth first. */
  into: IntoChange[];
  /** Both sides' CPU time per request (null: a side served no response while profiled, or results without it). */
  scale: SideScale | null;
  /** Time per request added in head, µs (own code: attributed time; other code: self time); null without scale. */
  added: number | null;
  /** Own code: deoptimized or left unoptimized by V8 in head and not in base (from the optimization trace); null otherwise. */
  optimization: OptimizationNote | null;
}

export interface IntoChange extends FunctionId {
  base: number;
  head: number;
  /** head share − base share. */
  change: number;
  /** Time per request added in head, µs; null without scale. */
  added: number | null;
}

export interface OptimizationNote {
  kind: 'deoptimized' | 'not-optimized';
  /** Times V8 deoptimized it in head's profiled run (0 for not-optimized). */
  count: number;
  reasons: string[];
}

type Pair<T> = [T | null, T | null];

/** Pairs base and head functions: same name, file and line; then moved lines (see above). */
export function matchFunctions<T extends FunctionId>(base: readonly T[], head: readonly T[]): Pair<T>[] {
  const pairs: Pair<T>[] = [];
  const headByKey = new Map(head.map((f) => [functionKey(f), f]));
  const unmatchedBase: T[] = [];
  const matchedHead = new Set<T>();
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
  const byNameFile = (list: T[]) => {
    const groups = new Map<string, T[]>();
    for (const f of list) {
      const key = `${f.name}\u0000${f.file}`;
      groups.set(key, [...(groups.get(key) ?? []), f]);
    }
    return groups;
  };
  const headGroups = byNameFile(unmatchedHead);
  const leftBase: T[] = [];
  for (const [key, bases] of byNameFile(unmatchedBase)) {
    const heads = headGroups.get(key);
    if (bases.length === 1 && heads?.length === 1 && bases[0]!.file !== '') {
      pairs.push([bases[0]!, heads[0]!]);
      headGroups.delete(key);
    } else {
      leftBase.push(...bases);
    }
  }
  let left: [T[], T[]] = [leftBase, [...headGroups.values()].flat()];
  left = pairUnique(pairs, left, (f) => f.hash ?? null);
  left = pairUnique(pairs, left, (f) => (isAnonymous(f) && f.enclosing !== undefined ? `${f.file}\u0000${f.enclosing}\u0000${f.kind ?? ''}` : null));
  for (const b of left[0]) pairs.push([b, null]);
  for (const h of left[1]) pairs.push([null, h]);
  return pairs;
}

/** V8 gave it no name: identifyFrame names it by its place. */
export function isAnonymous(fn: Pick<FunctionId, 'name'>): boolean {
  return fn.name.startsWith('(anonymous ');
}

/** Pairs the functions whose key (non-null) is held by exactly one function on each side; returns the rest. */
function pairUnique<T extends FunctionId>(pairs: Pair<T>[], [bases, heads]: [T[], T[]], keyOf: (f: T) => string | null): [T[], T[]] {
  const group = (list: T[]) => {
    const groups = new Map<string, T[]>();
    for (const f of list) {
      const key = keyOf(f);
      if (key !== null) groups.set(key, [...(groups.get(key) ?? []), f]);
    }
    return groups;
  };
  const headGroups = group(heads);
  const paired = new Set<T>();
  for (const [key, bs] of group(bases)) {
    const hs = headGroups.get(key);
    if (bs.length === 1 && hs?.length === 1) {
      pairs.push([bs[0]!, hs[0]!]);
      paired.add(bs[0]!).add(hs[0]!);
    }
  }
  return [bases.filter((f) => !paired.has(f)), heads.filter((f) => !paired.has(f))];
}

function share(f: FunctionStats | null, samples: number): Share | null {
  if (f === null) return null;
  const withNatives = f.withNatives === undefined ? {} : { withNatives: samples > 0 ? f.withNatives / samples : 0 };
  return samples > 0 ? { self: f.self / samples, total: f.total / samples, ...withNatives } : { self: 0, total: 0, ...withNatives };
}

/** V8 names a regular expression's frame by its pattern: "RegExp: ^\\/users". */
export const REGEXP_PREFIX = 'RegExp: ';

/**
 * A regex frame is named by its pattern, so a regex whose pattern changed (in the service or in
 * an upgraded package) would read as all new time on head and all gone on base. When exactly one
 * regex below the function is sampled on base only and exactly one on head only, they are the same
 * work before and after: head's entry takes base's share, under head's pattern.
 */
function pairChangedRegex(frames: Map<string, IntoChange>): void {
  const regexes = [...frames.entries()].filter(([, f]) => f.category === 'native' && f.name.startsWith(REGEXP_PREFIX));
  const gone = regexes.filter(([, f]) => f.head === 0);
  const fresh = regexes.filter(([, f]) => f.base === 0);
  if (gone.length !== 1 || fresh.length !== 1) return;
  const [[goneKey, old]] = gone as [[string, IntoChange]];
  fresh[0]![1].base = old.base;
  frames.delete(goneKey);
}

/**
 * Frames are keyed by name, file and line, so a function whose line moved (an upgraded package's
 * release often moves every function in a file) would read as all new time on head and all gone on
 * base. As matchFunctions does for the functions themselves: when exactly one frame of a name and
 * file is sampled on base only and exactly one on head only, they are the same function, and
 * head's entry takes base's share.
 */
function pairMovedFrames(frames: Map<string, IntoChange>): void {
  const byNameFile = (entries: [string, IntoChange][]) => {
    const groups = new Map<string, [string, IntoChange][]>();
    for (const entry of entries) {
      const key = `${entry[1].name}\u0000${entry[1].file}`;
      groups.set(key, [...(groups.get(key) ?? []), entry]);
    }
    return groups;
  };
  const located = [...frames.entries()].filter(([, f]) => f.file !== '');
  const fresh = byNameFile(located.filter(([, f]) => f.base === 0));
  for (const [key, gone] of byNameFile(located.filter(([, f]) => f.head === 0))) {
    const moved = fresh.get(key);
    if (gone.length !== 1 || moved?.length !== 1) continue;
    const [[goneKey, old]] = gone as [[string, IntoChange]];
    moved[0]![1].base = old.base;
    frames.delete(goneKey);
  }
}

/** What the attributed time of a matched own function went into, per frame, the biggest growth first. */
function intoChanges(b: FunctionStats | null, h: FunctionStats | null, baseSamples: number, headSamples: number, scale: SideScale | null): IntoChange[] {
  const frames = new Map<string, IntoChange>();
  const add = (list: AttributedInto[] | undefined, samples: number, side: 'base' | 'head') => {
    for (const { samples: n, ...id } of list ?? []) {
      const key = functionKey(id);
      const entry = frames.get(key) ?? { ...id, base: 0, head: 0, change: 0, added: null };
      entry[side] += samples > 0 ? n / samples : 0;
      frames.set(key, entry);
    }
  };
  add(b?.into, baseSamples, 'base');
  add(h?.into, headSamples, 'head');
  pairMovedFrames(frames);
  pairChangedRegex(frames);
  return [...frames.values()]
    .map((f) => ({ ...f, change: f.head - f.base, added: addedTime(f.base, f.head, scale) }))
    .sort((x, y) => (y.added ?? y.change) - (x.added ?? x.change) || y.head - x.head);
}

/** Time per request added in head, µs, from the two sides' shares; null without scale. */
export function addedTime(base: number | null, head: number | null, scale: SideScale | null): number | null {
  return scale === null ? null : (head ?? 0) * scale.head - (base ?? 0) * scale.base;
}

/**
 * The CPU time per request one sample stands for on each side, µs (V8's interval ÷ the
 * responses in the profiled window); null when a side served none or the interval is unknown.
 */
export function usPerSample(base: { requests?: number }, head: { requests?: number }, intervalUs: number | undefined): SideScale | null {
  const ok = (requests: number | undefined): requests is number => requests !== undefined && requests > 0;
  if (!(intervalUs !== undefined && intervalUs > 0 && ok(base.requests) && ok(head.requests))) return null;
  return { base: intervalUs / base.requests, head: intervalUs / head.requests };
}

/** Deoptimized or not optimized in head and not in base (a function new in head counts). */
function optimizationNote(b: FunctionStats | null, h: FunctionStats | null): OptimizationNote | null {
  const head = h?.optimization;
  if (!head) return null;
  if (head.deopts > 0 && !(b?.optimization?.deopts ?? 0)) return { kind: 'deoptimized', count: head.deopts, reasons: head.reasons };
  if (head.notOptimized?.length && !b?.optimization?.notOptimized?.length) return { kind: 'not-optimized', count: 0, reasons: head.notOptimized };
  return null;
}

/**
 * Every function of either side with its shares and change, and its time per request when both
 * sides have `requests` (responses in the profiled window) and `intervalUs` (V8's sampling
 * interval) is given.
 */
export function diffProfiles(base: ProfileSummary & { requests?: number }, head: ProfileSummary & { requests?: number }, intervalUs?: number): FunctionChange[] {
  const perSample = usPerSample(base, head, intervalUs);
  const scale = perSample && { base: base.samples * perSample.base, head: head.samples * perSample.head };
  return matchFunctions(base.functions, head.functions).map(([b, h]) => {
    const id = (h ?? b)!;
    const baseShare = share(b, base.samples);
    const headShare = share(h, head.samples);
    const reasons = [...new Set([...(h?.deoptReasons ?? []), ...(b?.deoptReasons ?? [])])];
    const change = (headShare?.self ?? 0) - (baseShare?.self ?? 0);
    const hasAttribution = b?.attributed !== undefined || h?.attributed !== undefined;
    const attributedShare = (f: FunctionStats | null, samples: number) =>
      f?.attributed === undefined ? null : samples > 0 ? f.attributed / samples : 0;
    const attributed = hasAttribution ? { base: attributedShare(b, base.samples), head: attributedShare(h, head.samples) } : null;
    return {
      name: id.name,
      file: id.file,
      line: id.line,
      column: id.column,
      category: id.category,
      package: id.package,
      ...(id.enclosing !== undefined && { enclosing: id.enclosing }),
      ...(id.kind !== undefined && { kind: id.kind }),
      ...(id.hash !== undefined && { hash: id.hash }),
      ...(id.endLine !== undefined && { endLine: id.endLine }),
      ...(id.source !== undefined && { source: id.source }),
      baseLine: b && h && b.line !== h.line ? b.line : null,
      status: b && h ? 'both' : h ? 'new' : 'gone',
      base: baseShare,
      head: headShare,
      change,
      deoptReasons: reasons,
      attributed,
      attributedChange: attributed === null ? change : (attributed.head ?? 0) - (attributed.base ?? 0),
      into: hasAttribution ? intoChanges(b, h, base.samples, head.samples, scale) : [],
      scale,
      added:
        id.category === 'own' && attributed !== null
          ? addedTime(attributed.base, attributed.head, scale)
          : addedTime(baseShare?.self ?? null, headShare?.self ?? null, scale),
      optimization: optimizationNote(b, h),
    };
  });
}

/** The larger of the two sides' values: time per request when scaled, else shares. */
function peak(c: FunctionChange, base: number | null | undefined, head: number | null | undefined): number {
  const s = c.scale ?? { base: 1, head: 1 };
  return Math.max((base ?? 0) * s.base, (head ?? 0) * s.head);
}

/** The larger self time of the two sides (time per request when scaled, else the share). */
export function peakSelf(c: FunctionChange): number {
  return peak(c, c.base?.self, c.head?.self);
}

/** The larger attributed time of the two sides (own code; the self time for other code and old results). */
export function peakAttributed(c: FunctionChange): number {
  if (c.attributed === null) return peakSelf(c);
  return peak(c, c.attributed.base, c.attributed.head);
}

/**
 * The rows a report shows: the `limit` functions of these categories with the most time on
 * either side, the biggest changes first (own code: the biggest growth first, then what shrank;
 * ties: hotter first). Own code is measured by its attributed time (aggregate.ts), everything
 * else by self time; changes are in time per request (in shares without it).
 */
export function hottestChanges(changes: readonly FunctionChange[], categories: readonly FunctionCategory[], limit: number): FunctionChange[] {
  const weight = (c: FunctionChange) => (c.category === 'own' ? peakAttributed(c) : peakSelf(c));
  const delta = (c: FunctionChange) => c.added ?? (c.category === 'own' ? c.attributedChange : c.change);
  // Own code: what grew first, the most first (the culprit leads), then what shrank (in shares,
  // when one function grows the others shrink with it). Other code: the biggest changes first.
  const order = (a: FunctionChange, b: FunctionChange) =>
    a.category === 'own' && b.category === 'own' ? delta(b) - delta(a) : Math.abs(delta(b)) - Math.abs(delta(a));
  return changes
    .filter((c) => categories.includes(c.category) && weight(c) > 0)
    .sort((a, b) => weight(b) - weight(a) || a.name.localeCompare(b.name))
    .slice(0, limit)
    .sort((a, b) => order(a, b) || weight(b) - weight(a) || a.name.localeCompare(b.name));
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
      if (category === 'own') {
        for (const f of [...inCategory].sort((a, b) => (b.attributed ?? 0) - (a.attributed ?? 0) || compareHotness(a, b)).slice(0, limit)) keep.add(f);
      }
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
