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
import { describeRun, QUICK_INPUTS, READ_ONLY_TOKEN, runAction, useFakePlatform, WRITE_TOKEN } from '../helpers/github-runner.js';
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
    'work.json': '{"iterations": 20000}',
  };
  return makeRepo(tree, { 'head.txt': 'head', 'work.json': '{"iterations": 200000}' });
}

test('a hostile PR reads no token, cannot change the decision, and its setsid process is stopped', async (t) => {
  const findings = mkdtempSync(join(tmpdir(), 'perfgate-findings-'));
  const repo = hostileRepo(findings);
  const runtimeToken = platform.artifacts.runtimeToken(RUN_ID);
  const run = await runAction({
    eventName: 'pull_request',
    event: pullRequestEvent({ number: 61, baseSha: baseSha(repo), headSha: headSha(repo) }),
    // The measuring job of the recommended layout: comment: never, a read-only token would do.
    inputs: { ...QUICK_INPUTS, comment: 'never' },
    workspace: repo,
    runId: RUN_ID,
    ...platform,
    // The measuring job's token as the example workflow declares it (contents: read): a
    // write-capable one is refused before any PR code runs (the next test).
    token: READ_ONLY_TOKEN,
    env: { ACTIONS_ID_TOKEN_REQUEST_TOKEN: ID_TOKEN_REQUEST, ACTIONS_ID_TOKEN_REQUEST_URL: 'http://127.0.0.1:9/token' },
  });

  const files = readdirSync(findings).filter((f) => f.endsWith('.json'));
  const phases = new Set(files.map((f) => f.split('-').slice(0, 2).join('-')));
  assert.deepEqual([...phases].sort(), ['build-base', 'build-head', 'install-base', 'install-head', 'service-base', 'service-head'], describeRun(run));

  // Token values, and the forms a git credential would hold them in.
  const secrets = [READ_ONLY_TOKEN, runtimeToken, ID_TOKEN_REQUEST, Buffer.from(`x-access-token:${READ_ONLY_TOKEN}`).toString('base64')];
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

test('gate mode refuses to run PR code where it could reach a credential that writes, before any of it runs', async (t) => {
  const findings = mkdtempSync(join(tmpdir(), 'perfgate-findings-'));
  const basic = `AUTHORIZATION: basic ${Buffer.from(`x-access-token:${WRITE_TOKEN}`).toString('base64')}`;
  const git = (repo: string, ...args: string[]) => execFileSync('git', ['-C', repo, ...args]);
  const PAT = 'ghp_16C7e42F292c6912E7710c838347Ae178B4a';
  type Setup = (repo: string, temp: string, home: string) => Record<string, string> | undefined;
  const cases: { name: string; setup: Setup; inputs?: Record<string, string>; eventName?: string; says: RegExp }[] = [
    {
      name: 'checkout v4/v5 persisted credential (extraheader)',
      setup: (repo) => void git(repo, 'config', '--local', 'http.https://github.com/.extraheader', basic),
      says: /a git credential is persisted \(http\.https:\/\/github\.com\/\.extraheader in the local git config/,
    },
    {
      name: 'checkout v6 persisted credential (includeIf → RUNNER_TEMP)',
      setup: (repo, temp) => {
        const file = join(temp, 'git-credentials-1b2c.config');
        writeFileSync(file, `[http "https://github.com/"]\n\textraheader = ${basic}\n`);
        git(repo, 'config', '--local', `includeIf.gitdir:${repo}/.git.path`, file);
        git(repo, 'config', '--local', `includeIf.gitdir:${repo}/.git/worktrees/*.path`, file);
        return undefined;
      },
      says: /includeif\.gitdir:.*\.path → .*git-credentials-1b2c\.config/,
    },
    {
      name: 'an extraheader in the global config (~/.gitconfig)',
      setup: (_repo, _temp, home) => void writeFileSync(join(home, '.gitconfig'), `[http]\n\textraheader = ${basic}\n`),
      says: /http\.extraheader in the global git config \(.*\.gitconfig\)/,
    },
    {
      name: 'an extraheader in the system config (GIT_CONFIG_SYSTEM)',
      setup: (_repo, temp) => {
        writeFileSync(join(temp, 'system.gitconfig'), `[http "https://github.com/"]\n\textraheader = ${basic}\n`);
        return { GIT_CONFIG_SYSTEM: join(temp, 'system.gitconfig') };
      },
      says: /extraheader in the system git config/,
    },
    {
      name: 'an extraheader given on the command scope (GIT_CONFIG_COUNT)',
      setup: () => ({ GIT_CONFIG_COUNT: '1', GIT_CONFIG_KEY_0: 'http.extraheader', GIT_CONFIG_VALUE_0: basic }),
      says: /http\.extraheader in the command git config/,
    },
    {
      name: 'include.path to a file with an extraheader',
      setup: (repo, temp) => {
        writeFileSync(join(temp, 'creds.inc'), `[http]\n\textraheader = ${basic}\n`);
        git(repo, 'config', '--local', 'include.path', join(temp, 'creds.inc'));
        return undefined;
      },
      says: /include\.path → .*creds\.inc \(local git config\)/,
    },
    {
      name: 'a remote URL with the token in it',
      setup: (repo) => void git(repo, 'config', '--local', 'remote.origin.url', `https://x-access-token:${WRITE_TOKEN}@github.com/acme/shop.git`),
      says: /a remote URL with a credential in it: remote\.origin\.url in the local git config/,
    },
    {
      name: 'a url.*.insteadOf rule that rewrites to a URL with a token',
      setup: (_repo, _temp, home) => void writeFileSync(join(home, '.gitconfig'), `[url "https://${PAT}@github.com/"]\n\tinsteadOf = https://github.com/\n`),
      says: /an insteadOf rule that rewrites to a URL with a credential: url\.https:\/\/\*\*\*@github\.com\/\.insteadof/,
    },
    {
      name: 'credential.helper store and ~/.git-credentials',
      setup: (_repo, _temp, home) => {
        writeFileSync(join(home, '.gitconfig'), '[credential]\n\thelper = store\n');
        writeFileSync(join(home, '.git-credentials'), `https://x-access-token:${WRITE_TOKEN}@github.com\n`);
        return undefined;
      },
      says: /credential\.helper store with a credential in .*\.git-credentials/,
    },
    {
      name: 'credential.helper store with a file of its own',
      setup: (repo, temp) => {
        writeFileSync(join(temp, 'my-creds'), `https://perf-bot:${PAT}@github.com\n`);
        git(repo, 'config', '--local', 'credential.https://github.com.helper', `store --file=${join(temp, 'my-creds')}`);
        return undefined;
      },
      says: /credential\.helper store with a credential in .*my-creds/,
    },
    {
      name: '~/.git-credentials left without a helper',
      setup: (_repo, _temp, home) => void writeFileSync(join(home, '.git-credentials'), `https://x-access-token:${WRITE_TOKEN}@github.com\n`),
      says: /a git credential-store file with a credential \(.*\.git-credentials\)/,
    },
    {
      name: 'a credential helper program for github.com',
      setup: (_repo, _temp, home) => void writeFileSync(join(home, '.gitconfig'), '[credential "https://github.com"]\n\thelper = !gh auth git-credential\n'),
      says: /a credential helper the PR's code can ask for this server's credential \(credential\.https:\/\/github\.com\.helper/,
    },
    {
      name: "gh's hosts.yml (~/.config/gh)",
      setup: (_repo, _temp, home) => {
        mkdirSync(join(home, '.config', 'gh'), { recursive: true });
        writeFileSync(join(home, '.config', 'gh', 'hosts.yml'), `github.com:\n    oauth_token: ${PAT}\n    git_protocol: https\n    user: perf-bot\n`);
        return undefined;
      },
      says: /gh's hosts\.yml with a token \(.*\/\.config\/gh\/hosts\.yml\)/,
    },
    {
      name: "gh's hosts.yml (GH_CONFIG_DIR)",
      setup: (_repo, temp) => {
        mkdirSync(join(temp, 'gh'));
        writeFileSync(join(temp, 'gh', 'hosts.yml'), `github.com:\n    oauth_token: ${PAT}\n`);
        return { GH_CONFIG_DIR: join(temp, 'gh') };
      },
      says: /gh's hosts\.yml with a token \(.*\/gh\/hosts\.yml\)/,
    },
    { name: 'a measuring step that would comment', setup: () => undefined, inputs: { comment: 'always' }, says: /this step would comment on the pull request/ },
    {
      name: 'a write-capable installation token (ghs_) with comment: never',
      setup: () => ({ PERFGATE_TEST_TOKEN: WRITE_TOKEN }),
      says: /the github-token input can write to the repository \(GitHub says so\)/,
    },
    {
      name: 'an installation token GitHub does not answer for',
      setup: () => ({ PERFGATE_TEST_TOKEN: 'ghs_unknownToTheApi' }),
      says: /GitHub's answers do not tell whether the github-token input can write.*permissions: \{ contents: read \}/,
    },
    { name: 'an event outside the allow-list', setup: () => undefined, eventName: 'issue_comment', says: /mode: gate does not run on "issue_comment" events/ },
  ];
  let refused = 0;
  for (const c of cases) {
    const repo = hostileRepo(findings);
    const temp = mkdtempSync(join(tmpdir(), 'perfgate-runner-'));
    const home = mkdtempSync(join(tmpdir(), 'perfgate-home-'));
    const { PERFGATE_TEST_TOKEN: token = READ_ONLY_TOKEN, ...env } = c.setup(repo, temp, home) ?? {};
    const run = await runAction({
      token,
      eventName: c.eventName ?? 'pull_request',
      event: pullRequestEvent({ number: 62, baseSha: baseSha(repo), headSha: headSha(repo) }),
      inputs: { ...QUICK_INPUTS, comment: 'never', ...c.inputs },
      workspace: repo,
      temp,
      ...platform,
      env: { HOME: home, ...env },
    });
    assert.equal(run.status, 1, `${c.name}\n${describeRun(run)}`);
    const error = run.annotations('error').join('\n');
    assert.match(error, c.says, `${c.name}\n${error}`);
    refused++;
    if (!c.eventName) assert.match(error, /persist-credentials: false.*mode: report.*allow-write-token: true/s, `${c.name}: the message names the fix`);
    for (const secret of [WRITE_TOKEN, PAT, Buffer.from(`x-access-token:${WRITE_TOKEN}`).toString('base64')]) {
      assert.ok(!run.stdout.includes(secret) && !run.stderr.includes(secret), `${c.name}: never the value`);
    }
  }
  t.diagnostic(`unsafe setups tried: ${cases.length}; refused before any PR code ran: ${refused}`);
  assert.deepEqual(readdirSync(findings), [], 'no PR code ran');
});
