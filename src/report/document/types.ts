/**
 * The report document: what a report says, as typed cells and tables, built once by the document
 * builders (src/report/document/) from the Assessment. The printers (src/report/print/) only
 * escape, colour and lay it out, so markdown and the terminal cannot say different things. Pure.
 */
import type { MetricId } from '../../config/types.js';

/** How a verdict reads: fail (gated regression), warn, good, neutral (unchanged), unknown. */
export type Tone = 'fail' | 'warn' | 'good' | 'neutral' | 'unknown';

/** The sign before a verdict's words or a list item: a tone, a benchmark only one side has, or a hint that explains. */
export type Mark = Tone | 'added' | 'removed' | 'hint';

/**
 * One cell of a table.
 * - `text`: words from outside perfgate (a scenario or benchmark name, a path): printers escape them;
 *   `href`: where it links to (a view with links makes it one); `strong`: it stands out (what changed);
 *   `aside`: said in passing, in parentheses (a warning's code).
 * - `label`: perfgate's own words (a metric name): printed as they are; `strong`: they lead what
 *   follows (bold in markdown, plain in a terminal).
 * - `figure`: a number perfgate formatted with its unit, or a change with its interval: printed as it is.
 * - `verdict`: a mark (its sign and colour are the printer's) and perfgate's words for it; `detail`
 *   says why, from outside perfgate (a failed benchmark's reason).
 * A gated cell names what fails the build (bold in markdown, starred in a terminal); a `warn` cell
 * carries a warning sign after it (a function V8 deoptimized, a detectable change larger than the
 * limit).
 */
export type Cell =
  | { kind: 'text'; text: string; gated?: boolean; warn?: boolean; href?: string; strong?: boolean; aside?: boolean }
  | { kind: 'label'; text: string; gated?: boolean; strong?: boolean }
  | { kind: 'figure'; text: string; warn?: boolean }
  | { kind: 'verdict'; mark: Mark; words: string; detail?: string };

/** A sentence or a list item: runs of outside text and perfgate's words, joined as they come. */
export type Line = Extract<Cell, { kind: 'text' | 'label' | 'figure' }>[];

/** An item of a list: its sign, what it is about (a scenario, from outside perfgate), and what it says. */
export interface Item {
  mark: Mark;
  about: string;
  line: Line;
}

export interface Column {
  /** The header a narrow view shows (a terminal, under which a note explains it). */
  header: string;
  /** The header where there is room to say more (markdown); default `header`. */
  long?: string;
  align: 'left' | 'right';
  /** Free text that may run long (what a function's time went into): a narrow view puts it last and lets it run past its width. */
  wide?: boolean;
  /** A view that prints each row as a line names this column's value with its header ("p50 1 ms → 2 ms"). */
  named?: boolean;
}

/** A group of rows (a scenario): its name from outside perfgate, and perfgate's note on it (a fixed rate). */
export interface Group {
  name: string;
  note?: string;
}

export interface TableRow {
  /** The group the row belongs to; rows of one group are adjacent. */
  group?: Group;
  cells: Cell[];
}

/** A table; `group` names the column of its rows' groups ("scenario") when they have one. */
export interface Table {
  group?: string;
  columns: Column[];
  rows: TableRow[];
}

/** Whether row `i` starts its group (the rows of a group are adjacent): only a group's first row names it. */
export function startsGroup(rows: readonly TableRow[], i: number): boolean {
  return i === 0 || rows[i - 1]!.group?.name !== rows[i]!.group?.name;
}

/**
 * The answer first: the decision with the change that leads it and its culprit, then every other
 * regressed scenario, the counts, and what a reader must know before the tables.
 */
export interface Headline {
  /** The decision's sign: fail, good (a pass), warn (a failing run a label accepted). */
  mark: Extract<Tone, 'fail' | 'good' | 'warn'>;
  /** The decision in words; an accepted run first names the label that accepted it. */
  answer: Line;
  /** Every other route head broke, then every other regressed scenario: what regressed and, when `found`, the culprit in the service's own code. */
  others: { about: string; found: boolean; line: Line }[];
  /** "1 regression · 1 improvement · 5 unchanged". */
  counts: string;
  /** An incomplete run: its `flag` beside the answer and `why` under it. */
  incomplete: { flag: string; why: Line } | null;
  /** Why base ran with head's service commands: it changes what the comparison means. */
  baseCommands: Line | null;
}

/**
 * A titled list (warnings, the environment, the benchmark files that failed). The title is
 * perfgate's words, capitalized; a view may print it as a heading of its own kind.
 */
export interface List {
  title: string;
  /** Said after the title, before the items (", in the order they ran:"). */
  lead?: string;
  items: Line[];
  /** Text from outside perfgate under an item (a failed file's stderr), one entry per item; a view shows what fits it. */
  excerpts?: string[];
}

/** A titled table: the title (perfgate's words, capitalized), what it says after it, and notes under it. */
export interface TableSection {
  title: string;
  lead: string;
  table: Table;
  /** Said under the table after its sign (why some requests failed). */
  notes: { mark: Mark; line: Line }[];
}

/** A section's opening: its title (perfgate's words, capitalized) and what the section measures, in a clause. */
export interface Intro {
  title: string;
  about: string;
}

/** The verdicts a gated row can have, most notable first (a chart with too many rows drops from the end). */
export const CHART_TONES = ['fail', 'unknown', 'good', 'neutral'] as const satisfies readonly Tone[];
export type ChartTone = (typeof CHART_TONES)[number];

/** One scenario's gated change, in percent, signed so that positive is worse. */
export interface ChartRow {
  /** From outside perfgate: the printer makes it safe. */
  scenario: string;
  tone: ChartTone;
  worse: number;
  /** The 95% interval, better end first; null when the run had too few start pairs for one. */
  interval: [number, number] | null;
  /** A "no regression" verdict: drawn grey like unchanged (nothing to act on), named in the legend. */
  noRegression?: boolean;
}

/** The words of one chart, perfgate's own: printed as they are. */
export interface ChartWords {
  title: string;
  /** The title and the description a screen reader reads. */
  accessibleTitle: string;
  description: string;
  /** What the value axis measures, so that right is worse: "% drop in throughput (right is worse)". */
  axis: string;
  /** The last row's label: the ±limit zone. */
  zone: string;
  /** The name of each series, as a reader of the chart's text sees it. */
  series: Record<ChartTone, string> & { within: string; estimate: string; limit: string; zero: string };
}

/** The rows of one gated metric, in the table's scenario order. */
export interface MetricChart {
  metric: MetricId;
  /** Throughput: a drop is worse, drawn to the right. */
  higherIsBetter: boolean;
  /** Fraction, e.g. 0.02. */
  limit: number;
  rows: ChartRow[];
  /** Scenarios with this metric gated, when more than the chart shows. */
  total: number;
  words: ChartWords;
}

/** The charts of a run and how to read them (the charts draw no legend). */
export interface ChartSection {
  charts: MetricChart[];
  legend: string;
}

/** Words a view with room says in full (markdown), and the shorter ones a narrow view says (a terminal); each printed as it is. */
export interface Words {
  long: string;
  short: string;
}

/** A table under its title, which a view may fold away (markdown's details) or leave out. */
export interface TitledTable {
  title: Words;
  table: Table;
}

/** A drawing a run wrote next to results.json: its name, where it is, and its web address when it has one. */
export interface FileLink {
  name: Words;
  file: string;
  href: string | null;
}

/** One profiled scenario's hot functions: what they measure, its culprit, the tables, V8's notes and the flamegraphs. */
export interface HotFunctionsPart {
  /** "Hot functions" (capitalized), said with the scenario. */
  title: string;
  /** From outside perfgate. */
  scenario: string;
  /** What the tables measure, with their unit. */
  measure: Words;
  /** How the profiles were taken (printed as outside text: it is escaped with the scenario's name around it). */
  profiling: string;
  /** Where most new time went, when the scenario changed: a title (capitalized) and the culprit (from outside perfgate: it names the user's code). */
  culprit: { title: string; text: string } | null;
  /** The service's own code; null when none was sampled, and `ownMissing` says so instead. */
  own: Table | null;
  ownMissing: Words;
  /** Dependencies, Node core and V8; null when none was sampled. */
  other: TitledTable | null;
  /** Time per package when the pull request changed a locked version; else null. */
  packages: TitledTable | null;
  /** What V8 did to the functions shown: each group after a warning sign, under its title (capitalized) when it has one. */
  warnings: { title: string | null; items: Line[] }[];
  /** The flamegraphs (title capitalized); `lead` is said after the title where the files are named rather than linked. */
  flamegraphs: { title: string; lead: string; files: FileLink[] } | null;
}

/** The hot-function sections of a run and how to read their tables. */
export interface HotFunctionsSection {
  parts: HotFunctionsPart[];
  /**
   * What the change column holds (capitalized); where a view has room, also what the warning
   * sign means and what own code's time is; null when nothing was profiled.
   */
  legend: { columns: string; deoptimized: string | null; attributed: string | null } | null;
  /** The scenarios left unprofiled and why (names from outside perfgate); null when none. */
  skipped: string | null;
}
