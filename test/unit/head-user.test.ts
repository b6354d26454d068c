/**
 * Head's code as its own user (engine/process/head-user.ts): a process started with
 * PERFGATE_SIDE=head runs as perfgate-head with the environment perfgate built and its own home,
 * cannot read perfgate's environment or write what perfgate's user owns, stops on SIGTERM
 * (the graceful stop), and writes what it was given; base's process stays perfgate's user's.
 * Making a user needs root: the file is skipped elsewhere.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type TestContext, test } from 'node:test';
import { HEAD_USER, type HeadUser, openHeadUser } from '../../src/engine/process/head-user.js';
import { ProcessTracker, runShell, startShell, stopGroup } from '../../src/engine/process/processes.js';

const asRoot = process.platform === 'linux' && process.getuid?.() === 0;

function open(): HeadUser {
  const made = openHeadUser(null);
  assert.ok(!('unavailable' in made), 'unavailable' in made ? made.unavailable : '');
  return made;
}

/** Head's user, a scratch directory and a tracker that starts head's processes as it; all gone after the test. */
function opened(t: TestContext): { user: HeadUser; dir: string; tracker: ProcessTracker } {
  const user = open();
  const dir = mkdtempSync(join(tmpdir(), 'perfgate-head-user-'));
  t.after(() => {
    user.close();
    rmSync(dir, { recursive: true, force: true });
  });
  return { user, dir, tracker: new ProcessTracker(null, null, null, user) };
}

test("head's process runs as its own user, with perfgate's environment and its own home; base's as perfgate's user", { skip: !asRoot && 'needs root' }, async (t) => {
  const { user, dir, tracker } = opened(t);
  const secret = join(dir, 'perfgate-only');
  writeFileSync(secret, 'x', { mode: 0o644 });
  const script =
    'echo "uid=$(id -u) groups=$(id -G) home=$HOME var=$PERFGATE_TEST_VAR"; ' +
    `cat /proc/${process.pid}/environ >/dev/null 2>&1 && echo environ-read; ` +
    `{ echo y >> ${secret}; } 2>/dev/null && echo secret-written; ` +
    'sudo -n true >/dev/null 2>&1 && echo sudo-ran; true';
  // Its tree, as the run gives head's worktree before the install.
  const tree = join(dir, 'tree');
  mkdirSync(tree);
  user.give([tree]);
  const run = async (side: 'base' | 'head') => {
    const log = join(dir, `${side}.log`);
    const result = await runShell(script, { cwd: tree, env: { PATH: process.env.PATH!, PERFGATE_TEST_VAR: 'kept', PERFGATE_SIDE: side }, logFile: log, tracker, timeoutMs: 10_000 });
    assert.equal(result.code, 0, readFileSync(log, 'utf8'));
    return readFileSync(log, 'utf8').trim();
  };
  assert.equal(await run('head'), `uid=${user.uid} groups=${user.gid} home=${user.home} var=kept`, 'no environ read, no write to perfgate-only, no sudo');
  assert.ok(user.home.length > 0 && statSync(user.home).uid === user.uid, "the home is the user's");
  // Pinned to CPUs: the whole chain (boundary, change of user, the program) keeps the list.
  const pinned = join(dir, 'pinned.log');
  const result = await runShell("grep Cpus_allowed_list /proc/self/status | tr -d '\\t'", {
    cwd: tree,
    env: { PATH: process.env.PATH!, PERFGATE_SIDE: 'head' },
    logFile: pinned,
    tracker,
    timeoutMs: 10_000,
    cpus: '0',
  });
  assert.equal(result.code, 0);
  assert.equal(readFileSync(pinned, 'utf8').trim(), 'Cpus_allowed_list:0');
  assert.match(await run('base'), /^uid=0 groups=0 home=.* var=kept\nenviron-read\nsecret-written\nsudo-ran$/);
});

test("what head's user is given it writes, perfgate reads, and gets back; a graceful stop reaches head's process", { skip: !asRoot && 'needs root' }, async (t) => {
  const { user, dir, tracker } = opened(t);
  const out = join(dir, 'out.txt');
  writeFileSync(out, '');
  user.give([out]);
  const log = join(dir, 'service.log');
  const child = startShell(`trap 'echo stopped >> ${out}; exit 0' TERM; echo started >> ${out}; while true; do sleep 0.05; done`, {
    cwd: dir,
    env: { PATH: process.env.PATH!, PERFGATE_SIDE: 'head' },
    logFile: log,
    tracker,
  });
  for (let i = 0; i < 100 && !readFileSync(out, 'utf8').includes('started'); i++) await new Promise((r) => setTimeout(r, 20));
  await stopGroup(child.pid!, 3000);
  assert.equal(readFileSync(out, 'utf8'), 'started\nstopped\n', `SIGTERM reached the shell (log: ${readFileSync(log, 'utf8')})`);
  assert.equal(statSync(out).uid, user.uid);
  user.reclaim();
  assert.equal(statSync(out).uid, process.getuid!(), 'back to perfgate');
  const home = user.home;
  user.close();
  assert.equal(existsSync(home), false, 'the home goes with the run');
  assert.equal(user.name, HEAD_USER);
});
