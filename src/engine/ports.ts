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
  phase: 'workspace' | 'install' | 'build' | 'start' | 'warmup' | 'measure' | 'benchmark' | 'profile' | 'stop' | 'done';
  side?: 'base' | 'head';
  scenario?: string;
  block?: number;
  blocks?: number;
  /** Pairs finished in this scenario, and the total planned; for 'benchmark', processes (this one included). */
  pair?: number;
  pairs?: number;
  message?: string;
}

export interface EnginePorts {
  logger: Logger;
  progress(event: ProgressEvent): void;
  /** Environment the user's processes start from (scrubbed again by the engine). */
  env: Record<string, string | undefined>;
  /** Secret values (tokens) that must never reach the user's processes. */
  secrets: string[];
}

export const silentLogger: Logger = { info() {}, warn() {}, debug() {} };
