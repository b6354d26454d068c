/**
 * Resolution: defaults < perfgate.yml < inputs/flags, validated once against the schema, then
 * filled in to the `PerfgateConfig` the engine runs with: scenario names and load defaults per
 * scenario, bodies as sent, gate rules from their defaults, profile.scenarios checked against
 * the names. Pure: no file system, no environment. Throws ConfigError naming every problem.
 */
import type { z } from 'zod';
import { DEFAULT_CONFIG_FILE, DEFAULT_GATE, DEFAULT_HEAP_GROWTH } from './defaults.js';
import { ConfigError, describeIssue, formatIssues, formatValue, type OriginOf } from './errors.js';
import { deepMerge, isPlainObject, valueAt } from './merge.js';
import { configDocumentSchema } from './schema.js';
import type { ScenarioEntry } from './schema-scenarios.js';
import {
  GATE_KEYS,
  type GateKey,
  type HeapGrowthRule,
  type MetricRule,
  type PerfgateConfig,
  type ProfileConfig,
  type RequestConfig,
  type ScenarioConfig,
  SCENARIO_GATE_KEYS,
  type ScenarioGateKey,
} from './types.js';

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


/** The document as parsed: valid, units normalised, nothing filled in across keys. */
type ParsedDocument = z.output<typeof configDocumentSchema>;

/** perfgate.yml, parsed and resolved. Filling in runs only on a valid document, so its issues come after the schema's. */
const resolvedConfigSchema = configDocumentSchema.transform(resolveDocument);

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
  const result = resolvedConfigSchema.safeParse(merged, { reportInput: true, error: describeIssue });
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

function resolveDocument(doc: ParsedDocument, ctx: z.RefinementCtx): PerfgateConfig {
  const gate = resolveGate(doc.gate);
  const scenarios = doc.scenarios === undefined ? [] : resolveScenarios(doc.scenarios, doc.load, gate, ctx);
  return {
    service: { ...doc.service, start: doc.service.start ?? null },
    scenarios,
    load: {
      sliceMs: doc.load.slice,
      pairs: doc.load.pairs,
      blocks: doc.load.blocks,
      instances: doc.load.instances,
      warmupMs: doc.load.warmup,
      mode: doc.load.mode,
      pin: doc.load.pin,
      earlyStop: doc.load['early-stop'],
      // Absent at the default, so a default configuration hashes as it did before the setting (stored baselines, history).
      ...(doc.load.stop === 'verdicts' && { stop: 'verdicts' as const }),
    },
    benchmarks: doc.benchmarks,
    gate,
    alpha: doc.alpha,
    seed: doc.seed,
    profile: resolveProfile(doc.profile, scenarios, ctx),
  };
}

function resolveScenarios(
  entries: ScenarioEntry[],
  load: { connections: number; pipelining: number },
  gate: PerfgateConfig['gate'],
  ctx: z.RefinementCtx,
): ScenarioConfig[] {
  const firstIndexByName = new Map<string, number>();
  return entries.map((entry, index) => {
    const name = entry.name ?? `${entry.method} ${entry.path}`;
    const first = firstIndexByName.get(name);
    if (first === undefined) firstIndexByName.set(name, index);
    else {
      ctx.addIssue({
        code: 'custom',
        path: entry.name === undefined ? ['scenarios', index] : ['scenarios', index, 'name'],
        input: name,
        message:
          entry.name === undefined
            ? `is also the name of scenarios[${first}] (names default to "METHOD path"); give one of them a name`
            : `is already the name of scenarios[${first}]; give each scenario a unique name`,
      });
    }
    const pipelining = entry.pipelining ?? load.pipelining;
    const requests = entry.requests?.map((request): RequestConfig => ({
      name: request.name ?? `${request.method} ${request.path}`,
      method: request.method,
      path: request.path,
      ...withBody({ ...entry.headers, ...request.headers }, request.body),
      weight: request.weight ?? 1,
      capture: request.capture ?? null,
    }));
    if (requests?.some((r) => r.capture) && pipelining > 1) {
      ctx.addIssue({
        code: 'custom',
        path: ['scenarios', index, entry.pipelining === undefined ? 'sequence' : 'pipelining'],
        input: pipelining,
        message: `is not allowed with pipelining ${pipelining}${entry.pipelining === undefined ? ' (load.pipelining)' : ''}: a sequence that captures values waits for each answer before the next request; set pipelining: 1 on the scenario`,
      });
    }
    const lead = requests?.[0];
    return {
      name,
      method: lead?.method ?? entry.method,
      path: lead?.path ?? entry.path,
      ...(lead ? { headers: lead.headers, body: lead.body } : withBody({ ...entry.headers }, entry.body)),
      connections: entry.connections ?? load.connections,
      pipelining,
      rate: entry.rate ?? null,
      expect: entry.expect?.statuses ?? null,
      ...(entry.expect?.body && { expectBody: entry.expect.body }),
      // Only scenarios that use them carry the new keys: a one-request scenario resolves (and is stored) as before.
      ...(requests && { requests, sequence: entry.sequence ?? false }),
      ...(entry.values !== undefined && { values: { file: entry.values } }),
      ...(entry.gate !== undefined && { gate: resolveScenarioGate(entry.gate, gate) }),
    };
  });
}

/** Headers and body as sent: a mapping or list body as JSON, with its content-type unless one is set. */
function withBody(headers: Record<string, string>, given: unknown): { headers: Record<string, string>; body: string | null } {
  let body: string | null = null;
  if (typeof given === 'string') body = given;
  else if (given !== undefined) {
    body = JSON.stringify(given);
    // Say what the body is, unless the user already did (header names are case-insensitive).
    if (!Object.keys(headers).some((h) => h.toLowerCase() === 'content-type')) {
      headers['content-type'] = 'application/json';
    }
  }
  return { headers, body };
}

/** Checks profile.scenarios against the scenario names. */
function resolveProfile(profile: ProfileConfig, scenarios: ScenarioConfig[], ctx: z.RefinementCtx): ProfileConfig {
  const names = scenarios.map((s) => s.name);
  profile.scenarios?.forEach((name, index) => {
    if (!names.includes(name)) {
      ctx.addIssue({
        code: 'custom',
        path: ['profile', 'scenarios', index],
        input: name,
        message:
          names.length === 0
            ? 'is not a scenario name: there are no scenarios'
            : `is not a scenario name; use one of ${names.map((n) => JSON.stringify(n)).join(', ')}`,
      });
    }
  });
  return profile;
}

/** Every metric's rule as written → the rule the gate applies. */
function resolveGate(gate: ParsedDocument['gate']): PerfgateConfig['gate'] {
  const rules = Object.fromEntries(GATE_KEYS.map((key) => [key, resolveRule(gate[key], DEFAULT_GATE[key])])) as Record<GateKey, MetricRule>;
  return { ...rules, heap_growth: resolveHeapGrowth(gate.heap_growth) };
}

/**
 * A scenario's own rules: each key it writes, resolved over the global rule as the global one is
 * over the defaults, so `{ max: 300ms }` keeps the global limit and `2%` keeps the global level.
 */
function resolveScenarioGate(
  written: NonNullable<ScenarioEntry['gate']>,
  gate: PerfgateConfig['gate'],
): Partial<Record<ScenarioGateKey, MetricRule>> {
  const keys = SCENARIO_GATE_KEYS.filter((key) => written[key] !== undefined);
  return Object.fromEntries(keys.map((key) => [key, resolveRule(written[key]!, gate[key])]));
}

type WrittenRule = number | 'off' | false | { limit?: number | undefined; gated?: boolean | undefined; min?: number | undefined; max?: number | undefined };

/**
 * A rule the user wrote → the resolved rule: a bare limit gates; off keeps the default limit (and
 * floor and level) for the report, information only. A level written (`max`) gates unless the
 * mapping says `gated: false`: it is a promise the project made; it does not change whether the
 * relative limit gates.
 */
function resolveRule(rule: WrittenRule, defaults: Readonly<MetricRule>): MetricRule {
  const floor = defaults.min === undefined ? {} : { min: defaults.min };
  const level = defaults.level === undefined ? {} : { level: defaults.level };
  if (rule === 'off' || rule === false) {
    return { limit: defaults.limit, gated: false, ...floor, ...(defaults.level && { level: { ...defaults.level, gated: false } }) };
  }
  if (typeof rule === 'number') return { limit: rule, gated: true, ...floor, ...level };
  return {
    limit: rule.limit ?? defaults.limit,
    gated: rule.gated ?? (rule.limit !== undefined ? true : defaults.gated),
    // durations resolve to ms; the floor is kept in the metric's unit, µs
    ...(rule.min !== undefined ? { min: rule.min * 1000 } : floor),
    ...(rule.max !== undefined ? { level: { max: rule.max, gated: rule.gated ?? true } } : level),
  };
}

/** The memory-growth rule as written → the rule applied: a bare size gates; off keeps the default limit for the report. */
function resolveHeapGrowth(rule: ParsedDocument['gate']['heap_growth']): HeapGrowthRule {
  const defaults = DEFAULT_HEAP_GROWTH;
  if (rule === 'off' || rule === false) return { limitMbPer10k: defaults.limitMbPer10k, gated: false };
  if (typeof rule === 'number') return { limitMbPer10k: rule, gated: true };
  return {
    limitMbPer10k: rule.limit ?? defaults.limitMbPer10k,
    gated: rule.gated ?? (rule.limit !== undefined ? true : defaults.gated),
  };
}
