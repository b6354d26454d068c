import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { cpus, platform, release, totalmem } from 'node:os';
import type { Environment } from '../../results/types.js';
import { programPathOrNull } from '../process/programs.js';

/**
 * What the numbers depend on, recorded with them: CPU model and count, the Node that runs the
 * service (the one on the user's PATH, which may differ from the Node running perfgate) and its
 * V8, OS, kernel and machine image, and the user's Node flags. `perfgate history` compares them
 * between runs, so that a shift that came with a new kernel or image is not blamed on a commit.
 */
export async function fingerprint(env: Record<string, string>, cwd: string): Promise<Environment> {
  const cpuList = cpus();
  const node = programPathOrNull('node');
  const [nodeVersion = 'unknown', v8Version] = !node
    ? []
    : await new Promise<string[]>((resolve) => {
        execFile(node, ['-p', "process.version + ' ' + process.versions.v8"], { env, cwd, timeout: 10_000 }, (error, stdout) =>
          resolve(error ? [] : stdout.trim().split(' ')),
        );
      });
  const osImage = machineImage(env);
  return {
    cpuModel: (cpuList[0]?.model ?? 'unknown').replace(/\s+/g, ' ').trim(),
    cpus: cpuList.length,
    nodeVersion,
    os: `${platform()} ${release()}`,
    arch: process.arch,
    totalMemoryMb: Math.round(totalmem() / 2 ** 20),
    nodeFlags: (env.NODE_OPTIONS ?? '').split(/\s+/).filter(Boolean),
    kernel: release(),
    ...(osImage && { osImage }),
    ...(v8Version && { v8Version }),
  };
}

/**
 * The machine image: GitHub-hosted runners name theirs in ImageOS and ImageVersion (a new image
 * can bring a new kernel, compiler or CPU microcode), other machines by their distribution.
 */
function machineImage(env: Record<string, string>): string | null {
  if (env.ImageOS) return `${env.ImageOS}${env.ImageVersion ? ` ${env.ImageVersion}` : ''}`.slice(0, 200);
  try {
    const pretty = /^PRETTY_NAME="?([^"\n]*)"?$/m.exec(readFileSync('/etc/os-release', 'utf8'));
    return pretty?.[1]?.slice(0, 200) || null;
  } catch {
    return null;
  }
}
