// lane: beside — it tests the check of answers before any timed load.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { readResults } from '../../src/results/io.js';
import { runCli } from '../helpers/cli.js';
import { makeRepo, quickConfig } from '../helpers/repo.js';

/** A service that answers every request 200 with answer.json's body, as an app answers its database errors. */
const service = (answer: string) => ({
  'server.js': "require('node:http').createServer((req, res) => res.end(require('./answer.json').body)).listen(3000);\n",
  'answer.json': JSON.stringify({ body: answer }),
});
const DOWN = '{"success":false,"error":"connect ECONNREFUSED 127.0.0.1:5432"}';

test('a head that answers 200 with a body saying it failed stops the run at its first warm-up with a failing verdict, the body quoted', async () => {
  const repo = makeRepo({ ...service('[{"id":1}]'), 'perfgate.yml': quickConfig('scenarios: [GET /users]\n') }, service(DOWN));
  const out = join(repo, '.out');
  const started = Date.now();
  const run = await runCli(['compare', '--base', 'main', '--out', out], repo);
  // Head broke the route: the pull request's regression (exit 1), not an error of use (exit 2).
  assert.equal(run.code, 1, run.stderr + run.stdout);
  assert.match(
    run.stdout,
    /failing: GET \/users: head answered 200 "{"success":false,"error":"connect ECONNREFUSED 127\.0\.0\.1:5432"}", a body that says the request failed \("success": false\) where base answered 200; the run stopped at the first warm-up/,
  );
  assert.ok(Date.now() - started < 60_000, 'stopped at the first warm-up, not after measuring');
  const results = readResults(join(out, 'results.json'));
  assert.equal(results.status, 'complete');
  assert.equal(results.scenarios[0]?.pairs.length ?? 0, 0, 'no pair measured');
  assert.equal(results.scenarios[0]?.headBroken?.failure, '"success": false');
});

test('a service that answers 200 with a body saying it failed on both sides stops the run at its first warm-up as an error, the body quoted', async () => {
  const repo = makeRepo({ ...service(DOWN), 'perfgate.yml': quickConfig('scenarios: [GET /users]\n') }, { 'head.txt': 'a change\n' });
  const out = join(repo, '.out');
  const run = await runCli(['compare', '--base', 'main', '--out', out], repo);
  assert.equal(run.code, 2, run.stderr + run.stdout);
  assert.match(
    run.stderr,
    /Scenario "GET \/users" \(GET \/users\) fails on both base and head: it answered 200 "{"success":false,"error":"connect ECONNREFUSED 127\.0\.0\.1:5432"}", a body that says the request failed \("success": false\)\. The service answered an error with a success status/,
  );
  assert.match(run.stderr, /Nothing was measured before the error/);
  assert.doesNotMatch(run.stderr, /pairs measured before the error/);
  assert.equal(readResults(join(out, 'results.json')).status, 'failed');
});
