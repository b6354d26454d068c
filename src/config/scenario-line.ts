/**
 * The one-line scenario form, "GET /hello" or "/hello": used by perfgate.yml's `scenarios`
 * list and by the action's multi-line `scenarios` input (one scenario per non-empty line).
 */
import { ConfigError, formatValue } from './errors.js';

export const HTTP_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'] as const;
export type HttpMethod = (typeof HTTP_METHODS)[number];

/** A request path: starts with '/', query allowed, no whitespace (autocannon sends it verbatim). */
export const REQUEST_PATH_PATTERN = /^\/\S*$/;

/** Methods in any letter case, spelled out per letter because JSON Schema patterns have no `i` flag. */
export const METHOD_PATTERN_SOURCE = `(?:${HTTP_METHODS.map((m) =>
  [...m].map((c) => `[${c}${c.toLowerCase()}]`).join(''),
).join('|')})`;

/** What an editor can check of a scenario line; `readScenarioLine` gives the precise complaint. */
export const SCENARIO_LINE_PATTERN = new RegExp(`^\\s*(?:${METHOD_PATTERN_SOURCE}\\s+)?\\/\\S*\\s*$`);

export const METHODS_HINT = `use one of ${HTTP_METHODS.join(', ')}`;
const LINE_HINT = 'write METHOD /path, e.g. "GET /hello", or just "/hello" for GET';

export interface ScenarioLine {
  method: HttpMethod;
  path: string;
}

/** Parses one line, or says what is wrong with it (a message predicate: "is not ..."). */
export function readScenarioLine(line: string): ScenarioLine | { problem: string } {
  const words = line.trim().split(/\s+/).filter(Boolean);
  if (words.length === 0) return { problem: `is empty; ${LINE_HINT}` };
  if (words.length > 2) return { problem: `is not a scenario; ${LINE_HINT} (no spaces in the path)` };
  const [first, second] = words as [string, string | undefined];
  const methodWord = second === undefined ? 'GET' : first;
  const path = second === undefined ? first : second;
  const method = methodWord.toUpperCase();
  if (!(HTTP_METHODS as readonly string[]).includes(method)) {
    return { problem: `is not allowed: ${methodWord} is not an HTTP method; ${METHODS_HINT}` };
  }
  if (!REQUEST_PATH_PATTERN.test(path)) {
    return { problem: `is not a scenario: the path must start with '/'; ${LINE_HINT}` };
  }
  return { method: method as HttpMethod, path };
}

/** "GET /hello" → { method: 'GET', path: '/hello' }; "/hello" means GET. Throws ConfigError. */
export function parseScenarioLine(line: string): ScenarioLine {
  const read = readScenarioLine(line);
  if ('problem' in read) throw new ConfigError([`scenario ${formatValue(line)} ${read.problem}`]);
  return read;
}
