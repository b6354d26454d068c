/**
 * The words of the hot functions: per profiled scenario, the functions with the most time on
 * either side, own code first, their CPU time per request on base and head and the time added
 * (shares and percentage points for results without time per request), what a function's time
 * went into, and the culprit in words. The document builders (hot-functions.ts, the headline,
 * the hints) and the action's annotations say them; pure.
 */
import { regressedScenarios, scenarioCulprit, scenarioSubject, scenarioUnchanged } from '../../assess/read.js';
import type { Assessment } from '../../assess/types.js';
import type { Culprit } from '../../profile/culprit.js';
import { addedTime, type FunctionChange, hottestChanges, type IntoChange } from '../../profile/diff.js';
import { describeLocation } from '../../profile/frames.js';
import { describeCulpritPlace, describeFunction, describeInto, displayName } from '../../profile/names.js';
import { describeVersions, type PackageRow, pathInPackage } from '../../profile/packages.js';
import type { Analysis, FunctionCategory, Results, ScenarioProfile, Side } from '../../results/types.js';
import { formatChange, formatCount, formatDurationUs, MINUS } from '../../stats/format.js';
import { withConfirmation } from '../confirmation.js';
import { formatChangeOf, formatMetricName } from '../format.js';

/** Rows per table unless the caller asks for another number. */
export const HOT_FUNCTION_ROWS = 10;

const OTHER_CATEGORIES: readonly FunctionCategory[] = ['dependency', 'node', 'native'];

export interface HotFunctionSection {
  profile: ScenarioProfile;
  /** The service's own code: the table shown first. */
  own: FunctionChange[];
  /** Dependencies, Node core and V8/native: behind a switch. */
  other: FunctionChange[];
  /** Rows shown (own, then other) that V8 deoptimized, with its reasons. */
  deoptimized: FunctionChange[];
  /** Own rows V8 deoptimized or did not optimize in head and not in base (the optimization trace). */
  optimization: FunctionChange[];
  /** Whether the own table is ranked by attributed time (results from before it have self time only). */
  attributed: boolean;
  /** Whether the rows are CPU time per request (else shares of each side's samples: a side served no response while profiled). */
  perRequest: boolean;
  /** The own function whose attributed time grew the most, and what into (or the upgraded package that took most new time). */
  culprit: Culprit | null;
  /** CPU time per request by package, the most first; empty unless the PR changed a locked version (packages.ts). */
  packages: PackageRow[];
}

/** One section per profiled scenario, in the order of the results, from the profiles the assessment diffed. */
export function hotFunctionSections(results: Results, assessment: Pick<Assessment, 'subjects'>, rows = HOT_FUNCTION_ROWS): HotFunctionSection[] {
  return (results.profiles ?? []).flatMap((stored) => {
    const findings = scenarioSubject(assessment, stored.scenario)?.profile;
    if (!findings) return [];
    const { profile, changes, packages, culprit } = findings;
    const own = hottestChanges(changes, ['own'], rows);
    const other = hottestChanges(changes, OTHER_CATEGORIES, rows);
    return {
      profile,
      own,
      other,
      deoptimized: [...own, ...other].filter((c) => c.deoptReasons.length > 0),
      optimization: own.filter((c) => c.optimization !== null),
      attributed: own.some((c) => c.attributed !== null),
      perRequest: changes.some((c) => c.scale !== null),
      culprit,
      packages: packages.slice(0, rows),
    };
  });
}

/** What the change column holds, for the legend under the sections. */
export function describeChangeColumn(sections: readonly HotFunctionSection[]): string {
  return sections.every((section) => section.perRequest)
    ? "time per request: a function's share of the profiled window's CPU samples × the sampling interval ÷ the responses in the window; change: the time head added"
    : 'change: head share − base share, in percentage points (time per request where a section says so)';
}

/** A side's share: "38.4%", "<0.1%" for a sampled function under 0.05%, "—" when the side has none. */
function formatShare(fraction: number | null | undefined): string {
  if (fraction === null || fraction === undefined) return '—';
  if (fraction > 0 && fraction < 0.0005) return '<0.1%';
  return `${(fraction * 100).toFixed(1)}%`;
}

/** A change of shares in percentage points, signed like every other change: +36.3 pp, −2.1 pp. */
export function formatSharePoints(change: number): string {
  return formatChange(change).replace(/%$/, ' pp');
}

/** Time added per request: "+985 µs", "−1.2 ms", "0 µs". */
export function formatAdded(us: number): string {
  const text = formatDurationUs(Math.abs(us));
  if (/^0(\.0*)? /.test(text)) return text;
  return (us < 0 ? MINUS : '+') + text;
}

/** A side's value of a share: its time per request when the row is scaled ("1.18 ms"), else the share ("38.4%"); "—" when the side has none. */
function formatSide(c: FunctionChange, side: Side, share: number | null | undefined): string {
  if (share === null || share === undefined) return '—';
  return c.scale === null ? formatShare(share) : formatDurationUs(share * c.scale[side]);
}

/** The change of a pair of shares: time added per request when scaled, else percentage points. */
function formatDelta(c: FunctionChange, base: number | null | undefined, head: number | null | undefined): string {
  const added = addedTime(base ?? null, head ?? null, c.scale);
  return added === null ? formatSharePoints((head ?? 0) - (base ?? 0)) : formatAdded(added);
}

/** new / gone / moved: what the function's row stands for besides its numbers. */
function describeMarker(c: FunctionChange): string {
  if (c.status === 'new') return 'new';
  if (c.status === 'gone') return 'gone';
  return c.baseLine !== null ? `moved from line ${c.baseLine}` : '';
}

/** Total time: "12 µs → 160 µs" ("3.0% → 40.1%" unscaled). */
function describeTotals(c: FunctionChange): string {
  return `${formatSide(c, 'base', c.base?.total)} → ${formatSide(c, 'head', c.head?.total)}`;
}

/** The side whose code a row points at: head, unless the function is gone. */
export function sourceSide(c: FunctionChange): Side {
  return c.status === 'gone' ? 'base' : 'head';
}

/** The flamegraphs that were drawn, in the order reports list them. */
export function flamegraphFiles(profile: ScenarioProfile): { kind: 'head' | 'base' | 'diff'; file: string }[] {
  const { head, base, diff } = profile.files;
  return [
    { kind: 'head' as const, file: head },
    { kind: 'base' as const, file: base },
    { kind: 'diff' as const, file: diff },
  ].filter((entry): entry is { kind: 'head' | 'base' | 'diff'; file: string } => entry.file !== null);
}

/** How the profiles were taken, in one line. */
export function describeProfiling(profile: ScenarioProfile): string {
  const { base, head } = profile.sides;
  const seconds = formatDurationUs(profile.durationMs * 1000);
  const interval = formatDurationUs(profile.intervalUs);
  return `${seconds} of the scenario's load per side, sampled every ${interval}; ${formatCount(base.samples)} samples on base, ${formatCount(head.samples)} on head, idle time left out`;
}

/** Below this (a share of the side's samples; scaled: of base's CPU time per request) a frame is not named as where the time went. */
const INTO_MIN = 0.005;

/** A function's name in a table row: anonymous functions by their kind and enclosing function. */
export function rowName(c: FunctionChange): string {
  return displayName(c);
}

/** Attributed share of a side for an own row ("—" when the side has none); self share for old results. */
function attributedShare(c: FunctionChange, side: Side): number | null {
  if (c.attributed === null) return (side === 'base' ? c.base : c.head)?.self ?? null;
  return c.attributed[side];
}

/** Self time: "3 µs → 1 µs" ("0.1% → <0.1%" unscaled). */
function describeSelf(c: FunctionChange): string {
  return `${formatSide(c, 'base', c.base?.self)} → ${formatSide(c, 'head', c.head?.self)}`;
}

/** The cells a row's numbers fill: base, head, change (own code: attributed time; other code: self time). */
function rowNumbers(c: FunctionChange): { base: string; head: string; change: string } {
  const [base, head] = c.category === 'own' ? [attributedShare(c, 'base'), attributedShare(c, 'head')] : [c.base?.self ?? null, c.head?.self ?? null];
  return { base: formatSide(c, 'base', base), head: formatSide(c, 'head', head), change: formatDelta(c, base, head) };
}

/**
 * A hot-function row's cells, raw (the printers escape them): its name and whether V8
 * deoptimized it or left it unoptimized, where it is, base, head, the change with its marker
 * (new, gone, moved), and its total time, or for own code ranked by attributed time what that
 * went into and its self time.
 */
export interface HotFunctionCells {
  name: string;
  deoptimized: boolean;
  where: string;
  base: string;
  head: string;
  change: string;
  marker: string;
  totals: string;
  spentIn: string;
  self: string;
}

export function hotFunctionCells(c: FunctionChange): HotFunctionCells {
  const numbers = rowNumbers(c);
  return {
    name: rowName(c),
    deoptimized: c.deoptReasons.length > 0 || c.optimization !== null,
    where: describeLocation(c),
    ...numbers,
    marker: describeMarker(c),
    totals: describeTotals(c),
    spentIn: describeSpentIn(c),
    self: describeSelf(c),
  };
}

/** The growth of a frame below an own function, "+980 µs" ("+73.0 pp" unscaled). */
function formatIntoGrowth(into: IntoChange): string {
  return into.added === null ? formatSharePoints(into.change) : formatAdded(into.added);
}

/**
 * What an own function's attributed time went into, the biggest growth first:
 * "+980 µs in zlib processChunkSync"; when nothing below it grew, where most of head's went:
 * "410 µs in stringify". Empty when its own code holds the time. (Unscaled: "+73.0 pp in …",
 * "41.2% in …".) A frame is named from half a percent of the samples on.
 */
function describeSpentIn(c: FunctionChange): string {
  const [grew] = c.into;
  if (grew && (grew.added ?? grew.change) >= INTO_MIN * (c.scale?.base ?? 1)) return `${formatIntoGrowth(grew)} in ${describeInto(grew)}`;
  const busiest = [...c.into].sort((a, b) => b.head - a.head)[0];
  if (busiest && busiest.head >= INTO_MIN) return `${formatSide(c, 'head', busiest.head)} in ${describeInto(busiest)}`;
  return '';
}

/** "compressBody (src/x.js:7, changed by this PR) +1.1 ms per request, +1.08 ms of it in zlib processChunkSync" ("+74.1 pp" unscaled). */
export function describeCulprit(culprit: Culprit): string {
  const { fn, into } = culprit;
  if (culprit.package !== null) {
    const { name, added, change } = culprit.package;
    const own = fn.added === null ? '' : `, ${formatAdded(fn.added)} of it in ${displayName(fn)} (${pathInPackage(fn)}${fn.line > 0 ? `:${fn.line}` : ''})`;
    return `${name} ${describeVersions(change!)} (changed by this PR) ${formatAdded(added)} per request${own}`;
  }
  const growthOf = (c: FunctionChange) => (c.added === null ? formatSharePoints(c.attributedChange) : `${formatAdded(c.added)} per request`);
  const edited = culprit.edited === null ? '' : `; most in code this PR changed: ${describeFunction(culprit.edited)} ${growthOf(culprit.edited)}`;
  const place = describeCulpritPlace(culprit);
  if (into === null) return `${place} ${growthOf(fn)}${edited}`;
  // the frame below can grow more than the function's whole time when its other work shrank
  const intoGrowth = into.added ?? into.change;
  const fnGrowth = fn.added ?? fn.attributedChange;
  const below = intoGrowth <= fnGrowth ? `${formatIntoGrowth(into)} of it in ${describeInto(into)}` : `${describeInto(into)} below it ${formatIntoGrowth(into)}`;
  return `${place} ${growthOf(fn)}, ${below}${edited}`;
}

/** "deoptimized 12× in head only: wrong map; not a Smi", "not optimized in head only: …". */
export function describeOptimization(c: FunctionChange): string {
  const note = c.optimization;
  if (note === null) return '';
  const what = note.kind === 'deoptimized' ? `deoptimized ${note.count}× by V8 in head only` : 'not optimized by V8 in head only';
  return `${what}: ${note.reasons.join('; ')}`;
}

export interface ScenarioCulprit {
  scenario: string;
  /** The regression, "throughput −40.2%" (the gated one when there is one). */
  regression: string;
  /** Its culprit in own code, when the scenario was profiled and one grew; else null. */
  culprit: Culprit | null;
}

/** The headline's lines (regressedScenarios), each regression in words. */
export function regressionCulprits(analysis: Assessment): ScenarioCulprit[] {
  return regressedScenarios(analysis).map(({ scenario, regression, culprit }) => ({
    scenario,
    regression: `${formatMetricName(regression.metric)} ${formatChangeOf(regression.metric, regression.change)}`,
    culprit: culprit && { ...culprit, text: withConfirmation(culprit.text, analysis, scenario) },
  }));
}

/** The culprit's text for a health hint about a scenario, or null (not profiled, nothing grew). */
export function hintCulprit(assessment: Pick<Assessment, 'subjects'>, scenario: string): string | null {
  return scenarioCulprit(assessment, scenario)?.text ?? null;
}

/** A package row's cells: name, version (base → head when the PR changed it), time per request on each side, the change. */
export function packageCells(row: PackageRow): { name: string; version: string; base: string; head: string; change: string } {
  return {
    name: row.name,
    version: row.change === null ? 'unchanged' : describeVersions(row.change),
    base: row.base > 0 ? formatDurationUs(row.base) : '—',
    head: row.head > 0 ? formatDurationUs(row.head) : '—',
    change: formatAdded(row.added),
  };
}

/**
 * The scenarios the profile phase left out, with why (assess/look.ts): every verdict unchanged, or
 * nothing a CPU profile explains decided while another scenario regressed or improved; null when none.
 */
export function describeProfilesSkipped(results: Results, analysis: Analysis): string | null {
  const skipped = results.profilesSkipped ?? [];
  if (skipped.length === 0) return null;
  const unchanged = skipped.filter((name) => scenarioUnchanged(analysis, name));
  const undecided = skipped.filter((name) => !unchanged.includes(name));
  const reasons = [
    ...(unchanged.length > 0 ? [`every verdict unchanged: ${unchanged.join(', ')}`] : []),
    ...(undecided.length > 0 ? [`no decided change for a CPU profile to explain while another scenario has one: ${undecided.join(', ')}`] : []),
  ];
  return `Not profiled, ${reasons.join('; ')} (profile.when: always profiles every scenario)`;
}
