/**
 * A real dependency bump, not an invented package (issue 28): an articles API whose only change
 * between base and head is fast-json-stringify 5.12.0 → 5.13.0 in package.json and the lockfile.
 * 5.13.0 sends strings of 5,000 characters or more to JSON.stringify instead of testing them
 * against its escape regex; on Node 20 that is slower for long strings that need no escaping,
 * the articles' bodies (docs/dependency-bumps.md has the measurements, and why this disagrees
 * with the speed-up upstream measured). Each side's tree is installed from its lockfile, so the
 * test needs the npm registry.
 *
 * Locked and installed by npm (`npm ci`, package-lock.json), and by pnpm: perfgate reads
 * pnpm-lock.yaml for the upgrade, installs with `pnpm install --frozen-lockfile
 * --package-import-method=copy` (pnpm's default hard links would share files between the two
 * trees, docs/security.md), and maps the profile's frames, which Node reports at their real
 * paths in pnpm's store (node_modules/.pnpm/fast-json-stringify@5.13.0/node_modules/…), to the
 * package and its version. pnpm is one of perfgate's devDependencies, put first on the PATH the
 * CLI gives its commands, so a fresh clone needs no global pnpm.
 * Fixtures: test/fixtures/bumps/fast-json-stringify (server, config, npm lockfiles) and
 * fast-json-stringify-pnpm (pnpm-lock.yaml by `pnpm install --lockfile-only`).
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { delimiter, dirname, join, sep } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { readResults } from '../../src/results/io.js';
import { runCli } from '../helpers/cli.js';
import { FIXTURES, makeRepo } from '../helpers/repo.js';

const FIXTURE = 'bumps/fast-json-stringify';
/** The machine's own node: the first on the PATH outside any node_modules/.bin. */
const MACHINE_NODE = (process.env.PATH ?? '')
  .split(delimiter)
  .filter((dir) => dir !== '' && !dir.includes(`node_modules${sep}.bin`))
  .map((dir) => join(dir, 'node'))
  .find((file) => existsSync(file)) ?? process.execPath;
const BIN = fileURLToPath(new URL('../../node_modules/.bin', import.meta.url));
// The fixture's own settings, as docs/dependency-bumps.md reruns them, without the revert arm:
// what is asserted is the verdict and the package named, not what reverting the package gives back.
const CONFIG = readFileSync(join(FIXTURES, FIXTURE, 'perfgate.yml'), 'utf8').replace('profile: { duration: 3s }', 'profile: { duration: 3s, confirm: false }');
assert.match(CONFIG, /confirm: false/, `${FIXTURE}/perfgate.yml profiles for 3 s, as the tests expect`);

const MANAGERS = [
  { name: 'npm', lockfile: 'package-lock.json', dir: FIXTURE, install: 'npm ci' },
  { name: 'pnpm', lockfile: 'pnpm-lock.yaml', dir: `${FIXTURE}-pnpm`, install: 'pnpm install --frozen-lockfile --package-import-method=copy' },
] as const;

for (const manager of MANAGERS) {
  test(`fast-json-stringify 5.12.0 → 5.13.0 locked by ${manager.name}: the build fails and the headline names the package with both versions`, async () => {
    const side = (version: string) => ({
      'package.json': { copy: `${manager.dir}/v${version}/package.json` },
      [manager.lockfile]: { copy: `${manager.dir}/v${version}/${manager.lockfile}` },
    });
    const repo = makeRepo(
      {
        'server.js': { copy: `${FIXTURE}/server.js` },
        'perfgate.yml': CONFIG,
        '.gitignore': 'node_modules\n.out\n',
        ...side('5.12.0'),
      },
      side('5.13.0'),
    );
    const out = join(repo, '.out');
    // pnpm from perfgate's devDependencies, node from the machine: node_modules/.bin (first on the
    // PATH npm gives the tests) also holds the Node 24 of the e2e tests, on which 5.13.0's
    // JSON.stringify of long strings costs little; the fixture's slowdown is Node 20's.
    // perfgate settles its own programs (node among them) from the PATH of the env it is given.
    const env = { ...process.env, PATH: [dirname(MACHINE_NODE), BIN, process.env.PATH ?? ''].join(delimiter) };
    const cli = await runCli(['compare', '--base', 'main', '--out', out, '--seed', '13'], repo, env);
    assert.ok((cli.stdout + cli.stderr).includes(`install base: ${manager.install}`), `installed by ${manager.name}`);
    assert.equal(cli.code, 1, cli.stderr + cli.stdout);
    const results = readResults(join(out, 'results.json'));
    assert.deepEqual(results.dependencies, { lockfile: manager.lockfile, changed: [{ name: 'fast-json-stringify', base: ['5.12.0'], head: ['5.13.0'], direct: true }] });
    const packages = results.profiles![0]!.sides.head.packages!;
    assert.ok(packages.some((p) => p.name === 'fast-json-stringify' && p.version === '5.13.0'), JSON.stringify(packages));
    const [headline] = cli.stdout.split('\n').filter((line) => line.startsWith('perfgate:'));
    assert.match(headline!, /failing: GET \/articles throughput −[\d.]+% \(limit 2%\): most new time in fast-json-stringify 5\.12\.0 → 5\.13\.0 \(changed by this PR\): \S+ in lib\/serializer\.js/);
    assert.match(cli.stdout, /by package .*\n *package +version +base +head +change\n *fast-json-stringify +5\.12\.0 → 5\.13\.0 +/);
  });
}
