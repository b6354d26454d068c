/**
 * The runs `perfgate history` reads: every results.json under a directory, each read and checked
 * as strictly as report mode checks a downloaded artifact (results/validate.ts), since a history
 * gathers files from many runs. A file that does not pass is named and left out, never fatal.
 */
import { readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { ResultsFileError, readResults } from '../results/io.js';
import type { Results } from '../results/types.js';
import { validateResults } from '../results/validate.js';

/** The largest results file read, bytes: report mode's bound. */
export const MAX_RESULTS_BYTES = 64 * 1024 * 1024;
/** Directories deeper than this are not searched (a history is one folder per run, perhaps nested once or twice). */
const MAX_DEPTH = 6;

export interface CollectedRun {
  /** Relative to the directory searched. */
  file: string;
  results: Results;
}

export interface SkippedFile {
  file: string;
  reason: string;
}

/** Paths of the files named results.json under `dir`, in name order. */
function findResultsFiles(dir: string, depth = 0): string[] {
  if (depth > MAX_DEPTH) return [];
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...findResultsFiles(path, depth + 1));
    else if (entry.isFile() && entry.name === 'results.json') out.push(path);
  }
  return out;
}

/** Every readable run under `dir`, and each file left out with why. */
export function collectRuns(dir: string): { runs: CollectedRun[]; skipped: SkippedFile[] } {
  const runs: CollectedRun[] = [];
  const skipped: SkippedFile[] = [];
  for (const path of findResultsFiles(dir)) {
    const file = relative(dir, path) || path;
    try {
      runs.push({ file, results: validateResults(readResults(path, { maxBytes: MAX_RESULTS_BYTES }), file) });
    } catch (e) {
      if (!(e instanceof ResultsFileError)) throw e;
      skipped.push({ file, reason: e.message });
    }
  }
  return { runs, skipped };
}
