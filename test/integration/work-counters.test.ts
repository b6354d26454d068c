// lane: beside — it asserts bytes allocated and written and syscalls per request, counts of work that a neighbour's load does not change.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { assessResults } from '../../src/assess/compare.js';
import { readResults } from '../../src/results/io.js';
import { runCli } from '../helpers/cli.js';
import { makeRepo, quickConfig } from '../helpers/repo.js';

test('head allocates 20 kB more per request on one route: the allocation counter shows it there, in words, and not on the route it left alone', async (t) => {
  // 5 starts per side and block: 10 start pairs, enough for an information-only verdict at alpha.
  // Both blocks always: the extra allocations cost throughput too, and a stop at the first look
  // would leave the counters too few start pairs for an interval.
  const config = quickConfig('scenarios: [GET /alloc, GET /same]').replace('instances: 12', 'instances: 5').replace('slice: 300ms', 'slice: 300ms\n  early-stop: false');
  const repo = makeRepo(
    { 'server.js': { copy: 'services/alloc-server.js' }, 'alloc.json': JSON.stringify({ extraBytes: 0 }), 'perfgate.yml': config },
    { 'alloc.json': JSON.stringify({ extraBytes: 20_000 }) },
  );
  const out = join(repo, '.out');
  const markdownFile = join(repo, 'report.md');
  const run = await runCli(['compare', '--base', 'main', '--out', out, '--markdown', markdownFile], repo);
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
