/**
 * `perfgate init`'s probe: one start of the service as perfgate starts it for a measurement
 * (engine/service/probe.ts startOnce), with the route reader on (src/preload/routes.cjs): GET on a few
 * usual paths, the routes the framework registered, each GET route asked once the way the
 * compare and `perfgate plan` ask a scenario's route, then stopped.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { askRoute, type RouteAnswer, startOnce } from '../engine/service/probe.js';
import { sleep } from '../engine/process/processes.js';
import { httpStatus } from '../engine/service/service.js';
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

export async function probeService(request: ProbeRequest): Promise<ProbeFindings> {
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
        const answers: ProbeAnswer[] = [];
        for (const path of request.paths) answers.push({ path, status: await httpStatus(`${url}${path}`, 2000) });
        const sorted = sortRoutes(routes?.routes ?? []);
        const asked: AskedRoute[] = [];
        for (const route of sorted.reads.slice(0, MAX_ASKED_ROUTES)) {
          asked.push({ request: route, answer: await askRoute(url, { method: route.method, path: route.path, headers: {}, body: null }, 2000) });
        }
        return { answers, routes, sorted, asked };
      },
    );
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}
