import { execFile } from 'node:child_process';
import { cpus, platform, release, totalmem } from 'node:os';
import type { Environment } from '../results/types.js';
import { programPathOrNull } from './process.js';

/**
 * What the numbers depend on, recorded with them: CPU model and count, the Node that runs the
 * service (the one on the user's PATH, which may differ from the Node running perfgate),
 * OS and the user's Node flags.
 */
export async function fingerprint(env: Record<string, string>, cwd: string): Promise<Environment> {
  const cpuList = cpus();
  const node = programPathOrNull('node');
  const nodeVersion = !node
    ? 'unknown'
    : await new Promise<string>((resolve) => {
        execFile(node, ['-p', 'process.version'], { env, cwd, timeout: 10_000 }, (error, stdout) => resolve(error ? 'unknown' : stdout.trim()));
      });
  return {
    cpuModel: (cpuList[0]?.model ?? 'unknown').replace(/\s+/g, ' ').trim(),
    cpus: cpuList.length,
    nodeVersion,
    os: `${platform()} ${release()}`,
    arch: process.arch,
    totalMemoryMb: Math.round(totalmem() / 2 ** 20),
    nodeFlags: (env.NODE_OPTIONS ?? '').split(/\s+/).filter(Boolean),
  };
}
