/**
 * One request to a route, and what it answered, for a message: the compare's broken-route check,
 * `perfgate init`'s check of the routes it writes and `perfgate plan`'s check of the scenarios all
 * ask and judge a route here, so the three say the same thing about the same route. Also which
 * requests init and plan never send (whyNotAsked), and the one start of a service that init and
 * plan make for it (startOnce).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { placeholdersIn } from '../../config/placeholders.js';
import { valueAt } from '../../config/merge.js';
import type { ExpectedBody, ScenarioConfig, ServiceConfig } from '../../config/types.js';
import { ServiceError } from '../errors.js';
import { isExpectedStatus } from '../load/window.js';
import { ProcessTracker } from '../process/processes.js';
import { Service } from './service.js';

/** How much of a response body a message quotes. */
export const BODY_SAMPLE_CHARS = 160;
/** How much of a body is kept to read it as JSON: an error answer is small; a long list cut here is not read. */
const BODY_PARSE_CHARS = 64 * 1024;

export type ProbedRequest = Pick<ScenarioConfig, 'method' | 'path' | 'headers' | 'body'>;

export interface RouteAnswer {
  /** HTTP status; null when nothing answered. */
  status: number | null;
  /** `it answered 404 "Cannot GET /user/42"`, or why there was no answer. */
  description: string;
  /** The start of the body on one line, quoted; '' when there was no answer. */
  sample: string;
  /** The start of the body on one line (at most BODY_SAMPLE_CHARS), as it came; '' when none. */
  body: string;
  /** What a JSON body says went wrong (`"success": false`, `"error": "…"`); null: it says nothing of the kind, or is not JSON. */
  failure: string | null;
  /** The body as it came, its first BODY_PARSE_CHARS: what expect:'s body and json are matched against. */
  raw: string;
}

/** Sends a request once and describes the answer. Never throws. */
export function askRoute(baseUrl: string, scenario: ProbedRequest, timeoutMs = 5000): Promise<RouteAnswer> {
  return new Promise((resolve) => {
    const req = request(`${baseUrl}${scenario.path}`, { method: scenario.method, headers: scenario.headers, timeout: timeoutMs }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        if (body.length < BODY_PARSE_CHARS) body += chunk;
      });
      const answered = (raw: string) => {
        const text = oneLine(raw);
        const sample = describeBody(text);
        resolve({ status: res.statusCode ?? 0, description: `it answered ${res.statusCode}${sample}`, sample, body: text, failure: failureInBody(raw), raw });
      };
      res.on('end', () => answered(body));
      res.on('error', () => answered(''));
    });
    const none = (description: string): RouteAnswer => ({ status: null, description, sample: '', body: '', failure: null, raw: '' });
    req.once('timeout', () => {
      req.destroy();
      resolve(none(`it did not answer within ${timeoutMs / 1000} s`));
    });
    req.once('error', (error) => resolve(none(`the request failed (${error.message})`)));
    if (scenario.body !== null && scenario.body !== undefined) req.write(scenario.body);
    req.end();
  });
}

/**
 * Sends a scenario's request once and describes the answer for a message: `it answered 404
 * "Cannot GET /user/42"`, or why there was none. Never throws.
 */
export async function probeScenario(baseUrl: string, scenario: ProbedRequest, timeoutMs = 5000): Promise<string> {
  return (await askRoute(baseUrl, scenario, timeoutMs)).description;
}

/**
 * Whether an answer is what the scenario expects: one of its `expect:` statuses (any 2xx without
 * them), and a body that holds what `expect:` declares, or, when it declares nothing, a body
 * that does not say it failed (bodyProblem).
 */
export function answersAsExpected(scenario: Pick<ScenarioConfig, 'expect' | 'expectBody'>, answer: RouteAnswer): boolean {
  if (answer.status === null || !isExpectedStatus(scenario, answer.status)) return false;
  return bodyProblem(scenario, answer) === null;
}

/**
 * Why a body is not what the scenario expects. mismatch: how it differs from `expect:`'s body or
 * json. failure: without any `expect:`, what a 2xx body says went wrong (many services answer an
 * error with 200 and `{"success": false, "error": …}`, and measuring that measures the error
 * path); a scenario that declares its statuses alone is judged by them.
 */
export interface BodyProblem {
  kind: 'failure' | 'mismatch';
  text: string;
}

export function bodyProblem(scenario: Pick<ScenarioConfig, 'expect' | 'expectBody'>, answer: RouteAnswer): BodyProblem | null {
  if (answer.status === null) return null;
  if (scenario.expectBody) {
    const text = bodyMismatch(scenario.expectBody, answer.raw);
    return text === null ? null : { kind: 'mismatch', text };
  }
  if (scenario.expect?.length || !isFailing2xx(answer)) return null;
  return { kind: 'failure', text: answer.failure! };
}

/** How a body differs from what `expect:` declares (`it does not contain "ok"`, `success is false, not true`); null when it holds it all. */
export function bodyMismatch(expected: ExpectedBody, raw: string): string | null {
  const cut = raw.length >= BODY_PARSE_CHARS ? ` in its first ${BODY_PARSE_CHARS / 1024} kB, which is what perfgate reads` : '';
  if (expected.contains !== undefined && !raw.includes(expected.contains)) return `it does not contain "${expected.contains}"${cut}`;
  if (!expected.json) return null;
  let data: unknown;
  try {
    data = JSON.parse(raw);
  } catch {
    return cut ? `it is longer than the ${BODY_PARSE_CHARS / 1024} kB perfgate reads to check its JSON` : 'it is not JSON';
  }
  for (const [path, wanted] of Object.entries(expected.json)) {
    const found = valueAt(data, path.split('.'));
    if (found !== wanted) return `${path} is ${found === undefined ? 'absent' : oneLine(JSON.stringify(found), 60)}, not ${JSON.stringify(wanted)}`;
  }
  return null;
}

/** How much of a body the lists of answers in init and plan quote. */
const LIST_QUOTE_CHARS = 72;

/** An answer on one line of a list: `200 "[{"id":1,…"`, `200 with an empty body`, or why none came. */
export function quoteAnswer(answer: RouteAnswer): string {
  if (answer.status === null) return answer.description.replace(/^it /, '');
  return `${answer.status} ${answer.body ? `"${oneLine(answer.body, LIST_QUOTE_CHARS)}"` : 'with an empty body'}`;
}

/** A 2xx whose body says the request failed: what init and plan report as a broken route. */
export function isFailing2xx(answer: RouteAnswer): boolean {
  return answer.status !== null && answer.status >= 200 && answer.status < 300 && answer.failure !== null;
}

/** What a JSON object's top-level fields say went wrong, by the conventions services use for an error answered with 200. */
export function failureInBody(raw: string): string | null {
  let data: unknown;
  try {
    data = JSON.parse(raw);
  } catch {
    return null;
  }
  if (typeof data !== 'object' || data === null || Array.isArray(data)) return null;
  const fields = data as Record<string, unknown>;
  if (fields.success === false) return '"success": false';
  if (fields.ok === false) return '"ok": false';
  // JSend (https://github.com/omniti-labs/jsend): "fail" for a rejected request, "error" for a failure
  if (fields.status === 'error' || fields.status === 'fail') return `"status": "${fields.status}"`;
  for (const key of ['error', 'errors']) {
    const value = fields[key];
    const filled = Array.isArray(value) ? value.length > 0 : typeof value === 'object' && value !== null ? Object.keys(value).length > 0 : Boolean(value);
    if (filled) return `"${key}": ${oneLine(JSON.stringify(value), 60)}`;
  }
  return null;
}

/** What the scenario expects, for a message: "a 2xx status", "404 or 410", `200 with a body that contains "ok"`. */
export function expectedAnswer(scenario: Pick<ScenarioConfig, 'expect' | 'expectBody'>): string {
  const statuses = scenario.expect?.length ? scenario.expect.join(' or ') : 'a 2xx status';
  const { contains, json } = scenario.expectBody ?? {};
  const holds = [
    ...(contains !== undefined ? [`contains "${contains}"`] : []),
    ...Object.entries(json ?? {}).map(([path, value]) => `has ${path} ${JSON.stringify(value)}`),
  ];
  return holds.length ? `${statuses} with a body that ${holds.join(' and ')}` : statuses;
}

/** The fix, the same sentence wherever a broken route is reported. */
export const BROKEN_ROUTE_FIX =
  'Fix the path, method, headers or body in perfgate.yml, or declare the statuses this route answers with expect: (e.g. expect: [404]).';

/** The fix for a 2xx whose body says it failed: the service is missing something, most often its database. */
/** The fix for a body that does not hold what expect: declares. */
export const BODY_MISMATCH_FIX =
  "Fix the request in perfgate.yml, give the service what it needs to answer it (a database: service.setup and env, docs/databases.md), or change expect: to what this route answers.";

export const FAILING_2XX_FIX =
  'The service answered an error with a success status: give it what it needs before measuring (a database: service.setup and env, docs/databases.md), or fix the request in perfgate.yml. ' +
  'If this body is what the route should answer, declare its status with expect: (e.g. expect: [200]).';

/**
 * A scenario whose route did not answer as expected: the route, what it answered (status and the
 * start of the body) and the fix. `where`: "on both base and head", "on head's work tree".
 * `problem`: what is wrong with the body, when that is why (bodyProblem).
 */
export function brokenRouteMessage(
  scenario: Pick<ScenarioConfig, 'name' | 'method' | 'path' | 'expect' | 'expectBody'>,
  where: string,
  description: string,
  problem: BodyProblem | null = null,
): string {
  const head = `Scenario "${scenario.name}" (${scenario.method} ${scenario.path}) fails ${where}: ${description}`;
  if (problem?.kind === 'failure') return `${head}, a body that says the request failed (${problem.text}). ${FAILING_2XX_FIX}`;
  if (problem?.kind === 'mismatch') return `${head}, a body that does not match expect: (${problem.text}). perfgate expects ${expectedAnswer(scenario)}. ${BODY_MISMATCH_FIX}`;
  return `${head}. perfgate expects ${expectedAnswer(scenario)}. ${BROKEN_ROUTE_FIX}`;
}

/**
 * Words that say a request changes data, matched as whole words of the path's segments and of
 * the handlers' names (split at camelCase, `-`, `_`, `.` and digits: `/users/add/1` and `addUser`
 * say `add`, `/address` does not). GET routes that write are common (a /logout link, a /cron/run
 * hook, a /seed for development), and one request to one of them can empty a database, so a
 * route that says any of these is not asked, even when its name only sounds like it. Inflected
 * forms are listed, not derived: "news" is not "new" plus "s".
 */
const WRITING_WORDS = new Set([
  // create and change
  'create', 'add', 'insert', 'new', 'update', 'upsert', 'edit', 'modify', 'set', 'save', 'write', 'rename', 'move', 'merge', 'clone', 'duplicate',
  'toggle', 'increment', 'decrement', 'incr', 'decr', 'mark', 'assign', 'unassign', 'attach', 'detach', 'unlink', 'vote', 'upvote', 'downvote', 'follow', 'unfollow',
  // delete and empty
  'remove', 'delete', 'del', 'destroy', 'drop', 'truncate', 'empty', 'clear', 'purge', 'wipe', 'erase', 'flush', 'prune', 'clean', 'cleanup', 'evict', 'invalidate', 'expire',
  // (re)build the data
  'init', 'initialize', 'initialise', 'reset', 'seed', 'populate', 'fixtures', 'migrate', 'rollback', 'restore', 'backup', 'install', 'setup', 'bootstrap', 'provision',
  'generate', 'regenerate', 'rebuild', 'reindex', 'refresh', 'recalculate', 'recompute', 'import', 'sync', 'upload',
  // sessions, accounts, workflow states
  'logout', 'signout', 'logoff', 'signoff', 'register', 'signup', 'subscribe', 'unsubscribe', 'verify', 'confirm', 'activate', 'deactivate', 'enable', 'disable',
  'approve', 'reject', 'decline', 'accept', 'cancel', 'revoke', 'grant', 'ban', 'unban', 'lock', 'unlock', 'invite', 'publish', 'unpublish', 'unarchive', 'close', 'reopen', 'finish',
  // run something, tell someone, move money
  'run', 'exec', 'execute', 'cron', 'job', 'trigger', 'start', 'stop', 'restart', 'shutdown', 'kill', 'send', 'resend', 'notify', 'pay', 'charge', 'refund', 'purchase', 'buy',
]);

/** The words of a path or a function name, lower case: `/users/addUser-v2` → users, add, user, v. */
function wordsOf(text: string): string[] {
  return text
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z]+/)
    .filter(Boolean);
}

/** The first word of `text` that says it writes: a whole word, or two written apart (`log-out`, `signOut`). */
export function writingWord(text: string): string | null {
  const words = wordsOf(text);
  for (let i = 0; i < words.length; i++) {
    if (WRITING_WORDS.has(words[i]!)) return words[i]!;
    const pair = words[i]! + (words[i + 1] ?? '');
    if (i + 1 < words.length && WRITING_WORDS.has(pair)) return pair;
  }
  return null;
}

/** A request init or plan may ask, and the names of its route's handlers when the framework told them. */
export interface AskableRequest {
  method: string;
  path: string;
  handlers?: readonly string[];
}

/**
 * Why init and plan do not send this request, or null when they may: only GET and HEAD are
 * asked, and only when neither the path nor a handler's name says it writes. One line, for the
 * list of routes left out.
 */
export function whyNotAsked(request: AskableRequest): string | null {
  const method = request.method.toUpperCase();
  if (method !== 'GET' && method !== 'HEAD') return `${method} changes data`;
  const inPath = writingWord(request.path);
  if (inPath) return `its path says it writes ("${inPath}")`;
  for (const handler of request.handlers ?? []) {
    const inName = writingWord(handler);
    if (inName) return `its handler ${handler} says it writes ("${inName}")`;
  }
  return null;
}

/** The service did not listen: why, and the last lines of its output. */
export class StartOnceError extends Error {
  constructor(
    readonly reason: string,
    readonly logTail: string,
  ) {
    super(reason);
  }
}

export interface StartOnceRequest {
  config: ServiceConfig;
  /** Directory the start command runs in (the tree's root joined with service.cwd). */
  dir: string;
  /** Scrubbed environment for the service. */
  env: Record<string, string>;
}

/**
 * One start of the service as perfgate starts it for a measurement (its own process group, the
 * forced port, the scrubbed environment, NODE_ENV=production, service.setup first), `visit` with
 * its URL once it is ready, then stopped. Nothing is left running: the process is tracked and its
 * group killed in `finally`, also when it never became ready.
 */
export async function startOnce<T>(request: StartOnceRequest, visit: (url: string) => Promise<T>): Promise<T> {
  const scratch = mkdtempSync(join(tmpdir(), 'perfgate-probe-'));
  const tracker = new ProcessTracker();
  let service: Service | null = null;
  try {
    service = await Service.start({
      start: 'probe',
      side: 'head',
      config: request.config,
      dir: request.dir,
      env: request.env,
      logFile: join(scratch, 'service.log'),
      statusFile: join(scratch, 'status'),
      tracker,
    });
    try {
      await service.waitReady();
    } catch (e) {
      if (!(e instanceof ServiceError)) throw e;
      const { timeoutMs, path } = request.config.ready;
      const seconds = `${(timeoutMs / 1000).toFixed(0)} s`;
      const what = service.exited
        ? 'exited before it was ready'
        : path && service.url
          ? `listened, but GET ${path} (service.ready.path) did not answer 2xx within ${seconds}`
          : `did not listen on a port within ${seconds}`;
      throw new StartOnceError(`\`${request.config.start}\` ${what}.`, e.logTail);
    }
    return await visit(service.url);
  } finally {
    await service?.stop(2000);
    await tracker.killAll(1000);
    rmSync(scratch, { recursive: true, force: true });
  }
}

/**
 * The start of a body on one line, cut at `chars` with an ellipsis, an HTML page by its text. Terminal escape sequences
 * and control and direction characters are dropped: a body is the service's text, and a message
 * quoting it must not move the cursor, recolour or reorder the terminal's output.
 */
export function oneLine(body: string, chars = BODY_SAMPLE_CHARS): string {
  // An HTML page (a framework's error page) is quoted by its text: its markup would fill the quote.
  const page = /^\s*<(!doctype html|html)/i.test(body);
  const visible = page ? pageText(body) : body;
  const text = visible
    .replace(/\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)?|[@-_])/g, '')
    .replace(/[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u2028-\u202e\u2066-\u2069]/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  return text.length > chars ? `${text.slice(0, chars)}…` : text;
}

/** The characters HTML's named references most often stand for in an error page. */
const NAMED_REFERENCES: Record<string, string> = { nbsp: ' ', amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

/**
 * An HTML page's visible text: without its head, scripts and styles, tags as spaces, character
 * references decoded (Express's error page indents its stack with `&nbsp;`). Whitespace is left
 * for the caller to collapse.
 */
export function pageText(html: string): string {
  return html
    .replace(/<(head|script|style)\b[\s\S]*?<\/\1>/gi, ' ')
    .replace(/<!--[\s\S]*?-->/g, ' ')
    .replace(/<[^>]*>/g, ' ')
    .replace(/&(?:#(\d{1,7})|#x([\da-f]{1,6})|([a-z]+));/gi, (whole, decimal?: string, hex?: string, named?: string) => {
      if (named) return NAMED_REFERENCES[named.toLowerCase()] ?? whole;
      const code = decimal ? Number(decimal) : Number.parseInt(hex!, 16);
      return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    });
}

/** A body's start (oneLine) quoted for a message; "with an empty body" when there is none. */
function describeBody(text: string): string {
  return text ? ` "${text}"` : ' with an empty body';
}

export interface ScenarioCheck {
  scenario: ScenarioConfig;
  /** null: not asked (skipReason says why). */
  answer: RouteAnswer | null;
  ok: boolean;
  skipReason?: string;
}

/**
 * Each scenario's request asked once, as the compare asks a route that fails its warm-up: the
 * scenario's (first) request, judged by answersAsExpected. A request with {placeholders} is not
 * asked: its values come from a file or an earlier response; nor one that may change data
 * (whyNotAsked, for any request of the scenario): a check must leave the data as it found it.
 */
export async function checkScenarios(baseUrl: string, scenarios: readonly ScenarioConfig[]): Promise<ScenarioCheck[]> {
  const checks: ScenarioCheck[] = [];
  for (const scenario of scenarios) {
    const texts = [scenario.path, scenario.body, ...Object.values(scenario.headers)];
    if (placeholdersIn(...texts).length > 0) {
      checks.push({ scenario, answer: null, ok: true, skipReason: 'its request has {placeholders}' });
      continue;
    }
    const writes = [scenario, ...(scenario.requests ?? [])].map(whyNotAsked).find(Boolean);
    if (writes) {
      checks.push({ scenario, answer: null, ok: true, skipReason: `${writes}: plan sends no request that may change data` });
      continue;
    }
    const answer = await askRoute(baseUrl, scenario);
    checks.push({ scenario, answer, ok: answersAsExpected(scenario, answer) });
  }
  return checks;
}
