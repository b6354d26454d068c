/**
 * Lays document tables out as GitHub markdown: escapes text from outside perfgate, bolds what is
 * gated, and signs each verdict with an emoji. It decides no words.
 */
import {
  type Cell,
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
  type TitledTable,
} from '../document/types.js';
import { escapeMarkdown } from '../escape.js';
import { truncate } from '../../stats/format.js';

export const MARKS: Record<Mark, string> = {
  fail: '❌',
  warn: '⚠️',
  good: '✅',
  neutral: '',
  unknown: '❔',
  added: '➕',
  removed: '➖',
  hint: '💡',
};

/** One table row; cells must already be escaped. */
export function tableRow(cells: string[]): string {
  return `| ${cells.join(' | ')} |`;
}

/** A header row and its delimiter row; `r` in `align` right-aligns a column (numbers). */
export function tableHead(headers: string[], align: string): string {
  const delimiters = headers.map((_, i) => (align[i] === 'r' ? '--:' : ':--'));
  return [tableRow(headers), tableRow(delimiters)].join('\n');
}

function gated(text: string, isGated: boolean | undefined): string {
  return isGated ? `**${text}**` : text;
}

function warned(text: string, warn: boolean | undefined): string {
  return warn ? `${text} ⚠️` : text;
}

/** A cell as markdown: outside text escaped, gated bold, a verdict with its sign and, after a colon, why. */
export function markdownCell(cell: Cell): string {
  switch (cell.kind) {
    case 'text': {
      if (cell.aside) return `_(${escapeMarkdown(cell.text)})_`;
      const text = gated(escapeMarkdown(cell.text), cell.gated || cell.strong);
      return warned(cell.href === undefined ? text : `[${text}](${cell.href})`, cell.warn);
    }
    case 'label':
      return gated(cell.text, cell.gated || cell.strong);
    case 'figure':
      return warned(cell.text, cell.warn);
    case 'verdict': {
      const mark = MARKS[cell.mark];
      const detail = cell.detail ? `: ${escapeMarkdown(cell.detail)}` : '';
      return `${mark === '' ? '' : `${mark} `}${cell.words}${detail}`;
    }
  }
}

/** The group cell: its name on the group's first row, the note on a line under it. */
function groupCell(rows: readonly TableRow[], i: number): string {
  const group = rows[i]!.group;
  if (!group || !startsGroup(rows, i)) return '';
  return `${escapeMarkdown(group.name)}${group.note ? `<br>${group.note}` : ''}`;
}

/** A table with its header (the long headers: markdown has the room), a line per row. */
export function markdownTable(table: Table): string {
  const columns = table.group === undefined ? table.columns : [{ header: table.group, align: 'left' as const }, ...table.columns];
  const head = tableHead(
    columns.map((c) => c.long ?? c.header),
    columns.map((c) => (c.align === 'right' ? 'r' : 'l')).join(''),
  );
  const rows = table.rows.map((row, i) => tableRow([...(table.group === undefined ? [] : [groupCell(table.rows, i)]), ...row.cells.map(markdownCell)]));
  return [head, ...rows].join('\n');
}

/** A line of runs as markdown: outside text escaped, what stands out bold. */
export function markdownLine(line: Line): string {
  return line.map(markdownCell).join('');
}

/** A list item: its sign, what it is about in bold, then its line. */
export function markdownItem(item: Item): string {
  const mark = MARKS[item.mark];
  return `- ${mark === '' ? '' : `${mark} `}**${escapeMarkdown(item.about)}:** ${markdownLine(item.line)}`;
}

/**
 * The headline: a heading with the title, the decision's sign and the answer (and a flag when the
 * run is incomplete); under it the other regressed scenarios, a warning, then the counts.
 */
export function markdownHeadline(headline: Headline, title: string): string {
  const flag = headline.incomplete === null ? '' : ` · ${MARKS.warn} ${headline.incomplete.flag}`;
  const heading = `## ${escapeMarkdown(title)}: ${MARKS[headline.mark]} ${markdownLine(headline.answer)}${flag}`;
  const lines = headline.others.map((o) => `${o.found ? '🔎' : '📉'} **${escapeMarkdown(o.about)}:** ${markdownLine(o.line)}`);
  if (headline.baseCommands !== null) lines.push(`${MARKS.warn} ${markdownLine(headline.baseCommands)}`);
  return `${heading}\n\n${[...lines, headline.counts].join('<br>\n')}`;
}

/** A note set apart in a quote, after a warning sign: what must not be missed. */
export function markdownNote(line: Line): string {
  return `> ${MARKS.warn} ${markdownLine(line)}`;
}

/** Longest excerpt under a list item (a failed file's stderr); the whole log is in the artifacts. */
const MAX_EXCERPT_CHARS = 1200;

/** A titled list: the title in bold, a "- " line per item, an item's excerpt after it with its line breaks kept. */
export function markdownList(list: List): string {
  const title = list.lead === undefined ? `**${list.title}.**` : `**${list.title}**${list.lead}`;
  const items = list.items.map((line, i) => {
    const excerpt = list.excerpts?.[i];
    const after = excerpt === undefined ? '' : truncate(excerpt, MAX_EXCERPT_CHARS).split('\n').map(escapeMarkdown).join('<br>');
    return `- ${markdownLine(line)}${after}`;
  });
  return [title, ...items].join('\n');
}

/** A titled table: the title in bold and what it says, the table, then each note after its sign. */
export function markdownTableSection(section: TableSection): string {
  const notes = section.notes.map((note) => `${MARKS[note.mark]} ${markdownLine(note.line)}`);
  return [`**${section.title}**${section.lead}`, markdownTable(section.table), ...notes].join('\n\n');
}

/** A section's opening: its title in bold, then what it measures. */
export function markdownIntro(intro: Intro): string {
  return `**${intro.title}** · ${intro.about}.`;
}

/** A table folded away under its title. */
function markdownDetails(titled: TitledTable): string {
  return [`<details><summary>${titled.title.long}</summary>`, markdownTable(titled.table), '</details>'].join('\n\n');
}

/** "Flamegraphs: head · base · differential", each a link where it has a web address, else named with its file. */
function markdownFlamegraphs(flamegraphs: NonNullable<HotFunctionsPart['flamegraphs']>): string {
  const files = flamegraphs.files.map((f) => (f.href === null ? `${f.name.long} ${escapeMarkdown(f.file)}` : markdownCell({ kind: 'text', text: f.name.long, href: f.href })));
  return `${flamegraphs.title}${flamegraphs.lead}: ${files.join(' · ')}`;
}

/** One scenario's hot functions: its title, the culprit after 🔎, the own table, the others folded, V8's warnings, the flamegraphs. */
function markdownHotFunctionsPart(part: HotFunctionsPart): string {
  const parts = [`**${part.title}, ${escapeMarkdown(part.scenario)}** (${part.measure.long}): ${escapeMarkdown(part.profiling)}.`];
  if (part.culprit !== null) parts.push(`🔎 ${part.culprit.title}: ${escapeMarkdown(part.culprit.text)}.`);
  parts.push(part.own === null ? `_${part.ownMissing.long}._` : markdownTable(part.own));
  if (part.other !== null) parts.push(markdownDetails(part.other));
  if (part.packages !== null) parts.push(markdownDetails(part.packages));
  for (const group of part.warnings) parts.push(`${MARKS.warn} ${group.title === null ? '' : `${group.title}: `}${group.items.map(markdownLine).join(' · ')}`);
  if (part.flamegraphs !== null) parts.push(markdownFlamegraphs(part.flamegraphs));
  return parts.join('\n\n');
}

/** The hot-function sections, then in small print how to read them and which scenarios were not profiled; null for neither. */
export function markdownHotFunctions(section: HotFunctionsSection | null): string | null {
  if (section === null) return null;
  const { legend } = section;
  const notes = [
    legend === null ? null : `${legend.columns}${legend.deoptimized === null ? '' : `; ${MARKS.warn} ${legend.deoptimized}`}.${legend.attributed === null ? '' : ` ${legend.attributed}`}`,
    section.skipped === null ? null : `${escapeMarkdown(section.skipped)}.`,
  ];
  return [...section.parts.map(markdownHotFunctionsPart), ...notes.flatMap((note) => (note === null ? [] : [`<sub>${note}</sub>`]))].join('\n\n');
}
