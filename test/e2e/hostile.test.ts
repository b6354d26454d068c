// lane: beside — it tests what a hostile pull request can reach, not what the load measured.
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
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { pullRequestEvent } from '../helpers/github-events.js';
import { openBoundary } from '../../src/engine/process/boundary.js';
import { describeRun, NODE24, parseFileCommands, QUICK_INPUTS, READ_ONLY_TOKEN, REGRESSION_INPUTS, runAction, useFakePlatform, WRITE_TOKEN } from '../helpers/github-runner.js';
import { baseSha, type Files, headSha, makeRepo, ROOT } from '../helpers/repo.js';
import { alive } from '../helpers/processes.js';
import { canMakeRunnerUser, giveTree, runnerUser } from '../helpers/runner-user.js';

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

/** Runs `fn` on every item, `width` at a time; rejects with the first failure once all have settled. */
async function eachAtOnce<T>(items: T[], width: number, fn: (item: T) => Promise<void>): Promise<void> {
  const queue = [...items];
  const lane = async (): Promise<unknown[]> => {
    const errors: unknown[] = [];
    for (let item = queue.shift(); item !== undefined; item = queue.shift()) await fn(item).catch((e: unknown) => errors.push(e));
    return errors;
  };
  const errors = (await Promise.all(Array.from({ length: width }, lane))).flat();
  if (errors.length > 0) throw errors[0];
}

test('a hostile PR reads no token, cannot change the decision, and no process it leaves behind outlives the step', async (t) => {
  const findings = mkdtempSync(join(tmpdir(), 'perfgate-findings-'));
  const repo = hostileRepo(findings);
  // The runner's home, whose ~/.local/bin comes first on PATH (as on GitHub's ubuntu runners).
  const home = mkdtempSync(join(tmpdir(), 'perfgate-home-'));
  // The step runs as on GitHub's hosted runners, as an unprivileged user with passwordless sudo
  // (perfgate makes its boundary through sudo -n), wherever the test can make that user.
  const user = canMakeRunnerUser ? runnerUser() : undefined;
  if (user) for (const dir of [findings, home]) giveTree(dir, user);
  // Head's code runs as a user of its own (perfgate-head) and writes its findings here too.
  chmodSync(findings, 0o777);
  // Both sides' escapees append to it: base's as the step's user, head's as perfgate-head.
  writeFileSync(join(findings, 'escaped.pids'), '');
  chmodSync(join(findings, 'escaped.pids'), 0o666);
  const runtimeToken = platform.artifacts.runtimeToken(RUN_ID);
  const run = await runAction({
    eventName: 'pull_request',
    event: pullRequestEvent({ number: 61, baseSha: baseSha(repo), headSha: headSha(repo) }),
    // The measuring job of the recommended layout: comment: never, a read-only token would do.
    // A job with id-token: write, allowed here so that the test can look for the token's leaks.
    inputs: { ...REGRESSION_INPUTS, comment: 'never', 'allow-id-token': 'true' },
    workspace: repo,
    runId: RUN_ID,
    ...platform,
    ...(user && { user }),
    // The measuring job's token as the example workflow declares it (contents: read): a
    // write-capable one is refused before any PR code runs (the next test).
    token: READ_ONLY_TOKEN,
    env: {
      ACTIONS_ID_TOKEN_REQUEST_TOKEN: ID_TOKEN_REQUEST,
      ACTIONS_ID_TOKEN_REQUEST_URL: 'http://127.0.0.1:9/token',
      HOME: home,
      PATH: `${join(home, '.local', 'bin')}:${process.env.PATH}`,
    },
  });

  const ended = Date.now();
  t.diagnostic(`the step ran as ${user ? `${user.name} (uid ${user.uid}, passwordless sudo)` : `uid ${process.getuid?.()}`}`);
  assert.match(run.stdout, /the pull request's code runs inside cgroup v[12] /, describeRun(run));
  const files = readdirSync(findings).filter((f) => f.endsWith('.json') && !f.startsWith('targets-'));
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
    `/proc/<ancestor>/mem openable in ${memOpened.length} probes: ${process.getuid?.() === 0 && !user ? 'the tests run as root' : 'the same user, and no Yama here'}; ` +
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

  // The decision is perfgate's, whatever the PR wrote to GITHUB_OUTPUT: the regression measured,
  // or, when its orphans' busy loops (the watcher, the escapees) used more than a tenth of a core
  // beside the services (src/engine/process/interference.ts), no verdict (exit 2). Never a pass.
  assert.equal(run.status, 1, describeRun(run));
  const refused = run.annotations('error').some((e) => /belong to no service start used \d+% of a core/.test(e));
  t.diagnostic(`the step ${refused ? 'gave no verdict: CPU of processes that belong to no start' : 'failed on the regression'}`);
  if (refused) assert.equal(run.outputs.decision, undefined, describeRun(run));
  else {
    assert.equal(run.outputs.decision, 'fail', describeRun(run));
    assert.ok(run.annotations('error').some((e) => /performance regression: throughput of GET \/work/.test(e)), describeRun(run));
  }
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
  assert.equal(output.decision, refused ? undefined : 'fail');
  assert.equal(output['escaped-write'], undefined);
});

test('gate mode refuses to run PR code where it could reach a credential that writes, before any of it runs', async (t) => {
  const findings = mkdtempSync(join(tmpdir(), 'perfgate-findings-'));
  const basic = `AUTHORIZATION: basic ${Buffer.from(`x-access-token:${WRITE_TOKEN}`).toString('base64')}`;
  const git = (repo: string, ...args: string[]) => execFileSync('git', ['-C', repo, ...args]);
  const PAT = 'ghp_16C7e42F292c6912E7710c838347Ae178B4a';
  type Setup = (repo: string, temp: string, home: string) => Record<string, string> | undefined;
  // `shares`: what a case's setup holds that another's would overwrite or hide (a file, a
  // variable, the one token); `alone`: refused by a check that runs only when no other reason was
  // found (the event first of all, the ID token after the write reasons).
  const cases: { name: string; setup: Setup; shares?: string[]; alone?: true; inputs?: Record<string, string>; eventName?: string; says: RegExp; fix?: RegExp }[] = [
    {
      name: 'checkout v4/v5 persisted credential (extraheader)',
      shares: ['github.com extraheader'],
      setup: (repo) => void git(repo, 'config', '--local', 'http.https://github.com/.extraheader', basic),
      says: /a git credential is persisted \(http\.https:\/\/github\.com\/\.extraheader in the local git config/,
    },
    {
      name: 'checkout v6 persisted credential (includeIf → RUNNER_TEMP)',
      shares: ['github.com extraheader'],
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
      shares: ['~/.gitconfig', 'extraheader'],
      setup: (_repo, _temp, home) => void writeFileSync(join(home, '.gitconfig'), `[http]\n\textraheader = ${basic}\n`),
      says: /http\.extraheader in the global git config \(.*\.gitconfig\)/,
    },
    {
      name: 'an extraheader in the system config (GIT_CONFIG_SYSTEM)',
      shares: ['github.com extraheader'],
      setup: (_repo, temp) => {
        writeFileSync(join(temp, 'system.gitconfig'), `[http "https://github.com/"]\n\textraheader = ${basic}\n`);
        return { GIT_CONFIG_SYSTEM: join(temp, 'system.gitconfig') };
      },
      says: /extraheader in the system git config/,
    },
    {
      name: 'an extraheader given on the command scope (GIT_CONFIG_COUNT)',
      shares: ['extraheader'],
      setup: () => ({ GIT_CONFIG_COUNT: '1', GIT_CONFIG_KEY_0: 'http.extraheader', GIT_CONFIG_VALUE_0: basic }),
      says: /http\.extraheader in the command git config/,
    },
    {
      name: 'include.path to a file with an extraheader',
      shares: ['extraheader'],
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
      shares: ['~/.gitconfig'],
      setup: (_repo, _temp, home) => void writeFileSync(join(home, '.gitconfig'), `[url "https://${PAT}@github.com/"]\n\tinsteadOf = https://github.com/\n`),
      says: /an insteadOf rule that rewrites to a URL with a credential: url\.https:\/\/\*\*\*@github\.com\/\.insteadof/,
    },
    {
      name: 'credential.helper store and ~/.git-credentials',
      shares: ['~/.gitconfig', '~/.git-credentials', 'credential helper'],
      setup: (_repo, _temp, home) => {
        writeFileSync(join(home, '.gitconfig'), '[credential]\n\thelper = store\n');
        writeFileSync(join(home, '.git-credentials'), `https://x-access-token:${WRITE_TOKEN}@github.com\n`);
        return undefined;
      },
      says: /credential\.helper store with a credential in .*\.git-credentials/,
    },
    {
      name: 'credential.helper store with a file of its own',
      shares: ['credential helper'],
      setup: (repo, temp) => {
        writeFileSync(join(temp, 'my-creds'), `https://perf-bot:${PAT}@github.com\n`);
        git(repo, 'config', '--local', 'credential.https://github.com.helper', `store --file=${join(temp, 'my-creds')}`);
        return undefined;
      },
      says: /credential\.helper store with a credential in .*my-creds/,
    },
    {
      name: '~/.git-credentials left without a helper',
      shares: ['~/.git-credentials', 'credential helper'],
      setup: (_repo, _temp, home) => void writeFileSync(join(home, '.git-credentials'), `https://x-access-token:${WRITE_TOKEN}@github.com\n`),
      says: /a git credential-store file with a credential \(.*\.git-credentials\)/,
    },
    {
      name: 'a credential helper program for github.com',
      shares: ['~/.gitconfig', 'credential helper'],
      setup: (_repo, _temp, home) => void writeFileSync(join(home, '.gitconfig'), '[credential "https://github.com"]\n\thelper = !gh auth git-credential\n'),
      says: /a credential helper the PR's code can ask for this server's credential \(credential\.https:\/\/github\.com\.helper/,
    },
    {
      name: "gh's hosts.yml (~/.config/gh)",
      shares: ['gh config'],
      setup: (_repo, _temp, home) => {
        mkdirSync(join(home, '.config', 'gh'), { recursive: true });
        writeFileSync(join(home, '.config', 'gh', 'hosts.yml'), `github.com:\n    oauth_token: ${PAT}\n    git_protocol: https\n    user: perf-bot\n`);
        return undefined;
      },
      says: /gh's hosts\.yml with a token \(.*\/\.config\/gh\/hosts\.yml\)/,
    },
    {
      name: "gh's hosts.yml (GH_CONFIG_DIR)",
      shares: ['gh config'],
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
      shares: ['token'],
      setup: () => ({ PERFGATE_TEST_TOKEN: WRITE_TOKEN }),
      says: /the github-token input can write to the repository \(GitHub says so\)/,
    },
    {
      name: 'an installation token GitHub does not answer for',
      shares: ['token'],
      setup: () => ({ PERFGATE_TEST_TOKEN: 'ghs_unknownToTheApi' }),
      says: /GitHub's answers do not tell whether the github-token input can write.*permissions: \{ contents: read \}/,
    },
    {
      name: 'a job that can request an OpenID Connect token',
      alone: true,
      setup: () => ({ ACTIONS_ID_TOKEN_REQUEST_TOKEN: ID_TOKEN_REQUEST, ACTIONS_ID_TOKEN_REQUEST_URL: 'http://127.0.0.1:9/token' }),
      says: /this job can request an OpenID Connect token \(permissions id-token: write/,
      fix: /id-token: write only to a job that runs no pull request code.*allow-id-token: true/s,
    },
    { name: 'an event outside the allow-list', setup: () => undefined, alone: true, eventName: 'issue_comment', says: /mode: gate does not run on "issue_comment" events/ },
  ];
  let refused = 0;
  // A refusal names every reason it found, so the cases whose setups leave each other alone share
  // a run (each run waits for the guard's spaced-out write probes, which no case needs alone).
  // Nothing is measured: the runs go a few at once, each with its own repo, runner temp and home.
  const runs: (typeof cases)[] = [];
  for (const c of cases) {
    const fits = c.alone ? undefined : runs.find((r) => !r[0]!.alone && r.every((o) => !o.shares?.some((s) => c.shares?.includes(s))));
    if (fits) fits.push(c);
    else runs.push([c]);
  }
  await eachAtOnce(runs, 4, async (together) => {
    const names = together.map((c) => c.name).join(', ');
    const repo = hostileRepo(findings);
    const temp = mkdtempSync(join(tmpdir(), 'perfgate-runner-'));
    const home = mkdtempSync(join(tmpdir(), 'perfgate-home-'));
    const { PERFGATE_TEST_TOKEN: token = READ_ONLY_TOKEN, ...env } = Object.assign({}, ...together.map((c) => c.setup(repo, temp, home) ?? {})) as Record<string, string>;
    const run = await runAction({
      token,
      eventName: together[0]!.eventName ?? 'pull_request',
      event: pullRequestEvent({ number: 62, baseSha: baseSha(repo), headSha: headSha(repo) }),
      inputs: { ...QUICK_INPUTS, comment: 'never', ...Object.assign({}, ...together.map((c) => c.inputs)) },
      workspace: repo,
      temp,
      ...platform,
      env: { HOME: home, ...env },
    });
    assert.equal(run.status, 1, `${names}\n${describeRun(run)}`);
    const error = run.annotations('error').join('\n');
    for (const c of together) {
      assert.match(error, c.says, `${c.name}\n${error}`);
      refused++;
      if (!c.eventName) assert.match(error, c.fix ?? /persist-credentials: false.*mode: report.*allow-write-token: true/s, `${c.name}: the message names the fix`);
    }
    for (const secret of [WRITE_TOKEN, PAT, ID_TOKEN_REQUEST, Buffer.from(`x-access-token:${WRITE_TOKEN}`).toString('base64')]) {
      assert.ok(!run.stdout.includes(secret) && !run.stderr.includes(secret), `${names}: never the value`);
    }
  });
  t.diagnostic(`unsafe setups tried: ${cases.length} in ${runs.length} runs; refused before any PR code ran: ${refused}`);
  assert.deepEqual(readdirSync(findings), [], 'no PR code ran');
});

test('without a boundary the step says so in its log and in results.json, and measures as before', { skip: process.getuid?.() !== 0 || process.platform !== 'linux' }, async () => {
  const repo = makeRepo({ 'server.js': { copy: 'services/work-server.js' }, 'work.json': '{"iterations": 20000}', 'perfgate.yml': 'profile: false\n' }, {
    'work.json': '{"iterations": 200000}',
  });
  const run = await runAction({
    eventName: 'pull_request',
    event: pullRequestEvent({ number: 63, baseSha: baseSha(repo), headSha: headSha(repo) }),
    inputs: { ...REGRESSION_INPUTS, comment: 'never' },
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
  assert.match(run.stdout, new RegExp(`stopped ${inside.length} processes, removed 0 worktrees, and its cgroup ${boundary.path}`));
  // The leader is this process's child: killed, it stays a zombie until this process reaps it.
  const running = (pid: number) => alive(pid) && !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  assert.deepEqual(inside.filter(running), [], 'every process in the boundary is stopped');
  assert.ok(!existsSync(join(boundary.path, 'pr')), 'the boundary is removed');
  // The post step is another process; this one, still in the boundary's perfgate leaf, leaves it.
  await boundary.close();
  assert.ok(!existsSync(boundary.path), 'nothing is left of the boundary');
  t.diagnostic(`post step with a boundary of ${inside.length} processes: ${run.ms.toFixed(0)} ms`);
});
