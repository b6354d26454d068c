/**
 * The zod schema of perfgate.yml's `scenarios`: a scenario line ("GET /hello"), a mapping with one
 * request or several (a mix or a sequence), or the action's text of one line per scenario. Names,
 * connections and pipelining left out are filled in by resolve.ts, which sees load's defaults.
 */

import { z } from 'zod';
import { MAX_RATE_PER_SECOND, MAX_REQUESTS, MAX_SCENARIOS } from './bounds.js';
import { placeholdersIn } from './placeholders.js';
import {
  HTTP_METHODS,
  type HttpMethod,
  METHOD_PATTERN_SOURCE,
  METHODS_HINT,
  readScenarioLine,
  SCENARIO_LINE_PATTERN,
} from './scenario-line.js';
import { scenarioGateSchema } from './schema-gate.js';
import { docNotes, intInRange, requestPath, scalarText } from './schema-values.js';
import type { CaptureSource, Expectation, ScenarioRate } from './types.js';
import { parsePercent } from './units.js';

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
export interface RequestEntry {
  name?: string | undefined;
  method: HttpMethod;
  path: string;
  headers: Record<string, string>;
  body?: unknown;
  weight?: number | undefined;
  capture?: Record<string, CaptureSource> | undefined;
}

/** A scenario before cross-scenario defaults (name, connections, pipelining) are filled in. */
export interface ScenarioEntry {
  name?: string | undefined;
  method: HttpMethod;
  path: string;
  headers: Record<string, string>;
  body?: unknown;
  connections?: number | undefined;
  pipelining?: number | undefined;
  rate?: ScenarioRate | undefined;
  expect?: Expectation | undefined;
  requests?: RequestEntry[] | undefined;
  sequence?: boolean | undefined;
  values?: string | undefined;
  gate?: z.output<typeof scenarioGateSchema> | undefined;
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

const statusesSchema = z
  .union([intInRange(100, 599), z.array(intInRange(100, 599)).min(1, { error: 'is empty; list the statuses, e.g. [200, 404]' })], {
    error: 'is not a status; write a status code (e.g. 404) or a list of them (e.g. [200, 304])',
  })
  .transform((value) => (Array.isArray(value) ? value : [value]));

/** A dot path into a JSON body, as a capture's after `body.`: `success`, `data.items.0.id`. */
const JSON_PATH = /^[^.\s]+(?:\.[^.\s]+)*$/;

const expectObjectSchema = z
  .strictObject({
    status: statusesSchema
      .optional()
      .describe('Statuses this route is expected to answer, e.g. 200 or [200, 304]; any other counts as a failed request.')
      .register(docNotes, { type: 'status or list of statuses', default: 'any 2xx' }),
    body: z
      .string({ error: 'is not text; write the text the body contains, e.g. body: "ok"' })
      .min(1, { error: 'is empty; write the text the body contains' })
      .optional()
      .describe('Text the body must contain (case-sensitive, anywhere in its first 64 kB), e.g. "ok".')
      .register(docNotes, { default: 'none' }),
    json: z
      .record(
        z.string().regex(JSON_PATH, { error: 'is not a dot path; write a field of the JSON body, e.g. success or data.items.0.id' }),
        z.union([z.string(), z.number(), z.boolean(), z.null()], { error: 'is not a value to compare; write a string, a number, true, false or null' }),
        { error: 'is not a mapping of dot paths to values; write e.g. json: { success: true }' },
      )
      .optional()
      .describe(
        'Values the JSON body must hold: dot paths (success, data.items.0.id: fields and array indexes) each with the value it must equal, e.g. { success: true }; a number is not its text (3 is not "3").',
      )
      .register(docNotes, { type: 'mapping of dot path → string, number, true, false or null', default: 'none' }),
  })
  .refine((value) => value.status !== undefined || value.body !== undefined || value.json !== undefined, { error: 'is empty; give status, body or json' });

/**
 * What a route must answer: statuses alone (`404`, `[200, 304]`), or a mapping that can also
 * check the body: text it contains, or values at dot paths of its JSON.
 */
const expectSchema = z
  .union([statusesSchema, expectObjectSchema], {
    error: 'is not an expectation; write a status (404), a list of statuses ([200, 304]), or a mapping ({ status: 200, body: "ok" }, { json: { success: true } })',
  })
  .transform((value): Expectation => {
    if (Array.isArray(value)) return { statuses: value };
    return {
      ...(value.status && { statuses: value.status }),
      ...((value.body !== undefined || value.json !== undefined) && {
        body: { ...(value.body !== undefined && { contains: value.body }), ...(value.json !== undefined && { json: value.json }) },
      }),
    };
  })
  .optional()
  .describe(
    'What this route is expected to answer: statuses, e.g. 404 or [200, 304] (any other counts as a failed request; default any 2xx), or a mapping that also checks the body, e.g. ' +
      '{ status: 200, body: "ok" } or { json: { success: true } }. ' +
      'The load counts statuses only; the body is checked by perfgate plan and by one request to each side after the compare\'s first warm-up, and a body that does not match fails the route there, quoted (on head alone a failing verdict, on both sides an error). ' +
      'Without expect:, plan, init and that warm-up reject a 2xx whose JSON body says it failed ("success": false, "ok": false, "status": "error" or "fail", a non-empty top-level error or errors); with it, the answer is judged by what it declares only.',
  )
  .register(docNotes, { type: 'status, list of statuses, or { status, body, json }', default: 'any 2xx' });

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
      .max(MAX_REQUESTS, { error: `is too long; list at most ${MAX_REQUESTS} requests` })
      .optional()
      .describe(
        `Several requests in one scenario (at most ${MAX_REQUESTS}), each with its own method, path, headers and body: a weighted mix (each connection sends them in a fixed interleaved order, so the proportions are exact), or a sequence (sequence: true). Verdicts stay per scenario; the report breaks latency down per request. See docs/scenarios.md.`,
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
        "Fixed rate (open loop): requests per second sent to each side whatever it answers, e.g. 500, or a share of base's capacity measured in a closed-loop warm-up, e.g. 60%. Latency counts from each request's intended send time, so stalls are not hidden (no coordinated omission); latency p99.9 is compared too, and a side that cannot keep up shows as lower throughput. The report says the rate under the scenario's name (\"at a fixed 500 req/s\"). Omit for a closed loop (each connection sends its next request when the previous one is answered).",
      )
      .register(docNotes, { default: 'none: closed loop' }),
    expect: expectSchema,
    gate: scenarioGateSchema.optional(),
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

/** Every scenario is measured for every pair, so their number multiplies the run's length. */
function tooManyScenarios(count: number): string {
  return `has ${count} scenarios; list at most ${MAX_SCENARIOS} (each is measured on its own for every pair: 10 take 10–40 minutes), and measure the others with a second configuration file (the config input / --config)`;
}

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
    if (lines.length > MAX_SCENARIOS) ctx.addIssue({ code: 'custom', input: text, message: tooManyScenarios(lines.length) });
    return entries;
  })
  .describe('Scenarios as text, one "METHOD /path" per non-empty line.');

export const scenariosSchema = z.union(
  [
    z
      .array(scenarioSchema)
      .min(1, { error: 'is empty; list at least one scenario, e.g. "- GET /hello"' })
      .max(MAX_SCENARIOS, { error: (issue) => tooManyScenarios((issue.input as { length: number }).length) }),
    scenarioLinesSchema,
  ],
  { error: 'is not a list of scenarios; write e.g. "- GET /hello"' },
);
