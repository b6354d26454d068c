/**
 * The third arm on a dependency, with a known truth: an analytics collector whose only change is
 * qs 6.16.1 → 6.16.0 in package.json and the lockfile, a downgrade that takes back qs's "skip
 * decoders when there is no percent sign" (qs#583; the upgrade measured +20% throughput here,
 * docs/dependency-bumps.md). The profile names the package; the arm puts base's installed qs in
 * head's tree and must give back the drop: "confirmed". Each side is installed by `npm ci` from
 * its lockfile (test/fixtures/bumps/qs), so the test needs the npm registry or npm's cache.
 * Short: one block of 12 start pairs of 300 ms slices.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { assessResults } from '../../src/assess/compare.js';
import { readResults } from '../../src/results/io.js';
import { runCli } from '../helpers/cli.js';
import { FIXTURES, makeRepo } from '../helpers/repo.js';

const FIXTURE = 'bumps/qs';
const CONFIG = readFileSync(join(FIXTURES, FIXTURE, 'perfgate.yml'), 'utf8').replace(/^load: .*$/m, 'load: { pairs: 12, blocks: 1, instances: 12, slice: 300ms, warmup: 300ms }');
assert.match(CONFIG, /blocks: 1,/, `${FIXTURE}/perfgate.yml has its load on one line`);

test("a dependency downgrade (qs 6.16.1 → 6.16.0): reverting the package to base's install gives the drop back: confirmed", async () => {
  const side = (version: string) => ({
    'package.json': { copy: `${FIXTURE}/v${version}/package.json` },
    'package-lock.json': { copy: `${FIXTURE}/v${version}/package-lock.json` },
  });
  const repo = makeRepo({ 'server.js': { copy: `${FIXTURE}/server.js` }, 'perfgate.yml': CONFIG, '.gitignore': 'node_modules\n.out\n', ...side('6.16.1') }, side('6.16.0'));
  const out = join(repo, '.out');
  const run = await runCli(['compare', '--base', 'main', '--out', out, '--seed', '13'], repo);
  assert.equal(run.code, 1, run.stderr + run.stdout);
  const headline = run.stdout.split('\n').slice(0, 4).join('\n');
  const results = readResults(join(out, 'results.json'));
  const [record] = results.confirmations ?? [];
  assert.ok(record, `a third arm ran: ${headline}`);
  assert.equal(record.culprit.package, 'qs', `the package is the culprit: ${headline}`);
  assert.equal(record.status, 'measured', record.reason ?? '');
  assert.deepEqual(record.reverted, { file: 'node_modules/qs', hunks: 0 });
  const subject = assessResults(results).subjects.find((s) => s.type === 'scenario');
  assert.ok(subject?.type === 'scenario' && subject.confirmation);
  const found = subject.confirmation;
  console.log(`qs 6.16.1 → 6.16.0: gives back ${found.givenBack?.estimate.toFixed(1)} of ${found.points?.toFixed(1)} points (${found.givenBack?.low.toFixed(1)} … ${found.givenBack?.high.toFixed(1)}), ${record.blocks} block(s), ${record.pairs.length} pairs, ${record.wallMs} ms`);
  assert.equal(found.status, 'confirmed', JSON.stringify(found));
  assert.match(headline, /qs 6\.16\.1 → 6\.16\.0/);
  assert.match(headline, /reverting this PR's change to qs gives back (?:[\d.]+ of the [\d.]+ points \(|all of the [\d.]+ points \(measured [\d.]+; )95% CI [\d.]+ … [\d.]+(?: over \d blocks)?\): confirmed/);
});
