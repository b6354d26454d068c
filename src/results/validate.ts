/**
 * results.json as untrusted input. The fork-safe report workflow holds a write token and reads
 * a results file that a job running the pull request's code uploaded: every field the
 * renderers and the gate read is checked here, once, at the door: integers where counts are,
 * finite numbers in range, 40-hex shas, and strings of bounded length. A file that does not
 * fit becomes one ResultsFileError naming the first few bad fields (never a stack trace).
 *
 * Unknown keys are dropped (z.object strips them), so nothing unchecked reaches a renderer.
 * Fields added after version 1 are optional, so results from older releases still report.
 * A field added to results/types.ts must be added here too: test/unit/results-validate.test.ts
 * checks that a complete, engine-shaped file passes through unchanged.
 */
import { z } from 'zod';
import { HEALTH_METRICS, METRICS, STARTUP_METRICS } from '../config/types.js';
import { ResultsFileError } from './io.js';
import { RESULTS_VERSION, type Results } from './types.js';

/** Longest name-like text (scenario, ref, function, file path), characters. */
const NAME_MAX = 2_000;
/** Longest message-like text (errors, warnings, reasons), characters. */
const MESSAGE_MAX = 20_000;
/** Longest captured output of a benchmark process, characters (the engine keeps tails). */
const LOG_MAX = 1_000_000;
/** Most entries in any list: far above what a run measures (pairs, processes, functions). */
const LIST_MAX = 100_000;

const name = z.string().max(NAME_MAX);
const message = z.string().max(MESSAGE_MAX);
const count = z.int().min(0);
const finite = z.number();
const nonNegative = z.number().min(0);
const positive = z.number().gt(0);
const fraction = z.number().min(0).max(1);
const list = <T extends z.ZodType>(item: T) => z.array(item).max(LIST_MAX);
const sha = z.string().regex(/^[0-9a-f]{40}$/, 'must be a 40-character hex commit sha');
const side = z.enum(['base', 'head']);
const isoTime = z.string().max(40).regex(/^\d{4}-\d\d-\d\dT[\d:.]+Z$/, 'must be an ISO time');
const stringMap = z.record(name, message);

const rule = z.object({ limit: nonNegative, gated: z.boolean(), min: nonNegative.optional() });
// latency_p999 came with fixed-rate scenarios: optional, like the rules added after it (errors).
const metricRules = Object.fromEntries(METRICS.filter((m) => m !== 'latency_p999' && m !== 'errors').map((m) => [m, rule])) as Record<
  Exclude<(typeof METRICS)[number], 'latency_p999' | 'errors'>,
  typeof rule
>;
const optionalRules = Object.fromEntries([...HEALTH_METRICS, ...STARTUP_METRICS, 'latency_p999', 'errors', 'benchmarks'].map((m) => [m, rule.optional()])) as Record<
  (typeof HEALTH_METRICS)[number] | (typeof STARTUP_METRICS)[number] | 'latency_p999' | 'errors' | 'benchmarks',
  z.ZodOptional<typeof rule>
>;

/** What a scenario, or one request of its mix or sequence, sends. */
const httpRequest = {
  method: z.string().regex(/^[A-Z][A-Z-]{0,19}$/, 'must be an HTTP method'),
  path: name,
  headers: stringMap,
  body: z.string().max(LOG_MAX).nullable(),
};

const config = z.object({
  service: z.object({
    install: message.nullable(),
    build: message.nullable(),
    setup: message.nullable().optional(),
    start: message.nullable(),
    cwd: name,
    env: stringMap,
    ready: z.object({ path: name.nullable(), timeoutMs: nonNegative }),
  }),
  scenarios: list(
    z.object({
      name,
      ...httpRequest,
      connections: count,
      pipelining: count,
      rate: z
        .union([z.object({ perSecond: positive }), z.object({ ofCapacity: fraction })])
        .nullable()
        .optional(),
      expect: list(z.int().min(100).max(599)).nullable().optional(),
      requests: list(
        z.object({
          name,
          ...httpRequest,
          weight: count,
          capture: z
            .record(name, z.union([z.object({ from: z.literal('body'), path: list(name) }), z.object({ from: z.literal('header'), name })]))
            .nullable(),
        }),
      )
        .nullable()
        .optional(),
      sequence: z.boolean().optional(),
      values: z.object({ file: name }).nullable().optional(),
    }),
  ),
  load: z.object({
    sliceMs: nonNegative,
    pairs: count,
    blocks: count,
    warmupMs: nonNegative,
    earlyStop: z.boolean().optional(),
    // Since starts became the unit (absent in older files: one start per side and block, alternating).
    instances: z.int().min(1).max(16).optional(),
    mode: z.enum(['simultaneous', 'alternate']).optional(),
    pin: z.enum(['auto', 'on', 'off']).optional(),
  }),
  benchmarks: z.object({ files: list(name), rounds: count, timeoutMs: nonNegative, budgetMs: nonNegative }).nullable().optional(),
  gate: z.object({ ...metricRules, ...optionalRules, heap_growth: z.object({ limitMbPer10k: nonNegative, gated: z.boolean() }).optional() }),
  alpha: z.number().gt(0).lt(1),
  seed: z.int().nullable(),
  profile: z
    .object({ enabled: z.boolean(), durationMs: nonNegative, intervalUs: nonNegative, scenarios: list(name).nullable(), when: z.enum(['changed', 'always']).optional() })
    .optional(),
});

const processHealth = z.object({
  pid: count,
  ppid: count,
  worker: z.boolean(),
  windowMs: nonNegative,
  eventLoopDelayUs: z.object({ p50: nonNegative, p99: nonNegative, max: nonNegative, samples: count }).nullable(),
  eventLoopUtilization: fraction,
  gc: z.record(z.enum(['minor', 'major', 'incremental', 'weakcb']), z.object({ count, ms: nonNegative })),
  heapUsedBytes: nonNegative,
  heapAfterGcBytes: nonNegative.nullable(),
  rssBytes: nonNegative,
  activeHandles: count,
  io: list(z.object({ destination: name, roundTrips: count, waitMs: nonNegative })).optional(),
  ioRequests: count.optional(),
});

/** What a side answered with an unexpected status: one line of body, cut at 160 characters by the engine. */
const unexpectedAnswer = z.object({ status: z.number().int().min(100).max(999), body: z.string().max(NAME_MAX) });

const slice = z.object({
  side,
  startedAt: isoTime,
  durationMs: nonNegative,
  requests: count,
  rps: nonNegative,
  latencyUs: z.object({ p50: nonNegative, p90: nonNegative, p99: nonNegative, p999: nonNegative.optional(), max: nonNegative, mean: nonNegative }),
  non2xx: count,
  // An HTTP status is three digits, so the record has at most 900 keys.
  statuses: z.record(z.string().regex(/^[1-9]\d\d$/, 'must be an HTTP status'), count).optional(),
  errors: count,
  timeouts: count,
  offered: z
    .object({ ratePerSecond: positive, sent: count, dropped: count, lagUsP50: nonNegative, lagUsP99: nonNegative })
    .optional(),
  byRequest: list(z.object({ name, responses: count, failed: count, p50Us: nonNegative, p99Us: nonNegative })).optional(),
  cpuSeconds: nonNegative,
  generatorCpuSeconds: nonNegative.optional(),
  generatorEventLoopUtilization: fraction.optional(),
  health: z.object({ requestsSinceStart: count, missing: count, processes: list(processHealth) }).nullable().optional(),
  idle: z.object({ base: z.object({ starts: count, cpuSeconds: nonNegative }), head: z.object({ starts: count, cpuSeconds: nonNegative }) }).optional(),
});

const benchRecord = z.object({
  library: z.enum(['benchmark', 'tinybench', 'mitata']),
  name,
  suite: name.nullable(),
  occurrence: count,
  opsPerSec: nonNegative.nullable(),
  rme: finite.nullable(),
  sampleCount: count,
  samplesNs: list(nonNegative),
  // The library's own numbers: only ever serialised back, never rendered.
  stats: z.record(name, z.unknown()).nullable(),
  error: message.nullable(),
});

const benchmarks = z.object({
  files: z.object({ base: list(name), head: list(name) }),
  rounds: count,
  runs: list(
    z.object({
      round: count,
      file: name,
      side,
      startedAt: isoTime,
      durationMs: nonNegative,
      exitCode: z.int().nullable(),
      signal: z.string().max(20).nullable(),
      timedOut: z.boolean(),
      error: message.nullable(),
      benchmarks: list(benchRecord),
      libraries: list(z.object({ name, version: name, path: name, unsupported: message.nullable() })),
      logs: z.object({ stdout: z.string().max(LOG_MAX), stderr: z.string().max(LOG_MAX) }),
    }),
  ),
  stoppedEarly: message.nullable(),
});

const functionId = {
  name,
  file: name,
  line: count,
  column: count,
  category: z.enum(['own', 'dependency', 'node', 'native']),
  package: name.nullable(),
  // Own-code attribution (absent in older files).
  enclosing: name.optional(),
  kind: z.enum(['function', 'arrow', 'method']).optional(),
  hash: z.string().regex(/^[0-9a-f]{1,64}$/, 'must be a hex hash').optional(),
  endLine: count.optional(),
};

const functionStats = z.object({
  ...functionId,
  self: count,
  total: count,
  deoptReasons: list(message).optional(),
  attributed: count.optional(),
  into: list(z.object({ ...functionId, samples: count })).optional(),
  optimization: z.object({ deopts: count, reasons: list(message), notOptimized: list(message).optional() }).optional(),
});

const sideProfile = z.object({
  samples: count,
  idleSamples: count,
  categories: z.object({ own: count, dependency: count, node: count, native: count }),
  functions: list(functionStats),
  functionCount: count,
  profiler: z.enum(['cpu-prof', 'inspector']),
  nodeVersion: name,
  requests: count,
  windowMs: nonNegative,
  wallMs: nonNegative,
  processes: list(z.object({ file: name, samples: count })),
  merged: name,
  inlinedSamples: count,
  packages: list(z.object({ name, version: name.nullable(), samples: count })).optional(),
});

const profile = z.object({
  scenario: name,
  durationMs: nonNegative,
  intervalUs: nonNegative,
  sides: z.object({ base: sideProfile, head: sideProfile }),
  files: z.object({ head: name.nullable(), base: name.nullable(), diff: name.nullable() }),
  renderMs: nonNegative.nullable(),
});

const sequential = z.object({
  design: name,
  alpha: z.number().gt(0).lt(1),
  looks: list(z.object({ afterBlock: count, pairs: count, t: fraction, nominalAlpha: fraction })),
  taken: list(
    z.object({ look: count, at: isoTime, pairs: count, decision: z.enum(['stop-regression', 'stop-clear', 'continue', 'final']), reason: message }),
  ),
});

const github = z.object({
  repository: z.string().regex(/^[\w.-]{1,100}\/[\w.-]{1,100}$/, 'must be owner/name'),
  pullRequest: z.int().positive().nullable(),
  headSha: sha.nullable(),
  baseSha: sha.nullable(),
  runId: z.string().regex(/^\d{1,20}$/, 'must be a run id').nullable(),
  event: z.string().regex(/^[a-z_]{1,40}$/, 'must be an event name'),
});

export const resultsSchema = z.object({
  schema: z.literal('perfgate/results'),
  version: z.literal(RESULTS_VERSION),
  tool: z.object({ name: z.literal('perfgate'), version: z.string().max(100) }),
  startedAt: isoTime,
  finishedAt: isoTime.nullable(),
  status: z.enum(['running', 'complete', 'failed']),
  error: message.nullable(),
  seed: z.int(),
  config,
  environment: z.object({
    cpuModel: name,
    cpus: z.int().min(1).max(100_000),
    nodeVersion: z.string().max(100),
    os: name,
    arch: z.string().max(100),
    totalMemoryMb: count,
    nodeFlags: list(name),
    placement: z.object({ generator: z.string().regex(/^[\d,-]{1,200}$/, 'must be a CPU list'), services: z.string().regex(/^[\d,-]{1,200}$/, 'must be a CPU list') }).optional(),
  }),
  sides: z.object({
    base: z.object({ ref: name, sha, dirty: z.boolean() }),
    head: z.object({ ref: name, sha, dirty: z.boolean() }),
  }),
  scenarios: list(
    z.object({
      name,
      method: z.string().regex(/^[A-Z][A-Z-]{0,19}$/, 'must be an HTTP method'),
      path: name,
      rate: z.object({ perSecond: positive, source: z.enum(['config', 'capacity']), baseCapacity: nonNegative.optional() }).optional(),
      pairs: list(
        z.object({
          block: count,
          start: count.optional(),
          index: count,
          order: z.union([z.tuple([z.literal('base'), z.literal('head')]), z.tuple([z.literal('head'), z.literal('base')])]),
          base: slice,
          head: slice,
        }),
      ),
      unexpectedAnswer: z
        .object({ base: unexpectedAnswer.optional(), head: unexpectedAnswer.optional() })
        .optional(),
    }),
  ),
  starts: list(
    z.object({ start: count, block: count, side, readyMs: nonNegative, rssBytes: nonNegative.nullable() }),
  ).optional(),
  warnings: list(z.object({ code: z.string().max(100), message, scenario: name.optional(), benchmark: name.optional() })),
  github: github.optional(),
  benchmarks: benchmarks.optional(),
  profiles: list(profile).optional(),
  profilesSkipped: list(name).optional(),
  sequential: sequential.optional(),
  dependencies: z.object({ lockfile: name, changed: list(z.object({ name, base: list(name), head: list(name), direct: z.boolean() })) }).optional(),
  changes: z.object({ since: sha, files: list(z.object({ file: name, hunks: list(z.tuple([count, count])) })) }).optional(),
}).superRefine((results, context) => {
  // A run marks itself complete only after every scenario measured its pairs: a complete file
  // without them has nothing for a verdict to stand on, and would otherwise read as "no regression".
  if (results.status !== 'complete') return;
  results.scenarios.forEach((scenario, i) => {
    if (scenario.pairs.length === 0) context.addIssue({ code: 'custom', path: ['scenarios', i, 'pairs'], message: 'is empty in a run marked complete' });
  });
  if (results.scenarios.length === 0 && (results.benchmarks?.runs.length ?? 0) === 0) {
    context.addIssue({ code: 'custom', path: ['status'], message: 'is complete, but the run measured no scenario and ran no benchmark' });
  }
});

/** Most problems listed in the error: enough to see what was forged or broken, short enough to read. */
const ISSUES_SHOWN = 5;

/** A zod path as results.json spells it: scenarios[0].pairs[3].base.rps. */
function formatPath(path: readonly PropertyKey[]): string {
  // Keys can come from the file (service.env, gc kinds): shown as letters, digits, "_", "-" and "." only.
  const key = (p: PropertyKey) => String(p).slice(0, 60).replace(/[^\w.-]/g, '?');
  return path.map((p, i) => (typeof p === 'number' ? `[${p}]` : `${i === 0 ? '' : '.'}${key(p)}`)).join('') || '(the file)';
}

/**
 * `data` (parsed JSON from an untrusted file) as Results, or one ResultsFileError that names
 * the file and the first bad fields. Values from the file are never echoed, only their paths.
 */
export function validateResults(data: unknown, source: string): Results {
  const parsed = resultsSchema.safeParse(data);
  if (parsed.success) return parsed.data as Results;
  const problems = parsed.error.issues.slice(0, ISSUES_SHOWN).map((issue) => `${formatPath(issue.path)}: ${issue.message}`);
  const more = parsed.error.issues.length > ISSUES_SHOWN ? ` (and ${parsed.error.issues.length - ISSUES_SHOWN} more)` : '';
  throw new ResultsFileError(
    `${source} is not a results file this perfgate can report: ${problems.join('; ')}${more}. ` +
      'It was not written by this perfgate release, or it was changed after the run: report it with the release that measured it, or measure again.',
  );
}
