/**
 * The terminal report printed by the CLI: the markdown report's information, compact, as
 * aligned plain text. Pure: colour only when asked (the caller knows whether stdout is a TTY).
 */

import type { Assessment } from '../assess/types.js';
import type { Results } from '../results/types.js';
import { benchmarkRows } from './benchmarks.js';
import { sanitizeText } from './escape.js';
import { healthRows } from './health.js';
import { hotFunctionsSection } from './document/hot-functions.js';
import { benchmarkIntro, benchmarkTable, healthIntro, healthTable, verdictTable } from './document/tables.js';
import { LEVELS_METHOD, LEVELS_TITLE, levelTable } from './document/levels.js';
import { hintItems } from './document/hints.js';
import { ioSection } from './document/io.js';
import { headline, nothingChangedLine } from './document/headline.js';
import { describeSetup, describeSides, describeStopping } from './document/run-info.js';
import { warningsList } from './document/warnings.js';
import { benchmarkFailuresList, detectableList, failedRequestsList } from './document/method.js';
import type { List, Mark } from './document/types.js';
import { GATED_MARK, type Paint, painter, terminalGroupedTables, terminalHeadline, terminalHotFunctions, terminalIntro, terminalItem, terminalLine, terminalList, terminalTable, terminalTableSection, terminalVerdictDetails } from './print/terminal.js';
import { requestSection } from './document/requests.js';
import { nothingChanged, orderRows, type ReportRow } from './verdicts.js';

export interface TerminalOptions {
  /** ANSI colours; default false. */
  color?: boolean;
  /** Columns available; a table wider than this shortens scenario names. Default 100. */
  width?: number;
  /** Directory of results.json: the flamegraph paths are printed under it. Default: as results.json names them. */
  runDir?: string;
  /** Every table even when nothing changed (default: such a run folds to its headline and one line, like the comment). */
  full?: boolean;
  /** Where the folded tables are, said under the one line, e.g. "perfgate report run/results.json --full". Default: "--full". */
  fullReport?: string;
  /** Also the hot functions of dependencies, Node core and V8 (default: own code only). */
  allFunctions?: boolean;
}

const DEFAULT_WIDTH = 100;

const GATED_NOTE = `${GATED_MARK.trim()} gated: fails the build when it regresses significantly beyond its limit`;
/** Said instead of the tables of dependencies, Node core and V8 unless the reader asked for them. */
const OTHER_HIDDEN = '(own code only; --all-functions also shows dependencies, Node core and V8)';
const COLUMNS_NOTE = "base, head: each side's median; change: paired, the typical head/base change of the start pairs (Hodges–Lehmann), not the ratio of the medians";

function renderTable(rows: ReportRow[], width: number, paint: Paint): string[] {
  if (rows.length === 0) return ['nothing was compared: no pair was measured'];
  return [...terminalTable(verdictTable(rows), width, paint), GATED_NOTE, COLUMNS_NOTE];
}

/** The micro-benchmark table, after the HTTP one (or alone in a benchmarks-only run). */
function renderBenchmarks(results: Results, analysis: Assessment, width: number, paint: Paint, httpShown: boolean): string[] {
  if (!results.benchmarks) return [];
  const rows = benchmarkRows(analysis);
  const title = terminalIntro(benchmarkIntro(results));
  if (rows.length === 0) return ['', title, 'no micro-benchmark gave a number on either side'];
  const table = benchmarkTable(rows);
  // Reasons are long: under the table, so the names keep their width.
  return ['', title, ...terminalTable(table, width, paint), ...(httpShown || !rows.some((r) => r.gated) ? [] : [GATED_NOTE]), ...terminalVerdictDetails(table)];
}

/** The service levels' table, when the run has levels. */
function renderLevels(analysis: Assessment, width: number, paint: Paint): string[] {
  const table = levelTable(analysis);
  return table ? ['', `${LEVELS_TITLE.toLowerCase()} — ${LEVELS_METHOD}:`, ...terminalTable(table, width, paint)] : [];
}

/** The headline, then how the run was made. The design of the looks is at the end of the report (renderStopping). */
function renderHeadline(results: Results, analysis: Assessment, paint: Paint): string[] {
  return [
    ...terminalHeadline(headline(results, analysis), 'perfgate', paint),
    `${terminalLine(describeSides(results))} · ${terminalLine(describeSetup(results, analysis))}`,
  ];
}

/** How the interim looks went and the design they follow: for the curious, at the end. */
function renderStopping(results: Results): string[] {
  const stopping = describeStopping(results);
  return stopping === null ? [] : ['', terminalLine(stopping)];
}

/** A titled list after a blank line; nothing for none. */
function renderList(list: List | null, paint: Paint, mark?: Mark): string[] {
  return list === null ? [] : ['', ...terminalList(list, paint, mark)];
}

/** The per-request breakdown after a blank line; nothing when no scenario sends several requests. */
function renderRequests(results: Results): string[] {
  const section = requestSection(results);
  return section === null ? [] : ['', ...terminalTableSection(section)];
}

/** The smallest detectable change where it explains a verdict. */
function renderDetectable(rows: ReportRow[], analysis: Assessment): string[] {
  const lines = detectableList(rows, analysis);
  return lines.length === 0 ? [] : ['', ...lines.map(terminalLine)];
}

/* ---------- service health ---------- */

/**
 * The service-health tables (one per scenario, under its name: the rows are wide) and their
 * hints. Never shortened to a width: the metric names are perfgate's own and short, and a cut
 * one would lose its gated mark.
 */
function renderHealth(results: Results, analysis: Assessment, paint: Paint): string[] {
  const rows = healthRows(results, analysis);
  const hints = hintItems(analysis);
  if (rows.length === 0 && hints.length === 0) return [];
  return ['', terminalIntro(healthIntro(results)), ...terminalGroupedTables(healthTable(rows), paint), ...hints.map((item) => terminalItem(item, paint))];
}

/** The "I/O per request" lines (a blank line first); none when the run counted no outgoing I/O. */
export function renderIoTerminal(analysis: Assessment): string[] {
  const section = ioSection(analysis);
  if (section === null) return [];
  return ['', terminalIntro(section.intro), ...section.items.map((line) => `  ${terminalLine(line)}`)];
}

/**
 * A run where nothing changed, folded like the comment: the headline, one line with the gated
 * changes, where the tables are, and the warnings (they never fold away).
 */
function renderFolded(results: Results, analysis: Assessment, options: TerminalOptions, paint: Paint): string[] {
  return [
    ...renderHeadline(results, analysis, paint),
    '',
    terminalLine(nothingChangedLine(analysis)),
    `Every metric${hasMore(results, analysis) ? ', service health and hot functions' : ''}: ${sanitizeText(options.fullReport ?? '--full')}`,
    ...renderList(warningsList(analysis), paint, 'warn'),
  ];
}

/** Whether the run has sections besides the verdict tables (what the folded line names). */
function hasMore(results: Results, analysis: Assessment): boolean {
  return analysis.health !== undefined || (results.profiles?.length ?? 0) > 0;
}

/**
 * The terminal report: headline and decision, method line, table, warnings, power. A run where
 * nothing changed folds to its headline and one line unless `full` is set.
 */
export function renderTerminal(results: Results, analysis: Assessment, options: TerminalOptions = {}): string {
  const paint = painter(options.color ?? false);
  const rows = orderRows(results, analysis);
  if (!options.full && nothingChanged(results, analysis)) return renderFolded(results, analysis, options, paint).join('\n') + '\n';
  const width = options.width ?? DEFAULT_WIDTH;
  const httpShown = results.scenarios.length > 0 || !results.benchmarks;
  const lines = [
    ...renderHeadline(results, analysis, paint),
    '',
    // A project with micro-benchmarks alone has no HTTP table.
    ...(httpShown ? renderTable(rows, width, paint) : []),
    ...renderBenchmarks(results, analysis, width, paint, httpShown),
    ...renderLevels(analysis, width, paint),
    ...renderRequests(results),
    ...renderHealth(results, analysis, paint),
    ...renderIoTerminal(analysis),
    // The terminal links nothing: no repository address.
    ...terminalHotFunctions(hotFunctionsSection(results, analysis, { runDir: options.runDir }), width, paint, options.allFunctions ? null : OTHER_HIDDEN),
    ...renderList(warningsList(analysis), paint, 'warn'),
    ...renderList(failedRequestsList(analysis), paint),
    ...renderList(benchmarkFailuresList(analysis), paint),
    ...renderDetectable(rows, analysis),
    ...renderStopping(results),
  ];
  return lines.join('\n') + '\n';
}
