// lane: beside — its head answers 500 to every third request and base none: a count, decided by every slice, not a time.
import assert from 'node:assert/strict';
import { readFileSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { assessResults } from '../../src/assess/compare.js';
import { readResults } from '../../src/results/io.js';
import type { VerdictsDocument } from '../../src/assess/verdicts.js';
import { runCli } from '../helpers/cli.js';
import { makeRepo, quickConfig, ROOT } from '../helpers/repo.js';

const service = (iterations: number, failEvery: number) => ({
  'server.js': { copy: 'services/error-server.js' },
  'errors.json': JSON.stringify({ iterations, failEvery }),
});

test('a faster head that answers 500 to every third request fails on errors, and the headline says so', async () => {
  // 3 start pairs: too few for the sign-flip test to reach its level; base clean in every slice
  // and head failing in every start decide it. /gone answers 404 on both sides, as it declares.
  const config = quickConfig(
    ['scenarios:', '  - GET /work', '  - { method: GET, path: /gone, expect: 404 }'].join('\n'),
  )
    .replace('pairs: 12', 'pairs: 6')
    .replace('blocks: 2', 'blocks: 1')
    .replace('instances: 12', 'instances: 3');
  const repo = makeRepo({ ...service(40_000, 0), 'perfgate.yml': config }, service(10_000, 3));
  const out = join(repo, '.out');
  const verdictsPath = join(repo, 'verdicts.json');
  const run = await runCli(['compare', '--base', 'main', '--out', out, '--verdicts', verdictsPath], repo);
  assert.equal(run.code, 1, run.stderr + run.stdout);
  assert.match(run.stdout, /failing: GET \/work answered 33(\.\d)?% errors \(base 0%, limit 1 pt\): mostly 500 "{"error":"connection pool exhausted"}"\n/);

  const results = readResults(join(out, 'results.json'));
  const work = results.scenarios.find((s) => s.name === 'GET /work')!;
  for (const pair of work.pairs) {
    assert.equal(pair.base.non2xx, 0);
    assert.ok(pair.head.statuses?.['500'], 'head records the status it answered');
    assert.equal(pair.head.statuses['500'], pair.head.non2xx);
  }
  // what head answered, asked again once its first start pair had failed, after its load
  assert.deepEqual(work.unexpectedAnswer, { head: { status: 500, body: '{"error":"connection pool exhausted"}' } });
  assert.equal(results.scenarios.find((s) => s.name === 'GET /gone')!.unexpectedAnswer, undefined);
  const analysis = assessResults(results);
  const of = (scenario: string, metric: string) => analysis.comparisons.find((c) => c.scenario === scenario && c.metric === metric)!;
  assert.equal(of('GET /work', 'errors').verdict, 'regression');
  assert.ok(Math.abs(of('GET /work', 'errors').change - 1 / 3) < 0.02, `change ${of('GET /work', 'errors').change}`);
  // head is faster: its error page costs nothing and its other answers a quarter of base's work
  assert.ok(of('GET /work', 'throughput').change > 0, `throughput ${of('GET /work', 'throughput').change}`);
  // a status the scenario expects is no error
  for (const pair of results.scenarios.find((s) => s.name === 'GET /gone')!.pairs) {
    assert.equal(pair.base.non2xx + pair.head.non2xx, 0);
    assert.equal(pair.head.statuses, undefined);
  }
  assert.equal(of('GET /gone', 'errors').verdict, 'unchanged');
  assert.deepEqual(analysis.failing.map((c) => `${c.scenario} ${c.metric}`), ['GET /work errors']);

  const verdicts = JSON.parse(readFileSync(verdictsPath, 'utf8')) as VerdictsDocument;
  assert.equal(verdicts.decision, 'fail');
  const entry = verdicts.metrics.find((m) => m.scenario === 'GET /work' && m.metric === 'errors')!;
  assert.equal(entry.verdict, 'regression');
  assert.equal(entry.limit, 0.01);
  assert.equal(entry.base, 0);
  assert.ok(entry.head! > 0.3);
  assert.equal(verdicts.worst?.metric, 'errors');
});

/** An express service whose handler throws on head: express answers its HTML 500 page and logs the stack to stderr. */
const throwingExpress = (throws: boolean) => `const express = require('express');
const app = express();
function resolvePermissions(user) {
  ${throws ? "throw new Error('permissions table missing for ' + user);" : "return ['read'];"}
}
app.get('/users/:id', (req, res) => res.json(resolvePermissions(req.params.id)));
app.listen(3000);
`;

test("a handler that throws on head: the run stops at its warm-up, and the headline quotes the error page's text and the service's own log with the throwing line", async () => {
  const config = quickConfig('scenarios:\n  - GET /users/42').replace('pairs: 12', 'pairs: 6').replace('blocks: 2', 'blocks: 1').replace('instances: 12', 'instances: 3');
  const files = (throws: boolean) => ({ 'server.js': throwingExpress(throws) });
  const repo = makeRepo({ '.gitignore': 'node_modules\n', 'perfgate.yml': config, ...files(false) }, files(true));
  symlinkSync(join(ROOT, 'node_modules'), join(repo, 'node_modules'), 'dir');
  const out = join(repo, '.out');
  const run = await runCli(['compare', '--base', 'main', '--out', out, '--markdown', join(repo, 'report.md')], repo);
  assert.equal(run.code, 1, run.stderr + run.stdout);
  const headline = run.stdout.split('\n').find((line) => line.includes('the run stopped at the first warm-up'));
  assert.ok(headline, run.stdout);
  // the page's text, not its markup
  assert.match(headline, /head answered 500 "[^<"]*(?:Error|Internal Server Error)[^<"]*" where base answered 200 \(100% of head's warm-up requests failed, base 0%\)/);
  assert.doesNotMatch(headline, /DOCTYPE|<html/);
  // the service's log: the throw's message and the line in server.js that threw
  assert.match(headline, /; head's log: "Error: permissions table missing for 42" at server\.js:4 \(logs\/head\.log line \d+\)$/);
  const results = readResults(join(out, 'results.json'));
  assert.equal(results.scenarios[0]!.pairs.length, 0, 'no pair measured of a route head broke');
  assert.equal(results.serviceErrors?.head?.place, 'server.js:4');
  assert.equal(results.serviceErrors?.base, undefined, 'base answered every request');
  assert.match(readFileSync(join(repo, 'report.md'), 'utf8'), /head's log: "Error: permissions table missing for 42" at server\.js:4/);
});
