import type { LoadGenerator } from './load/window.js';

/**
 * What the engine needs from the world, injected by the shells (CLI, action) and by tests.
 * The engine itself never reads process.env or process.argv.
 */
export interface Logger {
  info(message: string): void;
  warn(message: string): void;
  debug(message: string): void;
}

export interface ProgressEvent {
  phase: 'workspace' | 'install' | 'build' | 'start' | 'warmup' | 'measure' | 'benchmark' | 'profile' | 'confirm' | 'stop' | 'done';
  side?: 'base' | 'head';
  scenario?: string;
  block?: number;
  blocks?: number;
  /**
   * Pairs finished in this scenario, and the total planned; for 'benchmark', processes (this one
   * included); for 'profile' with pair 0, the scenarios the phase profiles after the verdicts left
   * some out; for 'confirm' with pair 0, the scenarios whose culprit is tested, and then per arm
   * its number in the scenario (2: the next culprit, after the first explained too little) of
   * MAX_ARMS, with the culprit's name as the message.
   */
  pair?: number;
  pairs?: number;
  message?: string;
}

/**
 * Keeps a directory between runs, under a key (the action: GitHub's Actions cache). Best effort:
 * neither call throws; a failure is the implementation's to log.
 */
export interface DirectoryCache {
  /** Fills `dir` with what was saved under `key`; false when nothing was (or it could not be read). */
  restore(dir: string, key: string): Promise<boolean>;
  /** Saves `dir` under `key` for later runs. */
  save(dir: string, key: string): Promise<void>;
}

export interface EnginePorts {
  logger: Logger;
  /** How load is generated (engine/load/seam.ts); default: the scenario's own (closed loop or fixed rate). Tests pass a fake. */
  load?: LoadGenerator;
  progress(event: ProgressEvent): void;
  /** Environment the user's processes start from (scrubbed again by the engine). */
  env: Record<string, string | undefined>;
  /** Secret values (tokens) that must never reach the user's processes. */
  secrets: string[];
}

export const silentLogger: Logger = { info() {}, warn() {}, debug() {} };
