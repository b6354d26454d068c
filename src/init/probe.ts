/**
 * `perfgate init`'s probe: one start of the service as perfgate starts it for a measurement
 * (engine/service/probe.ts startOnce), with the route reader on (src/preload/routes.cjs): GET on a few
 * usual paths, the routes the framework registered, each GET route asked once the way the
 * compare and `perfgate plan` ask a scenario's route, then stopped. Only GET, and never a route
 * whose path or handler says it writes (routes.ts sortRoutes): the service runs against the
 * user's own data, and one request to a GET /users/empty can empty it. What will be asked is
 * told (ProbeListener.planned) before the first request.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { askRoute, type RouteAnswer, startOnce } from '../engine/service/probe.js';
import { sleep } from '../engine/process/processes.js';
import { type RouteRequest, type RoutesRead, readRoutesFile, ROUTES_FILE_VAR, sortRoutes, type SortedRoutes } from './routes.js';

/** Probed in this order: the first health route that answers 2xx becomes service.ready.path. */
export const HEALTH_PATHS = ['/health', '/healthz', '/ready'] as const;
export const PROBE_PATHS = [...HEALTH_PATHS, '/'] as const;
/** GET routes asked at most: each is one request, but a service with hundreds of routes would make init slow for nothing it writes. */
export const MAX_ASKED_ROUTES = 20;
/** How long init waits for the route reader's file once the service is ready: it is written on the turn of the event loop after the last route. */
const ROUTES_FILE_WAIT_MS = 500;

export interface ProbeRequest {
  start: string;
  /** The service directory (absolute), and its place in the repository (service.cwd). */
  dir: string;
  cwd: string;
  /** Scrubbed environment for the service. */
  env: Record<string, string>;
  /** How long the service may take to listen, ms. */
  timeoutMs: number;
  /** Paths to GET, in order. */
  paths: readonly string[];
}

export interface ProbeAnswer {
  path: string;
  /** HTTP status, or 0 when nothing answered. */
  status: number;
  answer: RouteAnswer;
}

export interface AskedRoute {
  request: RouteRequest;
  answer: RouteAnswer;
}

export interface ProbeFindings {
  answers: ProbeAnswer[];
  /** What the route reader found; null: no framework it knows registered a route. */
  routes: RoutesRead | null;
  sorted: SortedRoutes;
  /** The first MAX_ASKED_ROUTES GET routes, each asked once. */
  asked: AskedRoute[];
}

/** What init will send, decided before anything is sent. */
export interface ProbePlan {
  routes: RoutesRead | null;
  sorted: SortedRoutes;
  /** The usual paths (PROBE_PATHS and --ready-path) that will be asked; a registered route that says it writes is not. */
  paths: string[];
  /** The registered GET routes that will be asked (the first MAX_ASKED_ROUTES of sorted.reads). */
  reads: RouteRequest[];
}

/** Told what init found before it sends anything, then each answer as it comes, so the user reads the list first. */
export interface ProbeListener {
  planned(plan: ProbePlan): void;
  answered(path: string, answer: RouteAnswer): void;
}

/** The usual paths init asks, without those a registered route that may write answers at. */
export function safeProbePaths(paths: readonly string[], sorted: SortedRoutes): string[] {
  const writing = new Set(sorted.skipped.filter((s) => s.writes && s.path).map((s) => s.path));
  return paths.filter((path) => !writing.has(path));
}

export async function probeService(request: ProbeRequest, listener: ProbeListener): Promise<ProbeFindings> {
  const scratch = mkdtempSync(join(tmpdir(), 'perfgate-init-'));
  const routesFile = join(scratch, 'routes.json');
  try {
    return await startOnce(
      {
        config: {
          install: null,
          build: null,
          setup: null,
          start: request.start,
          cwd: request.cwd,
          env: {},
          ready: { path: null, timeoutMs: request.timeoutMs },
        },
        dir: request.dir,
        env: { ...request.env, [ROUTES_FILE_VAR]: routesFile },
      },
      async (url) => {
        let routes = readRoutesFile(routesFile);
        for (let waited = 0; routes === null && waited < ROUTES_FILE_WAIT_MS; waited += 50) {
          await sleep(50);
          routes = readRoutesFile(routesFile);
        }
        const sorted = sortRoutes(routes?.routes ?? []);
        const plan: ProbePlan = { routes, sorted, paths: safeProbePaths(request.paths, sorted), reads: sorted.reads.slice(0, MAX_ASKED_ROUTES) };
        listener.planned(plan);
        // A path is asked once, even when it is both a usual path and a registered route.
        const cache = new Map<string, RouteAnswer>();
        const ask = async (path: string): Promise<RouteAnswer> => {
          let answer = cache.get(path);
          if (!answer) {
            answer = await askRoute(url, { method: 'GET', path, headers: {}, body: null }, 2000);
            cache.set(path, answer);
            listener.answered(path, answer);
          }
          return answer;
        };
        const answers: ProbeAnswer[] = [];
        for (const path of plan.paths) {
          const answer = await ask(path);
          answers.push({ path, status: answer.status ?? 0, answer });
        }
        const asked: AskedRoute[] = [];
        for (const route of plan.reads) asked.push({ request: route, answer: await ask(route.path) });
        return { answers, routes, sorted, asked };
      },
    );
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}
