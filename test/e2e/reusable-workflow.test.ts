// lane: beside — its verdicts come from tenfold changes or A/A at alpha 0.001; it tests what the action does with them.
/**
 * The reusable workflow (.github/workflows/gate.yml) run job by job as the runner would: each
 * job's `if:` decided on the caller's event, the perfgate steps' `with:` evaluated from the
 * call's inputs and the measure job's outputs, the bundled action run with each job's token
 * against the local GitHub API. measure holds a read-only token on the pull request's checkout;
 * comment holds the write token, in a directory with nothing checked out.
 */
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import type { FakeJob } from '../helpers/github-api.js';
import { pullRequestEvent } from '../helpers/github-events.js';
import { type ActionRun, describeRun, READ_ONLY_TOKEN, runAction, useFakePlatform, WRITE_TOKEN } from '../helpers/github-runner.js';
import { baseSha, headSha, makeRepo, quickConfig } from '../helpers/repo.js';
import { type Contexts, condition, interpolate } from '../helpers/workflow-expressions.js';
import { callContexts, type Job, readWorkflows, workflowCall } from '../helpers/workflows.js';

const gate = readWorkflows('.github/workflows').workflows['gate.yml']!;
const platform = useFakePlatform();
const RUN_ID = 9301;
const MARKER = '<!-- perfgate:comment id=default -->';

/**
 * Runs one job's steps: checkout and setup-node are what the test already prepared (the
 * workspace at head, Node 24), a step whose `if:` is false is skipped, perfgate runs from the
 * bundle. Any other step would be something this test does not know how to run: it fails.
 */
async function runJob(job: Job, contexts: Contexts, run: { workspace: string; token: string }): Promise<ActionRun> {
  let perfgate: ActionRun | null = null;
  for (const step of job.steps) {
    if (!condition(step.if, contexts)) continue;
    if (step.uses?.startsWith('actions/checkout') || step.uses?.startsWith('actions/setup-node')) continue;
    assert.ok(step.uses?.startsWith('perfgate/perfgate@'), `a step this test cannot run: ${JSON.stringify(step)}`);
    const inputs = Object.fromEntries(Object.entries(step.with ?? {}).map(([name, value]) => [name, interpolate(value, contexts)]));
    perfgate = await runAction({ eventName: 'pull_request', event: (contexts.github as { event: object }).event, inputs, runId: RUN_ID, ...platform, ...run });
    contexts.steps = { ...(contexts.steps as object), ...(step.id && { [step.id]: { outputs: perfgate.outputs } }) };
  }
  assert.ok(perfgate, 'the job runs perfgate');
  return perfgate;
}

const outputsOf = (outputs: Record<string, string> | undefined, contexts: Contexts) =>
  Object.fromEntries(Object.entries(outputs ?? {}).map(([name, value]) => [name, interpolate(value, contexts)]));

test('gate.yml called from a pull_request workflow: measure fails the regression read-only, comment posts it from the verified artifact', async () => {
  const repo = makeRepo(
    { 'server.js': { copy: 'services/work-server.js' }, 'work.json': '{"iterations": 20000}', 'perfgate.yml': quickConfig() },
    { 'work.json': '{"iterations": 200000}' },
  );
  const event = pullRequestEvent({ number: 51, baseSha: baseSha(repo), headSha: headSha(repo), action: 'synchronize' });
  platform.github.pulls.push({ number: 51, state: 'open', headSha: headSha(repo), headRef: 'feature', headRepo: 'acme/shop' });
  // The caller's `with:` as in the README's first workflow; start comes from perfgate.yml.
  const measureContexts = callContexts(gate, event, { scenarios: 'GET /work' });

  const measureJob = gate.jobs.measure!;
  assert.ok(condition(measureJob.if, measureContexts), 'measure runs on a push to the pull request');
  // permissions: contents: read — the token the runner gives that job cannot write.
  const measure = await runJob(measureJob, measureContexts, { workspace: repo, token: READ_ONLY_TOKEN });
  assert.equal(measure.status, 1, `a regression fails the measure job\n${describeRun(measure)}`);
  assert.equal(measure.outputs.decision, 'fail');
  assert.ok(platform.github.requests.every((r) => r.token === READ_ONLY_TOKEN), 'measure only ever used its read-only token');
  assert.deepEqual(platform.github.comments.get(51), undefined, 'measure posts no comment');
  const measureOutputs = outputsOf(measureJob.outputs, measureContexts);
  assert.match(measureOutputs['results-digest']!, /^sha256:[0-9a-f]{64}$/);

  // GitHub's record of the run: the measure job and its perfgate step failed.
  const failed: FakeJob = { name: 'perf / measure', conclusion: 'failure', steps: [{ name: 'Run perfgate/perfgate@v1', conclusion: 'failure' }] };
  platform.github.jobs.set(RUN_ID, [failed, { name: 'perf / comment', conclusion: null, steps: [] }]);
  const commentJob = gate.jobs.comment!;
  const commentContexts = callContexts(gate, event, { scenarios: 'GET /work' }, { measure: { result: 'failure', outputs: measureOutputs } });
  assert.ok(condition(commentJob.if, commentContexts, false), 'comment runs after a failed measure');
  const from = platform.github.requests.length;
  const nothingCheckedOut = mkdtempSync(join(tmpdir(), 'perfgate-comment-job-'));
  const comment = await runJob(commentJob, commentContexts, { workspace: nothingCheckedOut, token: WRITE_TOKEN });
  assert.equal(comment.status, 0, describeRun(comment));
  assert.equal(comment.outputs['results-digest'], measureOutputs['results-digest'], 'the artifact measure uploaded, digest checked');
  const writes = platform.github.requests.slice(from).filter((r) => r.method !== 'GET');
  assert.deepEqual(writes.map((r) => `${r.method} ${r.path}`), ['POST /repos/acme/shop/issues/51/comments']);
  const [posted] = platform.github.comments.get(51)!;
  assert.ok(posted!.body.startsWith(MARKER));
  assert.match(posted!.body, /❌ regression/);

  // What the caller reads from the call.
  const callOutputs = outputsOf(
    Object.fromEntries(Object.entries(workflowCall(gate).outputs).map(([name, output]) => [name, output.value])),
    { jobs: { measure: { outputs: measureOutputs } } },
  );
  assert.equal(callOutputs.decision, 'fail');
  // The regressed scenario's worst metric, whichever it is (throughput, a latency percentile…).
  assert.match(callOutputs['worst-change']!, /^GET \/work \S+ [-−+]\d.*\(regression\)$/);
});
