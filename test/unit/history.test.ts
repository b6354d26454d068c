// perfgate history: series per scenario and gated metric from runs of main, change points, the
// environment named where it changed, and files that do not pass validation left out by name.
import assert from 'node:assert/strict';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { untrustedRunReason } from '../../src/github/records.js';
import { collectRuns } from '../../src/history/collect.js';
import { resultsArtifactsOf } from '../../src/history/github.js';
import { analyzeHistory, environmentChanges, environmentOf } from '../../src/history/series.js';
import { renderHistorySummary } from '../../src/history/summary.js';
import { runCli } from '../helpers/cli.js';
import { CODE_SHIFT_AT, HISTORY_COMMITS, historyRuns, KERNEL_SHIFT_AT, writeHistoryDir } from '../helpers/history.js';

const runs = () => historyRuns().map((results, i) => ({ file: `run-${i}/results.json`, results }));

describe('history', () => {
  it('finds the code shift and the kernel shift in throughput, and names only the second as the environment', () => {
    const history = analyzeHistory(runs());
    const throughput = history.series.find((s) => s.metric === 'throughput')!;
    assert.equal(throughput.points.length, HISTORY_COMMITS);
    assert.deepEqual(
      throughput.shifts.map((s) => s.index),
      [CODE_SHIFT_AT, KERNEL_SHIFT_AT],
    );
    const [code, kernel] = throughput.shifts;
    assert.deepEqual(code!.environment, []);
    assert.ok(code!.change < -0.08 && code!.change > -0.12, `code shift ${code!.change}`);
    assert.deepEqual(kernel!.environment, [{ key: 'kernel', before: '6.5.0-1025-azure', after: '6.8.0-1017-azure' }]);
    assert.equal(kernel!.sha, historyRuns()[KERNEL_SHIFT_AT]!.sides.head.sha);
  });

  it('orders runs by when they ran, counts a commit measured twice once, and leaves out runs that are not of a commit', () => {
    const list = runs().reverse();
    const again = structuredClone(list[5]!);
    again.file = 'again/results.json';
    again.results.startedAt = '2027-01-01T00:00:00.000Z';
    const dirty = structuredClone(list[6]!);
    dirty.file = 'dirty/results.json';
    dirty.results.sides.head.dirty = true;
    const history = analyzeHistory([...list, again, dirty]);
    assert.equal(history.runs, HISTORY_COMMITS);
    const times = history.series[0]!.points.map((p) => p.time);
    assert.deepEqual(times, [...times].sort());
    assert.equal(history.series[0]!.points.at(-1)!.sha, again.results.sides.head.sha);
    assert.deepEqual(history.runsLeftOut.map((r) => r.file).sort(), [list[5]!.file, 'dirty/results.json'].sort());
  });

  it("reads a sharded gate's shards as parts of one commit: every scenario gets a point per commit, and a part measured again counts once", () => {
    const parts = historyRuns().flatMap((results, i) =>
      [1, 2].map((index) => {
        const part = structuredClone(results);
        const name = index === 1 ? 'GET /hello' : 'GET /other';
        part.scenarios[0]!.name = name;
        part.config.scenarios[0]!.name = name;
        part.shard = { index, count: 2, familyAlpha: 0.05, fullConfigHash: 'a'.repeat(64), scenarios: [name], benchmarks: null, gatedMetrics: 8 };
        return { file: `run-${i}/shard${index}/results.json`, results: part };
      }),
    );
    const again = structuredClone(parts[11]!);
    again.file = 'again/results.json';
    again.results.startedAt = '2027-01-01T00:00:00.000Z';
    const history = analyzeHistory([...parts, again]);
    for (const scenario of ['GET /hello', 'GET /other']) {
      const throughput = history.series.find((s) => s.scenario === scenario && s.metric === 'throughput')!;
      assert.equal(throughput.points.length, HISTORY_COMMITS, scenario);
      assert.equal(new Set(throughput.points.map((p) => p.sha)).size, HISTORY_COMMITS, scenario);
    }
    assert.deepEqual(
      history.runsLeftOut.map((r) => [r.file, r.reason]),
      [[parts[11]!.file, `commit ${parts[11]!.results.sides.head.sha.slice(0, 7)} (shard 2/2) was measured again later`]],
    );
  });

  it('reads the kernel of older files from their os field, and does not count an unrecorded value as a change', () => {
    const [a, b] = historyRuns();
    delete a!.environment.kernel;
    delete a!.environment.v8Version;
    assert.equal(environmentOf(a!).kernel, '6.5.0-1025-azure');
    assert.deepEqual(environmentChanges(environmentOf(a!), environmentOf(b!)), []);
    b!.config.load.pairs += 2;
    assert.deepEqual(
      environmentChanges(environmentOf(a!), environmentOf(b!)).map((c) => c.key),
      ['configuration'],
    );
  });

  it('summarizes the shifts with the commit, the size and the cause', () => {
    const summary = renderHistorySummary(analyzeHistory(runs()), { repository: 'acme/shop', htmlPath: 'history.html', maxPValue: 0.001, windowLength: 30 });
    const rows = summary.split('\n').filter((l) => l.startsWith('| [`'));
    assert.equal(rows.length, 4, summary);
    rows.splice(0, rows.length, ...rows.filter((r) => r.includes('| throughput |')));
    assert.equal(rows.length, 2, summary);
    assert.match(rows[0]!, /GET \/hello \| throughput \| .* \| −\d+(\.\d)?% \| this commit/);
    assert.match(rows[1]!, /environment changed: kernel 6\.5\.0-1025-azure → 6\.8\.0-1017-azure \|$/);
    assert.match(rows[0]!, /https:\/\/github\.com\/acme\/shop\/commit\/[0-9a-f]{40}/);
  });

  it('perfgate history <dir>: prints the summary, appends it to the job summary, writes the page, and names each bad file', async () => {
    const forged = historyRuns()[0]! as unknown as { sides: { head: { sha: string } } };
    forged.sides.head.sha = 'not a sha';
    const dir = writeHistoryDir(historyRuns(), {
      'broken/results.json': '{ not json',
      'forged/results.json': JSON.stringify(forged),
      'notes/other.json': '{}',
    });
    try {
      const summaryFile = join(dir, 'step-summary.md');
      const html = join(dir, 'out', 'history.html');
      const run = await runCli(['history', dir, '--html', html], dir, { PATH: process.env.PATH, GITHUB_STEP_SUMMARY: summaryFile });
      assert.equal(run.code, 0, run.stderr);
      assert.match(run.stderr, /left out broken\/results\.json: .*not valid JSON/);
      assert.match(run.stderr, /left out forged\/results\.json: .*sides\.head\.sha/);
      assert.doesNotMatch(run.stderr, /other\.json/);
      assert.match(run.stdout, /^- broken\/results\.json: .*not valid JSON/m, 'and in the summary, with the runs left out');
      assert.match(run.stdout, /environment changed: kernel/);
      assert.equal(readFileSync(summaryFile, 'utf8'), run.stdout);
      assert.match(readFileSync(html, 'utf8'), /^<!doctype html>/);
      assert.equal(collectRuns(dir).runs.length, HISTORY_COMMITS);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('perfgate history: exits 2 when the directory holds no readable run', async () => {
    const dir = writeHistoryDir([], { 'a/results.json': '[]' });
    try {
      const run = await runCli(['history', dir], dir, { PATH: process.env.PATH });
      assert.equal(run.code, 2);
      assert.match(run.stderr, /no readable results\.json/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('history --github reads the latest attempt\'s results artifact and the records of its gate, nothing else', () => {
    const sha = 'ab'.repeat(20);
    const artifact = (name: string) => ({ id: name.length, name, sizeBytes: 1, digest: null, expired: false, createdAt: '' });
    const names = [
      'perfgate-default',
      'perfgate-default-attempt3',
      'perfgate-default-attempt2',
      'perfgate-default-flamegraph-GET-work.html',
      'perfgate-default-shard1of2',
      `perfgate-record-default-${sha}`,
      `perfgate-record-other-${sha}`,
      'perfgate-other',
      'coverage',
    ];
    assert.deepEqual(
      resultsArtifactsOf(names.map(artifact), 'default').map((a) => a.name),
      ['perfgate-default-attempt3', 'perfgate-default-shard1of2', `perfgate-record-default-${sha}`],
    );
    const shards = ['perfgate-default-shard2of2', 'perfgate-default-shard1of2-attempt2', 'perfgate-default-shard1of2', 'perfgate-default-shard2of2-attempt2-x'];
    assert.deepEqual(
      resultsArtifactsOf(shards.map(artifact), 'default').map((a) => a.name),
      ['perfgate-default-shard1of2-attempt2', 'perfgate-default-shard2of2'],
      "each shard's latest attempt",
    );
    assert.deepEqual(resultsArtifactsOf(names.map(artifact), 'other').map((a) => a.name), ['perfgate-other', `perfgate-record-other-${sha}`]);
    assert.deepEqual(resultsArtifactsOf([artifact('perfgate-a.b')], 'a-b'), [], 'an id is matched as it is spelled, "." included');
  });

  it('trusts a run of this repository on a push, manual or scheduled event, on the branch and at the commit asked', () => {
    const repo = { owner: 'acme', repo: 'shop' };
    const run = { id: 7, event: 'push', head_sha: 'a'.repeat(40), head_branch: 'main', head_repository: { full_name: 'Acme/Shop' } };
    assert.equal(untrustedRunReason(run, repo, { branch: 'main', sha: 'a'.repeat(40) }), null);
    assert.equal(untrustedRunReason({ ...run, event: 'schedule' }, repo), null);
    assert.match(untrustedRunReason({ ...run, event: 'pull_request_target' }, repo)!, /run 7 was triggered by pull_request_target/);
    assert.match(untrustedRunReason({ ...run, head_repository: { full_name: 'mallory/shop' } }, repo)!, /ran the code of mallory\/shop, not of acme\/shop/);
    assert.match(untrustedRunReason({ ...run, head_repository: null }, repo)!, /ran the code of another repository/);
    assert.match(untrustedRunReason({ ...run, head_branch: 'release' }, repo, { branch: 'main' })!, /run 7 ran on release, not on main/);
    assert.match(untrustedRunReason(run, repo, { sha: 'b'.repeat(40) })!, /run 7 measured a{40}, not b{40}/);
  });
});
