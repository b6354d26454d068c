/**
 * Config at the door: read perfgate.yml and parse its YAML; resolve.ts merges inputs/flags over
 * it and validates once, handing the engine a fully resolved `PerfgateConfig` or a ConfigError
 * listing every problem. The door's whole API is exported here.
 */
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import YAML from 'yaml';
import { MAX_CONFIG_BYTES } from './bounds.js';
import { ConfigError } from './errors.js';

export { DEFAULT_CONFIG_FILE } from './defaults.js';
export { ConfigError } from './errors.js';
export { type ResolveConfigInput, resolveConfig, resolveConfigWithScenarios } from './resolve.js';
export { parseScenarioLine } from './scenario-line.js';

/**
 * A file over the size cap: refused before its YAML is parsed, which takes tens of times the
 * text's size in memory. `bytes` is null when the size is not known (a pipe read past the cap).
 */
function tooLarge(source: string, bytes: number | null): ConfigError {
  const mib = (n: number) => `${Number((n / 1024 / 1024).toFixed(1))} MiB`;
  const size = bytes === null ? `more than ${mib(MAX_CONFIG_BYTES)}` : `${mib(bytes)} (${bytes.toLocaleString('en-US')} bytes)`;
  return new ConfigError([
    `${source}: the config file is ${size}; perfgate reads at most ${mib(MAX_CONFIG_BYTES)} (${MAX_CONFIG_BYTES.toLocaleString('en-US')} bytes), far more than any configuration needs: check that it is perfgate's configuration, and keep data in a file a scenario names (values:)`,
  ]);
}

/** The cap on a config file read from a commit, for a reader that can ask its size before reading it. */
export function configSizeLimit(source: string): { bytes: number; refuse: (bytes: number) => ConfigError } {
  return { bytes: MAX_CONFIG_BYTES, refuse: (bytes) => tooLarge(source, bytes) };
}

/** YAML text → plain data. Syntax errors become a ConfigError with file, line and column. */
export function parseConfigText(text: string, source: string): unknown {
  const bytes = Buffer.byteLength(text, 'utf8');
  if (bytes > MAX_CONFIG_BYTES) throw tooLarge(source, bytes);
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
    text = readCapped(path);
  } catch (error) {
    if (error instanceof ConfigError) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' && !options.required) return null;
    if (code === 'ENOENT') {
      throw new ConfigError([`${path}: config file not found; check the path given as --config / the config input`]);
    }
    throw new ConfigError([`${path}: cannot read the config file (${(error as Error).message})`]);
  }
  return { document: parseConfigText(text, path), source: path };
}

/** The file's text, read no further than the cap: a larger file, or an endless one such as a pipe, is refused unread. */
function readCapped(path: string): string {
  const fd = openSync(path, 'r');
  try {
    const { size } = fstatSync(fd);
    if (size > MAX_CONFIG_BYTES) throw tooLarge(path, size);
    const buffer = Buffer.alloc(MAX_CONFIG_BYTES + 1);
    let length = 0;
    while (length < buffer.length) {
      const read = readSync(fd, buffer, length, buffer.length - length, null);
      if (read === 0) break;
      length += read;
    }
    if (length > MAX_CONFIG_BYTES) throw tooLarge(path, null);
    return buffer.toString('utf8', 0, length);
  } finally {
    closeSync(fd);
  }
}
