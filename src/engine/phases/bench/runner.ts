/**
 * The micro-benchmark phase: the planned rounds, one fresh Node process per file per side, each
 * in its own tracked process group (killed at benchmarks.timeout, on cancel and on exit), with
 * the scrubbed environment, its output in log files, and the numbers read from what the preload
 * captured. results.json is written after every base/head pair, so a crash keeps what ran.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { BenchmarksConfig, ServiceConfig } from '../../../config/types.js';
import { formatDuration } from '../../../config/units.js';
import type { BenchmarkResults, BenchRun, Side } from '../../../results/types.js';
import { CancelledError } from '../../errors.js';
import { buildBenchPlan } from '../../plan.js';
import { headUserOf, type ProcessTracker, runProcess, type ShellResult, tailFile } from '../../process/processes.js';
import { preloadPath } from '../../service/service.js';
import type { RunSession } from '../../session.js';
import { type Capture, readCapture } from './capture.js';
import type { BenchFile, DiscoveredBenchmarks } from './discover.js';
import { readVitestReport, vitestArgs } from './vitest.js';

/** A file that failed on one side in this many consecutive rounds is not run again. */
const CONSECUTIVE_FAILURES_TO_DROP = 2;
const STDERR_TAIL_LINES = 15;
const CANCELLED = 'Cancelled: stopped the benchmark processes and removed the worktrees.';

export interface BenchPhaseRequest {
  /** The run's session: results.json is written through it; its environment, logs, tracker and cancel signal are the run's. */
  session: RunSession;
  config: BenchmarksConfig;
  service: ServiceConfig;
  discovered: DiscoveredBenchmarks;
  seed: number;
}

/**
 * Runs the planned rounds into `results.benchmarks`. A file that fails is recorded and the run
 * goes on (its benchmarks are then not compared); only a cancel stops it.
 */
export async function runBenchmarks(request: BenchPhaseRequest): Promise<void> {
  const { config, discovered, session } = request;
  const { results, ports } = session;
  const paths = (side: Side) => discovered.files[side].map((f) => f.path);
  const stored: BenchmarkResults = {
    files: { base: paths('base'), head: paths('head') },
    rounds: config.rounds,
    runs: [],
    stoppedEarly: null,
  };
  results.benchmarks = stored;
  session.update();

  const plan = buildBenchPlan(stored.files, config.rounds, request.seed);
  const logDir = join(session.logDir, 'benchmarks');
  mkdirSync(logDir, { recursive: true });
  const preload = preloadPath('bench-preload.cjs');
  // What the service gets (service.env, NODE_ENV=production by default), minus its port.
  const env = { NODE_ENV: 'production', ...session.env, ...request.service.env };
  const failureStreak = new Map<string, number>();
  const dropped = new Set<string>();
  const started = Date.now();
  const total = plan.reduce((n, round) => n + round.files.reduce((m, f) => m + f.order.length, 0), 0);
  let done = 0;

  rounds: for (const round of plan) {
    for (const planned of round.files) {
      if (session.signal?.aborted) throw new CancelledError(CANCELLED);
      if (dropped.has(planned.file)) continue;
      // The budget is checked before each pair, so a pair is never cut in half.
      if (Date.now() - started >= config.budgetMs) {
        stored.stoppedEarly = `the budget of ${formatDuration(config.budgetMs)} (benchmarks.budget) ran out in round ${round.index + 1} of ${config.rounds}`;
        ports.logger.warn(`micro-benchmarks: ${stored.stoppedEarly}; comparing the rounds finished so far`);
        break rounds;
      }
      for (const side of planned.order) {
        const file = discovered.files[side].find((f) => f.path === planned.file)!;
        ports.progress({ phase: 'benchmark', side, message: file.path, pair: done + 1, pairs: total });
        const run = await runFile(file, side, round.index, {
          cwd: discovered.dirs[side],
          env,
          preload,
          logDir,
          timeoutMs: config.timeoutMs,
          tracker: session.tracker,
        });
        if (session.signal?.aborted) throw new CancelledError(CANCELLED);
        stored.runs.push(run);
        done++;
        const streakKey = `${side}\0${file.path}`;
        const streak = run.error === null ? 0 : (failureStreak.get(streakKey) ?? 0) + 1;
        failureStreak.set(streakKey, streak);
        if (run.error !== null) ports.logger.warn(`benchmark ${file.path} failed on ${side} (round ${round.index + 1}): ${firstLine(run.error)}`);
        if (streak >= CONSECUTIVE_FAILURES_TO_DROP && !dropped.has(file.path)) {
          dropped.add(file.path);
          results.warnings.push({
            code: 'benchmark-file-dropped',
            benchmark: file.path,
            message: `failed on ${side} in ${streak} rounds in a row, so it was not run again in later rounds.`,
          });
        }
      }
      session.update();
    }
  }
  session.update();
}

interface RunOptions {
  cwd: string;
  env: Record<string, string>;
  preload: string;
  logDir: string;
  timeoutMs: number;
  tracker: ProcessTracker;
}

/** Log-file stem of one process: side, round and the file's path made safe for a name. */
function stemOf(file: string, side: Side, round: number): string {
  return `${side}-round${round + 1}-${file.replace(/[^A-Za-z0-9._-]+/g, '_')}`;
}

async function runFile(file: BenchFile, side: Side, round: number, options: RunOptions): Promise<BenchRun> {
  const stem = stemOf(file.path, side, round);
  // the preload's JSON lines, or vitest's JSON report
  const output = join(options.logDir, file.vitest ? `${stem}.vitest.json` : `${stem}.jsonl`);
  const logs = { stdout: join(options.logDir, `${stem}.out.log`), stderr: join(options.logDir, `${stem}.err.log`) };
  for (const path of [output, logs.stdout, logs.stderr]) writeFileSync(path, '');
  const env = { ...options.env, PERFGATE_SIDE: side, PERFGATE_BENCH_OUTPUT: output };
  // The capture writes as the benchmark's user: head's output file is head's user's.
  headUserOf(options.tracker, env)?.give([output]);
  const startedAt = new Date();
  let exit: ShellResult;
  try {
    const args = file.vitest ? vitestArgs(file.vitest, file.path, output) : [...file.nodeArgs, '--require', options.preload, file.absolute];
    exit = await runProcess('node', args, {
      cwd: options.cwd,
      env,
      logFile: logs.stdout,
      errorLogFile: logs.stderr,
      tracker: options.tracker,
      timeoutMs: options.timeoutMs,
    });
  } catch (e) {
    // node itself could not be started: nothing else will run either
    writeFileSync(logs.stderr, `perfgate could not start node: ${(e as Error).message}\n`, { flag: 'a' });
    exit = { code: null, signal: null, timedOut: false };
  }
  const capture = file.vitest ? readVitestReport(output, file.absolute, file.path, file.vitest) : readCapture(output);
  const error = describeFailure(exit, capture, options.timeoutMs);
  const tail = error === null ? '' : tailFile(logs.stderr, STDERR_TAIL_LINES);
  return {
    round,
    file: file.path,
    side,
    startedAt: startedAt.toISOString(),
    durationMs: Date.now() - startedAt.getTime(),
    exitCode: exit.code,
    signal: exit.signal,
    timedOut: exit.timedOut,
    error: error === null ? null : tail ? `${error}\n--- last lines of its stderr (${logs.stderr}) ---\n${tail}` : `${error} (stderr was empty; log ${logs.stderr})`,
    benchmarks: capture.benchmarks,
    libraries: capture.libraries,
    logs,
  };
}

/** Why one process gave no usable numbers, or null when it worked. */
export function describeFailure(exit: ShellResult, capture: Capture, timeoutMs: number): string | null {
  if (exit.timedOut) return `did not finish within ${formatDuration(timeoutMs)} (benchmarks.timeout) and was killed`;
  if (exit.signal) return `was killed by ${exit.signal}`;
  if (exit.code === null) return 'could not be started';
  if (exit.code !== 0) return `exited with code ${exit.code}`;
  if (capture.benchmarks.length > 0) return null;
  const unsupported = capture.libraries.filter((l) => l.unsupported !== null);
  if (unsupported.length > 0) return unsupported.map((l) => `${l.unsupported} (${l.path})`).join('; ');
  if (capture.libraries.length === 0) {
    return (
      'ran to the end, but loaded none of benchmark, tinybench or mitata and did not import vitest, so there was nothing to capture. ' +
      "perfgate reads those libraries from the project's node_modules; a suite that only prints results cannot be read"
    );
  }
  const loaded = capture.libraries.map((l) => `${l.name} ${l.version}`).join(', ');
  if (capture.libraries.some((l) => l.name === 'vitest')) {
    return `ran with ${loaded}, whose report has no benchmark of this file (does vitest's benchmark.include match its name, e.g. *.bench.ts, and does it call bench()?)`;
  }
  return `loaded ${loaded}, but no benchmark finished (is run() called, and awaited where it returns a promise?)`;
}

function firstLine(text: string): string {
  return text.split('\n')[0]!;
}
