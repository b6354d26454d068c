/**
 * A real dependency bump, not an invented package (issue 28): an articles API whose only change
 * between base and head is fast-json-stringify 5.12.0 → 5.13.0 in package.json and
 * package-lock.json. 5.13.0 sends strings of 5,000 characters or more to JSON.stringify instead
 * of testing them against its escape regex; on Node 20 that is slower for long strings that need
 * no escaping, the articles' bodies (docs/dependency-bumps.md has the measurements, and why this
 * disagrees with the speed-up upstream measured). perfgate installs each side's tree with npm ci
 * from the lockfile, so the test needs the npm registry.
 * Fixture: test/fixtures/bumps/fast-json-stringify.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { readResults } from '../../src/results/io.js';
import { runCli } from '../helpers/cli.js';
import { makeRepo } from '../helpers/repo.js';

const FIXTURE = 'bumps/fast-json-stringify';
const side = (version: string) => ({
  'package.json': { copy: `${FIXTURE}/v${version}/package.json` },
  'package-lock.json': { copy: `${FIXTURE}/v${version}/package-lock.json` },
});

test('fast-json-stringify 5.12.0 → 5.13.0: the build fails and the headline names the package with both versions', async () => {
  const repo = makeRepo(
    {
      'server.js': { copy: `${FIXTURE}/server.js` },
      'perfgate.yml': { copy: `${FIXTURE}/perfgate.yml` },
      '.gitignore': 'node_modules\n.out\n',
      ...side('5.12.0'),
    },
    side('5.13.0'),
  );
  const out = join(repo, '.out');
  const cli = await runCli(['compare', '--base', 'main', '--out', out, '--seed', '13'], repo);
  assert.equal(cli.code, 1, cli.stderr + cli.stdout);
  const results = readResults(join(out, 'results.json'));
  assert.deepEqual(results.dependencies?.changed, [{ name: 'fast-json-stringify', base: ['5.12.0'], head: ['5.13.0'], direct: true }]);
  const [headline] = cli.stdout.split('\n').filter((line) => line.startsWith('perfgate:'));
  assert.match(headline!, /failing: GET \/articles throughput −[\d.]+% \(limit 2%\): most new time in fast-json-stringify 5\.12\.0 → 5\.13\.0 \(changed by this PR\): \S+ in lib\/serializer\.js/);
  assert.match(cli.stdout, /by package .*\n *package +version +base +head +change\n *fast-json-stringify +5\.12\.0 → 5\.13\.0 +/);
});
