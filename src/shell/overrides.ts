/**
 * Flat options from CLI flags or action inputs → a partial configuration document in the
 * user-facing perfgate.yml shape, which resolveConfig merges over the file and validates
 * (so a bad flag gets the same message as a bad key).
 */
export interface FlatOptions {
  start?: string;
  install?: string;
  build?: string;
  cwd?: string;
  readyPath?: string;
  readyTimeout?: string;
  scenarios?: string[];
  pairs?: string;
  blocks?: string;
  slice?: string;
  warmup?: string;
  connections?: string;
  pipelining?: string;
  throughputLimit?: string;
  latencyP99Limit?: string;
  seed?: string;
  /** Globs of micro-benchmark files (benchmarks.files), one per entry. */
  benchmarks?: string[];
  benchmarkRounds?: string;
  benchmarksLimit?: string;
  /** "false" (or "off") skips the profiling phase; "true" turns it on. */
  profile?: string;
  profileDuration?: string;
}

/** "20" → 20; anything else is left for the schema to judge and name. */
function numeric(value: string): string | number {
  return /^\s*-?\d+(\.\d+)?\s*$/.test(value) ? Number(value) : value;
}

export function buildOverrides(options: FlatOptions): Record<string, unknown> {
  const out: Record<string, Record<string, unknown> | unknown> = {};
  const section = (name: string): Record<string, unknown> => {
    out[name] ??= {};
    return out[name] as Record<string, unknown>;
  };
  const set = (name: string, key: string, value: unknown) => {
    if (value !== undefined && value !== '') section(name)[key] = value;
  };
  set('service', 'start', options.start);
  if (options.install !== undefined && options.install !== '') {
    section('service').install = options.install === 'false' ? false : options.install;
  }
  set('service', 'build', options.build);
  set('service', 'cwd', options.cwd);
  if (options.readyPath || options.readyTimeout) {
    const ready: Record<string, unknown> = {};
    if (options.readyPath) ready.path = options.readyPath;
    if (options.readyTimeout) ready.timeout = numeric(options.readyTimeout);
    section('service').ready = ready;
  }
  const scenarios = (options.scenarios ?? []).map((s) => s.trim()).filter(Boolean);
  if (scenarios.length) out.scenarios = scenarios;
  for (const key of ['pairs', 'blocks', 'connections', 'pipelining'] as const) {
    if (options[key]) set('load', key, numeric(options[key]!));
  }
  for (const key of ['slice', 'warmup'] as const) {
    if (options[key]) set('load', key, numeric(options[key]!));
  }
  if (options.throughputLimit) set('gate', 'throughput', numeric(options.throughputLimit));
  if (options.latencyP99Limit) set('gate', 'latency_p99', numeric(options.latencyP99Limit));
  if (options.seed) out.seed = numeric(options.seed);
  // As a mapping, so the file's other benchmarks keys (rounds, timeout, budget) still apply.
  const benchmarks = (options.benchmarks ?? []).map((g) => g.trim()).filter(Boolean);
  if (benchmarks.length) set('benchmarks', 'files', benchmarks);
  if (options.benchmarkRounds) set('benchmarks', 'rounds', numeric(options.benchmarkRounds));
  if (options.benchmarksLimit) set('gate', 'benchmarks', numeric(options.benchmarksLimit));
  const profile = options.profile?.trim().toLowerCase();
  if (profile === 'false' || profile === 'off') out.profile = false;
  else if (profile === 'true' || profile === 'on') set('profile', 'enabled', true);
  else if (profile) out.profile = profile; // for the schema to name
  if (options.profileDuration && out.profile !== false) set('profile', 'duration', numeric(options.profileDuration));
  return out;
}
