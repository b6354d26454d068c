/**
 * Config at the door: read perfgate.yml, merge inputs/flags over it, validate once, and hand the
 * engine a fully resolved `PerfgateConfig` or a ConfigError listing every problem.
 */
import { readFileSync } from 'node:fs';
import YAML from 'yaml';
import { ConfigError, describeIssue, formatIssues, formatValue, type OriginOf } from './errors.js';
import { deepMerge, isPlainObject, valueAt } from './merge.js';
import { configDocumentSchema } from './schema.js';
import type { PerfgateConfig } from './types.js';

export { ConfigError } from './errors.js';
export { parseScenarioLine } from './scenario-line.js';

export const DEFAULT_CONFIG_FILE = 'perfgate.yml';
const DEFAULT_OVERRIDES_SOURCE = 'inputs/flags';

export interface ResolveConfigInput {
  /** perfgate.yml as parsed (null or undefined: no file, or an empty one). */
  document?: unknown;
  /** File name used in messages; default "perfgate.yml". */
  source?: string;
  /** Action inputs / CLI flags in the same shape as perfgate.yml; they win over the file. */
  overrides?: unknown;
  /** Name of the overrides in messages, e.g. "action inputs" or "command line"; default "inputs/flags". */
  overridesSource?: string;
}

/**
 * defaults < document < overrides, validated once. Pure: no file system, no environment.
 * Throws ConfigError naming every problem, where it came from and what is allowed.
 */
export function resolveConfig(input: ResolveConfigInput): PerfgateConfig {
  const source = input.source ?? DEFAULT_CONFIG_FILE;
  const overridesSource = input.overridesSource ?? DEFAULT_OVERRIDES_SOURCE;
  const document = input.document ?? {};
  const overrides = input.overrides ?? {};
  if (!isPlainObject(document)) {
    throw new ConfigError([
      `${source}: ${formatValue(document)} is not a mapping; write keys such as service:, scenarios:, load:, gate:`,
    ]);
  }
  if (!isPlainObject(overrides)) {
    throw new ConfigError([`${overridesSource}: ${formatValue(overrides)} is not a mapping of config keys`]);
  }
  const merged = deepMerge(document, overrides);
  const result = configDocumentSchema.safeParse(merged, { reportInput: true, error: describeIssue });
  if (result.success) return result.data;
  throw new ConfigError(formatIssues(result.error.issues, originIn(overrides, overridesSource, source)));
}

/** A --scenario value (or a line of the scenarios input) that is a scenario itself: "GET /path" or "/path". */
const SCENARIO_LINE_LIKE = /^\s*(?:[A-Za-z]+\s+)?\//;

/**
 * resolveConfig, then the scenarios the user picked (--scenario, the scenarios input): a value
 * that names a scenario of the file selects it; a scenario line ("GET /path") that names none
 * is an ad-hoc scenario; anything else is a ConfigError listing the names there are. No values:
 * every scenario of the file.
 */
export function resolveConfigWithScenarios(input: ResolveConfigInput, picked: readonly string[]): PerfgateConfig {
  if (picked.length === 0) return resolveConfig(input);
  let fromFile: PerfgateConfig | null = null;
  let problem: ConfigError | null = null;
  try {
    fromFile = resolveConfig(input);
  } catch (error) {
    // e.g. a file with no scenarios of its own: the ad-hoc ones below may be what it needs
    if (!(error instanceof ConfigError)) throw error;
    problem = error;
  }
  const configured = new Map((fromFile?.scenarios ?? []).map((s) => [s.name, s]));
  const lines = picked.filter((p) => !configured.has(p));
  const unknown = lines.filter((p) => !SCENARIO_LINE_LIKE.test(p));
  if (unknown.length > 0) {
    if (problem) throw problem;
    const names = [...configured.keys()].map((n) => `"${n}"`).join(', ');
    throw new ConfigError(
      unknown.map(
        (p) =>
          `${input.overridesSource ?? DEFAULT_OVERRIDES_SOURCE}: scenario "${p}" is not a scenario of ${input.source ?? DEFAULT_CONFIG_FILE}` +
          ` (${names ? `it has ${names}` : 'it has none'}) nor a scenario line such as "GET /path"`,
      ),
    );
  }
  const adhoc =
    lines.length > 0 ? resolveConfig({ ...input, overrides: { ...(input.overrides as object | undefined), scenarios: lines } }) : null;
  const base = adhoc ?? fromFile!;
  // resolveConfig keeps the lines' order: the i-th ad-hoc scenario is lines[i].
  const scenarios = picked.map((p) => configured.get(p) ?? adhoc!.scenarios[lines.indexOf(p)]!);
  return { ...base, scenarios: [...new Map(scenarios.map((s) => [s.name, s])).values()] };
}

/**
 * Blames the overrides for a value they reached (they hold it, or replaced a list or scalar
 * above it), else the file: the user must know which of the two to edit.
 */
function originIn(overrides: unknown, overridesSource: string, source: string): OriginOf {
  return (path) => {
    for (let depth = 1; depth <= path.length; depth++) {
      const given = valueAt(overrides, path.slice(0, depth));
      if (given === undefined) break;
      if (depth === path.length || !isPlainObject(given)) return overridesSource;
    }
    return source;
  };
}

/** YAML text → plain data. Syntax errors become a ConfigError with file, line and column. */
export function parseConfigText(text: string, source: string): unknown {
  const doc = YAML.parseDocument(text);
  if (doc.errors.length > 0) {
    throw new ConfigError(
      doc.errors.map((error) => {
        const at = error.linePos?.[0];
        const where = at ? `${source}:${at.line}:${at.col}` : source;
        // yaml appends " at line L, column C:" and a code excerpt; the location is already in front.
        const what = error.message.replace(/ at line \d+, column \d+:[\s\S]*$/, '');
        const hint =
          error.code === 'MULTIPLE_DOCS' ? 'perfgate.yml holds one document; remove the extra "---"' : what;
        return `${where}: YAML syntax error (line ${at?.line ?? '?'}, column ${at?.col ?? '?'}): ${hint}`;
      }),
    );
  }
  try {
    return doc.toJS();
  } catch (error) {
    // e.g. "Excessive alias count": yaml refuses alias bombs only when building the data.
    throw new ConfigError([`${source}: cannot read the YAML (${(error as Error).message})`]);
  }
}

/**
 * Reads and parses a config file. A missing file is null unless `required` (a path the user
 * named explicitly, which must exist); the default perfgate.yml may be absent when inputs or
 * flags say everything.
 */
export function loadConfigFile(
  path: string,
  options: { required?: boolean } = {},
): { document: unknown; source: string } | null {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' && !options.required) return null;
    if (code === 'ENOENT') {
      throw new ConfigError([`${path}: config file not found; check the path given as --config / the config input`]);
    }
    throw new ConfigError([`${path}: cannot read the config file (${(error as Error).message})`]);
  }
  return { document: parseConfigText(text, path), source: path };
}
