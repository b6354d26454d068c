// lane: beside — its regression is tenfold; the rest is the refusals' messages.
// The CLI's stored baseline: `perfgate record` on main's commit, then `perfgate compare
// --baseline` on a branch whose handler does ten times the work, measured alone and failed
// unpaired; and the refusals: a dirty work tree, a record another perfgate configuration made.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { runCli } from '../helpers/cli.js';
import { baseSha, makeRepo } from '../helpers/repo.js';

const QUICK = ['--scenarios', 'GET /work', '--start', 'node server.js', '--pairs', '12', '--blocks', '1', '--instances', '12', '--slice', '300ms', '--warmup', '300ms', '--no-profile', '--quiet'];

test('perfgate record, then compare --baseline: head alone against the record, a tenfold slowdown fails; the refusals say why', async () => {
  const repo = makeRepo({ 'server.js': { copy: 'services/work-server.js' }, 'work.json': '{"iterations": 20000}' }, { 'work.json': '{"iterations": 200000}' });
  const out = mkdtempSync(join(tmpdir(), 'perfgate-record-'));
  const recordPath = join(out, 'record.json');

  const record = await runCli(['record', '--head', 'main', '--out', join(out, 'record'), '--json', recordPath, ...QUICK], repo);
  assert.equal(record.code, 0, record.stderr);
  assert.match(record.stdout, /perfgate: recorded [0-9a-f]{7} in .*compare --baseline/);
  const recorded = JSON.parse(readFileSync(recordPath, 'utf8'));
  assert.equal(recorded.sides.base.sha, baseSha(repo));
  assert.equal(recorded.sides.head.sha, baseSha(repo));

  const compared = await runCli(['compare', '--baseline', recordPath, '--out', join(out, 'head'), ...QUICK], repo);
  assert.equal(compared.code, 1, compared.stderr + compared.stdout);
  assert.match(compared.stdout, /Compared with a stored baseline of [0-9a-f]{7} from a results file/);
  assert.match(compared.stdout, /throughput/);
  const results = JSON.parse(readFileSync(join(out, 'head', 'results.json'), 'utf8'));
  assert.equal(results.baseline.sha, baseSha(repo), 'results.json keeps the baseline: perfgate report gives the same verdicts');
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
