/**
 * The run environment both shells measure in: the tracker of every process the run starts, the
 * boundary (a cgroup) the code under test runs inside, and cancellation by SIGINT or SIGTERM,
 * opened and closed in one place so the CLI and the action cannot drift apart on how a run's
 * processes are contained and stopped.
 */
import { randomUUID } from 'node:crypto';
import { rmSync } from 'node:fs';
import { type Boundary, openBoundary } from '../engine/process/boundary.js';
import { type HeadUser, openHeadUser } from '../engine/process/head-user.js';
import { ProcessTracker, RUN_MARKER_VAR } from '../engine/process/processes.js';
import { programPathOrNull } from '../engine/process/programs.js';
import type { RunWarning } from '../results/types.js';
import { writeRecord } from './leftovers.js';

/**
 * 'required': the user asked for a boundary, so a machine that cannot make one refuses the run
 * (NoBoundaryError). 'wanted': without one the run goes on, and `noBoundary` says why (the action
 * warns). 'off': none is tried.
 */
export type BoundaryWish = 'required' | 'wanted' | 'off';

export interface RunEnvironmentOptions {
  boundary: BoundaryWish;
  /** The file the tracker mirrors its process groups to, for a step that cleans up after a cancelled job; null: none. */
  pidFile?: string | null;
  /**
   * PERFGATE_RUN_ID's value in every process the run starts, which finds a process that left its
   * group (and names the boundary). Default: a new one whenever a boundary is tried, else none.
   */
  marker?: string | null;
  /** The environment the user's processes start from; the marker is added to it. */
  env: Record<string, string | undefined>;
  /**
   * Keep a record of the run in `dir` (compare/leftovers.ts, recordsDir) while it runs, with its
   * process groups beside it, so that the next run cleans up after this one if it is killed.
   * Implies a marker and a pid file.
   */
  record?: { dir: string; outDir: string };
}

export interface RunEnvironment {
  tracker: ProcessTracker;
  /** Aborted by SIGINT or SIGTERM. */
  signal: AbortSignal;
  boundary: Boundary | null;
  /** Why no boundary could be made when one was wanted; null otherwise. */
  noBoundary: string | null;
  /** The user head's code runs as, made with the boundary; null without one. */
  headUser: HeadUser | null;
  /** Why head's code runs as perfgate's own user although the boundary was made; null otherwise. */
  noHeadUser: string | null;
  /** The environment for the engine's ports: the caller's, with the run's marker. */
  env: Record<string, string | undefined>;
  /** The signal that cancelled the run; null while none has. */
  cancelledBy(): NodeJS.Signals | null;
  /** Stops listening for SIGINT and SIGTERM: the process's own handling of them comes back. */
  stopListening(): void;
  /** Stops listening, then empties the boundary of whatever left the tracked groups and removes it. */
  close(): Promise<void>;
}

/** A boundary was required (--boundary) and this machine cannot make one. */
export class NoBoundaryError extends Error {
  constructor(readonly reason: string) {
    super(`no boundary can be made here: ${reason}`);
    this.name = 'NoBoundaryError';
  }
}

/**
 * Makes the boundary (openBoundary probes that a process can enter it), the tracker that starts
 * every process inside it, and the cancellation. Throws NoBoundaryError before anything is
 * listened to, so a refused run has nothing to close.
 */
export function openRunEnvironment(options: RunEnvironmentOptions): RunEnvironment {
  const marker = options.marker ?? (options.boundary === 'off' && !options.record ? null : randomUUID());
  let boundary: Boundary | null = null;
  let noBoundary: string | null = null;
  if (options.boundary !== 'off') {
    const opened = openBoundary(marker!, programPathOrNull('sudo'));
    if ('unavailable' in opened) {
      if (options.boundary === 'required') throw new NoBoundaryError(opened.unavailable);
      noBoundary = opened.unavailable;
    } else {
      boundary = opened;
    }
  }
  // Head's own user needs the same privilege as the boundary, and is no containment without it
  // (head's processes could not be stopped as another user's without the cgroup).
  let headUser: HeadUser | null = null;
  let noHeadUser: string | null = null;
  if (boundary) {
    const made = openHeadUser(programPathOrNull('sudo'));
    if ('unavailable' in made) noHeadUser = made.unavailable;
    else headUser = made;
  }
  const files = options.record ? recordRun(options.record, marker!, boundary, headUser) : null;
  const tracker = new ProcessTracker(options.pidFile ?? files?.pids ?? null, marker, boundary, headUser);
  const cancellation = cancelOnSignals(tracker);
  // Ended by anything else (an uncaught error, process.exit): no service outlives this process.
  const onExit = () => void tracker.killAll(0);
  process.once('exit', onExit);
  let closed = false;
  return {
    tracker,
    signal: cancellation.signal,
    boundary,
    noBoundary,
    headUser,
    noHeadUser,
    env: marker === null ? options.env : { ...options.env, [RUN_MARKER_VAR]: marker },
    cancelledBy: cancellation.received,
    stopListening: cancellation.release,
    async close() {
      if (closed) return;
      closed = true;
      cancellation.release();
      process.off('exit', onExit);
      // The run has stopped every process it started; this empties the cgroup of what left them.
      await boundary?.close();
      headUser?.close();
      if (files) for (const file of [files.record, files.pids]) rmSync(file, { force: true });
    },
  };
}

/**
 * What a run environment leaves uncontained, as the warnings results.json and the report carry:
 * no boundary where one was wanted, or a boundary without head's own user. Both shells record
 * these through measureComparison and say the same text in their logs.
 */
export function environmentWarnings(environment: Pick<RunEnvironment, 'boundary' | 'noBoundary' | 'noHeadUser'>): RunWarning[] {
  const { boundary, noBoundary, noHeadUser } = environment;
  if (noBoundary !== null) {
    return [
      {
        code: 'no-boundary',
        message:
          `No boundary around the pull request's code: ${noBoundary}. A process it starts that leaves its process group ` +
          "and drops PERFGATE_RUN_ID from its environment (setsid env -i …) can outlive this run and write to the runner's files. " +
          'perfgate makes one as root or with sudo -n (docs/security.md).',
      },
    ];
  }
  if (!boundary || noHeadUser === null) return [];
  return [
    {
      code: 'no-head-user',
      message:
        `Head's code runs as perfgate's own user: ${noHeadUser}. It can read perfgate's environment, write the runner's files ` +
        "(GITHUB_OUTPUT, GITHUB_ENV), perfgate's results and base's tree, and use this user's sudo. perfgate makes the user perfgate-head as root or with sudo -n (docs/security.md).",
    },
  ];
}

/** The run's record, or null where the repository's git directory cannot be written: the run goes on without one. */
function recordRun(record: { dir: string; outDir: string }, marker: string, boundary: Boundary | null, headUser: HeadUser | null): { record: string; pids: string } | null {
  try {
    return writeRecord(record.dir, { marker, outDir: record.outDir, boundary: boundary?.path ?? null, headHome: headUser?.home ?? null });
  } catch {
    return null;
  }
}

interface Cancellation {
  signal: AbortSignal;
  received(): NodeJS.Signals | null;
  release(): void;
}

/**
 * On SIGINT or SIGTERM (Ctrl-C; a cancelled job sends both, GitHub's docs "Canceling a
 * workflow"): stops every process now (they run in their own groups, out of the terminal's
 * reach), and the engine unwinds, removing the worktrees and keeping what was measured. A second
 * signal finds no handler: it ends the process at once.
 */
function cancelOnSignals(tracker: ProcessTracker): Cancellation {
  const abort = new AbortController();
  let received: NodeJS.Signals | null = null;
  const onSignal = (signal: NodeJS.Signals) => {
    received = signal;
    abort.abort();
    void tracker.killAll(1000);
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  return {
    signal: abort.signal,
    received: () => received,
    release() {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    },
  };
}
