// lane: beside — it tests what a hostile pull request can reach, not what the load measured.
/**
 * A hostile pull request with the runner's real powers: the step runs as a user like GitHub's
 * `runner` (unprivileged, passwordless sudo), so perfgate makes its boundary and head's user
 * (perfgate-head) through `sudo -n`. Head's install (test/fixtures/hostile/sudo.js) calls `sudo -n`
 * to move a process to the root cgroup, to read perfgate's environment, and to append
 * `decision=pass` to GITHUB_OUTPUT, and tries each without sudo too. Every attempt must be
 * refused, no token value read, none of its processes alive after the step, and its head, doing
 * twice base's work, must still fail. An honest head that installs a package from npm and serves
 * passes and fails as before, as head's user.
 */
import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { pullRequestEvent } from '../helpers/github-events.js';
import { describeRun, parseFileCommands, QUICK_INPUTS, READ_ONLY_TOKEN, runAction, useFakePlatform } from '../helpers/github-runner.js';
import { alive } from '../helpers/processes.js';
import { baseSha, type Files, headSha, makeRepo } from '../helpers/repo.js';
import { canMakeRunnerUser, giveTree, runnerUser } from '../helpers/runner-user.js';

const platform = useFakePlatform();
const ID_TOKEN_REQUEST = 'idtokenrequest-decoy-5d1e77';
const skip = !canMakeRunnerUser && 'needs root, to make a user like the runner';

interface Attempt {
  ok: boolean;
  out: string;
  err: string;
}

test("a head whose install uses the runner's sudo is refused every attempt, reads no token, leaves nothing alive, and its regression still fails", { skip }, async (t) => {
  const user = runnerUser();
  const temp = mkdtempSync(join(tmpdir(), 'perfgate-runner-'));
  const findings = mkdtempSync(join(tmpdir(), 'perfgate-findings-'));
  const base: Files = { 'server.js': { copy: 'services/work-server.js' }, 'work.json': '{"iterations": 200000}', 'perfgate.yml': 'profile: false\n' };
  const repo = makeRepo(base, {
    'work.json': '{"iterations": 400000}',
    'sudo.js': { copy: 'hostile/sudo.js' },
    'findings-dir.txt': findings,
    'output-path.txt': join(temp, 'output'),
    'perfgate.yml': 'service:\n  install: node sudo.js\nprofile: false\n',
  });
  giveTree(findings, user);
  // Head's user writes its findings here, as any other user could.
  chmodSync(findings, 0o777);
  const runtimeToken = platform.artifacts.runtimeToken(6400);

  const run = await runAction({
    eventName: 'pull_request',
    event: pullRequestEvent({ number: 64, baseSha: baseSha(repo), headSha: headSha(repo) }),
    inputs: { ...QUICK_INPUTS, comment: 'never', 'allow-id-token': 'true' },
    workspace: repo,
    runId: 6400,
    temp,
    ...platform,
    user,
    token: READ_ONLY_TOKEN,
    env: { ACTIONS_ID_TOKEN_REQUEST_TOKEN: ID_TOKEN_REQUEST, ACTIONS_ID_TOKEN_REQUEST_URL: 'http://127.0.0.1:9/token' },
    timeoutMs: 300_000,
  });
  const ended = Date.now();
  assert.match(run.stdout, /head's code runs as perfgate-head \(uid \d+\)/, describeRun(run));

  const files = readdirSync(findings).filter((f) => f.startsWith('attempts-'));
  assert.equal(files.length, 1, `head's install ran once: ${describeRun(run)}`);
  const attempts = JSON.parse(readFileSync(join(findings, files[0]!), 'utf8')) as Record<string, Attempt>;
  const { whoami, ...tried } = attempts;
  assert.notEqual(whoami!.out.trim(), String(user.uid), "head's install is not the step's user");
  const succeeded = Object.entries(tried).filter(([, a]) => a.ok).map(([what]) => what);
  t.diagnostic(`attempts: ${Object.keys(tried).length}, refused: ${Object.keys(tried).length - succeeded.length}; sudo said: ${tried['sudo -n true']!.err}`);
  assert.deepEqual(succeeded, [], 'every attempt is refused');

  const secrets = [READ_ONLY_TOKEN, runtimeToken, ID_TOKEN_REQUEST];
  const read = Object.values(tried).map((a) => a.out).join('\n');
  assert.deepEqual(secrets.filter((s) => read.includes(s)), [], 'no token value read');

  // Every process it left is gone once the step ends.
  await new Promise((resolve) => setTimeout(resolve, 1000));
  const left = readFileSync(join(findings, 'left.pids'), 'utf8').split('\n').filter(Boolean).map(Number);
  const surviving = left.filter(alive);
  for (const pid of surviving) process.kill(pid, 'SIGKILL');
  t.diagnostic(`processes left by the install: ${left.length}, alive after the step: ${surviving.length}`);
  assert.ok(left.length >= 3);
  assert.deepEqual(surviving, [], 'none outlives the step');

  // The decision is the regression measured, in GITHUB_OUTPUT as perfgate wrote it.
  assert.equal(run.status, 1, describeRun(run));
  assert.equal(run.outputs.decision, 'fail', describeRun(run));
  const output = readFileSync(join(temp, 'output'), 'utf8');
  assert.equal(parseFileCommands(output).decision, 'fail');
  assert.ok(!output.includes('decision=pass'), output);
  t.diagnostic(`step ended ${((Date.now() - ended) / 1000).toFixed(1)} s before the check`);
});

test('an honest head that installs from npm serves as its own user and fails on its regression as before', { skip }, async () => {
  const user = runnerUser();
  const server =
    "const http = require('node:http');\nconst qs = require('qs');\nconst { iterations } = require('./work.json');\n" +
    'function spin(n) { let x = 0; for (let i = 0; i < n; i++) x = (x * 31 + i) % 1000003; return x; }\n' +
    'http.createServer((req, res) => res.end(qs.stringify({ spun: spin(iterations) }))).listen(3000);\n';
  const files: Files = {
    '.gitignore': 'node_modules\n',
    'package.json': { copy: 'bumps/qs/v6.16.0/package.json' },
    'package-lock.json': { copy: 'bumps/qs/v6.16.0/package-lock.json' },
    'server.js': server,
    'work.json': '{"iterations": 200000}',
    'perfgate.yml': 'profile: false\n',
  };
  // qs 6.16.1 on head: its own lockfile, so head's install runs (npm ci, as head's user, its cache in its home).
  const repo = makeRepo(files, {
    'work.json': '{"iterations": 400000}',
    'package.json': { copy: 'bumps/qs/v6.16.1/package.json' },
    'package-lock.json': { copy: 'bumps/qs/v6.16.1/package-lock.json' },
  });
  const run = await runAction({
    eventName: 'pull_request',
    event: pullRequestEvent({ number: 65, baseSha: baseSha(repo), headSha: headSha(repo) }),
    inputs: { ...QUICK_INPUTS, comment: 'never' },
    workspace: repo,
    runId: 6500,
    ...platform,
    user,
    token: READ_ONLY_TOKEN,
    // The step's user's own npm cache, as the runner's is; head's is in the home perfgate makes.
    // The machine's extra certificate authorities, as a runner's environment carries them: head's
    // npm (the node perfgate found, with no npmrc of its own) reaches the registry through them.
    env: { HOME: user.home, ...(process.env.NODE_EXTRA_CA_CERTS && { NODE_EXTRA_CA_CERTS: process.env.NODE_EXTRA_CA_CERTS }) },
    timeoutMs: 300_000,
  });
  assert.match(run.stdout, /head's code runs as perfgate-head/, describeRun(run));
  assert.equal(run.status, 1, describeRun(run));
  assert.equal(run.outputs.decision, 'fail', describeRun(run));
  assert.ok(run.annotations('error').some((e) => /performance regression: throughput of GET \//.test(e)), describeRun(run));
});
