// lane: beside — its verdicts come from tenfold changes or A/A at alpha 0.001; it tests what the action does with them.
/**
 * The GitHub side of the bundled action, end to end: dist/index.js under Node 24 in report
 * mode (no load is run: a fabricated results.json is the measuring run's artifact), against a
 * local GitHub API and a results service backed by Azurite.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, test } from 'node:test';
import { readZip } from '../helpers/artifact-zip.js';
import { BAD_GATEWAY, type FakeJob, rateLimited } from '../helpers/github-api.js';
import { cleanPairs, headShaFor, regressedPairs, stageMeasuredRun } from '../helpers/github-runs.js';
import { pullRequestEvent } from '../helpers/github-events.js';
import { describeRun, READ_ONLY_TOKEN, runAction, useFakePlatform } from '../helpers/github-runner.js';
import { resultsFromPairs } from '../helpers/results.js';

const MARKER = '<!-- perfgate:comment id=default -->';
const ZWJ = '\u200D';

const platform = useFakePlatform();

function report(event: object, inputs: Record<string, string> = {}, options: { token?: string } = {}) {
  return runAction({ eventName: 'workflow_run', event, inputs: { mode: 'report', ...inputs }, ...platform, runId: 90_000, ...options });
}

function perfgateComments(issue: number) {
  return (platform.github.comments.get(issue) ?? []).filter((c) => c.body.startsWith(MARKER));
}

/** Requests of one action run: those recorded after `from`. */
function since(from: number) {
  return platform.github.requests.slice(from);
}

describe('report mode: the sticky comment', () => {
  test('the first run creates the comment, the second edits it: one comment, found on page 3', async () => {
    platform.github.addComments(7, 250);
    const staged = await stageMeasuredRun(platform, { runId: 7001, pullRequest: 7, headSha: headShaFor(7), results: resultsFromPairs(regressedPairs()) });

    const first = await report(staged.event);
    assert.equal(first.status, 0, describeRun(first));
    const created = perfgateComments(7);
    assert.equal(created.length, 1, 'one comment created');
    assert.equal(platform.github.comments.get(7)!.length, 251, 'after the 250 others: on page 3 at 100 per page');
    assert.equal(first.outputs['comment-url'], created[0]!.html_url);
    assert.equal(first.outputs.decision, 'fail');
    assert.match(created[0]!.body, /❌ regression/);
    const artifactUrl = `https://github.com/acme/shop/actions/runs/7001/artifacts/${staged.artifact.id}`;
    assert.ok(created[0]!.body.includes(`(${artifactUrl})`), 'links the measuring run\'s results artifact');
    assert.equal(first.summary.trim(), created[0]!.body.slice(MARKER.length).trim(), 'the job summary is the comment without its marker');

    const from = platform.github.requests.length;
    const second = await report(staged.event);
    assert.equal(second.status, 0, describeRun(second));
    const requests = since(from);
    const pages = requests.filter((r) => r.method === 'GET' && r.path === '/repos/acme/shop/issues/7/comments').map((r) => r.query.page ?? '1');
    assert.deepEqual(pages, ['1', '2', '3'], 'paged through all comments, following the Link header');
    const writes = requests.filter((r) => r.method !== 'GET');
    assert.deepEqual(
      writes.map((r) => `${r.method} ${r.path}`),
      [`PATCH /repos/acme/shop/issues/comments/${created[0]!.id}`],
      'edited in place, nothing created',
    );
    assert.equal(perfgateComments(7).length, 1, 'still exactly one perfgate comment');
    assert.equal(platform.github.comments.get(7)!.length, 251);
    assert.ok(requests.every((r) => r.token === 'ghs_writeToken'), 'every request carries the github-token input');
  });

  test('comment: on-regression posts nothing on a clean run, but keeps an existing comment up to date', async () => {
    const clean = await stageMeasuredRun(platform, { runId: 7101, pullRequest: 8, headSha: headShaFor(8) });
    const from = platform.github.requests.length;
    const run = await report(clean.event, { comment: 'on-regression' });
    assert.equal(run.status, 0, describeRun(run));
    assert.equal(run.outputs.decision, 'pass');
    assert.deepEqual(platform.github.writes().filter((r) => platform.github.requests.indexOf(r) >= from), [], 'no comment created on a clean run');
    assert.equal(perfgateComments(8).length, 0);
    assert.equal(run.outputs['comment-url'], '');
    assert.match(run.summary, /## perfgate: ✅ passing/, 'the job summary is still written');

    // A PR that regressed on an earlier push and is clean now: its comment must not stay red.
    const stale = platform.github.addComment(9, `${MARKER}\n## perfgate: 1 regression — ❌ failing`, { login: 'github-actions[bot]', type: 'Bot' });
    const fixed = await stageMeasuredRun(platform, { runId: 7102, pullRequest: 9, headSha: headShaFor(9) });
    const rerun = await report(fixed.event, { comment: 'on-regression' });
    assert.equal(rerun.status, 0, describeRun(rerun));
    assert.equal(perfgateComments(9).length, 1);
    assert.equal(perfgateComments(9)[0]!.id, stale.id);
    assert.match(perfgateComments(9)[0]!.body, /✅ passing/, 'the stale comment now says the PR passes');
  });

  test('403 on the comment: a warning naming the permission, the summary written, no crash', async () => {
    const staged = await stageMeasuredRun(platform, { runId: 7201, pullRequest: 10, headSha: headShaFor(10), results: resultsFromPairs(regressedPairs()) });
    const run = await report(staged.event, {}, { token: READ_ONLY_TOKEN });
    assert.equal(run.status, 0, `report mode does not fail on a missing permission\n${describeRun(run)}`);
    const warning = run.annotations('warning').find((w) => w.includes('comment on pull request #10'));
    assert.ok(warning, describeRun(run));
    assert.match(warning, /403/);
    assert.match(warning, /pull-requests: write/);
    assert.match(run.summary, /## perfgate: .*regression/);
    assert.equal(run.outputs.decision, 'fail', 'the decision does not depend on the comment');
    assert.equal(perfgateComments(10).length, 0);
  });

  // Transient failures: a 502 on the create (plugin-retry), a rate limit on the listing (plugin-throttling).
  for (const { name, issue, method, fault, statuses } of [
    { name: '502, then 200: retried with back-off and posted once', issue: 11, method: 'POST', fault: BAD_GATEWAY, statuses: [502, 201] },
    {
      name: 'a rate limit (403, x-ratelimit-remaining: 0) is waited out, then the comment is posted once',
      issue: 12,
      method: 'GET',
      fault: rateLimited,
      statuses: [403, 200],
    },
  ]) {
    test(name, async () => {
      const staged = await stageMeasuredRun(platform, { runId: 7300 + issue, pullRequest: issue, headSha: headShaFor(issue) });
      platform.github.failNext(method, new RegExp(`/issues/${issue}/comments$`), fault);
      const from = platform.github.requests.length;
      const run = await report(staged.event);
      assert.equal(run.status, 0, describeRun(run));
      const calls = since(from).filter((r) => r.method === method && r.path === `/repos/acme/shop/issues/${issue}/comments`);
      assert.deepEqual(calls.map((r) => r.status), statuses);
      assert.equal(perfgateComments(issue).length, 1);
    });
  }

  test('hostile names from PR code are inert in the posted body', async () => {
    const HOSTILE =
      '<img src=x onerror=alert(1)> @org/team | `rm -rf` ![x](https://evil.example) <!-- perfgate:comment id=default --> \u{1D173}\u{1BCA0}\u{E0080}\u{E0FFF}\u2066x\u0085';
    const results = resultsFromPairs(regressedPairs());
    results.scenarios[0]!.name = HOSTILE;
    results.sides.head.ref = 'feature|@admin`x`';
    results.environment.cpuModel = '<script>alert(1)</script>';
    results.warnings.push({ code: 'profile-failed', message: `error at ${HOSTILE}\n| a | b |`, scenario: HOSTILE });
    const staged = await stageMeasuredRun(platform, { runId: 7501, pullRequest: 13, headSha: headShaFor(13), results });
    const run = await report(staged.event);
    assert.equal(run.status, 0, describeRun(run));
    const [comment] = perfgateComments(13);
    assert.ok(comment);
    const body = comment.body;
    assert.equal(body.indexOf(MARKER), 0);
    assert.equal(body.split(MARKER).length, 2, 'the marker appears once: a name cannot forge it');
    assert.ok(!/<(img|script)/i.test(body), 'no HTML from names');
    assert.ok(!/@(?!\u200D)/.test(body), 'every @ is followed by a zero-width joiner: no mention pings');
    // The chart's fences are perfgate's own; a name's backtick is a Mermaid entity inside them.
    const fences = body.match(/^```mermaid\n[\s\S]*?^```$/gm) ?? [];
    assert.ok(fences.length > 0, 'the chart of the regression is there');
    assert.ok(fences.every((fence) => !fence.slice('```mermaid\n'.length, -3).includes('`')), 'no backtick inside a chart: the fence cannot be closed from a name');
    assert.ok(!fences.reduce((rest, fence) => rest.replace(fence, ''), body).includes('`'), 'no backtick outside the charts: no code span');
    assert.ok(!/(?<!\\)\]\(https:\/\/evil/.test(body), 'no markdown link or image from names: its brackets are escaped');
    assert.ok(body.includes(`!\\[x\\](https:${ZWJ}//evil.example)`), 'the name shows as text (the URL no autolink)');
    assert.ok(body.includes(`@${ZWJ}org/team`), 'the name is still readable');
    assert.deepEqual([...body.matchAll(/(?!\u200D)[\p{Cf}\p{Cc}]/gu)].map((m) => m[0].codePointAt(0)!.toString(16)).filter((c) => c !== 'a'), [], 'no format or control character but perfgate\'s joiners and line breaks');
    // a hostile name never adds or removes a cell: every row has as many cells as its table's header
    let header = 0;
    let previous = '';
    for (const line of body.split('\n')) {
      if (line.startsWith('|')) {
        const cells = line.split('|').length - 2;
        if (!previous.startsWith('|')) header = cells;
        assert.ok(cells === header, `a table row keeps its ${header} cells: ${line}`);
      }
      previous = line;
    }
  });

  test('a huge report stays under 65,536 characters: details first, then rows cut, with a link to the full report', async () => {
    const results = resultsFromPairs(cleanPairs());
    const template = results.scenarios[0]!;
    const regressed = resultsFromPairs(regressedPairs()).scenarios[0]!.pairs;
    results.scenarios = Array.from({ length: 400 }, (_, i) => ({
      ...template,
      name: `GET /items/${i}?page=${'x'.repeat(20)}`,
      pairs: i === 321 ? regressed : template.pairs,
    }));
    const staged = await stageMeasuredRun(platform, { runId: 7601, pullRequest: 14, headSha: headShaFor(14), results });
    const run = await report(staged.event);
    assert.equal(run.status, 0, describeRun(run));
    const [comment] = perfgateComments(14);
    assert.ok(comment, 'posted: GitHub (the fake) refuses bodies over 65,536 characters');
    assert.ok(comment.body.length <= 65_536, `${comment.body.length} characters`);
    assert.ok(comment.body.length > 50_000, 'the budget is used, not wasted');
    assert.ok(!comment.body.includes('<summary>Method, noise and warnings'), 'the details went first');
    assert.ok(/⚠️ \*\*[\d,]+ of 2,400 rows shown\*\*/.test(comment.body), 'a note says how many rows are shown');
    const resultsUrl = `https://github.com/acme/shop/actions/runs/7601/artifacts/${staged.artifact.id}`;
    assert.ok(comment.body.includes(`full report is in [results.json and full report (zip)](${resultsUrl})`));
    // With 800 gated metrics Holm leaves the regression ungated, but its rows are the notable ones.
    assert.ok(comment.body.includes('GET /items/321?page='), 'the regressed scenario is kept');
    assert.ok(comment.body.includes('⚠️ regression'), 'its regression rows are kept');
    assert.ok(run.summary.length > comment.body.length, 'the job summary (1 MiB) keeps more');
  });

  test('a comment forged by someone else with perfgate\'s marker is never edited: perfgate posts its own', async () => {
    const forged = platform.github.addComment(16, `${MARKER}\n## perfgate: 0 regressions — ✅ passing`, { login: 'mallory', type: 'User' });
    const staged = await stageMeasuredRun(platform, { runId: 7801, pullRequest: 16, headSha: headShaFor(16), results: resultsFromPairs(regressedPairs()) });
    const from = platform.github.requests.length;
    const run = await report(staged.event);
    assert.equal(run.status, 0, describeRun(run));
    assert.ok(since(from).some((r) => r.path === '/user'), 'asks GitHub who the token is');
    assert.deepEqual(since(from).filter((r) => r.method !== 'GET').map((r) => `${r.method} ${r.path}`), ['POST /repos/acme/shop/issues/16/comments']);
    const comments = perfgateComments(16);
    assert.equal(comments.length, 2);
    assert.equal(comments[0]!.body, forged.body, 'the forged comment is untouched');
    assert.deepEqual(comments[1]!.user, { login: 'github-actions[bot]', type: 'Bot' });
    assert.match(comments[1]!.body, /❌ regression/);

    // A personal token finds the comments of its own user (GET /user answers), not the bot's.
    platform.github.users.set('ghs_writeToken', 'perf-robot');
    try {
      const again = await report(staged.event);
      assert.equal(again.status, 0, describeRun(again));
      assert.equal(perfgateComments(16).length, 3, 'neither mallory\'s nor the bot\'s comment is this token\'s');
      assert.equal(perfgateComments(16)[2]!.user.login, 'perf-robot');
    } finally {
      platform.github.users.delete('ghs_writeToken');
    }
  });

  test('the marker names the workflow that posts: another workflow\'s bot comment with perfgate\'s marker is not adopted', async () => {
    const ref = { GITHUB_WORKFLOW_REF: 'acme/shop/.github/workflows/perf-comment.yml@refs/heads/main' };
    const ours = '<!-- perfgate:comment id=default workflow=.github/workflows/perf-comment.yml -->';
    // Written by the same bot from another workflow (say one that runs PR code with a write token).
    const other = platform.github.addComment(23, `${MARKER}\n## perfgate: 0 regressions — ✅ passing`, { login: 'github-actions[bot]', type: 'Bot' });
    const elsewhere = platform.github.addComment(23, '<!-- perfgate:comment id=default workflow=.github/workflows/evil.yml -->\n✅', { login: 'github-actions[bot]', type: 'Bot' });
    const staged = await stageMeasuredRun(platform, { runId: 7981, pullRequest: 23, headSha: headShaFor(23), results: resultsFromPairs(regressedPairs()) });
    const first = await runAction({ eventName: 'workflow_run', event: staged.event, inputs: { mode: 'report' }, ...platform, runId: 90_001, env: ref });
    assert.equal(first.status, 0, describeRun(first));
    const comments = platform.github.comments.get(23)!;
    assert.equal(comments.length, 3, 'a comment of its own, beside the two it must not edit');
    assert.equal(comments[0]!.body, other.body);
    assert.equal(comments[1]!.body, elsewhere.body);
    assert.ok(comments[2]!.body.startsWith(`${ours}\n`), comments[2]!.body.slice(0, 120));

    // The next run of the same workflow edits its own comment.
    const from = platform.github.requests.length;
    const second = await runAction({ eventName: 'workflow_run', event: staged.event, inputs: { mode: 'report' }, ...platform, runId: 90_002, env: ref });
    assert.equal(second.status, 0, describeRun(second));
    assert.deepEqual(since(from).filter((r) => r.method !== 'GET').map((r) => `${r.method} ${r.path}`), [`PATCH /repos/acme/shop/issues/comments/${comments[2]!.id}`]);
  });

  test('a forged results file fails the step with one clear error: no stack, nothing posted', async () => {
    const results = resultsFromPairs(regressedPairs()) as unknown as Record<string, unknown>;
    results.seed = '@org/team';
    (results.environment as Record<string, unknown>).cpus = '<b>64</b>';
    const staged = await stageMeasuredRun(platform, { runId: 7901, pullRequest: 17, headSha: headShaFor(17), results: results as never });
    const from = platform.github.requests.length;
    const run = await report(staged.event);
    assert.equal(run.status, 1, describeRun(run));
    const errors = run.annotations('error');
    assert.equal(errors.length, 1, describeRun(run));
    assert.match(errors[0]!, /^perfgate: the results artifact of run 7901 is not a results file this perfgate can report: seed: .*environment\.cpus/);
    assert.doesNotMatch(errors[0]!, /\n\s+at |unexpected error|@org|<b>/);
    assert.deepEqual(since(from).filter((r) => r.method !== 'GET'), [], 'nothing posted');
  });

  test('same-repository flow: a later job of the pull_request run reports this run\'s artifact on the event\'s PR', async () => {
    const staged = await stageMeasuredRun(platform, { runId: 7951, pullRequest: 18, headSha: headShaFor(18), results: resultsFromPairs(regressedPairs()) });
    const event = pullRequestEvent({ number: 18, baseSha: 'a'.repeat(40), headSha: headShaFor(18), headRef: 'feature-18' });
    const from = platform.github.requests.length;
    const run = await runAction({ eventName: 'pull_request', event, inputs: { mode: 'report' }, ...platform, runId: 7951 });
    assert.equal(run.status, 0, describeRun(run));
    assert.ok(since(from).some((r) => r.path === `/repos/acme/shop/actions/runs/7951/artifacts`), 'this run\'s artifacts');
    assert.deepEqual(since(from).filter((r) => r.method !== 'GET').map((r) => `${r.method} ${r.path}`), ['POST /repos/acme/shop/issues/18/comments']);
    assert.match(perfgateComments(18)[0]!.body, /❌ regression/);
    assert.equal(run.outputs.decision, 'fail');
    assert.ok(staged.artifact.id > 0);
  });

  test('with the measuring step\'s results-digest, only the results.json it uploaded is reported', async () => {
    const staged = await stageMeasuredRun(platform, { runId: 7961, pullRequest: 19, headSha: headShaFor(19), results: resultsFromPairs(regressedPairs()) });
    const uploaded = readZip((await platform.artifacts.readBlob(staged.artifact)).bytes).get('results.json')!;
    const digest = `sha256:${createHash('sha256').update(uploaded).digest('hex')}`;
    const event = pullRequestEvent({ number: 19, baseSha: 'a'.repeat(40), headSha: headShaFor(19), headRef: 'feature-19' });

    // The PR's code replaced the artifact: the digest the measuring step output is of another file.
    const other = `sha256:${createHash('sha256').update('{"forged": true}').digest('hex')}`;
    const from = platform.github.requests.length;
    const refused = await runAction({ eventName: 'pull_request', event, inputs: { mode: 'report', 'results-digest': other }, ...platform, runId: 7961 });
    assert.equal(refused.status, 1, describeRun(refused));
    assert.match(refused.annotations('error').join('\n'), new RegExp(`results\\.json has digest ${digest}, but the measuring step output ${other}`));
    assert.deepEqual(since(from).filter((r) => r.method !== 'GET'), [], 'nothing posted');

    const run = await runAction({ eventName: 'pull_request', event, inputs: { mode: 'report', 'results-digest': digest.toUpperCase().replace('SHA256', 'sha256') }, ...platform, runId: 7961 });
    assert.equal(run.status, 0, describeRun(run));
    assert.equal(run.outputs['results-digest'], digest);
    assert.match(perfgateComments(19)[0]!.body, /❌ regression/);

    const malformed = await runAction({ eventName: 'pull_request', event, inputs: { mode: 'report', 'results-digest': 'abc' }, ...platform, runId: 7961 });
    assert.equal(malformed.status, 1);
    assert.match(malformed.annotations('error').join('\n'), /Input results-digest is "abc"; give the measuring step's results-digest output/);
  });

  test('an artifact that says "pass" for a run with a failed or cancelled step is refused, whatever the step is called', async () => {
    // On pull_request the workflow is the PR's own: it names its steps, and can cancel its job.
    const contradictions: [string, FakeJob[], RegExp][] = [
      [
        'the default name',
        [
          { name: 'measure', conclusion: 'failure', steps: [{ name: 'Set up job', conclusion: 'success' }, { name: 'Run perfgate/perfgate@v1', conclusion: 'failure' }] },
          { name: 'comment', conclusion: null, steps: [] },
        ],
        /"measure" › "Run perfgate\/perfgate@v1" \(failure\)/,
      ],
      ['another name', [{ name: 'bench', conclusion: 'failure', steps: [{ name: 'Measure performance', conclusion: 'failure' }] }], /"bench" › "Measure performance" \(failure\)/],
      ['a cancelled step', [{ name: 'bench', conclusion: 'cancelled', steps: [{ name: 'Measure performance', conclusion: 'cancelled' }] }], /"bench" › "Measure performance" \(cancelled\)/],
      ['a step with no conclusion in a failed job', [{ name: 'bench', conclusion: 'failure', steps: [{ name: 'Measure performance', conclusion: null }] }], /"bench" › "Measure performance" \(no conclusion\)/],
      ['a cancelled job with no steps', [{ name: 'bench', conclusion: 'cancelled', steps: [] }], /"bench" \(cancelled\)/],
    ];
    let runId = 7971;
    let pr = 40;
    for (const [what, jobs, named] of contradictions) {
      // The clean results a lingering process of the PR's uploaded in place of the regression.
      const forged = await stageMeasuredRun(platform, { runId: runId++, pullRequest: pr, headSha: headShaFor(pr), jobs });
      pr++;
      const from = platform.github.requests.length;
      const run = await report(forged.event);
      assert.equal(run.status, 1, `${what}: ${describeRun(run)}`);
      const errors = run.annotations('error').join('\n');
      assert.match(errors, /it says the gate passed, but GitHub records failed or cancelled steps in that run/, what);
      assert.match(errors, named, what);
      assert.deepEqual(since(from).filter((r) => r.method !== 'GET'), [], `${what}: nothing posted`);
    }

    // The measured regression itself is reported as usual, and so is a pass whose steps passed.
    const failedGate: FakeJob[] = [{ name: 'measure', conclusion: 'failure', steps: [{ name: 'Run perfgate/perfgate@v1', conclusion: 'failure' }] }];
    const honest = await stageMeasuredRun(platform, { runId: 7985, pullRequest: 21, headSha: headShaFor(21), results: resultsFromPairs(regressedPairs()), jobs: failedGate });
    assert.equal((await report(honest.event)).status, 0);
    assert.match(perfgateComments(21)[0]!.body, /❌ regression/);
    const passed: FakeJob[] = [{ name: 'measure', conclusion: 'success', steps: [{ name: 'Run perfgate/perfgate@v1', conclusion: 'success' }] }];
    const clean = await stageMeasuredRun(platform, { runId: 7986, pullRequest: 22, headSha: headShaFor(22), jobs: passed });
    assert.equal((await report(clean.event)).status, 0);
    assert.match(perfgateComments(22)[0]!.body, /✅ passing/);
    assert.doesNotMatch(perfgateComments(22)[0]!.body, /own workflow/, "the base repository's workflow measured it");
  });

  test("the comment says so when the measurement ran under the pull request's own workflow: a change to .github/workflows/, or a fork", async () => {
    platform.github.pullFiles.set(25, ['src/app.js', '.github/workflows/perf.yml']);
    const changed = await stageMeasuredRun(platform, { runId: 7990, pullRequest: 25, headSha: headShaFor(25) });
    const run = await report(changed.event);
    assert.equal(run.status, 0, describeRun(run));
    assert.match(perfgateComments(25)[0]!.body, /ran under the pull request's own workflow: it changes \.github\/workflows\/perf\.yml/);

    const fork = await stageMeasuredRun(platform, { runId: 7991, pullRequest: 26, headSha: headShaFor(26), headRepo: 'mallory/shop' });
    const forkRun = await report(fork.event);
    assert.equal(forkRun.status, 0, describeRun(forkRun));
    assert.match(perfgateComments(26)[0]!.body, /ran under the pull request's own workflow: it comes from a fork \(mallory\)/);
  });

  test('a run of a push has no pull request: the job summary only', async () => {
    const staged = await stageMeasuredRun(platform, { runId: 7701, pullRequest: 0, headSha: headShaFor(15), event: 'push', headBranch: 'main' });
    const from = platform.github.requests.length;
    const run = await report(staged.event);
    assert.equal(run.status, 0, describeRun(run));
    const requests = since(from);
    assert.ok(!requests.some((r) => r.path.includes('/issues/')), 'no comment or label request');
    assert.equal(run.outputs.decision, 'pass');
    assert.match(run.summary, /## perfgate/);
  });
});
