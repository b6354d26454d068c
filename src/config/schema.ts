/**
 * The single source of truth for perfgate.yml: one zod schema validates the user-facing document,
 * applies every default and normalises units, producing the `PerfgateConfig` the engine runs with.
 * The same schema, read on its input side, is the published JSON Schema (editor completion) and
 * the configuration reference in docs/configuration.md.
 *
 * Messages: schemas word their problems as predicates about the value ("is not a duration; write
 * e.g. 1s") and errors.ts prefixes where and what. Keep every `.describe()` user-facing: it is
 * shown by editors and printed in the docs.
 */

import { posix, win32 } from 'node:path';
import { z } from 'zod';
import { formatPercent } from '../stats/format.js';
import { placeholdersIn } from './placeholders.js';
import {
  HTTP_METHODS,
  type HttpMethod,
  METHOD_PATTERN_SOURCE,
  METHODS_HINT,
  REQUEST_PATH_PATTERN,
  readScenarioLine,
  SCENARIO_LINE_PATTERN,
} from './scenario-line.js';
import type {
  BenchmarksConfig,
  CaptureSource,
  GateKey,
  HeapGrowthRule,
  MetricRule,
  PerfgateConfig,
  ProfileConfig,
  RequestConfig,
  ScenarioConfig,
  ScenarioRate,
} from './types.js';
import {
  DURATION_HINT,
  DURATION_PATTERN,
  formatDuration,
  formatSizeMb,
  PERCENT_PATTERN,
  parseDurationMs,
  parsePercent,
  parseSizeMb,
  SIZE_PATTERN,
} from './units.js';

export const JSON_SCHEMA_ID = 'https://perfgate.dev/perfgate.schema.json';

/**
 * Limits and whether each metric can fail the build, when perfgate.yml says nothing. The
 * throughput limit is the smallest change that counts, not the size that must be caught: with
 * 5% a true 5% drop fails only when the estimate lands beyond 5%, about half the time, so the
 * default is 2% (docs/calibration.md: the measurements behind it).
 */
export const DEFAULT_GATE: Readonly<Record<GateKey, Readonly<MetricRule>>> = {
  throughput: { limit: 0.02, gated: true },
  latency_p50: { limit: 0.1, gated: false },
  latency_p90: { limit: 0.1, gated: false },
  latency_p99: { limit: 0.15, gated: true },
  // Fixed-rate scenarios only (closed-loop slices do not record it): one window of a few hundred
  // requests holds a handful of samples above p99.9, so it is shown, not gated, by default.
  latency_p999: { limit: 0.25, gated: false },
  cpu_per_request: { limit: 0.1, gated: false },
  // The share of requests not answered as expected, head's minus base's: an absolute limit (1
  // percentage point), as a relative change of a share that is 0 on base has no value. Gated: a
  // route that starts answering 500 is a regression however fast it answers.
  errors: { limit: 0.01, gated: true },
  // Service health (docs/health.md). A loop stalled for tens of ms delays every request waiting
  // behind it, yet may barely move req/s: gated, but only past an absolute 10 ms as well, so a
  // 0.1 → 0.2 ms change on a fast loop never fails a build.
  event_loop_delay_p99: { limit: 0.5, gated: true, min: 10_000 },
  event_loop_delay_max: { limit: 0.5, gated: false, min: 10_000 },
  event_loop_utilization: { limit: 0.1, gated: false },
  gc_per_request: { limit: 0.25, gated: false },
  // Measured on every start, before any load: information unless the project sets a limit.
  startup_time: { limit: 0.2, gated: false },
  startup_memory: { limit: 0.1, gated: false },
  // Gated like throughput: a benchmark the project chose to keep is a promise about speed. Each
  // process gives one number, so the rounds decide what can be detected (docs/benchmarks.md).
  benchmarks: { limit: 0.1, gated: true },
};

/**
 * The memory-growth rule when perfgate.yml says nothing. Information only: the rule is a
 * heuristic on a trend, not a paired test, and a short run sees little of a slow leak; the
 * report still flags a "possible leak" prominently. Set `gated: true` to fail on it.
 */
export const DEFAULT_HEAP_GROWTH: Readonly<HeapGrowthRule> = { limitMbPer10k: 0.5, gated: false };

/** Where start and scenarios can come from besides the file: named so the message says what to do. */
const START_REQUIRED = 'is required: set it in perfgate.yml or pass --start / the start input';
const SCENARIOS_REQUIRED =
  'is required: list at least one in perfgate.yml (e.g. "- GET /hello") or pass --scenario / the scenarios input; or list micro-benchmark files under benchmarks';

/**
 * Notes for the configuration reference only (docs/configuration.md): a type name where the JSON
 * type says too little ("duration", not "number or string") and a default that is not a value
 * ("load.connections"). Kept out of the published JSON Schema; `configJsonSchema({ docNotes:
 * true })` copies them in as `x-doc-type` / `x-doc-default` for the generator. Register last in
 * a chain: `.describe()` and `.meta()` return copies that the registry does not know.
 */
export const docNotes = z.registry<{ type?: string; default?: string }>();

/** A zod error option that words a missing value one way and any other problem another. */
function missingOr(missing: string, otherwise: string) {
  return (issue: { input?: unknown }) => (issue.input === undefined ? missing : otherwise);
}

function intInRange(min: number, max?: number, why?: string) {
  const allowed = max === undefined ? `an integer of at least ${min}` : `an integer from ${min} to ${max}`;
  const message = `is not allowed; use ${allowed}${why ? ` (${why})` : ''}`;
  const int = z.int({ error: message }).min(min, { error: message });
  return max === undefined ? int : int.max(max, { error: message });
}

function duration(range: { minMs: number; maxMs: number }) {
  const notDuration = `is not a duration; ${DURATION_HINT}`;
  const schema = z
    .union([z.number(), z.string().regex(DURATION_PATTERN, { error: notDuration })], { error: notDuration })
    .transform((value, ctx) => {
      const ms = parseDurationMs(value);
      if (ms < range.minMs || ms > range.maxMs) {
        ctx.addIssue({
          code: 'custom',
          input: value,
          message: `is out of range; use ${formatDuration(range.minMs)} to ${formatDuration(range.maxMs)}`,
        });
        return z.NEVER;
      }
      return ms;
    });
  return schema.register(docNotes, { type: 'duration' });
}

/** A shell command; surrounding whitespace (YAML block scalars end in "\n") is not part of it. */
function command() {
  return z.string().trim().register(docNotes, { type: 'command' });
}

/** env and header values: YAML reads `PORT: 3000` as a number, the process wants a string. */
function scalarText(what: string) {
  return z
    .union([z.string(), z.number(), z.boolean()], { error: `is not ${what}; write a string, number or true/false` })
    .transform(String);
}

function requestPath(missing = 'is required') {
  return z
    .string({ error: missingOr(missing, "is not a path; write one starting with '/', e.g. /hello") })
    .regex(REQUEST_PATH_PATTERN, {
      error: "is not a path; it must start with '/' and contain no spaces, e.g. /hello?name=x",
    })
    .register(docNotes, { type: 'path' });
}

// ---------------------------------------------------------------------------------- service

/**
 * A path inside the tree, normalised (posix separators, no "./", no trailing "/"). Relative and
 * inside: base and head are separate checkouts, so an absolute path or one escaping with '..'
 * would reach the same files for both sides. `what` words the fix: "a directory relative to the
 * repository root, e.g. packages/api".
 */
function pathInsideTree(
  normalise: (value: string) => string,
  what: { relative: string; inside: string },
  { glob = false }: { glob?: boolean } = {},
) {
  return z.string().transform((value, ctx) => {
    const trimmed = value.trim();
    // A glob's leading ! excludes; the path it excludes is checked like any other.
    const not = glob && trimmed.startsWith('!') ? '!' : '';
    const path = trimmed.slice(not.length);
    const normalised = posix.normalize(normalise(path)).replace(/\/+$/, '') || '.';
    // In a glob a backslash escapes (\[ is a literal [), so only a drive letter marks a Windows path.
    const windowsAbsolute = glob ? /^[A-Za-z]:[\\/]/.test(path) : win32.isAbsolute(path);
    if (posix.isAbsolute(normalised) || windowsAbsolute) {
      ctx.addIssue({ code: 'custom', input: value, message: `is absolute; write ${what.relative}` });
      return z.NEVER;
    }
    if (normalised === '..' || normalised.startsWith('../')) {
      ctx.addIssue({ code: 'custom', input: value, message: `is outside the repository; write ${what.inside}` });
      return z.NEVER;
    }
    return not + normalised;
  });
}

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
      .prefault('30s')
      .describe('How long to wait for the service to be ready before giving up: a duration, 100ms to 10m.'),
  })
  .transform(({ path, timeout }) => ({ path, timeoutMs: timeout }));

const serviceSchema = z.strictObject({
  install: z
    .union([command(), z.literal(false), z.null()], {
      error: 'is not an install command; write a command such as npm ci, or false to skip installing',
    })
    .optional()
    .transform((install) => (install === undefined || install === null ? null : install === false ? '' : install))
    .describe(
      'Command that installs dependencies, e.g. npm ci. Omit to choose one from the lockfile (npm, pnpm or yarn); false or "" skips installing.',
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
      'Command that starts the service, e.g. node server.js. Required when there are scenarios, here or as the start input / --start flag.',
    )
    .register(docNotes, { type: 'command', default: 'none: required with scenarios' }),
  cwd: cwdSchema
    .prefault('.')
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

// -------------------------------------------------------------------------------- scenarios

const methodSchema = z
  .union(
    [
      // The enum gives editors completions; the pattern also admits lower case, as the CLI does.
      z.enum(HTTP_METHODS),
      z.string().regex(new RegExp(`^${METHOD_PATTERN_SOURCE}$`), { error: `is not allowed; ${METHODS_HINT}` }),
    ],
    { error: `is not allowed; ${METHODS_HINT}` },
  )
  .transform((method) => method.toUpperCase() as HttpMethod);

const headersSchema = z.record(
  z.string().regex(/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/, {
    error: 'is not a header name; use letters, digits and - (e.g. content-type)',
  }),
  scalarText('a header value'),
);

const bodySchema = z
  .union([z.string(), z.array(z.unknown()), z.record(z.string(), z.unknown())], {
    error: 'is not a request body; write a string, or a mapping or list to send as JSON',
  })
  .register(docNotes, { type: 'string or JSON value' });

/** The highest fixed rate perSecond accepts, requests per second per side: far above what one generator process sends. */
export const MAX_RATE_PER_SECOND = 100_000;
const RATE_HINT = `write requests per second (e.g. 500 or 500/s, at most ${MAX_RATE_PER_SECOND.toLocaleString('en-US')}) or a share of base's capacity (e.g. 60%, from 1% to 100%)`;

const rateSchema = z
  .union([z.number(), z.string().regex(/^(?:\d+(?:\.\d+)?(?:\/s)?|\d+(?:\.\d+)?%)$/, { error: `is not a rate; ${RATE_HINT}` })], {
    error: `is not a rate; ${RATE_HINT}`,
  })
  .transform((value, ctx): ScenarioRate => {
    if (typeof value === 'string' && value.endsWith('%')) {
      const ofCapacity = parsePercent(value);
      if (ofCapacity >= 0.01 && ofCapacity <= 1) return { ofCapacity };
    } else {
      const perSecond = typeof value === 'number' ? value : Number(value.replace('/s', ''));
      if (perSecond > 0 && perSecond <= MAX_RATE_PER_SECOND) return { perSecond };
    }
    ctx.addIssue({ code: 'custom', input: value, message: `is out of range; ${RATE_HINT}` });
    return z.NEVER;
  })
  .register(docNotes, { type: 'rate (requests per second, or N% of capacity)' });

/** One request of a scenario's `requests`, as written. */
interface RequestEntry {
  name?: string | undefined;
  method: HttpMethod;
  path: string;
  headers: Record<string, string>;
  body?: unknown;
  weight?: number | undefined;
  capture?: Record<string, CaptureSource> | undefined;
}

/** A scenario before cross-scenario defaults (name, connections, pipelining) are filled in. */
interface ScenarioEntry {
  name?: string | undefined;
  method: HttpMethod;
  path: string;
  headers: Record<string, string>;
  body?: unknown;
  connections?: number | undefined;
  pipelining?: number | undefined;
  rate?: ScenarioRate | undefined;
  expect?: number[] | undefined;
  requests?: RequestEntry[] | undefined;
  sequence?: boolean | undefined;
  values?: string | undefined;
}

const NAME_PATTERN = /^[A-Za-z_][A-Za-z0-9_-]*$/;

/** An optional name of a scenario or a request, "METHOD path" when absent. */
function nameKey(description: string) {
  return z
    .string()
    .trim()
    .min(1, { error: 'is empty; write a name or omit the key' })
    .optional()
    .describe(description)
    .register(docNotes, { default: 'METHOD path' });
}
const CAPTURE_HINT = 'write body.<dot path> (e.g. body.token or body.items.0.id), body (the whole body), or header.<name> (e.g. header.x-session)';

const captureSchema = z
  .record(
    z.string().regex(NAME_PATTERN, { error: 'is not a capture name; use letters, digits, _ and - (the value is then written {name})' }),
    z
      .string({ error: `is not a capture source; ${CAPTURE_HINT}` })
      .regex(/^(?:body(?:\.[^.\s]+)*|header\.[!#$%&'*+.^_`|~0-9A-Za-z-]+)$/, { error: `is not a capture source; ${CAPTURE_HINT}` })
      .transform((source): CaptureSource => {
        const [from, ...rest] = source.split('.');
        return from === 'header' ? { from: 'header', name: rest.join('.').toLowerCase() } : { from: 'body', path: rest };
      }),
    { error: 'is not a mapping of capture names to sources; write e.g. { token: body.token }' },
  )
  .register(docNotes, { type: 'mapping of name to body.<dot path> or header.<name>' });

const requestSchema = z
  .strictObject({
    name: nameKey('Name of the request in the per-request breakdown; default "METHOD path". Unique within the scenario.'),
    method: methodSchema
      .prefault('GET')
      .describe('HTTP method (any letter case).')
      .register(docNotes, { type: HTTP_METHODS.join(', ') }),
    path: requestPath('is required: the request path, e.g. /items/{id}').describe(
      "Request path and query, starting with '/'; {name} placeholders are filled in (URL-encoded) from the values file or an earlier capture.",
    ),
    headers: headersSchema.prefault({}).describe('Request headers, added to the scenario\'s headers; {name} placeholders are filled in.'),
    body: bodySchema
      .optional()
      .describe('Request body: a string, or a mapping or list sent as JSON; {name} placeholders are filled in as they are (not escaped).'),
    weight: intInRange(1, 1000)
      .optional()
      .describe('Share of this request in a mix: a request of weight 3 is sent three times as often as one of weight 1. Not for a sequence.')
      .register(docNotes, { default: '1' }),
    capture: captureSchema
      .optional()
      .describe(
        'Sequences only: values to take from this request\'s response for the requests after it, e.g. { token: body.token } (a JSON dot path) or { session: header.x-session }; used as {token}. A response without the value counts as a failed request, and the sequence starts over.',
      ),
  })
  .transform((request): RequestEntry => request)
  .describe('One request of a mix or a sequence.');

const scenarioLineSchema = z
  .string()
  .regex(SCENARIO_LINE_PATTERN, {
    error: (issue) => {
      const read = readScenarioLine(String(issue.input));
      return 'problem' in read ? read.problem : undefined;
    },
  })
  .transform((line): ScenarioEntry => {
    // The pattern above has already admitted the line, so this cannot report a problem.
    const read = readScenarioLine(line) as { method: HttpMethod; path: string };
    return { method: read.method, path: read.path, headers: {} };
  })
  .describe('One line: METHOD /path, e.g. "GET /hello", or just "/hello" for GET.')
  .register(docNotes, { type: 'scenario line' });

const scenarioObjectSchema = z
  .strictObject({
    name: nameKey('Name in the report and results; default "METHOD path". Names must be unique.'),
    method: methodSchema
      .optional()
      .describe('HTTP method (any letter case). Not with requests (each request has its own).')
      .register(docNotes, { type: HTTP_METHODS.join(', '), default: 'GET' }),
    path: requestPath('is required: the request path, e.g. /hello')
      .optional()
      .describe(
        "Request path and query, starting with '/', e.g. /search?q=x. Required unless the scenario lists requests. With values, {column} placeholders are filled in.",
      )
      .register(docNotes, { default: 'none: required without requests' }),
    headers: headersSchema
      .prefault({})
      .describe('Request headers (with requests: sent with every request). Numbers and true/false are sent as strings.'),
    body: bodySchema
      .optional()
      .describe(
        'Request body: a string, or a mapping or list sent as JSON (then content-type: application/json is added unless a content-type header is set). Not with requests.',
      ),
    requests: z
      .array(requestSchema, { error: 'is not a list of requests; write e.g. [{ path: /a }, { path: /b, weight: 3 }]' })
      .min(1, { error: 'is empty; list at least one request, e.g. - path: /items' })
      .max(100, { error: 'is too long; list at most 100 requests' })
      .optional()
      .describe(
        'Several requests in one scenario, each with its own method, path, headers and body: a weighted mix (each connection sends them in a fixed interleaved order, so the proportions are exact), or a sequence (sequence: true). Verdicts stay per scenario; the report breaks latency down per request. See docs/scenarios.md.',
      )
      .register(docNotes, { type: 'list of request mappings', default: 'none: one request (method, path)' }),
    sequence: z
      .boolean({ error: 'is not true or false' })
      .optional()
      .describe(
        'true: each connection (each virtual user at a fixed rate) sends requests in order, again and again, e.g. log in, then fetch with a captured token. Needs requests; a sequence that captures values needs pipelining: 1.',
      )
      .register(docNotes, { default: 'false: a weighted mix' }),
    values: z
      .string({ error: 'is not a file name; write a CSV or JSON file relative to service.cwd, e.g. data/ids.csv' })
      .trim()
      .regex(/^(?![/\\])(?![A-Za-z]:)(?!.*(?:^|[/\\])\.\.(?:[/\\]|$)).+\.(?:csv|json)$/i, {
        error: 'is not allowed; write a .csv or .json file inside the repository, relative to service.cwd, e.g. data/ids.csv',
      })
      .optional()
      .describe(
        "Rows of values used as {column} in the scenario's requests: a CSV file with a header row, or a JSON list of objects, relative to service.cwd (read from head's tree, the same rows for both sides). Rows are taken in turn, one per request of a mix or per pass of a sequence, shared by all connections of a side.",
      )
      .register(docNotes, { type: 'file (.csv or .json)', default: 'none' }),
    connections: intInRange(1, 1000)
      .optional()
      .describe('Concurrent connections for this scenario, 1 to 1000; default load.connections.')
      .register(docNotes, { default: 'load.connections' }),
    pipelining: intInRange(1, 100)
      .optional()
      .describe('Requests in flight per connection for this scenario, 1 to 100; default load.pipelining.')
      .register(docNotes, { default: 'load.pipelining' }),
    rate: rateSchema
      .optional()
      .describe(
        "Fixed rate (open loop): requests per second sent to each side whatever it answers, e.g. 500, or a share of base's capacity measured in a closed-loop warm-up, e.g. 60%. Latency counts from each request's intended send time, so stalls are not hidden (no coordinated omission); latency p99.9 is compared too, and a side that cannot keep up shows as lower throughput. Omit for a closed loop (each connection sends its next request when the previous one is answered).",
      )
      .register(docNotes, { default: 'none: closed loop' }),
    expect: z
      .union([intInRange(100, 599), z.array(intInRange(100, 599)).min(1, { error: 'is empty; list the statuses, e.g. [200, 404]' })], {
        error: 'is not a status; write a status code (e.g. 404) or a list of them (e.g. [200, 304])',
      })
      .transform((value) => (Array.isArray(value) ? value : [value]))
      .optional()
      .describe('Statuses this route is expected to answer, e.g. 404 or [200, 304]; any other counts as a failed request. Default: any 2xx. ' +
          'Without it, perfgate plan and init also reject a 2xx whose JSON body says it failed ("success": false, "ok": false, "status": "error" or "fail", a non-empty top-level error or errors); with it, the answer is judged by its status only.')
      .register(docNotes, { type: 'status or list of statuses', default: 'any 2xx' }),
  })
  // Same output type as the line form, so the union below yields one entry type.
  .transform((scenario, ctx): ScenarioEntry => {
    checkRequests(scenario, ctx);
    return { ...scenario, method: scenario.method ?? 'GET', path: scenario.path ?? scenario.requests?.[0]?.path ?? '/' };
  })
  .describe('A scenario with more than a method and a path.');

/**
 * What a scenario's keys mean together: one request (path) or several (requests), what only a
 * mix or only a sequence takes, and that every {name} has a source: a capture of an earlier
 * request of the sequence, or a values file (whose columns are checked when it is read).
 */
function checkRequests(
  scenario: {
    name?: string | undefined;
    method?: HttpMethod | undefined;
    path?: string | undefined;
    body?: unknown;
    headers: Record<string, string>;
    requests?: RequestEntry[] | undefined;
    sequence?: boolean | undefined;
    values?: string | undefined;
  },
  ctx: z.RefinementCtx,
): void {
  const issue = (path: PropertyKey[], input: unknown, message: string) => ctx.addIssue({ code: 'custom', path, input, message });
  const { requests } = scenario;
  if (!requests) {
    if (scenario.path === undefined) issue(['path'], undefined, 'is required: the request path, e.g. /hello');
    if (scenario.sequence !== undefined) issue(['sequence'], scenario.sequence, 'needs requests: list the requests to send in order under requests');
    if (scenario.values !== undefined && scenario.path !== undefined) {
      const used = placeholdersIn(scenario.path, ...Object.values(scenario.headers), bodyText(scenario.body));
      if (used.length === 0) issue(['values'], scenario.values, 'is not used: no {column} placeholder in the path, headers or body; write e.g. path: /items/{id}');
    }
    return;
  }
  if (scenario.name === undefined) issue(['name'], undefined, 'is required with requests: name the scenario, e.g. name: browse');
  for (const key of ['method', 'path', 'body'] as const) {
    if (scenario[key] !== undefined) issue([key], scenario[key], `cannot be used with requests; give each request its own ${key}`);
  }
  const names = new Map<string, number>();
  const captured = new Set<string>();
  requests.forEach((request, index) => {
    const name = request.name ?? `${request.method} ${request.path}`;
    const first = names.get(name);
    if (first === undefined) names.set(name, index);
    else issue(['requests', index, request.name === undefined ? 'path' : 'name'], name, `is also the name of requests[${first}]; give each request a unique name`);
    if (scenario.sequence !== true && request.weight !== undefined && requests.length === 1) {
      issue(['requests', index, 'weight'], request.weight, 'has no effect: the mix has one request; list more requests or remove weight');
    }
    if (scenario.sequence === true && request.weight !== undefined) {
      issue(['requests', index, 'weight'], request.weight, 'cannot be used in a sequence: every request is sent once per pass; remove weight or sequence');
    }
    if (scenario.sequence !== true && request.capture !== undefined) {
      issue(['requests', index, 'capture'], request.capture, 'needs sequence: true: a captured value is used by the requests after it on the same connection');
    }
    for (const used of placeholdersIn(request.path, ...Object.values({ ...scenario.headers, ...request.headers }), bodyText(request.body))) {
      if (captured.has(used) || scenario.values !== undefined) continue;
      const later = requests.slice(index).some((r) => r.capture?.[used] !== undefined);
      issue(
        ['requests', index],
        `{${used}}`,
        later
          ? `uses {${used}} before it is captured: a request can only use what an earlier request of the sequence captured`
          : `uses {${used}}, which has no source: capture it from an earlier request of a sequence (capture: { ${used}: body.${used} }), or name a values file with a column ${used}`,
      );
    }
    for (const name of Object.keys(request.capture ?? {})) captured.add(name);
  });
}

/** A body as the text it is sent as (a mapping or list as JSON). */
function bodyText(body: unknown): string | null {
  return body === undefined ? null : typeof body === 'string' ? body : JSON.stringify(body);
}

const scenarioSchema = z.union([scenarioLineSchema, scenarioObjectSchema], {
  error: 'is not a scenario; write "GET /hello", "/hello", or a mapping with at least path',
});

/** A single string is one scenario per non-empty line: the action's multi-line `scenarios` input. */
const scenarioLinesSchema = z
  .string()
  .transform((text, ctx): ScenarioEntry[] => {
    const lines = text.split(/\r?\n/).filter((l) => l.trim() !== '');
    const entries: ScenarioEntry[] = [];
    lines.forEach((l, index) => {
      const read = readScenarioLine(l);
      if ('problem' in read) ctx.addIssue({ code: 'custom', path: [index], input: l.trim(), message: read.problem });
      else entries.push({ method: read.method, path: read.path, headers: {} });
    });
    if (lines.length === 0) {
      ctx.addIssue({ code: 'custom', input: text, message: 'has no scenarios; write one "METHOD /path" per line' });
    }
    return entries;
  })
  .describe('Scenarios as text, one "METHOD /path" per non-empty line.');

const scenariosSchema = z.union(
  [
    z.array(scenarioSchema).min(1, { error: 'is empty; list at least one scenario, e.g. "- GET /hello"' }),
    scenarioLinesSchema,
  ],
  { error: 'is not a list of scenarios; write e.g. "- GET /hello"' },
);

// ------------------------------------------------------------------------------------- load

/** The paired test's smallest p with n non-zero pairs is 1/2^n: 6 give 0.016. */
const MIN_PAIRS = 6;
/** Pairs per scenario by default: 24 start pairs (3 blocks × 8) of 3 pairs each; early-stop looks after blocks 1 and 2. */
export const DEFAULT_PAIRS = 72;

const loadSchema = z
  .strictObject({
    slice: duration({ minMs: 100, maxMs: 60_000 })
      .prefault('1s')
      .describe('Length of one measured slice: a duration, 100ms to 60s. Each pair is one slice on base and one on head.'),
    pairs: intInRange(MIN_PAIRS, undefined, 'with n pairs the smallest possible p is 1/2^n, and 6 give 0.016')
      .default(DEFAULT_PAIRS)
      .describe(
        'Base/head slice pairs per scenario, over all blocks and starts: an integer of at least 6. Pairs are split evenly over the start pairs (load.blocks × load.instances); more pairs per start steady each start\'s own estimate, more starts narrow the interval.',
      ),
    blocks: intInRange(1)
      .default(3)
      .describe(
        'Times fresh starts of both services are made, 1 to pairs; pairs are split evenly across blocks. The looks of early-stop come between blocks.',
      ),
    instances: intInRange(1, 16)
      .default(8)
      .describe(
        'Fresh starts of each side per block, all up at once: 1 to 16. Each base start is paired with one head start, and the start pairs take turns (each warmed, then measured back to back); a start is the unit the verdicts count (every start carries its own offset), so more starts per block give more evidence for the same boot and warm-up cost.',
      ),
    warmup: duration({ minMs: 0, maxMs: 600_000 })
      .prefault('4s')
      .describe(
        'Load before measuring, per start pair (JIT, caches, heap sizing): a duration, 0 to 10m. Each start pair is warmed just before its pairs, both starts at once, in slices of load.slice like its pairs (in simultaneous mode, on the same connections as its pairs: the load does not stop in between). With several scenarios a start pair serves them one after the other: the first is warmed this long, each other one slice (at most this long) on its own load.',
      ),
    mode: z
      .enum(['simultaneous', 'alternate'], { error: 'is not allowed; use simultaneous or alternate' })
      .default('simultaneous')
      .describe(
        'How a pair is measured: simultaneous loads base and head at the same time on the same CPUs, so a machine that slows down slows both (the ratio is what counts); alternate loads one, then the other, in random order. simultaneous is far steadier on shared runners (docs/calibration.md); alternate measures each side alone.',
      ),
    pin: z
      .enum(['auto', 'on', 'off'], { error: 'is not allowed; use auto, on or off' })
      .default('auto')
      .describe(
        'CPU pinning: the load generator (perfgate) on the first CPU and every service on the others, shared by both sides. auto and on pin when the machine has 2 or more CPUs (on warns when it cannot); off leaves placement to the scheduler. Needs taskset (util-linux) and Linux.',
      ),
    connections: intInRange(1, 1000)
      .default(10)
      .describe('Concurrent connections, for scenarios that do not set their own: 1 to 1000.'),
    pipelining: intInRange(1, 100)
      .default(1)
      .describe('Requests in flight per connection, for scenarios that do not set their own: 1 to 100.'),
    'early-stop': z
      .boolean({ error: 'is not allowed; use true or false' })
      .default(true)
      .describe(
        'Adaptive stopping: after every block but the last, look and stop when the verdict is already clear (a regression beyond that look\'s bound, or every gated interval inside its limit). The bounds keep the overall alpha (O\'Brien–Fleming-type design with a look after every block, see docs/method.md). Needs at least 2 blocks.',
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
      .default(10)
      .describe(
        'Rounds, 6 to 1000: each runs every file once on base and once on head, each time in a fresh process, adjacent and in random order. Each process gives one number per benchmark (its mean ops/s).',
      ),
    timeout: duration({ minMs: 1000, maxMs: 3_600_000 })
      .prefault('2m')
      .describe('Longest one benchmark process may run before it is killed (and its file reported as failed): a duration, 1s to 60m.'),
    budget: duration({ minMs: 1000, maxMs: 7_200_000 })
      .prefault('15m')
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
      .default(true)
      .describe('Whether to profile at all. `profile: false` is short for enabled: false.'),
    duration: duration({ minMs: 1000, maxMs: 600_000 })
      .prefault('10s')
      .describe('Profiled load per side and scenario, after a warm-up of load.warmup (at most 2 s): a duration, 1s to 10m.'),
    interval: samplingIntervalSchema
      .prefault('1ms')
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
      .default('changed')
      .describe(
        'Which of those scenarios are profiled once the timed slices are done: changed, the ones a culprit explains (a metric that regressed or improved; where no scenario did, those with an inconclusive gated metric), or always, every one (flamegraphs of every run).',
      ),
  })
  .transform((p): ProfileConfig => ({ enabled: p.enabled, durationMs: p.duration, intervalUs: p.interval, scenarios: p.scenarios, when: p.when }));

const profileSchema = z
  .union([z.boolean(), profileObjectSchema], {
    error: 'is not a profile setting; write false to skip profiling, or a mapping such as { duration: 10s }',
  })
  // The short form takes every default from the mapping form, so defaults live in one place.
  .transform((value) => (typeof value === 'boolean' ? profileObjectSchema.parse({ enabled: value }) : value));

// ------------------------------------------------------------------------------------- gate

const LIMIT_HINT = 'write e.g. 5% or 5 (percent), above 0% and at most 100%';

/**
 * A number as the user writes it, with or without its unit ("5%" or 5, "0.5MB" or 0.5): parsed,
 * range-checked, and every error ends with the same hint.
 */
function unitValue(options: {
  noun: string;
  pattern: RegExp;
  hint: string;
  parse: (value: string | number) => number;
  inRange: (value: number) => boolean;
}) {
  const notOne = `is not a ${options.noun}; ${options.hint}`;
  return z.union([z.number(), z.string().regex(options.pattern, { error: notOne })], { error: notOne }).transform((value, ctx) => {
    const parsed = options.parse(value);
    if (!options.inRange(parsed)) {
      ctx.addIssue({ code: 'custom', input: value, message: `is out of range; ${options.hint}` });
      return z.NEVER;
    }
    return parsed;
  });
}

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

/** A rule the user wrote → the resolved rule: a bare limit gates; off keeps the default limit (and floor) for the report. */
function resolveRule(
  rule: number | 'off' | false | { limit?: number | undefined; gated?: boolean | undefined; min?: number | undefined },
  defaults: Readonly<MetricRule>,
): MetricRule {
  const floor = defaults.min === undefined ? {} : { min: defaults.min };
  if (rule === 'off' || rule === false) return { limit: defaults.limit, gated: false, ...floor };
  if (typeof rule === 'number') return { limit: rule, gated: true, ...floor };
  return {
    limit: rule.limit ?? defaults.limit,
    gated: rule.gated ?? (rule.limit !== undefined ? true : defaults.gated),
    // durations resolve to ms; the floor is kept in the metric's unit, µs
    ...(rule.min !== undefined ? { min: rule.min * 1000 } : floor),
  };
}

function gateRule(metric: GateKey, what: string) {
  const defaults = DEFAULT_GATE[metric];
  // The default in the form a user would write it, so editors show it and docs print it.
  const defaultInput = defaults.gated
    ? formatPercent(defaults.limit)
    : { limit: formatPercent(defaults.limit), gated: false };
  return gateRuleInput
    .transform((rule) => resolveRule(rule, defaults))
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
    .transform((rule) => resolveRule(rule, defaults))
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
  .transform((rule): HeapGrowthRule => {
    const defaults = DEFAULT_HEAP_GROWTH;
    if (rule === 'off' || rule === false) return { limitMbPer10k: defaults.limitMbPer10k, gated: false };
    if (typeof rule === 'number') return { limitMbPer10k: rule, gated: true };
    return {
      limitMbPer10k: rule.limit ?? defaults.limitMbPer10k,
      gated: rule.gated ?? (rule.limit !== undefined ? true : defaults.gated),
    };
  })
  .prefault(
    DEFAULT_HEAP_GROWTH.gated
      ? formatSizeMb(DEFAULT_HEAP_GROWTH.limitMbPer10k)
      : { limit: formatSizeMb(DEFAULT_HEAP_GROWTH.limitMbPer10k), gated: false },
  )
  .describe(
    `The memory-growth rule: a "possible leak" when head's post-GC heap keeps rising with the requests served, in every block, while base's does not, and head grows faster than base by more than the limit (per 10,000 requests). A trend rule, not a paired test. Default ${formatSizeMb(DEFAULT_HEAP_GROWTH.limitMbPer10k)}, ${DEFAULT_HEAP_GROWTH.gated ? 'gated' : 'information only'}.`,
  )
  .register(docNotes, { type: 'size, off, false or { limit, gated }' });

const gateSchema = z.strictObject({
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

// ------------------------------------------------------------------------------ the document

function resolveScenarios(
  entries: ScenarioEntry[],
  load: { connections: number; pipelining: number },
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
      expect: entry.expect ?? null,
      // Only scenarios that use them carry the new keys: a one-request scenario resolves (and is stored) as before.
      ...(requests && { requests, sequence: entry.sequence ?? false }),
      ...(entry.values !== undefined && { values: { file: entry.values } }),
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

/** perfgate.yml as users write it; parsing yields the resolved `PerfgateConfig`. */
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
        'HTTP requests to load, each measured and compared on its own: a list of "METHOD /path" lines and/or mappings. Required unless benchmarks are listed, here or as the scenarios input.',
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
        "Micro-benchmark files (benchmark.js, tinybench or mitata suites, unchanged) run on base and head: a glob, a list of globs, or a mapping with files and the options below. With benchmarks, service.start and scenarios may be left out. See docs/benchmarks.md.",
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
      .default(0.01)
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
  .transform((doc, ctx): PerfgateConfig => {
    const scenarios = doc.scenarios === undefined ? [] : resolveScenarios(doc.scenarios, doc.load, ctx);
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
      },
      benchmarks: doc.benchmarks,
      gate: doc.gate,
      alpha: doc.alpha,
      seed: doc.seed,
      profile: resolveProfile(doc.profile, scenarios, ctx),
    };
  })
  .meta({
    title: 'perfgate configuration',
    description:
      'perfgate.yml: how to start the service, which HTTP scenarios to load, for how long, which micro-benchmarks to run, and which regressions fail the build. Action inputs and CLI flags override these keys.',
  });

/** The user-facing document (what perfgate.yml and overrides may contain). */
export type ConfigDocument = z.input<typeof configDocumentSchema>;

// ------------------------------------------------------------------------------ JSON Schema

type JsonObject = { [key: string]: unknown };

/**
 * perfgate.yml's JSON Schema for editors (draft 2020-12). Tidied after `z.toJSONSchema`:
 * - nothing is `required` at the top or in `service`: start and scenarios may come from action
 *   inputs or CLI flags, so a file without them is valid;
 * - zod's safe-integer bounds (±2^53-1) are dropped as noise.
 * `docNotes: true` adds `x-doc-type` / `x-doc-default` (docs generator only, not published).
 */
export function configJsonSchema(options: { docNotes?: boolean } = {}): JsonObject {
  const generated = z.toJSONSchema(configDocumentSchema, {
    io: 'input',
    target: 'draft-2020-12',
    override: options.docNotes
      ? (ctx) => {
          const note = docNotes.get(ctx.zodSchema as unknown as z.ZodType);
          const json = ctx.jsonSchema as JsonObject;
          if (note?.type) json['x-doc-type'] = note.type;
          if (note?.default) json['x-doc-default'] = note.default;
        }
      : undefined,
  }) as JsonObject;
  const tidy = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(tidy);
    if (typeof node !== 'object' || node === null) return node;
    const out: JsonObject = {};
    for (const [key, value] of Object.entries(node)) {
      if (key === 'maximum' && value === Number.MAX_SAFE_INTEGER) continue;
      if (key === 'minimum' && value === Number.MIN_SAFE_INTEGER) continue;
      out[key] = tidy(value);
    }
    return out;
  };
  const { $schema, title, description, required: _required, ...rest } = tidy(generated) as JsonObject;
  const properties = rest['properties'] as Record<string, JsonObject>;
  delete properties['service']!['required'];
  return { $schema, $id: JSON_SCHEMA_ID, title, description, ...rest };
}
