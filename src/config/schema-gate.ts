/**
 * The zod schema of perfgate.yml's `gate`: per metric a limit, off, or a mapping of limit, gated
 * (and min for event-loop delay), and the memory-growth rule. The rules come out as written;
 * resolve.ts fills each in from defaults.ts.
 */

import { z } from 'zod';
import { formatPercent } from '../stats/format.js';
import { DEFAULT_GATE, DEFAULT_HEAP_GROWTH } from './defaults.js';
import { docNotes, duration, unitValue } from './schema-values.js';
import { type GateKey, LEVEL_METRICS, SCENARIO_GATE_KEYS, type ScenarioGateKey } from './types.js';
import { formatDuration, formatSizeMb, PERCENT_PATTERN, parsePercent, parseSizeMb, SIZE_PATTERN } from './units.js';

const LIMIT_HINT = 'write e.g. 5% or 5 (percent), above 0% and at most 100%';

/** A limit as the user writes it, "5%" or 5, as a fraction in (0, 1]. */
const limitSchema = unitValue({
  noun: 'percentage',
  pattern: PERCENT_PATTERN,
  hint: LIMIT_HINT,
  parse: parsePercent,
  inRange: (fraction) => fraction > 0 && fraction <= 1,
})
  .meta({ id: 'percentage', description: 'A relative limit: 5% or 5 (percent), above 0% and at most 100%.' })
  .register(docNotes, { type: 'percentage' });

/**
 * Every way to write one metric's rule: a bare limit (gated), off / false (information only), or
 * a mapping of `limit`, `gated` and the metric's extra keys. `example` is the mapping form the
 * error message suggests.
 */
function gateRuleForms<Extra extends z.ZodRawShape>(extra: Extra, beyond: string, example: string) {
  return z.union(
    [
      limitSchema,
      z.literal('off'),
      z.literal(false),
      z.strictObject({
        limit: limitSchema.optional().describe('Relative limit: 5% or 5 (percent), above 0% and at most 100%.'),
        ...extra,
        gated: z
          .boolean()
          .optional()
          .describe(
            `Whether a significant change beyond the limit${beyond} fails the build. Default: true when limit is given, else the metric's default.`,
          ),
      }),
    ],
    { error: `is not a gate rule; write a limit (5% or 5), off / false for information only, or ${example}` },
  );
}

const LEVEL_SHARE_HINT = 'write e.g. 0.1% or 0.1 (percent of requests), from 0% to 100%';

/**
 * An absolute level on head (service levels): `max` of a latency, a duration kept in µs like the
 * latencies it is checked against; of errors, a share of requests (0.001 = 0.1%).
 */
const LEVEL_MAX = {
  latency: duration({ minMs: 0, maxMs: 600_000 })
    .transform((ms) => ms * 1000)
    .optional()
    .describe(
      "Service level: head's latency must not be significantly above it, e.g. 300ms (a duration, 0s to 10m). Checked on head alone, start by start (see Service levels below).",
    ),
  errors: unitValue({ noun: 'percentage', pattern: PERCENT_PATTERN, hint: LEVEL_SHARE_HINT, parse: parsePercent, inRange: (f) => f >= 0 && f <= 1 })
    .register(docNotes, { type: 'percentage' })
    .optional()
    .describe(
      "Service level: head's share of requests not answered as expected must not be significantly above it, e.g. 0.1% (0% to 100%). Checked on head alone, start by start.",
    ),
};

/** The rule of most metrics; shared by all of them, so it is one $defs entry. */
const gateRuleInput = gateRuleForms({}, '', '{ limit: 5%, gated: true }')
  .meta({
    id: 'gateRule',
    description: 'A limit (5% or 5: gated), off / false (information only), or { limit, gated }.',
  })
  .register(docNotes, { type: 'percentage, off, false or { limit, gated }' });

/** The event-loop delay metrics' rule: the same forms, and in the mapping an absolute floor `min`. */
const delayGateRuleInput = gateRuleForms(
  {
    min: duration({ minMs: 0, maxMs: 60_000 })
      .optional()
      .describe('Absolute increase the change must also exceed to count, e.g. 10ms: a duration, 0s to 1m (0s: none).'),
  },
  ' (and min)',
  '{ limit: 50%, min: 10ms, gated: true }',
)
  .meta({
    id: 'delayGateRule',
    description:
      'A limit (50% or 50: gated), off / false (information only), or { limit, min, gated }: a change counts only when it is beyond limit and beyond min.',
  })
  .register(docNotes, { type: 'percentage, off, false or { limit, min, gated }' });

/** The latency metrics' rule: the same forms, and in the mapping a service level `max`. */
const latencyGateRuleInput = gateRuleForms({ max: LEVEL_MAX.latency }, '', '{ limit: 15%, max: 300ms }')
  .meta({
    id: 'latencyGateRule',
    description: 'A limit (15% or 15: gated), off / false (information only), or { limit, max, gated }: max is an absolute level on head, e.g. 300ms.',
  })
  .register(docNotes, { type: 'percentage, off, false or { limit, max, gated }' });

/** The errors rule: the same forms, and in the mapping a service level `max` (a share). */
const errorsGateRuleInput = gateRuleForms({ max: LEVEL_MAX.errors }, '', '{ limit: 1%, max: 0.1% }')
  .meta({
    id: 'errorsGateRule',
    description: 'A limit (1% or 1: gated), off / false (information only), or { limit, max, gated }: max is an absolute level on head, e.g. 0.1%.',
  })
  .register(docNotes, { type: 'percentage, off, false or { limit, max, gated }' });

/** The form each per-scenario metric's rule is written in. */
function ruleInput(metric: ScenarioGateKey) {
  if (metric === 'errors') return errorsGateRuleInput;
  if ((LEVEL_METRICS as readonly string[]).includes(metric)) return latencyGateRuleInput;
  if (metric === 'event_loop_delay_p99' || metric === 'event_loop_delay_max') return delayGateRuleInput;
  return gateRuleInput;
}

function gateRule(metric: GateKey, what: string) {
  const defaults = DEFAULT_GATE[metric];
  // The default in the form a user would write it, so editors show it and docs print it.
  const defaultInput = defaults.gated
    ? formatPercent(defaults.limit)
    : { limit: formatPercent(defaults.limit), gated: false };
  const input = metric === 'startup_time' || metric === 'startup_memory' || metric === 'benchmarks' ? gateRuleInput : ruleInput(metric);
  return input
    .prefault(defaultInput)
    .describe(
      `${what} Default ${formatPercent(defaults.limit)}, ${defaults.gated ? 'gated' : 'information only'}.`,
    );
}

/** A rule with an absolute floor (event-loop delay, µs in the resolved rule). */
function delayGateRule(metric: GateKey, what: string) {
  const defaults = DEFAULT_GATE[metric];
  const min = formatDuration((defaults.min ?? 0) / 1000);
  const defaultInput = { limit: formatPercent(defaults.limit), min, gated: defaults.gated };
  return delayGateRuleInput
    .prefault(defaultInput)
    .describe(
      `${what} Default ${formatPercent(defaults.limit)} and at least ${min}, ${defaults.gated ? 'gated' : 'information only'}.`,
    );
}

const GROWTH_HINT = 'write e.g. 0.5MB or 200kB (per 10,000 requests; a bare number is MB), above 0 and at most 1000MB';

/** Heap growth per 10,000 requests as the user writes it, "0.5MB", "200kB" or 0.5, in MB. */
const growthSchema = unitValue({
  noun: 'size',
  pattern: SIZE_PATTERN,
  hint: GROWTH_HINT,
  parse: parseSizeMb,
  inRange: (mb) => mb > 0 && mb <= 1000,
})
  .meta({ id: 'heapGrowth', description: 'Heap growth per 10,000 requests: 0.5MB, 200kB, or a number of MB.' })
  .register(docNotes, { type: 'size per 10,000 requests' });

const heapGrowthSchema = z
  .union(
    [
      growthSchema,
      z.literal('off'),
      z.literal(false),
      z.strictObject({
        limit: growthSchema
          .optional()
          .describe("How much faster head's heap must grow than base's, per 10,000 requests: 0.5MB, 200kB or a number of MB."),
        gated: z
          .boolean()
          .optional()
          .describe('Whether a possible leak fails the build. Default: true when limit is given, else false.'),
      }),
    ],
    { error: 'is not a heap growth rule; write a size (0.5MB), off / false for information only, or { limit: 0.5MB, gated: true }' },
  )
  .prefault(
    DEFAULT_HEAP_GROWTH.gated
      ? formatSizeMb(DEFAULT_HEAP_GROWTH.limitMbPer10k)
      : { limit: formatSizeMb(DEFAULT_HEAP_GROWTH.limitMbPer10k), gated: false },
  )
  .describe(
    `The memory-growth rule: a "possible leak" when head's post-GC heap keeps rising with the requests served, in every block, while base's does not, and head grows faster than base by more than the limit (per 10,000 requests). A trend rule, not a paired test. Default ${formatSizeMb(DEFAULT_HEAP_GROWTH.limitMbPer10k)}, ${DEFAULT_HEAP_GROWTH.gated ? 'gated' : 'information only'}.`,
  )
  .register(docNotes, { type: 'size, off, false or { limit, gated }' });

export const gateSchema = z.strictObject({
  throughput: gateRule('throughput', 'Requests per second; lower is worse.'),
  latency_p50: gateRule('latency_p50', 'Median latency; higher is worse.'),
  latency_p90: gateRule('latency_p90', '90th percentile latency; higher is worse.'),
  latency_p99: gateRule('latency_p99', '99th percentile latency; higher is worse.'),
  latency_p999: gateRule('latency_p999', '99.9th percentile latency, fixed-rate scenarios only; higher is worse.'),
  cpu_per_request: gateRule('cpu_per_request', 'CPU time per request; higher is worse.'),
  errors: gateRule(
    'errors',
    "Share of requests not answered as expected (a status the scenario does not expect, a connection error, a timeout): head's share may exceed base's by the limit, in percentage points (1% = 1 point), not relative to base's. Also a regression, whatever the test can reach, when base answered every request as expected and head failed beyond the limit in every start pair; higher is worse.",
  ),
  event_loop_delay_p99: delayGateRule(
    'event_loop_delay_p99',
    "Event-loop delay, 99th percentile of the slice (the worst process's): how late the service's loop ran a timer; higher is worse.",
  ),
  event_loop_delay_max: delayGateRule('event_loop_delay_max', 'Event-loop delay, longest stall of the slice; higher is worse.'),
  event_loop_utilization: gateRule(
    'event_loop_utilization',
    "Share of the slice the service's busiest event loop was busy; higher is worse.",
  ),
  gc_per_request: gateRule('gc_per_request', 'Garbage-collection pause time per request (shown per 1,000 requests); higher is worse.'),
  allocated_per_request: gateRule(
    'allocated_per_request',
    'Bytes allocated on the V8 heap per request (all processes; what each collection freed plus what is still held); higher is worse.',
  ),
  gc_count_per_request: gateRule('gc_count_per_request', 'Garbage collections per request, all kinds (shown per 1,000 requests); higher is worse.'),
  syscalls_per_request: gateRule('syscalls_per_request', 'Read and write system calls per request (Linux /proc/<pid>/io, all processes); higher is worse.'),
  socket_written_per_request: gateRule(
    'socket_written_per_request',
    "Bytes the service's processes wrote to their sockets per request (responses and outgoing calls); higher is worse.",
  ),
  socket_read_per_request: gateRule(
    'socket_read_per_request',
    "Bytes the service's processes read from their sockets per request (requests and answers of outgoing calls); higher is worse.",
  ),
  heap_growth: heapGrowthSchema,
  startup_time: gateRule(
    'startup_time',
    'Time from spawning the service to its listening socket, compared over every start (base start against head start); higher is worse.',
  ),
  startup_memory: gateRule('startup_memory', "Resident memory of the service's processes when it is ready, over every start; higher is worse."),
  benchmarks: gateRule(
    'benchmarks',
    'Operations per second of each micro-benchmark (one rule for all of them); lower is worse.',
  ),
} satisfies Record<GateKey | 'heap_growth', z.ZodType>);

/**
 * A scenario's own `gate`: any of the per-scenario metrics' rules, each overriding the global
 * one for that scenario alone (resolve.ts merges them key by key). Start-up, the memory-growth
 * rule and the micro-benchmarks are about the whole service, so they stay global.
 */
export const scenarioGateSchema = z
  .strictObject(Object.fromEntries(SCENARIO_GATE_KEYS.map((metric) => [metric, ruleInput(metric).optional().describe(`This scenario's rule for ${metric}; overrides gate.${metric} here.`)])) as Record<ScenarioGateKey, z.ZodOptional<ReturnType<typeof ruleInput>>>)
  .describe(
    "This scenario's own rules, per metric, in the forms of the global gate: each key written overrides the global rule for this scenario (the keys of a mapping one by one, so { max: 300ms } keeps the global limit). HTTP and health metrics only.",
  )
  .register(docNotes, { type: 'mapping of metric to rule' });
