// perfgate's own workflows (.github/workflows): the reusable gate.yml the README's first workflow
// calls, and ci.yml. Nothing here runs them on GitHub, so their structure is asserted here and
// actionlint checks them.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { parse } from 'yaml';
import { actionlintSkip, runActionlint } from '../helpers/actionlint.js';
import { ROOT } from '../helpers/repo.js';
import { pullRequestEvent } from '../helpers/github-events.js';
import { type Contexts, condition, interpolate } from '../helpers/workflow-expressions.js';
import { actionInputs, callContexts, type Job, perfgateSteps, readWorkflows, type Step, type Workflow, workflowCall } from '../helpers/workflows.js';

const own = readWorkflows('.github/workflows');
const examples = readWorkflows('example-workflows');
const gate = own.workflows['gate.yml']!;
const ci = own.workflows['ci.yml']!;
const action = actionInputs();

const call = workflowCall(gate);

const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
/** The README's first workflow, the one a new user pastes. */
const firstWorkflow = /```yaml\n([\s\S]*?)```/.exec(readme.slice(readme.indexOf('## Add it to a repository')))![1]!;
const GATE_REF = 'perfgate/perfgate/.github/workflows/gate.yml@v1';

const writes = (job: Job) => Object.values(job.permissions ?? {}).some((p) => p === 'write');
const expression = (text: string) => `\${{ ${text} }}`;

test('actionlint passes on every workflow of .github/workflows and example-workflows', { skip: actionlintSkip }, () => {
  const files = [...Object.keys(own.texts).map((f) => join(own.dir, f)), ...Object.keys(examples.texts).map((f) => join(examples.dir, f))];
  assert.ok(files.length >= 9, files.join(' '));
  const run = runActionlint(files);
  assert.equal(run.status, 0, run.output);
});

test("the README's first workflow is at most 15 lines that call gate.yml@v1, granting exactly what gate.yml's jobs ask for", () => {
  const lines = firstWorkflow.trimEnd().split('\n');
  assert.ok(lines.length <= 15, `${lines.length} lines`);
  const caller = parse(firstWorkflow) as Workflow;
  const jobs = Object.values(caller.jobs);
  assert.equal(jobs.length, 1);
  const [job] = jobs;
  assert.equal(job!.uses, GATE_REF);
  for (const input of Object.keys(job!.with ?? {})) assert.ok(input in call.inputs, `gate.yml has no input ${input}`);
  const asked = Object.fromEntries(Object.values(gate.jobs).flatMap((j) => Object.entries(j.permissions ?? {})));
  assert.deepEqual(job!.permissions, asked, 'the caller grants what the called jobs ask for, and no more');
  assert.ok('pull_request' in caller.on && !('pull_request_target' in caller.on));
  // A fork's comment comes from perf-comment.yml, which follows the workflow by its name.
  const forks = examples.workflows['perf-comment.yml']!.on.workflow_run as { workflows: string[] };
  assert.deepEqual(forks.workflows, [caller.name]);
});

test("actionlint passes on the README's first workflow with gate.yml as the workflow it calls", { skip: actionlintSkip }, () => {
  // actionlint checks a call's inputs against a reusable workflow of the same repository only.
  const project = mkdtempSync(join(tmpdir(), 'perfgate-workflows-'));
  try {
    mkdirSync(join(project, '.git'));
    mkdirSync(join(project, '.github', 'workflows'), { recursive: true });
    writeFileSync(join(project, '.github', 'workflows', 'gate.yml'), own.texts['gate.yml']!);
    const file = join(project, '.github', 'workflows', 'perf.yml');
    writeFileSync(file, firstWorkflow.replace(GATE_REF, './.github/workflows/gate.yml'));
    const run = runActionlint([file]);
    assert.equal(run.status, 0, run.output);
  } finally {
    rmSync(project, { recursive: true, force: true });
  }
});

test("gate.yml's inputs are action inputs passed through to the measuring step, with the action's defaults", () => {
  assert.equal(call.secrets, undefined, 'no secrets: the comment uses the caller-granted github.token');
  const [step] = perfgateSteps(gate.jobs.measure!);
  const setup = ['node-version', 'node-version-file', 'corepack', 'runs-on', 'timeout-minutes'];
  for (const [name, input] of Object.entries(call.inputs)) {
    if (setup.includes(name)) continue;
    assert.ok(name in action, `gate.yml input ${name} is not an action input`);
    assert.equal(step!.with?.[name], expression(`inputs.${name}`), `measure passes ${name} on`);
    const fallback = action[name]!.default;
    if (fallback !== undefined) assert.equal(String(input.default), fallback, `${name} defaults as the action does`);
  }
  for (const input of Object.keys(step!.with ?? {})) assert.ok(input in action, `measure: unknown action input ${input}`);
  for (const [name, output] of Object.entries(call.outputs)) assert.equal(output.value, expression(`jobs.measure.outputs.${name}`));
  assert.deepEqual(Object.keys(gate.jobs).sort(), ['comment', 'measure']);
});

test("gate.yml's measure job holds no write permission and no secret beyond the read token, and persists no credential", () => {
  const measure = gate.jobs.measure!;
  assert.deepEqual(measure.permissions, { contents: 'read' });
  assert.deepEqual(gate.permissions, {}, 'nothing at workflow level: each job asks for its share');
  assert.doesNotMatch(own.texts['gate.yml']!, /secrets\./, 'no secret reaches any job');
  assert.equal(measure.env, undefined);
  const checkout = measure.steps.find((s) => s.uses?.startsWith('actions/checkout'));
  assert.equal(checkout?.with?.['persist-credentials'], false);
  const [step] = perfgateSteps(measure);
  assert.equal(step!.with?.mode, undefined, 'gate mode, the default');
  assert.equal(step!.with?.comment, 'never', 'measure posts no comment: it has no token that could');
  for (const key of ['github-token', 'allow-write-token', 'allow-id-token']) assert.equal(step!.with?.[key], undefined, `measure sets no ${key}`);
  for (const s of measure.steps) assert.equal(s.env, undefined, 'no step gets extra environment');
  assert.equal(measure.outputs?.['results-digest'], expression(`steps.${step!.id}.outputs.results-digest`));
});

test("gate.yml's comment job runs no PR code: no checkout, no run step, only perfgate's report mode on measure's verified artifact", () => {
  const comment = gate.jobs.comment!;
  assert.deepEqual(comment.permissions, { actions: 'read', 'pull-requests': 'write' });
  assert.equal(comment.needs, 'measure');
  assert.match(comment.if!, /github\.event\.pull_request\.head\.repo\.full_name == github\.repository/, 'forks: perf-comment.yml');
  for (const s of comment.steps) {
    assert.equal(s.run, undefined, 'no shell step: nothing of the repository is executed');
    assert.ok(s.uses !== undefined && !s.uses.startsWith('actions/checkout') && !s.uses.startsWith('./'), `comment runs ${s.uses}`);
  }
  const steps: Step[] = comment.steps;
  assert.deepEqual(
    steps.map((s) => [s.uses, s.with?.mode]),
    [['perfgate/perfgate@v1', 'report']],
  );
  assert.equal(steps[0]!.with?.['results-digest'], expression('needs.measure.outputs.results-digest'));
  assert.equal(steps[0]!.with?.id, expression('inputs.id'), 'the comment reports the artifact measure uploaded under that id');
});

const called = (event: object, inputs?: Record<string, unknown>, needs?: Contexts) => callContexts(gate, event, inputs, needs);
const sha = { baseSha: 'a'.repeat(40), headSha: 'b'.repeat(40) };

test("gate.yml's measure job, as the runner decides: every push of a pull request, and a label only when it is the accept label", () => {
  const runs = (event: object, inputs?: Record<string, unknown>) => condition(gate.jobs.measure!.if, called(event, inputs));
  assert.equal(runs(pullRequestEvent({ number: 5, ...sha, action: 'opened' })), true);
  assert.equal(runs(pullRequestEvent({ number: 5, ...sha, action: 'synchronize' })), true);
  const labeled = (name: string) => ({ ...pullRequestEvent({ number: 5, ...sha, action: 'labeled', labels: [name] }), label: { name } });
  assert.equal(runs(labeled('perf-regression-accepted')), true);
  assert.equal(runs(labeled('needs-review')), false, 'an unrelated label measures nothing');
  assert.equal(runs({ ...labeled('perf-regression-accepted'), action: 'unlabeled' }), true, 'removing the accept label re-runs the gate too');
  assert.equal(runs(labeled('perf-ok'), { 'accept-label': 'perf-ok' }), true, 'the accept-label input names the label');
  const setup = gate.jobs.measure!.steps.find((s) => s.uses?.startsWith('actions/setup-node'))!;
  const version = (inputs: Record<string, unknown>) => interpolate(setup.with!['node-version'], called({}, inputs));
  assert.equal(version({}), '24');
  assert.equal(version({ 'node-version-file': '.nvmrc' }), '', 'the version file alone decides');
});

test("gate.yml's comment job, as the runner decides: after measure passed or failed, on same-repository pull requests only", () => {
  const runs = (headRepo: string | undefined, result: string) =>
    condition(gate.jobs.comment!.if, called(pullRequestEvent({ number: 5, ...sha, headRepo }), {}, { measure: { result, outputs: {} } }), result === 'success');
  assert.equal(runs(undefined, 'success'), true);
  assert.equal(runs(undefined, 'failure'), true, 'a regression is commented on too');
  assert.equal(runs('mallory/shop', 'failure'), false, "a fork's run has no write token: perf-comment.yml comments");
  assert.equal(runs(undefined, 'skipped'), false, 'an unrelated label left nothing to report');
  assert.equal(runs(undefined, 'cancelled'), false, 'a newer push cancelled it');
});

test("ci.yml: .ci/run on push and pull_request, dist/ rebuilt and diffed, actionlint, perfgate on the example service from the checkout; no write token", () => {
  assert.deepEqual(Object.keys(ci.on).sort(), ['pull_request', 'push']);
  const runs = (job: Job) => job.steps.flatMap((s) => (s.run ? [s.run] : []));
  assert.ok(runs(ci.jobs.test!).includes('bash .ci/run'));
  const dist = runs(ci.jobs['check-dist']!).join('\n');
  assert.match(dist, /npm ci\b.*&& npm run bundle/);
  assert.match(dist, /git diff --exit-code\b.*dist\//);
  assert.match(runs(ci.jobs.actionlint!).join('\n'), /actionlint" \.github\/workflows\/\*\.yml example-workflows\/\*\.yml/);
  const perf = ci.jobs.perf!;
  assert.match(perf.if!, /github\.event_name == 'pull_request'/);
  const self = perf.steps.find((s) => s.uses === './');
  assert.ok(self, 'the action of the checkout');
  assert.ok(existsSync(join(ROOT, String(self.with?.config))), `${self.with?.config} exists`);
  assert.ok(existsSync(join(ROOT, String(self.with?.['working-directory']), 'server.js')));
  for (const [name, job] of Object.entries(ci.jobs)) {
    assert.ok(job.permissions && !writes(job), `ci.yml ${name}: read-only, set per job`);
    for (const s of job.steps.filter((s) => s.uses?.startsWith('actions/checkout'))) assert.equal(s.with?.['persist-credentials'], false, `ci.yml ${name}`);
  }
});
