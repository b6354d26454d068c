// lane: beside — it tests the check of answers before any timed pair.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { readResults } from '../../src/results/io.js';
import { runCli } from '../helpers/cli.js';
import { makeRepo, quickConfig } from '../helpers/repo.js';

/** A service whose routes answer as routes.json says: path → [status, body]; any other path 404. */
const service = (routes: Record<string, [number, string]>) => ({
  'server.js':
    "const routes = require('./routes.json');\n" +
    "require('node:http').createServer((req, res) => { const [status, body] = routes[req.url] ?? [404, 'Cannot GET ' + req.url]; res.statusCode = status; res.end(body); }).listen(3000);\n",
  'routes.json': JSON.stringify(routes),
});

// Profiling on (the default): a route head broke must not be profiled.
const config = quickConfig('scenarios: [GET /users, GET /health]\n').replace('profile: false\n', '');

test('a head that fails a route base answers stops the run at its first warm-up with a failing verdict, the answer quoted', async () => {
  const base = service({ '/users': [200, '[{"id":1}]'], '/health': [200, 'ok'] });
  const head = service({ '/health': [200, 'ok'] });
  const repo = makeRepo({ ...base, 'perfgate.yml': config }, head);
  const out = join(repo, '.out');
  const started = Date.now();
  const run = await runCli(['compare', '--base', 'main', '--out', out], repo);
  const seconds = (Date.now() - started) / 1000;
  // The pull request's regression: a verdict (exit 1), not an error of use (exit 2).
  assert.equal(run.code, 1, run.stderr + run.stdout);
  assert.ok(seconds < 60, `stopped at the first warm-up, not after a block: ${seconds} s`);
  const first = run.stdout.split('\n').find((line) => line.includes('failing'));
  assert.match(
    first ?? '',
    /failing: GET \/users: head answered 404 "Cannot GET \/users" where base answered 200 \(100% of head's warm-up requests failed, base 0%\); the run stopped at the first warm-up/,
    run.stdout,
  );
  assert.match(run.stdout, /\n1 regression · 0 improvements · /, 'the broken route is the regression; nothing is counted as an improvement');

  const results = readResults(join(out, 'results.json'));
  assert.equal(results.status, 'complete');
  const users = results.scenarios.find((s) => s.name === 'GET /users')!;
  assert.deepEqual(users.headBroken, { shares: { base: 0, head: 1 }, status: 404, body: 'Cannot GET /users', baseStatus: 200 });
  assert.equal(users.pairs.length, 0, 'no pair of the broken route');
  assert.equal(results.profiles, undefined, 'nothing profiled');
  // The run stops after the first start pair's turn: at most its pairs of the routes before the broken one.
  const measured = results.scenarios.reduce((n, s) => n + s.pairs.length, 0);
  assert.ok(measured <= results.config.load.pairs / 2, `${measured} pairs measured`);
});
