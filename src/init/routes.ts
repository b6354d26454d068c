/**
 * The routes the service's framework registered while `perfgate init` ran it (the preload
 * src/preload/routes.cjs writes them), turned into requests init can send and write: path
 * parameters filled with a sample value, patterns that match many paths (wildcards, regular
 * expressions) left out, and the routes that may change data (a method that writes, or a GET
 * whose path or handler says it writes: engine/probe.ts whyNotAsked) kept apart from the ones
 * init asks.
 */
import { existsSync, readFileSync } from 'node:fs';
import { REQUEST_PATH_PATTERN } from '../config/scenario-line.js';
import { whyNotAsked } from '../engine/service/probe.js';

/** The environment variable that turns the route reader on, and the file it writes. */
export const ROUTES_FILE_VAR = 'PERFGATE_ROUTES_FILE';

/** The frameworks the preload reads, for messages. */
export const READABLE_FRAMEWORKS = 'express, fastify or koa (@koa/router, koa-router)';

export interface RegisteredRoute {
  method: string;
  /** As the framework has it: /users/:id. */
  path: string;
  /** The names of its handler functions, where the framework keeps them. */
  handlers?: string[];
}

export interface RoutesRead {
  /** Frameworks the service loaded that the preload knows, even with no routes. */
  frameworks: string[];
  routes: RegisteredRoute[];
}

/** What the preload wrote; null when it wrote nothing (no framework it knows registered anything). */
export function readRoutesFile(file: string): RoutesRead | null {
  if (!existsSync(file)) return null;
  try {
    const data = JSON.parse(readFileSync(file, 'utf8'));
    const frameworks = Array.isArray(data?.frameworks) ? data.frameworks.filter((f: unknown) => typeof f === 'string') : [];
    const routes = Array.isArray(data?.routes)
      ? data.routes
          .filter((r: RegisteredRoute) => typeof r?.method === 'string' && typeof r?.path === 'string')
          .map((r: RegisteredRoute) => ({ ...r, handlers: Array.isArray(r.handlers) ? r.handlers.filter((h) => typeof h === 'string') : [] }))
      : [];
    return { frameworks, routes };
  } catch {
    return null;
  }
}

/** The value a path parameter is given: a number is what an id route most often wants. */
export const SAMPLE_PARAMETER = '1';

export interface RouteRequest {
  method: string;
  /** The path to request, parameters filled. */
  path: string;
  /** As registered, for messages. */
  route: string;
  /** Parameters that were filled with SAMPLE_PARAMETER, without their colon. */
  filled: string[];
}

/** A registered route init does not ask, and why (one line). */
export interface SkippedRoute {
  /** `GET /users/empty`, as registered. */
  route: string;
  why: string;
  /** The path a request to it would have (parameters filled); absent: no one request stands for it. */
  path?: string;
  /** A GET route whose path or handler says it writes: never asked, never written as a scenario. */
  writes?: boolean;
}

export interface SortedRoutes {
  /** GET routes (and routes for every method, asked with GET) that say nothing of writing, in the order they were registered. */
  reads: RouteRequest[];
  /** POST, PUT, PATCH, DELETE: requests that change data; init never sends them. */
  writes: RouteRequest[];
  /** Registered routes init does not ask, and why. */
  skipped: SkippedRoute[];
}

const WRITE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * A registered path as one request: `/users/:id` → `/users/1` (filled: id); express 5's optional
 * groups (`/a{/:b}`) left out, and with them what they hold; a parameter's own pattern
 * (`:id(\\d+)`) dropped. null with the reason when the path stands for many (`*`, a regular
 * expression).
 */
export function fillPath(path: string): { path: string; filled: string[] } | { why: string } {
  if (path.includes('*')) return { why: 'a wildcard' };
  const filled: string[] = [];
  const withoutOptional = path.replace(/\{[^{}]*\}/g, '');
  const result = withoutOptional.replace(/:([A-Za-z_$][\w$]*)(\([^)]*\))?\??/g, (_, name: string) => {
    filled.push(name);
    return SAMPLE_PARAMETER;
  });
  if (/[(){}[\]|+?]/.test(result)) return { why: 'a pattern' };
  if (!REQUEST_PATH_PATTERN.test(result)) return { why: 'not a request path' };
  return { path: result, filled };
}

export function sortRoutes(routes: RegisteredRoute[]): SortedRoutes {
  const sorted: SortedRoutes = { reads: [], writes: [], skipped: [] };
  const seen = new Set<string>();
  for (const route of routes) {
    const method = route.method.toUpperCase() === 'ALL' ? 'GET' : route.method.toUpperCase();
    // HEAD and OPTIONS are what a framework adds for a route (fastify and koa-router register HEAD for each GET).
    if (method === 'HEAD' || method === 'OPTIONS') continue;
    const name = `${method} ${route.path}`;
    const fill = fillPath(route.path);
    const writing = method === 'GET' ? whyNotAsked({ method, path: route.path, handlers: route.handlers ?? [] }) : null;
    if (writing) {
      if (!seen.has(name)) sorted.skipped.push({ route: name, why: writing, writes: true, ...('path' in fill && { path: fill.path }) });
      seen.add(name);
      continue;
    }
    if ('why' in fill) {
      if (!seen.has(name)) sorted.skipped.push({ route: name, why: fill.why });
      seen.add(name);
      continue;
    }
    const key = `${method} ${fill.path}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const request = { method, path: fill.path, route: route.path, filled: fill.filled };
    if (method === 'GET') sorted.reads.push(request);
    else if (WRITE_METHODS.has(method)) sorted.writes.push(request);
    else sorted.skipped.push({ route: name, why: `${method} is not a method a scenario sends` });
  }
  return sorted;
}

/** "filled :id with 1", or '' when the path had no parameter. */
export function filledNote(request: RouteRequest): string {
  return request.filled.length ? `${request.filled.map((p) => `:${p}`).join(', ')} filled with ${SAMPLE_PARAMETER}` : '';
}
