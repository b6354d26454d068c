/**
 * Base's configuration (src/engine/preflight.ts): a base without perfgate.yml gets its service
 * from the flags or inputs and perfgate's defaults, never head's commands (head's `node --jitless`
 * would make a slow head look fast); where those give base no service to start, base runs with
 * head's commands and the headline says so, and why.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { preflight } from '../../src/engine/preflight.js';
import { renderMarkdown } from '../../src/report/markdown.js';
import { assessResults } from '../../src/assess/compare.js';
import { resultsFromPairs } from '../helpers/results.js';
import { cleanPairs } from '../helpers/github-runs.js';
import { makeRepo } from '../helpers/repo.js';

const HEAD_CONFIG = 'service:\n  start: node --jitless server.js\nscenarios:\n  - GET /\n';

function check(repo: string, overrides: unknown) {
  return preflight({ repoDir: repo, baseRef: 'main', mergeBase: true, headRef: 'head', configFile: null, overrides, overridesSource: 'action inputs' });
}

describe("a base without perfgate's configuration", () => {
  test("takes its service from the inputs and perfgate's defaults, and head's scenarios, never head's commands", async () => {
    const repo = makeRepo({ 'server.js': '' }, { 'perfgate.yml': HEAD_CONFIG });
    const checked = await check(repo, { service: { start: 'node server.js' } });
    assert.equal(checked.baseConfigProblem, null);
    assert.equal(checked.baseConfig?.service.start, 'node server.js');
    assert.deepEqual(
      checked.baseConfig?.scenarios.map((s) => s.name),
      checked.config.scenarios.map((s) => s.name),
    );
  });

  test("where the inputs give it no service to start, it runs with head's commands, and the headline says so and why", async () => {
    const repo = makeRepo({ 'server.js': '' }, { 'perfgate.yml': HEAD_CONFIG });
    const checked = await check(repo, {});
    assert.equal(checked.baseConfig, null);
    assert.match(checked.baseConfigProblem ?? '', /^base has no perfgate\.yml, and the action inputs and perfgate's defaults give it no service to start \(.*service\.start/);

    const results = resultsFromPairs(cleanPairs());
    results.warnings.push({ code: 'base-config-unusable', message: `Base ran with head's service commands, which the pull request wrote: ${checked.baseConfigProblem}.` });
    const headline = renderMarkdown(results, assessResults(results)).split('\n\n').slice(0, 2).join('\n\n');
    assert.match(headline, /⚠️ Base ran with head's service commands, which the pull request wrote: base has no perfgate\.yml/);
  });

  test('a base with its own file keeps its own commands', async () => {
    const repo = makeRepo({ 'perfgate.yml': 'service:\n  start: node server.js\nscenarios:\n  - GET /\n' }, { 'perfgate.yml': HEAD_CONFIG });
    const checked = await check(repo, {});
    assert.equal(checked.baseConfig?.service.start, 'node server.js');
    assert.equal(checked.config.service.start, 'node --jitless server.js');
  });
});

describe('a perfgate.yml in a commit larger than perfgate reads', () => {
  // 70 MiB: past the 64 MiB git's output may fill in perfgate, so only a size asked before the
  // text is read can refuse it with the configuration's own message.
  const huge = `scenarios:\n  - GET /\n#${'x'.repeat(70 * 2 ** 20)}\n`;
  const cap = /the config file is 70 MiB \([\d,]+ bytes\); perfgate reads at most 1 MiB/;

  test("base's is refused unread, named in the problem base's configuration reports", async () => {
    const repo = makeRepo({ 'perfgate.yml': huge }, { 'perfgate.yml': HEAD_CONFIG });
    const checked = await check(repo, {});
    assert.equal(checked.baseConfig, null);
    assert.match(checked.baseConfigProblem ?? '', /^main:perfgate\.yml: /);
    assert.match(checked.baseConfigProblem ?? '', cap);
  });

  test("head's, read from its commit, stops the run with the same message", async () => {
    const repo = makeRepo({ 'perfgate.yml': HEAD_CONFIG }, { 'perfgate.yml': huge });
    await assert.rejects(check(repo, {}), (error: Error) => {
      assert.match(error.message, /^head:perfgate\.yml: /);
      assert.match(error.message, cap);
      return true;
    });
  });
});
