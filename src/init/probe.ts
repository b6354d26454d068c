/**
 * `perfgate init`'s probe: one start of the service as perfgate starts it for a measurement
 * (its own process group, the forced port, the scrubbed environment, NODE_ENV=production), GET
 * on a few usual paths, then stopped. Nothing is left running: the process is tracked and its
 * group killed in `finally`, also when it never became ready.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ServiceConfig } from '../config/types.js';
import { ServiceError } from '../engine/errors.js';
import { ProcessTracker } from '../engine/process.js';
import { httpStatus, Service } from '../engine/service.js';

/** Probed in this order: the first health route that answers 2xx becomes service.ready.path. */
export const HEALTH_PATHS = ['/health', '/healthz', '/ready'] as const;
export const PROBE_PATHS = [...HEALTH_PATHS, '/'] as const;

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

/** The service did not listen: why, and the last lines of its output. */
export class ProbeError extends Error {
  constructor(
    readonly reason: string,
    readonly logTail: string,
  ) {
    super(reason);
  }
}

export async function probeService(request: ProbeRequest): Promise<ProbeAnswer[]> {
  const scratch = mkdtempSync(join(tmpdir(), 'perfgate-init-'));
  const tracker = new ProcessTracker();
  const config: ServiceConfig = {
    install: null,
    build: null,
    start: request.start,
    cwd: request.cwd,
    env: {},
    ready: { path: null, timeoutMs: request.timeoutMs },
  };
  let service: Service | null = null;
  try {
    service = await Service.start({
      start: 'probe',
      side: 'head',
      config,
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
      const what = service.exited ? 'exited before it listened' : `did not listen on a port within ${(request.timeoutMs / 1000).toFixed(0)} s`;
      throw new ProbeError(`\`${request.start}\` ${what}.`, e.logTail);
    }
    const answers: ProbeAnswer[] = [];
    for (const path of request.paths) answers.push({ path, status: await httpStatus(`${service.url}${path}`, 2000) });
    return answers;
  } finally {
    await service?.stop(2000);
    await tracker.killAll(1000);
    rmSync(scratch, { recursive: true, force: true });
  }
}
