// lane: beside — its verdicts come from tenfold changes or A/A at alpha 0.001; it tests what the action does with them.
/**
 * `perfgate history --github` end to end: the CLI lists main's runs through the local REST API,
 * downloads each results artifact from Azurite (uploaded there by the artifact toolkit, as a
 * measuring run uploads it), and finds the change points; artifacts from a pull request's run,
 * a fork's run, an expired one and one whose bytes were replaced after upload are named and
 * left out. And the errors a user meets: no token, a token without actions: read, a branch
 * without runs.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';
import { buildZip } from '../helpers/artifact-zip.js';
import { runCli } from '../helpers/cli.js';
import { READ_ONLY_TOKEN, useFakePlatform } from '../helpers/github-runner.js';
import { CODE_SHIFT_AT, HISTORY_COMMITS, historyRuns, KERNEL_SHIFT_AT, stageHistoryRun } from '../helpers/history.js';
import { resultsFromPairs } from '../helpers/results.js';

const platform = useFakePlatform();
const runs = historyRuns();
/** Every fourth commit was recorded by mode: record instead of gated: both kinds are points. */
const recorded = (i: number) => i % 4 === 3;

/** A run of main whose head is 40% slower than any real one: if read, a shift at its commit, and one commit more. */
function forged(sha: string, runId: number, day: number) {
  const results = resultsFromPairs(Array.from({ length: 8 }, (): [number, number] => [600, 600]));
  results.startedAt = new Date(Date.UTC(2026, 10, day)).toISOString();
  results.sides.head.sha = sha;
  results.environment = { ...runs.at(-1)!.environment };
  results.github = { repository: 'acme/shop', pullRequest: null, headSha: sha, baseSha: runs.at(-1)!.sides.head.sha, runId: String(runId), event: 'push' };
  return results;
}

describe('perfgate history --github', () => {
  let env: Record<string, string>;
  // Inside the describe: after the platform has started.
  before(async () => {
    env = { GITHUB_TOKEN: READ_ONLY_TOKEN, GITHUB_API_URL: platform.github.url };
    // Four uploads at a time: each is a Node process running the toolkit.
    for (let at = 0; at < runs.length; at += 4) {
      await Promise.all(
        runs.slice(at, at + 4).map((results, k) => {
          const i = at + k;
          return stageHistoryRun(platform, { runId: 7000 + i, results, ...(recorded(i) && { artifactName: `perfgate-record-default-${results.sides.head.sha}` }) });
        }),
      );
    }
    // A pull request's run from a branch named main: it ran the pull request's code.
    await stageHistoryRun(platform, { runId: 8001, results: forged('d1'.repeat(20), 8001, 10), event: 'pull_request' });
    // A fork's pull request from its main.
    await stageHistoryRun(platform, { runId: 8002, results: forged('d2'.repeat(20), 8002, 11), event: 'pull_request', headRepo: 'mallory/shop' });
    // A push run whose stored archive was replaced after upload: the digest GitHub recorded no longer matches.
    const replaced = await stageHistoryRun(platform, { runId: 8003, results: forged('d3'.repeat(20), 8003, 12) });
    await platform.artifacts.replaceBlob(replaced, buildZip([{ name: 'results.json', data: JSON.stringify(forged('d3'.repeat(20), 8003, 12)).replace('"600', '"100') }]));
    // A push run past the retention period.
    const expired = await stageHistoryRun(platform, { runId: 8004, results: forged('d4'.repeat(20), 8004, 13) });
    expired.expired = true;
    // A push run whose results.json is not one perfgate wrote, and one whose artifact is larger than a results file can be.
    platform.github.runs.set(8006, { event: 'push', headSha: 'd6'.repeat(20), headBranch: 'main', headRepo: 'acme/shop', createdAt: '2026-11-15T00:00:00Z' });
    await platform.artifacts.upload(8006, 'perfgate-default', { 'results.json': '{"schema": "perfgate/results", "version": 1}' });
    const huge = await stageHistoryRun(platform, { runId: 8007, results: forged('d7'.repeat(20), 8007, 16) });
    huge.size = 65 * 1024 * 1024;
    // Another workflow's push run on main, with artifacts that are not perfgate's: not a point, not named.
    platform.github.runs.set(8005, { event: 'push', headSha: 'd5'.repeat(20), headBranch: 'main', headRepo: 'acme/shop', workflow: 'ci.yml', createdAt: '2026-11-14T00:00:00Z' });
    await platform.artifacts.upload(8005, 'coverage', { 'lcov.info': 'TN:\n' });
  });

  it('reads the trusted runs of main, finds the shifts at the right commits, and names every artifact it left out', async (t) => {
    const cwd = mkdtempSync(join(tmpdir(), 'perfgate-history-gh-'));
    const summaryFile = join(cwd, 'step-summary.md');
    const before = platform.github.requests.length;
    const run = await runCli(['history', '--github', 'acme/shop', '--html', 'history.html', '--save', 'runs'], cwd, { ...env, GITHUB_STEP_SUMMARY: summaryFile });
    assert.equal(run.code, 0, run.stderr);
    t.diagnostic(`${run.stderr}\n${run.stdout}`);

    // 36 commits: the forged runs' commits are not among them.
    assert.match(run.stdout, new RegExp(`^${HISTORY_COMMITS} commits of history`, 'm'), run.stdout);
    const rows = run.stdout.split('\n').filter((l) => l.startsWith('| [`') && l.includes('| throughput |'));
    assert.equal(rows.length, 2, run.stdout);
    const codeSha = runs[CODE_SHIFT_AT]!.sides.head.sha;
    const kernelSha = runs[KERNEL_SHIFT_AT]!.sides.head.sha;
    assert.ok(rows[0]!.includes(`https://github.com/acme/shop/commit/${codeSha}`), rows[0]);
    assert.match(rows[0]!, /\| −\d+(\.\d)?% \| this commit/);
    assert.ok(rows[1]!.includes(`/commit/${kernelSha}`), rows[1]);
    assert.match(rows[1]!, /environment changed: kernel 6\.5\.0-1025-azure → 6\.8\.0-1017-azure \|$/);

    // Each artifact left out, with its reason, on stderr and in the summary.
    const leftOut = {
      'run 8001 perfgate-default': /run 8001 was triggered by pull_request, whose code may be a pull request's/,
      'run 8002 perfgate-default': /run 8002 ran the code of mallory\/shop, not of acme\/shop/,
      'run 8003 perfgate-default': /does not match the digest recorded at upload \(sha256:[0-9a-f]{64}, its bytes give sha256:[0-9a-f]{64}\)/,
      'run 8004 perfgate-default': /has expired/,
      'run 8006 perfgate-default': /its results\.json is not a results file this perfgate can report/,
      'run 8007 perfgate-default': /the artifact is 68157440 bytes, more than a results artifact can be \(67108864\)/,
    };
    for (const [name, reason] of Object.entries(leftOut)) {
      const line = run.stderr.split('\n').find((l) => l.startsWith(`perfgate: warning: left out ${name}: `));
      assert.ok(line, `${name} is named on stderr:\n${run.stderr}`);
      assert.match(line, reason);
      const item = run.stdout.split('\n').find((l) => l.startsWith(`- ${name}: `));
      assert.ok(item, `${name} is in the summary's list:\n${run.stdout}`);
      assert.match(item.replace(/\\(.)/g, '$1'), reason, 'as markdown');
    }
    assert.match(run.stdout, /<summary>6 runs left out<\/summary>/);
    assert.doesNotMatch(run.stderr + run.stdout, /8005|coverage/, 'another workflow\'s artifacts are not perfgate\'s: nothing to say about them');
    assert.equal(readFileSync(summaryFile, 'utf8'), run.stdout);
    assert.match(readFileSync(join(cwd, 'history.html'), 'utf8'), /^<!doctype html>/);

    // Both kinds read and kept: the gate's results artifact and the records.
    const saved = readdirSync(join(cwd, 'runs')).sort();
    assert.equal(saved.length, HISTORY_COMMITS);
    assert.ok(saved.includes(`7003-perfgate-record-default-${runs[3]!.sides.head.sha}`), saved.join(', '));
    assert.ok(saved.includes('7000-perfgate-default'));
    // The same history from the kept files.
    const again = await runCli(['history', 'runs', '--html', 'again.html'], cwd, {});
    assert.equal(again.code, 0, again.stderr);
    assert.deepEqual(again.stdout.split('\n').filter((l) => l.startsWith('| [`')), run.stdout.split('\n').filter((l) => l.startsWith('| [`')));

    // Economical: one page of runs (per_page = the limit), one artifact listing per run, one download per artifact read or refused by its bytes.
    const requests = platform.github.requests.slice(before);
    const listings = requests.filter((r) => r.path === '/repos/acme/shop/actions/runs');
    assert.equal(listings.length, 1);
    assert.deepEqual([listings[0]!.query.branch, listings[0]!.query.status, listings[0]!.query.per_page], ['main', 'completed', '60']);
    assert.equal(requests.filter((r) => /\/actions\/runs\/\d+\/artifacts$/.test(r.path)).length, HISTORY_COMMITS + 7);
    assert.equal(requests.filter((r) => /\/actions\/artifacts\/\d+\/zip$/.test(r.path)).length, HISTORY_COMMITS + 2);
  });

  it('--workflow and --limit: the newest n runs of that workflow only', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'perfgate-history-gh-'));
    const before = platform.github.requests.length;
    const run = await runCli(['history', '--github', 'acme/shop', '--workflow', 'perf.yml', '--limit', '150', '--html', 'h.html'], cwd, env);
    assert.equal(run.code, 0, run.stderr);
    const listings = platform.github.requests.slice(before).filter((r) => r.path.endsWith('/runs'));
    assert.deepEqual(
      listings.map((r) => [r.path, r.query.page ?? '1', r.query.per_page]),
      [['/repos/acme/shop/actions/workflows/perf.yml/runs', '1', '100']],
      'one page holds them all',
    );
    const few = await runCli(['history', '--github', 'acme/shop', '--workflow', 'perf.yml', '--limit', '3', '--html', 'h.html'], cwd, env);
    assert.equal(few.code, 2, 'the three newest runs are the oversized, the invalid and the expired one: nothing readable');
    assert.match(few.stderr, /no readable results on main of acme\/shop \(perf\.yml\): 3 runs looked at, none with an artifact perfgate-default or perfgate-record-default-<sha>/);
    const missing = await runCli(['history', '--github', 'acme/shop', '--workflow', 'bench.yml'], cwd, env);
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /No workflow bench\.yml in acme\/shop \(404\): --workflow takes a workflow's file name/);
  });

  it('says what to do: no token, a token refused, one without actions: read, no such repository, no runs on the branch', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'perfgate-history-gh-'));
    const before = platform.github.requests.length;
    const noToken = await runCli(['history', '--github', 'acme/shop'], cwd, { GITHUB_API_URL: platform.github.url });
    assert.equal(noToken.code, 2);
    assert.match(noToken.stderr, /needs a token: set GITHUB_TOKEN or GH_TOKEN/);
    assert.match(noToken.stderr, /permissions: \{ actions: read \}/);
    assert.equal(platform.github.requests.length, before, 'nothing was asked without a token');

    const ghToken = await runCli(['history', '--github', 'acme/shop', '--branch', 'release'], cwd, { GH_TOKEN: READ_ONLY_TOKEN, GITHUB_API_URL: platform.github.url });
    assert.equal(ghToken.code, 2);
    assert.match(ghToken.stderr, /no completed workflow run on release of acme\/shop/);

    const refused = await runCli(['history', '--github', 'acme/shop'], cwd, { GITHUB_TOKEN: 'ghs_revoked', GITHUB_API_URL: platform.github.url });
    assert.equal(refused.code, 2);
    assert.match(refused.stderr, /refused the token \(401 Bad credentials/);

    platform.github.failNext('GET', /\/actions\/runs$/, { status: 403, body: { message: 'Resource not accessible by integration', status: '403' } });
    const forbidden = await runCli(['history', '--github', 'acme/shop'], cwd, env);
    assert.equal(forbidden.code, 2);
    assert.match(forbidden.stderr, /Could not list the workflow runs of main \(403: Resource not accessible by integration/);
    assert.match(forbidden.stderr, /give the job `permissions: \{ actions: read \}`/);

    const unknown = await runCli(['history', '--github', 'acme/nothing'], cwd, env);
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, /Could not read the repository acme\/nothing \(404: Not Found.*\): acme\/nothing does not exist at http:\/\/127\.0\.0\.1:\d+, or the token cannot see it/);

    const both = await runCli(['history', 'runs', '--github', 'acme/shop'], cwd, env);
    assert.equal(both.code, 2);
    assert.match(both.stderr, /give the directory of results\.json files, or --github <owner\/repo>/);
  });
});
