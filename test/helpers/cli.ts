import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { main } from '../../src/cli/main.js';
import { sleep } from '../../src/engine/process/processes.js';
import { readResults } from '../../src/results/io.js';

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

function sink(isTTY = false): { stream: NodeJS.WriteStream; text: () => string } {
  const chunks: string[] = [];
  const stream = {
    isTTY,
    write(chunk: string | Uint8Array) {
      chunks.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8'));
      return true;
    },
  } as unknown as NodeJS.WriteStream;
  return { stream, text: () => chunks.join('') };
}

/** Runs the CLI's main in this process (the services it starts are real processes); `tty`: stdout is a terminal. */
export async function runCli(
  args: string[],
  cwd: string,
  env: Record<string, string | undefined> = process.env,
  { tty = false }: { tty?: boolean } = {},
): Promise<CliRun> {
  const out = sink(tty);
  const err = sink();
  const code = await main(args, { stdout: out.stream, stderr: err.stream, env, cwd });
  return { code, stdout: out.text(), stderr: err.text() };
}

/**
 * Resolves once results.json holds a measured pair (the services are up, the route answered, the
 * run is measuring); fails, with the run's exit and log, when the run ends before that.
 */
export async function measuring(resultsPath: string, running: Promise<CliRun>): Promise<void> {
  let ended: CliRun | null = null;
  void running.then((run) => {
    ended = run;
  });
  const deadline = Date.now() + 60_000;
  for (;;) {
    const run = ended as CliRun | null;
    if (run) assert.fail(`the run ended (exit ${run.code}) before it was measuring:\n${run.stderr}`);
    if (existsSync(resultsPath) && readResults(resultsPath).scenarios[0]?.pairs.length) return;
    assert.ok(Date.now() < deadline, 'no pair was measured within 60 s');
    await sleep(100);
  }
}
