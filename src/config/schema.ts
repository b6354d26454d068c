/**
 * The single source of truth for perfgate.yml: one zod schema validates the user-facing document
 * and normalises units (durations to ms, percentages to fractions). resolve.ts turns what it
 * parses into the `PerfgateConfig` the engine runs with; json-schema.ts publishes its input side
 * as the JSON Schema (editor completion) and the configuration reference in docs/configuration.md.
 *
 * Messages: schemas word their problems as predicates about the value ("is not a duration; write
 * e.g. 1s") and errors.ts prefixes where and what. Keep every `.describe()` user-facing: it is
 * shown by editors and printed in the docs.
 */

import { z } from 'zod';
import { MAX_BLOCKS, MAX_INSTANCES, MAX_LOAD_MS, MAX_PAIRS, MAX_SCENARIOS } from './bounds.js';
import { DEFAULT_ALPHA, DEFAULT_BENCHMARKS, DEFAULT_LOAD, DEFAULT_PROFILE, DEFAULT_SERVICE } from './defaults.js';
import { gateSchema } from './schema-gate.js';
import { scenariosSchema } from './schema-scenarios.js';
import { command, docNotes, duration, intInRange, missingOr, pathInsideTree, requestPath, scalarText } from './schema-values.js';
import type { BenchmarksConfig, ProfileConfig } from './types.js';
import { formatDuration } from './units.js';

/** Where start and scenarios can come from besides the file: named so the message says what to do. */
const START_REQUIRED = 'is required: set it in perfgate.yml or pass --start / the start input';
const SCENARIOS_REQUIRED =
  'is required: list at least one in perfgate.yml (e.g. "- GET /hello") or pass --scenario / the scenarios input; or list micro-benchmark files under benchmarks';

// ---------------------------------------------------------------------------------- service

const cwdSchema = pathInsideTree((value) => value.replaceAll('\\', '/'), {
  relative: 'a directory relative to the repository root, e.g. packages/api',
  inside: 'a directory inside it, e.g. packages/api',
}).register(docNotes, { type: 'directory' });

const ENV_NAME_PATTERN = /^[A-Za-z_][A-Za-z0-9_]*$/;

const envSchema = z
  .record(
    z.string().regex(ENV_NAME_PATTERN, {
      error: 'is not an environment variable name; use letters, digits and _, not starting with a digit',
    }),
    scalarText('an environment value'),
  )
  // Production unless the user says otherwise: dev mode hides the truth (docs/configuration.md, service.env).
  .transform((env) => ({ NODE_ENV: 'production', ...env }));

const readySchema = z
  .strictObject({
    path: requestPath()
      .nullable()
      .optional()
      .transform((path) => path ?? null)
      .describe(
        'Path that must answer 2xx to a GET before the service counts as ready, e.g. /health. Omit to wait only until its port accepts connections.',
      )
      .register(docNotes, { default: 'none' }),
    timeout: duration({ minMs: 100, maxMs: 600_000 })
      .prefault(DEFAULT_SERVICE.readyTimeout)
      .describe('How long to wait for the service to be ready before giving up: a duration, 100ms to 10m.'),
  })
  .transform(({ path, timeout }) => ({ path, timeoutMs: timeout }));

/** install values that mean no install step, not a command to run (`false` would run /bin/false). */
const NO_INSTALL: readonly string[] = ['false', 'none'];

const serviceSchema = z.strictObject({
  install: z
    .union([command(), z.literal(false), z.null()], {
      error: 'is not an install command; write a command such as npm ci, or false to skip installing',
    })
    .optional()
    // "false" and "none" as text too: an action input is always text, and a file read the same way must mean the same.
    .transform((install) => (install === undefined || install === null ? null : install === false || NO_INSTALL.includes(install) ? '' : install))
    .describe(
      'Command that installs dependencies, e.g. npm ci. Omit to choose one from the lockfile (npm, pnpm or yarn); false, "false", "none" or "" skips installing.',
    )
    .register(docNotes, { default: 'chosen from the lockfile' }),
  build: z
    .union([command(), z.null()], { error: 'is not a build command; write a command such as npm run build' })
    .optional()
    .transform((build) => build || null)
    .describe('Command that builds the service after installing, e.g. npm run build. Omit for no build step.')
    .register(docNotes, { default: 'none' }),
  setup: z
    .union([command(), z.null()], { error: 'is not a setup command; write a command such as npm run db:reset' })
    .optional()
    .transform((setup) => setup || null)
    .describe(
      'Command run in the tree before every start of the service (each side is started many times), e.g. migrations and seed data: npm run db:reset. It gets PERFGATE_SIDE (base or head) and PERFGATE_START (the start number, or "profile"), as the start command does, so each side can have its own database or schema (docs/databases.md). A setup that fails stops the run, keeping what was measured.',
    )
    .register(docNotes, { default: 'none' }),
  // Required with scenarios; the document checks that (a benchmarks-only project has no service).
  start: z
    .string({ error: 'is not a command; write e.g. node server.js' })
    .trim()
    .min(1, { error: 'is empty; write the command that starts the service, e.g. node server.js' })
    .optional()
    .describe(
      'Command that starts the service, e.g. node server.js. Required when there are scenarios, here or as the start input / --start flag. ' +
        "Its output (and service.setup's) goes to the side's log in the run directory: the first 64 KiB and the last 192 KiB of each start (docs/when-things-fail.md).",
    )
    .register(docNotes, { type: 'command', default: 'none: required with scenarios' }),
  cwd: cwdSchema
    .prefault(DEFAULT_SERVICE.cwd)
    .describe(
      'Directory the service commands run in, relative to the repository root; it must stay inside the repository.',
    ),
  env: envSchema
    .prefault({})
    .describe(
      'Environment variables added for the service. Numbers and true/false are passed as strings. NODE_ENV is production unless set here: development mode hides real performance.',
    )
    .register(docNotes, { default: 'NODE_ENV: production' }),
  ready: readySchema.prefault({}).describe('When the started service counts as ready for load.'),
});

// ------------------------------------------------------------------------------------- load

/** The paired test's smallest p with n non-zero pairs is 1/2^n: 6 give 0.016. */
const MIN_PAIRS = 6;

const loadSchema = z
  .strictObject({
    slice: duration({ minMs: 100, maxMs: 60_000 })
      .prefault(DEFAULT_LOAD.slice)
      .describe('Length of one measured slice: a duration, 100ms to 60s. Each pair is one slice on base and one on head.'),
    pairs: intInRange(
      MIN_PAIRS,
      MAX_PAIRS,
      'with n pairs the smallest possible p is 1/2^n, and 6 give 0.016',
      `${MAX_PAIRS} pairs of 1s are almost 3 hours of load per scenario`,
    )
      .default(DEFAULT_LOAD.pairs)
      .describe(
        `Base/head slice pairs per scenario, over all blocks and starts: ${MIN_PAIRS} to ${MAX_PAIRS}, and at most ${MAX_LOAD_MS / 3_600_000} hours of measured load over all scenarios (pairs × slice × scenarios, twice that in alternate mode). Pairs are split evenly over the start pairs (load.blocks × load.instances); more pairs per start steady each start's own estimate, more starts narrow the interval.`,
      ),
    blocks: intInRange(1, MAX_BLOCKS, undefined, 'every block restarts both sides; for more evidence raise load.pairs or load.instances')
      .default(DEFAULT_LOAD.blocks)
      .describe(
        `Times fresh starts of both services are made, 1 to pairs and at most ${MAX_BLOCKS}; pairs are split evenly across blocks. The looks of early-stop come between blocks.`,
      ),
    instances: intInRange(1, MAX_INSTANCES)
      .default(DEFAULT_LOAD.instances)
      .describe(
        `Fresh starts of each side per block, all up at once: 1 to ${MAX_INSTANCES}. Each base start is paired with one head start, and the start pairs take turns (each warmed, then measured back to back); a start is the unit the verdicts count (every start carries its own offset), so more starts per block give more evidence for the same boot and warm-up cost.`,
      ),
    warmup: duration({ minMs: 0, maxMs: 600_000 })
      .prefault(DEFAULT_LOAD.warmup)
      .describe(
        'Load before measuring, per start pair (JIT, caches, heap sizing): a duration, 0 to 10m. Each start pair is warmed just before its pairs, both starts at once, in slices of load.slice like its pairs (in simultaneous mode, on the same connections as its pairs: the load does not stop in between). With several scenarios a start pair serves them one after the other: the first is warmed this long, each other one slice (at most this long) on its own load.',
      ),
    mode: z
      .enum(['simultaneous', 'alternate'], { error: 'is not allowed; use simultaneous or alternate' })
      .default(DEFAULT_LOAD.mode)
      .describe(
        'How a pair is measured: simultaneous loads base and head at the same time on the same CPUs, so a machine that slows down slows both (the ratio is what counts); alternate loads one, then the other, in random order. simultaneous is far steadier on shared runners (docs/calibration.md); alternate measures each side alone.',
      ),
    pin: z
      .enum(['auto', 'on', 'off'], { error: 'is not allowed; use auto, on or off' })
      .default(DEFAULT_LOAD.pin)
      .describe(
        'CPU pinning: the load generator (perfgate) on the first CPU and every service on the others, shared by both sides. auto and on pin when the machine has 2 or more CPUs (on warns when it cannot); off leaves placement to the scheduler. Needs taskset (util-linux) and Linux.',
      ),
    connections: intInRange(1, 1000)
      .default(DEFAULT_LOAD.connections)
      .describe('Concurrent connections, for scenarios that do not set their own: 1 to 1000.'),
    pipelining: intInRange(1, 100)
      .default(DEFAULT_LOAD.pipelining)
      .describe('Requests in flight per connection, for scenarios that do not set their own: 1 to 100.'),
    'early-stop': z
      .boolean({ error: 'is not allowed; use true or false' })
      .default(DEFAULT_LOAD.earlyStop)
      .describe(
        'Adaptive stopping: after every block but the last, look and stop when the answer is already clear (a regression beyond that look\'s bound, or, with load.stop, no gated metric left that could fail). The bounds keep the overall alpha (O\'Brien–Fleming-type design with a look after every block, see docs/method.md). Against a stored baseline the looks set head\'s starts so far against all of the record\'s; a record measures every block. Needs at least 2 blocks.',
      ),
    stop: z
      .enum(['decision', 'verdicts'], { error: 'is not allowed; use decision or verdicts' })
      .default(DEFAULT_LOAD.stop)
      .describe(
        'When an interim look of load.early-stop ends a run that has not regressed. decision: once no gated metric can fail any more, each unchanged, improved or with no regression (a worsening beyond its limit ruled out, an improvement not); the fastest pass. verdicts: only once every gated metric is unchanged or improved, so a faster head runs on until the improvement is called (drawn from the calibration pools, a head 5% faster was called an improvement in half the runs with decision, 2–6% on express, and in all with verdicts, which take about 50 s more of load for it: docs/calibration/settled-stop.md).',
      ),
  })
  .superRefine((load, ctx) => {
    // Only against a valid pairs: a bad one has its own message, and "use 1 to -5" helps nobody.
    // A block with fewer pairs than load.instances starts only as many as it has pairs (plan.ts).
    const pairsValid = Number.isInteger(load.pairs) && load.pairs >= MIN_PAIRS;
    if (pairsValid && load.blocks > load.pairs) {
      ctx.addIssue({
        code: 'custom',
        path: ['blocks'],
        input: load.blocks,
        message: `is more than load.pairs (${load.pairs}); use 1 to ${load.pairs}`,
      });
    }
  });

/**
 * The measured load a configuration asks for: every pair is a slice of every scenario (two, one
 * side after the other, when alternating). Checked on valid values only: a bad pairs or slice
 * has its own message. The per-key bounds keep each factor sane; this keeps their product so.
 */
function checkLoadTime(load: { pairs: number; slice: number; mode: string }, scenarios: number, ctx: z.RefinementCtx): void {
  const valid = Number.isInteger(load.pairs) && load.pairs >= MIN_PAIRS && load.pairs <= MAX_PAIRS && Number.isFinite(load.slice);
  const slicesPerPair = load.mode === 'alternate' ? 2 : 1;
  const loadMs = load.pairs * load.slice * slicesPerPair * scenarios;
  if (!valid || loadMs <= MAX_LOAD_MS) return;
  const hours = (ms: number) => `${Math.round(ms / 3_600_000)} hours`;
  const most = Math.floor(MAX_LOAD_MS / (load.slice * slicesPerPair * scenarios));
  const over = `${formatDuration(load.slice)} slices${slicesPerPair === 2 ? ', alternating (base, then head)' : ''}${scenarios > 1 ? ` over ${scenarios} scenarios` : ''}`;
  ctx.addIssue({
    code: 'custom',
    path: ['load', 'pairs'],
    input: load.pairs,
    message: `is ${hours(loadMs)} of measured load with ${over}; ask for at most ${hours(MAX_LOAD_MS)}: use at most ${most} pairs${scenarios > 1 ? ', a shorter load.slice or fewer scenarios' : ' or a shorter load.slice'}`,
  });
}

// ------------------------------------------------------------------------------- benchmarks

const GLOB_EXAMPLE = 'bench/**/*.bench.js';

/** A glob of benchmark files (picomatch syntax, `!` to exclude), relative to the service directory. */
const benchmarkGlobSchema = pathInsideTree(
  (value) => value,
  {
    relative: `a glob relative to the service directory, e.g. ${GLOB_EXAMPLE}`,
    inside: `a glob inside it, e.g. ${GLOB_EXAMPLE}`,
  },
  { glob: true },
)
  .refine((glob) => glob !== '.' && glob !== '!.', { error: `is empty; write a glob such as ${GLOB_EXAMPLE}` })
  .register(docNotes, { type: 'glob' });

const ONLY_EXCLUSIONS = `only excludes (every glob starts with !); add one that includes files, e.g. "- ${GLOB_EXAMPLE}"`;

const benchmarkFilesSchema = z
  .union(
    [
      benchmarkGlobSchema.refine((glob) => !glob.startsWith('!'), { error: ONLY_EXCLUSIONS }).transform((glob) => [glob]),
      z
        .array(benchmarkGlobSchema)
        .min(1, { error: `is empty; list at least one glob, e.g. "- ${GLOB_EXAMPLE}"` })
        .refine((globs) => globs.length === 0 || globs.some((g) => !g.startsWith('!')), { error: ONLY_EXCLUSIONS }),
    ],
    {
      error: missingOr(
        `is required: a glob or a list of globs, e.g. ${GLOB_EXAMPLE}`,
        `is not a glob or a list of globs; write e.g. ${GLOB_EXAMPLE}`,
      ),
    },
  )
  .register(docNotes, { type: 'glob or list of globs' });

const benchmarksObjectSchema = z
  .strictObject({
    files: benchmarkFilesSchema.describe(
      'Benchmark files: a glob or a list of globs, relative to service.cwd of each tree, in picomatch syntax: `*`, `**`, `?`, `[abc]`, `{a,b}`, `\\` to escape a special character, and `!glob` to exclude what the other globs match (e.g. `[bench/**/*.bench.js, "!bench/slow/**"]`). node_modules, dot-directories and dot-files are never searched; a linked file counts, a linked directory is not followed. CommonJS or ESM, .js/.cjs/.mjs, or TypeScript (.ts/.cts/.mts) through the project\'s tsx.',
    ),
    rounds: intInRange(6, 1000, 'with n rounds the smallest possible p is 1/2^n, and 6 give 0.016')
      .default(DEFAULT_BENCHMARKS.rounds)
      .describe(
        'Rounds, 6 to 1000: each runs every file once on base and once on head, each time in a fresh process, adjacent and in random order. Each process gives one number per benchmark (its mean ops/s).',
      ),
    timeout: duration({ minMs: 1000, maxMs: 3_600_000 })
      .prefault(DEFAULT_BENCHMARKS.timeout)
      .describe('Longest one benchmark process may run before it is killed (and its file reported as failed): a duration, 1s to 60m.'),
    budget: duration({ minMs: 1000, maxMs: 7_200_000 })
      .prefault(DEFAULT_BENCHMARKS.budget)
      .describe(
        'Total time for the micro-benchmarks: a duration, 1s to 120m. No base/head pair of processes starts past it; the rounds finished by then are compared, and the report says the budget cut the run short.',
      ),
  })
  .transform(
    (b): BenchmarksConfig => ({ files: b.files, rounds: b.rounds, timeoutMs: b.timeout, budgetMs: b.budget }),
  );

const benchmarksSchema = z
  .union([benchmarkFilesSchema, benchmarksObjectSchema], {
    error: `is not a benchmarks setting; write a glob (${GLOB_EXAMPLE}), a list of globs, or a mapping with files`,
  })
  // The short forms take every default from the mapping form, so defaults live in one place.
  .transform((value) => (Array.isArray(value) ? benchmarksObjectSchema.parse({ files: value }) : value));

// ---------------------------------------------------------------------------------- profile

const INTERVAL_PATTERN = /^\d+(?:\.\d+)?(?:us|µs|ms)$/;
const INTERVAL_HINT = 'write e.g. 1ms, 500us or 250µs, from 50us to 100ms';

/** V8's sampling interval: µs or ms (durations elsewhere are whole ms, too coarse here). */
const samplingIntervalSchema = z
  .string({ error: `is not a sampling interval; ${INTERVAL_HINT}` })
  .regex(INTERVAL_PATTERN, { error: `is not a sampling interval; ${INTERVAL_HINT}` })
  .transform((value, ctx) => {
    const amount = Number.parseFloat(value);
    const us = Math.round(value.endsWith('ms') ? amount * 1000 : amount);
    if (us < 50 || us > 100_000) {
      ctx.addIssue({ code: 'custom', input: value, message: `is out of range; ${INTERVAL_HINT}` });
      return z.NEVER;
    }
    return us;
  })
  .register(docNotes, { type: 'sampling interval' });

const profileObjectSchema = z
  .strictObject({
    enabled: z
      .boolean({ error: 'is not true or false' })
      .default(DEFAULT_PROFILE.enabled)
      .describe('Whether to profile at all. `profile: false` is short for enabled: false.'),
    duration: duration({ minMs: 1000, maxMs: 600_000 })
      .prefault(DEFAULT_PROFILE.duration)
      .describe('Profiled load per side and scenario, after a warm-up of load.warmup (at most 2 s): a duration, 1s to 10m.'),
    interval: samplingIntervalSchema
      .prefault(DEFAULT_PROFILE.interval)
      .describe(
        "Sampling interval of V8's CPU profiler (--cpu-prof-interval): 50us to 100ms. Finer gives more samples and costs more.",
      ),
    scenarios: z
      .array(z.string({ error: 'is not a scenario name' }).trim().min(1, { error: 'is empty; write a scenario name' }), {
        error: 'is not a list of scenario names; write e.g. ["GET /hello"]',
      })
      .min(1, { error: 'is empty; list scenario names, or omit the key to profile every scenario' })
      .nullable()
      .optional()
      .transform((names) => names ?? null)
      .describe('Names of the scenarios to profile (as in the report, e.g. "GET /hello"). Omit to profile every scenario.')
      .register(docNotes, { type: 'list of scenario names', default: 'all scenarios' }),
    when: z
      .enum(['changed', 'always'], { error: 'is not changed or always' })
      .default(DEFAULT_PROFILE.when)
      .describe(
        'Which of those scenarios are profiled once the timed slices are done: changed, the ones a culprit explains (a metric that regressed or improved; where no scenario did, those with an inconclusive gated metric), or always, every one (flamegraphs of every run).',
      ),
    confirm: z
      .boolean({ error: 'is not true or false' })
      .default(DEFAULT_PROFILE.confirm)
      .describe(
        "Whether a gated regression's culprit is tested: head measured against head with this PR's change to that function reverted (or, for an upgraded package, base's installed copy of it), one block of pairs (up to 3 while the answer is unclear), and the report says how much of the drop the revert gives back.",
      ),
  })
  .transform((p): ProfileConfig => ({ enabled: p.enabled, durationMs: p.duration, intervalUs: p.interval, scenarios: p.scenarios, when: p.when, confirm: p.confirm }));

const profileSchema = z
  .union([z.boolean(), profileObjectSchema], {
    error: 'is not a profile setting; write false to skip profiling, or a mapping such as { duration: 10s }',
  })
  // The short form takes every default from the mapping form, so defaults live in one place.
  .transform((value) => (typeof value === 'boolean' ? profileObjectSchema.parse({ enabled: value }) : value));

// ------------------------------------------------------------------------------ the document

/** perfgate.yml as users write it; resolve.ts turns what it parses into the `PerfgateConfig`. */
export const configDocumentSchema = z
  .strictObject({
    // An absent service parses as {} so the message is "service.start is required", the actual
    // fix; the cast admits that {} alone is not a valid service (start may come from inputs).
    service: serviceSchema
      .prefault({} as z.input<typeof serviceSchema>)
      .describe('How to install, build and start the service. The same commands run for base and head.'),
    scenarios: scenariosSchema
      .optional()
      .describe(
        `HTTP requests to load, each measured and compared on its own: a list of "METHOD /path" lines and/or mappings, at most ${MAX_SCENARIOS}. Required unless benchmarks are listed, here or as the scenarios input.`,
      )
      .register(docNotes, {
        type: 'list of scenario lines and mappings, or text with one scenario per line',
        default: 'none: required without benchmarks',
      }),
    load: loadSchema
      .prefault({})
      .describe('How much load for how long. A pair is one slice on base and one on head, in random order.'),
    benchmarks: benchmarksSchema
      .nullable()
      .optional()
      .transform((benchmarks) => benchmarks ?? null)
      .describe(
        "Micro-benchmark files (benchmark.js, tinybench or mitata suites, or vitest bench files, unchanged) run on base and head: a glob, a list of globs, or a mapping with files and the options below. With benchmarks, service.start and scenarios may be left out. See docs/benchmarks.md.",
      )
      .register(docNotes, { type: 'glob, list of globs, or mapping', default: 'none' }),
    gate: gateSchema
      .prefault({})
      .describe(
        'Per metric, the relative change that counts and whether a regression fails the build. A metric fails only when the change is significant and beyond its limit. Write 5% (gated), off (information only) or { limit: 5%, gated: true }.',
      ),
    alpha: z
      .number({ error: 'is not allowed; use a number above 0 and below 0.5, e.g. 0.01' })
      .gt(0, { error: 'is not allowed; use a number above 0 and below 0.5, e.g. 0.01' })
      .lt(0.5, { error: 'is not allowed; use a number above 0 and below 0.5, e.g. 0.01' })
      .default(DEFAULT_ALPHA)
      .describe('Family-wise significance level over the gated metrics (Holm correction; one-sided tests, so it bounds the rate of false fails), above 0 and below 0.5.'),
    seed: intInRange(0)
      .nullable()
      .optional()
      .transform((seed) => seed ?? null)
      .describe('Seed of the random base/head order, to replay a run. Omit to choose one (it is logged).')
      .register(docNotes, { default: 'random, logged' }),
    profile: profileSchema
      .prefault({})
      .describe(
        'CPU profiles of base and head under each scenario\'s load, after the timed slices (never during them): the hot functions that changed, and flamegraphs. false skips profiling. See docs/profiling.md.',
      )
      .register(docNotes, { type: 'true, false or mapping' }),
  })
  // What must be there depends on what else is: scenarios need a service to start, and a run
  // needs scenarios or benchmarks. Checked even when other keys are wrong (`when`), so every
  // problem is reported at once; only presence is looked at, the values have their own checks.
  .superRefine(
    (doc, ctx) => {
      const hasScenarios = doc.scenarios !== undefined;
      const hasBenchmarks = doc.benchmarks !== undefined && doc.benchmarks !== null;
      if ((hasScenarios || !hasBenchmarks) && doc.service?.start === undefined) {
        // input: undefined words it as missing ("service.start is required: ..."), not as a value.
        ctx.addIssue({ code: 'custom', path: ['service', 'start'], input: undefined, message: START_REQUIRED });
      }
      if (!hasScenarios && !hasBenchmarks) {
        ctx.addIssue({ code: 'custom', path: ['scenarios'], input: undefined, message: SCENARIOS_REQUIRED });
      }
    },
    { when: () => true },
  )
  // zod runs this after problems that do not stop it (a list too long), so the values are checked again.
  .superRefine((doc, ctx) => {
    if (typeof doc.load === 'object' && doc.load !== null) checkLoadTime(doc.load, Array.isArray(doc.scenarios) ? doc.scenarios.length : 0, ctx);
  })
  .meta({
    title: 'perfgate configuration',
    description:
      'perfgate.yml: how to start the service, which HTTP scenarios to load, for how long, which micro-benchmarks to run, and which regressions fail the build. Action inputs and CLI flags override these keys.',
  });

/** The user-facing document (what perfgate.yml and overrides may contain). */
export type ConfigDocument = z.input<typeof configDocumentSchema>;

