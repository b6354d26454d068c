import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { RESULTS_VERSION, type Results } from './types.js';

/** Written after every pair: to a temporary file, then renamed, so a crash never leaves half a file. */
export function writeResults(path: string, results: Results): void {
  const tmp = `${path}.tmp`;
  writeFileSync(tmp, `${JSON.stringify(results, null, 2)}\n`);
  renameSync(tmp, path);
}

export class ResultsFileError extends Error {}

export function readResults(path: string): Results {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    throw new ResultsFileError(`Cannot read ${path}: ${(e as Error).message}. Pass the results.json a perfgate run wrote.`);
  }
  let data: Partial<Results>;
  try {
    data = JSON.parse(text);
  } catch (e) {
    throw new ResultsFileError(`${path} is not valid JSON (${(e as Error).message}).`);
  }
  if (data?.schema !== 'perfgate/results') {
    throw new ResultsFileError(`${path} is not a perfgate results file (no "schema": "perfgate/results").`);
  }
  if (data.version !== RESULTS_VERSION) {
    throw new ResultsFileError(
      `${path} has results version ${data.version}; this perfgate reads version ${RESULTS_VERSION}. Use the perfgate release that wrote it.`,
    );
  }
  return data as Results;
}
