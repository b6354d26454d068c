/**
 * A hostile pull request against the bundled action (Node 24, the local GitHub API, Azurite):
 * its install script, build and service (test/fixtures/hostile) try every way to a token and
 * to the runner's state, and record what they read; its install plants programs on PATH and
 * leaves a /proc watcher; its service leaves processes that escape their group, session,
 * environment and cgroup and keep writing to the runner's files. Gate mode must leave them no
 * token value, keep the decision it measured, run none of the planted programs, and stop every
 * process the PR left before the step ends (docs/security.md).
 */
import assert from 'node:assert/strict';
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { pullRequestEvent } from '../helpers/github-events.js';
import { openBoundary } from '../../src/engine/boundary.js';
import { describeRun, NODE24, parseFileCommands, QUICK_INPUTS, runAction, useFakePlatform, WRITE_TOKEN } from '../helpers/github-runner.js';
import { baseSha, type Files, headSha, makeRepo, ROOT } from '../helpers/repo.js';
import { alive } from '../helpers/processes.js';

const platform = useFakePlatform();
const ID_TOKEN_REQUEST = 'idtokenrequest-decoy-7f3a9c';
const RUN_ID = 6100;

function hostileRepo(findings: string): string {
  const tree: Files = {
    'probe.js': { copy: 'hostile/probe.js' },
    'server.js': { copy: 'hostile/server.js' },
    'findings-dir.txt': findings,
    'perfgate.yml': 'service:\n  install: node probe.js install\n  build: node probe.js build\n  start: node server.js\nprofile: false\n',
    'plant.js': { copy: 'hostile/plant.js' },
    'watcher.js': { copy: 'hostile/watcher.js' },
    'escapee.js': { copy: 'hostile/escapee.js' },
    'work.json': '{"iterations": 20000}',
  };
  return makeRepo(tree, { 'head.txt': 'head', 'work.json': '{"iterations": 200000}' });
}

test('a hostile PR reads no token, cannot change the decision, and no process it leaves behind outlives the step', async (t) => {
  const findings = mkdtempSync(join(tmpdir(), 'perfgate-findings-'));
  const repo = hostileRepo(findings);
  // The runner's home, whose ~/.local/bin comes first on PATH (as on GitHub's ubuntu runners).
  const home = mkdtempSync(join(tmpdir(), 'perfgate-home-'));
  const runtimeToken = platform.artifacts.runtimeToken(RUN_ID);
  const run = await runAction({
    eventName: 'pull_request',
    event: pullRequestEvent({ number: 61, baseSha: baseSha(repo), headSha: headSha(repo) }),
    // The measuring job of the recommended layout: comment: never, a read-only token would do.
    // A job with id-token: write, allowed here so that the test can look for the token's leaks.
    inputs: { ...QUICK_INPUTS, comment: 'never', 'allow-id-token': 'true' },
    workspace: repo,
    runId: RUN_ID,
    ...platform,
    token: WRITE_TOKEN,
    env: {
      ACTIONS_ID_TOKEN_REQUEST_TOKEN: ID_TOKEN_REQUEST,
      ACTIONS_ID_TOKEN_REQUEST_URL: 'http://127.0.0.1:9/token',
      HOME: home,
      PATH: `${join(home, '.local', 'bin')}:${process.env.PATH}`,
    },
  });

  const ended = Date.now();
  const files = readdirSync(findings).filter((f) => f.endsWith('.json') && !f.startsWith('targets-'));
  const phases = new Set(files.map((f) => f.split('-').slice(0, 2).join('-')));
  assert.deepEqual([...phases].sort(), ['build-base', 'build-head', 'install-base', 'install-head', 'service-base', 'service-head'], describeRun(run));

  // Token values, and the forms a git credential would hold them in.
  const secrets = [WRITE_TOKEN, runtimeToken, ID_TOKEN_REQUEST, Buffer.from(`x-access-token:${WRITE_TOKEN}`).toString('base64')];
  const tried = new Set<string>();
  const leaks: string[] = [];
  const memOpened: string[] = [];
  for (const file of files) {
    const record = JSON.parse(readFileSync(join(findings, file), 'utf8')) as { tried: string[]; read: Record<string, string> } & Record<string, unknown>;
    for (const what of record.tried) tried.add(what.replace(/\/proc\/\d+\//, '/proc/<ancestor>/').replace(/ in \/.*$/, ' in <tree>').replace(/ \(\/.*\)$/, ''));
    for (const [what, text] of Object.entries(record.read)) {
      for (const secret of secrets) if (text.includes(secret)) leaks.push(`${file}: ${what} holds ${secret.slice(0, 6)}…`);
    }
    for (const [key, value] of Object.entries(record)) if (key.startsWith('mem ') && value === 'opened') memOpened.push(`${file}: ${key}`);
  }
  t.diagnostic(`token paths tried: ${tried.size} kinds × ${files.length} processes (${[...tried].join('; ')}); leaked: ${leaks.length}`);
  t.diagnostic(
    `/proc/<ancestor>/mem openable in ${memOpened.length} probes: ${process.getuid?.() === 0 ? 'the tests run as root' : 'ptrace is allowed here'}; ` +
      "on GitHub's runners Yama (ptrace_scope 1) refuses it to a child, as a separate user would (README).",
  );
  assert.deepEqual(leaks, []);

  // Programs planted on PATH: perfgate's own (git, taskset, getconf) are never run; whatever the
  // PR's own commands run (node) holds no token. The watcher saw every process it could.
  const all = readdirSync(findings);
  const planted = all.filter((f) => f.startsWith('planted-'));
  // Started by the action itself (its parent runs the bundle), not by the PR's own commands.
  const ranOwn = planted.filter((f) => /^parent: .*index\.js/m.test(readFileSync(join(findings, f), 'latin1')));
  const watched = all.filter((f) => f.startsWith('watch-')).map((f) => readFileSync(join(findings, f), 'latin1'));
  const observed = watched
    .join('')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as { pid: number; cmdline: string[]; environ: string });
  const helperLeaks: string[] = [];
  for (const [what, text] of [...planted.map((f) => [f, readFileSync(join(findings, f), 'latin1')]), ...observed.map((o) => [`watched ${o.pid} ${o.cmdline.join(' ')}`, o.environ])] as [string, string][]) {
    for (const secret of secrets) if (text.includes(secret)) helperLeaks.push(`${what} holds ${secret.slice(0, 6)}…`);
  }
  const countBy = (names: string[]) => {
    const counts = new Map<string, number>();
    for (const n of names) counts.set(n, (counts.get(n) ?? 0) + 1);
    return [...counts].map(([n, c]) => `${n} ×${c}`).join(', ') || 'none';
  };
  t.diagnostic(
    `planted programs run by the PR's commands: ${countBy(planted.map((f) => f.split('-')[1]!))}, by perfgate: ${ranOwn.length}; ` +
      `processes whose environ the watcher read: ${countBy(observed.map((o) => o.cmdline[0]?.split('/').pop() || '(exited)'))}; ` +
      `leaked: ${helperLeaks.length}`,
  );
  assert.ok(observed.length > 0, 'the watcher ran');
  assert.deepEqual(ranOwn, [], 'perfgate never runs a program planted after it started');
  assert.deepEqual(helperLeaks, []);

  // The decision is the one measured: a regression, whatever the PR wrote to GITHUB_OUTPUT.
  assert.equal(run.status, 1, describeRun(run));
  assert.equal(run.outputs.decision, 'fail', describeRun(run));
  assert.ok(run.annotations('error').some((e) => /performance regression: throughput of GET \/work/.test(e)), describeRun(run));
  assert.ok(run.annotations('warning').some((w) => /wrote to the runner's file commands \(GITHUB_OUTPUT, GITHUB_STATE/.test(w)), describeRun(run));
  const state = readFileSync(join(run.temp, 'state'), 'utf8');
  assert.ok(!state.includes('/tmp/evil'), 'the post step\'s state is perfgate\'s own');
  assert.ok(state.includes('perfgate-run-marker'), state);

  // Every process the PR left behind is gone when the step ends, whatever it did to its process
  // group, session, environment and cgroup: setsid (marker kept), setsid env -i, a forged
  // marker, a double fork with env -i (orphaned), a move to the parent cgroup (v2), and the
  // install's watcher (setsid env -i).
  await new Promise((resolve) => setTimeout(resolve, 1500));
  const escaped: [string, number][] = [
    ...['base', 'head'].flatMap((side) =>
      readFileSync(join(findings, `escaped-${side}.pids`), 'utf8').split('\n').filter(Boolean).map((pid) => [`setsid-${side}`, Number(pid)] as [string, number]),
    ),
    ...readFileSync(join(findings, 'escaped.pids'), 'utf8').split('\n').filter(Boolean).map((line) => line.split(' ') as [string, string]).map(([kind, pid]) => [kind, Number(pid)] as [string, number]),
    ...readdirSync(findings).filter((f) => f.startsWith('watcher-')).map((f) => ['watcher-base', Number(readFileSync(join(findings, f), 'utf8'))] as [string, number]),
  ];
  const kindOf = (name: string) => name.replace(/-(base|head)$/, '');
  const surviving = escaped.filter(([, pid]) => alive(pid));
  for (const [, pid] of surviving) process.kill(pid, 'SIGKILL');
  // Writes to the runner's files that happened after the step ended, and so would stick.
  const late = readdirSync(findings)
    .filter((f) => f.startsWith('writes-'))
    .flatMap((f) => readFileSync(join(findings, f), 'utf8').split('\n').filter(Boolean).map((line) => `${f.split('-').slice(1, -1).join('-')}: ${line}`))
    .filter((line) => Number(line.split(': ')[1]!.split(' ')[0]) > ended);
  const resultsFile = readdirSync(run.temp).filter((d) => d.startsWith('perfgate-6100')).map((d) => join(run.temp, d, 'results.json'))[0]!;
  t.diagnostic(
    `escaped process kinds tried: ${new Set(escaped.map(([k]) => kindOf(k))).size} (${escaped.length} processes), surviving: ${new Set(surviving.map(([k]) => kindOf(k))).size} ` +
      `(${surviving.map(([k, p]) => `${k} ${p}`).join(', ') || 'none'}); writes after the step: ${late.length}; ` +
      `results.json rewritten between "complete" and the stop: ${readFileSync(resultsFile, 'utf8').includes('escapedWrite') ? 'yes' : 'no'}`,
  );
  assert.ok(escaped.length >= 8, `every kind left its processes: ${escaped.map(([k]) => k).join(', ')}`);
  assert.deepEqual(surviving, [], 'no escaped process survives the step');
  assert.deepEqual(late, [], 'nothing is written to the runner\'s files after the step');
  const output = parseFileCommands(readFileSync(join(run.temp, 'output'), 'utf8'));
  assert.equal(output.decision, 'fail');
  assert.equal(output['escaped-write'], undefined);
});

test('gate mode refuses to run PR code where it could reach a credential that writes, before any of it runs', async () => {
  const findings = mkdtempSync(join(tmpdir(), 'perfgate-findings-'));
  const cases: {
    name: string;
    setup: (repo: string, temp: string) => void;
    inputs?: Record<string, string>;
    env?: Record<string, string>;
    eventName?: string;
    says: RegExp;
    fix?: RegExp;
  }[] = [
    {
      name: 'checkout v4/v5 persisted credential (extraheader)',
      setup: (repo) =>
        execFileSync('git', ['-C', repo, 'config', '--local', 'http.https://github.com/.extraheader', `AUTHORIZATION: basic ${Buffer.from(`x-access-token:${WRITE_TOKEN}`).toString('base64')}`]),
      says: /a git credential is persisted \(http\.https:\/\/github\.com\/\.extraheader/,
    },
    {
      name: 'checkout v6 persisted credential (includeIf → RUNNER_TEMP)',
      setup: (repo, temp) => {
        const file = join(temp, 'git-credentials-1b2c.config');
        writeFileSync(file, `[http "https://github.com/"]\n\textraheader = AUTHORIZATION: basic ${Buffer.from(`x-access-token:${WRITE_TOKEN}`).toString('base64')}\n`);
        execFileSync('git', ['-C', repo, 'config', '--local', `includeIf.gitdir:${repo}/.git.path`, file]);
        execFileSync('git', ['-C', repo, 'config', '--local', `includeIf.gitdir:${repo}/.git/worktrees/*.path`, file]);
      },
      says: /includeif\.gitdir:.*\.path → .*git-credentials-1b2c\.config/,
    },
    { name: 'a measuring step that would comment', setup: () => {}, inputs: { comment: 'always' }, says: /this step would comment on the pull request/ },
    {
      name: 'a job that can request an OpenID Connect token',
      setup: () => {},
      env: { ACTIONS_ID_TOKEN_REQUEST_TOKEN: ID_TOKEN_REQUEST, ACTIONS_ID_TOKEN_REQUEST_URL: 'http://127.0.0.1:9/token' },
      says: /this job can request an OpenID Connect token \(permissions id-token: write/,
      fix: /id-token: write only to a job that runs no pull request code.*allow-id-token: true/s,
    },
    { name: 'an event outside the allow-list', setup: () => {}, eventName: 'issue_comment', says: /mode: gate does not run on "issue_comment" events/ },
  ];
  for (const c of cases) {
    const repo = hostileRepo(findings);
    const temp = mkdtempSync(join(tmpdir(), 'perfgate-runner-'));
    mkdirSync(temp, { recursive: true });
    c.setup(repo, temp);
    const run = await runAction({
      eventName: c.eventName ?? 'pull_request',
      event: pullRequestEvent({ number: 62, baseSha: baseSha(repo), headSha: headSha(repo) }),
      inputs: { ...QUICK_INPUTS, comment: 'never', ...c.inputs },
      workspace: repo,
      temp,
      ...platform,
      ...(c.env && { env: c.env }),
    });
    assert.equal(run.status, 1, `${c.name}\n${describeRun(run)}`);
    const error = run.annotations('error').join('\n');
    assert.match(error, c.says, c.name);
    if (!c.eventName) assert.match(error, c.fix ?? /persist-credentials: false.*mode: report.*allow-write-token: true/s, `${c.name}: the message names the fix`);
    assert.ok(!error.includes(ID_TOKEN_REQUEST), 'never the ID token request token');
    assert.ok(!error.includes(WRITE_TOKEN) && !error.includes(Buffer.from(`x-access-token:${WRITE_TOKEN}`).toString('base64')), 'never the value');
  }
  assert.deepEqual(readdirSync(findings), [], 'no PR code ran');
});

test('without a boundary the step says so in its log and in results.json, and measures as before', { skip: process.getuid?.() !== 0 || process.platform !== 'linux' }, async () => {
  const repo = makeRepo({ 'server.js': { copy: 'services/work-server.js' }, 'work.json': '{"iterations": 20000}', 'perfgate.yml': 'profile: false\n' }, {
    'work.json': '{"iterations": 200000}',
  });
  const run = await runAction({
    eventName: 'pull_request',
    event: pullRequestEvent({ number: 63, baseSha: baseSha(repo), headSha: headSha(repo) }),
    inputs: { ...QUICK_INPUTS, comment: 'never' },
    workspace: repo,
    ...platform,
    // A mount namespace without the cgroup hierarchies: perfgate finds none to make a boundary in.
    wrapper: ['unshare', '--mount', '--propagation', 'private', 'sh', '-c', 'umount -l /sys/fs/cgroup/unified /sys/fs/cgroup/freezer /sys/fs/cgroup 2>/dev/null; exec "$@"', 'sh'],
  });
  assert.ok(
    run.annotations('warning').some((w) => /No boundary around the pull request's code: no cgroup v2 or v1 freezer hierarchy is mounted/.test(w)),
    describeRun(run),
  );
  assert.equal(run.outputs.decision, 'fail', describeRun(run));
  const results = JSON.parse(readFileSync(run.outputs['results-path']!, 'utf8')) as { warnings: { code: string }[] };
  assert.ok(results.warnings.some((w) => w.code === 'no-boundary'), JSON.stringify(results.warnings));
});

/** Runs dist/post.js as the runner does: the main step's environment again, plus its saved state. */
function runPost(state: Record<string, string>, env: Record<string, string> = {}) {
  const temp = mkdtempSync(join(tmpdir(), 'perfgate-runner-'));
  writeFileSync(join(temp, 'state'), '');
  const started = performance.now();
  const run = spawnSync(NODE24, [join(ROOT, 'dist', 'post.js')], {
    env: {
      PATH: process.env.PATH!,
      GITHUB_STATE: join(temp, 'state'),
      'INPUT_GITHUB-TOKEN': WRITE_TOKEN,
      GITHUB_TOKEN: WRITE_TOKEN,
      ACTIONS_ID_TOKEN_REQUEST_TOKEN: ID_TOKEN_REQUEST,
      ...Object.fromEntries(Object.entries(state).map(([k, v]) => [`STATE_${k}`, v])),
      ...env,
    },
    encoding: 'utf8',
    timeout: 30_000,
  });
  return { ...run, ms: performance.now() - started };
}

test('the post step does nothing without state', (t) => {
  const run = runPost({});
  assert.equal(run.status, 0, run.stderr);
  assert.equal(run.stdout, '');
  t.diagnostic(`post step without state: ${run.ms.toFixed(0)} ms, no output`);
});

test('the post step stops everything left in the boundary of a cancelled main step, and only a boundary perfgate made', { skip: process.platform !== 'linux' }, async (t) => {
  const marker = randomUUID();
  // Run as root here: the boundary is made directly, and this process moves into it.
  const boundary = openBoundary(marker, null);
  if ('unavailable' in boundary) {
    t.diagnostic(`no boundary on this machine: ${boundary.unavailable}`);
    return;
  }
  // A process that left its group and session and dropped every variable, and one that reads
  // the post step's own environ while it lives.
  const [file, args] = boundary.wrap('/usr/bin/setsid', ['env', '-i', '/bin/sh', '-c', 'sleep 300 & exec sleep 300']);
  const leader = spawn(file, args, { stdio: 'ignore', detached: true });
  leader.unref();
  await new Promise((resolve) => setTimeout(resolve, 300));
  const inside = readFileSync(join(boundary.path, 'pr', 'cgroup.procs'), 'utf8').split('\n').filter(Boolean).map(Number);
  assert.ok(inside.length >= 2, `the boundary holds the processes: ${inside.join(', ')}`);

  // A forged state naming the top of the hierarchy (every process on the machine) is refused.
  const forged = runPost({ 'perfgate-boundary': dirname(boundary.path) });
  assert.equal(forged.status, 0, forged.stderr);
  assert.match(forged.stdout, /not a boundary perfgate creates; left alone/);
  assert.deepEqual(inside.filter(alive), inside, 'nothing was stopped on a forged state');

  const run = runPost({ 'perfgate-run-marker': marker, 'perfgate-boundary': boundary.path });
  assert.equal(run.status, 0, run.stderr);
  assert.match(run.stdout, new RegExp(`stopped ${inside.length} process\\(es\\) left in cgroup`));
  // The leader is this process's child: killed, it stays a zombie until this process reaps it.
  const running = (pid: number) => alive(pid) && !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  assert.deepEqual(inside.filter(running), [], 'every process in the boundary is stopped');
  assert.ok(!existsSync(join(boundary.path, 'pr')), 'the boundary is removed');
  // The post step is another process; this one, still in the boundary's perfgate leaf, leaves it.
  await boundary.close();
  assert.ok(!existsSync(boundary.path), 'nothing is left of the boundary');
  t.diagnostic(`post step with a boundary of ${inside.length} processes: ${run.ms.toFixed(0)} ms`);
});
