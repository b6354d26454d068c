import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { assessResults } from '../../src/assess/compare.js';
import { readResults } from '../../src/results/io.js';
import { runCli } from '../helpers/cli.js';
import { IDENTICAL_CODE_ALPHA, makeRepo, quickConfig } from '../helpers/repo.js';

const workService = (iterations: number) => ({
  'server.js': { copy: 'services/work-server.js' },
  'work.json': JSON.stringify({ iterations }),
});

function verdictOf(resultsPath: string, metric: string) {
  const analysis = assessResults(readResults(resultsPath));
  return analysis.comparisons.find((c) => c.metric === metric)!;
}

function resultsPathOf(out: string): string {
  return join(out, 'results.json');
}

test('A/A: identical base and head pass with exit 0 and no regression', async () => {
  // Both blocks measured (no look may stop it): the progress, the blocks and the pairs of a whole run are checked.
  const config = quickConfig(`scenarios: [GET /work]\n${IDENTICAL_CODE_ALPHA}`).replace('  warmup: 100ms\n', '  warmup: 100ms\n  early-stop: false\n');
  const repo = makeRepo({ ...workService(20_000), 'perfgate.yml': config }, { 'README.md': 'docs only' });
  const out = join(repo, '.out');
  const json = join(repo, 'copy.json');
  const run = await runCli(['compare', '--base', 'main', '--out', out, '--seed', '7', '--json', json], repo);
  assert.equal(run.code, 0, run.stderr + run.stdout);
  assert.match(run.stdout, /passing/);
  assert.deepEqual(JSON.parse(readFileSync(json, 'utf8')), JSON.parse(readFileSync(resultsPathOf(out), 'utf8')), '--json copy');
  // the saved run renders again to the same report and exit status
  const again = await runCli(['report', resultsPathOf(out)], repo);
  assert.equal(again.code, 0);
  assert.equal(again.stdout, run.stdout);
  assert.match(run.stderr, /seed 7/);
  // Progress to a log (not a terminal): one line per block and phase, the pair counter at each block's end.
  assert.match(run.stderr, /measuring block 1\/2 · GET \/work · pair 6\/12/, 'progress lines');
  assert.match(run.stderr, /measuring block 2\/2 · GET \/work · pair 12\/12/, 'progress lines');
  const results = readResults(resultsPathOf(out));
  assert.equal(results.status, 'complete');
  assert.equal(results.seed, 7);
  assert.equal(results.scenarios[0]!.pairs.length, 12);
  assert.deepEqual(new Set(results.scenarios[0]!.pairs.map((p) => p.block)), new Set([0, 1]), 'two blocks');
  const analysis = assessResults(results);
  assert.equal(analysis.comparisons.filter((c) => c.gated && c.verdict === 'regression').length, 0);
  // both sides were really measured, although both hard-code port 3000
  for (const pair of results.scenarios[0]!.pairs) {
    assert.ok(pair.base.requests > 50 && pair.head.requests > 50, 'both sides served requests');
    assert.ok(pair.base.cpuSeconds > 0 && pair.head.cpuSeconds > 0, 'service CPU time is read');
    for (const slice of [pair.base, pair.head]) {
      assert.ok(slice.durationMs > 250 && slice.durationMs < 450, `a 300 ms slice lasted ${slice.durationMs} ms`);
    }
    // a simultaneous pair's two slices are counted over one window: neither side ran alone
    assert.equal(pair.base.startedAt, pair.head.startedAt, 'both slices open at the same instant');
    assert.equal(pair.base.durationMs, pair.head.durationMs, 'both slices last exactly as long');
    assert.ok(pair.base.latencyUs.p50 > 0 && pair.base.latencyUs.p99 >= pair.base.latencyUs.p50, 'µs latencies');
  }
  // the temporary base worktree is gone
  assert.equal(existsSync(join(out, 'trees', 'base')), false);
});

// Ten times the work, not three: on a VM whose HTTP overhead per request is large beside the
// base's 20,000 iterations, three times the work measured a 36% drop (it passed at 41% an hour
// earlier), too near the 40% these tests ask for. The drop is the point, not its size.
// Head is the work tree as it is, edited and not committed: a run that measured the committed
// tree (base's code) would pass.
test('head much slower, uncommitted in the work tree: measured as head; throughput regression, exit 1, report names the limit', async () => {
  const repo = makeRepo({ ...workService(20_000), 'perfgate.yml': quickConfig('scenarios: [GET /work]') }, {});
  writeFileSync(join(repo, 'work.json'), JSON.stringify({ iterations: 200_000 }));
  const out = join(repo, '.out');
  const markdown = join(repo, 'report.md');
  const run = await runCli(['compare', '--base', 'main', '--out', out, '--markdown', markdown], repo);
  assert.equal(run.code, 1, run.stderr + run.stdout);
  assert.equal(readResults(resultsPathOf(out)).sides.head.dirty, true);
  const throughput = verdictOf(resultsPathOf(out), 'throughput');
  assert.equal(throughput.verdict, 'regression');
  assert.ok(throughput.change < -0.4, `expected a large drop, got ${throughput.change}`);
  assert.ok(throughput.ciHigh < -0.05, 'the whole interval is beyond the limit');
  assert.match(readFileSync(markdown, 'utf8'), /failing/);
  assert.match(run.stdout, /regression/);
});

test('adaptive stopping: a large regression stops at the interim look, recorded in results.json and told in the report', async () => {
  // 28 pairs in 2 blocks of 14 start pairs: the look after block 1 has 14 start pairs, enough
  // for an all-agreeing one-sided p (1/2^14) to pass the interim level after Holm over 3 gated
  // metrics (the statistics count starts, so fewer starts could never stop for a regression).
  const config = quickConfig('scenarios: [GET /work]')
    .replace('pairs: 12', 'pairs: 28')
    .replace('instances: 12', 'instances: 14')
    .replace('slice: 300ms', 'slice: 200ms');
  const repo = makeRepo({ ...workService(20_000), 'perfgate.yml': config }, workService(200_000));
  const out = join(repo, '.out');
  const run = await runCli(['compare', '--base', 'main', '--out', out, '--seed', '3'], repo);
  assert.equal(run.code, 1, run.stderr + run.stdout);
  const results = readResults(resultsPathOf(out));
  assert.equal(results.status, 'complete');
  assert.equal(results.scenarios[0]!.pairs.length, 14, 'the second block never ran');
  assert.deepEqual(
    results.sequential!.looks.map((l) => [l.afterBlock, l.pairs, l.t]),
    [
      [0, 14, 0.5],
      [1, 28, 1],
    ],
  );
  assert.deepEqual(results.sequential!.taken.map((l) => [l.look, l.pairs, l.decision]), [[0, 14, 'stop-regression']]);
  assert.match(run.stdout, /14 of 28 pairs \(stopped early\)/);
  assert.match(run.stdout, /Stopped early after block 1 of 2 \(14 of 28 pairs per scenario\): GET \/work (throughput|latency p99) .* is already a regression beyond the interim bound/);
  assert.equal(verdictOf(resultsPathOf(out), 'throughput').verdict, 'regression');
});

// Head is the faster branch `head`, the work tree is main's slower code as checked out: only a
// run that measured `head`'s commit finds head faster.
test('--head <ref> measures that commit in a temporary worktree; head faster: its gain, exit 0', async () => {
  const repo = makeRepo({ ...workService(200_000), 'perfgate.yml': quickConfig('scenarios: [GET /work]') }, workService(20_000));
  const { execFileSync } = await import('node:child_process');
  execFileSync('git', ['checkout', '--quiet', 'main'], { cwd: repo });
  const out = join(repo, '.out');
  const run = await runCli(['compare', '--base', 'main', '--head', 'head', '--out', out], repo);
  assert.equal(run.code, 0, run.stderr + run.stdout);
  assert.equal(readResults(resultsPathOf(out)).sides.head.ref, 'head');
  assert.deepEqual(readdirSync(join(out, 'trees')), [], 'both worktrees removed');
  // Ten times faster: an improvement, or, when the first look already ruled out a regression and
  // stopped (the decision cannot change), "no regression" with the gain in its estimate.
  const throughput = verdictOf(resultsPathOf(out), 'throughput');
  assert.ok(['improvement', 'no-regression'].includes(throughput.verdict), throughput.verdict);
  assert.ok(throughput.change > 0.4);
});

test('POST scenario with a JSON body and headers reaches the handler intact', async () => {
  const config = quickConfig(`scenarios:
  - name: echo
    method: POST
    path: /echo
    headers: { content-type: application/json }
    body: { hello: world }
`).replace('pairs: 12', 'pairs: 6').replace('blocks: 2', 'blocks: 1');
  const repo = makeRepo({ 'server.js': { copy: 'services/echo-server.js' }, 'perfgate.yml': config }, {});
  const out = join(repo, '.out');
  const run = await runCli(['compare', '--base', 'main', '--out', out], repo);
  assert.equal(run.code, 0, run.stderr + run.stdout);
  const results = readResults(resultsPathOf(out));
  for (const pair of results.scenarios[0]!.pairs) {
    for (const slice of [pair.base, pair.head]) {
      assert.ok(slice.requests > 0);
      assert.equal(slice.non2xx, 0, 'every request was a valid JSON POST');
    }
  }
});
