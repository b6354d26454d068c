import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { PerfgateConfig, ScenarioConfig } from '../config/types.js';
import { writeResults } from '../results/io.js';
import { type GitHubRecord, RESULTS_VERSION, type Pair, type Results, type Side, type Slice } from '../results/types.js';
import { randomSeed } from '../stats/random.js';
import { scrubEnv } from './env.js';
import { CancelledError, PerfgateError } from './errors.js';
import { fingerprint } from './fingerprint.js';
import { sliceHealth } from './health.js';
import { runLoad } from './load.js';
import { discoverBenchmarks } from './bench/discover.js';
import { runBenchmarks } from './bench/runner.js';
import { compareResults } from '../gate/compare.js';
import { decideLook, planSequential } from '../gate/sequential.js';
import { buildPlan, type PlannedBlock } from './plan.js';
import type { EnginePorts } from './ports.js';
import type { ProcessTracker } from './process.js';
import { runProfiles } from './profile.js';
import { Service } from './service.js';
import { prepareTrees, serviceDir, setupTree, type Tree } from './workspace.js';

export interface CompareRequest {
  /** Any directory inside the repository. */
  repoDir: string;
  baseRef: string;
  /** How to name the base in reports (e.g. the PR's base branch when baseRef is a sha). */
  baseLabel?: string;
  /** true: base = merge-base(head, baseRef) (CLI); false: base = baseRef (the PR's base sha). */
  mergeBase: boolean;
  /** null: the work tree as it is. */
  headRef: string | null;
  /** results.json, logs and temporary worktrees go here. */
  outDir: string;
  /** Reads and validates the configuration from the head tree (perfgate.yml + overrides). */
  loadConfig(headRoot: string): PerfgateConfig;
  tracker: ProcessTracker;
  toolVersion: string;
  signal?: AbortSignal;
  /** The action's record of the GitHub run, stored in results.json as it is. */
  github?: GitHubRecord;
  /** Where tools perfgate runs on demand are installed when it has no copy (0x); default <outDir>/tools. */
  toolsDir?: string;
}

export interface CompareOutcome {
  results: Results;
  resultsPath: string;
}

/**
 * The engine: trees → install/build → for each block, both services up and warm → paired
 * slices in the planned order → then the micro-benchmarks, round by round → results.json after
 * every pair. Processes and worktrees are removed in `finally`; an error marks the results
 * "failed" and keeps every finished pair.
 */
export async function runCompare(request: CompareRequest, ports: EnginePorts): Promise<CompareOutcome> {
  mkdirSync(request.outDir, { recursive: true });
  const logDir = join(request.outDir, 'logs');
  mkdirSync(logDir, { recursive: true });
  const resultsPath = join(request.outDir, 'results.json');
  const env = scrubEnv(ports.env, ports.secrets);
  let results: Results | null = null;

  ports.progress({ phase: 'workspace' });
  const trees = await prepareTrees(
    {
      repoDir: request.repoDir,
      baseRef: request.baseRef,
      mergeBase: request.mergeBase,
      headRef: request.headRef,
      scratchDir: join(request.outDir, 'trees'),
    },
    ports,
  );
  try {
    const config = request.loadConfig(trees.head.root);
    const seed = config.seed ?? randomSeed();
    const plan = buildPlan(config, seed);
    ports.logger.info(`seed ${seed} (pass --seed ${seed} or seed: ${seed} to repeat this order)`);
    results = {
      schema: 'perfgate/results',
      version: RESULTS_VERSION,
      tool: { name: 'perfgate', version: request.toolVersion },
      startedAt: new Date().toISOString(),
      finishedAt: null,
      status: 'running',
      error: null,
      seed,
      config,
      environment: await fingerprint(env, trees.head.root),
      sides: {
        base: { ref: request.baseLabel ?? trees.base.ref, sha: trees.base.sha, dirty: false },
        head: { ref: trees.head.ref, sha: trees.head.sha, dirty: trees.head.dirty },
      },
      scenarios: config.scenarios.map((s) => ({ name: s.name, method: s.method, path: s.path, pairs: [] })),
      warnings: [],
      ...(request.github && { github: request.github }),
    };
    const sequential = planSequential(config);
    if (sequential) results.sequential = sequential;
    if (config.service.env.NODE_ENV && config.service.env.NODE_ENV !== 'production') {
      results.warnings.push({
        code: 'not-production',
        message: `service.env.NODE_ENV is "${config.service.env.NODE_ENV}": frameworks run slower, extra checks on, in development mode; numbers may not reflect production.`,
      });
    }
    writeResults(resultsPath, results);

    for (const tree of [trees.base, trees.head]) {
      await setupTree(tree, { service: config.service, env, logDir, tracker: request.tracker }, ports);
    }
    const sides = { base: trees.base, head: trees.head };
    // Found before any load is sent, so a benchmarks problem stops the run in seconds.
    const discovered = config.benchmarks ? discoverBenchmarks(config.benchmarks, config.service, sides) : null;
    if (config.scenarios.length > 0) {
      for (const block of plan.blocks) {
        await runBlock(block, plan.blocks.length, config, sides, results, resultsPath, env, logDir, request, ports);
        // A planned look after this block: the verdicts at the look's level decide whether to go on.
        const index = sequential?.looks.findIndex((look) => look.afterBlock === block.index) ?? -1;
        if (sequential && index >= 0) {
          const analysis = compareResults(results, { httpLevel: sequential.looks[index]!.nominalAlpha });
          const taken = decideLook(results, index, analysis);
          sequential.taken.push(taken);
          writeResults(resultsPath, results);
          ports.logger.info(`look ${index + 1} of ${sequential.looks.length} after ${taken.pairs} pairs: ${taken.decision}, ${taken.reason}`);
          if (taken.decision === 'stop-regression' || taken.decision === 'stop-clear') break;
        }
      }
    }
    if (discovered) {
      await runBenchmarks(
        {
          config: config.benchmarks!,
          service: config.service,
          discovered,
          seed,
          results,
          resultsPath,
          env,
          logDir,
          tracker: request.tracker,
          ...(request.signal && { signal: request.signal }),
        },
        ports,
      );
    }
    // After the timed phases, never during them: a profiler costs speed.
    await runProfiles(
      {
        config,
        trees: sides,
        results,
        resultsPath,
        outDir: request.outDir,
        toolsDir: request.toolsDir ?? join(request.outDir, 'tools'),
        env,
        logDir,
        tracker: request.tracker,
        ...(request.signal && { signal: request.signal }),
      },
      ports,
    );
    results.status = 'complete';
    results.finishedAt = new Date().toISOString();
    writeResults(resultsPath, results);
    ports.progress({ phase: 'done' });
    return { results, resultsPath };
  } catch (e) {
    // A cancelled run stops its processes at once, so whatever failed next is a consequence.
    const error = request.signal?.aborted
      ? new CancelledError('Cancelled: stopped the services and removed the worktrees.')
      : e instanceof PerfgateError
        ? e
        : new PerfgateError((e as Error).message ?? String(e));
    if (!(e instanceof PerfgateError) && (e as Error).stack) ports.logger.debug((e as Error).stack!);
    if (results) {
      results.status = 'failed';
      results.error = error.message;
      results.finishedAt = new Date().toISOString();
      writeResults(resultsPath, results);
      error.resultsPath = resultsPath;
    }
    throw error;
  } finally {
    await request.tracker.killAll();
    await trees.dispose();
  }
}

async function runBlock(
  block: PlannedBlock,
  blocks: number,
  config: PerfgateConfig,
  trees: Record<Side, Tree>,
  results: Results,
  resultsPath: string,
  env: Record<string, string>,
  logDir: string,
  request: CompareRequest,
  ports: EnginePorts,
): Promise<void> {
  const services: Partial<Record<Side, Service>> = {};
  const checkCancelled = () => {
    if (request.signal?.aborted) throw new CancelledError('Cancelled: stopped the services and removed the worktrees.');
  };
  try {
    // Both services up at once, each on its own forced port, booted in the planned order.
    for (const side of block.bootOrder) {
      checkCancelled();
      ports.progress({ phase: 'start', side, block: block.index + 1, blocks });
      services[side] = await Service.start({
        side,
        config: config.service,
        dir: serviceDir(trees[side], config.service),
        env,
        logFile: join(logDir, `${side}.log`),
        statusFile: join(logDir, `${side}-block${block.index + 1}.status`),
        tracker: request.tracker,
      });
    }
    await Promise.all(block.bootOrder.map((side) => services[side]!.waitReady()));

    for (const plannedScenario of block.scenarios) {
      const scenario = config.scenarios.find((s) => s.name === plannedScenario.name)!;
      const stored = results.scenarios.find((s) => s.name === scenario.name)!;
      if (config.load.warmupMs > 0) {
        for (const side of block.bootOrder) {
          checkCancelled();
          ports.progress({ phase: 'warmup', side, scenario: scenario.name, block: block.index + 1, blocks });
          await measureSlice(services[side]!, scenario, config.load.warmupMs);
        }
      }
      for (const planned of plannedScenario.pairs) {
        checkCancelled();
        const slices: Partial<Record<Side, Slice>> = {};
        for (const side of planned.order) {
          slices[side] = await measureSlice(services[side]!, scenario, config.load.sliceMs);
        }
        const pair: Pair = { block: block.index, index: planned.index, order: planned.order, base: slices.base!, head: slices.head! };
        stored.pairs.push(pair);
        writeResults(resultsPath, results);
        ports.progress({
          phase: 'measure',
          scenario: scenario.name,
          block: block.index + 1,
          blocks,
          pair: stored.pairs.length,
          pairs: config.load.pairs,
        });
      }
    }
  } finally {
    ports.progress({ phase: 'stop', block: block.index + 1, blocks });
    await Promise.all(Object.values(services).map((s) => s.stop()));
  }
}

/**
 * One slice of load on one service, with its CPU time, the load generator's (this process's) CPU
 * time, and the health the service's processes measured inside themselves; a service that died
 * is an error.
 */
async function measureSlice(service: Service, scenario: ScenarioConfig, durationMs: number): Promise<Slice> {
  service.assertRunning('before a load slice');
  const window = await service.health?.begin();
  const cpuBefore = service.cpuSeconds();
  const generatorBefore = process.cpuUsage();
  const generatorLoop = performance.eventLoopUtilization();
  const sample = await runLoad(service.url, scenario, durationMs);
  const generatorUtilization = performance.eventLoopUtilization(generatorLoop).utilization;
  const generator = process.cpuUsage(generatorBefore);
  const cpuAfter = service.cpuSeconds();
  const reports = window === undefined ? null : await service.health!.end(window);
  service.assertRunning(`while under load (scenario "${scenario.name}")`);
  service.requestsServed += sample.requests;
  return {
    side: service.side,
    ...sample,
    cpuSeconds: Math.round((cpuAfter - cpuBefore) * 1000) / 1000,
    generatorCpuSeconds: Math.round((generator.user + generator.system) / 1000) / 1000,
    generatorEventLoopUtilization: Math.round(generatorUtilization * 1e4) / 1e4,
    health: sliceHealth(reports, service.requestsServed),
  };
}
