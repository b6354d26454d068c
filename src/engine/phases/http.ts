/**
 * The timed HTTP phase: block by block, fresh starts of both sides up at once; each start pair in
 * turn, every scenario's warm-up and pairs on one load each (both sides at the same time); the
 * pre-registered looks between blocks. The load generator is pinned apart from the services
 * while it runs.
 */
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { placeholdersIn } from '../../config/placeholders.js';
import type { PerfgateConfig, ScenarioConfig, ServiceConfig } from '../../config/types.js';
import { describeHeadBroken, errorShare, headBrokenScenarios } from '../../results/errors.js';
import type { HeadBroken, IdleCpu, Pair, Results, Side, Slice, TakenLook } from '../../results/types.js';
import { median } from '../../stats/descriptive.js';
import { ScenarioError } from '../errors.js';
import { type Plan, type PlannedBlock, type PlannedPair, turnWarmup, warmupSlices } from '../plan.js';
import type { RunSession } from '../session.js';
import { type LoadRun, openLoad } from '../load/seam.js';
import { isExpectedStatus } from '../load/window.js';
import { allowedCpus, choosePlacement, type Placement, pinProcess } from '../process/placement.js';
import { groupsCpuSeconds } from '../process/proc-cpu.js';
import { assertNoStrayCpu, assertUntouched, type Expected, expectedNow, type WatchedStart } from '../process/interference.js';
import { headIdentityOf } from '../process/processes.js';
import { sliceHealth } from '../service/health.js';
import { answersAsExpected, askRoute, BODY_SAMPLE_CHARS, bodyProblem, brokenRouteMessage, probeScenario, type RouteAnswer } from '../service/probe.js';
import { Service } from '../service/service.js';
import type { BaseSeal } from '../workspace/base-seal.js';
import { serviceDir, type Tree } from '../workspace/trees.js';

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

export interface HttpPhase {
  config: PerfgateConfig;
  /** Each side's service commands, from its own commit's configuration. */
  services: Record<Side, ServiceConfig>;
  plan: Plan;
  trees: Record<Side, Tree>;
  look: ((results: Results, look: number) => TakenLook) | null;
  /** Base's tree as it was installed and built, checked after every block. */
  seal: BaseSeal;
  /**
   * The side whose route failing at its first warm-up ends the phase, its answer known: head's
   * (the pull request broke it: a failing verdict), or in the culprit's arm the reverted head's,
   * on the base side (the revert does not stand on its own). Head by default.
   */
  stopsWhenBroken?: Side;
}

/** Where the load generator and the services run, for the blocks (placement.ts). */
type PlacedPhase = HttpPhase & { placement: Placement | null };

/** The timed HTTP phase: every block, with the pre-registered looks between blocks. */
export async function runHttpPhase(session: RunSession, phase: HttpPhase): Promise<void> {
  const placement = placeProcesses(session, phase.config);
  try {
    await runBlocks(session, { ...phase, placement });
  } finally {
    // A run that failed says it too: a flood of output can be why.
    const noisy = session.output.warning();
    if (noisy) {
      session.results.warnings.push(noisy);
      session.ports.logger.warn(noisy.message);
    }
    // The benchmark and profile processes perfgate starts next inherit its CPUs: give them all back.
    if (placement) pinProcess(placement.previous);
  }
}

async function runBlocks(session: RunSession, phase: PlacedPhase): Promise<void> {
  const sequential = session.results.sequential;
  for (const block of phase.plan.blocks) {
    await runBlock(session, phase, block);
    await phase.seal.verify(`during block ${block.index + 1} of ${phase.plan.blocks.length} (while both sides' services ran)`);
    if (headBrokenScenarios(session.results).length > 0) break;
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
async function runBlock(session: RunSession, phase: PlacedPhase, block: PlannedBlock): Promise<void> {
  const { config, trees, placement } = phase;
  const { ports } = session;
  const blocks = phase.plan.blocks.length;
  const starts: Record<Side, Service[]> = { base: [], head: [] };
  const firstStart = phase.plan.blocks.slice(0, block.index).reduce((n, b) => n + b.instances, 0);
  // Before any start is spawned: what they inherit from this process.
  const boundary = session.tracker.boundary;
  const expected = expectedNow(boundary?.cgroup ?? null, headIdentityOf(session.tracker));
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
            codeOf: trees[side].side,
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
        // A start command that fails at once (a typo, a missing file) fails every start alike:
        // said as soon as one has died, not after every other start's setup and spawn.
        for (const started of [...starts.base, ...starts.head]) started.assertRunning('before it was ready');
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
        const measured = [starts.base[turn.slot]!, starts.head[turn.slot]!];
        await session.output.measured(measured, name, () => measureStartPair(session, { config, scenario, block, blocks, starts, stored, expected, stopsWhenBroken: phase.stopsWhenBroken }, pairs, warmup));
      }
      if (headBrokenScenarios(session.results).length > 0) break;
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
    for (const service of [...starts.base, ...starts.head]) session.output.stopped(service);
  }
  // Stopping gave the slices their allocated bytes (engine/service/health.ts, flush); a failed
  // block's are written with the rest by the run's failure (engine/run.ts, failRun).
  session.update();
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
  /** What every start's processes must show (engine/process/interference.ts). */
  expected: Expected;
  stopsWhenBroken?: Side;
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
      const stops = turn.stopsWhenBroken ?? 'head';
      const broken = await checkScenarioAnswers(scenario, both, warmed, stops);
      if (broken) {
        session.update(() => {
          stored.headBroken = broken;
        });
        if (stops === 'head') session.ports.logger.warn(`${scenario.name}: ${describeHeadBroken(broken)}; the run stops after this turn's warm-ups, with a failing verdict`);
      } else assertRateSendable(scenario, warmed.at(-1));
    }
    // Once head has broken a route the verdict is known: the turn's other scenarios are warmed up
    // and checked, so that every route head broke is named, and nothing more is measured.
    const measuring = headBrokenScenarios(session.results).length === 0;
    for (const planned of measuring ? pairs : []) {
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

/** More than this share of a side's warm-up requests not answered as expected: the route is broken on that side. */
const BROKEN_SHARE = 0.5;

/**
 * The scenario's first warm-up, judged. A route that fails on both sides (more than half of the
 * requests not answered as expected) stops the run with an error: a typo in a path, a missing
 * header or an absent route would otherwise be measured for minutes as an error page and end as
 * a pass. A route that fails on head alone is the pull request's doing, a verdict already known:
 * returned, for the run to stop at this warm-up and fail. Failing on base alone is what head may
 * fix, so it measures. A few more requests show the user what the route answered.
 */
async function checkScenarioAnswers(scenario: ScenarioConfig, services: Service[], warmed: Slice[][], stops: Side): Promise<HeadBroken | null> {
  if (warmed.length === 0) return null;
  const shares = services.map((_, i) => {
    const slices = warmed.map((w) => w[i]!);
    return errorShare({ requests: sum(slices.map((s) => s.requests)), non2xx: sum(slices.map((s) => s.non2xx)), errors: sum(slices.map((s) => s.errors)) });
  });
  const broken = shares.map((share) => share > BROKEN_SHARE);
  if (broken.every(Boolean)) {
    const sample = await probeScenario(services[0]!.url, scenario);
    throw new ScenarioError(brokenRouteMessage(scenario, 'on both base and head', sample));
  }
  const head = services.findIndex((service) => service.side === 'head');
  const base = 1 - head;
  const failing = stops === 'head' ? head : base;
  if (!broken[failing]) return stops === 'head' ? checkBodies(scenario, services) : null;
  const [failingAnswer, otherAnswer] = await Promise.all([askUntilUnexpected(services[failing]!.url, scenario), askRoute(services[1 - failing]!.url, scenario)]);
  return { shares: { base: round4(shares[base]!), head: round4(shares[head]!) }, ...brokenAnswer(scenario, failingAnswer), baseStatus: otherAnswer.status };
}

/** One request after another, at most ANSWER_PROBES, until one is not answered as expected: a failing route's own words. */
async function askUntilUnexpected(url: string, scenario: ScenarioConfig): Promise<RouteAnswer> {
  let answer = await askRoute(url, scenario);
  for (let i = 1; i < ANSWER_PROBES && answersAsExpected(scenario, answer); i++) answer = await askRoute(url, scenario);
  return answer;
}

/** What head answered, as results.json keeps it (HeadBroken). */
function brokenAnswer(scenario: ScenarioConfig, answer: RouteAnswer): Pick<HeadBroken, 'status' | 'body' | 'noAnswer' | 'failure' | 'mismatch'> {
  const problem = bodyProblem(scenario, answer);
  return {
    status: answer.status,
    body: answer.body.slice(0, BODY_SAMPLE_CHARS),
    ...(answer.status === null && { noAnswer: answer.description.replace(/^it /, '') }),
    ...(problem && { [problem.kind]: problem.text }),
  };
}

/**
 * A body that the warm-up's status counts cannot see: one that does not hold what `expect:`
 * declares, or, without `expect:`, a 2xx whose JSON says it failed (`{"success": false, "error":
 * "connect ECONNREFUSED"}`): the pairs would measure the error path. One request per side reads
 * the body (the load counts statuses only); a request with {placeholders} is left to the load,
 * which fills them. On both sides: an error, as a route failing on both; on head alone: returned,
 * as a route head broke; on base alone: measured.
 */
async function checkBodies(scenario: ScenarioConfig, services: Service[]): Promise<HeadBroken | null> {
  // Statuses declared alone: the warm-up's counts have judged everything expect: says.
  if ((scenario.expect?.length && !scenario.expectBody) || placeholdersIn(scenario.path, scenario.body, ...Object.values(scenario.headers)).length > 0) return null;
  const answers = await Promise.all(services.map((service) => askRoute(service.url, scenario)));
  const problems = answers.map((answer) => bodyProblem(scenario, answer));
  const head = services.findIndex((service) => service.side === 'head');
  if (!problems[head]) return null;
  const answer = answers[head]!;
  if (problems.every(Boolean)) throw new ScenarioError(brokenRouteMessage(scenario, 'on both base and head', answer.description, problems[head]));
  return { ...brokenAnswer(scenario, answer), baseStatus: answers[1 - head]!.status };
}

function round4(value: number): number {
  return Math.round(value * 1e4) / 1e4;
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
