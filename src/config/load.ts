/**
 * Config at the door: read perfgate.yml and parse its YAML; resolve.ts merges inputs/flags over
 * it and validates once, handing the engine a fully resolved `PerfgateConfig` or a ConfigError
 * listing every problem. The door's whole API is exported here.
 */
import { readFileSync } from 'node:fs';
import YAML from 'yaml';
import { ConfigError } from './errors.js';

export { DEFAULT_CONFIG_FILE } from './defaults.js';
export { ConfigError } from './errors.js';
export { type ResolveConfigInput, resolveConfig, resolveConfigWithScenarios } from './resolve.js';
export { parseScenarioLine } from './scenario-line.js';

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
