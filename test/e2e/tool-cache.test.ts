// lane: beside — its verdicts come from tenfold changes or A/A at alpha 0.001; it tests what the action does with them.
// The 0x install between action runs: GitHub fetches the action's dist/ without node_modules, so
// the first run installs the pinned 0x and saves it to the Actions cache; a later run restores it
// and starts no npm. The bundle runs from a copy of dist/ with no node_modules above it, against
// the local results service (cache service v2) and Azurite; `npm` on PATH is the real npm behind
// a wrapper that records its calls, so the first install is a real install from the registry,
// with the npm cache of the user running the tests (npm config get cache), as a runner keeps
// ~/.npm between jobs: it downloads only on the first run on a machine. The later installs assert
// that perfgate installs again, not what npm does then: the wrapper puts the files the first
// install wrote into their prefix (what npm, from its cache, would write there again), which
// spares the file npm's seconds of resolving and extracting per install.
// Nothing here is measured, so each run measures the fewest pairs a compare takes.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { chmodSync, cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { ARCHIVE_PROGRAMS } from '../../src/action/tool-cache.js';
import { pushEvent } from '../helpers/github-events.js';
import { type ActionRun, describeRun, PASSING_INPUTS, runAction, useFakePlatform } from '../helpers/github-runner.js';
import { baseSha, headSha, IDENTICAL_CODE_ALPHA, makeRepo, ROOT } from '../helpers/repo.js';

const platform = useFakePlatform();
/**
 * Nothing is measured, only the tools the profile's flamegraphs need: the fewest pairs (6), all
 * on one start pair, which starts two services, not six (with one start pair no verdict can be
 * significant, so identical code passes).
 */
const inputs = { ...PASSING_INPUTS, instances: '1' };
const ZEROX = JSON.parse(readFileSync(join(ROOT, 'node_modules', '0x', 'package.json'), 'utf8')).version as string;
const npmCache = execFileSync('npm', ['config', 'get', 'cache'], { encoding: 'utf8' }).trim();
/** What the file's first real install of 0x wrote into its prefix (filled by the first test). */
const installed = mkdtempSync(join(tmpdir(), 'perfgate-0x-installed-'));
after(() => rmSync(installed, { recursive: true, force: true }));

/**
 * npm behind a wrapper that logs each call: the real npm, with this machine's npm cache, until
 * the file has a real install in `installed`; then an `npm install --prefix <dir> …` copies it there.
 */
function recordedNpm(dir: string): { bin: string; calls: () => string[] } {
  const bin = join(dir, 'bin');
  const log = join(dir, 'npm-calls.log');
  const real = execFileSync('sh', ['-c', 'command -v npm'], { encoding: 'utf8' }).trim();
  mkdirSync(bin);
  writeFileSync(log, '');
  const copyInstalled = `if [ "$1" = install ] && [ "$2" = --prefix ] && [ -d '${installed}/node_modules' ]; then mkdir -p "$3" && exec cp -a '${installed}/.' "$3/"; fi\n`;
  writeFileSync(join(bin, 'npm'), `#!/bin/sh\necho "npm $*" >> '${log}'\n${copyInstalled}npm_config_cache='${npmCache}' exec '${real}' "$@"\n`);
  chmodSync(join(bin, 'npm'), 0o755);
  return { bin, calls: () => readFileSync(log, 'utf8').split('\n').filter(Boolean) };
}

/**
 * The runner's PATH with its home's ~/.local/bin first (as on GitHub's ubuntu runners), then
 * the recorded npm, and this machine's extra CA (a registry behind a TLS proxy), as a runner
 * image would carry it.
 */
function runnerEnv(npm: { bin: string }): Record<string, string> {
  const home = mkdtempSync(join(tmpdir(), 'perfgate-home-'));
  const ca = process.env.NODE_EXTRA_CA_CERTS;
  return { HOME: home, PATH: `${join(home, '.local', 'bin')}:${npm.bin}:${process.env.PATH}`, ...(ca && { NODE_EXTRA_CA_CERTS: ca }) };
}


test('the action caches its 0x install: the first run installs and saves it, the next restores it and runs no npm; no tar the PR planted runs', async () => {
  const home = mkdtempSync(join(tmpdir(), 'perfgate-action-copy-'));
  const distDir = join(home, 'dist');
  cpSync(join(ROOT, 'dist'), distDir, { recursive: true });
  assert.equal(existsSync(join(home, 'node_modules')), false);
  const npm = recordedNpm(home);
  // The install plants tar and its compressors (what the cache runs) on PATH, each recording its environment (the cache token
  // would be in it) before running the real one.
  const findings = mkdtempSync(join(tmpdir(), 'perfgate-findings-'));
  const install = `node -e "require('./plant.js').plant('${findings}', ${JSON.stringify(ARCHIVE_PROGRAMS).replace(/"/g, "'")})"`;
  const repo = makeRepo(
    {
      'server.js': { copy: 'services/work-server.js' },
      'plant.js': { copy: 'hostile/plant.js' },
      'work.json': '{"iterations": 20000}',
      'perfgate.yml': `service:\n  install: ${install}\n  start: node server.js\nprofile: { duration: 1s, when: always }\n${IDENTICAL_CODE_ALPHA}`,
    },
    { 'NOTES.md': 'x' },
  );
  const planted = () => readdirSync(findings).filter((f) => f.startsWith('planted-'));
  // One runner: RUNNER_TEMP is the same path every run (the cache keys on the path as well).
  const temp = mkdtempSync(join(tmpdir(), 'perfgate-runner-'));
  const tools = join(temp, 'perfgate-tools', `0x-${ZEROX}`);
  const key = `perfgate-0x-${ZEROX}-${process.platform}-${process.arch}`;
  // A fresh home each run, as on a hosted runner: what the install planted is not on PATH when
  // the next run's perfgate starts.
  const homes: string[] = [];
  const run = (runId: number, extra: Record<string, string> = {}) => {
    const env = runnerEnv(npm);
    homes.push(env.HOME!);
    return runAction({ eventName: 'push', event: pushEvent(baseSha(repo), headSha(repo)), inputs, workspace: repo, temp, runId, distDir, ...platform, env: { ...env, ...extra } });
  };
  /** The head flamegraph the run's results name (drawn by 0x), or undefined. */
  const flamegraph = (r: ActionRun): string | undefined => JSON.parse(readFileSync(r.outputs['results-path']!, 'utf8')).profiles?.[0]?.files?.head;

  const first = await run(6001);
  assert.equal(first.status, 0, describeRun(first));
  assert.deepEqual(npm.calls().length, 1, 'npm installed 0x once');
  assert.match(npm.calls()[0]!, new RegExp(`^npm install --prefix ${tools} .* 0x@${ZEROX.replace(/\./g, '\\.')}$`));
  assert.match(first.stdout, new RegExp(`installing 0x@${ZEROX.replace(/\./g, '\\.')} for the flamegraphs`));
  assert.match(first.stdout, /no Actions cache for perfgate-0x-\S+ yet; installing, then saving it/);
  assert.match(first.stdout, new RegExp(`saved ${tools} to the Actions cache as ${key}`));
  const entries = platform.artifacts.caches;
  assert.deepEqual(entries.map((c) => [c.key, c.finalized, c.runId]), [[key, true, 6001]]);
  assert.ok(entries[0]!.size > 0 && (await platform.artifacts.readBlob(entries[0]!)).bytes.length === entries[0]!.size, 'the archive is stored');
  assert.ok(flamegraph(first), 'the flamegraphs were drawn with the installed 0x');
  assert.deepEqual(first.annotations('warning').filter((w) => /cache/i.test(w)), []);
  assert.ok(existsSync(join(homes[0]!, '.local', 'bin', 'tar')), 'the install planted tar');
  assert.deepEqual(planted(), [], 'the cache ran none of the planted archive programs');

  // Keep the real install for the later ones; a fresh runner: the same RUNNER_TEMP path, nothing in it.
  cpSync(tools, installed, { recursive: true, verbatimSymlinks: true });
  rmSync(join(temp, 'perfgate-tools'), { recursive: true, force: true });
  const second = await run(6002);
  assert.equal(second.status, 0, describeRun(second));
  assert.equal(npm.calls().length, 1, 'no npm this time');
  assert.doesNotMatch(second.stdout, /installing 0x@/);
  assert.match(second.stdout, new RegExp(`Cache hit for: ${key}`));
  assert.match(second.stdout, new RegExp(`0x@${ZEROX.replace(/\./g, '\\.')} for the flamegraphs restored from the cache \\(${key}\\)`));
  assert.ok(existsSync(join(tools, 'node_modules', '0x', 'cmd.js')));
  assert.ok(flamegraph(second), 'the flamegraphs were drawn with the restored 0x');
  assert.equal(platform.artifacts.caches.length, 1, 'nothing saved again');
  assert.deepEqual(planted(), [], 'the cache ran none of the planted archive programs');

  // A cache service that does not answer: a warning, then the install, and the run still passes.
  rmSync(join(temp, 'perfgate-tools'), { recursive: true, force: true });
  const broken = await run(6003, { ACTIONS_RESULTS_URL: 'http://127.0.0.1:9/' });
  assert.equal(broken.status, 0, describeRun(broken));
  assert.equal(npm.calls().length, 2, 'installed again');
  assert.ok(broken.annotations('warning').some((w) => /Failed to restore/.test(w)), describeRun(broken));
  assert.deepEqual(broken.annotations('error'), []);
});

test('without a cache service (a local run) the tools are installed with one info line, no warning', async () => {
  const home = mkdtempSync(join(tmpdir(), 'perfgate-action-copy-'));
  const distDir = join(home, 'dist');
  cpSync(join(ROOT, 'dist'), distDir, { recursive: true });
  const npm = recordedNpm(home);
  const repo = makeRepo(
    { 'server.js': { copy: 'services/work-server.js' }, 'work.json': '{"iterations": 20000}', 'perfgate.yml': `profile: { duration: 1s, when: always }\n${IDENTICAL_CODE_ALPHA}` },
    { 'NOTES.md': 'x' },
  );
  const run = await runAction({
    eventName: 'push',
    event: pushEvent(baseSha(repo), headSha(repo)),
    inputs,
    workspace: repo,
    runId: 6101,
    distDir,
    github: platform.github,
    env: runnerEnv(npm),
  });
  assert.equal(run.status, 0, describeRun(run));
  assert.equal(npm.calls().length, 1);
  assert.match(run.stdout, /perfgate: tools not restored from the Actions cache: ACTIONS_RUNTIME_TOKEN not set/);
  assert.deepEqual(run.annotations('warning').filter((w) => /cache/i.test(w)), []);
});
