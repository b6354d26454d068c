// lane: beside — its verdicts come from tenfold changes or A/A at alpha 0.001; it tests what the action does with them.
/**
 * The fork-safe pair, end to end through the bundle: a pull request from a fork is measured
 * with a read-only token (gate mode: summary, outputs, artifacts, no comment), then a
 * workflow_run workflow in report mode downloads the results artifact (toolkit → local API →
 * Azurite), checks it against GitHub's record of the run and comments on the right PR.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { test } from 'node:test';
import { readZip } from '../helpers/artifact-zip.js';
import { pullRequestEvent, workflowRunEvent } from '../helpers/github-events.js';
import { stageMeasuredRun } from '../helpers/github-runs.js';
import { describeRun, READ_ONLY_TOKEN, REGRESSION_INPUTS as inputs, runAction, useFakePlatform, WRITE_TOKEN } from '../helpers/github-runner.js';
import { baseSha, headSha, makeRepo } from '../helpers/repo.js';

const MARKER = '<!-- perfgate:comment id=default -->';
const ACCEPT = 'perf-regression-accepted';

const platform = useFakePlatform();

test('a fork PR: measured read-only, accepted by its label, commented on by the report workflow on the right PR', async () => {
  const repo = makeRepo(
    // Profiles for the flamegraph artifacts; the culprit's revert arm is test/e2e/action.test.ts's.
    { 'server.js': { copy: 'services/work-server.js' }, 'work.json': '{"iterations": 20000}', 'perfgate.yml': 'profile: { duration: 1s, confirm: false }\n' },
    { 'work.json': '{"iterations": 200000}' },
  );
  const head = headSha(repo);
  // PR 21 from mallory's fork carries the accept label; PR 22, from another fork with the same
  // branch name, must not get the comment.
  platform.github.pulls.push(
    { number: 21, state: 'open', headSha: head, headRef: 'faster', headRepo: 'mallory/shop' },
    { number: 22, state: 'open', headSha: 'e'.repeat(40), headRef: 'faster', headRepo: 'eve/shop' },
  );
  platform.github.labels.set(21, ['needs-review', ACCEPT]);

  const measure = await runAction({
    eventName: 'pull_request',
    // The label as the event lists it: gate mode decides on the event's labels only, fixed before the PR's code ran.
    event: pullRequestEvent({ number: 21, baseSha: baseSha(repo), headSha: head, headRef: 'faster', headRepo: 'mallory/shop', labels: ['needs-review', ACCEPT] }),
    inputs,
    workspace: repo,
    runId: 8001,
    ...platform,
    token: READ_ONLY_TOKEN,
  });
  assert.equal(measure.status, 0, `the accept label turns the failure into a pass\n${describeRun(measure)}`);
  assert.equal(measure.outputs.decision, 'pass');
  assert.ok(Number(measure.outputs.regressions) >= 1, 'the regression is still counted');
  assert.ok(measure.annotations('warning').some((w) => w.includes(`accepted by the label "${ACCEPT}"`)), describeRun(measure));
  assert.ok(measure.annotations('notice').some((n) => /comes from a fork.*mode: report/.test(n)), describeRun(measure));
  assert.match(measure.summary, /⚠️ accepted by label \*\*perf-regression-accepted\*\*/);
  // Its only write requests are the guard's probes, which cannot create anything and are refused.
  assert.deepEqual(
    platform.github.writes().map((r) => `${r.method} ${r.path} ${r.status}`),
    ['POST /repos/acme/shop/git/refs 403', 'POST /repos/acme/shop/pulls 403', 'POST /repos/acme/shop/issues 403'],
    'the measuring run writes nothing to GitHub',
  );
  assert.ok(platform.github.requests.every((r) => r.token === READ_ONLY_TOKEN));
  const uploaded = platform.artifacts.artifactsOf(8001);
  const results = uploaded.find((a) => a.name === 'perfgate-default')!;
  assert.ok(results, 'the results artifact is uploaded even from a fork');
  const flamegraphs = uploaded.filter((a) => a.name.endsWith('.html'));
  assert.equal(flamegraphs.length, 3, 'head, base and differential flamegraphs, each un-zipped');
  // The step outputs the sha256 of the results.json it uploaded, from what it held in memory.
  const uploadedResults = readZip((await platform.artifacts.readBlob(results)).bytes).get('results.json')!;
  assert.equal(measure.outputs['results-digest'], `sha256:${createHash('sha256').update(uploadedResults).digest('hex')}`);

  const from = platform.github.requests.length;
  const report = await runAction({
    eventName: 'workflow_run',
    event: workflowRunEvent({ runId: 8001, event: 'pull_request', headSha: head, headBranch: 'faster', headRepo: 'mallory/shop' }),
    inputs: { mode: 'report' },
    runId: 8101,
    ...platform,
    token: WRITE_TOKEN,
  });
  assert.equal(report.status, 0, describeRun(report));
  const requests = platform.github.requests.slice(from);
  assert.ok(
    requests.some((r) => r.path === '/repos/acme/shop/pulls' && r.query.head === 'mallory:faster'),
    'a fork run lists no pull request: found by head owner and branch',
  );
  assert.ok(requests.some((r) => r.path === `/repos/acme/shop/actions/artifacts/${results.id}/zip`), 'downloaded through the API redirect');
  assert.deepEqual(
    requests.filter((r) => r.method !== 'GET').map((r) => `${r.method} ${r.path}`),
    ['POST /repos/acme/shop/issues/21/comments'],
    'one comment, on PR 21',
  );
  const [comment] = platform.github.comments.get(21)!;
  assert.ok(comment!.body.startsWith(MARKER));
  assert.match(comment!.body, /> ⚠️ \*\*Regression accepted\.\*\* The label \*\*perf-regression-accepted\*\* is on this pull request/);
  assert.ok(comment!.body.includes(`(https://github.com/acme/shop/actions/runs/8001/artifacts/${results.id})`), 'links the measuring run');
  const url = (name: string) => `https://github.com/acme/shop/actions/runs/8001/artifacts/${flamegraphs.find((a) => a.name.endsWith(name))!.id}`;
  assert.ok(
    comment!.body.includes(`Flamegraphs: [head](${url('-head.html')}) · [base](${url('-base.html')}) · [differential](${url('-diff.html')})`),
    'the flamegraphs of the measuring run are linked where results.json names them',
  );
  assert.equal(platform.github.comments.get(22), undefined);
  assert.equal(report.outputs.decision, 'pass');
  assert.equal(report.outputs['comment-url'], comment!.html_url);
});

test('report mode refuses an artifact whose record does not match the workflow_run (no comment anywhere)', async () => {
  const head = 'f'.repeat(40);
  platform.github.pulls.push({ number: 31, state: 'open', headSha: head, headRef: 'sneaky', headRepo: 'mallory/shop' });
  platform.github.pulls.push({ number: 32, state: 'open', headSha: 'd'.repeat(40), headRef: 'main-work', headRepo: 'acme/shop' });
  const forged = [
    { runId: 8201, record: { pullRequest: 32 }, says: /pull request: the artifact says 32, GitHub lists #31/ },
    { runId: 8202, record: { headSha: 'd'.repeat(40) }, says: /head commit: the artifact says "d{40}", the workflow_run event says "f{40}"/ },
    { runId: 8203, record: { runId: '1' }, says: /run id: the artifact says "1", the workflow_run event says "8203"/ },
    { runId: 8204, record: { repository: 'mallory/shop' }, says: /repository: the artifact says "mallory\/shop"/ },
  ];
  for (const { runId, record, says } of forged) {
    const staged = await stageMeasuredRun(platform, { runId, pullRequest: 31, headSha: head, headRepo: 'mallory/shop', headBranch: 'sneaky', record });
    const from = platform.github.requests.length;
    const run = await runAction({ eventName: 'workflow_run', event: staged.event, inputs: { mode: 'report' }, runId: 8300, ...platform });
    assert.equal(run.status, 1, describeRun(run));
    const error = run.annotations('error').join('\n');
    assert.match(error, /Refusing to report the results artifact of run \d+/);
    assert.match(error, says);
    assert.deepEqual(platform.github.requests.slice(from).filter((r) => r.method !== 'GET'), [], 'nothing posted');
  }
  assert.equal(platform.github.comments.get(31), undefined);
  assert.equal(platform.github.comments.get(32), undefined);
});
