/**
 * 0x, which draws the head and base flamegraphs from their CPU profiles.
 *
 * 0x cannot be bundled into dist/: it builds its page at run time by running browserify over
 * its own visualizer sources, so it needs its files and dependencies on disk. Where it comes from:
 * 1. a checkout of perfgate with node_modules (0x is a devDependency), the tests — resolved from
 *    this module, as Node resolves any import;
 * 2. otherwise (the action: GitHub fetches the repository with dist/ but no node_modules; the CLI
 *    from npm, which has no runtime dependencies, so installing it stays light) the exact version
 *    perfgate was built with (pinned into the bundle) is installed once with
 *    `npm install --prefix <toolsDir>/0x-<version>` and reused from there. The action keeps that
 *    directory in GitHub's Actions cache (restoreZeroX, saveZeroX), so later runs skip npm.
 * It runs under the service's `node` (the one on the service's PATH), the Node that recorded
 * the profiles, not the Node running perfgate (the action's runtime, Node 24).
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { PerfgateError } from '../errors.js';
import type { DirectoryCache, Logger } from '../ports.js';
import { type ProcessTracker, runProcess, tailFile } from '../process/processes.js';

declare const __ZEROX_VERSION__: string | undefined;

const requireHere = createRequire(import.meta.url);

/** Profiling could not produce a flamegraph (the table is still reported). */
export class FlamegraphError extends PerfgateError {}

/** 0x's version in perfgate's own install, or null when there is none. */
function installedVersion(): { version: string; cmd: string } | null {
  try {
    const manifest = requireHere.resolve('0x/package.json');
    const { version } = JSON.parse(readFileSync(manifest, 'utf8')) as { version: string };
    return { version, cmd: join(dirname(manifest), 'cmd.js') };
  } catch {
    return null;
  }
}

/** The 0x version perfgate uses: pinned at bundle time (scripts/bundle.mjs), else the installed one. */
export function zeroXVersion(): string {
  if (typeof __ZEROX_VERSION__ === 'string') return __ZEROX_VERSION__;
  const installed = installedVersion();
  if (!installed) throw new FlamegraphError('0x is not installed with perfgate: run npm ci in perfgate.');
  return installed.version;
}

export interface ZeroXOptions {
  /** Where 0x is installed when perfgate has none of its own. */
  toolsDir: string;
  /** The service's (scrubbed) environment: its PATH names the node and npm to use. */
  env: Record<string, string>;
  logFile: string;
  tracker: ProcessTracker;
  logger: Logger;
}

/**
 * The cache key of an install: the version, and the platform and architecture npm installed for.
 * Not the Node major: 0x and its dependencies are plain JavaScript installed with --ignore-scripts
 * (nothing is compiled), and it runs under whichever node the service uses.
 */
export function zeroXCacheKey(version: string, platform: string = process.platform, arch: string = process.arch): string {
  return `perfgate-0x-${version}-${platform}-${arch}`;
}

/** True when `prefix` holds 0x at exactly `version` (a restored cache could hold anything). */
function holdsVersion(prefix: string, version: string): boolean {
  try {
    const manifest = JSON.parse(readFileSync(join(prefix, 'node_modules', '0x', 'package.json'), 'utf8')) as { version?: unknown };
    return manifest.version === version && existsSync(join(prefix, 'node_modules', '0x', 'cmd.js'));
  } catch {
    return false;
  }
}

/** Where 0x is installed under `toolsDir` and its cache key; null when perfgate has 0x of its own. */
function zeroXInstall(toolsDir: string): { version: string; prefix: string; key: string } | null {
  const version = zeroXVersion();
  const installed = installedVersion();
  if (installed && installed.version === version) return null;
  return { version, prefix: join(toolsDir, `0x-${version}`), key: zeroXCacheKey(version) };
}

/**
 * Fills the install directory from `cache` when it does not hold 0x yet. True when 0x is in place
 * now (perfgate's own, an earlier install, or restored): then there is nothing to save later. The
 * cache's archiver runs with the runner's cache token in its environment, so the action calls
 * this before any of the pull request's code runs.
 */
export async function restoreZeroX(toolsDir: string, cache: DirectoryCache, logger: Logger): Promise<boolean> {
  const install = zeroXInstall(toolsDir);
  if (!install || holdsVersion(install.prefix, install.version)) return true;
  if (!(await cache.restore(install.prefix, install.key))) return false;
  if (holdsVersion(install.prefix, install.version)) {
    logger.info(`0x@${install.version} for the flamegraphs restored from the cache (${install.key}) into ${install.prefix}`);
    return true;
  }
  logger.warn(`The cache ${install.key} did not hold 0x@${install.version}; it is installed if a flamegraph is drawn.`);
  return false;
}

/** Saves the install directory to `cache` when it holds 0x (the action: a fresh install, after the pull request's code is stopped). */
export async function saveZeroX(toolsDir: string, cache: DirectoryCache): Promise<void> {
  const install = zeroXInstall(toolsDir);
  if (install && holdsVersion(install.prefix, install.version)) await cache.save(install.prefix, install.key);
}

/** Path of 0x's cmd.js: perfgate's own, an earlier install (this run's or a cached one), or a fresh one. */
export async function ensureZeroX(options: ZeroXOptions): Promise<string> {
  const install = zeroXInstall(options.toolsDir);
  if (!install) return installedVersion()!.cmd;
  const { version, prefix } = install;
  const cmd = join(prefix, 'node_modules', '0x', 'cmd.js');
  if (holdsVersion(prefix, version)) return cmd;
  mkdirSync(prefix, { recursive: true });
  options.logger.info(`installing 0x@${version} for the flamegraphs into ${prefix}`);
  // --prefer-offline: a runner's npm cache may already hold it; --ignore-scripts: 0x needs none.
  const args = ['install', '--prefix', prefix, '--no-save', '--no-package-lock', '--no-audit', '--no-fund', '--prefer-offline', '--ignore-scripts', '--omit=dev', `0x@${version}`];
  const result = await runProcess('npm', args, { cwd: prefix, env: options.env, logFile: options.logFile, tracker: options.tracker, timeoutMs: 300_000 }).catch(
    (e: Error) => ({ code: null, signal: null, timedOut: false, error: e.message }),
  );
  if (result.code !== 0 || !existsSync(cmd)) {
    throw new FlamegraphError(
      `Could not install 0x@${version} for the flamegraphs (npm ${args.join(' ')}: ${describeExit(result)}). Its log: ${options.logFile}\n${tailFile(options.logFile, 10)}`,
    );
  }
  return cmd;
}

function describeExit(result: { code: number | null; signal: string | null; timedOut: boolean; error?: string }): string {
  if (result.error) return result.error;
  if (result.timedOut) return 'timed out';
  return result.signal ? `killed by ${result.signal}` : `exit code ${result.code}`;
}

/** One flamegraph to draw: a .cpuprofile and the HTML file to write. */
export interface FlamegraphJob {
  input: string;
  output: string;
  title: string;
}

export interface RenderOptions {
  /** 0x's cmd.js (ensureZeroX). */
  cmd: string;
  jobs: readonly FlamegraphJob[];
  /** Where 0x's visualizer bundle is kept between drawings (the tools directory). */
  toolsDir: string;
  env: Record<string, string>;
  logFile: string;
  tracker: ProcessTracker;
}

/**
 * Draws 0x's flamegraph of each profile. `0x --visualize-cpu-profile` runs browserify over its
 * visualizer on every call (about 1.2 s of CPU, the same output every time) before it writes the
 * page; the profile's own part takes a few milliseconds. So the page is made here as 0x's
 * lib/render.js makes it, from 0x's own modules, with the browserified visualizer kept in the
 * tools directory: one node process for every job, and browserify once per install of 0x.
 * Where 0x's modules are not laid out so (another version), each job runs 0x's command as before.
 * Runs under the service's `node`, the Node that recorded the profiles.
 */
export async function renderFlamegraphs(options: RenderOptions): Promise<void> {
  if (options.jobs.length === 0) return;
  const zeroXDir = dirname(options.cmd);
  const run = (args: string[]) =>
    runProcess('node', args, { cwd: dirname(options.jobs[0]!.input), env: options.env, logFile: options.logFile, tracker: options.tracker, timeoutMs: 120_000 }).catch(
      (e: Error) => ({ code: null, signal: null, timedOut: false, error: e.message }),
    );
  const bundle = visualizerCache(zeroXDir, options.toolsDir);
  if (bundle && existsSync(join(zeroXDir, 'lib', 'cpu-profile-to-tree.js')) && existsSync(join(zeroXDir, 'visualizer', 'html.js'))) {
    mkdirSync(options.toolsDir, { recursive: true });
    const result = await run(['-e', DRAW_PAGES, zeroXDir, bundle, JSON.stringify(options.jobs)]);
    if (result.code === 0 && options.jobs.every((job) => existsSync(job.output))) return;
  }
  for (const job of options.jobs) {
    const result = await run([options.cmd, '--visualize-cpu-profile', job.input, '--output-html', job.output, '--title', job.title, '--quiet']);
    if (result.code !== 0 || !existsSync(job.output)) {
      throw new FlamegraphError(`0x could not draw ${job.output} (${describeExit(result)}). Its log: ${options.logFile}\n${tailFile(options.logFile, 10)}`);
    }
  }
}

/**
 * The file that keeps the browserified visualizer of the 0x at `zeroXDir`, or null when that 0x
 * has no package.json. Named by the install's place and the time its package.json was written
 * (npm writes every file anew on install; the mtimes it sets are the tarball's): another
 * install, or another 0x, gets a file of its own.
 */
function visualizerCache(zeroXDir: string, toolsDir: string): string | null {
  try {
    const manifest = join(zeroXDir, 'package.json');
    const { version } = JSON.parse(readFileSync(manifest, 'utf8')) as { version?: unknown };
    const stamp = createHash('sha256').update(`${realpathSync(zeroXDir)}\0${statSync(manifest).ctimeMs}`).digest('hex').slice(0, 16);
    return join(toolsDir, `0x-${String(version)}-visualizer-${stamp}.js`);
  } catch {
    return null;
  }
}

/**
 * `node -e DRAW_PAGES <0x's directory> <bundle cache> <jobs as JSON>`: 0x's lib/render.js for
 * each job, the visualizer browserified once (written to the cache under a temporary name, then
 * renamed, so a concurrent run never reads half a file).
 */
const DRAW_PAGES = String.raw`
const { createRequire } = require('node:module');
const fs = require('node:fs');
const path = require('node:path');
const [zeroXDir, cacheFile, jobs] = process.argv.slice(1);
const requireFrom0x = createRequire(path.join(zeroXDir, 'index.js'));
async function visualizer() {
  try {
    return fs.readFileSync(cacheFile, 'utf8');
  } catch {}
  const code = await new Promise((resolve, reject) => {
    requireFrom0x('browserify')({ standalone: 'visualizer' })
      .add(path.join(zeroXDir, 'visualizer'))
      .bundle((error, buffer) => (error ? reject(error) : resolve(buffer.toString())));
  });
  const temporary = cacheFile + '.' + process.pid;
  fs.writeFileSync(temporary, code);
  fs.renameSync(temporary, cacheFile);
  return code;
}
(async () => {
  const code = await visualizer();
  const toTrees = requireFrom0x('./lib/cpu-profile-to-tree');
  const html = requireFrom0x('./visualizer/html');
  for (const { input, output, title } of JSON.parse(jobs)) {
    const trees = toTrees(JSON.parse(fs.readFileSync(input, 'utf8')));
    const options = { title, kernelTracing: false, visualizeCpuProfile: input };
    await html({ title, htmlPath: output, script: '\n    ' + code + '\n    visualizer(' + JSON.stringify(trees) + ', ' + JSON.stringify(options) + ')\n  ' });
  }
})().catch((error) => {
  console.error(error);
  process.exit(1);
});
`;
