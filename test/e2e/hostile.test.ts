/**
 * A hostile pull request against the bundled action (Node 24, the local GitHub API, Azurite):
 * its install script, build and service (test/fixtures/hostile) try every way to a token and
 * to the runner's state, and record what they read. Gate mode must leave them no token value,
 * keep the decision it measured, and stop the process the service hid in its own session.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { pullRequestEvent } from '../helpers/github-events.js';
import { describeRun, QUICK_INPUTS, runAction, useFakePlatform, WRITE_TOKEN } from '../helpers/github-runner.js';
import { baseSha, type Files, headSha, makeRepo } from '../helpers/repo.js';
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
    'work.json': '{"iterations": 20000}',
  };
  return makeRepo(tree, { 'head.txt': 'head', 'work.json': '{"iterations": 200000}' });
}

test('a hostile PR reads no token, cannot change the decision, and its setsid process is stopped', async (t) => {
  const findings = mkdtempSync(join(tmpdir(), 'perfgate-findings-'));
  const repo = hostileRepo(findings);
  // The runner's home, whose ~/.local/bin comes first on PATH (as on GitHub's ubuntu runners).
  const home = mkdtempSync(join(tmpdir(), 'perfgate-home-'));
  const runtimeToken = platform.artifacts.runtimeToken(RUN_ID);
  const run = await runAction({
    eventName: 'pull_request',
    event: pullRequestEvent({ number: 61, baseSha: baseSha(repo), headSha: headSha(repo) }),
    // The measuring job of the recommended layout: comment: never, a read-only token would do.
    inputs: { ...QUICK_INPUTS, comment: 'never' },
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

  const files = readdirSync(findings).filter((f) => f.endsWith('.json'));
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
  const observed = watched.join('').split('\n\n').filter(Boolean);
  const helperLeaks: string[] = [];
  for (const [what, text] of [...planted.map((f) => [f, readFileSync(join(findings, f), 'latin1')]), ...observed.map((o) => [`watched ${o.split('\n')[0]}`, o])] as [string, string][]) {
    for (const secret of secrets) if (text.includes(secret)) helperLeaks.push(`${what} holds ${secret.slice(0, 6)}…`);
  }
  const countBy = (names: string[]) => {
    const counts = new Map<string, number>();
    for (const n of names) counts.set(n, (counts.get(n) ?? 0) + 1);
    return [...counts].map(([n, c]) => `${n} ×${c}`).join(', ') || 'none';
  };
  t.diagnostic(
    `planted programs run by the PR's commands: ${countBy(planted.map((f) => f.split('-')[1]!))}, by perfgate: ${ranOwn.length}; ` +
      `processes whose environ the watcher read: ${countBy(observed.map((o) => o.split('\n')[0]!.split(' ')[1]?.split('/').pop() || '?'))}; ` +
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

  // The process the service moved to its own session (setsid) is stopped by the run marker.
  const escaped = ['base', 'head'].flatMap((side) => readFileSync(join(findings, `escaped-${side}.pids`), 'utf8').split('\n').filter(Boolean).map(Number));
  assert.ok(escaped.length >= 2, 'each side left a process behind');
  assert.deepEqual(escaped.filter(alive), [], 'the escaped processes are stopped');
});

test('gate mode refuses to run PR code where it could reach a credential that writes, before any of it runs', async () => {
  const findings = mkdtempSync(join(tmpdir(), 'perfgate-findings-'));
  const cases: { name: string; setup: (repo: string, temp: string) => void; inputs?: Record<string, string>; eventName?: string; says: RegExp }[] = [
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
    });
    assert.equal(run.status, 1, `${c.name}\n${describeRun(run)}`);
    const error = run.annotations('error').join('\n');
    assert.match(error, c.says, c.name);
    if (!c.eventName) assert.match(error, /persist-credentials: false.*mode: report.*allow-write-token: true/s, `${c.name}: the message names the fix`);
    assert.ok(!error.includes(WRITE_TOKEN) && !error.includes(Buffer.from(`x-access-token:${WRITE_TOKEN}`).toString('base64')), 'never the value');
  }
  assert.deepEqual(readdirSync(findings), [], 'no PR code ran');
});
