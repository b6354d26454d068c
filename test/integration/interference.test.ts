// lane: beside — its hostile heads attack only their own run's base services, and its assertions are an exit 2 naming what changed, or none for an honest head: a neighbour's load changes no priority, affinity or process state.
/**
 * A hostile head that slows base without writing a file: its service stops base's processes for
 * most of every 100 ms, renices them to 19, or pins them to the load generator's CPU
 * (test/fixtures/unfair/interfere.js). Or it leaves a process that burns a core and belongs to no
 * start (setsid and a double fork). perfgate checks every thread of every start around every
 * slice, and the boundary's CPU against the starts' over each block (src/engine/process/interference.ts):
 * each attack stops the run with exit 2, naming what changed and who could have (the pull
 * request's code as base's user, and why). An honest head in the same layout is not stopped. And
 * where the boundary is made but head's user cannot be (a sudo that refuses chown), the CLI's log,
 * results.json and report say that head ran as perfgate's own user.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { planComparison, resolveComparison, runComparison } from '../../src/compare/service.js';
import { openBoundary } from '../../src/engine/process/boundary.js';
import { InterferenceError } from '../../src/engine/errors.js';
import { silentLogger } from '../../src/engine/ports.js';
import { ProcessTracker } from '../../src/engine/process/processes.js';
import { programPathOrNull } from '../../src/engine/process/programs.js';
import { readResults } from '../../src/results/io.js';
import { runCli } from '../helpers/cli.js';
import { makeRepo, ROOT } from '../helpers/repo.js';
import { asUser, canMakeRunnerUser, giveTree, makeSharedDir, type RunnerUser, runnerUser, runnerUserWithoutChown } from '../helpers/runner-user.js';

// The fewest pairs, in the shortest slices: every check runs around every slice and over each
// block whatever their length, and nothing here is a measured verdict.
const config = `service:
  start: node server.js
  ready: { timeout: 10s }
load:
  pairs: 6
  blocks: 2
  instances: 2
  slice: 100ms
  warmup: 100ms
profile: false
scenarios: [GET /work]
`;
const base = { 'server.js': { copy: 'services/work-server.js' }, 'work.json': '{"iterations": 200000}', 'perfgate.yml': config };
const head = (attack: string) => ({ 'server.js': { copy: 'unfair/interfere.js' }, 'attack.json': JSON.stringify({ attack }) });

const cases: [string, RegExp][] = [
  ['stop', /base's start \d+, pid \d+( \(thread \d+\))? was stopped \(SIGSTOP, SIGTSTP or a debugger\)/],
  ['renice', /base's start \d+, pid \d+( \(thread \d+\))? ran at nice 19 \(perfgate started it at 0\)/],
  ['taskset', /base's start \d+, pid \d+( \(thread \d+\))? was allowed CPUs 0 \(perfgate gave it [\d,]+\)/],
];

for (const [attack, named] of cases) {
  test(`a head that does "${attack}" to base's service gets no verdict: exit 2, naming the process and what changed`, { skip: process.platform !== 'linux' }, async () => {
    const repo = makeRepo(base, head(attack));
    const out = join(repo, '.out');
    const run = await runCli(['compare', '--base', 'main', '--out', out, '--seed', '5'], repo);
    assert.equal(run.code, 2, run.stdout + run.stderr);
    assert.match(run.stderr, named);
    assert.match(run.stderr, /A service's processes were changed by another process .*this run gives no verdict/s);
    assert.match(run.stderr, /The pull request's code runs as the same user as base's service \(perfgate gives it a user of its own only inside a boundary/);
    assert.equal(readResults(join(out, 'results.json')).status, 'failed');
  });
}

test('an honest head in the same layout is not stopped', async () => {
  const repo = makeRepo(base, head('none'));
  const run = await runCli(['compare', '--base', 'main', '--out', join(repo, '.out'), '--seed', '5'], repo);
  assert.notEqual(run.code, 2, run.stdout + run.stderr);
  assert.doesNotMatch(run.stdout + run.stderr, /changed by another process|belong to no service start/);
});

// The boundary needs root or sudo -n (the action always asks for one; the CLI with --boundary): the
// run is started here as gate mode starts it, with a tracker that holds the boundary.
const boundaryAvailable = process.platform === 'linux' && (process.getuid?.() === 0 || programPathOrNull('sudo') !== null);
const inBoundary: [string, string, RegExp | null][] = [
  ['orphan', 'leaves an orphaned process burning a core', /Processes of the pull request's code that belong to no service start used \d+% of a core in block 1 of 2/],
  ['freeze', "moves base's service into a cgroup it freezes", /base's start \d+, pid \d+ was moved to the cgroup \/perfgate-[0-9a-f-]+\/pr\/frozen \(perfgate put it in \/perfgate-[0-9a-f-]+\/pr\)/],
  ['none', 'is honest', null],
];
for (const [index, [attack, does, named]] of inBoundary.entries()) {
  test(`inside the boundary, a head that ${does} ${named ? 'gets no verdict: exit 2, naming it' : 'is not stopped'}`, { skip: !boundaryAvailable }, async (t) => {
    const repo = makeRepo(base, head(attack));
    const opened = openBoundary(`${process.pid.toString(16).padStart(8, '0')}-7e5${index}`, programPathOrNull('sudo'));
    if ('unavailable' in opened) {
      t.skip(opened.unavailable);
      return;
    }
    const tracker = new ProcessTracker(null, null, opened);
    try {
      const checked = await resolveComparison({ repoDir: repo, baseRef: 'main', mergeBase: true, headRef: null, configFile: null, settings: {}, settingsSource: 'test' });
      const planned = planComparison({ ...checked.config, seed: 5 });
      const run = runComparison(
        { checked, planned, outDir: join(repo, '.out'), toolsDir: join(repo, '.tools'), tracker, signal: new AbortController().signal },
        { logger: silentLogger, progress: () => {}, env: process.env as Record<string, string> },
      );
      if (!named) {
        assert.equal((await run).results.status, 'complete');
        return;
      }
      await assert.rejects(run, (e: Error) => {
        assert.ok(e instanceof InterferenceError, e.stack);
        assert.match(e.message, named);
        if (attack === 'freeze') assert.match(e.message, /runs as the same user as base's service here \(inside the boundary, but no user of its own could be made for it\)/);
        return true;
      });
    } finally {
      // Whatever the run left inside was stopped with it.
      assert.equal(await opened.close(), 0, 'the run stopped everything inside');
    }
  });
}

test('compare --boundary: the CLI runs the code under test inside the boundary, names the orphan it left, and the orphan is gone when the run ends', { skip: !boundaryAvailable }, async () => {
  const repo = makeRepo(base, head('orphan'));
  const run = await runCli(['compare', '--base', 'main', '--out', join(repo, '.out'), '--seed', '5', '--boundary'], repo);
  assert.equal(run.code, 2, run.stdout + run.stderr);
  assert.match(run.stderr, /the code under test runs inside cgroup v[12] /);
  assert.match(run.stderr, /Processes of the pull request's code that belong to no service start used \d+% of a core/);
  // The orphan left its process group and emptied its environment (setsid, env -i): only the
  // cgroup still held it.
  assert.deepEqual(orphansLeft(), [], 'no orphan outlives the run');
});

/** The pids of the orphans test/fixtures/unfair/interfere.js leaves (a busy loop of 120 s). */
function orphansLeft(): string[] {
  return readdirSync('/proc')
    .filter((pid) => /^\d+$/.test(pid))
    .filter((pid) => {
      try {
        return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('process.exit(0), 120000');
      } catch {
        return false;
      }
    });
}

/**
 * Runs dist/cli.js as `user` with a runner-like environment: the bundle and this Node (also the
 * services' `node`, first on PATH) from copies the user can read, wherever this checkout lives.
 */
async function cliAs(user: RunnerUser, args: string[], cwd: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const shared = makeSharedDir();
  try {
    const node = shared.copy('bin/node', process.execPath);
    const [setpriv, ...prefix] = asUser(user);
    const child = spawn(setpriv!, [...prefix, node, join(shared.copy('dist', join(ROOT, 'dist')), 'cli.js'), ...args], {
      cwd,
      env: { HOME: user.home, PATH: `${dirname(node)}:/usr/local/bin:/usr/bin:/bin`, LANG: 'C.UTF-8' },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    return await new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
  } finally {
    shared.remove();
  }
}

// As on GitHub's hosted runners, where the step runs as `runner` with passwordless sudo: the
// bundled CLI runs as such a user, makes the cgroup through sudo -n, and removes it the same way.
test("compare --boundary as a user with passwordless sudo (a hosted runner's `runner`): the cgroup made through sudo -n, the orphan named and stopped, the cgroups removed", { skip: !canMakeRunnerUser && 'needs root to create the runner-like user' }, async () => {
  const user = runnerUser();
  const repo = makeRepo(base, head('orphan'));
  giveTree(repo, user);
  const run = await cliAs(user, ['compare', '--base', 'main', '--out', join(repo, '.out'), '--seed', '5', '--boundary'], repo);
  assert.equal(run.code, 2, run.stdout + run.stderr);
  const inside = /the code under test runs inside cgroup v[12] (\S+)\/pr\b/.exec(run.stderr);
  assert.ok(inside, run.stderr);
  assert.match(run.stderr, /Processes of the pull request's code that belong to no service start used \d+% of a core/);
  assert.deepEqual(orphansLeft(), [], 'no orphan outlives the run');
  assert.equal(existsSync(inside[1]!), false, `${inside[1]} was removed (the CLI moved itself back with sudo -n)`);
});

test("compare --boundary where head's user cannot be made (sudo refuses chown): the run goes on, and its log, results.json and report say head ran as perfgate's own user", { skip: !canMakeRunnerUser && 'needs root to create the runner-like user' }, async () => {
  const user = runnerUserWithoutChown();
  const repo = makeRepo(base, head('none'));
  giveTree(repo, user);
  const out = join(repo, '.out');
  const run = await cliAs(user, ['compare', '--base', 'main', '--out', out, '--seed', '5', '--boundary'], repo);
  assert.notEqual(run.code, 2, run.stdout + run.stderr);
  assert.match(run.stderr, /the code under test runs inside cgroup v[12] /);
  const said = /Head's code runs as perfgate's own user: cannot give \S+ to perfgate-head: /;
  assert.match(run.stderr, new RegExp(`warning: ${said.source}`), 'said in the log');
  const warnings = readResults(join(out, 'results.json')).warnings.filter((w) => w.code === 'no-head-user');
  assert.equal(warnings.length, 1, 'recorded once in results.json');
  assert.match(warnings[0]!.message, said);
  assert.match(run.stdout, said, 'said in the report');
});
