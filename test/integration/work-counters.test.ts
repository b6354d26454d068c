// lane: beside — it asserts bytes allocated and written and syscalls per request, counts of work that a neighbour's load does not change.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { assessResults } from '../../src/assess/compare.js';
import { readResults } from '../../src/results/io.js';
import { runCli } from '../helpers/cli.js';
import { makeRepo, quickConfig } from '../helpers/repo.js';

test('head allocates 20 kB more per request on one route: the allocation counter shows it there, in words, names the function that allocates it, and not on the route it left alone', async (t) => {
  // 5 starts per side and block: 10 start pairs, enough for an information-only verdict at alpha.
  // Both blocks always: the extra allocations cost throughput too, and a stop at the first look
  // would leave the counters too few start pairs for an interval.
  // The allocating route alone is profiled, briefly: its sampling heap profile names the culprit.
  const config = quickConfig('scenarios: [GET /alloc, GET /same]')
    .replace('instances: 12', 'instances: 5')
    .replace('slice: 300ms', 'slice: 300ms\n  early-stop: false')
    .replace('profile: false', 'profile: { duration: 1s, when: always, confirm: false, scenarios: [GET /alloc] }');
  const repo = makeRepo(
    { 'server.js': { copy: 'services/alloc-server.js' }, 'alloc.json': JSON.stringify({ extraBytes: 0 }), 'perfgate.yml': config },
    { 'alloc.json': JSON.stringify({ extraBytes: 20_000 }) },
  );
  const out = join(repo, '.out');
  const verdictsFile = join(repo, 'verdicts.json');
  const markdownFile = join(repo, 'report.md');
  const run = await runCli(['compare', '--base', 'main', '--out', out, '--markdown', markdownFile, '--verdicts', verdictsFile], repo);
  assert.notEqual(run.code, 2, run.stderr + run.stdout);
  const results = readResults(join(out, 'results.json'));
  const markdown = readFileSync(markdownFile, 'utf8');
  const start = markdown.indexOf('**Service health**');
  t.diagnostic(markdown.slice(start, markdown.indexOf('<details>', start)).trim());
  const health = assessResults(results).health!;
  const counter = (scenario: string, metric: string) => health.comparisons.find((c) => c.scenario === scenario && c.metric === metric)!;

  const changed = counter('GET /alloc', 'allocated_per_request');
  assert.equal(changed.verdict, 'regression', JSON.stringify(changed));
  // 2,500 array elements of 8 bytes, plus the array's own header
  assert.ok(changed.absoluteChange > 18_000 && changed.absoluteChange < 24_000, `head allocates ${changed.absoluteChange} bytes more per request`);
  assert.match(markdown, /head allocates 2\d(\.\d)? kB more per request \(\+[\d,.]+%, CI \+[\d,.]+ … \+[\d,.]+%\)/);

  // The function that allocates it, where it is: the PR changed alloc.json, not the code.
  const line = readFileSync(join(repo, 'server.js'), 'utf8').split('\n').findIndex((l) => l.startsWith('function handleRequest')) + 1;
  const culprit = `allocated in handleRequest (server.js:${line}, not changed by this PR`;
  assert.match(markdown, new RegExp(`head allocates 2\\d(\\.\\d)? kB more per request \\(.*\\): \\+\\d+(\\.\\d+)? kB per request ${culprit.replace(/[().]/g, '\\$&')}`));
  const allocations = results.profiles![0]!.sides.head.allocations!;
  assert.ok(allocations.responses > 0 && allocations.processes.length === 1, JSON.stringify(allocations.processes));
  const verdicts = JSON.parse(readFileSync(verdictsFile, 'utf8')) as { metrics: { metric: string; scenario: string; allocationCulprit?: { function: string; line: number; addedBytes: number } }[] };
  const entry = verdicts.metrics.find((m) => m.metric === 'allocated_per_request' && m.scenario === 'GET /alloc')!;
  assert.equal(entry.allocationCulprit?.function, 'handleRequest');
  assert.equal(entry.allocationCulprit?.line, line);
  // The sampled estimate: about the 20 kB the counter measures.
  assert.ok(entry.allocationCulprit!.addedBytes > 15_000 && entry.allocationCulprit!.addedBytes < 26_000, JSON.stringify(entry.allocationCulprit));

  const same = counter('GET /same', 'allocated_per_request');
  assert.notEqual(same.verdict, 'regression', JSON.stringify(same));
  assert.ok(Math.abs(same.absoluteChange) < 2000, `the route head left alone: ${same.absoluteChange} bytes per request`);
  // The two routes answer the same bytes on both sides.
  for (const scenario of ['GET /alloc', 'GET /same']) {
    const written = counter(scenario, 'socket_written_per_request');
    assert.notEqual(written.verdict, 'regression', JSON.stringify(written));
    assert.ok(written.baseMedian > 50 && written.baseMedian < 1000, `${scenario}: ${written.baseMedian} bytes written per request`);
    assert.ok(counter(scenario, 'syscalls_per_request').baseMedian > 0.5, 'each request reads and writes its socket');
  }
});
