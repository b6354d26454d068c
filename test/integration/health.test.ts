import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { before, describe, test } from 'node:test';
import { assessResults, describeFailing } from '../../src/assess/compare.js';
import { aggregateHealth, generatorBoundSlice } from '../../src/assess/health.js';
import { readResults } from '../../src/results/io.js';
import type { Results } from '../../src/results/types.js';
import { runCli } from '../helpers/cli.js';
import { healthSection } from '../helpers/health.js';
import { type Files, fewestPairs, IDENTICAL_CODE_ALPHA, makeRepo, quickConfig, ROOT } from '../helpers/repo.js';

/**
 * The health tests' configuration: 5 starts per side and block, so each start serves 2–3 slices
 * (a heap trend needs a few points per process lifetime) and 10 start pairs reach significance.
 */
const healthConfig = (scenarios: string) => quickConfig(scenarios).replace('instances: 12', 'instances: 5');

/** Runs compare in a repository of `base` and `head`; returns the exit code, the results and both reports. */
async function compare(base: Files, head: Files, scenarios = 'scenarios: [GET /work]', config = healthConfig(scenarios)) {
  const repo = makeRepo({ ...base, 'perfgate.yml': config }, head);
  const out = join(repo, '.out');
  const markdownFile = join(repo, 'report.md');
  const run = await runCli(['compare', '--base', 'main', '--out', out, '--markdown', markdownFile], repo);
  assert.notEqual(run.code, 2, run.stderr + run.stdout);
  const results = readResults(join(out, 'results.json'));
  return { code: run.code, results, analysis: assessResults(results), terminal: run.stdout, markdown: readFileSync(markdownFile, 'utf8') };
}

/**
 * Every slice carries its processes' health, all of them reporting; `unreported` slices may have
 * none: a process whose loop is held by a synchronous call, on a machine a neighbour keeps busy,
 * may not acknowledge a window's opening within the second the engine waits for it, and that slice
 * then has no health record (missing data, said as such, not a value).
 */
function assertEveryPairHasHealth(results: Results, unreported = 0): void {
  const slices = results.scenarios.flatMap((s) => s.pairs).flatMap((pair) => [pair.base, pair.head]);
  const without = slices.filter((slice) => !slice.health).length;
  assert.ok(without <= unreported, `${without} of ${slices.length} slices have no health data`);
  for (const slice of slices) {
    if (slice.health) assert.equal(slice.health.missing, 0);
    assert.ok(slice.generatorCpuSeconds! > 0, 'the load generator\'s CPU is measured');
    assert.ok(slice.generatorEventLoopUtilization! > 0 && slice.generatorEventLoopUtilization! <= 1);
  }
}

test('a synchronous key derivation in head: event-loop delay regression, a failing build, and the hint', async (t) => {
  // A gated regression needs p < 0.01 after Holm over the three gated metrics: with every start
  // pair on one side, that takes at least 9 start pairs (3/512). With 10, one CI run was left
  // with 8 usable ones (two pairs had no event-loop delay value) and could not reach it.
  const { code, results, analysis, markdown, terminal } = await compare(
    { 'server.js': { copy: 'services/blocking-server.js' }, 'block.json': JSON.stringify({ everyMs: 0, iterations: 100_000 }) },
    { 'block.json': JSON.stringify({ everyMs: 250, iterations: 100_000 }) },
    'scenarios: [GET /work]',
    // every start pair measured (no look stops it first): the loop's delay is decided at the final level
    // 16 start pairs: a quarter of them may lose a slice's health beside a busy neighbour (below)
    // and the rest still reach the level.
    quickConfig('scenarios: [GET /work]').replace('pairs: 12', 'pairs: 16').replace('instances: 12', 'instances: 8').replace('  warmup: 100ms\n', '  warmup: 100ms\n  early-stop: false\n'),
  );
  t.diagnostic(`blocking fixture, health section:\n${healthSection(markdown)}`);
  assertEveryPairHasHealth(results, 8);
  const p99 = analysis.health!.comparisons.find((c) => c.metric === 'event_loop_delay_p99')!;
  assert.equal(p99.verdict, 'regression', JSON.stringify(p99));
  // head's loop waits ≥20 ms longer (base's own delay includes waiting for the CPU it shares with head)
  assert.ok(p99.headMedian > p99.baseMedian + 20_000, `head ${p99.headMedian} µs, base ${p99.baseMedian} µs`);
  assert.equal(code, 1, 'the gated event-loop delay fails the build');
  assert.ok(analysis.health!.failing.includes(p99));
  assert.ok(analysis.health!.hints.some((h) => h.kind === 'blocked-loop'));
  // The headline leads with the largest gated change (here latency p99 may beat the loop's delay);
  // the failing list, which the action's check message prints, names the loop's delay and its limit.
  assert.match(markdown, /failing: GET \/work /);
  assert.ok(
    describeFailing(analysis).some((line) => /^event_loop_delay_p99 of GET \/work [\d,.]+% \(limit 50% and 10 ms\)$/.test(line)),
    describeFailing(analysis).join('\n'),
  );
  assert.match(healthSection(markdown), /💡 \*\*GET \/work:\*\* event loop blocked up to [\d.]+ ms in head \(base [\d.]+ (µs|ms)\): a synchronous call holds the loop/);
  assert.match(terminal, /→ GET \/work: event loop blocked up to/);
});

test('every request kept in a map in head: "possible leak", and what is kept, named from heap snapshots', async (t) => {
  // A trend needs points within each process lifetime: 4 starts per side, 5 slices each. The
  // flagged scenario is profiled briefly, with heap snapshots at its load's start and end.
  const leakConfig = healthConfig('scenarios: [GET /work]')
    .replace('pairs: 12', 'pairs: 20')
    .replace('instances: 5', 'instances: 2')
    .replace('profile: false', 'profile: { duration: 1s, confirm: false }');
  const { results, analysis, markdown } = await compare(
    { 'server.js': { copy: 'services/leak-server.js' }, 'leak.json': JSON.stringify({ keep: false }) },
    { 'leak.json': JSON.stringify({ keep: true }) },
    'scenarios: [GET /work]',
    leakConfig,
  );
  t.diagnostic(`leaking fixture, health section:\n${healthSection(markdown)}`);
  assertEveryPairHasHealth(results);
  const growth = analysis.health!.heap[0]!;
  assert.equal(growth.verdict, 'regression', JSON.stringify(growth));
  assert.ok(growth.head.blocks.every((b) => b !== null && b > 0), 'rising in every block');
  // ~700 bytes kept per request: about 7 MB per 10,000 requests
  assert.ok(growth.change > 3 && growth.change < 15, `head grows ${growth.change} MB per 10k requests more than base`);
  assert.ok(analysis.health!.hints.some((h) => h.kind === 'possible-leak'));
  assert.match(healthSection(markdown), /⚠️ \*\*GET \/work:\*\* heap grows \\~[\d.]+ MB per 10k requests in head only \(base [+−]?[\d.]+ MB; rising in \d+ of \d+ starts\): possible leak/);
  assert.match(markdown, /⚠️ possible leak \|/);
  // Each request keeps a 512-character string and a small object: the strings weigh the most.
  const head = results.profiles![0]!.sides.head.retained!;
  assert.equal(head.skipped, null);
  const line = readFileSync(join(ROOT, 'test', 'fixtures', 'services', 'leak-server.js'), 'utf8').split('\n').findIndex((l) => l.startsWith('function handleWork')) + 1;
  assert.match(
    healthSection(markdown),
    new RegExp(`head keeps \\+[\\d.]+ [kM]B more than base in [\\d.]+k? \\(string\\), held in seen \\(a Map\\), which handleWork adds to \\(server\\.js:${line}, not changed by this PR\\)`),
  );
  // The warning above the fold says it too, in place of the generic advice.
  assert.match(healthSection(markdown), /: possible leak — head keeps \+[\d.]+ [kM]B more than base in /);
  const kept = analysis.subjects.flatMap((s) => (s.type === 'scenario' ? [s.profile?.leak?.culprit] : []))[0]!;
  // ~530 bytes of string kept per request head served while profiled (padEnd makes each of several string objects)
  const perRequest = kept.kept.size / results.profiles![0]!.sides.head.allocations!.responses;
  assert.ok(perRequest > 400 && perRequest < 1500, `${perRequest} bytes of (string) kept per request: ${JSON.stringify(kept.kept)}`);
});

test('A/A: no health verdict on identical code; the gated event-loop delay p99 unchanged', async (t) => {
  // The heap trend needs several slices within each process lifetime (5 here): with 2 slices per
  // start it measures start-up growth. Event-loop delay p99 is unchanged when its 95% interval of
  // the start pairs' differences is inside ±10 ms. A neighbour's CPU burst can delay one start's
  // loop by tens of milliseconds; the Walsh averages with that start are the largest. The upper
  // bound is the 4th-largest of them with 8 start pairs, one of the 8 that hold the delayed start;
  // with 12 it is the 14th-largest, below the 12 that hold it: one delayed start moves it little.
  const config = healthConfig(`scenarios: [GET /work]\n${IDENTICAL_CODE_ALPHA}`).replace('pairs: 12', 'pairs: 60').replace('instances: 5', 'instances: 6');
  const files = { 'server.js': { copy: 'services/work-server.js' }, 'work.json': JSON.stringify({ iterations: 20_000 }) };
  const { results, analysis, markdown } = await compare(files, { 'README.md': 'no code change' }, '', config);
  t.diagnostic(`A/A, health section:\n${healthSection(markdown)}`);
  assertEveryPairHasHealth(results);
  // Identical code never gets a health verdict: no regression, no improvement. A noisy metric (GC
  // time per request on a busy machine) may be inconclusive, or rule out only a worsening (no
  // regression); the gated one, event-loop delay p99, is unchanged.
  for (const c of analysis.health!.comparisons) {
    assert.ok(c.verdict !== 'regression' && c.verdict !== 'improvement', `${c.metric}: ${JSON.stringify(c)}`);
  }
  const gated = analysis.health!.comparisons.find((c) => c.metric === 'event_loop_delay_p99')!;
  assert.equal(gated.verdict, 'unchanged', JSON.stringify(gated));
  assert.equal(analysis.health!.heap[0]!.verdict, 'unchanged', JSON.stringify(analysis.health!.heap[0]));
  assert.deepEqual(analysis.health!.hints, []);
});

// The next tests assert what each slice records, not a verdict: the fewest pairs do. (Where both
// sides are generator-bound, throughput is inconclusive whatever the pairs measured.)
test('cluster mode: the workers report, each for itself, and the side aggregates them', async () => {
  const scenarios = 'scenarios: [GET /work]';
  // One block of 3 starts a side (each start is three processes), each serving 2 slices.
  const config = fewestPairs(healthConfig(scenarios)).replace('blocks: 2', 'blocks: 1').replace('instances: 5', 'instances: 3');
  const { results, analysis } = await compare({ 'server.js': { copy: 'services/cluster-server.js' } }, { 'README.md': 'no code change' }, scenarios, config);
  assertEveryPairHasHealth(results);
  // A 300 ms slice on a busy machine may end before a worker's young generation fills, so a
  // slice without a scavenge is no fault; a run whose workers never report one is.
  let collected = 0;
  for (const pair of results.scenarios[0]!.pairs) {
    for (const slice of [pair.base, pair.head]) {
      const processes = slice.health!.processes;
      const workers = processes.filter((p) => p.worker);
      const primary = processes.find((p) => !p.worker)!;
      assert.equal(workers.length, 2, 'both workers reported');
      assert.ok(primary, 'the primary reported');
      assert.ok(workers.every((w) => w.ppid === primary.pid), 'the workers are the primary\'s children');
      const values = aggregateHealth(slice.health)!;
      // the workers serve the requests: the side's utilisation is theirs, not the idle primary's
      assert.equal(values.utilization, Math.max(...workers.map((w) => w.eventLoopUtilization)));
      assert.ok(values.utilization > primary.eventLoopUtilization);
      assert.equal(values.heapUsedBytes, processes.reduce((a, p) => a + p.heapUsedBytes, 0));
      if (workers.some((w) => w.gc.minor.count > 0)) collected++;
    }
  }
  assert.ok(collected > 0, 'the workers collected garbage');
  assert.ok(analysis.health!.comparisons.length > 0);
});

describe('the load generator check, on one service cheap to serve: a route cheap to read and one expensive to read', () => {
  let run: Awaited<ReturnType<typeof compare>>;
  before(async () => {
    const scenarios = 'scenarios: [GET /, GET /heavy]';
    run = await compare({ 'server.js': { copy: 'services/heavy-response-server.js' } }, { 'README.md': 'no code change' }, scenarios, fewestPairs(healthConfig(scenarios)));
  });

  test('a trivial route: the check runs on real slices (records whether it fired)', (t) => {
    const { results, analysis, terminal } = run;
    assertEveryPairHasHealth(results);
    const scenario = results.scenarios.find((s) => s.name === 'GET /')!;
    const check = analysis.health!.generator.find((g) => g.scenario === 'GET /')!;
    const bySlice = (side: 'base' | 'head') => scenario.pairs.filter((p) => generatorBoundSlice(p[side])).length;
    t.diagnostic(
      `trivial route: load-generator bound ${check.bound.length > 0 ? `FIRED (${check.bound.join(', ')})` : 'did not fire'}; ` +
        (['base', 'head'] as const)
          .map((side) => {
            const s = check.sides[side];
            return `${side}: generator loop ${(100 * s.generatorBusy).toFixed(0)}% busy, ${(100 * s.generatorCpu).toFixed(0)}% of a core, service loop ${(100 * s.serviceLoad).toFixed(0)}% busy, ${bySlice(side)} of ${s.slices} slices bound`;
          })
          .join('; '),
    );
    for (const side of ['base', 'head'] as const) {
      assert.equal(check.sides[side].boundSlices, bySlice(side));
      assert.equal(check.bound.includes(side), 2 * bySlice(side) >= check.sides[side].slices);
      assert.equal(check.sides[side].serviceLoadSource, 'event-loop');
    }
    const throughput = analysis.comparisons.find((c) => c.scenario === 'GET /' && c.metric === 'throughput')!;
    assert.equal(throughput.generatorBound !== undefined, check.bound.length > 0);
    const hinted = terminal.split('\n').some((line) => /GET \/: .*load generator was busy .* throughput measures the generator/.test(line));
    assert.equal(hinted, check.bound.length > 0);
  });

  test('a route expensive to read: the load generator is the bottleneck, throughput is inconclusive', (t) => {
    const { results, analysis, markdown } = run;
    const check = analysis.health!.generator.find((g) => g.scenario === 'GET /heavy')!;
    t.diagnostic(`generator-heavy route: ${JSON.stringify(check.sides)}`);
    assert.deepEqual(check.bound, ['base', 'head'], JSON.stringify(check.sides));
    const throughput = analysis.comparisons.find((c) => c.scenario === 'GET /heavy' && c.metric === 'throughput')!;
    assert.equal(throughput.verdict, 'inconclusive');
    assert.deepEqual(throughput.generatorBound, ['base', 'head']);
    assert.ok(analysis.warnings.some((w) => w.code === 'load-generator-bound' && w.scenario === 'GET /heavy'), JSON.stringify(analysis.warnings));
    assert.match(healthSection(markdown), /⚠️ at its limit/);
    const scenario = results.scenarios.find((s) => s.name === 'GET /heavy')!;
    assert.ok(scenario.pairs.every((p) => p.base.health!.processes[0]!.eventLoopUtilization < 0.8), 'the service idled');
  });
});
