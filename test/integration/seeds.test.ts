/**
 * The seed articles' worked examples, end to end (issue 25): each service as the article builds
 * it, with its real dependencies (npm ci from the fixture's lockfile, as perfgate installs users'
 * trees), base against head under perfgate compare with profiles on. What a user sees is
 * asserted: the verdict (exit code), the culprit the headline and verdicts.json name.
 * Fixtures: test/fixtures/seeds/.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { culpritOf } from '../../src/profile/culprit.js';
import { readResults } from '../../src/results/io.js';
import type { VerdictEntry, VerdictsDocument } from '../../src/results/verdicts.js';
import { runCli } from '../helpers/cli.js';
import { lineOf } from '../helpers/profiles.js';
import { type Files, makeRepo } from '../helpers/repo.js';

const MEME = 'seeds/meme';
const meme: Files = {
  '.gitignore': 'node_modules\n',
  'package.json': { copy: `${MEME}/package.json` },
  'package-lock.json': { copy: `${MEME}/package-lock.json` },
  'util.js': { copy: `${MEME}/util.js` },
  'content/brick.png': { copy: `${MEME}/content/brick.png` },
};
const MEME_ROUTE = 'GET /?title=too%20much%20time&aligned=middle';

/** The seed fixture's line holding `text`, 1-based. */
function seedLine(file: string, text: string): number {
  return lineOf(`../seeds/${file}`, text);
}

/** The verdicts.json entry of a gated HTTP metric. */
function verdictOf(verdicts: VerdictsDocument, metric: string): VerdictEntry {
  const entry = verdicts.metrics.find((m) => m.kind === 'http' && m.metric === metric);
  assert.ok(entry, `${metric} in verdicts.json`);
  return entry;
}

describe("clinic's meme generator (jimp)", () => {
  // The article's slow server reads the brick wall and loads the font inside the handler; its fix
  // loads them once. As a pull request: base has the fix, head moves the loading back into the
  // handler. The decoding runs after Jimp.read's and loadFont's awaits, on stacks of jimp's frames
  // alone: the culprit is the handler that awaits them, what the user would change.
  test('a head that reads the image and loads the font on every request fails, and the handler that loads them is named', async () => {
    const repo = makeRepo(
      {
        ...meme,
        'server.js': { copy: `${MEME}/server-base.js` },
        // Ten start pairs: the fewest whose sign-flip test can reach the 1% level for the two gated
        // metrics; slices of 1 s, as head answers a few requests a second on a busy machine.
        'perfgate.yml': `service:
  start: node server.js
  ready: { timeout: 30s }
scenarios: ['${MEME_ROUTE}']
load: { pairs: 10, blocks: 1, instances: 10, slice: 1s, warmup: 1s, connections: 2 }
profile: { duration: 3s }
`,
      },
      { 'server.js': { copy: `${MEME}/server-head.js` } },
    );
    const out = join(repo, '.out');
    const verdictsFile = join(out, 'verdicts.json');
    const run = await runCli(['compare', '--base', 'main', '--out', out, '--seed', '25', '--verdicts', verdictsFile], repo);
    assert.equal(run.code, 1, run.stderr + run.stdout);
    const handlerLine = seedLine('meme/server-head.js', 'async function handler');
    const named = `most new time in handler \\(server\\.js:${handlerLine}\\)`;
    assert.match(run.stdout.split('\n').slice(0, 2).join('\n'), new RegExp(`failing: GET /\\?title=too%20much%20time&aligned=middle throughput −[\\d.]+% \\(limit 2%\\): ${named}`));
    const verdicts = JSON.parse(readFileSync(verdictsFile, 'utf8')) as VerdictsDocument;
    assert.equal(verdicts.decision, 'fail');
    const throughput = verdictOf(verdicts, 'throughput');
    assert.equal(throughput.verdict, 'regression');
    assert.deepEqual(
      { function: throughput.culprit?.function, file: throughput.culprit?.file, line: throughput.culprit?.line },
      { function: 'handler', file: 'server.js', line: handlerLine },
    );
    // The time it added per request is the loading's: most of head's extra CPU per request.
    const results = readResults(join(out, 'results.json'));
    const culprit = culpritOf(results.profiles![0]!)!;
    const scale = culprit.fn.scale!;
    assert.ok(culprit.fn.added! > 0.5 * (scale.head - scale.base), `handler adds ${culprit.fn.added!.toFixed(0)} µs of head's ${(scale.head - scale.base).toFixed(0)} µs more CPU per request`);
  });
});
