import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { PerfgateConfig, ServiceConfig } from '../config/types.js';
import { configHash } from '../results/config-hash.js';
import { type ConfirmTarget, type GitHubRecord, RESULTS_VERSION, type Results, type RunWarning, type ShardRecord, type Side, type TakenLook } from '../results/types.js';
import { headBrokenScenarios } from '../results/errors.js';
import { WriteError, writing } from '../results/write-error.js';
import { CancelledError, SetupError } from './errors.js';
import { type DiscoveredBenchmarks, discoverBenchmarks } from './phases/bench/discover.js';
import { runBenchmarks } from './phases/bench/runner.js';
import { runConfirmations } from './phases/confirm.js';
import { runHttpPhase } from './phases/http.js';
import { profiledScenarios, runProfiles } from './phases/profile.js';
import type { Plan } from './plan.js';
import type { EnginePorts } from './ports.js';
import { scrubEnv } from './process/env.js';
import { headIdentityOf, type ProcessTracker } from './process/processes.js';
import { loadScenarioValues } from './load/requests.js';
import { RunSession } from './session.js';
import { type BaseSeal, sealBaseTree } from './workspace/base-seal.js';
import { changedLines } from './workspace/changes.js';
import { fingerprint } from './workspace/fingerprint.js';
import { installedChanges } from './workspace/installed.js';
import { dependencyChanges, findLockfile } from './workspace/lockfiles.js';
import { copyableInstall, prepareTrees, type ResolvedSides, resolvedInstall, serviceDir, setupTree, type Tree, type Trees } from './workspace/trees.js';
import { recordLoggedErrors } from './service/logged-errors.js';
import { sealPreloads } from './service/preloads.js';
import { builtHunks, sourceLines } from './workspace/source-map.js';

export interface CompareRequest {
  /** Base and head as commits (preflight.ts resolved them): the run checks these out and resolves no ref again. */
  sides: ResolvedSides;
  /** How to name the base in reports (e.g. the PR's base branch when the base ref is a sha). */
  baseLabel?: string;
  /** results.json, logs and temporary worktrees go here. */
  outDir: string;
  /** The configuration, validated (head's perfgate.yml under the flags or inputs: preflight.ts). */
  config: PerfgateConfig;
  /** The schedule the run executes (plan.ts): the one its estimate was computed from. */
  plan: Plan;
  /**
   * The configuration as the base commit has it (preflight.ts): base's service commands come from
   * it, so a pull request cannot change how base is installed, built or started. Absent or null:
   * base runs with head's commands, and `baseConfigProblem` (when given) says why in a warning.
   */
  baseConfig?: PerfgateConfig | null;
  baseConfigProblem?: string | null;
  tracker: ProcessTracker;
  toolVersion: string;
  signal?: AbortSignal;
  /** The action's record of the GitHub run, stored in results.json as it is. */
  github?: GitHubRecord;
  /** Where tools perfgate runs on demand are installed when it has no copy (0x); default <outDir>/tools. */
  toolsDir?: string;
  /**
   * The stopping rule for the pre-registered looks (adaptive stopping): given the results so far
   * and the look's index, decide whether to stop. Passed in by the compare service
   * (assess/sequential.ts's rule), so the engine measures and the gate decides; without it the run
   * never stops early.
   */
  look?: (results: Results, look: number) => TakenLook;
  /**
   * The scenarios whose verdicts need no culprit, once the timed slices are done: with
   * profile.when: changed the profile phase leaves them out (assess/look.ts says which). Passed
   * in by the compare service, as `look` is; without it every scenario is profiled.
   */
  unprofiledScenarios?: (results: Results) => string[];
  /**
   * The scenarios the memory-growth rule flagged a possible leak, once the timed slices are done:
   * their profiled restart also takes heap snapshots (assess/look.ts says which). Without it, none.
   */
  leakScenarios?: (results: Results) => string[];
  /**
   * The culprits a third arm tests (profile.confirm), once the profiles are in: those of the
   * scenarios with a gated regression (assess/look.ts finds them). Passed in by the compare
   * service, as `look` is; without it no culprit is confirmed.
   */
  confirmTargets?: (results: Results) => ConfirmTarget[];
  /** The next culprit to revert for a scenario when its last arm explained too little of the drop, or null. */
  nextConfirmTarget?: (results: Results, scenario: string) => ConfirmTarget['culprit'] | null;
  /** Whether a scenario's last arm, as measured so far, needs another block for a clear answer; without it each arm is one block. */
  confirmAgain?: (results: Results, scenario: string) => boolean;
  /**
   * A matrix shard's part: `config` is already the shard's and `record` goes into results.json.
   * The benchmark files are dealt once they are known: `ownBenchmarks` (given by the compare
   * service, which owns the partition) keeps this part's files, fills in the record, and returns
   * null when the part owns none.
   */
  shard?: { record: ShardRecord; ownBenchmarks: (discovered: DiscoveredBenchmarks, record: ShardRecord) => DiscoveredBenchmarks | null };
}

export interface CompareOutcome {
  results: Results;
  resultsPath: string;
}

/**
 * The engine: trees → install/build → for each block, fresh starts of both sides up →
 * each start pair in turn, every scenario's warm-up and pairs on one load each (simultaneous) → then the
 * micro-benchmarks, round by round → then the profiles; results.json after every pair.
 * Processes and worktrees are removed in `finally`; an error marks the results "failed" and
 * keeps every finished pair.
 */
export async function runCompare(request: CompareRequest, ports: EnginePorts): Promise<CompareOutcome> {
  const logDir = join(request.outDir, 'logs');
  writing(request.outDir, 'the run directory', () => mkdirSync(logDir, { recursive: true }));
  const resultsPath = join(request.outDir, 'results.json');
  const env = scrubEnv(ports.env, ports.secrets);
  let session: RunSession | null = null;
  // Copied before the first of the pull request's commands (head's install), which could rewrite the shipped files.
  const preloads = sealPreloads();

  ports.progress({ phase: 'workspace' });
  const trees = await prepareTrees({ sides: request.sides, scratchDir: join(request.outDir, 'trees') }, ports);
  try {
    const { config, plan } = request;
    // Each side's service commands (install, build, setup, start, cwd, env) are its own commit's.
    const services: Record<Side, ServiceConfig> = { base: request.baseConfig?.service ?? config.service, head: config.service };
    // Before any install or start: a values file that is missing or lacks a column stops the run now.
    loadScenarioValues(config.scenarios, serviceDir(trees.head, config.service));
    ports.logger.info(`seed ${plan.seed} (pass --seed ${plan.seed} or seed: ${plan.seed} to repeat this order)`);
    const results = await newResults(request, trees, env);
    session = new RunSession(results, resultsPath, env, logDir, request.tracker, ports, request.signal);
    if (profiledScenarios(config).length > 0) await recordChanges(session, trees, services);
    session.update();

    const seal = await installBothSides(session, trees, services);
    if (profiledScenarios(config).length > 0) recordInstalledChanges(session, trees, services);
    const sides = { base: trees.base, head: trees.head };
    // Found before any load is sent, so a benchmarks problem stops the run in seconds.
    const discovered = discoverOwnBenchmarks(session, request, sides);
    if (config.scenarios.length > 0) {
      await runHttpPhase(session, { config, services, plan, trees: sides, look: request.look ?? null, seal });
      recordLoggedErrors(session, sides, request.outDir);
    }
    // A route head broke is the verdict, known at its warm-up: nothing more is measured or profiled.
    const stopped = headBrokenScenarios(results).length > 0;
    if (discovered && !stopped) {
      await runBenchmarks({ session, config: config.benchmarks!, service: config.service, discovered, seed: plan.seed });
    }
    // After the timed phases, never during them: a profiler costs speed.
    const skip = config.profile.when === 'changed' && request.unprofiledScenarios ? request.unprofiledScenarios(results) : [];
    const snapshots = request.leakScenarios ? request.leakScenarios(results) : [];
    if (!stopped) {
      await runProfiles({ session, config, services, trees: sides, outDir: request.outDir, toolsDir: request.toolsDir ?? join(request.outDir, 'tools'), skip, snapshots });
      recordBuiltChanges(session, trees.head);
      recordBuiltSources(session, sides);
    }
    const targets = results.profiles?.length && request.confirmTargets ? request.confirmTargets(results) : [];
    if (targets.length > 0) {
      await runConfirmations(session, { config, services, plan, trees: sides, seal, targets, outDir: request.outDir, ...(request.nextConfirmTarget && { next: request.nextConfirmTarget }), ...(request.confirmAgain && { again: request.confirmAgain }) });
    }
    // The verdicts rest on base as it was sealed: checked once more after everything head ran.
    await seal.verify('after the last block (while the micro-benchmarks or profiles ran, if any)');
    preloads.verify();
    session.update((r) => {
      r.status = 'complete';
      r.finishedAt = new Date().toISOString();
    });
    ports.progress({ phase: 'done' });
    return { results, resultsPath };
  } catch (e) {
    throw failRun(session, request, resultsPath, e);
  } finally {
    await request.tracker.killAll();
    // What head's user was given comes back, so that perfgate can remove the trees and keep the outputs.
    request.tracker.headUser?.reclaim();
    await trees.dispose();
  }
}

/** results.json as the run starts: what is compared, where, how, and the warnings known before any load. */
async function newResults(request: CompareRequest, trees: Trees, env: Record<string, string>): Promise<Results> {
  const { config, plan } = request;
  const results: Results = {
    schema: 'perfgate/results',
    version: RESULTS_VERSION,
    tool: { name: 'perfgate', version: request.toolVersion },
    startedAt: new Date().toISOString(),
    finishedAt: null,
    status: 'running',
    error: null,
    seed: plan.seed,
    config,
    environment: { ...(await fingerprint(env, trees.head.root)), configHash: configHash(config) },
    sides: {
      base: { ref: request.baseLabel ?? trees.base.ref, sha: trees.base.sha, dirty: false },
      head: { ref: trees.head.ref, sha: trees.head.sha, dirty: trees.head.dirty },
    },
    scenarios: config.scenarios.map((s) => ({
      name: s.name,
      method: s.method,
      path: s.path,
      ...(s.rate && 'perSecond' in s.rate && { rate: { perSecond: s.rate.perSecond, source: 'config' as const } }),
      pairs: [],
    })),
    warnings: [],
    ...(request.github && { github: request.github }),
    ...(request.shard && { shard: request.shard.record }),
  };
  // A copy: the run appends the looks it takes.
  if (request.look && plan.sequential) results.sequential = { ...plan.sequential, taken: [] };
  results.warnings.push(...configWarnings(config, request));
  const nodeEnv = config.service.env.NODE_ENV;
  if (nodeEnv && nodeEnv !== 'production') {
    results.warnings.push({
      code: 'not-production',
      message: `service.env.NODE_ENV is "${nodeEnv}": frameworks run slower, extra checks on, in development mode; numbers may not reflect production.`,
    });
  }
  return results;
}

/** The lines and the dependencies the change touched, for the culprits. Before install and build, which add untracked files to head's tree. */
async function recordChanges(session: RunSession, trees: Trees, services: Record<Side, ServiceConfig>): Promise<void> {
  const { results, ports } = session;
  try {
    const changes = await changedLines(trees.base, trees.head);
    if (changes) results.changes = changes;
  } catch (e) {
    ports.logger.warn(`Could not tell which lines the change touched, so culprits are not marked as changed or not: ${(e as Error).message}`);
  }
  const { dependencies, warning } = dependencyChanges(trees, services);
  if (dependencies) results.dependencies = dependencies;
  if (warning) {
    results.warnings.push(warning);
    ports.logger.warn(warning.message);
  }
}

/**
 * The pull request's change in the built files head's profiles ran (a TypeScript service runs
 * dist/, the PR changed src/): the built lines made from changed source lines, by each file's
 * source map, so a culprit in built code is marked changed by this PR or not as in its source.
 * Read after the profiles: they say which own files ran, and the build has made them.
 */
function recordBuiltChanges(session: RunSession, head: Tree): void {
  const { changes, profiles } = session.results;
  if (!changes || !profiles) return;
  const known = new Set(changes.files.map((f) => f.file));
  const ran = new Set(profiles.flatMap((p) => p.sides.head.functions.filter((f) => f.category === 'own' && !known.has(f.file)).map((f) => f.file)));
  const built = [...ran].flatMap((file) => {
    const hunks = builtHunks(head.root, file, changes.files);
    return hunks === null || hunks.length === 0 ? [] : [{ file, hunks }];
  });
  if (built.length > 0) session.update((r) => (r.changes = { ...changes, files: [...changes.files, ...built] }));
}

/**
 * Where the own functions the profiles found in built files were written: each side's function
 * gets the source line its built line was made from (its file's source map), so a culprit in
 * dist/server.js is named at src/server.ts:9. Read after the profiles, from each side's own build.
 */
function recordBuiltSources(session: RunSession, trees: Record<Side, Tree>): void {
  const profiles = session.results.profiles;
  if (!profiles) return;
  let found = false;
  for (const side of ['base', 'head'] as const) {
    const functions = profiles.flatMap((p) => p.sides[side].functions.filter((f) => f.category === 'own' && f.source === undefined));
    sourceLines(trees[side].root, functions).forEach((source, i) => {
      if (source === null) return;
      functions[i]!.source = source;
      found = true;
    });
  }
  if (found) session.update();
}

/**
 * Without a lockfile in head, the versions each side installed name the packages the pull request
 * changed (a version pinned in package.json alone): read after both installs.
 */
function recordInstalledChanges(session: RunSession, trees: Trees, services: Record<Side, ServiceConfig>): void {
  if (session.results.dependencies || findLockfile(trees.head, services.head) !== null) return;
  const installed = installedChanges(trees, services);
  if (installed) session.update((r) => (r.dependencies = installed));
}

/**
 * Installs and builds base, seals it, then head. Base first, and sealed before any of head's code
 * runs (its install is the first). Not both at once: head's install scripts are the pull request's
 * code, and could write into base's tree before its seal. When both would run the same `npm ci` on
 * the same files, head takes a copy of base's node_modules instead (workspace/trees.ts,
 * copyableInstall).
 */
async function installBothSides(session: RunSession, trees: Trees, services: Record<Side, ServiceConfig>): Promise<BaseSeal> {
  const { ports, env, logDir, tracker } = session;
  let seal: BaseSeal | null = null;
  const dirs = { base: serviceDir(trees.base, services.base), head: serviceDir(trees.head, services.head) };
  const commands = { base: resolvedInstall(services.base, dirs.base), head: resolvedInstall(services.head, dirs.head) };
  const copyable = copyableInstall(dirs, commands);
  if (!copyable.ok && commands.head) ports.logger.debug(`head installs on its own (${copyable.reason})`);
  for (const tree of [trees.base, trees.head]) {
    const copyInstallFrom = tree.side === 'head' && copyable.ok ? { dir: dirs.base, root: trees.base.root } : undefined;
    // The side is told to every command, as to the service: a per-side database or cache can be named after it.
    await setupTree(tree, { service: services[tree.side], env: { ...env, PERFGATE_SIDE: tree.side }, logDir, tracker, ...(copyInstallFrom && { copyInstallFrom }) }, ports);
    if (tree.side === 'base') {
      seal = await sealBaseTree(tree, dirs.base, headIdentityOf(tracker));
      ports.logger.info(`base's tree sealed: ${seal.paths} files, tracked, installed or loadable as code (${seal.ms} ms)`);
    }
  }
  await seal!.verify("while head was installed and built (before any service started: head's install or build wrote there)");
  return seal!;
}

/** The benchmark files this run measures (a shard's part of them), or null when there are none. */
function discoverOwnBenchmarks(session: RunSession, request: CompareRequest, sides: Record<Side, Tree>): DiscoveredBenchmarks | null {
  const { config } = request;
  const all = config.benchmarks ? discoverBenchmarks(config.benchmarks, config.service, sides) : null;
  const discovered = all && request.shard ? request.shard.ownBenchmarks(all, session.results.shard!) : all;
  if (request.shard && config.scenarios.length === 0 && discovered === null) {
    const files = all ? new Set([...all.files.base, ...all.files.head].map((f) => f.path)).size : 0;
    throw new SetupError(`shard ${request.shard.record.index}/${request.shard.record.count} owns no scenario and none of the ${files} benchmark file(s): use fewer shards.`);
  }
  for (const glob of discovered?.unmatched ?? []) {
    session.results.warnings.push({
      code: 'benchmark-glob-unmatched',
      message: `The benchmarks glob "${glob}" matches no file in base or head (the other globs do): check it for a typo; globs are relative to service.cwd.`,
    });
  }
  return discovered;
}

/**
 * The error a failed run throws: results.json marked "failed" with the message, every finished
 * pair kept. A cancelled run stops its processes at once, so whatever failed next is a
 * consequence. An error that is not a user's (a TypeError: perfgate's own bug) keeps its stack.
 */
function failRun(session: RunSession | null, request: CompareRequest, resultsPath: string, e: unknown): unknown {
  const error = request.signal?.aborted ? new CancelledError('Cancelled: stopped the services and removed the worktrees.') : e;
  if (!session) return error;
  const message = error instanceof Error ? error.message : String(error);
  try {
    session.update((r) => {
      r.status = 'failed';
      r.error = message;
      r.finishedAt = new Date().toISOString();
    });
  } catch (writeFailed) {
    // The file keeps the pairs of its last write; the run's own error says more than this one, unless this is it.
    if (!(writeFailed instanceof WriteError)) throw writeFailed;
  }
  const results = session.results;
  const measured = results.scenarios.reduce((n, scenario) => n + scenario.pairs.length, 0) + (results.benchmarks?.runs.length ?? 0);
  if (error instanceof Error) Object.assign(error, { resultsPath, measured });
  return error;
}

/** The service keys a side's own commit decides, in the words of perfgate.yml. */
const SERVICE_KEYS = ['install', 'build', 'setup', 'start', 'cwd', 'env', 'ready'] as const;

/**
 * What the pull request changed in perfgate's configuration, said where the reader looks (the
 * report's warnings): the service commands (base ran with its own) and the rest (scenarios, load,
 * gate: the run used head's, so a pull request that relaxes its own gate is visible). Or, when
 * base's configuration could not be used, that base ran with head's commands.
 */
function configWarnings(config: PerfgateConfig, request: CompareRequest): RunWarning[] {
  const base = request.baseConfig;
  if (!base) {
    return request.baseConfigProblem
      ? [
          {
            code: 'base-config-unusable',
            message:
              `Base ran with head's service commands, which the pull request wrote: ${request.baseConfigProblem}. ` +
              "Give the base branch its own perfgate configuration (or give the service's commands as flags or inputs), so that base is installed and started as base says.",
          },
        ]
      : [];
  }
  const text = (value: unknown) => (value === undefined || value === null ? 'none' : JSON.stringify(value));
  const changes: string[] = [];
  for (const key of SERVICE_KEYS) {
    const before = text(base.service[key]);
    const after = text(config.service[key]);
    if (before !== after) changes.push(`service.${key} ${before} → ${after} (each side ran its own)`);
  }
  for (const key of ['scenarios', 'load', 'gate', 'alpha', 'benchmarks', 'profile'] as const) {
    if (text(base[key]) !== text(config[key])) changes.push(`${key} (this run used head's)`);
  }
  if (changes.length === 0) return [];
  return [{ code: 'config-changed', message: `This pull request changes perfgate's configuration: ${changes.join('; ')}.` }];
}
