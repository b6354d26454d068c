/**
 * The "Hot functions" sections as document parts: per profiled scenario, the tables of own code,
 * of dependencies, Node core and V8, and of packages, with where each function is and its link,
 * and the functions V8 deoptimized. The words are decided here (from profile/'s names and
 * places); the printers lay them out.
 */
import type { Assessment } from '../../assess/types.js';
import type { FunctionChange } from '../../profile/diff.js';
import { describeLocation } from '../../profile/frames.js';
import type { PackageRow } from '../../profile/packages.js';
import type { Results } from '../../results/types.js';
import { repositoryFileUrl } from '../format.js';
import { describeOptimization, type HotFunctionSection, hotFunctionCells, hotFunctionSections, packageCells, rowName, sourceSide } from '../hot-functions.js';
import type { Cell, Column, Table } from './types.js';

/** A function named with where it is, and what V8 said of it. */
export interface FunctionNote {
  name: string;
  where: string;
  /** Its deoptimization reasons, or what the optimization trace says ("deoptimized 12× by V8 in head only: …"). */
  note: string[];
}

export interface HotFunctionPart {
  section: HotFunctionSection;
  own: Table;
  other: Table;
  packages: Table;
  /** Rows shown that V8 deoptimized, with its reasons. */
  deoptimized: FunctionNote[];
  /** Own rows V8 deoptimized or did not optimize in head only. */
  optimization: FunctionNote[];
}

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

/** One part per profiled scenario, `rows` rows per table. */
export function hotFunctionParts(results: Results, analysis: Assessment, rows: number, repository: string | null): HotFunctionPart[] {
  return hotFunctionSections(results, analysis, rows).map((section) => ({
    section,
    own: functionTable(results, repository, section.own, section.attributed),
    other: functionTable(results, repository, section.other, false),
    packages: packageTable(section.packages),
    deoptimized: section.deoptimized.map((c) => ({ name: c.name, where: describeLocation(c), note: c.deoptReasons })),
    optimization: section.optimization.map((c) => ({ name: rowName(c), where: describeLocation(c), note: [describeOptimization(c)] })),
  }));
}
