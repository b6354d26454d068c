import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { parse } from 'yaml';
import { ROOT } from '../helpers/repo.js';

interface Step {
  uses?: string;
  with?: Record<string, unknown>;
}
interface Workflow {
  on: Record<string, unknown>;
  permissions?: Record<string, string>;
  jobs: Record<string, { steps: Step[] }>;
}

const action = parse(readFileSync(join(ROOT, 'action.yml'), 'utf8')) as { inputs: Record<string, unknown> };
const dir = join(ROOT, 'example-workflows');
const workflows = Object.fromEntries(
  readdirSync(dir)
    .filter((f) => f.endsWith('.yml'))
    .map((f) => [f, parse(readFileSync(join(dir, f), 'utf8')) as Workflow]),
);

function perfgateSteps(workflow: Workflow): Step[] {
  return Object.values(workflow.jobs).flatMap((job) => job.steps.filter((s) => s.uses?.includes('/perfgate@')));
}

test('example workflows: the plain gate, the fork-safe pair, a manual run', () => {
  assert.deepEqual(Object.keys(workflows).sort(), ['perf-fork-comment.yml', 'perf-fork-measure.yml', 'perf-manual.yml', 'perf.yml']);
});

test('every perfgate step of the examples uses only inputs action.yml declares', () => {
  for (const [file, workflow] of Object.entries(workflows)) {
    const steps = perfgateSteps(workflow);
    assert.ok(steps.length > 0, `${file} runs perfgate`);
    for (const step of steps) {
      for (const input of Object.keys(step.with ?? {})) assert.ok(input in action.inputs, `${file}: unknown input ${input}`);
    }
  }
});

test('the fork-safe pair: the measuring workflow is read-only, the commenter runs no PR code', () => {
  const measure = workflows['perf-fork-measure.yml']!;
  const comment = workflows['perf-fork-comment.yml']!;
  assert.deepEqual(measure.permissions, { contents: 'read' });
  assert.ok('pull_request' in measure.on && !('pull_request_target' in measure.on));
  assert.equal(perfgateSteps(measure)[0]!.with?.comment, 'never');
  const trigger = comment.on.workflow_run as { workflows: string[] };
  assert.deepEqual(trigger.workflows, [(parse(readFileSync(join(dir, 'perf-fork-measure.yml'), 'utf8')) as { name: string }).name]);
  assert.deepEqual(comment.permissions, { actions: 'read', 'pull-requests': 'write' });
  const steps = Object.values(comment.jobs).flatMap((job) => job.steps);
  assert.ok(!steps.some((s) => s.uses?.startsWith('actions/checkout')), 'no checkout: nothing from the PR runs with the write token');
  assert.equal(perfgateSteps(comment)[0]!.with?.mode, 'report');
});
