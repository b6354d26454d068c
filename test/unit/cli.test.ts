import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { runCli } from '../helpers/cli.js';
import { makeRepo, quickConfig, ROOT } from '../helpers/repo.js';
import { resultsFromPairs } from '../helpers/results.js';

const service = { 'server.js': "require('node:http').createServer((q, s) => s.end('ok')).listen(process.env.PORT);\n" };

function worktrees(repo: string): number {
  return execFileSync('git', ['worktree', 'list'], { cwd: repo, encoding: 'utf8' }).trim().split('\n').length;
}

/** A compare that must fail at the door: exit 2, the message, and nothing created. */
async function failsEarly(repo: string, args: string[], message: RegExp): Promise<string> {
  const out = join(repo, '.out');
  const run = await runCli(['compare', '--out', out, ...args], repo);
  assert.equal(run.code, 2, run.stderr);
  assert.match(run.stderr, message);
  assert.equal(existsSync(out), false, 'no run folder');
  assert.equal(worktrees(repo), 1, 'no worktree was added');
  return run.stderr;
}

test('compare: a bad flag or config fails before any checkout, and names the key', async () => {
  const repo = makeRepo({ ...service, 'perfgate.yml': quickConfig('scenarios: [GET /]') }, { 'README.md': 'x' });
  const stderr = await failsEarly(repo, ['--base', 'main', '--pairs=-5'], /load\.pairs: -5 is not allowed; use an integer of at least 6/);
  assert.doesNotMatch(stderr, /use 1 to/, 'no cascade into the blocks check');
  await failsEarly(repo, ['--base', 'main', '--slice', '5 parsecs'], /load\.slice/);
  await failsEarly(repo, ['--base', 'no-such-branch'], /The base ref "no-such-branch" is not a commit/);
  await failsEarly(repo, ['--base', 'main', '--config', 'missing.yml'], /config file not found/);
});

test('compare --head <ref>: the config is read from the head commit, without a checkout', async () => {
  const repo = makeRepo({ ...service, 'perfgate.yml': quickConfig('scenarios: [GET /]') }, { 'perfgate.yml': 'load: { pairs: two }\n' });
  execFileSync('git', ['checkout', '--quiet', 'main'], { cwd: repo });
  await failsEarly(repo, ['--base', 'main', '--head', 'head'], /head:perfgate\.yml: load\.pairs: "two" is not allowed/);
});

test('plan: checks, resolves base and head, prints the plan with an estimated time, and checks nothing out', async () => {
  const repo = makeRepo({ ...service, 'perfgate.yml': quickConfig('scenarios: [GET /, POST /echo]') }, { 'README.md': 'x' });
  const out = join(repo, '.out');
  for (const args of [['plan'], ['compare', '--dry-run']]) {
    const run = await runCli([...args, '--base', 'main', '--out', out, '--pairs', '20', '--seed', '3'], repo);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /^base {5}main@[0-9a-f]{7} \(merge-base with head\)$/m);
    assert.match(run.stdout, /^head {5}head@[0-9a-f]{7}$/m);
    assert.match(run.stdout, /^ {2}GET \/ /m);
    assert.match(run.stdout, /^ {2}POST \/echo /m);
    assert.match(run.stdout, /^load {5}20 pairs per scenario in 2 blocks \(10 \+ 10\), 300ms slices, 100ms warm-up per start pair, then 100ms per other scenario$/m);
    assert.match(run.stdout, /^starts {3}20 per side \(10 \+ 10 by block, fresh in each; a start pair serves every scenario in its turn\)$/m);
    assert.match(run.stdout, /^looks {4}after block 1: stop on a regression beyond the look's bound, or once no gated metric can fail any more \(load\.stop: decision\)$/m);
    assert.match(run.stdout, /^seed {5}3$/m);
    assert.match(run.stdout, /^ {2}measure +~\d/m);
    assert.match(run.stdout, /^estimated time: ~\d+(\.\d)?s \(~[\d.]+s when the look after block 1 stops early\), plus install and build$/m);
    assert.equal(existsSync(out), false);
    assert.equal(worktrees(repo), 1);
  }
  // A record compares nothing: every block runs, no look, no early stop in the estimate.
  const record = await runCli(['record', '--dry-run', '--head', 'main', '--out', out, '--pairs', '20', '--seed', '3'], repo);
  assert.equal(record.code, 0, record.stderr);
  assert.match(record.stdout, /^starts {3}20 per side/m);
  assert.doesNotMatch(record.stdout, /^looks/m);
  assert.match(record.stdout, /^estimated time: ~\d+(\.\d)?s, plus install and build$/m);
  const bad = await runCli(['plan', '--base', 'main', '--blocks', '99'], repo);
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /load\.blocks: 99 is more than load\.pairs \(12\); use 1 to 12/);
});

test('one vocabulary: the action input names as flags, the older flags as aliases, --scenario NAME selects', async () => {
  const config = `${quickConfig('scenarios: [GET /, { name: echo, method: POST, path: /echo }]')}`;
  const repo = makeRepo({ ...service, 'perfgate.yml': config }, { 'README.md': 'x' });
  const run = await runCli(
    ['plan', '--base', 'main', '--scenario', 'echo', '--scenarios', 'GET /extra', '--working-directory', '.', '--ready-path', '/', '--ready-timeout', '5s', '--pipelining', '2', '--profile', 'false', '--benchmark', 'b.js', '--rounds', '7'],
    repo,
  );
  assert.equal(run.code, 0, run.stderr);
  assert.match(run.stdout, /^scenarios \(2\):\n {2}GET \/extra .*pipelining 2\n {2}echo /m);
  assert.match(run.stdout, /^ready {4}when \/ answers 2xx, within 5s$/m);
  assert.match(run.stdout, /benchmarks +~.* 7 rounds of b\.js/);
  assert.doesNotMatch(run.stdout, /^ {2}profile /m);
  const bad = await runCli(['plan', '--base', 'main', '--scenario', 'ecko'], repo);
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /scenario "ecko" is not a scenario of .*perfgate\.yml \(it has "GET \/", "echo"\)/);
});

test('report: colour on a terminal, none with --no-color, NO_COLOR or a pipe', async () => {
  const results = join(ROOT, 'test/fixtures/results/v0.1-calibration-5pct.json');
  const ANSI = /\x1b\[/;
  const { NO_COLOR: _, ...env } = process.env;
  const coloured = await runCli(['report', results], ROOT, env, { tty: true });
  assert.match(coloured.stdout, /\x1b\[1mscenario .*\x1b\[22m/, 'the table header in bold');
  assert.match(coloured.stdout, /\x1b\[3[123]m/, 'verdicts in colour');
  const plain = await runCli(['report', results], ROOT, env, { tty: false });
  assert.doesNotMatch(plain.stdout, ANSI, 'piped');
  assert.equal((await runCli(['report', results, '--no-color'], ROOT, env, { tty: true })).stdout, plain.stdout);
  assert.equal((await runCli(['report', results], ROOT, { ...env, NO_COLOR: '1' }, { tty: true })).stdout, plain.stdout);
  assert.equal(coloured.stdout.replace(/\x1b\[\d+m/g, ''), plain.stdout, 'colour adds nothing but the codes');
});

test('report --markdown writes the PR comment\'s text, the chart of the gated changes included', async () => {
  const results = join(ROOT, 'test/fixtures/results/v0.1-calibration-5pct.json');
  const out = join(mkdtempSync(join(tmpdir(), 'perfgate-markdown-')), 'report.md');
  const run = await runCli(['report', results, '--markdown', out], ROOT);
  assert.equal(run.code, 0, run.stderr);
  const markdown = readFileSync(out, 'utf8');
  assert.match(markdown, /^```mermaid\n%%\{init: .*\}%%\nxychart-beta horizontal\n {2}title "throughput: change against its limit of 5%"\n[\s\S]*? {2}x-axis \["GET \/work ❔", "limit ±5%"\]/m);
  assert.doesNotMatch(run.stdout, /mermaid|xychart/, 'the terminal has the table only');
});

test('perfgate report folds a run where nothing changed to its headline and one line; --full shows every table', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'perfgate-folded-'));
  const path = join(dir, 'run 1', 'results.json');
  mkdirSync(dirname(path));
  writeFileSync(path, JSON.stringify(resultsFromPairs(Array.from({ length: 12 }, () => [1000, 1000]))));
  const folded = await runCli(['report', path], dir);
  assert.equal(folded.code, 0, folded.stderr);
  const lines = folded.stdout.trim().split('\n');
  assert.match(lines[0]!, /^perfgate: ✓ passing/);
  assert.equal(lines[1], '0 regressions · 0 improvements · 6 unchanged');
  assert.match(folded.stdout, /\nNothing changed beyond its limit: all 3 gated metrics are unchanged \(GET \/hello: throughput 0\.0% \(0\.0 … 0\.0\), latency p99 0\.0% \(0\.0 … 0\.0\)\)\.\n/);
  assert.ok(folded.stdout.includes(`\nEvery metric: perfgate report '${path}' --full\n`), folded.stdout);
  assert.doesNotMatch(folded.stdout, /change \(95% CI\)/, 'no table');
  const full = await runCli(['report', path, '--full'], dir);
  assert.equal(full.code, 0, full.stderr);
  assert.match(full.stdout, /\nscenario +metric +base +head +change \(95% CI\) +verdict\n/);
  assert.doesNotMatch(full.stdout, /Nothing changed/);
});

test('perfgate report on a results.json of a later format version says which versions, and to upgrade', async () => {
  const results = { ...resultsFromPairs([[1000, 1000], [1000, 1000]]), version: 2, tool: { name: 'perfgate', version: '7.0.0' } };
  const path = join(mkdtempSync(join(tmpdir(), 'perfgate-later-')), 'results.json');
  writeFileSync(path, JSON.stringify(results));
  const run = await runCli(['report', path], ROOT);
  assert.notEqual(run.code, 0);
  assert.match(run.stderr, /has results version 2 \(written by perfgate 7\.0\.0\); this perfgate \(.+\) reads versions up to 1\. Upgrade perfgate to 7\.0\.0 or later to report it\./);
  assert.doesNotMatch(run.stderr, /\n\s+at /, 'no stack');
});

test('a copy that cannot be written: the verdict is still printed, the complete results.json named, exit 2 for the copy', async () => {
  const results = join(ROOT, 'test/fixtures/results/v0.1-calibration-5pct.json');
  const file = join(mkdtempSync(join(tmpdir(), 'perfgate-unwritable-')), 'a-file');
  writeFileSync(file, '');
  const run = await runCli(['report', results, '--markdown', join(file, 'report.md'), '--verdicts', join(file, 'verdicts.json')], ROOT);
  assert.equal(run.code, 2, run.stderr);
  assert.match(run.stdout, /^perfgate: /m, 'the verdict');
  assert.ok(run.stderr.includes(`Cannot write the markdown report at ${join(file, 'report.md')}: a part of the path is a file where a directory is expected. Choose a place you can write with --markdown.`), run.stderr);
  assert.ok(run.stderr.includes(`Cannot write the verdicts at ${join(file, 'verdicts.json')}`), run.stderr);
  assert.ok(run.stderr.includes(`exit status 0 on its own) and the complete results are in ${results}. perfgate exits 2 only because these copies could not be written.`), run.stderr);
  assert.doesNotMatch(run.stderr, /\n\s+at |unexpected error/, 'no stack');
});

test('compare --out where a file stands: names the run directory and --out, exit 2, no stack, nothing checked out', async () => {
  const repo = makeRepo({ ...service, 'perfgate.yml': quickConfig('scenarios: [GET /]') }, { 'README.md': 'x' });
  const file = join(repo, '.a-file');
  writeFileSync(file, '');
  const run = await runCli(['compare', '--base', 'main', '--out', join(file, 'run')], repo);
  assert.equal(run.code, 2, run.stderr);
  assert.ok(run.stderr.includes(`Cannot write the run directory at ${join(file, 'run')}: a part of the path is a file where a directory is expected. Choose a place you can write with --out.`), run.stderr);
  assert.doesNotMatch(run.stderr, /\n\s+at |unexpected error/, 'no stack');
  assert.equal(worktrees(repo), 1, 'no worktree was added');
});
