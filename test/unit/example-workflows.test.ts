import assert from 'node:assert/strict';
import { test } from 'node:test';
import { actionInputs, type Job, perfgateSteps, readWorkflows } from '../helpers/workflows.js';

const action = { inputs: actionInputs() };
const { texts, workflows } = readWorkflows('example-workflows');
const files = Object.keys(workflows);

const jobs = () => Object.entries(workflows).flatMap(([file, w]) => Object.entries(w.jobs).map(([name, job]) => ({ file, name, job })));
const writes = (job: Job) => Object.values(job.permissions ?? {}).includes('write');
const runsPrCode = (job: Job) => job.steps.some((s) => s.uses?.startsWith('actions/checkout'));

test('example workflows: the recommended pair (perf.yml + perf-comment.yml), a manual run, a service with PostgreSQL, the weekly history, a stored baseline, shards', () => {
  assert.deepEqual(files.sort(), ['perf-baseline.yml', 'perf-comment.yml', 'perf-history.yml', 'perf-manual.yml', 'perf-postgres.yml', 'perf-shards.yml', 'perf.yml']);
});

test('every perfgate step of the examples uses only inputs action.yml declares', () => {
  for (const { file, job } of jobs()) {
    for (const step of perfgateSteps(job)) {
      for (const input of Object.keys(step.with ?? {})) assert.ok(input in action.inputs, `${file}: unknown input ${input}`);
    }
  }
});

test('no job that runs PR code holds a write token or a persisted credential; no job with a write token runs PR code', () => {
  for (const { file, name, job } of jobs()) {
    assert.ok(job.permissions, `${file} ${name}: permissions are set per job`);
    if (runsPrCode(job)) {
      // Read the repository; a stored baseline also reads the record's artifact (read-only too).
      const stored = perfgateSteps(job).some((s) => s.with?.baseline === 'stored');
      assert.deepEqual(job.permissions, stored ? { contents: 'read', actions: 'read' } : { contents: 'read' }, `${file} ${name}`);
      const checkout = job.steps.find((s) => s.uses?.startsWith('actions/checkout'))!;
      assert.equal(checkout.with?.['persist-credentials'], false, `${file} ${name}: persist-credentials: false`);
      for (const step of perfgateSteps(job)) assert.ok(!["report", "merge"].includes(step.with?.mode as string), `${file} ${name}: a job that runs PR code only measures`);
    }
    if (writes(job)) {
      assert.ok(!runsPrCode(job), `${file} ${name}: no checkout next to a write token`);
      // No release exists to name by commit (the examples run as copied, and a made-up sha would
      // not run), so each action next to the write token says right above it how to pin it, in
      // the same words in every example.
      for (const step of job.steps.filter((s) => s.uses !== undefined)) {
        const uses = step.uses!.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
        assert.doesNotMatch(step.uses!, /@[0-9a-f]{40}$/, `${file} ${name}: no made-up commit sha`);
        assert.match(texts[file]!, new RegExp(`Pin this step by[^\\n]*\\n[^\\n]*perfgate/perfgate@<full commit sha> # v1\\n\\s+- uses: ${uses}\\n`), `${file} ${name}: ${step.uses} says how to pin it`);
      }
      // a job with a write token runs perfgate only to report or merge, or runs no action at all (gh alone)
      if (job.steps.some((s) => s.uses !== undefined)) assert.ok(['report', 'merge'].includes(perfgateSteps(job)[0]?.with?.mode as string), `${file} ${name}`);
    }
  }
  for (const [file, workflow] of Object.entries(workflows)) {
    assert.ok(!('pull_request_target' in workflow.on), file);
    assert.ok(workflow.permissions === undefined || Object.values(workflow.permissions).every((p) => p !== 'write'), `${file}: no write at workflow level`);
  }
});

test('concurrency at job level (an unrelated label never cancels a measurement), a timeout on every job', () => {
  for (const [file, workflow] of Object.entries(workflows)) assert.equal(workflow.concurrency, undefined, `${file}: no workflow-level concurrency`);
  for (const { file, name, job } of jobs()) {
    assert.ok(job.concurrency?.group, `${file} ${name}: concurrency`);
    assert.ok(Number.isInteger(job['timeout-minutes']), `${file} ${name}: timeout-minutes`);
  }
});

test('the recommended layout: same-repository PRs commented from perf.yml, forks from perf-comment.yml', () => {
  const perf = workflows['perf.yml']!;
  const comment = workflows['perf-comment.yml']!;
  assert.equal(perfgateSteps(perf.jobs.measure!)[0]!.with?.comment, 'never');
  assert.equal(perf.jobs.comment!.needs, 'measure');
  assert.match(perf.jobs.comment!.if!, /github\.event\.pull_request\.head\.repo\.full_name == github\.repository/);
  assert.deepEqual((comment.on.workflow_run as { workflows: string[] }).workflows, [perf.name]);
  assert.match(comment.jobs.comment!.if!, /github\.event\.workflow_run\.head_repository\.full_name != github\.repository/);
});

test('shards: a matrix of three gate jobs with shard i/3, and a merge job that needs it and runs even when a shard failed', () => {
  const shards = workflows['perf-shards.yml']!;
  const measure = shards.jobs.measure! as Job & { strategy: { 'fail-fast': boolean; matrix: { shard: string[] } } };
  assert.deepEqual(measure.strategy.matrix.shard, ['1/3', '2/3', '3/3']);
  assert.equal(measure.strategy['fail-fast'], false);
  assert.match(String(perfgateSteps(measure)[0]!.with?.shard), /^\$\{\{ matrix\.shard \}\}$/);
  assert.equal(shards.jobs.merge!.needs, 'measure');
  assert.match(shards.jobs.merge!.if!, /^always\(\)/);
  assert.equal(perfgateSteps(shards.jobs.merge!)[0]!.with?.mode, 'merge');
});

test('the weekly history: reads perf runs on main with a read token, and the job that may write issues runs no action and no repository code', () => {
  const history = workflows['perf-history.yml']!;
  assert.ok('schedule' in history.on);
  assert.deepEqual(history.jobs.history!.permissions, { actions: 'read' });
  assert.deepEqual(history.jobs.issue!.permissions, { issues: 'write' });
  assert.equal(history.jobs.issue!.needs, 'history');
  assert.ok(history.jobs.issue!.steps.every((s) => s.uses === undefined));
  assert.match(texts['perf-history.yml']!, /perfgate@1 history --github "\$GITHUB_REPOSITORY" --workflow perf\.yml --limit 60 \\\n\s+--html history\.html --markdown history\.md/);
  assert.match(texts['perf-history.yml']!, /GITHUB_TOKEN: \$\{\{ github\.token \}\}/, 'the token history --github reads');
  assert.doesNotMatch(texts['perf-history.yml']!, /gh run download/, 'perfgate reads the artifacts itself');
});

test('the stored baseline: main records on push (pushed code only), pull requests compare with the record on the same pinned runner', () => {
  const baseline = workflows['perf-baseline.yml']!;
  const { record, measure } = baseline.jobs;
  assert.match(record!.if!, /github\.event_name == 'push'/);
  assert.equal(perfgateSteps(record!)[0]!.with?.mode, 'record');
  assert.match(measure!.if!, /github\.event_name == 'pull_request'/);
  assert.equal(perfgateSteps(measure!)[0]!.with?.baseline, 'stored');
  const runner = (job: Job) => (job as Job & { 'runs-on': string })['runs-on'];
  assert.equal(runner(record!), runner(measure!), 'one kind of runner for both');
  assert.notEqual(runner(record!), 'ubuntu-latest', 'a pinned image: ubuntu-latest moves, and the records with it');
});

test('every job that reports the results a measuring job of its workflow uploaded checks them by that job\'s results-digest', () => {
  let reporters = 0;
  for (const { file, name, job } of jobs()) {
    const report = perfgateSteps(job).find((s) => s.with?.mode === 'report');
    const needs = [job.needs ?? []].flat();
    const measuring = needs.filter((need) => perfgateSteps(workflows[file]!.jobs[need]!).some((s) => s.with?.mode === undefined));
    if (!report || measuring.length === 0) continue;
    reporters++;
    assert.equal(measuring.length, 1, `${file} ${name}: reports one measuring job`);
    const measure = workflows[file]!.jobs[measuring[0]!]!;
    const step = perfgateSteps(measure)[0]!;
    assert.ok(step.id, `${file} ${measuring[0]}: the perfgate step has an id for its outputs`);
    assert.equal(measure.outputs?.['results-digest'], `\${{ steps.${step.id}.outputs.results-digest }}`, `${file} ${measuring[0]}: outputs results-digest`);
    assert.equal(report.with?.['results-digest'], `\${{ needs.${measuring[0]}.outputs.results-digest }}`, `${file} ${name}: passes results-digest`);
  }
  assert.ok(reporters >= 3, 'perf.yml, perf-postgres.yml and perf-baseline.yml report their measuring job');
});
