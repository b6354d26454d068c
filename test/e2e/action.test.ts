// lane: beside — its verdicts come from tenfold changes or A/A at alpha 0.001; it tests what the action does with them.
import assert from 'node:assert/strict';
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { readZip } from '../helpers/artifact-zip.js';
import { pullRequestEvent, pushEvent } from '../helpers/github-events.js';
import { findMarked } from '../../src/engine/process/processes.js';
import { describeRun, NODE24, PASSING_INPUTS, parseFileCommands, QUICK_INPUTS as inputs, REGRESSION_INPUTS, runAction, useFakePlatform } from '../helpers/github-runner.js';
import { processesIn } from '../helpers/processes.js';
import { baseSha, headSha, IDENTICAL_CODE_ALPHA, makeRepo, ROOT } from '../helpers/repo.js';

const TOKEN = 'ghs_writeToken';

const platform = useFakePlatform();

/** The work server with a comment added inside spin: the same code, edited by the pull request. */
const SPIN_EDITED = readFileSync(join(ROOT, 'test/fixtures/services/work-server.js'), 'utf8').replace(
  '  let x = 0;\n',
  '  // the same loop; work.json says how long\n  let x = 0;\n',
);

test('dist/index.js under Node 24 on a pull_request: a failed step, the comment, the summary, outputs and artifacts', async (t) => {
  assert.match(spawnSync(NODE24, ['--version'], { encoding: 'utf8' }).stdout, /^v24\./);
  // Head does ten times the work. Three times measured -32..-44% per start pair here, but a CI
  // run on a noisy moment of this machine saw start pairs from -52% to +9%: the drop was real,
  // not significant at the run's level, the step passed, and this test failed. The plumbing is
  // the point of this test, not the gate's sensitivity (docs/calibration.md measures that).
  // So the run measures what failing on the tenfold drop (-74 to -83% here) takes, no more: one
  // pair on each of 9 start pairs in 100 ms slices (REGRESSION_INPUTS). So does the revert arm:
  // the revert gives back about none of the drop, and "explains little" only needs its interval
  // to stay below half of it.
  const repo = makeRepo(
    // A short profile: its flamegraphs are HTML reports the action uploads un-zipped.
    { 'server.js': { copy: 'services/work-server.js' }, 'work.json': '{"iterations": 20000}', 'perfgate.yml': 'profile: { duration: 1s }\n' },
    // Head also edits spin (the function that does the work), so its culprit is in a file the PR changed.
    { 'work.json': '{"iterations": 200000}', 'server.js': SPIN_EDITED },
  );
  // An HTML report another part of perfgate wrote into the run directory (a flamegraph).
  const temp = mkdtempSync(join(tmpdir(), 'perfgate-runner-'));
  const outDir = join(temp, 'perfgate-4242-1');
  mkdirSync(outDir);
  const flamegraph = '<!doctype html><title>flamegraph</title><svg></svg>\n';
  writeFileSync(join(outDir, 'flamegraph-head.html'), flamegraph);

  // The single-job layout: the measuring job comments, so it holds a write token (opted in).
  const run = await runAction({
    eventName: 'pull_request',
    event: pullRequestEvent({ number: 7, baseSha: baseSha(repo), headSha: headSha(repo) }),
    inputs: { ...REGRESSION_INPUTS, 'allow-write-token': 'true' },
    workspace: repo,
    temp,
    runId: 4242,
    ...platform,
    token: TOKEN,
  });
  assert.equal(run.status, 1, describeRun(run));
  assert.ok(run.annotations('error').some((e) => /^perfgate: performance regression: throughput of GET \/work/.test(e)), describeRun(run));
  assert.ok(
    run.annotations('warning').some((w) => /allow-write-token is true, so the pull request's code runs although this step would comment/.test(w)),
    describeRun(run),
  );
  // The culprit, at its line in server.js (a path from the repository root), with the time it added.
  const culprit = run.stdout.split('\n').filter((line) => /^::warning [^:]*title=perfgate%3A most new time in GET \/work/.test(line));
  assert.equal(culprit.length, 1, describeRun(run));
  assert.match(culprit[0]!, /[ ,]file=server\.js,line=\d+[,:]/);
  // The culprit is tested by a revert: head's edit to spin is a comment, and the drop comes from
  // work.json, so taking the edit back gives back little, and the annotation says so.
  assert.ok(
    run
      .annotations('warning')
      .some((w) =>
        /^spin: \+[\d.]+ (µs|ms) CPU per request in head \(GET \/work throughput −[\d.]+%\); reverting this PR's change to spin gives back −?[\d.]+ of the [\d.]+ points \(95% CI −?[\d.]+ … −?[\d.]+\): spin explains little of this drop$/.test(w) ||
        /^arrow at top level: \+[\d.]+ (µs|ms) CPU per request in head \(GET \/work throughput −[\d.]+%\); not tested by a revert: this PR changed no line of /.test(w),
      ),
    describeRun(run),
  );

  const summary = run.summary;
  assert.match(summary, /## perfgate/);
  assert.match(summary, /regression/);
  // The base branch and commit, the short sha a link to the commit on the server the run is on.
  const commitLink = (sha: string) => `[${sha.slice(0, 7)}](https://github.com/acme/shop/commit/${sha})`;
  assert.ok(summary.includes(`main@\u200d${commitLink(baseSha(repo))}`), 'the summary names the base branch and links its commit');
  assert.equal(run.outputs.decision, 'fail');
  assert.ok(Number(run.outputs.regressions) >= 1);
  const resultsText = readFileSync(run.outputs['results-path']!, 'utf8');
  const results = JSON.parse(resultsText);
  assert.equal(results.sides.base.sha, baseSha(repo), 'base = pull_request.base.sha');
  assert.equal(results.status, 'complete');
  assert.deepEqual(results.github, {
    repository: 'acme/shop',
    pullRequest: 7,
    headSha: headSha(repo),
    baseSha: baseSha(repo),
    runId: '4242',
    event: 'pull_request',
  });
  assert.equal(readFileSync(run.outputs['report-path']!, 'utf8'), summary, 'report file = job summary');
  assert.equal(resultsText.includes(TOKEN), false, 'the token is not in results.json');

  // Artifacts: read back from Azurite, byte for byte what was uploaded.
  const stored = platform.artifacts.artifactsOf(4242);
  const names = stored.map((a) => a.name);
  assert.ok(names.includes('perfgate-default') && names.includes('perfgate-default-flamegraph-head.html'), names.join(', '));
  // Every HTML report of the run (ours, and the flamegraphs profiling renders) as a single un-zipped file.
  for (const html of stored.filter((a) => a.name.endsWith('.html'))) {
    const blob = await platform.artifacts.readBlob(html);
    assert.deepEqual(blob.bytes, readFileSync(join(outDir, 'artifacts', html.name)), `${html.name}: the bytes uploaded`);
    assert.equal(blob.contentType, 'text/html', 'served as HTML, so its link opens it in the browser');
  }
  const ours = stored.find((a) => a.name === 'perfgate-default-flamegraph-head.html')!;
  assert.equal((await platform.artifacts.readBlob(ours)).bytes.toString('utf8'), flamegraph);
  const zip = stored.find((a) => a.name === 'perfgate-default')!;
  const zipBlob = await platform.artifacts.readBlob(zip);
  assert.equal(zip.digest, `sha256:${createHash('sha256').update(zipBlob.bytes).digest('hex')}`, 'the digest recorded at finalize');
  const files = readZip(zipBlob.bytes);
  assert.deepEqual([...files.keys()].sort(), ['report.md', 'results.json']);
  assert.equal(files.get('results.json')!.toString('utf8'), resultsText);
  assert.equal(
    files.get('report.md')!.toString('utf8'),
    readFileSync(join(outDir, 'artifacts', 'perfgate-default', 'report.md'), 'utf8'),
    'the report uploaded is the staged file',
  );
  assert.match(files.get('report.md')!.toString('utf8'), /## perfgate: .*❌ failing/);

  // The comment: created once, linking every artifact of the run.
  const comments = platform.github.comments.get(7) ?? [];
  assert.equal(comments.length, 1);
  const body = comments[0]!.body;
  assert.ok(body.startsWith('<!-- perfgate:comment id=default -->\n## perfgate: '), body.slice(0, 200));
  assert.equal(body.slice(body.indexOf('\n') + 1), summary, 'the comment is the summary behind its marker');
  for (const artifact of stored) {
    assert.ok(body.includes(`(https://github.com/acme/shop/actions/runs/4242/artifacts/${artifact.id})`), `links ${artifact.name}`);
  }
  assert.ok(body.includes(` → head ${results.sides.head.ref}@\u200d${commitLink(results.sides.head.sha)}`), 'the head commit is a link');
  assert.match(results.sides.head.sha, /^[0-9a-f]{40}$/);
  assert.match(body, /\nIf this regression is intended, add the label \*\*perf-regression-accepted\*\* to the pull request/);
  assert.match(body, /· \[workflow run\]\(https:\/\/github\.com\/acme\/shop\/actions\/runs\/4242\)<\/sub>\n$/);
  assert.equal(run.outputs['comment-url'], comments[0]!.html_url);
  t.diagnostic(`comment body posted to the fake GitHub API:\n${body}`);
  assert.equal(run.outputs['results-artifact-url'], `https://github.com/acme/shop/actions/runs/4242/artifacts/${zip.id}`);
});

test('dist/index.js on a push: no pull request, so the job summary only (no GitHub API call), and a pass', async () => {
  const repo = makeRepo(
    { 'server.js': { copy: 'services/work-server.js' }, 'work.json': '{"iterations": 20000}', 'perfgate.yml': `profile: false\n${IDENTICAL_CODE_ALPHA}` },
    { 'NOTES.md': 'x' },
  );
  const from = platform.github.requests.length;
  const run = await runAction({
    eventName: 'push',
    event: pushEvent(baseSha(repo), headSha(repo)),
    inputs: PASSING_INPUTS,
    workspace: repo,
    runId: 4343,
    ...platform,
  });
  assert.equal(run.status, 0, describeRun(run));
  assert.equal(run.outputs.decision, 'pass');
  assert.match(run.summary, /## perfgate: ✅ passing/);
  assert.match(run.summary, /\n0 regressions · /);
  assert.deepEqual(platform.github.requests.slice(from), [], 'no request to the GitHub API');
  assert.equal(run.outputs['comment-url'], '');
  assert.deepEqual(platform.artifacts.artifactsOf(4343).map((a) => a.name), ['perfgate-default'], 'results uploaded on a push too');
  const results = JSON.parse(readFileSync(run.outputs['results-path']!, 'utf8'));
  assert.equal(results.github.event, 'push');
  assert.equal(results.github.pullRequest, null);
});

test('dist/index.js with a bad input fails the step with a message naming the input', async () => {
  const repo = makeRepo({ 'server.js': { copy: 'services/work-server.js' }, 'work.json': '{"iterations": 1}' }, {});
  for (const [name, value, message] of [
    ['fail-on-regression', 'maybe', /Input fail-on-regression is "maybe"; use true or false/],
    ['comment', 'sometimes', /Input comment is "sometimes"; use auto, always, on-change, on-regression or never/],
    ['id', 'a b', /Input id is "a b"/],
  ] as const) {
    const run = await runAction({
      eventName: 'pull_request',
      event: pullRequestEvent({ number: 7, baseSha: baseSha(repo), headSha: headSha(repo) }),
      inputs: { ...inputs, [name]: value },
      workspace: repo,
    });
    assert.equal(run.status, 1);
    assert.ok(run.annotations('error').some((e) => message.test(e)), describeRun(run));
  }
});

test('dist/index.js refuses pull_request_target: it would run the PR\'s code with a write token', async () => {
  const repo = makeRepo({ 'server.js': { copy: 'services/work-server.js' }, 'work.json': '{"iterations": 1}' }, {});
  const run = await runAction({
    eventName: 'pull_request_target',
    event: pullRequestEvent({ number: 7, baseSha: baseSha(repo), headSha: headSha(repo), headRepo: 'mallory/shop' }),
    inputs,
    workspace: repo,
  });
  assert.equal(run.status, 1);
  assert.ok(run.annotations('error').some((e) => /pull_request_target.*write token/.test(e)), describeRun(run));
});

test('dist/post.js kills a service process group a cancelled main step left behind', async () => {
  const temp = mkdtempSync(join(tmpdir(), 'perfgate-runner-'));
  const files = { state: join(temp, 'state') };
  writeFileSync(files.state, '');
  const orphan = spawn('sleep', ['60'], { detached: true, stdio: 'ignore' });
  const pidFile = join(temp, 'pids');
  writeFileSync(pidFile, String(orphan.pid));
  const exited = new Promise((resolve) => orphan.once('exit', resolve));
  const run = spawnSync(NODE24, [join(ROOT, 'dist', 'post.js')], {
    env: { PATH: process.env.PATH!, 'STATE_perfgate-pid-file': pidFile, GITHUB_STATE: files.state },
    encoding: 'utf8',
  });
  assert.equal(run.status, 0, run.stderr);
  assert.match(run.stdout, /the main step ended before it could clean up \(a cancelled job\); stopped 1 process, removed 0 worktrees/);
  await exited;
});

/** The worktrees registered in a repository besides its own checkout. */
function worktrees(repo: string): string[] {
  return execFileSync('git', ['worktree', 'list', '--porcelain'], { cwd: repo, encoding: 'utf8' })
    .split('\n')
    .filter((line) => line.startsWith('worktree '))
    .slice(1);
}

test("dist/post.js after a hard cancel: the main step killed with SIGKILL mid-run leaves its services, worktrees and head's home, and the post step removes them all", async (t) => {
  const repo = makeRepo({ 'server.js': { copy: 'services/work-server.js' }, 'work.json': '{"iterations": 20000}', 'perfgate.yml': 'profile: false\n' }, { 'NOTES.md': 'x' });
  const temp = mkdtempSync(join(tmpdir(), 'perfgate-runner-'));
  // Killed as a cancelled job's runner kills it once its grace is over: when every start of the
  // first block is up and the warm-up begins.
  const run = await runAction({ eventName: 'push', event: pushEvent(baseSha(repo), headSha(repo)), inputs: PASSING_INPUTS, workspace: repo, temp, runId: 4545, killWhen: /^warmup/m, ...platform });
  assert.equal(run.status, null, `the step was killed mid-run:\n${describeRun(run)}`);
  const state = parseFileCommands(readFileSync(join(temp, 'state'), 'utf8'));
  const outDir = state['perfgate-out-dir']!;
  const marker = state['perfgate-run-marker']!;
  const home = state['perfgate-head-home'];
  const left = findMarked(marker).length;
  assert.ok(left >= 2, 'the killed step left its services running');
  const registered = worktrees(repo).length;
  assert.equal(registered, 2, 'and its two worktrees registered');
  if (home) assert.ok(existsSync(home), "and head's home");

  const post = spawnSync(NODE24, [join(ROOT, 'dist', 'post.js')], {
    env: { PATH: process.env.PATH!, GITHUB_STATE: join(temp, 'post-state'), ...Object.fromEntries(Object.entries(state).map(([k, v]) => [`STATE_${k}`, v])) },
    encoding: 'utf8',
    timeout: 60_000,
  });
  assert.equal(post.status, 0, post.stderr);
  t.diagnostic(`killed main step left ${left} processes, ${registered} worktrees${home ? `, home ${home}` : ', no home (no separate user)'}; post step: ${post.stdout.trim()}`);
  const said = post.stdout.split('\n').filter((line) => line.startsWith('perfgate: '));
  assert.equal(said.length, 1, post.stdout);
  assert.match(said[0]!, /^perfgate: the main step ended before it could clean up \(a cancelled job\); stopped \d+ processes, removed 2 worktrees/);
  assert.deepEqual(findMarked(marker), [], 'no process of the run is left');
  assert.deepEqual(processesIn(temp), [], 'nothing runs in the run directory');
  assert.deepEqual(worktrees(repo), [], 'no worktree is left registered');
  for (const side of ['base', 'head']) assert.equal(existsSync(join(outDir, 'trees', side)), false, `the ${side} tree is gone`);
  if (home) {
    assert.equal(existsSync(home), false, "head's home is removed");
    assert.ok(said[0]!.includes(`head's home ${home}`), said[0]);
  }
});

test('dist/cli.js runs under Node 24 and Node 20', () => {
  for (const node of [NODE24, process.execPath]) {
    const run = spawnSync(node, [join(ROOT, 'dist', 'cli.js'), '--help'], { encoding: 'utf8' });
    assert.equal(run.status, 0, run.stderr);
    assert.match(run.stdout, /perfgate compare/);
  }
});
