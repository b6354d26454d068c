// lane: beside — it tests what a hostile pull request can change, not what the load measured.
/**
 * A hostile pull request against perfgate's own files, with the bundled action laid out as the
 * runner lays actions out (_work/_actions/<owner>/<repo>/<ref>/, owned by the step's user, the
 * user the PR's install runs as): its install (test/fixtures/hostile/rewrite.js) finds the action
 * from an ancestor's command line and rewrites dist/preload.cjs to slow base's services only,
 * dist/post.js to dump the post step's environment, and plants dist/package.json. Its head does
 * twice base's work. The services must load none of the rewritten preload, the 2× slower head
 * must fail, and the action's files must be back, byte for byte, before the post step runs them.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, copyFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { pullRequestEvent } from '../helpers/github-events.js';
import { describeRun, NODE24, parseFileCommands, QUICK_INPUTS, READ_ONLY_TOKEN, runAction, useFakePlatform } from '../helpers/github-runner.js';
import { baseSha, headSha, makeRepo, ROOT } from '../helpers/repo.js';
import { asUser, canMakeRunnerUser, giveTree, runnerUser } from '../helpers/runner-user.js';

const platform = useFakePlatform();
const RUN_ID = 6300;

/** Every file of the action's root and dist/, by path, with its sha256. */
function digests(root: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const path of ['action.yml', 'package.json', ...readdirSync(join(root, 'dist')).map((f) => join('dist', f))]) {
    out[path] = createHash('sha256').update(readFileSync(join(root, path))).digest('hex');
  }
  return out;
}

test("a PR that rewrites perfgate's own files changes neither the verdict nor what the post step runs", async (t) => {
  const runner = mkdtempSync(join(tmpdir(), 'perfgate-runner-home-'));
  const root = join(runner, '_work', '_actions', 'perfgate', 'perfgate', 'v1');
  mkdirSync(root, { recursive: true });
  // The committed bundle (test/unit/dist.test.ts holds it to the source), as GitHub fetches it.
  cpSync(join(ROOT, 'dist'), join(root, 'dist'), { recursive: true });
  for (const file of ['action.yml', 'package.json']) copyFileSync(join(ROOT, file), join(root, file));
  const before = digests(root);

  const findings = mkdtempSync(join(tmpdir(), 'perfgate-findings-'));
  const base = { 'server.js': { copy: 'services/work-server.js' }, 'work.json': '{"iterations": 200000}', 'perfgate.yml': 'profile: false\n' };
  const repo = makeRepo(base, {
    'work.json': '{"iterations": 400000}',
    'rewrite.js': { copy: 'hostile/rewrite.js' },
    'findings-dir.txt': findings,
    'perfgate.yml': 'service:\n  install: node rewrite.js\nprofile: false\n',
  });
  const user = canMakeRunnerUser ? runnerUser() : undefined;
  if (user) for (const dir of [runner, findings]) giveTree(dir, user);
  // Head's user writes its findings here too.
  chmodSync(findings, 0o777);
  t.diagnostic(`the step ran as ${user ? `${user.name} (uid ${user.uid}), owning the action's directory` : `uid ${process.getuid?.()}`}`);

  const run = await runAction({
    eventName: 'pull_request',
    event: pullRequestEvent({ number: 63, baseSha: baseSha(repo), headSha: headSha(repo) }),
    inputs: { ...QUICK_INPUTS, comment: 'never' },
    workspace: repo,
    runId: RUN_ID,
    ...platform,
    ...(user && { user }),
    token: READ_ONLY_TOKEN,
    distDir: join(root, 'dist'),
    timeoutMs: 300_000,
  });

  // The install found the action. As head's own user (perfgate makes it wherever it makes the
  // boundary) it is refused every write; as the step's user it rewrote the files, which perfgate
  // then puts back.
  const asHeadUser = /head's code runs as perfgate-head /.test(run.stdout);
  t.diagnostic(`head's install ran as ${asHeadUser ? 'perfgate-head' : "the step's user"}`);
  const rewrote = JSON.parse(readFileSync(join(findings, 'rewrote.json'), 'utf8')) as { dist: string | null; done: string[] };
  assert.equal(rewrote.dist, join(root, 'dist'), describeRun(run));
  const attacked = ['preload.cjs', 'post.js', 'package.json'];
  assert.deepEqual(rewrote.done, asHeadUser ? attacked.map((f) => `${f}: EACCES`) : attacked, describeRun(run));

  // No service loaded the rewritten preload, and the 2× slower head fails.
  assert.deepEqual(
    readdirSync(findings).filter((f) => f.startsWith('preload-ran-')),
    [],
    'the services load the copy perfgate made before the install',
  );
  assert.equal(run.status, 1, describeRun(run));
  assert.equal(run.outputs.decision, 'fail', describeRun(run));
  assert.match(run.annotations('error').join('\n'), /performance regression/, describeRun(run));

  // Unchanged or put back; a change is said in the log and in results.json.
  assert.deepEqual(digests(root), before, "perfgate's files are the bundle's");
  assert.ok(!existsSync(join(root, 'dist', 'package.json')), 'no planted package.json');
  const results = JSON.parse(readFileSync(run.outputs['results-path']!, 'utf8')) as { warnings: { code: string; message: string }[] };
  const warning = results.warnings.find((w) => w.code === 'own-files-changed');
  if (asHeadUser) {
    assert.equal(warning, undefined, 'nothing to put back');
  } else {
    assert.match(run.annotations('warning').join('\n'), /A process of this run changed perfgate's own files in /, describeRun(run));
    assert.ok(warning, JSON.stringify(results.warnings));
    for (const file of ['dist/post.js', 'dist/preload.cjs', 'dist/package.json']) assert.ok(warning.message.includes(file), warning.message);
  }

  // The post step, run by the runner from the action's directory with the job's tokens again.
  const state = parseFileCommands(readFileSync(join(run.temp, 'state'), 'utf8'));
  const env: Record<string, string> = {
    PATH: process.env.PATH!,
    GITHUB_TOKEN: READ_ONLY_TOKEN,
    INPUT_GITHUB_TOKEN: READ_ONLY_TOKEN,
    ACTIONS_RUNTIME_TOKEN: platform.artifacts.runtimeToken(RUN_ID),
  };
  for (const [name, value] of Object.entries(state)) env[`STATE_${name}`] = value;
  const [program, ...prefix] = [...(user ? asUser(user) : []), NODE24];
  const post = spawnSync(program!, [...prefix, join(root, 'dist', 'post.js')], { env, encoding: 'utf8', timeout: 60_000 });
  assert.equal(post.status, 0, `${post.stdout}\n${post.stderr}`);
  assert.ok(!existsSync(join(findings, 'post-env.json')), "the post step ran perfgate's post.js, not the PR's");
});
