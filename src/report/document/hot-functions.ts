/**
 * The "Hot functions" sections as document parts: per profiled scenario, the tables of own code,
 * of dependencies, Node core and V8, and of packages, with where each function is and its link,
 * and the functions V8 deoptimized. The words are decided here (from profile/'s names and
 * places); the printers lay them out.
 */
import { join } from 'node:path';
import { scenarioUnchanged } from '../../assess/read.js';
import type { Assessment } from '../../assess/types.js';
import type { FunctionChange } from '../../profile/diff.js';
import { describeLocation } from '../../profile/frames.js';
import type { PackageRow } from '../../profile/packages.js';
import type { Results, ScenarioProfile } from '../../results/types.js';
import { repositoryFileUrl } from '../format.js';
import {
  describeChangeColumn,
  describeCulprit,
  describeOptimization,
  describeProfilesSkipped,
  describeProfiling,
  flamegraphFiles,
  HOT_FUNCTION_ROWS,
  type HotFunctionSection,
  hotFunctionCells,
  hotFunctionSections,
  packageCells,
  rowName,
  sourceSide,
} from './function-words.js';
import type { Cell, Column, HotFunctionsPart, HotFunctionsSection, Line, Table, Words } from './types.js';

const HOT_COLUMNS: Column[] = [
  { header: 'function', align: 'left' },
  { header: 'where', align: 'left' },
  { header: 'base', align: 'right' },
  { header: 'head', align: 'right' },
  { header: 'change', align: 'right' },
];

/** Where own code is on the web: the repository's page of its line, at the commit that was measured (base's for a gone function). */
function sourceLink(results: Results, repository: string | null, c: FunctionChange): string | null {
  const side = sourceSide(c);
  if (repository === null || c.category !== 'own' || results.sides[side].dirty) return null;
  return repositoryFileUrl(repository, results.sides[side].sha, c.file, c.line);
}

/**
 * A table of functions; own code ranked by attributed time shows what its time went into and
 * its self time instead of its total. `repository`: the web address own code links into, or null.
 */
function functionTable(results: Results, repository: string | null, rows: FunctionChange[], attributed: boolean): Table {
  const columns: Column[] = attributed
    ? [...HOT_COLUMNS, { header: 'spent in', align: 'left', wide: true }, { header: 'self time', align: 'left' }]
    : [...HOT_COLUMNS, { header: 'total time', align: 'right' }];
  return {
    columns,
    rows: rows.map((c) => {
      const cells = hotFunctionCells(c);
      const link = sourceLink(results, repository, c);
      const tail: Cell[] = attributed
        ? [
            { kind: 'text', text: cells.spentIn },
            { kind: 'figure', text: cells.self },
          ]
        : [{ kind: 'figure', text: cells.totals }];
      return {
        cells: [
          { kind: 'text', text: cells.name, ...(cells.deoptimized && { warn: true }) },
          { kind: 'text', text: cells.where, ...(link !== null && { href: link }) },
          { kind: 'figure', text: cells.base },
          { kind: 'figure', text: cells.head },
          { kind: 'figure', text: `${cells.change}${cells.marker ? ` ${cells.marker}` : ''}` },
          ...tail,
        ],
      };
    }),
  };
}

function packageTable(rows: PackageRow[]): Table {
  return {
    columns: [{ header: 'package', align: 'left' }, { header: 'version', align: 'left' }, ...HOT_COLUMNS.slice(2)],
    rows: rows.map((row) => {
      const c = packageCells(row);
      return {
        cells: [
          { kind: 'text', text: c.name },
          { kind: 'text', text: c.version },
          { kind: 'figure', text: c.base },
          { kind: 'figure', text: c.head },
          { kind: 'figure', text: c.change },
        ],
      };
    }),
  };
}

/** A function V8 deoptimized, or did not optimize, in words: its name, where it is, then V8's words (`between` them). */
function functionNote(name: string, c: FunctionChange, notes: string[], between: string): Line {
  const said = notes.flatMap((note, i): Line => [...(i === 0 ? [] : [words('; ')]), { kind: 'text', text: note }]);
  return [{ kind: 'text', text: name }, words(' ('), { kind: 'text', text: describeLocation(c) }, words(between), ...said];
}

function words(text: string): Extract<Cell, { kind: 'label' }> {
  return { kind: 'label', text };
}

/** "Flamegraphs: head · base · differential", linked where the caller has their web addresses. */
function flamegraphs(profile: ScenarioProfile, options: HotFunctionOptions): HotFunctionsPart['flamegraphs'] {
  const urls = options.artifactUrls ?? {};
  const files = flamegraphFiles(profile).map(({ kind, file }) => ({
    name: { long: kind === 'diff' ? 'differential' : kind, short: kind },
    file: options.runDir ? join(options.runDir, file) : file,
    href: urls[file] ?? null,
  }));
  if (files.length === 0) return null;
  return { title: 'Flamegraphs', lead: files.some((f) => f.href === null) ? ' (files next to results.json)' : '', files };
}

/** What the tables measure, with their unit: own code by the time of each function with what it calls, or self time. */
function measureWords(section: HotFunctionSection): Words {
  const unit = section.perRequest ? 'CPU time per request' : "% of each side's CPU samples";
  return section.attributed
    ? { long: `time of each own function, with the dependency, Node core and V8 code it calls, under the same load, ${unit}`, short: `own code: time of each function with the code it calls, ${unit}` }
    : { long: `self time under the same load, ${unit}`, short: `self time, ${unit}` };
}

function hotFunctionsPart(results: Results, analysis: Assessment, section: HotFunctionSection, options: HotFunctionOptions): HotFunctionsPart {
  const repository = options.repository ?? null;
  const { scenario } = section.profile;
  const changed = section.culprit !== null && !scenarioUnchanged(analysis, scenario);
  const warnings = [
    { title: 'Deoptimized by V8', items: section.deoptimized.map((c) => functionNote(c.name, c, c.deoptReasons, '): ')) },
    { title: null, items: section.optimization.map((c) => functionNote(rowName(c), c, [describeOptimization(c)], ') ')) },
  ];
  return {
    title: 'Hot functions',
    scenario,
    measure: measureWords(section),
    profiling: describeProfiling(section.profile),
    culprit: changed ? { title: 'Most new time', text: describeCulprit(section.culprit!) } : null,
    own: section.own.length === 0 ? null : functionTable(results, repository, section.own, section.attributed),
    ownMissing: { long: "No function of the service's own code was sampled on either side", short: "no function of the service's own code was sampled" },
    other:
      section.other.length === 0
        ? null
        : { title: { long: `Dependencies, Node core and V8 (top ${section.other.length})`, short: 'dependencies, Node core and V8' }, table: functionTable(results, repository, section.other, false) },
    packages:
      section.packages.length === 0
        ? null
        : {
            title: {
              long: "By package (the lockfile changed): each package's code with the Node core and V8 code it calls",
              short: "by package (each package's code with the Node core and V8 code it calls; the lockfile changed)",
            },
            table: packageTable(section.packages),
          },
    warnings: warnings.filter((group) => group.items.length > 0),
    flamegraphs: flamegraphs(section.profile, options),
  };
}

export interface HotFunctionOptions {
  /** Rows per table (default 10); 0 leaves the sections out. */
  rows?: number;
  /** The web address own code links into (a repository), or none. */
  repository?: string | null;
  /** The flamegraphs' web addresses, by their path as results.json names them. */
  artifactUrls?: Record<string, string>;
  /** The directory of results.json, for a view that names the flamegraphs' paths. */
  runDir?: string;
}

/** The legend under the sections. */
function legend(sections: readonly HotFunctionSection[]): HotFunctionsSection['legend'] {
  const change = describeChangeColumn(sections);
  return {
    columns: `${change[0]!.toUpperCase()}${change.slice(1)}; new / gone: sampled on one side only`,
    deoptimized: sections.some((section) => section.deoptimized.length > 0 || section.optimization.length > 0) ? 'deoptimized by V8 (reasons below)' : null,
    attributed: sections.some((section) => section.attributed)
      ? 'Own code: each sample counts for the innermost own function on its stack (its own code and the dependency, Node core, V8 and regex code it calls); spent in: the code below it that grew the most.'
      : null,
  };
}

/** A section per profiled scenario and the scenarios left unprofiled; null when there is neither, or `rows` is 0. */
export function hotFunctionsSection(results: Results, analysis: Assessment, options: HotFunctionOptions = {}): HotFunctionsSection | null {
  const rows = options.rows ?? HOT_FUNCTION_ROWS;
  if (rows <= 0) return null;
  const sections = hotFunctionSections(results, analysis, rows);
  const skipped = describeProfilesSkipped(results, analysis);
  if (sections.length === 0 && skipped === null) return null;
  return {
    parts: sections.map((section) => hotFunctionsPart(results, analysis, section, options)),
    legend: sections.length === 0 ? null : legend(sections),
    skipped,
  };
}
