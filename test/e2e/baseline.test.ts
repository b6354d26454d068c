// lane: beside — its verdicts come from tenfold changes or A/A at alpha 0.001; it tests what the action does with them.
// The stored baseline end to end through the bundled action (dist/): mode: record on a push
// stores the base commit's record as an artifact; a pull request with baseline: stored finds it
// through the artifacts API, measures head alone and fails on head's tenfold work; and the
// refusals a user meets (no record, a record a pull request's run uploaded, another runner image).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { readZip } from '../helpers/artifact-zip.js';
import { pullRequestEvent, pushEvent } from '../helpers/github-events.js';
import { describeRun, QUICK_INPUTS, READ_ONLY_TOKEN, runAction, useFakePlatform } from '../helpers/github-runner.js';
import { baseSha, headSha, makeRepo } from '../helpers/repo.js';

const platform = useFakePlatform();
// Every start pair in one block: both runs measure the same schedule of 24 starts.
const inputs = { ...QUICK_INPUTS, profile: 'false' };

function checkout(repo: string, sha: string): void {
  execFileSync('git', ['-C', repo, 'checkout', '--quiet', '--detach', sha]);
}

/** A pull request's measuring job with baseline: stored and a read-only token, as perf-baseline.yml runs it. */
function storedBaselineRun(repo: string, pr: { number: number; base: string; head: string }, runId: number, env: Record<string, string> = {}) {
  return runAction({
    eventName: 'pull_request',
    event: pullRequestEvent({ number: pr.number, baseSha: pr.base, headSha: pr.head }),
    inputs: { ...inputs, baseline: 'stored' },
    workspace: repo,
    runId,
    token: READ_ONLY_TOKEN,
    env,
    ...platform,
  });
}

test('record on a push, then baseline: stored on a pull request: the record is found by sha, head is measured alone and fails unpaired', async (t) => {
  // A fiftyfold slowdown: the record and the pull request's run are measured minutes apart, and
  // a neighbour's load in one of them moves their offset by several times (a tenfold one measured
  // −53% beside a loaded test, too close to the record's starts for the unpaired test).
  const repo = makeRepo({ 'server.js': { copy: 'services/work-server.js' }, 'work.json': '{"iterations": 20000}' }, { 'work.json': '{"iterations": 1000000}' });
  const [base, head] = [baseSha(repo), headSha(repo)];

  // main's push run records base.
  checkout(repo, base);
  platform.github.runs.set(5001, { event: 'push', headSha: base, headBranch: 'main', headRepo: 'acme/shop' });
  const record = await runAction({ eventName: 'push', event: pushEvent('0'.repeat(40), base), inputs: { ...inputs, mode: 'record' }, workspace: repo, runId: 5001, ...platform });
  assert.equal(record.status, 0, describeRun(record));
  const name = `perfgate-record-default-${base}`;
  assert.equal(record.outputs['record-artifact'], name);
  assert.match(record.summary, new RegExp(`## perfgate: recorded ${base.slice(0, 7)}`));
  const stored = platform.artifacts.artifactsOf(5001).find((a) => a.name === name);
  assert.ok(stored, platform.artifacts.artifactsOf(5001).map((a) => a.name).join(', '));
  const recorded = JSON.parse(readZip((await platform.artifacts.readBlob(stored)).bytes).get('results.json')!.toString('utf8'));
  assert.equal(recorded.sides.base.sha, base);
  assert.equal(recorded.sides.head.sha, base, 'both sides measured the pushed commit');
  assert.equal(recorded.github.event, 'push');
  for (const field of ['cpuModel', 'cpus', 'kernel', 'nodeVersion', 'v8Version', 'configHash']) assert.ok(recorded.environment[field], `the record carries ${field}`);

  // A pull request's run uploads an artifact under the record's name: it is skipped, and said so.
  platform.github.runs.set(5002, { event: 'pull_request', headSha: head, headBranch: 'feature', headRepo: 'acme/shop' });
  await platform.artifacts.upload(5002, name, { 'results.json': JSON.stringify({ ...recorded, startedAt: new Date().toISOString() }) });

  checkout(repo, head);
  const pr = await storedBaselineRun(repo, { number: 9, base, head }, 5003);
  assert.equal(pr.status, 1, describeRun(pr));
  assert.ok(pr.annotations('warning').some((w) => /ignoring the artifact perfgate-record-default-\w+ \(id \d+\): run 5002 was triggered by pull_request/.test(w)), describeRun(pr));
  assert.ok(pr.annotations('error').some((e) => /^perfgate: performance regression: throughput of GET \/work/.test(e)), describeRun(pr));
  assert.match(pr.summary, new RegExp(`Compared with a stored baseline of ${base.slice(0, 7)} from run 5001 \\(\\d{4}-\\d\\d-\\d\\d\\), measured in another run`));
  const results = JSON.parse(readFileSync(pr.outputs['results-path']!, 'utf8'));
  assert.equal(results.baseline.runId, '5001');
  assert.equal(results.baseline.sha, base);
  assert.equal(results.sides.base.sha, results.sides.head.sha, 'head alone was measured');
  const lookups = platform.github.requests.filter((r) => r.path === '/repos/acme/shop/actions/artifacts');
  assert.deepEqual(lookups.map((r) => r.query.name), [name], 'one lookup by the record\'s name');
  t.diagnostic(pr.summary.split('\n').slice(0, 12).join('\n'));

  // Another runner image: refused before anything is measured, naming the field and both values.
  const otherImage = await storedBaselineRun(repo, { number: 9, base, head }, 5004, { ImageOS: 'ubuntu24', ImageVersion: '20261127.1' });
  assert.equal(otherImage.status, 1);
  assert.ok(
    otherImage.annotations('error').some((e) => /Refusing the stored baseline .*OS image: the record has "[^"]*", this run "ubuntu24 20261127\.1"/.test(e)),
    describeRun(otherImage),
  );
  assert.doesNotMatch(otherImage.stdout, /measured GET \/work/, 'nothing was measured');
});

test('baseline: stored refuses without a record (naming the sha and how to make one) and when only a pull request uploaded one', async () => {
  const repo = makeRepo({ 'server.js': { copy: 'services/work-server.js' }, 'work.json': '{"iterations": 20000}' }, { 'work.json': '{"iterations": 20001}' });
  const [base, head] = [baseSha(repo), headSha(repo)];
  const run = () => storedBaselineRun(repo, { number: 11, base, head }, 5101);
  const none = await run();
  assert.equal(none.status, 1);
  assert.ok(
    none.annotations('error').some((e) => e.includes(`No record of ${base} (the base of pull request #11, on main): no artifact named perfgate-record-default-${base}`) && /mode: record/.test(e)),
    describeRun(none),
  );

  platform.github.runs.set(5102, { event: 'pull_request', headSha: head, headBranch: 'feature', headRepo: 'acme/shop' });
  await platform.artifacts.upload(5102, `perfgate-record-default-${base}`, { 'results.json': '{}' });
  const forged = await run();
  assert.equal(forged.status, 1);
  assert.ok(
    forged.annotations('error').some((e) => new RegExp(`Refusing every artifact named perfgate-record-default-${base}: run 5102 was triggered by pull_request`).test(e)),
    describeRun(forged),
  );
});

test('mode: record refuses a pull_request event: a pull request\'s code must not write the baseline', async () => {
  const repo = makeRepo({ 'server.js': { copy: 'services/work-server.js' }, 'work.json': '{"iterations": 1}' }, {});
  const run = await runAction({
    eventName: 'pull_request',
    event: pullRequestEvent({ number: 12, baseSha: baseSha(repo), headSha: headSha(repo) }),
    inputs: { ...inputs, mode: 'record' },
    workspace: repo,
    runId: 5201,
    ...platform,
  });
  assert.equal(run.status, 1);
  assert.ok(run.annotations('error').some((e) => /mode: record runs on push, workflow_dispatch, schedule events, not on "pull_request"/.test(e)), describeRun(run));
  assert.deepEqual(platform.artifacts.artifactsOf(5201), []);
});
