// lane: beside — it tests the clean-up after a run killed with SIGKILL; no verdict.
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { findCgroupMount } from '../../src/engine/process/boundary.js';
import { findMarked, sleep } from '../../src/engine/process/processes.js';
import { runCli } from '../helpers/cli.js';
import { processesIn } from '../helpers/processes.js';
import { ECHO_SCENARIO, ECHO_SERVICE, makeRepo, quickConfig, ROOT } from '../helpers/repo.js';

// A run killed with SIGKILL (a cancelled job's hard kill, the OOM killer) runs no `finally`: its
// services, worktrees and cgroup stay. The next run in the repository cleans up after it.

/** The names of the run records (and their pid files) in the repository's git directory. */
function records(repo: string): string[] {
  const dir = join(repo, '.git', 'perfgate-runs');
  return existsSync(dir) ? readdirSync(dir) : [];
}

/** The bundled CLI in a process of its own, killed with SIGKILL once both services of a start pair are up. */
async function killMidRun(repo: string, out: string, extra: readonly string[]): Promise<{ marker: string; headHome: string | null }> {
  const child = spawn(process.execPath, [join(ROOT, 'dist', 'cli.js'), 'compare', '--base', 'main', '--out', out, '--pairs', '60', ...extra], { cwd: repo, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk) => {
    stderr += chunk;
  });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const deadline = Date.now() + 60_000;
  for (;;) {
    const pids = records(repo).find((name) => name.endsWith('.pids'));
    // both sides' services up and warming: a log's progress says "measuring" only at a block's
    // end, when its services are being stopped, so the warm-up's line is the moment they all run
    if (pids && readFileSync(join(repo, '.git', 'perfgate-runs', pids), 'utf8').split('\n').filter(Boolean).length >= 2 && /warming up block 1\//.test(stderr)) break;
    assert.ok(child.exitCode === null, `the run ended (exit ${child.exitCode}) before it could be killed:\n${stderr}`);
    assert.ok(Date.now() < deadline, `no services were up within 60 s:\n${stderr}`);
    await sleep(100);
  }
  const record = JSON.parse(readFileSync(join(repo, '.git', 'perfgate-runs', records(repo).find((name) => name.endsWith('.json'))!), 'utf8'));
  child.kill('SIGKILL');
  await exited;
  return { marker: record.marker, headHome: record.headHome };
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function worktrees(repo: string): string[] {
  return execFileSync('git', ['worktree', 'list', '--porcelain'], { cwd: repo, encoding: 'utf8' })
    .split('\n')
    .filter((line) => line.startsWith('worktree '))
    .slice(1);
}

// One run covers both: the next run uses a new --out (the record is found by the repository, not
// by the run directory) and the killed run's worktrees are removed, so the same --out works too.
test("a run killed with SIGKILL is cleaned up by the next run, whatever its --out: its services stopped, its worktrees, cgroup and head's home removed, and the next run completes", async (t) => {
  // --boundary needs root or sudo -n; where neither is, the cgroup part is not tried
  const killedArgs = process.getuid?.() === 0 ? ['--boundary'] : [];
  const repo = makeRepo({ ...ECHO_SERVICE, 'perfgate.yml': quickConfig(ECHO_SCENARIO) }, { 'README.md': 'x' });
  const out = join(repo, '.out');
  const { marker, headHome } = await killMidRun(repo, out, killedArgs);
  assert.ok(findMarked(marker).length >= 2, 'the killed run left its services running');
  assert.equal(worktrees(repo).length, 2, 'and its two worktrees registered');
  const cgroup = join(findCgroupMount()?.dir ?? '/sys/fs/cgroup', `perfgate-${marker}`);
  if (killedArgs.length) assert.ok(existsSync(cgroup), 'and its cgroup');
  // with --boundary as root, head's code ran as its own user, with a home the run made for it
  if (killedArgs.length) assert.ok(headHome && existsSync(headHome), `and head's home, named in its record: ${headHome}`);

  const next = await runCli(['compare', '--base', 'main', '--out', join(repo, '.out2'), '--pairs', '6', '--blocks', '1', '--instances', '2'], repo);
  assert.equal(next.code, 0, next.stderr);
  t.diagnostic(next.stderr.split('\n').find((line) => line.includes('was killed before it could clean up')) ?? '(no line)');
  assert.match(next.stderr, new RegExp(`a run started \\S+ \\(pid \\d+, run directory ${escapeRegExp(out)}\\) was killed before it could clean up; stopped \\d+ processes, removed 2 worktrees${headHome ? `, head's home ${escapeRegExp(headHome)}` : ''}`));
  assert.deepEqual(findMarked(marker), [], 'no process of the killed run is left');
  assert.deepEqual(processesIn(repo), [], 'nothing of either run is left running');
  assert.deepEqual(worktrees(repo), [], 'no worktree is left registered');
  for (const side of ['base', 'head']) assert.equal(existsSync(join(out, 'trees', side)), false, `the killed run's ${side} worktree is gone from its run directory`);
  assert.deepEqual(records(repo), [], 'no run record is left');
  if (killedArgs.length) assert.equal(existsSync(cgroup), false, 'the cgroup is removed');
  if (headHome) assert.equal(existsSync(headHome), false, "head's home is removed");
});
