// The stored baseline's pure parts: the unpaired verdicts through the gate's Holm family, the
// environment check, what a record must be, and the artifact name a record is found by.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { assessResults } from '../../src/assess/compare.js';
import { interimLookAgainst } from '../../src/assess/look.js';
import { planSequential } from '../../src/engine/plan.js';
import { startSummaries } from '../../src/assess/unpaired.js';
import { METRIC_DEFINITIONS } from '../../src/assess/metrics.js';
import { recordArtifactName } from '../../src/github/records.js';
import { BaselineError, baselineOf, checkEnvironment, environmentDifferences } from '../../src/results/baseline.js';
import type { Results } from '../../src/results/types.js';
import { validateResults } from '../../src/results/validate.js';
import { createRandom } from '../../src/stats/random.js';
import { renderReport } from '../../src/report/comment.js';
import { resultsFromPairs } from '../helpers/results.js';

const BASE = 'a'.repeat(40);
const HEAD = 'c'.repeat(40);

/** A run of one commit: `starts` start pairs of 3 pairs each, every slice near `rps` (noise ±2%, seeded), both sides that commit. */
function oneCommitRun(sha: string, rps: number, seed: number, starts = 8): Results {
  const random = createRandom(seed);
  const noisy = () => rps * (1 + 0.04 * (random() - 0.5));
  const pairs = Array.from({ length: starts * 3 }, (): [number, number] => [noisy(), noisy()]);
  const results = resultsFromPairs(pairs, {}, 3);
  const side = { ref: sha === BASE ? 'main' : 'HEAD', sha, dirty: false };
  return { ...results, sides: { base: side, head: side }, environment: { ...results.environment, kernel: '6.8.0-1017-azure', osImage: 'ubuntu24 20261120.1', v8Version: '13.6', configHash: 'f'.repeat(64) } };
}

function withBaseline(head: Results, record: Results): Results {
  return { ...head, baseline: baselineOf(record, BASE, '5001', 'the record') };
}

describe('head against a stored baseline (unpaired)', () => {
  it('fails a 10% drop in throughput, and the report says what it was compared with', () => {
    const results = withBaseline(oneCommitRun(HEAD, 9000, 2), oneCommitRun(BASE, 10000, 1));
    const analysis = assessResults(results);
    const throughput = analysis.comparisons.find((c) => c.metric === 'throughput')!;
    assert.equal(throughput.verdict, 'regression');
    assert.ok(Math.abs(throughput.change + 0.1) < 0.02, `change ${throughput.change}`);
    assert.equal(throughput.n, 16, '8 start pairs of each run: a start pair, both its starts, is one unit');
    assert.ok(throughput.pAdjusted >= throughput.p, 'Holm-adjusted with the other gated metrics');
    assert.equal(analysis.decision, 'fail');
    assert.equal(analysis.warnings[0]!.code, 'stored-baseline');
    const report = renderReport(results, analysis);
    assert.match(report, /Compared with a stored baseline of aaaaaaa from run 5001 \(2026-11-22\), measured in another run/);
    assert.match(report, /base: stored record of aaaaaaa \(run 5001\) → head HEAD@/);
    assert.equal(analysis.health, undefined, "no head-against-head health verdicts");
  });

  it('passes the same commit measured twice: unchanged, no regression', () => {
    const analysis = assessResults(withBaseline(oneCommitRun(HEAD, 10000, 4), oneCommitRun(BASE, 10000, 3)));
    assert.equal(analysis.decision, 'pass');
    assert.equal(analysis.comparisons.find((c) => c.metric === 'throughput')!.verdict, 'unchanged');
  });

  it('gives no verdict for a scenario the record lacks, and says so', () => {
    const record = oneCommitRun(BASE, 10000, 1);
    const head = oneCommitRun(HEAD, 10000, 2);
    const analysis = assessResults(withBaseline(head, { ...record, scenarios: [{ ...record.scenarios[0]!, name: 'GET /other' }] }));
    assert.deepEqual(analysis.comparisons, []);
    assert.ok(analysis.warnings.some((w) => w.message === 'The stored baseline has no pairs of GET /hello: no verdict for it.'));
  });

  it('summarises each start pair, both its starts together, by the Hodges–Lehmann estimate of its slices', () => {
    const run = oneCommitRun(BASE, 10000, 1, 2);
    const throughput = METRIC_DEFINITIONS.find((d) => d.id === 'throughput')!;
    const pairs = run.scenarios[0]!.pairs;
    // One start pair whose base-side start ran 10% faster than its head-side start: one unit, between the two.
    const skewed = pairs.map((p) => (p.start === 0 ? { ...p, base: { ...p.base, rps: 11000 }, head: { ...p.head, rps: 10000 } } : p));
    const summaries = startSummaries(skewed, throughput);
    assert.equal(summaries.length, 2);
    assert.ok(summaries[0]! > Math.log(10000) && summaries[0]! < Math.log(11000), `${summaries[0]}`);
  });

  it('survives results.json validation (the schema keeps the baseline)', () => {
    const results = withBaseline(oneCommitRun(HEAD, 10000, 2), oneCommitRun(BASE, 10000, 1));
    const read = validateResults(JSON.parse(JSON.stringify(results)), 'test');
    assert.equal(read.baseline?.runId, '5001');
    assert.equal(read.baseline?.scenarios[0]?.pairs.length, 24);
  });
});

describe('the looks against a stored baseline', () => {
  // The defaults: 72 pairs in 3 blocks of 8 start pairs; the record measured all 24, head its first 8.
  const record = oneCommitRun(BASE, 10000, 1, 24);
  const baseline = baselineOf(record, BASE, '5001', 'the record');
  function atFirstLook(rps: number, seed: number): Results {
    const head = { ...oneCommitRun(HEAD, rps, seed, 8), config: record.config, status: 'running' as const };
    for (const p of head.scenarios[0]!.pairs) p.block = 0;
    return { ...head, sequential: planSequential(record.config, 'unpaired')! };
  }

  it('stops a clear regression at the first look, and the run fails at that look\'s level', () => {
    const head = atFirstLook(8000, 2);
    const taken = interimLookAgainst(baseline)(head, 0);
    assert.equal(taken.decision, 'stop-regression');
    assert.equal(taken.pairs, 24);
    assert.match(taken.reason, /^GET \/hello (throughput|latency p\d+) -\d+% against the record is already a regression beyond the interim bound \(adjusted p .* < 0\.00\d+\)$/);
    const stopped = { ...head, status: 'complete' as const, baseline, sequential: { ...head.sequential!, taken: [taken] } };
    assert.equal(assessResults(stopped).decision, 'fail');
    assert.match(renderReport(stopped, assessResults(stopped)), /Stopped early after block 1 of 3 \(24 of 72 pairs per scenario\).*over head's starts against the record's/);
  });

  it('does not stop the same commit for a regression', () => {
    const taken = interimLookAgainst(baseline)(atFirstLook(10000, 4), 0);
    assert.notEqual(taken.decision, 'stop-regression');
  });
});

describe('what a record must be', () => {
  const record = oneCommitRun(BASE, 10000, 1);
  const refused = (r: Results, sha = BASE) => assert.throws(() => baselineOf(r, sha, '5001', 'the record'), BaselineError);
  it('one commit on both sides, complete, of the base sha, not measured for a pull request', () => {
    assert.equal(baselineOf(record, BASE, '5001', 'the record').recordedAt, record.startedAt);
    refused(record, HEAD);
    refused({ ...record, status: 'failed' });
    refused({ ...record, sides: { ...record.sides, head: { ref: 'pr', sha: HEAD, dirty: false } } });
    refused({ ...record, github: { repository: 'acme/shop', pullRequest: 7, headSha: BASE, baseSha: BASE, runId: '1', event: 'pull_request' } });
    assert.throws(() => baselineOf(record, HEAD, '5001', 'the record'), /it measured a{40}.*mode: record/);
  });
});

describe('the environment check', () => {
  const record = oneCommitRun(BASE, 10000, 1);
  const baseline = baselineOf(record, BASE, '5001', 'the record');
  it('accepts the same runner, perfgate and configuration', () => {
    assert.deepEqual(environmentDifferences(baseline, { environment: record.environment, toolVersion: 'test' }), []);
    checkEnvironment(baseline, { environment: record.environment, toolVersion: 'test' }, 'the record');
  });
  it('names every field that differs with both values', () => {
    const here = { ...record.environment, kernel: '6.11.0-1005-azure', nodeFlags: ['--jitless'], cpus: 4 };
    assert.throws(
      () => checkEnvironment(baseline, { environment: here, toolVersion: '0.9.0' }, 'the record of run 5001'),
      (e: Error) =>
        e instanceof BaselineError &&
        e.message.includes('perfgate version: the record has "test", this run "0.9.0"') &&
        e.message.includes('CPU count: the record has "2", this run "4"') &&
        e.message.includes('kernel: the record has "6.8.0-1017-azure", this run "6.11.0-1005-azure"') &&
        e.message.includes('Node flags: the record has "", this run "--jitless"') &&
        /baseline: same-runner/.test(e.message),
    );
  });
  it('counts a field either side did not record as a difference', () => {
    const { kernel: _, ...noKernel } = record.environment;
    assert.deepEqual(environmentDifferences(baseline, { environment: noKernel, toolVersion: 'test' }), [
      { field: 'kernel', record: '6.8.0-1017-azure', here: '(not recorded)' },
    ]);
  });
});

describe('record artifacts', () => {
  it('are named by gate id and sha, within GitHub\'s limits', () => {
    const name = recordArtifactName('api', BASE);
    assert.equal(name, `perfgate-record-api-${BASE}`);
    assert.ok(recordArtifactName('x'.repeat(64), BASE).length <= 256);
  });
});
