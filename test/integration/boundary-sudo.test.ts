// The boundary made through `sudo -n`, as on GitHub's hosted runners, where the step runs as the
// `runner` user with passwordless sudo. The bundled CLI runs here as such a user (created for the
// test, with a sudoers rule like the runner image's): it makes the cgroup with one sudo call, the
// head's orphan (setsid, env -i, a busy loop) is named and stopped, and the cgroups are gone after.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { makeRepo, ROOT } from '../helpers/repo.js';
import { asUser, canMakeRunnerUser, giveTree, type RunnerUser, runnerUser } from '../helpers/runner-user.js';

/** Runs dist/cli.js as `user` (setpriv: no root left, only its own groups) with a runner-like environment. */
function cliAs(user: RunnerUser, args: string[], cwd: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const [setpriv, ...prefix] = asUser(user);
  const child = spawn(
    setpriv!,
    [...prefix, process.execPath, join(ROOT, 'dist', 'cli.js'), ...args],
    { cwd, env: { HOME: user.home, PATH: `${dirname(process.execPath)}:/usr/local/bin:/usr/bin:/bin`, LANG: 'C.UTF-8' } },
  );
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
}

const config = `service:
  start: node server.js
  ready: { timeout: 10s }
load:
  pairs: 6
  blocks: 2
  instances: 2
  slice: 300ms
  warmup: 300ms
profile: false
scenarios: [GET /work]
`;

test('compare --boundary as a user with passwordless sudo (a hosted runner\'s `runner`): one sudo call makes the cgroup, the orphan is named and stopped, the cgroups are removed', { skip: !canMakeRunnerUser && 'needs root to create the runner-like user' }, async () => {
  const user = runnerUser();
  const repo = makeRepo(
    { 'server.js': { copy: 'services/work-server.js' }, 'work.json': '{"iterations": 200000}', 'perfgate.yml': config },
    { 'server.js': { copy: 'unfair/interfere.js' }, 'attack.json': JSON.stringify({ attack: 'orphan' }) },
  );
  giveTree(repo, user);
  const run = await cliAs(user, ['compare', '--base', 'main', '--out', join(repo, '.out'), '--seed', '5', '--boundary'], repo);
  assert.equal(run.code, 2, run.stdout + run.stderr);
  const inside = /the code under test runs inside cgroup v[12] (\S+)\/pr\b/.exec(run.stderr);
  assert.ok(inside, run.stderr);
  assert.match(run.stderr, /Processes of the pull request's code that belong to no service start used \d+% of a core/);
  const orphans = readdirSync('/proc')
    .filter((pid) => /^\d+$/.test(pid))
    .filter((pid) => {
      try {
        return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('process.exit(0), 120000');
      } catch {
        return false;
      }
    });
  assert.deepEqual(orphans, [], 'no orphan outlives the run');
  assert.equal(existsSync(inside[1]!), false, `${inside[1]} was removed (the CLI moved itself back with sudo -n)`);
});
