/**
 * ConfigError and the wording of config problems. Every problem is one line:
 *   <where it came from>: <key path>: <value> <what is wrong; what is allowed>
 * e.g. `perfgate.yml: scenarios[1].method: "FETCH" is not allowed; use one of GET, POST, ...`.
 * Schema messages are written as predicates ("is not allowed; use ...") so the value can lead.
 */
import type { z } from 'zod';

/** A configuration the engine cannot run with. The message lists every problem, one per line. */
export class ConfigError extends Error {
  readonly problems: readonly string[];

  constructor(problems: readonly string[]) {
    super(problems.join('\n'));
    this.name = 'ConfigError';
    this.problems = problems;
  }
}

const MAX_VALUE_CHARS = 60;

/** A value as JSON, cut short so one bad 10 kB body does not drown the other problems. */
export function formatValue(value: unknown): string {
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    text = String(value);
  }
  return text.length > MAX_VALUE_CHARS ? `${text.slice(0, MAX_VALUE_CHARS - 1)}…` : text;
}

/** ['scenarios', 1, 'method'] → "scenarios[1].method"; odd keys are quoted: env["A B"]. */
export function formatPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const key of path) {
    if (typeof key === 'number') out += `[${key}]`;
    else if (/^[A-Za-z_][\w-]*$/.test(String(key))) out += out ? `.${String(key)}` : String(key);
    else out += `[${JSON.stringify(String(key))}]`;
  }
  return out;
}

/** Edit distance counting a swap of neighbours as one edit ("strat" → "start"); keys are short. */
function editDistance(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i]![j] = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        d[i]![j] = Math.min(d[i]![j]!, d[i - 2]![j - 2]! + 1);
      }
    }
  }
  return d[a.length]![b.length]!;
}

/** The known key a typo most likely meant: same letters modulo case and -/_, or a near spelling. */
export function suggestKey(unknown: string, known: readonly string[]): string | undefined {
  const fold = (key: string) => key.toLowerCase().replace(/[-_\s]/g, '');
  const exact = known.find((key) => fold(key) === fold(unknown));
  if (exact) return exact;
  let best: string | undefined;
  let bestDistance = Number.POSITIVE_INFINITY;
  for (const key of known) {
    const distance = editDistance(fold(unknown), fold(key));
    if (distance < bestDistance) [best, bestDistance] = [key, distance];
  }
  // Two edits or a third of the word: "scenarioes", "pipelinig", "timout"; not "foo" → "gate".
  return bestDistance <= Math.max(1, Math.min(2, Math.floor(unknown.length / 3))) ? best : undefined;
}

/** Keys from the product sketch that this version does not implement yet; say so, do not guess. */
const NOT_YET_SUPPORTED = new Set(['accept-label']);

/** Gate keys about the whole service: a scenario's own gate cannot set them. */
const SERVICE_WIDE_GATE_KEYS = new Set(['startup_time', 'startup_memory', 'benchmarks', 'heap_growth']);

function unknownKeyProblem(key: string, known: readonly string[]): string {
  if (NOT_YET_SUPPORTED.has(key)) return `is not supported yet by this version of perfgate; remove it`;
  if (key === 'max' && known.includes('limit')) {
    return 'is a service level, which only latency_p50, latency_p90, latency_p99, latency_p999 (a duration, e.g. 300ms) and errors (a share, e.g. 0.1%) have: this metric has no absolute level; remove max, or set a relative limit';
  }
  if (SERVICE_WIDE_GATE_KEYS.has(key) && known.includes('throughput')) {
    return "is about the whole service, not one scenario; set it in the global gate instead";
  }
  const suggestion = suggestKey(key, known);
  const hint = suggestion ? `did you mean "${suggestion}"? ` : '';
  return `is not a known key; ${hint}allowed here: ${known.join(', ')}`;
}

const NOUNS: Record<string, string> = {
  string: 'a string',
  number: 'a number',
  int: 'an integer',
  boolean: 'true or false',
  object: 'a mapping (key: value)',
  record: 'a mapping (key: value)',
  array: 'a list',
};

/**
 * Default wording for every issue a schema did not word itself; passed as the parse-time error
 * map. Unknown keys get one line per key, joined with "\n" in `keys` order: `formatIssues`
 * splits them again, because only here (through `inst`) are the known keys in reach.
 */
export const describeIssue: z.core.$ZodErrorMap = (issue) => {
  switch (issue.code) {
    case 'invalid_type':
      if (issue.input === undefined) return 'is required';
      return `is not ${NOUNS[issue.expected] ?? issue.expected}`;
    case 'invalid_value':
      return `is not allowed; use one of ${issue.values.map((v) => String(v)).join(', ')}`;
    case 'too_small':
      if (issue.origin === 'array') return `has too few entries; list at least ${issue.minimum}`;
      if (issue.origin === 'string') return 'is empty';
      return `is too small; use ${issue.inclusive ? 'at least' : 'more than'} ${issue.minimum}`;
    case 'too_big':
      if (issue.origin === 'array') return `has too many entries; list at most ${issue.maximum}`;
      return `is too big; use ${issue.inclusive ? 'at most' : 'less than'} ${issue.maximum}`;
    case 'invalid_format':
      return issue.pattern ? `does not match ${issue.pattern}` : `is not a valid ${issue.format}`;
    case 'unrecognized_keys': {
      const shape = (issue.inst as { _zod?: { def?: { shape?: object } } } | undefined)?._zod?.def?.shape;
      const known = shape ? Object.keys(shape) : [];
      return issue.keys.map((key) => unknownKeyProblem(key, known)).join('\n');
    }
    case 'invalid_union':
      return 'is not valid here';
    default:
      return undefined;
  }
};

type Issue = z.core.$ZodIssue;

/**
 * Where a value came from (the file, or the inputs/flags that override it), or null for a
 * value that is missing everywhere: its message says where to set it instead.
 */
export type OriginOf = (path: readonly PropertyKey[]) => string | null;

/** True when a union branch failed on the value's shape alone, i.e. it was not what the user meant. */
function isShapeMismatch(issues: readonly Issue[]): boolean {
  // zod still runs a list's length checks on a value that is no list (a string has a length):
  // once the type is wrong, the branch is not what the user meant, whatever else it reports.
  if (issues.some((i) => i.path.length === 0 && i.code === 'invalid_type')) return true;
  return issues.every(
    (i) =>
      i.path.length === 0 &&
      (i.code === 'invalid_type' ||
        i.code === 'invalid_value' ||
        // A union inside a union (e.g. a limit: number or "5%") misses when all its branches do.
        (i.code === 'invalid_union' && i.errors.length > 0 && i.errors.every(isShapeMismatch))),
  );
}

/** One line per problem, in document order as zod reports them. Needs issues parsed with `reportInput`. */
export function formatIssues(issues: readonly Issue[], originOf: OriginOf, prefix: readonly PropertyKey[] = []): string[] {
  const lines: string[] = [];
  for (const issue of issues) {
    const path = [...prefix, ...issue.path];
    if (issue.code === 'invalid_union' && issue.errors.length > 0) {
      // zod reports every branch of a union; the one whose shape fits (the mapping, for a
      // mapping) is what the user meant, and its nested problems are the useful ones.
      const meant = issue.errors.filter((branch) => !isShapeMismatch(branch));
      if (meant.length === 1) {
        lines.push(...formatIssues(meant[0]!, originOf, path));
        continue;
      }
    }
    if (issue.code === 'unrecognized_keys') {
      const problems = issue.message.split('\n');
      issue.keys.forEach((key, i) => {
        lines.push(line([...path, key], problems[i] ?? 'is not a known key', originOf, { key: true }));
      });
      continue;
    }
    if (issue.code === 'invalid_key') {
      // A bad key in a mapping (env, headers): the key's own schema worded the problem.
      lines.push(line(path, issue.issues[0]?.message ?? 'is not allowed as a key', originOf, { key: true }));
      continue;
    }
    lines.push(line(path, issue.message, originOf, { value: issue.input }));
  }
  return lines;
}

/** What a line is about: a value to quote, or a key (the path's last step) that is itself wrong. */
type Subject = { value: unknown } | { key: true };

function line(path: readonly PropertyKey[], problem: string, originOf: OriginOf, subject: Subject): string {
  const key = formatPath(path);
  if ('value' in subject && subject.value === undefined) {
    // Missing: nothing to quote, and no file to point at; the message says where to set it.
    return `${key || 'the configuration'} ${problem}`;
  }
  const origin = originOf(path);
  if ('key' in subject) return origin ? `${origin}: ${key} ${problem}` : `${key} ${problem}`;
  const where = [origin, key].filter(Boolean).join(': ');
  const what = `${formatValue(subject.value)} ${problem}`;
  return where ? `${where}: ${what}` : what;
}
