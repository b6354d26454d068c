import { closeSync, fstatSync, openSync, readFileSync, readSync, renameSync, writeFileSync } from 'node:fs';
import { RESULTS_VERSION, type Results } from './types.js';

/** Written after every pair: to a temporary file, then renamed, so a crash never leaves half a file. */
export function writeResults(path: string, results: Results): void {
  const tmp = `${path}.tmp`;
  writeFileSync(tmp, `${JSON.stringify(results, null, 2)}\n`);
  renameSync(tmp, path);
}

export class ResultsFileError extends Error {}

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
 * Reads a results.json and checks what every reader relies on (schema and version). Report
 * mode reads files a pull request's code could have written: it passes `maxBytes` and
 * validates the whole file (results/validate.ts).
 */
export function readResults(path: string, options: { maxBytes?: number } = {}): Results {
  const text = readText(path, options.maxBytes);
  let data: Partial<Results>;
  try {
    data = JSON.parse(text);
  } catch (e) {
    throw new ResultsFileError(`${path} is not valid JSON (${(e as Error).message}).`);
  }
  if (data === null || typeof data !== 'object' || data.schema !== 'perfgate/results') {
    throw new ResultsFileError(`${path} is not a perfgate results file (no "schema": "perfgate/results").`);
  }
  if (data.version !== RESULTS_VERSION) {
    const version = typeof data.version === 'number' ? data.version : 'unknown';
    throw new ResultsFileError(
      `${path} has results version ${version}; this perfgate reads version ${RESULTS_VERSION}. Use the perfgate release that wrote it.`,
    );
  }
  return data as Results;
}
