import { main } from '../../src/cli/main.js';

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
