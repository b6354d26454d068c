#!/usr/bin/env -S npx tsx
/**
 * Re-renders every results file recorded in the repository (test/fixtures/**.json, and the
 * `results` of each line of docs/calibration/*.jsonl) to what a run shows and writes: the
 * markdown report, the terminal report (folded and full), the comment, verdicts.json and the
 * diff annotations, one directory per results file. Run it before and after a change to the
 * gate or the reports and diff the two directories: what a run decides and says must not move
 * unless the change means it to.
 *
 *   npx tsx scripts/rerender.ts <out-dir>
 */
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { culpritAnnotations } from '../src/action/annotations.js';
import { assessResults } from '../src/assess/compare.js';
import { renderComment } from '../src/report/comment.js';
import { renderMarkdown } from '../src/report/markdown.js';
import { renderTerminal } from '../src/report/terminal.js';
import { upgradeResults } from '../src/results/migrate.js';
import type { ChangeSet, Results } from '../src/results/types.js';
import { HEALTHY, healthResults } from '../test/helpers/health.js';
import { fixtureScenarioProfile } from '../test/helpers/profiles.js';
import { resultsFromPairs } from '../test/helpers/results.js';
import { buildVerdicts } from '../src/assess/verdicts.js';

const root = resolve(fileURLToPath(new URL('..', import.meta.url)));

function filesUnder(dir: string, ext: string): string[] {
  return readdirSync(join(root, dir), { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith(ext))
    .sort()
    .map((f) => join(dir, f));
}

/**
 * The test suite's profiled run (the recorded profiles of test/fixtures/profiles, slowEtag
 * grown) on a regressed or an unchanged route, with what the pull request changed, and its
 * blocking, leaking service: the recorded runs have no profiles, and these reach the culprit in
 * every place a report names it.
 */
function built(): { name: string; data: unknown }[] {
  const regressed: [number, number][] = Array.from({ length: 12 }, (_, i) => [1000 + (i % 3) * 7, 420 + (i % 4) * 5]);
  const unchanged: [number, number][] = Array.from({ length: 12 }, (_, i) => [1000 + (i % 3) * 7, 1000 + (i % 4) * 5]);
  const profiled = (pairs: [number, number][], changes?: ChangeSet, health = false): Results => {
    const results = health
      ? healthResults(20, { base: HEALTHY, head: { ...HEALTHY, delayP99Us: 48_000, delayMaxUs: 480_000, heapBytesPerRequest: 120, gcMsPer1k: 1.6 } })
      : resultsFromPairs(pairs);
    results.profiles = [fixtureScenarioProfile()];
    if (changes) results.changes = changes;
    return results;
  };
  const since = '0'.repeat(40);
  const changed = (hunks: [number, number][]): ChangeSet => ({ since, files: [{ file: 'src/payload.js', hunks }] });
  return [
    { name: 'built/profiled-regression', data: profiled(regressed) },
    { name: 'built/profiled-culprit-changed', data: profiled(regressed, changed([[12, 1]])) },
    { name: 'built/profiled-culprit-untouched', data: profiled(regressed, changed([[30, 2]])) },
    { name: 'built/profiled-edited-beside', data: profiled(regressed, changed([[6, 1]])) },
    { name: 'built/profiled-unchanged', data: profiled(unchanged, changed([[12, 1]])) },
    { name: 'built/profiled-health', data: profiled(regressed, changed([[12, 1]]), true) },
  ];
}

/** Each recorded results file: its name for the output directory, and its contents as recorded. */
function recorded(): { name: string; data: unknown }[] {
  const out: { name: string; data: unknown }[] = built();
  for (const file of filesUnder('test/fixtures', '.json')) {
    const data = JSON.parse(readFileSync(join(root, file), 'utf8')) as { schema?: unknown };
    if (data && data.schema === 'perfgate/results') out.push({ name: file, data });
  }
  for (const file of filesUnder('docs/calibration', '.jsonl')) {
    readFileSync(join(root, file), 'utf8')
      .split('\n')
      .forEach((line, i) => {
        if (line.trim() === '') return;
        const { results } = JSON.parse(line) as { results?: { schema?: unknown } };
        if (results?.schema === 'perfgate/results') out.push({ name: `${file}/${i + 1}`, data: results });
      });
  }
  return out;
}

function render(results: Results): Record<string, string> {
  const analysis = assessResults(results);
  return {
    'report.md': renderMarkdown(results, analysis),
    'comment.md': renderComment(results, analysis, 'rerender'),
    'terminal.txt': renderTerminal(results, analysis, { color: false, width: 120 }),
    'terminal-full.txt': renderTerminal(results, analysis, { color: false, width: 120, full: true, allFunctions: true }),
    'verdicts.json': `${JSON.stringify(buildVerdicts(results, analysis), null, 2)}\n`,
    'annotations.json': `${JSON.stringify(culpritAnnotations(results, analysis), null, 2)}\n`,
  };
}

const outDir = process.argv[2];
if (!outDir) {
  console.error('usage: npx tsx scripts/rerender.ts <out-dir>  (the directory the reports are written to)');
  process.exit(2);
}
let count = 0;
for (const { name, data } of recorded()) {
  const dir = join(resolve(outDir), name.replaceAll('/', '__'));
  mkdirSync(dir, { recursive: true });
  let files: Record<string, string>;
  try {
    files = render(upgradeResults(structuredClone(data), name));
  } catch (e) {
    files = { 'error.txt': `${(e as Error).message}\n` };
  }
  for (const [file, text] of Object.entries(files)) writeFileSync(join(dir, file), text);
  count++;
}
console.log(`${count} results files re-rendered into ${relative(process.cwd(), resolve(outDir)) || '.'}`);
