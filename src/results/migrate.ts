/**
 * Every results.json is read through `upgradeResults`: the one place that knows what earlier
 * releases wrote. It checks the envelope (schema and version) and gives the file the current
 * shape (results/schema.ts), filling what older files lack with the value that describes how
 * those runs went, so the gate and the reports read every file the same way.
 *
 * Version 1 is every file written so far: fields were added to it one release at a time, each
 * optional for readers of the files before it. A field whose absence has one meaning is filled
 * here; a field that is also absent in current files (a slice without health data, a scenario
 * without a sampled answer) stays optional in the schema. A change an older perfgate would
 * misread bumps RESULTS_VERSION and adds a step here, from the previous version to the new one.
 *
 * The input is untrusted (report mode reads files a pull request's code could have written),
 * and validation comes after this: a value is only ever added where an object lacks the key,
 * never read or changed, so a malformed file reaches the schema as malformed as it was.
 */
import { DEFAULT_GATE, DEFAULT_HEAP_GROWTH } from '../config/defaults.js';
import { GATE_KEYS } from '../config/types.js';
import { VERSION } from '../version.js';
import { RESULTS_VERSION, type Results } from './types.js';

export class ResultsFileError extends Error {}

type JsonObject = Record<string, unknown>;

function isObject(value: unknown): value is JsonObject {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** `object[key] = value` when `object` is an object without that key. */
function fill(object: unknown, key: string, value: () => unknown): void {
  if (isObject(object) && object[key] === undefined) object[key] = value();
}

function each(list: unknown, visit: (item: unknown) => void): void {
  if (Array.isArray(list)) list.forEach(visit);
}

/**
 * Version 1, as any release wrote it, to the current shape. Each fill is the value that was true
 * of the runs that did not record it: one start per side and block (the pair's start is its
 * block), slices alternating, no CPU pinning, no early stop, no setup command, no fixed rate, no
 * micro-benchmarks, no profiling, every scenario profiled when profiling was on, the default rule
 * for every metric the release did not gate yet, and no outgoing I/O counted.
 */
function upgradeFromVersion1(data: JsonObject): void {
  const config = data['config'];
  if (isObject(config)) {
    fill(config['service'], 'setup', () => null);
    each(config['scenarios'], (scenario) => {
      fill(scenario, 'rate', () => null);
      fill(scenario, 'expect', () => null);
    });
    const load = config['load'];
    fill(load, 'instances', () => 1);
    fill(load, 'mode', () => 'alternate');
    fill(load, 'pin', () => 'off');
    fill(load, 'earlyStop', () => false);
    fill(config, 'benchmarks', () => null);
    for (const key of GATE_KEYS) fill(config['gate'], key, () => ({ ...DEFAULT_GATE[key] }));
    fill(config['gate'], 'heap_growth', () => ({ ...DEFAULT_HEAP_GROWTH }));
    fill(config, 'profile', () => ({ enabled: false, durationMs: 0, intervalUs: 0, scenarios: null, when: 'always', confirm: false }));
    fill(config['profile'], 'when', () => 'always');
    fill(config['profile'], 'confirm', () => false);
  }
  each(data['scenarios'], (scenario) => {
    if (!isObject(scenario)) return;
    each(scenario['pairs'], (pair) => {
      if (!isObject(pair)) return;
      fill(pair, 'start', () => pair['block']);
      for (const side of ['base', 'head']) {
        const slice = pair[side];
        const health = isObject(slice) ? slice['health'] : undefined;
        each(isObject(health) ? health['processes'] : undefined, (process) => {
          fill(process, 'io', () => []);
          fill(process, 'ioRequests', () => 0);
          fill(process, 'queries', () => []);
          for (const counter of ['allocatedBytes', 'syscalls', 'socketBytesRead', 'socketBytesWritten', 'responses']) fill(process, counter, () => null);
        });
      }
    });
  });
}

/**
 * The parsed JSON of a results file (`source` names it in errors) in the current shape, or a
 * ResultsFileError when it is not a results file, or one of a version this perfgate cannot read.
 * Changes `data` in place. Not validated: report mode (and any reader of files from elsewhere)
 * passes the result to validateResults (results/validate.ts).
 */
export function upgradeResults(data: unknown, source: string): Results {
  if (!isObject(data) || data['schema'] !== 'perfgate/results') {
    throw new ResultsFileError(`${source} is not a perfgate results file (no "schema": "perfgate/results").`);
  }
  const version = data['version'];
  if (typeof version !== 'number' || !Number.isInteger(version) || version < 1) {
    throw new ResultsFileError(
      `${source} has no results version this perfgate knows ("version" must be a whole number from 1 to ${RESULTS_VERSION}). Pass the results.json a perfgate run wrote.`,
    );
  }
  if (version > RESULTS_VERSION) {
    const tool = isObject(data['tool']) && typeof data['tool']['version'] === 'string' ? data['tool']['version'].slice(0, 40).replace(/[^\w.+-]/g, '?') : null;
    throw new ResultsFileError(
      `${source} has results version ${version}${tool ? ` (written by perfgate ${tool})` : ''}; this perfgate (${VERSION}) reads versions up to ${RESULTS_VERSION}. ` +
        `Upgrade perfgate${tool ? ` to ${tool} or later` : ''} to report it.`,
    );
  }
  // One step per version, in order: a file of version n goes through the steps from n on.
  if (version === 1) upgradeFromVersion1(data);
  return data as unknown as Results;
}
