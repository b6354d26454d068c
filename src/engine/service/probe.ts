/**
 * One request to a route, and what it answered, for a message: the compare's broken-route check,
 * `perfgate init`'s check of the routes it writes and `perfgate plan`'s check of the scenarios all
 * ask and judge a route here, so the three say the same thing about the same route. Also the one
 * start of a service that init and plan make for it (startOnce).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { placeholdersIn } from '../../config/placeholders.js';
import type { ScenarioConfig, ServiceConfig } from '../../config/types.js';
import { ServiceError } from '../errors.js';
import { isExpectedStatus } from '../load/window.js';
import { ProcessTracker } from '../process/processes.js';
import { Service } from './service.js';

/** How much of a response body a message quotes. */
export const BODY_SAMPLE_CHARS = 160;

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
}

/** Sends a request once and describes the answer. Never throws. */
export function askRoute(baseUrl: string, scenario: ProbedRequest, timeoutMs = 5000): Promise<RouteAnswer> {
  return new Promise((resolve) => {
    const req = request(`${baseUrl}${scenario.path}`, { method: scenario.method, headers: scenario.headers, timeout: timeoutMs }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        if (body.length < BODY_SAMPLE_CHARS * 4) body += chunk;
      });
      const answered = (text: string) => {
        const sample = describeBody(text);
        resolve({ status: res.statusCode ?? 0, description: `it answered ${res.statusCode}${sample}`, sample, body: text });
      };
      res.on('end', () => answered(oneLine(body)));
      res.on('error', () => answered(''));
    });
    req.once('timeout', () => {
      req.destroy();
      resolve({ status: null, description: `it did not answer within ${timeoutMs / 1000} s`, sample: '', body: '' });
    });
    req.once('error', (error) => resolve({ status: null, description: `the request failed (${error.message})`, sample: '', body: '' }));
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

/** Whether an answer is what the scenario expects: its `expect:` statuses, else any 2xx. */
export function answersAsExpected(scenario: Pick<ScenarioConfig, 'expect'>, answer: RouteAnswer): boolean {
  return answer.status !== null && isExpectedStatus(scenario, answer.status);
}

/** What the scenario expects, for a message: "a 2xx status", "404 or 410". */
export function expectedStatuses(scenario: Pick<ScenarioConfig, 'expect'>): string {
  return scenario.expect?.length ? scenario.expect.join(' or ') : 'a 2xx status';
}

/** The fix, the same sentence wherever a broken route is reported. */
export const BROKEN_ROUTE_FIX =
  'Fix the path, method, headers or body in perfgate.yml, or declare the statuses this route answers with expect: (e.g. expect: [404]).';

/**
 * A scenario whose route did not answer as expected: the route, what it answered (status and the
 * start of the body) and the fix. `where`: "on both base and head", "on head's work tree".
 */
export function brokenRouteMessage(scenario: Pick<ScenarioConfig, 'name' | 'method' | 'path' | 'expect'>, where: string, description: string): string {
  return (
    `Scenario "${scenario.name}" (${scenario.method} ${scenario.path}) fails ${where}: ${description}. ` +
    `perfgate expects ${expectedStatuses(scenario)}. ${BROKEN_ROUTE_FIX}`
  );
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

/** The start of a body on one line, cut at BODY_SAMPLE_CHARS with an ellipsis. */
function oneLine(body: string): string {
  const text = body.replace(/\s+/g, ' ').trim();
  return text.length > BODY_SAMPLE_CHARS ? `${text.slice(0, BODY_SAMPLE_CHARS)}…` : text;
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
 * scenario's (first) request, judged by its `expect:` statuses, else any 2xx. A request with
 * {placeholders} is not asked: its values come from a file or an earlier response.
 */
export async function checkScenarios(baseUrl: string, scenarios: readonly ScenarioConfig[]): Promise<ScenarioCheck[]> {
  const checks: ScenarioCheck[] = [];
  for (const scenario of scenarios) {
    const texts = [scenario.path, scenario.body, ...Object.values(scenario.headers)];
    if (placeholdersIn(...texts).length > 0) {
      checks.push({ scenario, answer: null, ok: true, skipReason: 'its request has {placeholders}' });
      continue;
    }
    const answer = await askRoute(baseUrl, scenario);
    checks.push({ scenario, answer, ok: answersAsExpected(scenario, answer) });
  }
  return checks;
}
