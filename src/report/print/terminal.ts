/**
 * Lays document tables out as aligned plain text for a terminal: sanitizes text from outside
 * perfgate, stars what is gated, signs each verdict with a symbol and colours it. It decides no
 * words.
 */
import { createColors } from 'picocolors';
// Columns text takes in a terminal: East Asian wide and emoji 2, combining marks 0.
import displayWidth from 'string-width';
import {
  type Cell,
  type Column,
  type Headline,
  type HotFunctionsPart,
  type HotFunctionsSection,
  type Intro,
  type Item,
  type Line,
  type List,
  type Mark,
  startsGroup,
  type Table,
  type TableRow,
  type TableSection,
} from '../document/types.js';
import { sanitizeText } from '../escape.js';

export type Style = 'red' | 'yellow' | 'green' | 'bold';
export type Paint = (text: string, style: Style | null) => string;

/** picocolors switches each style back off (not a full reset), so styles nest. */
export function painter(enabled: boolean): Paint {
  const colors = createColors(enabled);
  return (text, style) => (style === null ? text : colors[style](text));
}

const MARKS: Record<Mark, [string, Style | null]> = {
  fail: ['✗', 'red'],
  warn: ['!', 'yellow'],
  good: ['✓', 'green'],
  neutral: ['', null],
  unknown: ['?', 'yellow'],
  added: ['+', null],
  removed: ['-', null],
  hint: ['→', null],
};

const MIN_NAME_WIDTH = 8;
const COLUMN_GAP = '  ';
export const GATED_MARK = ' *';
const WARN_MARK = ' !';

/** A title as a terminal heading: in lower case ("service health"), but a word in capitals stays ("I/O per request"). */
function headingCase(title: string): string {
  return /^.[a-z]/.test(title) ? `${title[0]!.toLowerCase()}${title.slice(1)}` : title;
}

const graphemes = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

/** The longest run of `parts` whose width fits `width`, taken from the start (or from the end when `fromEnd`). */
function fitParts(parts: string[], width: number, fromEnd: boolean): string {
  let out = '';
  for (const part of fromEnd ? [...parts].reverse() : parts) {
    const next = fromEnd ? part + out : out + part;
    if (displayWidth(next) > width) break;
    out = next;
  }
  return out;
}

/**
 * Cuts text to at most `width` columns with "…" in its middle: names that share a start
 * ("GET /users/:id/orders", "GET /users/:id/refunds") differ at their end, so both ends stay.
 */
function fitWidth(text: string, width: number): string {
  if (displayWidth(text) <= width) return text;
  // Whole graphemes, so an emoji sequence or an accented letter is never cut in two.
  const parts = [...graphemes.segment(text)].map(({ segment }) => segment);
  const room = width - 1;
  const head = fitParts(parts, Math.ceil(room / 2), false);
  return `${head}…${fitParts(parts, room - displayWidth(head), true)}`;
}

function pad(text: string, width: number, align: Column['align']): string {
  const fill = ' '.repeat(Math.max(0, width - displayWidth(text)));
  return align === 'left' ? text + fill : fill + text;
}

/** Widest cell per column; the first column (names) gives way when the table is wider than `width`. */
function columnWidths(columns: Column[], cells: string[][], width: number): number[] {
  const widths = columns.map((_, i) => Math.max(...cells.map((row) => displayWidth(row[i]!))));
  const total = widths.reduce((a, b) => a + b, 0) + COLUMN_GAP.length * (columns.length - 1);
  const overflow = total - width;
  if (overflow > 0) widths[0] = Math.max(MIN_NAME_WIDTH, widths[0]! - overflow);
  return widths;
}

/** Pads every cell but the last (the verdict), then colours it: escape codes never shift columns. */
function renderTableLine(columns: Column[], cells: string[], widths: number[], style: Style | null, paint: Paint): string {
  const last = cells.length - 1;
  const padded = cells.map((cell, i) => (i === last ? cell : pad(fitWidth(cell, widths[i]!), widths[i]!, columns[i]!.align)));
  padded[last] = paint(padded[last]!, style);
  return padded.join(COLUMN_GAP);
}

/** A header line and one line per row, each row's last cell in its style. */
export function renderGrid(columns: Column[], cells: string[][], styles: (Style | null)[], width: number, paint: Paint): string[] {
  const widths = columnWidths(columns, [columns.map((c) => c.header), ...cells], width);
  return [
    paint(renderTableLine(columns, columns.map((c) => c.header), widths, null, paint), 'bold'),
    ...cells.map((row, i) => renderTableLine(columns, row, widths, styles[i]!, paint)),
  ];
}

/** A cell as plain text: outside text sanitized, gated starred, a verdict after its symbol (its reason goes under the table). */
export function terminalCell(cell: Cell): string {
  switch (cell.kind) {
    case 'text':
      if (cell.aside) return `(${sanitizeText(cell.text)})`;
      return sanitizeText(cell.text) + (cell.gated ? GATED_MARK : '') + (cell.warn ? WARN_MARK : '');
    case 'label':
      return cell.text + (cell.gated ? GATED_MARK : '');
    case 'figure':
      return cell.text + (cell.warn ? WARN_MARK : '');
    case 'verdict': {
      const [mark] = MARKS[cell.mark];
      return `${mark === '' ? '' : `${mark} `}${cell.words}`;
    }
  }
}

/** A row's colour: its verdict's. */
function rowStyle(row: TableRow): Style | null {
  const verdict = row.cells.find((c) => c.kind === 'verdict');
  return verdict?.kind === 'verdict' ? MARKS[verdict.mark][1] : null;
}

/**
 * The group column: the name on a group's first row, its note on the row under it (the name's
 * own width stays what it is), or after the name when the group has one row.
 */
function groupText(rows: readonly TableRow[], i: number): string {
  const group = rows[i]!.group;
  if (!group) return '';
  if (startsGroup(rows, i)) return sanitizeText(group.name) + (group.note && (i + 1 >= rows.length || startsGroup(rows, i + 1)) ? ` ${group.note}` : '');
  return group.note && startsGroup(rows, i - 1) ? group.note : '';
}

/**
 * A table in aligned columns, its first column shortened to fit `width`. A wide column goes
 * last and runs past the width rather than cut the names; its lines lose their trailing blanks.
 */
export function terminalTable(table: Table, width: number, paint: Paint): string[] {
  const all = table.group === undefined ? table.columns : [{ header: table.group, align: 'left' as const }, ...table.columns];
  const rows = table.rows.map((row, i) => [...(table.group === undefined ? [] : [groupText(table.rows, i)]), ...row.cells.map(terminalCell)]);
  const order = [...all.keys()].sort((a, b) => Number(all[a]!.wide ?? false) - Number(all[b]!.wide ?? false));
  const columns = order.map((i) => all[i]!);
  const cells = rows.map((row) => order.map((i) => row[i]!));
  if (!columns.at(-1)?.wide) return renderGrid(columns, cells, table.rows.map(rowStyle), width, paint);
  const lastWidth = Math.max(0, ...cells.map((row) => displayWidth(row.at(-1)!)));
  return renderGrid(columns, cells, table.rows.map(rowStyle), width + lastWidth, paint).map((line) => line.replace(/\s+$/, ''));
}

/**
 * One table per group, each under its group's name, never shortened to a width: the rows are
 * wide, and the names in them are perfgate's own and short.
 */
export function terminalGroupedTables(table: Table, paint: Paint): string[] {
  const names = [...new Set(table.rows.map((r) => r.group?.name ?? ''))];
  return names.flatMap((name) => {
    const own = table.rows.filter((r) => (r.group?.name ?? '') === name);
    const grid = renderGrid(table.columns, own.map((row) => row.cells.map(terminalCell)), own.map(rowStyle), Number.POSITIVE_INFINITY, paint);
    return [sanitizeText(name), ...grid.map((line) => line.replace(/\s+$/, ''))];
  });
}

/** The reasons of the table's verdicts, one line each under the table: "name: not compared, why". */
export function terminalVerdictDetails(table: Table): string[] {
  return table.rows.flatMap((row) => {
    const verdict = row.cells.find((c) => c.kind === 'verdict');
    if (verdict?.kind !== 'verdict' || !verdict.detail) return [];
    return [`${terminalCell(row.cells[0]!)}: ${verdict.words}, ${sanitizeText(verdict.detail)}`];
  });
}

/** A line of runs as plain text: outside text sanitized (what stands out in markdown reads plain here). */
export function terminalLine(line: Line): string {
  return line.map(terminalCell).join('');
}

/** A list item: its sign in its colour, what it is about, then its line. */
export function terminalItem(item: Item, paint: Paint): string {
  const [mark, style] = MARKS[item.mark];
  return `${mark === '' ? '' : `${paint(mark, style)} `}${sanitizeText(item.about)}: ${terminalLine(item.line)}`;
}

/**
 * The headline: the title, then the answer after the decision's sign, in its colour; the other
 * regressed scenarios, the counts, and the warnings a reader must see first, in yellow.
 */
export function terminalHeadline(headline: Headline, title: string, paint: Paint): string[] {
  const [mark, style] = MARKS[headline.mark];
  const lines = [`${paint(title, 'bold')}: ${paint(`${mark} ${terminalLine(headline.answer)}`, style)}`];
  lines.push(...headline.others.map((o) => `  ${sanitizeText(o.about)}: ${terminalLine(o.line)}`), headline.counts);
  const [warn, yellow] = MARKS.warn;
  if (headline.incomplete !== null) lines.push(paint(`${warn} ${headline.incomplete.flag}: ${terminalLine(headline.incomplete.why)}`, yellow));
  if (headline.baseCommands !== null) lines.push(paint(`${warn} ${terminalLine(headline.baseCommands)}`, yellow));
  return lines;
}

/** Lines of an excerpt under a list item (a failed file's stderr tail), after its first. */
const EXCERPT_LINES = 8;

/**
 * A titled list: the title in lower case as a heading, an indented line per item (after `mark`'s
 * sign when given); an excerpt's first line ends its item, its last lines follow, indented deeper.
 */
export function terminalList(list: List, paint: Paint, mark?: Mark): string[] {
  const [sign, style] = mark === undefined ? ['', null] : MARKS[mark];
  const items = list.items.flatMap((line, i) => {
    const [first, ...rest] = list.excerpts?.[i]?.split('\n') ?? [];
    return [
      `  ${sign === '' ? '' : `${paint(sign, style)} `}${terminalLine(line)}${first === undefined ? '' : sanitizeText(first)}`,
      ...rest.slice(-EXCERPT_LINES).map((text) => `      ${sanitizeText(text)}`),
    ];
  });
  return [`${headingCase(list.title)}:`, ...items];
}

/**
 * A titled table as lines, for rows too wide to align: the title in lower case, each group's name,
 * then a line per row, its named columns' values after their header; each note after its sign.
 */
export function terminalTableSection(section: TableSection): string[] {
  const { table } = section;
  const rows = table.rows.flatMap((row, i) => {
    const cells = row.cells.map((cell, c) => (table.columns[c]!.named ? `${table.columns[c]!.header} ${terminalCell(cell)}` : terminalCell(cell)));
    const line = `  ${cells.join(COLUMN_GAP)}`;
    return row.group && startsGroup(table.rows, i) ? [sanitizeText(row.group.name), line] : [line];
  });
  const notes = section.notes.map((note) => `${MARKS[note.mark][0]} ${terminalLine(note.line)}`);
  return [`${headingCase(section.title)}${section.lead}:`, ...rows, ...notes];
}

/** A section's opening as a heading: its title, then what it measures. */
export function terminalIntro(intro: Intro): string {
  return `${headingCase(intro.title)} — ${intro.about}:`;
}

/** The flamegraphs' paths, one a line, their names aligned under the heading. */
function terminalFlamegraphs(flamegraphs: NonNullable<HotFunctionsPart['flamegraphs']>): string[] {
  const heading = `${headingCase(flamegraphs.title)}:`;
  const width = Math.max(...flamegraphs.files.map((f) => f.name.short.length));
  return flamegraphs.files.map((f, i) => `${i === 0 ? heading : ' '.repeat(heading.length)} ${f.name.short.padEnd(width)} ${sanitizeText(f.file)}`);
}

/**
 * One scenario's hot functions after a blank line: its heading, the culprit, the own table, the
 * others (or `hiddenOther`, said instead when the caller leaves them out), V8's warnings, the
 * flamegraphs.
 */
function terminalHotFunctionsPart(part: HotFunctionsPart, width: number, paint: Paint, hiddenOther: string | null): string[] {
  const lines = ['', `${headingCase(part.title)}, ${sanitizeText(part.scenario)} (${part.measure.short}; ${sanitizeText(part.profiling)}):`];
  if (part.culprit !== null) lines.push(`${headingCase(part.culprit.title)}: ${sanitizeText(part.culprit.text)}`);
  lines.push(...(part.own === null ? [part.ownMissing.short] : terminalTable(part.own, width, paint)));
  if (part.other !== null) lines.push(...(hiddenOther === null ? [`${part.other.title.short}:`, ...terminalTable(part.other.table, width, paint)] : [hiddenOther]));
  if (part.packages !== null) lines.push(`${part.packages.title.short}:`, ...terminalTable(part.packages.table, width, paint));
  const [warn] = MARKS.warn;
  for (const group of part.warnings) lines.push(...group.items.map((item) => `${warn} ${group.title === null ? '' : `${headingCase(group.title)}: `}${terminalLine(item)}`));
  if (part.flamegraphs !== null) lines.push(...terminalFlamegraphs(part.flamegraphs));
  return lines;
}

/**
 * The hot-function sections, what their change column holds, and which scenarios were not
 * profiled; `hiddenOther`: said instead of the tables of dependencies, Node core and V8 when the
 * caller leaves them out.
 */
export function terminalHotFunctions(section: HotFunctionsSection | null, width: number, paint: Paint, hiddenOther: string | null): string[] {
  if (section === null) return [];
  return [
    ...section.parts.flatMap((part) => terminalHotFunctionsPart(part, width, paint, hiddenOther)),
    ...(section.legend === null ? [] : [headingCase(section.legend.columns)]),
    ...(section.skipped === null ? [] : ['', sanitizeText(section.skipped)]),
  ];
}
