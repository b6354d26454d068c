import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const FIXTURES = join(ROOT, 'test', 'fixtures');

/**
 * file path → content, `{ copy: <path under test/fixtures> }`, or `{ link: <absolute path> }`
 * (a committed symbolic link, e.g. to one of perfgate's own packages with all its dependencies).
 */
export type Files = Record<string, string | { copy: string } | { link: string }>;

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', ['-c', 'user.name=perfgate-test', '-c', 'user.email=test@perfgate.invalid', ...args], {
    cwd,
    encoding: 'utf8',
  }).trim();
}

function write(dir: string, files: Files): void {
  for (const [path, content] of Object.entries(files)) {
    const target = join(dir, path);
    mkdirSync(dirname(target), { recursive: true });
    if (typeof content === 'string') writeFileSync(target, content);
    else if ('link' in content) symlinkSync(content.link, target);
    else cpSync(join(FIXTURES, content.copy), target);
  }
}

/**
 * A throwaway git repository: `main` holds `base`; branch `head` (checked out) adds `head`
 * on top. Returns its directory.
 */
export function makeRepo(base: Files, head: Files): string {
  const dir = mkdtempSync(join(tmpdir(), 'perfgate-test-'));
  git(dir, 'init', '--quiet', '--initial-branch=main');
  write(dir, base);
  git(dir, 'add', '-A');
  git(dir, 'commit', '--quiet', '-m', 'base');
  git(dir, 'checkout', '--quiet', '-b', 'head');
  write(dir, head);
  git(dir, 'add', '-A');
  git(dir, 'commit', '--quiet', '--allow-empty', '-m', 'head');
  return dir;
}

export function headSha(dir: string): string {
  return git(dir, 'rev-parse', 'HEAD');
}

export function baseSha(dir: string): string {
  return git(dir, 'rev-parse', 'main');
}

/**
 * perfgate.yml's line for a test that asserts a pass on identical code. That identical code passes
 * is a statistical claim, at most alpha of runs fail (1% by default), and the calibration in
 * docs/calibration.md proves it; the suite holds several such runs, and on one noisy CI run one
 * of them failed (−3.4%, significant at 1%). At 0.1% a noisy machine fails each of them one time
 * in a thousand at most; what they test (a pass with exit 0, its comment and artifacts) is the same.
 */
export const IDENTICAL_CODE_ALPHA = 'alpha: 0.001\n';

/** perfgate.yml for quick test runs: short slices, few pairs, no profiling phase (test/integration/profile.test.ts has its own). */
export function quickConfig(extra = ''): string {
  return `service:
  start: node server.js
  ready: { timeout: 10s }
load:
  pairs: 12
  blocks: 2
  instances: 12
  slice: 300ms
  warmup: 100ms
profile: false
${extra}`;
}

/**
 * A quickConfig cut to the fewest pairs perfgate takes (6: a block starts only as many services
 * as it has pairs), for a test of identical code whose assertions are about what surrounds the
 * pass (exit 0, a rate, a status, the report), not about a measurement. The A/A pass itself is
 * compare.test.ts's, with quickConfig's 12 pairs.
 */
export function fewestPairs(config: string): string {
  if (!config.includes('  pairs: 12\n')) throw new Error('fewestPairs: the configuration does not hold quickConfig\'s "pairs: 12"');
  return config.replace('  pairs: 12\n', '  pairs: 6\n');
}

/**
 * The echo service answers 200 only to the request it is written for (POST /echo, a JSON body):
 * any other route fails on both sides, and that stops the run at its first warm-up.
 */
export const ECHO_SERVICE: Files = { 'server.js': { copy: 'services/echo-server.js' } };
export const ECHO_SCENARIO = `scenarios:
  - name: echo
    method: POST
    path: /echo
    headers: { content-type: application/json }
    body: { hello: world }
`;

/**
 * quickConfig cut to the least a run of identical code at IDENTICAL_CODE_ALPHA needs to complete,
 * for tests of what happens around a pass: 6 pairs in two blocks of 3 start pairs, 100 ms slices.
 * Identical code gets a verdict only if all six start pairs move the same way by more than the
 * limit, and so closely that the t statistic reaches 0.001 (stats/sign-flip.ts, studentizedAgreement).
 */
export function passingConfig(extra = ''): string {
  return quickConfig(extra).replace('pairs: 12', 'pairs: 6').replace('instances: 12', 'instances: 3').replace('slice: 300ms', 'slice: 100ms');
}
