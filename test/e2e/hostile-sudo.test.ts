// lane: beside — it tests what a hostile pull request can reach, not what the load measured.
/**
 * A hostile pull request with the runner's real powers: the step runs as a user like GitHub's
 * `runner` (unprivileged, passwordless sudo), so perfgate makes its boundary and head's user
 * (perfgate-head) through `sudo -n`. Head's install (test/fixtures/hostile/sudo.js) calls `sudo -n`
 * to move a process to the root cgroup, to read perfgate's environment, and to write, append to
 * and replace GITHUB_OUTPUT, GITHUB_ENV, the step summary, results.json and verdicts.json, and to
 * plant a file in the artifacts' directory; it tries each without sudo too, and leaves a process
 * that tries the writes again all through the run. Every attempt must be refused, no token value
 * read, none of its processes alive after the step, every one of those files perfgate's own
 * (verdicts.json valid and what results.json gives), and its head, doing twice base's work, must
 * still fail. An honest head that installs a package from npm and serves passes and fails as
 * before, as head's user.
 */
import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { assessResults } from '../../src/assess/compare.js';
import { buildVerdicts } from '../../src/assess/verdicts.js';
import { readResults } from '../../src/results/io.js';
import { validateResults } from '../../src/results/validate.js';
import { pullRequestEvent } from '../helpers/github-events.js';
import { describeRun, parseFileCommands, QUICK_INPUTS, READ_ONLY_TOKEN, runAction, useFakePlatform } from '../helpers/github-runner.js';
import { alive } from '../helpers/processes.js';
import { baseSha, type Files, headSha, makeRepo, ROOT } from '../helpers/repo.js';
import { canMakeRunnerUser, giveTree, runnerUser } from '../helpers/runner-user.js';

const platform = useFakePlatform();
const ID_TOKEN_REQUEST = 'idtokenrequest-decoy-5d1e77';
const skip = !canMakeRunnerUser && 'needs root, to make a user like the runner';
/**
 * Both heads do twice base's work: each start pair sees head serve about half of base's requests.
 * 10 start pairs in 100 ms slices call that: the run's family is three gated comparisons, and
 * 3 × 2/2^10 (one start pair the other way, at the smallest rank) is still below 0.01.
 */
const INPUTS = { ...QUICK_INPUTS, pairs: '10', instances: '10', slice: '100ms', warmup: '100ms' };

interface Attempt {
  ok: boolean;
  out: string;
  err: string;
}

/** What the process the install left behind tried (test/fixtures/hostile/sudo-watch.js). */
interface Watch {
  rounds: number;
  /** Per file: in how many rounds it existed. */
  existed: Record<string, number>;
  tally: Record<string, { tried: number; succeeded: number; errors: string[] }>;
}

/** Every file under `dir` (none when it is missing). */
function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name));
}

test("a head whose install uses the runner's sudo is refused every attempt, reads no token, leaves nothing alive, and its regression still fails", { skip }, async (t) => {
  const user = runnerUser();
  const temp = mkdtempSync(join(tmpdir(), 'perfgate-runner-'));
  const findings = mkdtempSync(join(tmpdir(), 'perfgate-findings-'));
  // The step's files as the runner lays them out, and the run directory perfgate makes in RUNNER_TEMP.
  const runDir = join(temp, 'perfgate-6400-1');
  const step = { GITHUB_OUTPUT: join(temp, 'output'), GITHUB_ENV: join(temp, 'env'), GITHUB_STEP_SUMMARY: join(temp, 'summary.md') };
  writeFileSync(step.GITHUB_ENV, '');
  const written = { 'results.json': join(runDir, 'results.json'), 'verdicts.json': join(runDir, 'verdicts.json') };
  const marker = 'forged-by-head-6400';
  const targets = { marker, files: { ...step, ...written }, dirs: { artifacts: join(runDir, 'artifacts') } };
  const base: Files = { 'server.js': { copy: 'services/work-server.js' }, 'work.json': '{"iterations": 200000}', 'perfgate.yml': 'profile: false\n' };
  const repo = makeRepo(base, {
    'work.json': '{"iterations": 400000}',
    'sudo.js': { copy: 'hostile/sudo.js' },
    'sudo-watch.js': { copy: 'hostile/sudo-watch.js' },
    'findings-dir.txt': findings,
    'targets.json': JSON.stringify(targets),
    'perfgate.yml': 'service:\n  install: node sudo.js\nprofile: false\n',
  });
  giveTree(findings, user);
  // Head's user writes its findings here, as any other user could.
  chmodSync(findings, 0o777);
  const runtimeToken = platform.artifacts.runtimeToken(6400);

  const run = await runAction({
    eventName: 'pull_request',
    event: pullRequestEvent({ number: 64, baseSha: baseSha(repo), headSha: headSha(repo) }),
    inputs: { ...INPUTS, comment: 'never', 'allow-id-token': 'true' },
    workspace: repo,
    runId: 6400,
    temp,
    ...platform,
    user,
    token: READ_ONLY_TOKEN,
    env: { ACTIONS_ID_TOKEN_REQUEST_TOKEN: ID_TOKEN_REQUEST, ACTIONS_ID_TOKEN_REQUEST_URL: 'http://127.0.0.1:9/token', GITHUB_ENV: step.GITHUB_ENV },
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
  assert.ok(left.length >= 4);
  assert.deepEqual(surviving, [], 'none outlives the step');

  // The decision is the regression measured, in GITHUB_OUTPUT as perfgate wrote it.
  assert.equal(run.status, 1, describeRun(run));
  assert.equal(run.outputs.decision, 'fail', describeRun(run));
  const output = readFileSync(step.GITHUB_OUTPUT, 'utf8');
  assert.equal(parseFileCommands(output).decision, 'fail');
  assert.ok(!output.includes('decision=pass'), output);

  // The process it left tried the writes all through the run, results.json there, and none succeeded.
  const watches = readdirSync(findings).filter((f) => /^watch-\d+\.json$/.test(f));
  assert.equal(watches.length, 1, `one process left to write: ${describeRun(run)}`);
  const watch = JSON.parse(readFileSync(join(findings, watches[0]!), 'utf8')) as Watch;
  const tries = Object.values(watch.tally).reduce((n, a) => n + a.tried, 0);
  const stuck = Object.entries(watch.tally).filter(([, a]) => a.succeeded > 0).map(([what]) => what);
  const errors = [...new Set(Object.values(watch.tally).flatMap((a) => a.errors))].join(', ');
  t.diagnostic(`writes tried by the process left behind: ${tries} in ${watch.rounds} rounds (results.json there in ${watch.existed['results.json'] ?? 0}), succeeded: ${stuck.length} (${errors})`);
  assert.deepEqual(stuck, [], 'no write from the process left behind succeeded');
  assert.ok((watch.existed['results.json'] ?? 0) > 0, 'it tried while results.json was being written');

  // Every file it aimed at is perfgate's: none holds a byte it wrote, and nothing was planted beside them.
  assert.equal(run.outputs['results-path'], written['results.json']);
  assert.equal(run.outputs['verdicts-path'], written['verdicts.json']);
  const aimedAt = [...Object.values(targets.files), ...filesUnder(targets.dirs.artifacts)];
  assert.deepEqual(aimedAt.filter((f) => existsSync(f) && readFileSync(f, 'utf8').includes(marker)), [], 'no file holds what head wrote');
  assert.deepEqual([...readdirSync(temp), ...readdirSync(runDir)].filter((f) => f.startsWith('.forged-')), [], 'nothing planted beside them');
  assert.equal(readFileSync(step.GITHUB_ENV, 'utf8'), '', 'GITHUB_ENV as the runner left it');
  const results = validateResults(readResults(written['results.json']), written['results.json']);
  const verdicts = JSON.parse(readFileSync(written['verdicts.json'], 'utf8'));
  const validate = new Ajv2020({ allErrors: true, strict: false }).compile(JSON.parse(readFileSync(join(ROOT, 'docs', 'verdicts.schema.json'), 'utf8')));
  assert.ok(validate(verdicts), JSON.stringify(validate.errors));
  assert.deepEqual(verdicts, JSON.parse(JSON.stringify(buildVerdicts(results, assessResults(results)))), 'verdicts.json is what results.json gives');
  assert.equal(verdicts.decision, 'fail');
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
    // profiled: head's services are stopped by a SIGTERM perfgate's user sends as head's, and
    // each writes its profile on the way out
    'perfgate.yml': 'profile: { duration: 1s, confirm: false }\n',
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
    inputs: { ...INPUTS, comment: 'never' },
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
  const [profile] = readResults(run.outputs['results-path']!).profiles ?? [];
  assert.ok(profile?.sides.head.functions.some((f) => f.name === 'spin'), `head's profile, written by its processes as they stopped, names spin: ${describeRun(run)}`);
  assert.ok(profile.files.head, "head's flamegraph");
});
