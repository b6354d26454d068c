/**
 * The fast-json-stringify 5.12.0 → 5.13.0 bump of dependency-bumps.test.ts, locked and installed
 * by pnpm instead of npm (issue 28): perfgate reads pnpm-lock.yaml for the upgrade, installs each
 * side with `pnpm install --frozen-lockfile --package-import-method=copy` (chosen from the
 * lockfile; pnpm's default hard links would share files between the two trees, docs/security.md)
 * and maps the profile's frames, which Node reports at their real paths in pnpm's store
 * (node_modules/.pnpm/fast-json-stringify@5.13.0/node_modules/fast-json-stringify/…), to the
 * package and its version. pnpm is one of perfgate's devDependencies, put first on the PATH the
 * CLI gives its commands, so a fresh clone needs no global pnpm; it fetches from the npm registry.
 * Fixture: test/fixtures/bumps/fast-json-stringify-pnpm (package.json from the npm fixture,
 * pnpm-lock.yaml by `pnpm install --lockfile-only` with that pnpm), server and config reused.
 */
import assert from 'node:assert/strict';
import { delimiter, join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { readResults } from '../../src/results/io.js';
import { runCli } from '../helpers/cli.js';
import { makeRepo } from '../helpers/repo.js';

const FIXTURE = 'bumps/fast-json-stringify';
const BIN = fileURLToPath(new URL('../../node_modules/.bin', import.meta.url));
const side = (version: string) => ({
  'package.json': { copy: `${FIXTURE}-pnpm/v${version}/package.json` },
  'pnpm-lock.yaml': { copy: `${FIXTURE}-pnpm/v${version}/pnpm-lock.yaml` },
});

test('fast-json-stringify 5.12.0 → 5.13.0 installed by pnpm: the headline names the package with both versions', async () => {
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
  const env = { ...process.env, PATH: `${BIN}${delimiter}${process.env.PATH ?? ''}` };
  const cli = await runCli(['compare', '--base', 'main', '--out', out, '--seed', '13'], repo, env);
  assert.match(cli.stdout + cli.stderr, /install base: pnpm install --frozen-lockfile --package-import-method=copy/, 'installed by pnpm');
  assert.equal(cli.code, 1, cli.stderr + cli.stdout);
  const results = readResults(join(out, 'results.json'));
  assert.deepEqual(results.dependencies, { lockfile: 'pnpm-lock.yaml', changed: [{ name: 'fast-json-stringify', base: ['5.12.0'], head: ['5.13.0'], direct: true }] });
  const packages = results.profiles![0]!.sides.head.packages!;
  assert.ok(packages.some((p) => p.name === 'fast-json-stringify' && p.version === '5.13.0'), JSON.stringify(packages));
  const [headline] = cli.stdout.split('\n').filter((line) => line.startsWith('perfgate:'));
  assert.match(headline!, /failing: GET \/articles throughput −[\d.]+% \(limit 2%\): most new time in fast-json-stringify 5\.12\.0 → 5\.13\.0 \(changed by this PR\): \S+ in lib\/serializer\.js/);
  assert.match(cli.stdout, /by package .*\n *package +version +base +head +change\n *fast-json-stringify +5\.12\.0 → 5\.13\.0 +/);
});
