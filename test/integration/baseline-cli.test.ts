// The CLI's stored baseline: `perfgate record` on main's commit (every block, no look), then
// `perfgate compare --baseline` on a branch whose handler does ten times the work, measured alone,
// failed unpaired and stopped at the first look; plan's looks line against the record; and the
// refusals: a dirty work tree, a record another perfgate configuration made.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { runCli } from '../helpers/cli.js';
import { baseSha, makeRepo } from '../helpers/repo.js';

// Two blocks of 6 start pairs: the record measures both, a clear regression only the first.
const QUICK = ['--scenarios', 'GET /work', '--start', 'node server.js', '--pairs', '12', '--blocks', '2', '--instances', '6', '--slice', '300ms', '--warmup', '300ms', '--no-profile', '--quiet'];

test('perfgate record, then compare --baseline: head alone against the record, a tenfold slowdown fails at the first look; the refusals say why', async () => {
  const repo = makeRepo({ 'server.js': { copy: 'services/work-server.js' }, 'work.json': '{"iterations": 20000}' }, { 'work.json': '{"iterations": 200000}' });
  const out = mkdtempSync(join(tmpdir(), 'perfgate-record-'));
  const recordPath = join(out, 'record.json');

  const record = await runCli(['record', '--head', 'main', '--out', join(out, 'record'), '--json', recordPath, ...QUICK], repo);
  assert.equal(record.code, 0, record.stderr);
  assert.match(record.stdout, /perfgate: recorded [0-9a-f]{7} in .*compare --baseline/);
  const recorded = JSON.parse(readFileSync(recordPath, 'utf8'));
  assert.equal(recorded.sides.base.sha, baseSha(repo));
  assert.equal(recorded.sides.head.sha, baseSha(repo));
  assert.equal(recorded.scenarios[0].pairs.length, 12, 'a record measures every block');
  assert.equal(recorded.sequential, undefined, 'a record compares nothing: no look');

  const plan = await runCli(['plan', '--baseline', recordPath, '--no-probe', ...QUICK], repo);
  assert.equal(plan.code, 0, plan.stderr);
  assert.match(plan.stdout, /^looks {4}after block 1, head's starts so far against all of the record's: stop on a regression beyond the look's bound/m);
  assert.match(plan.stdout, /^estimated time: ~[\d.]+s \(~[\d.]+s when the look after block 1 stops early\)/m);

  const compared = await runCli(['compare', '--baseline', recordPath, '--out', join(out, 'head'), ...QUICK], repo);
  assert.equal(compared.code, 1, compared.stderr + compared.stdout);
  assert.match(compared.stdout, /Compared with a stored baseline of [0-9a-f]{7} from a results file/);
  assert.match(compared.stdout, /throughput/);
  assert.match(compared.stdout, /Stopped early after block 1 of 2 \(6 of 12 pairs per scenario\): GET \/work .* against the record is already a regression beyond the interim bound/);
  const results = JSON.parse(readFileSync(join(out, 'head', 'results.json'), 'utf8'));
  assert.equal(results.baseline.sha, baseSha(repo), 'results.json keeps the baseline: perfgate report gives the same verdicts');
  assert.deepEqual(
    results.sequential.taken.map((look: { look: number; decision: string; pairs: number }) => [look.look, look.decision, look.pairs]),
    [[0, 'stop-regression', 6]],
    'the look is recorded as a paired one is',
  );
  assert.equal(results.scenarios[0].pairs.length, 6, 'the second block did not run');
  const again = await runCli(['report', join(out, 'head', 'results.json')], repo);
  assert.equal(again.code, 1);

  // Another configuration (a longer slice) measures differently: refused before anything runs.
  const slower = await runCli(['compare', '--baseline', recordPath, ...QUICK, '--slice', '400ms'], repo);
  assert.equal(slower.code, 2);
  assert.match(slower.stderr, /Refusing the stored baseline \(.*record\.json\): .*configuration hash: the record has "[0-9a-f]{64}", this run "[0-9a-f]{64}"/);

  writeFileSync(join(repo, 'work.json'), '{"iterations": 1}');
  const dirty = await runCli(['compare', '--baseline', recordPath, ...QUICK], repo);
  assert.equal(dirty.code, 2);
  assert.match(dirty.stderr, /--baseline measures one commit on both sides, and the work tree has uncommitted changes/);
  execFileSync('git', ['-C', repo, 'checkout', '--', 'work.json']);
});
