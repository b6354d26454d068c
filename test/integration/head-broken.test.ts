// lane: beside — it tests the check of answers before any timed pair.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { VerdictsDocument } from '../../src/assess/verdicts.js';
import { readResults } from '../../src/results/io.js';
import { runCli } from '../helpers/cli.js';
import { makeRepo, quickConfig, ROOT } from '../helpers/repo.js';

/** A service whose routes answer as routes.json says: path → [status, body]; any other path 404. */
const service = (routes: Record<string, [number, string]>) => ({
  'server.js':
    "const routes = require('./routes.json');\n" +
    "require('node:http').createServer((req, res) => { const [status, body] = routes[req.url] ?? [404, 'Cannot GET ' + req.url]; res.statusCode = status; res.end(body); }).listen(3000);\n",
  'routes.json': JSON.stringify(routes),
});

// Profiling on (the default): a route head broke must not be profiled. /health declares its body.
const config = quickConfig(['scenarios:', '  - GET /users', '  - { path: /health, expect: { status: 200, json: { status: up } } }', ''].join('\n')).replace('profile: false\n', '');

test('a head that fails routes base answers (a 404, a body that does not match expect:) stops the run at their first warm-up with a failing verdict, each answer quoted', async () => {
  const base = service({ '/users': [200, '[{"id":1}]'], '/health': [200, '{"status":"up"}'] });
  const head = service({ '/health': [200, '{"status":"degraded"}'] });
  const repo = makeRepo({ ...base, 'perfgate.yml': config }, head);
  const out = join(repo, '.out');
  const started = Date.now();
  const verdictsPath = join(repo, 'verdicts.json');
  const run = await runCli(['compare', '--base', 'main', '--out', out, '--verdicts', verdictsPath], repo);
  const seconds = (Date.now() - started) / 1000;
  // The pull request's regression: a verdict (exit 1), not an error of use (exit 2).
  assert.equal(run.code, 1, run.stderr + run.stdout);
  assert.ok(seconds < 60, `stopped at the first warm-up, not after a block: ${seconds} s`);
  // Both routes head broke are found, whichever the seed warmed up first; the headline leads with one and counts the other.
  const first = run.stdout.split('\n').find((line) => line.includes('failing')) ?? '';
  const users = /GET \/users: head answered 404 "Cannot GET \/users" where base answered 200 \(100% of head's warm-up requests failed, base 0%\)/;
  const health = /GET \/health: head answered 200 "{"status":"degraded"}", a body that does not match expect: \(status is "degraded", not "up"\) where base answered 200/;
  assert.match(first, new RegExp(`failing: (${users.source}|${health.source}); 1 more route head broke; the run stopped at the first warm-up`), run.stdout);
  // The other route is said under the headline, in its own words.
  for (const route of [users, health]) assert.match(run.stdout, route);
  assert.match(run.stdout, /\n2 regressions · 0 improvements · /, 'the broken routes are the regressions; nothing is counted as an improvement');

  const results = readResults(join(out, 'results.json'));
  assert.equal(results.status, 'complete');
  const of = (name: string) => results.scenarios.find((s) => s.name === name)!;
  assert.deepEqual(of('GET /users').headBroken, { shares: { base: 0, head: 1 }, status: 404, body: 'Cannot GET /users', baseStatus: 200 });
  assert.deepEqual(of('GET /health').headBroken, { status: 200, body: '{"status":"degraded"}', mismatch: 'status is "degraded", not "up"', baseStatus: 200 });
  assert.equal(of('GET /users').pairs.length + of('GET /health').pairs.length, 0, 'no pair of a route head broke');
  assert.equal(results.profiles, undefined, 'nothing profiled');

  // verdicts.json says it, valid against its schema.
  const verdicts = JSON.parse(readFileSync(verdictsPath, 'utf8')) as VerdictsDocument;
  const validate = new Ajv2020({ allErrors: true, strict: false }).compile(JSON.parse(readFileSync(join(ROOT, 'docs', 'verdicts.schema.json'), 'utf8')));
  assert.ok(validate(verdicts), JSON.stringify(validate.errors));
  assert.equal(verdicts.decision, 'fail');
  assert.deepEqual(
    verdicts.headBroken?.map((route) => [route.scenario, route.status, route.baseStatus]).sort(),
    [
      ['GET /health', 200, 200],
      ['GET /users', 404, 200],
    ],
  );
  assert.equal(
    verdicts.headBroken!.find((route) => route.scenario === 'GET /users')!.text,
    `head answered 404 "Cannot GET /users" where base answered 200 (100% of head's warm-up requests failed, base 0%)`,
  );

  // plan asks the work tree's routes once and quotes the body that does not match expect:.
  const plan = await runCli(['plan', '--base', 'main'], repo);
  assert.equal(plan.code, 2, plan.stdout + plan.stderr);
  assert.match(
    plan.stderr,
    /Scenario "GET \/health" \(GET \/health\) fails in head's work tree: it answered 200 "{"status":"degraded"}", a body that does not match expect: \(status is "degraded", not "up"\)\. perfgate expects 200 with a body that has status "up"\./,
  );
});
