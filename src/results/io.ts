import { closeSync, fstatSync, openSync, readFileSync, readSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { ResultsFileError, upgradeResults } from './migrate.js';
import type { Results } from './types.js';
import { writing } from './write-error.js';

export { ResultsFileError };

/** The text of a results.json: what is written, copied and uploaded is this, byte for byte. */
export function serializeResults(results: Results): string {
  return `${JSON.stringify(results, null, 2)}\n`;
}

/** Written after every pair: to a temporary file, then renamed, so a crash never leaves half a file. */
export function writeResults(path: string, results: Results): void {
  const tmp = `${path}.tmp`;
  writing(path, 'results.json', () => {
    try {
      writeFileSync(tmp, serializeResults(results));
      renameSync(tmp, path);
    } catch (e) {
      // A half-written copy on a full disk would only keep it full: results.json keeps the last whole write.
      rmSync(tmp, { force: true });
      throw e;
    }
  });
}

/** The file's text; with `maxBytes`, a bigger file is refused before it is read into memory. */
function readText(path: string, maxBytes: number | undefined): string {
  try {
    if (maxBytes === undefined) return readFileSync(path, 'utf8');
    const fd = openSync(path, 'r');
    try {
      const size = fstatSync(fd).size;
      if (size > maxBytes) {
        throw new ResultsFileError(`${path} is ${size} bytes, more than a results file can be (${maxBytes}): refusing to read it.`);
      }
      const buffer = Buffer.alloc(size);
      const read = readSync(fd, buffer, 0, size, 0);
      return buffer.subarray(0, read).toString('utf8');
    } finally {
      closeSync(fd);
    }
  } catch (e) {
    if (e instanceof ResultsFileError) throw e;
    throw new ResultsFileError(`Cannot read ${path}: ${(e as Error).message}. Pass the results.json a perfgate run wrote.`);
  }
}

/**
 * Reads a results.json and gives it the current shape (results/migrate.ts), whichever release
 * wrote it. Report mode reads files a pull request's code could have written: it passes
 * `maxBytes` and validates the whole file (results/validate.ts).
 */
export function readResults(path: string, options: { maxBytes?: number } = {}): Results {
  return parseResults(readText(path, options.maxBytes), path);
}

/** The text of a results.json read from elsewhere (an artifact), `source` naming it in errors; as readResults. */
export function parseResults(text: string, source: string): Results {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (e) {
    throw new ResultsFileError(`${source} is not valid JSON (${(e as Error).message}).`);
  }
  return upgradeResults(data, source);
}
