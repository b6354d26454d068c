import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { PerfgateConfig, ScenarioConfig, ServiceConfig } from '../config/types.js';
import { type GitHubRecord, type IdleCpu, RESULTS_VERSION, type Pair, type Results, type RunWarning, type ShardRecord, type Side, type Slice, type TakenLook } from '../results/types.js';
import { median } from '../stats/descriptive.js';
import { scrubEnv } from './env.js';
import { CancelledError, PerfgateError, ScenarioError, SetupError } from './errors.js';
import { ownBenchmarks, type Shard } from '../compare/shard.js';
import { fingerprint } from './fingerprint.js';
import { configHash } from '../results/config-hash.js';
import { sliceHealth } from './health.js';
import { type LoadRun, openLoad } from './load.js';
import { isExpectedStatus } from './load-window.js';
import { askRoute, brokenRouteMessage, probeScenario } from './probe.js';
import { loadScenarioValues } from './requests.js';
import { discoverBenchmarks } from './bench/discover.js';
import { runBenchmarks } from './bench/runner.js';
import { allowedCpus, choosePlacement, type Placement, pinProcess } from './placement.js';
import { type Plan, type PlannedBlock, type PlannedPair, turnWarmup, warmupSlices } from './plan.js';
import type { EnginePorts } from './ports.js';
import type { ProcessTracker } from './process.js';
import { RunSession } from './session.js';
import { profiledScenarios, runProfiles } from './profile.js';
import { changedLines } from './changes.js';
import { dependencyChanges } from './lockfiles.js';
import { Service } from './service.js';
import { type BaseSeal, sealBaseTree } from './base-seal.js';
import { groupsCpuSeconds } from './proc-cpu.js';
import { assertNoStrayCpu, assertUntouched, type Expected, expectedNow, type WatchedStart } from './interference.js';
import { copyableInstall, prepareTrees, type ResolvedSides, resolvedInstall, serviceDir, setupTree, type Tree } from './workspace.js';

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
  /** A matrix shard's part (compare/shard.ts): `config` is already the shard's; the engine narrows the benchmark files once they are known. */
  shard?: { shard: Shard; record: ShardRecord };
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
  mkdirSync(request.outDir, { recursive: true });
  const logDir = join(request.outDir, 'logs');
  mkdirSync(logDir, { recursive: true });
  const resultsPath = join(request.outDir, 'results.json');
  const env = scrubEnv(ports.env, ports.secrets);
  let session: RunSession | null = null;

  ports.progress({ phase: 'workspace' });
  const trees = await prepareTrees({ sides: request.sides, scratchDir: join(request.outDir, 'trees') }, ports);
  try {
    const { config, plan } = request;
    // Each side's service commands (install, build, setup, start, cwd, env) are its own commit's.
    const services: Record<Side, ServiceConfig> = { base: request.baseConfig?.service ?? config.service, head: config.service };
    // Before any install or start: a values file that is missing or lacks a column stops the run now.
    loadScenarioValues(config.scenarios, serviceDir(trees.head, config.service));
    const { seed } = plan;
    ports.logger.info(`seed ${seed} (pass --seed ${seed} or seed: ${seed} to repeat this order)`);
    const results: Results = {
      schema: 'perfgate/results',
      version: RESULTS_VERSION,
      tool: { name: 'perfgate', version: request.toolVersion },
      startedAt: new Date().toISOString(),
      finishedAt: null,
      status: 'running',
      error: null,
      seed,
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
    session = new RunSession(results, resultsPath, env, logDir, request.tracker, ports, request.signal);
    // A copy: the run appends the looks it takes.
    const sequential = request.look && plan.sequential ? { ...plan.sequential, taken: [] } : null;
    if (sequential) results.sequential = sequential;
    results.warnings.push(...configWarnings(config, request));
    if (config.service.env.NODE_ENV && config.service.env.NODE_ENV !== 'production') {
      results.warnings.push({
        code: 'not-production',
        message: `service.env.NODE_ENV is "${config.service.env.NODE_ENV}": frameworks run slower, extra checks on, in development mode; numbers may not reflect production.`,
      });
    }
    if (profiledScenarios(config).length > 0) {
      // Before install and build, which add untracked files to head's tree.
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
    session.update();

    let seal: BaseSeal | null = null;
    // Base first, and sealed before any of head's code runs (its install is the first). Not both
    // at once: head's install scripts are the pull request's code, and could write into base's
    // tree before its seal. When both would run the same `npm ci` on the same files, head takes a
    // copy of base's node_modules instead (workspace.ts, copyableInstall).
    const dirs = { base: serviceDir(trees.base, services.base), head: serviceDir(trees.head, services.head) };
    const commands = { base: resolvedInstall(services.base, dirs.base), head: resolvedInstall(services.head, dirs.head) };
    const copyable = copyableInstall(dirs, commands);
    if (!copyable.ok && commands.head) ports.logger.debug(`head installs on its own (${copyable.reason})`);
    for (const tree of [trees.base, trees.head]) {
      const copyInstallFrom = tree.side === 'head' && copyable.ok ? { dir: dirs.base, root: trees.base.root } : undefined;
      // The side is told to every command, as to the service: a per-side database or cache can be named after it.
      await setupTree(tree, { service: services[tree.side], env: { ...env, PERFGATE_SIDE: tree.side }, logDir, tracker: request.tracker, ...(copyInstallFrom && { copyInstallFrom }) }, ports);
      if (tree.side === 'base') {
        seal = await sealBaseTree(tree, serviceDir(tree, services.base));
        ports.logger.info(`base's tree sealed: ${seal.paths} files, tracked, installed or loadable as code (${seal.ms} ms)`);
      }
    }
    await seal!.verify("while head was installed and built (before any service started: head's install or build wrote there)");
    const sides = { base: trees.base, head: trees.head };
    // Found before any load is sent, so a benchmarks problem stops the run in seconds.
    const allDiscovered = config.benchmarks ? discoverBenchmarks(config.benchmarks, config.service, sides) : null;
    const discovered =
      allDiscovered && request.shard ? ownBenchmarks(allDiscovered, request.shard.shard, results.shard!, config.gate.benchmarks.gated) : allDiscovered;
    if (request.shard && config.scenarios.length === 0 && discovered === null) {
      throw new SetupError(
        `shard ${request.shard.shard.index}/${request.shard.shard.count} owns no scenario and none of the ${allDiscovered ? new Set([...allDiscovered.files.base, ...allDiscovered.files.head].map((f) => f.path)).size : 0} benchmark file(s): use fewer shards.`,
      );
    }
    for (const glob of discovered?.unmatched ?? []) {
      results.warnings.push({
        code: 'benchmark-glob-unmatched',
        message: `The benchmarks glob "${glob}" matches no file in base or head (the other globs do): check it for a typo; globs are relative to service.cwd.`,
      });
    }
    if (config.scenarios.length > 0) {
      const placement = placeProcesses(session, config);
      try {
        await runHttpPhase(session, { config, services, plan, trees: sides, placement, look: request.look ?? null, seal: seal! });
      } finally {
        // The benchmark and profile processes perfgate starts next inherit its CPUs: give them all back.
        if (placement) pinProcess(placement.previous);
      }
    }
    if (discovered) {
      await runBenchmarks({ session, config: config.benchmarks!, service: config.service, discovered, seed });
    }
    // After the timed phases, never during them: a profiler costs speed.
    const skip = config.profile.when === 'changed' && request.unprofiledScenarios ? request.unprofiledScenarios(results) : [];
    await runProfiles({ session, config, services, trees: sides, outDir: request.outDir, toolsDir: request.toolsDir ?? join(request.outDir, 'tools'), skip });
    // The verdicts rest on base as it was sealed: checked once more after everything head ran.
    await seal!.verify('after the last block (while the micro-benchmarks or profiles ran, if any)');
    session.update((r) => {
      r.status = 'complete';
      r.finishedAt = new Date().toISOString();
    });
    ports.progress({ phase: 'done' });
    return { results, resultsPath };
  } catch (e) {
    // A cancelled run stops its processes at once, so whatever failed next is a consequence.
    // An error that is not a user's (a TypeError: perfgate's own bug) keeps its stack.
    const error = request.signal?.aborted ? new CancelledError('Cancelled: stopped the services and removed the worktrees.') : e;
    if (session) {
      const message = error instanceof Error ? error.message : String(error);
      session.update((r) => {
        r.status = 'failed';
        r.error = message;
        r.finishedAt = new Date().toISOString();
      });
      if (error instanceof PerfgateError) error.resultsPath = resultsPath;
      else if (error instanceof Error) Object.assign(error, { resultsPath });
    }
    throw error;
  } finally {
    await request.tracker.killAll();
    await trees.dispose();
  }
}

/** Pins the load generator (this process) per load.pin, and records where everything ran. */
function placeProcesses(session: RunSession, config: PerfgateConfig): Placement | null {
  const cpus = allowedCpus();
  const chosen = choosePlacement(config.load.pin, cpus);
  if (config.load.pin === 'on' && !chosen) {
    session.results.warnings.push({
      code: 'not-pinned',
      message: `load.pin is on, but ${cpus === null ? 'taskset (util-linux) is not available' : `only ${cpus.length} CPU is allowed`}: the load generator and the services shared the CPUs.`,
    });
  }
  if (!chosen || !cpus) return null;
  if (!pinProcess(chosen.generator)) return null;
  session.ports.logger.info(`load generator pinned to CPU ${chosen.generator}, services to CPUs ${chosen.services}`);
  session.update((r) => {
    r.environment.placement = { generator: chosen.generator, services: chosen.services };
  });
  return { ...chosen, previous: cpus.join(',') };
}

interface HttpPhase {
  config: PerfgateConfig;
  /** Each side's service commands, from its own commit's configuration. */
  services: Record<Side, ServiceConfig>;
  plan: Plan;
  trees: Record<Side, Tree>;
  placement: Placement | null;
  look: ((results: Results, look: number) => TakenLook) | null;
  /** Base's tree as it was installed and built, checked after every block. */
  seal: BaseSeal;
}

/** The timed HTTP phase: every block, with the pre-registered looks between blocks. */
async function runHttpPhase(session: RunSession, phase: HttpPhase): Promise<void> {
  const sequential = session.results.sequential;
  for (const block of phase.plan.blocks) {
    await runBlock(session, phase, block);
    await phase.seal.verify(`during block ${block.index + 1} of ${phase.plan.blocks.length} (while both sides' services ran)`);
    // A planned look after this block: the stopping rule decides whether to go on.
    const index = sequential?.looks.findIndex((look) => look.afterBlock === block.index) ?? -1;
    if (!sequential || !phase.look || index < 0) continue;
    const taken = phase.look(session.results, index);
    session.update(() => sequential.taken.push(taken));
    session.ports.logger.info(`look ${index + 1} of ${sequential.looks.length} after ${taken.pairs} pairs: ${taken.decision}, ${taken.reason}`);
    if (taken.decision === 'stop-regression' || taken.decision === 'stop-clear') break;
  }
}

/**
 * One block: `instances` fresh starts of each side, all up at once (each on its own forced
 * port); then, start pair by start pair (one base start and one head start), every scenario in
 * the turn's order, each with its warm-up and its pairs back to back. Every start is stopped at
 * the end of the block.
 */
async function runBlock(session: RunSession, phase: HttpPhase, block: PlannedBlock): Promise<void> {
  const { config, trees, placement } = phase;
  const { ports } = session;
  const blocks = phase.plan.blocks.length;
  const starts: Record<Side, Service[]> = { base: [], head: [] };
  const firstStart = phase.plan.blocks.slice(0, block.index).reduce((n, b) => n + b.instances, 0);
  // Before any start is spawned: what they inherit from this process.
  const boundary = session.tracker.boundary;
  const expected = expectedNow(boundary?.cgroup ?? null);
  const when = `in block ${block.index + 1} of ${blocks}`;
  try {
    // Start pair by start pair: the pair's two starts spawned back to back, the side that goes
    // first alternating (bootOrder on even slots). A block's services boot at once on shared
    // CPUs, so a start's time to listen depends on when it was spawned: adjacent spawns give base
    // start n and head start n the same contention, and their start-up times are compared.
    for (let slot = 0; slot < block.instances; slot++) {
      for (const side of slot % 2 === 0 ? block.bootOrder : [...block.bootOrder].reverse()) {
        session.checkCancelled();
        ports.progress({ phase: 'start', side, block: block.index + 1, blocks });
        starts[side].push(
          await Service.start({
            side,
            // Numbered 0, 1, 2… over the run, in block order (PERFGATE_START).
            start: firstStart + slot,
            config: phase.services[side],
            dir: serviceDir(trees[side], phase.services[side]),
            env: session.env,
            logFile: join(session.logDir, `${side}.log`),
            statusFile: join(session.logDir, `${side}-block${block.index + 1}-start${slot + 1}.status`),
            tracker: session.tracker,
            envPad: block.envPads[side][slot]!,
            ...(placement && { cpus: placement.services }),
          }),
        );
      }
    }
    await Promise.all([...starts.base, ...starts.head].map((service) => service.waitReady()));
    const all = [...starts.base, ...starts.head];
    assertUntouched(watchedStarts(all), expected, `${when}, while its services started`);
    // From here to the block's end, the boundary's CPU is the starts' and nothing else's: every
    // service.setup has run, every start is up.
    const strayFrom = { boundary: boundary?.cpuSeconds() ?? null, starts: sum(groupsCpuSeconds(all.map((s) => s.pgid))), at: performance.now() };
    session.update((r) => {
      r.starts ??= [];
      for (const side of ['base', 'head'] as const) {
        starts[side].forEach((service, slot) => {
          if (service.startup) r.starts!.push({ start: firstStart + slot, block: block.index, side, ...service.startup });
        });
      }
    });

    // Start pair by start pair, each serving every scenario in its turn (plan.ts, buildPlan).
    const warmingSaid = new Set<string>();
    for (const turn of block.turns) {
      for (const [position, name] of turn.scenarios.entries()) {
        const scenario = config.scenarios.find((s) => s.name === name)!;
        const stored = session.results.scenarios.find((s) => s.name === name)!;
        const pairs = block.scenarios.find((s) => s.name === name)!.pairs.filter((pair) => pair.slot === turn.slot);
        const warmup = turnWarmup(config.load, position);
        // Said once per block and scenario; the pair counter shows the rest.
        if (warmup.length > 0 && !warmingSaid.has(name)) {
          warmingSaid.add(name);
          ports.progress({ phase: 'warmup', scenario: name, block: block.index + 1, blocks });
        }
        await measureStartPair(session, { config, scenario, block, blocks, starts, stored, expected }, pairs, warmup);
      }
    }
    assertStartsRunning(starts, 'after its slices, before the block ended');
    assertUntouched(watchedStarts(all), expected, `${when}, after its slices`);
    const boundaryTo = boundary?.cpuSeconds() ?? null;
    if (strayFrom.boundary !== null && boundaryTo !== null) {
      const startsTo = sum(groupsCpuSeconds(all.map((s) => s.pgid)));
      assertNoStrayCpu(boundaryTo - strayFrom.boundary, startsTo - strayFrom.starts, (performance.now() - strayFrom.at) / 1000, `${when} (from its starts' readiness to its last slice)`);
    }
  } finally {
    ports.progress({ phase: 'stop', block: block.index + 1, blocks });
    await Promise.all([...starts.base, ...starts.head].map((s) => s.stop()));
  }
}

/** The block's starts that a slice of `measured` leaves idle: their CPU during it is recorded (Slice.idle). */
function othersThan(starts: Record<Side, Service[]>, measured: Service[]): Service[] {
  return [...starts.base, ...starts.head].filter((service) => !measured.includes(service));
}

/** Allowance per window of a continuous load for what happens between windows (health reports, CPU clocks), ms: only autocannon's backstop uses it. */
const WINDOW_GAP_MS = 1000;

interface StartPairTurn {
  config: PerfgateConfig;
  scenario: ScenarioConfig;
  block: PlannedBlock;
  blocks: number;
  starts: Record<Side, Service[]>;
  stored: Results['scenarios'][number];
  /** What every start's processes must show (engine/interference.ts). */
  expected: Expected;
}

/**
 * One scenario in a start pair's turn: its warm-up (`warmup`, slices in ms: plan.ts, turnWarmup),
 * then its pairs, back to back. Simultaneous: both starts
 * are loaded without a break from the warm-up's first slice to the last pair, on the same
 * connections, and each slice is a window counted on that load (a window that opened fresh
 * connections measured their start, a long tail of slow first requests, as much as the
 * service). Alternate: each side alone, one fresh load per slice, in the pair's order. The
 * warm-up is loaded both at once and slice by slice, as the pairs are measured (plan.ts,
 * warmupSlices), just before the pairs: no start waits warm and idle for its turn. Which load
 * (closed loop or fixed rate) is the scenario's: see load.ts.
 */
async function measureStartPair(session: RunSession, turn: StartPairTurn, pairs: PlannedPair[], warmup: number[]): Promise<void> {
  const { config, scenario, block, blocks, starts, stored } = turn;
  const first = pairs[0]!;
  const service = (side: Side) => starts[side][first.slot]!;
  const both = first.order.map(service);
  assertStartsRunning(starts, 'while not under load (between its slices, or waiting for its turn)');
  // Before and after each turn, while no load runs (a pass over /proc stalls this process, the
  // load generator, for milliseconds): every start of the block, the ones waiting their turn too.
  const everyStart = watchedStarts([...starts.base, ...starts.head]);
  assertUntouched(everyStart, turn.expected, `before start pair ${first.slot + 1}'s turn in scenario "${scenario.name}" (block ${block.index + 1} of ${blocks})`);
  await resolveRate(session, turn, both);
  const ratePerSecond = stored.rate?.perSecond;
  const open = (targets: Service[], ms: number) =>
    (session.ports.load ?? openLoad)(
      targets.map((s) => s.url),
      scenario,
      { maxMs: ms, sliceMs: config.load.sliceMs, ...(ratePerSecond !== undefined && { ratePerSecond }) },
    );
  const loads =
    config.load.mode === 'simultaneous'
      ? await open(both, warmup.reduce((a, b) => a + b, 0) + pairs.length * config.load.sliceMs + (warmup.length + pairs.length) * WINDOW_GAP_MS)
      : null;
  try {
    const warmed: Slice[][] = [];
    for (const ms of warmup) {
      session.checkCancelled();
      warmed.push(await measureSlices(both, scenario, ms, loads ?? (await open(both, ms)), !loads));
    }
    // Only the first turn of a scenario: a route that fails on both sides is a broken scenario,
    // not a measurement, and the rest of the run would only measure error pages.
    if (stored.pairs.length === 0) {
      await assertScenarioAnswers(scenario, both, warmed);
      assertRateSendable(scenario, warmed.at(-1));
    }
    for (const planned of pairs) {
      session.checkCancelled();
      assertStartsRunning(starts, 'while not under load (between its slices, or waiting for its turn)');
      const slices: Partial<Record<Side, Slice>> = {};
      if (loads) {
        // Both at once, on the same CPUs, over the same window: whatever slows the machine
        // slows both.
        const measured = await measureSlices(both, scenario, config.load.sliceMs, loads, false, othersThan(starts, both));
        both.forEach((s, i) => {
          slices[s.side] = measured[i]!;
        });
      } else {
        for (const side of planned.order) {
          const measured = [service(side)];
          [slices[side]] = await measureSlices(measured, scenario, config.load.sliceMs, await open(measured, config.load.sliceMs), true, othersThan(starts, measured));
        }
      }
      const pair: Pair = {
        block: block.index,
        start: planned.start,
        index: planned.index,
        // Simultaneous: the order the turn's connections were opened in, once for all its pairs.
        order: loads ? first.order : planned.order,
        base: slices.base!,
        head: slices.head!,
      };
      session.update(() => stored.pairs.push(pair));
      session.ports.progress({
        phase: 'measure',
        scenario: scenario.name,
        block: block.index + 1,
        blocks,
        pair: stored.pairs.length,
        pairs: config.load.pairs,
      });
    }
  } finally {
    await loads?.close();
  }
  assertUntouched(everyStart, turn.expected, `during start pair ${first.slot + 1}'s turn in scenario "${scenario.name}" (block ${block.index + 1} of ${blocks})`);
  await sampleUnexpectedAnswers(session, turn, both, stored.pairs.slice(-pairs.length));
}

/** Requests sent at most to catch one unexpected answer: a route failing one request in ten answers one among 20 with 88% probability. */
const ANSWER_PROBES = 20;

/**
 * Once per scenario and side, after the first start pair whose slices answered a status the
 * scenario does not expect: asks the start again, one request at a time, until one such answer
 * comes back, and keeps its status and the start of its body, so the report can quote what the
 * route said ("mostly 500 \"connection pool exhausted\""). After the turn's load has closed,
 * so no slice counts these requests. A scenario of one request without values only: it is the
 * request sent as written (a mix's or a sequence's failing request is not known here).
 */
async function sampleUnexpectedAnswers(session: RunSession, turn: StartPairTurn, services: Service[], measured: Pair[]): Promise<void> {
  const { scenario, stored } = turn;
  if (scenario.requests || scenario.values) return;
  for (const service of services) {
    const side = service.side;
    if (stored.unexpectedAnswer?.[side] || !measured.some((pair) => pair[side].statuses)) continue;
    for (let i = 0; i < ANSWER_PROBES; i++) {
      session.checkCancelled();
      const answer = await askRoute(service.url, scenario, 2000);
      if (answer.status === null) break;
      if (isExpectedStatus(scenario, answer.status)) continue;
      const { status, body } = answer;
      session.update(() => {
        stored.unexpectedAnswer = { ...stored.unexpectedAnswer, [side]: { status, body } };
      });
      break;
    }
  }
}

/**
 * A rate given as a share of capacity is measured once, in the scenario's first turn: a closed-loop
 * warm-up of both starts at once (as the pairs will share the CPUs), whose base throughput over
 * the slices after the first sets the rate for the whole run, so every start pair is offered the
 * same load and the rate is in results.json.
 */
async function resolveRate(session: RunSession, turn: StartPairTurn, both: Service[]): Promise<void> {
  const { config, scenario, stored } = turn;
  if (!scenario.rate || !('ofCapacity' in scenario.rate) || stored.rate) return;
  const closedLoop = { ...scenario, rate: null };
  const slices = warmupSlices(Math.max(config.load.warmupMs, 2 * config.load.sliceMs), config.load.sliceMs);
  const load = await (session.ports.load ?? openLoad)(
    both.map((s) => s.url),
    closedLoop,
    { maxMs: slices.reduce((a, b) => a + b, 0) + slices.length * WINDOW_GAP_MS, sliceMs: config.load.sliceMs },
  );
  const base: number[] = [];
  try {
    for (const ms of slices) {
      session.checkCancelled();
      const measured = await measureSlices(both, closedLoop, ms, load, false);
      base.push(measured.find((slice) => slice.side === 'base')!.rps);
    }
  } finally {
    await load.close();
  }
  // Whole requests per second, and the rate computed from the figure recorded, so results.json adds up.
  const capacity = Math.round(median(base.length > 1 ? base.slice(1) : base));
  const perSecond = Math.max(1, Math.round(capacity * scenario.rate.ofCapacity));
  session.ports.logger.info(`${scenario.name}: base served ${capacity} req/s in a closed loop; both sides are offered ${perSecond} req/s (${Math.round(scenario.rate.ofCapacity * 100)}%)`);
  session.update(() => {
    stored.rate = { perSecond, source: 'capacity', baseCapacity: capacity };
  });
}

/** A fixed-rate generator this far behind its schedule at the median, µs, cannot send the rate at all (its delay only grows). */
const UNSENDABLE_LAG_US = 100_000;

/**
 * Stops the run when the generator could not keep a fixed rate through the first warm-up: its
 * requests left later and later, so every latency would measure perfgate, not the service.
 */
function assertRateSendable(scenario: ScenarioConfig, last: Slice[] | undefined): void {
  const offered = last?.map((slice) => slice.offered).filter((o) => o !== undefined) ?? [];
  const late = offered.find((o) => o.lagUsP50 >= UNSENDABLE_LAG_US);
  if (!late) return;
  const sent = Math.max(...last!.map((slice) => slice.offered!.sent / (slice.durationMs / 1000)));
  throw new ScenarioError(
    `Scenario "${scenario.name}": perfgate cannot send ${late.ratePerSecond} req/s to each side on this machine: its requests left ${Math.round(late.lagUsP50 / 1000)} ms late at the median (it sent about ${Math.round(sent)} req/s). ` +
      'Lower the scenario\'s rate (rate: in perfgate.yml), or give it as a share of capacity (e.g. rate: 60%).',
  );
}

/**
 * Stops the run when the scenario's route fails on both sides through its first warm-up (more
 * than half of the answers not what it expects, or no answer at all): a typo in a path, a
 * missing header or an absent route would otherwise be measured for minutes as an error page
 * and end as a pass. One more request shows the user what the route answered.
 */
async function assertScenarioAnswers(scenario: ScenarioConfig, services: Service[], warmed: Slice[][]): Promise<void> {
  if (warmed.length === 0) return;
  const failing = services.filter((_, i) => {
    const slices = warmed.map((w) => w[i]!);
    const answered = slices.reduce((n, s) => n + s.requests, 0);
    const bad = slices.reduce((n, s) => n + s.non2xx, 0);
    const failed = slices.reduce((n, s) => n + s.errors + s.timeouts, 0);
    return answered === 0 ? failed > 0 : bad > answered / 2;
  });
  if (failing.length < services.length) return;
  const sample = await probeScenario(services[0]!.url, scenario);
  throw new ScenarioError(brokenRouteMessage(scenario, 'on both base and head', sample));
}

function sum(values: number[]): number {
  return values.reduce((a, b) => a + b, 0);
}

/** The starts as the interference check names them. */
function watchedStarts(services: readonly Service[]): WatchedStart[] {
  return services.map((s) => ({ side: s.side, start: typeof s.start === 'number' ? s.start : 0, pgid: s.pgid, cpus: s.cpus }));
}

/**
 * A start that dies while it waits for its turn, or after its pairs, is as much a crash as one
 * under load: every start of the block is checked before each pair and at the block's end, not
 * only the two being measured (their exit would otherwise pass unseen, as the block's stop
 * expects every start to exit).
 */
function assertStartsRunning(starts: Record<Side, Service[]>, when: string): void {
  for (const service of [...starts.base, ...starts.head]) service.assertRunning(when);
}

/**
 * One slice of load on each of `services` at once, over one shared window of `load` (a start
 * pair's continuous simultaneous load, or a load opened for this slice alone: `closeAfter`). Each
 * service's CPU time and the load generator's (this process's) are read at the instants the
 * window opens and closes; the health each service's processes measured inside themselves comes
 * from a health window that spans the load window. A service that died is an error.
 */
async function measureSlices(services: Service[], scenario: ScenarioConfig, durationMs: number, load: LoadRun, closeAfter: boolean, idle: Service[] = []): Promise<Slice[]> {
  for (const service of services) service.assertRunning('before a load slice');
  const windows = await Promise.all(services.map((service) => service.health?.begin()));
  // The measured starts first, then the idle ones, all read in one pass over /proc.
  const watched = [...services, ...idle];
  const read = () => groupsCpuSeconds(watched.map((service) => service.pgid));
  let cpuBefore: number[] = [];
  let cpuAfter: number[] = [];
  let generatorBefore = process.cpuUsage();
  let generator: NodeJS.CpuUsage = { user: 0, system: 0 };
  let generatorLoop = performance.eventLoopUtilization();
  let generatorUtilization = 0;
  const window = {
    onOpen: () => {
      cpuBefore = read();
      generatorBefore = process.cpuUsage();
      generatorLoop = performance.eventLoopUtilization();
    },
    onClose: () => {
      cpuAfter = read();
      generator = process.cpuUsage(generatorBefore);
      generatorUtilization = performance.eventLoopUtilization(generatorLoop).utilization;
    },
  };
  let samples: Awaited<ReturnType<LoadRun['measure']>>;
  try {
    samples = await load.measure(durationMs, window);
  } finally {
    if (closeAfter) await load.close();
  }
  const reports = await Promise.all(services.map((service, i) => (windows[i] === undefined ? null : service.health!.end(windows[i]!))));
  const idleCpu = idleCpuOf(idle, cpuBefore.slice(services.length), cpuAfter.slice(services.length));
  return services.map((service, i) => {
    service.assertRunning(`while under load (scenario "${scenario.name}")`);
    const { served, ...sample } = samples[i]!;
    service.requestsServed += served;
    return {
      side: service.side,
      ...sample,
      cpuSeconds: Math.round((cpuAfter[i]! - cpuBefore[i]!) * 1000) / 1000,
      generatorCpuSeconds: Math.round((generator.user + generator.system) / 1000) / 1000,
      generatorEventLoopUtilization: Math.round(generatorUtilization * 1e4) / 1e4,
      health: sliceHealth(reports[i]!, service.requestsServed),
      ...(idleCpu && { idle: idleCpu }),
    };
  });
}

/**
 * Per side, the CPU time its idle starts used between two readings; null without idle starts or
 * without procfs. A start that exited in between is left out (its group can no longer be read;
 * assertRunning reports it).
 */
function idleCpuOf(idle: Service[], before: number[], after: number[]): Record<Side, IdleCpu> | null {
  if (idle.length === 0) return null;
  const record: Record<Side, IdleCpu> = { base: { starts: 0, cpuSeconds: 0 }, head: { starts: 0, cpuSeconds: 0 } };
  for (const [i, service] of idle.entries()) {
    const used = after[i]! - before[i]!;
    if (!Number.isFinite(used) || service.exited) continue;
    record[service.side].starts++;
    record[service.side].cpuSeconds += Math.max(0, used);
  }
  if (record.base.starts + record.head.starts === 0) return null;
  for (const side of ['base', 'head'] as const) record[side].cpuSeconds = Math.round(record[side].cpuSeconds * 1000) / 1000;
  return record;
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
      ? [{ code: 'base-config-unusable', message: `base's configuration could not be used (${request.baseConfigProblem}): base's service ran with head's commands.` }]
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
