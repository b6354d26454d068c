import assert from 'node:assert/strict';
import { test } from 'node:test';
import { artifactPrefix, artifactUrl } from '../../src/github/artifacts.js';
import { describeApiError } from '../../src/github/client.js';
import { pullRequestOf } from '../../src/github/event.js';
import { triggeringRunOf, UntrustedResultsError, verifyResultsOrigin } from '../../src/github/workflow-run.js';
import { pullRequestEvent, workflowRunEvent } from '../helpers/github-events.js';

const HEAD = 'c'.repeat(40);

test('pullRequestOf: a fork is a head repository other than the base', () => {
  const own = pullRequestOf(pullRequestEvent({ number: 3, baseSha: 'a'.repeat(40), headSha: HEAD, labels: ['x'] }));
  assert.deepEqual(own, { number: 3, headSha: HEAD, baseSha: 'a'.repeat(40), baseRef: 'main', fromFork: false, labels: ['x'] });
  assert.equal(pullRequestOf(pullRequestEvent({ number: 3, baseSha: 'a'.repeat(40), headSha: HEAD, headRepo: 'mallory/shop' }))!.fromFork, true);
  assert.equal(pullRequestOf({}), null);
});

test('artifact names per gate and attempt; links to the artifact page', () => {
  assert.equal(artifactPrefix('default', 1), 'perfgate-default');
  assert.equal(artifactPrefix('api', 2), 'perfgate-api-attempt2');
  assert.equal(artifactUrl('https://github.com/', { owner: 'acme', repo: 'shop' }, '42', 7), 'https://github.com/acme/shop/actions/runs/42/artifacts/7');
});

test('API errors say which permission to add', () => {
  const forbidden = Object.assign(new Error('Resource not accessible by integration'), { status: 403 });
  assert.match(describeApiError(forbidden, 'comment on pull request #7', 'pull-requests: write'), /needs the `pull-requests: write` permission/);
  const limited = Object.assign(new Error('API rate limit exceeded'), { status: 403 });
  assert.match(describeApiError(limited, 'comment', 'pull-requests: write'), /rate limit is exhausted/);
});

test('verifyResultsOrigin: only a record that matches the workflow_run is reported', () => {
  const run = triggeringRunOf(workflowRunEvent({ runId: 5, event: 'pull_request', headSha: HEAD, headBranch: 'f', headRepo: 'mallory/shop' }));
  const record = { repository: 'acme/shop', pullRequest: 7, headSha: HEAD, baseSha: null, runId: '5', event: 'pull_request' };
  const expected = { repository: 'acme/shop', run, pullRequests: [7] };
  assert.equal(verifyResultsOrigin(record, expected), 7);
  assert.equal(verifyResultsOrigin(record, { ...expected, pullRequests: [] }), null, 'the PR moved on: nothing to comment on');
  assert.throws(() => verifyResultsOrigin(undefined, expected), (e) => e instanceof UntrustedResultsError && /no record of the GitHub run/.test(e.message));
  assert.throws(() => verifyResultsOrigin({ ...record, pullRequest: 8 }, expected), /pull request: the artifact says 8, GitHub lists #7/);
  assert.throws(
    () => verifyResultsOrigin({ ...record, headSha: '\n::add-mask::x' }, expected),
    (e) => e instanceof Error && e.message.includes('"\\n::add-mask::x"'),
    'a crafted value is quoted, so it cannot start a log line',
  );
  const push = triggeringRunOf(workflowRunEvent({ runId: 5, event: 'push', headSha: HEAD, headBranch: 'main' }));
  assert.throws(() => verifyResultsOrigin({ ...record, event: 'push' }, { repository: 'acme/shop', run: push, pullRequests: [] }), /pull request: the artifact says 7/);
  assert.throws(() => triggeringRunOf({}), /has no workflow_run/);
});
