/**
 * The one table of options that both shells accept besides perfgate.yml: the CLI's flags (and
 * its usage text), the action's inputs (action.yml, checked by test/unit/options.test.ts) and
 * the mapping of both into a partial perfgate.yml document, which resolveConfig merges over the
 * file and validates (so a bad flag gets the same message as a bad key).
 */

export interface OptionSpec {
  /** The CLI flag (without --) and the action input: one name for both. */
  name: string;
  /** Where it goes in perfgate.yml, for help texts. */
  key: string;
  /** list: a repeatable flag and a multi-line input, one value per line. */
  list?: boolean;
  /** Placeholder in the usage text. */
  value: string;
  /** One line of help (the action's description is in action.yml). */
  help: string;
  /** Older CLI names, still accepted (docs/configuration.md, "Command line"). */
  aliases?: string[];
  /** Into the override document; `value` is never empty. */
  apply(doc: OverrideDocument, value: string | string[]): void;
}

export type OverrideDocument = Record<string, unknown>;

/** Values given per option name (list options as arrays); empty ones are ignored. */
export type OptionValues = Record<string, string | string[] | undefined>;

/** "20" → 20; anything else is left for the schema to judge and name. */
function numeric(value: string): string | number {
  return /^\s*-?\d+(\.\d+)?\s*$/.test(value) ? Number(value) : value;
}

function section(doc: OverrideDocument, name: string): Record<string, unknown> {
  doc[name] ??= {};
  return doc[name] as Record<string, unknown>;
}

/** An option that sets `section.key` (a number when it looks like one). */
function at(path: string, options: { numeric?: boolean } = {}): OptionSpec['apply'] {
  const parts = path.split('.');
  return (doc, value) => {
    let target: Record<string, unknown> = doc;
    for (const part of parts.slice(0, -1)) target = section(target, part);
    target[parts.at(-1)!] = options.numeric && typeof value === 'string' ? numeric(value) : value;
  };
}

/**
 * The p99 latency limit flag or input: the rule as a mapping, { limit, gated: true }, which gates as a bare
 * limit does, but merges key by key over the file's mapping, so a service level written there
 * (latency_p99: { max: 300ms }) stays.
 */
function limitAt(path: string): OptionSpec['apply'] {
  const parts = path.split('.');
  return (doc, value) => {
    let target: Record<string, unknown> = doc;
    for (const part of parts) target = section(target, part);
    target.limit = typeof value === 'string' ? numeric(value) : value;
    target.gated = true;
  };
}

export const OPTIONS: readonly OptionSpec[] = [
  { name: 'start', key: 'service.start', value: '<command>', help: 'command that starts the service', apply: at('service.start') },
  {
    name: 'install',
    key: 'service.install',
    value: '<command>',
    help: 'install command ("false" or "none" to skip; default from the lockfile)',
    apply: at('service.install'),
  },
  { name: 'build', key: 'service.build', value: '<command>', help: 'build command, after install', apply: at('service.build') },
  { name: 'working-directory', key: 'service.cwd', value: '<dir>', help: 'directory of the service in the repository', apply: at('service.cwd') },
  { name: 'ready-path', key: 'service.ready.path', value: '<path>', help: 'path that must answer 2xx before the service is ready', apply: at('service.ready.path') },
  { name: 'ready-timeout', key: 'service.ready.timeout', value: '<duration>', help: 'how long the service may take to be ready', apply: at('service.ready.timeout', { numeric: true }) },
  {
    name: 'scenarios',
    key: 'scenarios',
    list: true,
    value: '<name | "METHOD /path">',
    help: 'a scenario of perfgate.yml by name, or an ad-hoc one (repeatable)',
    aliases: ['scenario'],
    // Kept apart: names select from the file's scenarios once it is read (selectScenarios).
    apply: () => {},
  },
  {
    name: 'shard',
    key: 'none: a part of the run, not of perfgate.yml',
    value: '<i/n>',
    help: 'run shard i of n of a matrix: every n-th scenario and benchmark file (docs/modes.md, "Shards")',
    // Kept apart: the shard takes its part of the resolved configuration (compare/shard.ts).
    apply: () => {},
  },
  { name: 'pairs', key: 'load.pairs', value: '<n>', help: 'base/head slice pairs per scenario', apply: at('load.pairs', { numeric: true }) },
  { name: 'blocks', key: 'load.blocks', value: '<n>', help: 'blocks of fresh starts, pairs split across them', apply: at('load.blocks', { numeric: true }) },
  { name: 'instances', key: 'load.instances', value: '<n>', help: 'fresh starts of each side per block', apply: at('load.instances', { numeric: true }) },
  { name: 'load-mode', key: 'load.mode', value: '<mode>', help: 'simultaneous (both sides at once) or alternate', apply: at('load.mode') },
  { name: 'pin', key: 'load.pin', value: '<auto|on|off>', help: 'pin the load generator apart from the services', apply: at('load.pin') },
  { name: 'slice', key: 'load.slice', value: '<duration>', help: 'length of one measured slice', apply: at('load.slice', { numeric: true }) },
  { name: 'warmup', key: 'load.warmup', value: '<duration>', help: 'warm-up load per start pair (each further scenario: one slice)', apply: at('load.warmup', { numeric: true }) },
  { name: 'connections', key: 'load.connections', value: '<n>', help: 'concurrent connections', apply: at('load.connections', { numeric: true }) },
  { name: 'pipelining', key: 'load.pipelining', value: '<n>', help: 'requests in flight per connection', apply: at('load.pipelining', { numeric: true }) },
  { name: 'throughput-limit', key: 'gate.throughput', value: '<pct>', help: 'throughput drop that fails', apply: at('gate.throughput', { numeric: true }) },
  { name: 'latency-p99-limit', key: 'gate.latency_p99', value: '<pct>', help: 'p99 latency rise that fails', apply: limitAt('gate.latency_p99') },
  { name: 'seed', key: 'seed', value: '<n>', help: 'seed of the random pair order (default random, printed)', apply: at('seed', { numeric: true }) },
  {
    name: 'benchmarks',
    key: 'benchmarks.files',
    list: true,
    value: '<glob>',
    help: 'micro-benchmark files (repeatable)',
    aliases: ['benchmark'],
    // As a mapping, so the file's other benchmarks keys (rounds, timeout, budget) still apply.
    apply: (doc, v) => {
      const files = (v as string[]).map((g) => g.trim()).filter(Boolean);
      if (files.length) section(doc, 'benchmarks').files = files;
    },
  },
  { name: 'benchmark-rounds', key: 'benchmarks.rounds', value: '<n>', help: 'fresh processes per benchmark file and side', aliases: ['rounds'], apply: at('benchmarks.rounds', { numeric: true }) },
  { name: 'benchmarks-limit', key: 'gate.benchmarks', value: '<pct>', help: 'micro-benchmark ops/s drop that fails', apply: at('gate.benchmarks', { numeric: true }) },
  {
    name: 'profile',
    key: 'profile',
    value: '<true|false>',
    help: 'the profiling phase (hot functions, flamegraphs); --no-profile = false',
    apply: (doc, v) => {
      const value = (v as string).trim().toLowerCase();
      if (value === 'false' || value === 'off') doc.profile = false;
      else if (value === 'true' || value === 'on') section(doc, 'profile').enabled = true;
      else doc.profile = v; // for the schema to name
    },
  },
  {
    name: 'profile-duration',
    key: 'profile.duration',
    value: '<duration>',
    help: 'profiled load per side and scenario',
    // Means nothing when profiling is off (profile comes first in this table).
    apply: (doc, v) => {
      if (doc.profile !== false) at('profile.duration', { numeric: true })(doc, v);
    },
  },
];

/** Flag and input values → a partial perfgate.yml document (scenarios are left to selectScenarios). */
export function buildOverrides(values: OptionValues): OverrideDocument {
  const doc: OverrideDocument = {};
  for (const option of OPTIONS) {
    const raw = values[option.name];
    if (raw === undefined) continue;
    const value = Array.isArray(raw) ? raw.map((v) => v.trim()).filter(Boolean) : raw;
    if (value.length === 0) continue;
    option.apply(doc, value);
  }
  return doc;
}

/** The scenarios option's values, trimmed, empty lines dropped. */
export function scenarioArgs(values: OptionValues): string[] {
  const raw = values.scenarios;
  return (Array.isArray(raw) ? raw : raw ? [raw] : []).map((s) => s.trim()).filter(Boolean);
}

/** The usage lines of the table, for perfgate --help. */
export function optionsUsage(): string {
  const rows = OPTIONS.map((o) => {
    const flag = `--${o.name} ${o.value}`;
    const aliases = o.aliases?.length ? ` (also ${o.aliases.map((a) => `--${a}`).join(', ')})` : '';
    return `  ${flag.padEnd(34)} ${o.key}: ${o.help}${aliases}`;
  });
  return rows.join('\n');
}
