// lane: beside — its verdicts come from tenfold changes or A/A at alpha 0.001; it tests what the action does with them.
/**
 * Shards over a matrix, end to end through the bundled action (dist/, run under Node 24 the way
 * the runner runs it) against the local GitHub API and the results service backed by Azurite:
 * three gate jobs with shard: i/3 on one workflow run, then the merge
 * job. The refusals (a missing shard, a mismatched commit, a forged shard) use fabricated shard
 * artifacts: the merge only reads data, so no load is needed to test them.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { pullRequestEvent } from '../helpers/github-events.js';
import { BASE_SHA, cleanPairs, headShaFor, recordedResults, regressedPairs } from '../helpers/github-runs.js';
import { describeRun, PASSING_INPUTS, READ_ONLY_TOKEN, runAction, useFakePlatform, WRITE_TOKEN } from '../helpers/github-runner.js';
import { baseSha, headSha, IDENTICAL_CODE_ALPHA, makeRepo } from '../helpers/repo.js';
import { resultsFromPairs } from '../helpers/results.js';
import type { Results } from '../../src/results/types.js';
import type { FakeJob } from '../helpers/github-api.js';

const platform = useFakePlatform();

const MARKER = '<!-- perfgate:comment id=default -->';
const comments = (issue: number) => (platform.github.comments.get(issue) ?? []).filter((c) => c.body.startsWith(MARKER));

function merge(runId: number, event: object) {
  return runAction({ eventName: 'pull_request', event, inputs: { mode: 'merge' }, runId, ...platform, token: WRITE_TOKEN });
}

test('three shards and the merge: each shard measures its own scenario, one comment and one decision', async () => {
  const scenarios = ['GET /work', 'GET /work?shard=b', 'GET /work?shard=c'];
  const config = `${IDENTICAL_CODE_ALPHA}profile: false\nscenarios:\n${scenarios.map((s) => `  - "${s}"\n`).join('')}`;
  const repo = makeRepo({ 'server.js': { copy: 'services/work-server.js' }, 'work.json': '{"iterations": 20000}', 'perfgate.yml': config }, {});
  const event = pullRequestEvent({ number: 31, baseSha: baseSha(repo), headSha: headSha(repo) });
  // Identical code at alpha 0.001/3 passes whatever is measured, and the test is about the
  // plumbing of three jobs and the merge.
  const { scenarios: _, ...inputs } = PASSING_INPUTS;
  const runId = 8100;
  // The matrix: on GitHub its jobs run side by side on their own runners; here one after the other.
  for (const index of [1, 2, 3]) {
    const shard = await runAction({ eventName: 'pull_request', event, inputs: { ...inputs, shard: `${index}/3` }, workspace: repo, runId, ...platform, token: READ_ONLY_TOKEN });
    assert.equal(shard.status, 0, describeRun(shard));
    assert.equal(shard.outputs.decision, 'pass', describeRun(shard));
  }
  const names = platform.artifacts.artifactsOf(runId).map((a) => a.name).sort();
  assert.deepEqual(names.filter((n) => n.includes('shard')), ['perfgate-default-shard1of3', 'perfgate-default-shard2of3', 'perfgate-default-shard3of3']);
  assert.equal(comments(31).length, 0, 'no shard comments: the merge posts the one comment');

  const merged = await merge(runId, event);
  assert.equal(merged.status, 0, describeRun(merged));
  assert.equal(merged.outputs.decision, 'pass');
  assert.equal(merged.outputs['missing-shards'], '');
  const [comment] = comments(31);
  assert.ok(comment, describeRun(merged));
  assert.match(comment.body, /## perfgate: merge of 3 shards/);
  assert.match(comment.body, /✅ \*\*pass\*\*: every shard passed/);
  assert.match(comment.body, /alpha 0\.001\/3/);
  // Dealt round-robin in config order: shard i measured scenario i, and only it.
  for (const [i, s] of scenarios.entries()) assert.match(comment.body, new RegExp(`\\| ${i + 1}/3 \\| ${s.replace(/[/?]/g, '\\$&')} \\|`));
  // Base's perfgate.yml is head's: each shard compared its part with base's same part.
  assert.doesNotMatch(comment.body, /changes perfgate's configuration/);
  assert.equal(comments(31).length, 1);
});

/** A shard's results as a shard job of run `runId` writes them (no load: fabricated pairs). */
function shardResults(index: number, runId: number, pullRequest: number, pairs = cleanPairs()): Results {
  const results = recordedResults({ runId, pullRequest, headSha: headShaFor(pullRequest), results: resultsFromPairs(pairs, { alpha: 0.01 / 3 }) });
  results.seed = 77;
  results.shard = { index, count: 3, familyAlpha: 0.01, fullConfigHash: 'e'.repeat(64), scenarios: [`GET /s${index}`], benchmarks: null, gatedMetrics: 6 };
  return results;
}

async function stageShards(runId: number, pullRequest: number, shards: Results[]) {
  platform.github.pulls.push({ number: pullRequest, state: 'open', headSha: headShaFor(pullRequest), headRef: 'feature', headRepo: 'acme/shop' });
  for (const results of shards) {
    await platform.artifacts.upload(runId, `perfgate-default-shard${results.shard!.index}of3`, { 'results.json': JSON.stringify(results, null, 2), 'report.md': '# report\n' });
  }
  return pullRequestEvent({ number: pullRequest, baseSha: BASE_SHA, headSha: headShaFor(pullRequest) });
}

describe('the merge refuses what is not one complete matrix', () => {
  test('a missing shard is reported as missing and never passes', async () => {
    const event = await stageShards(8200, 32, [shardResults(1, 8200, 32), shardResults(3, 8200, 32)]);
    const run = await merge(8200, event);
    assert.equal(run.status, 1, describeRun(run));
    assert.equal(run.outputs.decision, 'fail');
    assert.equal(run.outputs['missing-shards'], '2');
    assert.ok(run.annotations('error').some((e) => /shard 2\/3 missing: the merge cannot pass without every shard/.test(e)), describeRun(run));
    const [comment] = comments(32);
    assert.match(comment!.body, /not complete\*\*: shard 2\/3 missing/);
    assert.match(comment!.body, /\| 2\/3 \| — \| — \| ⚠️ missing: no artifact perfgate-default-shard2of3/);
  });

  test('a regression in one shard fails the merge, naming the shard', async () => {
    const event = await stageShards(8300, 33, [shardResults(1, 8300, 33), shardResults(2, 8300, 33, regressedPairs()), shardResults(3, 8300, 33)]);
    platform.github.jobs.set(8300, [{ name: 'perf (2/3)', conclusion: 'failure', steps: [{ name: 'Run perfgate', conclusion: 'failure' }] }]);
    const run = await merge(8300, event);
    assert.equal(run.status, 1, describeRun(run));
    assert.equal(run.outputs.decision, 'fail');
    assert.ok(run.annotations('error').some((e) => /performance regression in shard 2\/3/.test(e)), describeRun(run));
  });

  test('a shard of another base commit is refused, naming it; nothing is posted', async () => {
    const other = shardResults(2, 8400, 34);
    other.sides.base.sha = 'c'.repeat(40);
    const event = await stageShards(8400, 34, [shardResults(1, 8400, 34), other, shardResults(3, 8400, 34)]);
    const run = await merge(8400, event);
    assert.equal(run.status, 1, describeRun(run));
    assert.ok(
      run.annotations('error').some((e) => /Refusing to merge: the shards are not one matrix \(shard 2\/3 has base commit "c{40}", shard 1\/3 has "a{40}"\)/.test(e)),
      describeRun(run),
    );
    assert.equal(comments(34).length, 0);
  });

  test('a forged shard is refused: another run in its record, or "pass" where GitHub records a failed step', async () => {
    const forged = shardResults(3, 8500, 35);
    forged.github!.runId = '1';
    const event = await stageShards(8500, 35, [shardResults(1, 8500, 35), shardResults(2, 8500, 35), forged]);
    const run = await merge(8500, event);
    assert.equal(run.status, 1, describeRun(run));
    assert.ok(run.annotations('error').some((e) => /does not come from the run it was downloaded from \(run id: the artifact says "1"/.test(e)), describeRun(run));
    assert.equal(comments(35).length, 0);

    // The workflow is the PR's own: it names its steps and can cancel its jobs.
    const contradictions: [number, number, FakeJob[]][] = [
      [8600, 36, [{ name: 'perf (1/3)', conclusion: 'failure', steps: [{ name: 'Run perfgate', conclusion: 'failure' }] }]],
      [8601, 37, [{ name: 'perf (1/3)', conclusion: 'failure', steps: [{ name: 'Measure performance', conclusion: 'failure' }] }]],
      [8602, 38, [{ name: 'perf (2/3)', conclusion: 'cancelled', steps: [{ name: 'Measure performance', conclusion: null }] }]],
    ];
    for (const [runId, pr, jobs] of contradictions) {
      const replaced = await stageShards(runId, pr, [1, 2, 3].map((i) => shardResults(i, runId, pr)));
      platform.github.jobs.set(runId, jobs);
      const second = await merge(runId, replaced);
      assert.equal(second.status, 1, describeRun(second));
      assert.ok(second.annotations('error').some((e) => /it says the gate passed, but GitHub records failed or cancelled steps in that run/.test(e)), describeRun(second));
      assert.equal(comments(pr).length, 0);
    }
  });

  test("the merged comment says so when the shards ran under the pull request's own workflow", async () => {
    platform.github.pullFiles.set(39, ['.github/workflows/perf-shards.yml']);
    const event = await stageShards(8700, 39, [1, 2, 3].map((i) => shardResults(i, 8700, 39)));
    const run = await merge(8700, event);
    assert.equal(run.status, 0, describeRun(run));
    assert.match(comments(39)[0]!.body, /ran under the pull request's own workflow: it changes \.github\/workflows\/perf-shards\.yml/);
  });
});
