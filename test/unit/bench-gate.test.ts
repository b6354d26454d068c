import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { assessResults } from '../../src/assess/compare.js';
import { pairsNeeded } from '../../src/assess/warnings.js';
import { decisionLine } from '../../src/report/document/headline.js';
import { terminalLine } from '../../src/report/print/terminal.js';
import type { Side } from '../../src/results/types.js';
import { benchResults, benchRounds, benchRun, type FakeBenchmark, WOBBLE } from '../helpers/bench.js';

/** ops/s of one round: a base value times the head/base ratio, with wobble. */
const ops = (base: number, ratio: number) => (side: Side, round: number) =>
  base * (side === 'head' ? ratio : 1) * (1 + WOBBLE[(round + (side === 'head' ? 3 : 0)) % WOBBLE.length]!);

describe('micro-benchmark verdicts', () => {
  const fast = ops(6_000, 10);
  const slow = ops(250_000, 0.5);
  const same = ops(66_000, 1);
  const runs = benchRounds(10, 'bench/divide.bench.js', (side, round) => [
    { name: 'faster', suite: 'divide', ops: fast(side, round) },
    { name: 'slower', suite: 'divide', ops: slow(side, round) },
    { name: 'same', suite: 'divide', ops: same(side, round) },
  ]);

  test('paired by round, one number per process: improvement, regression, unchanged', () => {
    const analysis = assessResults(benchResults(runs));
    const verdicts = Object.fromEntries(analysis.benchmarks!.comparisons.map((c) => [c.label, c]));
    assert.deepEqual(Object.keys(verdicts), ['faster', 'slower', 'same'], 'names are unique: labels are the names');
    assert.equal(verdicts['faster']!.verdict, 'improvement');
    assert.ok(Math.abs(verdicts['faster']!.change - 9) < 0.5, `change ${verdicts['faster']!.change}`);
    assert.equal(verdicts['slower']!.verdict, 'regression');
    assert.equal(verdicts['same']!.verdict, 'unchanged');
    assert.equal(verdicts['same']!.n, 10);
    assert.ok(verdicts['slower']!.baseMedian > 240_000 && verdicts['slower']!.headMedian < 130_000, 'medians in ops/s');
    // a gated benchmark regression fails the build, and is counted with the HTTP verdicts
    assert.equal(analysis.decision, 'fail');
    assert.deepEqual(analysis.benchmarks!.failing.map((c) => c.label), ['slower']);
    assert.equal(analysis.regressions, 1);
    assert.equal(analysis.improvements, 1);
    assert.equal(terminalLine(decisionLine(analysis)), 'failing (micro-benchmark limit 10%)');
  });

  test('gate.benchmarks off: the regression is information, the build passes', () => {
    const analysis = assessResults(benchResults(runs, { gate: { benchmarks: 'off' }, alpha: 0.01 }));
    assert.equal(analysis.decision, 'pass');
    const slower = analysis.benchmarks!.comparisons.find((c) => c.name === 'slower')!;
    assert.equal(slower.gated, false);
    assert.equal(slower.pAdjusted, slower.p, 'information only: not Holm-adjusted');
    assert.equal(slower.verdict, 'regression');
  });

  test('one Holm family with the gated HTTP metrics: 10 rounds detect up to 10 gated comparisons at alpha 0.01', () => {
    // Every round agrees: the smallest exact one-sided p with 10 rounds, 1/1024.
    const three = benchRounds(10, 'bench/a.js', (side, round) =>
      ['a', 'b', 'c'].map((name) => ({ name, ops: ops(1000, 0.5)(side, round) })),
    );
    const withHttp = assessResults(benchResults(three, {}, true));
    assert.equal(withHttp.comparisons.filter((c) => c.gated).length, 3, 'throughput, latency p99 and errors');
    for (const c of withHttp.benchmarks!.comparisons) {
      assert.equal(c.p, 1 / 1024);
      // errors, with no failed request on either side, cannot be rejected and is not in the family
      assert.ok(Math.abs(c.pAdjusted - 5 / 1024) < 1e-12, 'adjusted over 2 HTTP + 3 benchmark comparisons');
      assert.equal(c.verdict, 'regression');
    }
    assert.equal(withHttp.warnings.some((w) => w.code === 'underpowered'), false);

    const nine = benchRounds(10, 'bench/a.js', (side, round) =>
      'abcdefghi'.split('').map((name) => ({ name, ops: ops(1000, 0.5)(side, round) })),
    );
    const tooMany = assessResults(benchResults(nine, {}, true));
    assert.ok(tooMany.benchmarks!.comparisons.every((c) => c.verdict === 'inconclusive'), '11 × 1/1024 > 0.01');
    const warning = tooMany.warnings.find((w) => w.code === 'underpowered' && w.benchmark !== undefined)!;
    assert.match(warning.message, /With 10 rounds and 2 gated metrics and 9 gated micro-benchmarks no micro-benchmark change can reach significance/);
    assert.match(warning.message, /at least 11 rounds \(benchmarks\.rounds\)/);
    assert.equal(pairsNeeded(10, 10, 0.01), null);
    assert.equal(pairsNeeded(10, 11, 0.01), 11);
  });
});

describe('what cannot be compared is listed', () => {
  const both = (side: Side, round: number): FakeBenchmark[] => [
    { name: 'x', suite: 'S1', ops: ops(1000, 1)(side, round) },
    { name: 'x', suite: 'S2', ops: ops(2000, 1)(side, round) },
    side === 'base' ? { name: 'old', suite: 'S1', ops: 500 } : { name: 'new', suite: 'S1', ops: 700 },
    { name: 'thrower', suite: 'S1', ops: side === 'head' ? 'Error: x is not a function' : 900 },
  ];
  const runs = [
    ...benchRounds(8, 'bench/a.js', both),
    ...benchRounds(8, 'bench/b.js', (side, round) => [{ name: 'x', ops: ops(3000, 1)(side, round) }]),
    // c.js breaks on head: every head process fails
    ...[0, 1].flatMap((round) => [
      benchRun(round, 'bench/c.js', 'base', [{ name: 'c1', ops: 100 }]),
      benchRun(round, 'bench/c.js', 'head', [], 'exited with code 1\n--- last lines of its stderr ---\nTypeError: boom'),
    ]),
    // d.js never worked anywhere: its benchmarks are unknown
    ...(['base', 'head'] as Side[]).map((side) => benchRun(0, 'bench/d.js', side, [], 'did not finish within 2s (benchmarks.timeout) and was killed')),
    // e.js is new on head
    benchRun(0, 'bench/e.js', 'head', [{ name: 'e1', ops: 42 }]),
  ];
  const analysis = assessResults(benchResults(runs));
  const bench = analysis.benchmarks!;

  test('duplicate names are told apart by suite, then by file', () => {
    assert.deepEqual(
      bench.comparisons.map((c) => [c.label, c.verdict]),
      [
        ['S1 › x', 'unchanged'],
        ['S2 › x', 'unchanged'],
        ['bench/b.js › x', 'unchanged'],
      ],
    );
  });

  test('added, removed and failed benchmarks are listed, not compared', () => {
    assert.deepEqual(
      bench.uncompared.map((b) => [b.label, b.status, b.baseOpsPerSec, b.headOpsPerSec, b.reason]),
      [
        ['old', 'removed', 500, null, null],
        ['new', 'added', null, 700, null],
        ['thrower', 'failed', 900, null, 'it threw on head: Error: x is not a function'],
        ['c1', 'failed', 100, null, 'bench/c.js failed on head'],
        ['e1', 'added', null, 42, null],
      ],
    );
  });

  test('failed files are reported per side, and the decision says what could not be compared', () => {
    assert.deepEqual(
      bench.failures.map((f) => [f.file, f.side, f.failedRounds, f.runs, f.message.split('\n')[0]]),
      [
        ['bench/c.js', 'head', [0, 1], 2, 'exited with code 1'],
        ['bench/d.js', 'base', [0], 1, 'did not finish within 2s (benchmarks.timeout) and was killed'],
        ['bench/d.js', 'head', [0], 1, 'did not finish within 2s (benchmarks.timeout) and was killed'],
      ],
    );
    assert.deepEqual(bench.notCompared, [
      'thrower (it threw on head: Error: x is not a function)',
      'c1 (bench/c.js failed on head)',
      'bench/d.js (failed on base and head)',
    ]);
    assert.equal(analysis.decision, 'pass', 'what could not be measured does not fail the build');
    assert.equal(
      terminalLine(decisionLine(analysis)),
      'passing; 3 micro-benchmarks could not be compared: thrower (it threw on head: Error: x is not a function); c1 (bench/c.js failed on head); and 1 more',
    );
    const codes = analysis.warnings.map((w) => w.code);
    assert.equal(codes.filter((c) => c === 'benchmark-failed').length, 3);
    assert.ok(codes.includes('few-rounds'), '8 rounds');
  });

  test('a budget that ran out is a warning', () => {
    const results = benchResults(benchRounds(6, 'bench/a.js', both));
    results.benchmarks!.stoppedEarly = 'the budget of 1m (benchmarks.budget) ran out in round 7 of 10';
    const warning = assessResults(results).warnings.find((w) => w.code === 'benchmark-budget')!;
    assert.match(warning.message, /stopped early: the budget of 1m/);
  });
});
