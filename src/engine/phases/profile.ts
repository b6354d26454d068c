/**
 * The profiling phase: after the timed slices, never mixed into them (a profiler costs speed).
 * Per profiled scenario, each side in turn is restarted with V8's CPU profiler on in every
 * process (NODE_OPTIONS reaches child processes and cluster workers), warmed up, driven with
 * the scenario's load for `profile.duration`, and stopped so every process writes its profile.
 * Then the profiles are merged per side over the profiled window, the function tables bounded
 * into results.json, and three flamegraphs written next to it: head and base (0x) and the
 * differential one. The same restart samples what every process allocates (V8's sampling heap
 * profiler, allocations.ts) and, for a scenario flagged a possible leak, snapshots its heap at the
 * load's start and end (heap-files.ts), so the allocation and leak culprits cost no extra restart.
 *
 * A profiling failure is a warning, not an error: the verdicts come from the slices.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import type { PerfgateConfig, ProfileConfig, ScenarioConfig, ServiceConfig } from '../../config/types.js';
import { summarizeCallTree } from '../../profile/aggregate.js';
import { boundAllocations, heapUrls, summarizeAllocations } from '../../profile/allocations.js';
import { boundConstructors } from '../../profile/heap-snapshot.js';
import { buildCallTree, type CallTree, type CallTreeOptions } from '../../profile/call-tree.js';
import { type CpuProfile, parseCpuProfile, type SampleWindow } from '../../profile/cpuprofile.js';
import { boundSummaries, matchFunctions, usPerSample } from '../../profile/diff.js';
import { flamegraphProfile, inert, renderDiffFlamegraph } from '../../profile/flamegraph.js';
import { functionKey, identifyFrame, scriptPath } from '../../profile/frames.js';
import { type CoveredFunction, type FunctionRanges, rangesFromOffsets, type ScriptSources } from '../../profile/inlining.js';
import { applyOptimizationTrace, type OptimizationEvents, parseOptimizationTrace } from '../../profile/optimization.js';
import { packageTimes } from '../../profile/packages.js';
import type { AllocationProfile, AllocationStats, PackageTime, RetainedHeap, ScenarioProfile, Side, SideProfile } from '../../results/types.js';
import { CancelledError, PerfgateError } from '../errors.js';
import { runLoads } from '../load/seam.js';
import { packageResolver } from '../workspace/lockfiles.js';
import type { RunSession } from '../session.js';
import type { EnginePorts } from '../ports.js';
import { headUserOf } from '../process/processes.js';
import { programPathOrNull } from '../process/programs.js';
import { type LogCap, START_LOG_CAP } from '../process/bounded-log.js';
import { fileSize, readFileRange } from '../process/log-excerpt.js';
import { Service } from '../service/service.js';
import { serviceDir, type Tree } from '../workspace/trees.js';
import { type HeapProfiles, readHeapProfiles, readRetained } from './heap-files.js';
import { ensureZeroX, renderFlamegraphs } from './zerox.js';

/** Functions per side and category kept in results.json (by self and by total time; see boundSummaries). */
export const PROFILE_TABLE_LIMIT = 25;
/** Warm-up under the profiler before the profiled window: load.warmup, at most this (the window starts after it). */
const PROFILE_WARMUP_CAP_MS = 2000;
/**
 * V8's mean bytes between two allocation samples. Its default, 32 kB, costs a stack walk per
 * sample; at 64 kB a service allocating 100 MB/s takes ~1,600 samples a second (well under the
 * CPU profiler's 1,000 µs-interval cost), and a function that allocates 1 kB more per request
 * over the tens of thousands of requests of a profiled window still gets hundreds of samples.
 */
export const ALLOCATION_INTERVAL_BYTES = 64 * 1024;
/** How long a profiled service may take to write its profiles after SIGTERM before it is killed. */
const PROFILE_STOP_GRACE_MS = 15_000;

export interface ProfilePhase {
  /** The run's session: results.json is written through it, and its environment, logs, tracker and cancel signal are the run's. */
  session: RunSession;
  config: PerfgateConfig;
  /** Each side's service commands, from its own commit's configuration. */
  services: Record<Side, ServiceConfig>;
  trees: Record<Side, Tree>;
  /** The run directory (results.json's): profiles/ and the flamegraphs go here. */
  outDir: string;
  /** Where 0x is installed when perfgate has no copy of its own. */
  toolsDir: string;
  /** Scenarios whose verdicts need no culprit, left out of the phase (profile.when: changed). */
  skip?: string[];
  /** Scenarios the memory-growth rule flagged a possible leak: their processes also write heap snapshots at the load's start and end. */
  snapshots?: string[];
}

/** Scenarios to profile: profile.scenarios (names), or all. */
export function profiledScenarios(config: PerfgateConfig): ScenarioConfig[] {
  const profile = config.profile;
  if (!profile.enabled) return [];
  return profile.scenarios === null ? config.scenarios : config.scenarios.filter((s) => profile.scenarios!.includes(s.name));
}

/** "GET /hello" → "get-hello": file names; a number keeps two scenarios apart. */
function slugOf(name: string, taken: Set<string>): string {
  const base = name.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 60) || 'scenario';
  let slug = base;
  for (let i = 2; taken.has(slug); i++) slug = `${base}-${i}`;
  taken.add(slug);
  return slug;
}

/** µs on the clock V8 stamps samples with (CLOCK_MONOTONIC on Linux, as process.hrtime). */
function monotonicUs(): number {
  return Number(process.hrtime.bigint() / 1000n);
}

interface NodeInfo {
  version: string;
  /** Whether this Node accepts --cpu-prof in NODE_OPTIONS (22.x / 23.x on, nodejs/node#57018). */
  cpuProfInNodeOptions: boolean;
}

/** Asks the service's node (first on its PATH, in its directory) what it is and allows. */
function nodeInfo(env: Record<string, string>, cwd: string): Promise<NodeInfo> {
  const script = "process.stdout.write(process.version + ' ' + process.allowedNodeEnvironmentFlags.has('--cpu-prof'))";
  const node = programPathOrNull('node');
  if (!node) return Promise.resolve({ version: 'unknown', cpuProfInNodeOptions: false });
  return new Promise((resolve) => {
    execFile(node, ['-e', script], { env, cwd, timeout: 10_000 }, (error, stdout) => {
      const [version, allowed] = error ? ['unknown', 'false'] : stdout.trim().split(' ');
      resolve({ version: version ?? 'unknown', cpuProfInNodeOptions: allowed === 'true' });
    });
  });
}

/** NODE_OPTIONS / variables that turn the profiler on in every process of the service. */
function profilerSettings(info: NodeInfo, dir: string, profile: ProfileConfig, snapshots: boolean): { env: Record<string, string>; nodeOptions: string } {
  const env: Record<string, string> = {
    PERFGATE_PROFILE: '1',
    PERFGATE_PROFILE_DIR: dir,
    PERFGATE_PROFILE_HEAP_BYTES: String(ALLOCATION_INTERVAL_BYTES),
    ...(snapshots && { PERFGATE_PROFILE_SNAPSHOTS: '1' }),
  };
  if (info.cpuProfInNodeOptions) {
    return { env, nodeOptions: `--cpu-prof --cpu-prof-dir="${dir}" --cpu-prof-interval=${profile.intervalUs}` };
  }
  return { env: { ...env, PERFGATE_PROFILE_INSPECTOR_US: String(profile.intervalUs) }, nodeOptions: '' };
}

interface SideRun {
  tree: CallTree;
  /** V8's optimization trace of the profiled run (optimization.ts). */
  optimization: Map<string, OptimizationEvents>;
  info: NodeInfo;
  files: string[];
  requests: number;
  windowMs: number;
  wallMs: number;
  /** Samples per installed package (packages.ts). */
  packages: PackageTime[];
  /** Allocations per function (full table) and per process; null when no process wrote a heap profile. */
  allocations: (Omit<AllocationProfile, 'functionCount'> & { functions: AllocationStats[] }) | null;
  /** The heap at the load's end against its start by constructor; null when no snapshot was asked for or written. */
  retained: RetainedHeap | null;
}

/** The side's allocations summed over its processes, functions named as the CPU table names them; null when no process wrote a heap profile. */
function sideAllocations(heap: HeapProfiles, options: Pick<CallTreeOptions, 'root' | 'ranges' | 'sources'>, tree: CallTree): SideRun['allocations'] {
  if (heap.profiles.length === 0) return null;
  return {
    intervalBytes: ALLOCATION_INTERVAL_BYTES,
    responses: heap.processes.reduce((sum, p) => sum + p.responses, 0),
    bytes: heap.processes.reduce((sum, p) => sum + p.bytes, 0),
    processes: heap.processes,
    functions: summarizeAllocations(heap.profiles, options, tree),
  };
}

/**
 * Function source ranges from the FUNCTIONS.<pid>.json files the preload wrote, turned into
 * lines against the scripts as they are on disk (read once each). Only scripts that appear in
 * `profiles` matter: inlined samples are looked for in callees sampled somewhere, or in the
 * caller's own script. With `root`, only scripts inside it are read (see insideTree).
 */
export function readFunctionRanges(dir: string, names: string[], profiles: readonly CpuProfile[], alsoUrls: Iterable<string> = [], root?: string): FunctionRanges {
  const sampled = new Set([...profiles.flatMap((p) => p.nodes.map((n) => n.callFrame.url)), ...alsoUrls]);
  const byUrl = new Map<string, Map<string, CoveredFunction>>();
  for (const name of names) {
    let scripts: Record<string, CoveredFunction[]>;
    try {
      scripts = JSON.parse(readFileSync(join(dir, name), 'utf8'));
    } catch {
      continue;
    }
    for (const [url, functions] of Object.entries(scripts)) {
      if (!sampled.has(url)) continue;
      const known = byUrl.get(url) ?? new Map<string, CoveredFunction>();
      for (const fn of functions) known.set(`${fn[1]}:${fn[2]}`, fn);
      byUrl.set(url, known);
    }
  }
  const ranges: FunctionRanges = new Map();
  for (const [url, functions] of byUrl) {
    const path = scriptPath(url);
    if (path === null || (root !== undefined && !isInside(path, root))) continue;
    try {
      ranges.set(url, rangesFromOffsets(readFileSync(path, 'utf8'), [...functions.values()]));
    } catch {
      // a script that is gone (generated at run time): its inlined callees keep their caller's samples
    }
  }
  return ranges;
}

const isInside = (path: string, root: string) => path.startsWith(root.endsWith('/') ? root : `${root}/`);

/**
 * Sources of the side's tree only, Node core's as `sources` gives them: the script names in a
 * profile or a heap snapshot are whatever head's process gave its code (vm's `filename`), and the
 * engine, which reads them, may read files head's user cannot.
 */
export function insideTree(sources: ScriptSources, root: string): ScriptSources {
  return (url) => {
    if (url.startsWith('node:')) return sources(url);
    const path = scriptPath(url);
    return path !== null && isInside(path, root) ? sources(url) : null;
  };
}

/**
 * Source lines of the scripts in a profile, read when first asked for: the service's files from
 * disk, Node core modules (`node:events`) from perfgate's own Node when it is the very version
 * the service ran (Node keeps its modules' sources in the binary; another version's lines would
 * not match). Null for anything else.
 */
export function scriptSources(nodeVersion: string): ScriptSources {
  const memo = new Map<string, string[] | null>();
  let core: Record<string, string> | null | undefined;
  const coreSource = (id: string): string | null => {
    if (core === undefined) {
      try {
        // The only way to Node core's sources; documented as deprecated (DEP0111), still there in Node 20 to 24.
        core = nodeVersion === process.version ? (process as unknown as { binding(name: string): Record<string, string> }).binding('natives') : null;
      } catch {
        core = null;
      }
    }
    const text = core?.[id];
    return typeof text === 'string' ? text : null;
  };
  return (url) => {
    let lines = memo.get(url);
    if (lines === undefined) {
      let text: string | null = null;
      if (url.startsWith('node:')) text = coreSource(url.slice('node:'.length));
      else {
        const path = scriptPath(url);
        try {
          text = path === null ? null : readFileSync(path, 'utf8');
        } catch {
          text = null;
        }
      }
      lines = text === null ? null : text.split('\n');
      memo.set(url, lines);
    }
    return lines;
  };
}

/** The most of a profiled start's log the optimization trace is read from. */
const TRACE_BYTES = 64 * 1024 * 1024;

/**
 * A profiled start's log keeps what its optimization trace is read from (V8 prints it with the
 * service's output), and the end, where its failure is said; the starts measured keep far less.
 */
const PROFILED_LOG_CAP: LogCap = { headBytes: TRACE_BYTES, tailBytes: START_LOG_CAP.tailBytes };

/** What a file gained after `offset` (the profiled run's part of an appended log), at most `limit` bytes. */
function readFrom(path: string, offset: number, limit = TRACE_BYTES): string {
  return readFileRange(path, offset, Math.min(fileSize(path) - offset, limit));
}

/** A side's service, started under the profiler: what collectSide reads once it stopped. */
interface ProfiledStart {
  side: Side;
  service: Service;
  info: NodeInfo;
  dir: string;
  logFile: string;
  logStart: number;
  started: number;
}

async function startProfiled(phase: ProfilePhase, side: Side, dir: string, snapshots: boolean): Promise<ProfiledStart> {
  const started = Date.now();
  const cwd = serviceDir(phase.trees[side], phase.services[side]);
  const info = await nodeInfo(phase.session.env, cwd);
  mkdirSync(dir, { recursive: true });
  // The profiler writes as the service's user: head's directory is head's user's (base's stays out of its reach).
  headUserOf(phase.session.tracker, { PERFGATE_SIDE: side })?.give([dir]);
  const logFile = join(phase.session.logDir, `${side}.log`);
  const logStart = fileSize(logFile);
  const service = await Service.start({
    side,
    start: 'profile',
    config: phase.services[side],
    dir: cwd,
    env: phase.session.env,
    logFile,
    statusFile: join(phase.session.logDir, `${side}-profile.status`),
    tracker: phase.session.tracker,
    profiling: profilerSettings(info, dir, phase.config.profile!, snapshots),
    logCap: PROFILED_LOG_CAP,
  });
  return { side, service, info, dir, logFile, logStart, started };
}

/**
 * Both sides at once, as the timed slices measure them: both services on the cores they share
 * and one generator loading both over the same window, so neither side's profile is taken on a
 * machine the other did not have, and the phase costs one side's time, not two.
 */
async function profileSides(phase: ProfilePhase, scenario: ScenarioConfig, dir: string, ports: EnginePorts): Promise<Record<Side, SideRun>> {
  const { config } = phase;
  ports.progress({ phase: 'profile', scenario: scenario.name });
  const starting = await Promise.allSettled((['base', 'head'] as const).map((side) => startProfiled(phase, side, join(dir, side), phase.snapshots?.includes(scenario.name) ?? false)));
  const starts = starting.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
  let window: SampleWindow;
  let requests: number[];
  try {
    const failed = starting.find((s): s is PromiseRejectedResult => s.status === 'rejected');
    if (failed) throw failed.reason;
    await Promise.all(starts.map((s) => s.service.waitReady()));
    const urls = starts.map((s) => s.service.url);
    const warmupMs = Math.min(config.load.warmupMs, PROFILE_WARMUP_CAP_MS);
    // A fixed-rate scenario is profiled at the rate its pairs were measured at.
    const rate = phase.session.results.scenarios.find((s) => s.name === scenario.name)?.rate;
    const options = { ...(rate && { ratePerSecond: rate.perSecond }), ...(ports.load && { generator: ports.load }) };
    if (warmupMs > 0) await runLoads(urls, scenario, warmupMs, {}, options);
    for (const s of starts) s.service.assertRunning('while warming up under the profiler');
    const startUs = monotonicUs();
    const samples = await runLoads(urls, scenario, config.profile!.durationMs, {}, options);
    window = { startUs, endUs: monotonicUs() };
    requests = samples.map((sample) => sample.requests);
    for (const s of starts) s.service.assertRunning(`while under load with the profiler (scenario "${scenario.name}")`);
  } finally {
    await Promise.all(starts.map((s) => s.service.stop(PROFILE_STOP_GRACE_MS)));
    // What head's processes wrote there is its user's, which perfgate's user may not read: taken back first.
    for (const s of starts) headUserOf(phase.session.tracker, { PERFGATE_SIDE: s.side })?.reclaim([s.dir]);
  }
  const [base, head] = starts.map((s, i) => collectSide(phase, s, scenario, window, requests[i]!, ports));
  return { base: base!, head: head! };
}

/** A stopped side's profiles, read and attributed. */
function collectSide(phase: ProfilePhase, start: ProfiledStart, scenario: ScenarioConfig, window: SampleWindow, requests: number, ports: EnginePorts): SideRun {
  const { side, dir, info, logFile, logStart, started } = start;
  const names = readdirSync(dir);
  // A process killed while writing leaves a cut file: the others still make the side's profile.
  const files: string[] = [];
  const profiles: CpuProfile[] = [];
  for (const name of names.filter((n) => n.endsWith('.cpuprofile')).sort()) {
    try {
      profiles.push(parseCpuProfile(readFileSync(join(dir, name), 'utf8'), join(dir, name)));
      files.push(name);
    } catch (e) {
      ports.logger.warn(`${scenario.name}, ${side}: ${(e as Error).message}`);
    }
  }
  if (profiles.length === 0) {
    throw new PerfgateError(
      `The ${side} service wrote no CPU profile. Profiles are written when a Node.js process exits cleanly after SIGTERM: a service that is not Node.js, or that exits another way, cannot be profiled. Its log: ${join(phase.session.logDir, `${side}.log`)}`,
    );
  }
  const warn = (message: string) => ports.logger.warn(`${scenario.name}, ${side}: ${message}`);
  const heap = readHeapProfiles(dir, names, warn);
  const root = realpathSync(phase.trees[side].root);
  const ranges = readFunctionRanges(
    dir,
    names.filter((n) => n.startsWith('FUNCTIONS.')),
    profiles,
    heap.profiles.flatMap(heapUrls),
    root,
  );
  const naming = { root, ranges, sources: insideTree(scriptSources(info.version), root) };
  const tree = buildCallTree(profiles, { ...naming, window });
  return {
    tree,
    allocations: sideAllocations(heap, naming, tree),
    retained: readRetained(dir, names, warn, { ...naming, ownScripts: ownScripts(profiles, root) }),
    packages: packageTimes(tree, packageResolver(root)),
    optimization: parseOptimizationTrace(readFrom(logFile, logStart), root),
    info,
    files: files.map((f) => join(dir, f)),
    requests,
    windowMs: Math.round((window.endUs - window.startUs) / 1000),
    wallMs: Date.now() - started,
  };
}

/** The scripts of the service's own code the profiles ran: under the tree's root, outside node_modules. */
function ownScripts(profiles: readonly CpuProfile[], root: string): string[] {
  const urls = new Set(profiles.flatMap((p) => p.nodes.map((n) => n.callFrame.url)));
  return [...urls].filter((url) => identifyFrame({ functionName: '', scriptId: '', url, lineNumber: 0, columnNumber: 0 }, root).category === 'own');
}

/** Both sides' allocation tables as results.json keeps them: bounded, paths relative to the run directory, named as the CPU table names them. */
function boundedAllocations(runs: Record<Side, SideRun>, runDir: (path: string) => string): Record<Side, AllocationProfile | null> {
  const full = { base: runs.base.allocations?.functions ?? [], head: runs.head.allocations?.functions ?? [] };
  const bounded = boundAllocations(full.base, full.head, PROFILE_TABLE_LIMIT);
  const side = (s: Side): AllocationProfile | null => {
    const a = runs[s].allocations;
    if (a === null) return null;
    return { ...a, processes: a.processes.map((p) => ({ ...p, file: runDir(p.file) })), functions: bounded[s], functionCount: full[s].length };
  };
  return { base: side('base'), head: side('head') };
}

/** Both sides' constructor tables bounded for results.json, each kept constructor's counterpart with it. */
function boundedRetained(runs: Record<Side, SideRun>): Record<Side, RetainedHeap | null> {
  const { base, head } = runs;
  const bounded = boundConstructors(base.retained?.constructors ?? [], head.retained?.constructors ?? [], PROFILE_TABLE_LIMIT);
  return {
    base: base.retained && { ...base.retained, constructors: bounded.base },
    head: head.retained && { ...head.retained, constructors: bounded.head },
  };
}

/** Profiles one scenario on both sides; returns what results.json keeps of it. */
async function profileScenario(phase: ProfilePhase, scenario: ScenarioConfig, slug: string, ports: EnginePorts): Promise<ScenarioProfile> {
  const profile = phase.config.profile!;
  const dir = join(phase.outDir, 'profiles', slug);
  phase.session.checkCancelled();
  const runs = await profileSides(phase, scenario, dir, ports);
  const summaries = { base: summarizeCallTree(runs.base.tree), head: summarizeCallTree(runs.head.tree) };
  for (const side of ['base', 'head'] as const) applyOptimizationTrace(summaries[side].functions, runs[side].optimization);
  const bounded = boundSummaries(summaries.base, summaries.head, PROFILE_TABLE_LIMIT);
  const runDir = (path: string) => relative(phase.outDir, path);
  const allocations = boundedAllocations(runs, runDir);
  const retained = boundedRetained(runs);
  const sideResult = (side: Side): SideProfile => {
    const run = runs[side];
    const merged = join(dir, `${side}.cpuprofile`);
    writeFileSync(merged, JSON.stringify(flamegraphProfile(run.tree)));
    return {
      ...bounded[side],
      profiler: run.info.cpuProfInNodeOptions ? 'cpu-prof' : 'inspector',
      nodeVersion: run.info.version,
      requests: run.requests,
      windowMs: run.windowMs,
      wallMs: run.wallMs,
      processes: run.files.map((file, i) => ({ file: runDir(file), samples: run.tree.perProfile[i] ?? 0 })),
      merged: runDir(merged),
      inlinedSamples: run.tree.inlinedSamples,
      packages: run.packages,
      ...(allocations[side] && { allocations: allocations[side] }),
      ...(retained[side] && { retained: retained[side] }),
    };
  };
  const entry: ScenarioProfile = {
    scenario: scenario.name,
    durationMs: profile.durationMs,
    intervalUs: profile.intervalUs,
    sides: { base: sideResult('base'), head: sideResult('head') },
    files: { head: null, base: null, diff: null },
    renderMs: null,
  };
  const renderStarted = Date.now();

  // The differential flamegraph needs no tool: written first, so it exists even when 0x fails.
  const { results } = phase.session;
  const label = (side: Side) => `${side} ${results.sides[side].ref}@${results.sides[side].sha.slice(0, 7)}`;
  const moved = new Map<string, string>();
  for (const [b, h] of matchFunctions(summaries.base.functions, summaries.head.functions)) {
    if (b && h && b.line !== h.line) moved.set(functionKey(h), functionKey(b));
  }
  const diffFile = join(phase.outDir, `flamegraph-${slug}-diff.html`);
  const title = `${scenario.name}: ${label('head')} against ${label('base')}`;
  const perSample = usPerSample(entry.sides.base, entry.sides.head, entry.intervalUs);
  writeFileSync(diffFile, renderDiffFlamegraph({ head: runs.head.tree, base: runs.base.tree, moved, title, usPerSample: perSample }));
  entry.files.diff = runDir(diffFile);
  phase.session.results.profiles = [...(phase.session.results.profiles ?? []), entry];
  phase.session.update();

  ports.progress({ phase: 'profile', scenario: scenario.name, message: 'drawing flamegraphs' });
  const logFile = join(phase.session.logDir, 'flamegraphs.log');
  const cmd = await ensureZeroX({
    toolsDir: phase.toolsDir,
    env: phase.session.env,
    logFile,
    tracker: phase.session.tracker,
    logger: ports.logger,
  });
  const output = (side: Side) => join(phase.outDir, `flamegraph-${slug}-${side}.html`);
  try {
    await renderFlamegraphs({
      cmd,
      jobs: (['head', 'base'] as const).map((side) => ({ input: join(dir, `${side}.cpuprofile`), output: output(side), title: inert(`${scenario.name} · ${label(side)}`) })),
      toolsDir: phase.toolsDir,
      env: phase.session.env,
      logFile,
      tracker: phase.session.tracker,
    });
  } finally {
    // a side drawn before the other failed is kept
    for (const side of ['head', 'base'] as const) if (existsSync(output(side))) entry.files[side] = runDir(output(side));
  }
  entry.renderMs = Date.now() - renderStarted;
  phase.session.update();
  return entry;
}

/** The phase: every profiled scenario, its base and head at once; failures become warnings. */
export async function runProfiles(phase: ProfilePhase): Promise<void> {
  const { ports } = phase.session;
  const planned = profiledScenarios(phase.config);
  const skipped = planned.filter((s) => phase.skip?.includes(s.name)).map((s) => s.name);
  const scenarios = planned.filter((s) => !skipped.includes(s.name));
  if (skipped.length > 0) {
    phase.session.update((r) => {
      r.profilesSkipped = skipped;
    });
    ports.logger.info(`not profiled, no culprit to explain: ${skipped.join(', ')} (profile.when: always profiles them too)`);
  }
  if (scenarios.length === 0) return;
  // The time left counted every planned scenario: it shrinks with the ones left out.
  if (skipped.length > 0) ports.progress({ phase: 'profile', pair: 0, pairs: scenarios.length, message: `profiling ${scenarios.length} of ${planned.length} scenarios` });
  const taken = new Set<string>();
  for (const scenario of scenarios) {
    const slug = slugOf(scenario.name, taken);
    try {
      await profileScenario(phase, scenario, slug, ports);
    } catch (e) {
      if (phase.session.signal?.aborted || e instanceof CancelledError) throw e;
      const tableKept = phase.session.results.profiles?.some((p) => p.scenario === scenario.name) ?? false;
      const message = tableKept
        ? `Drawing the flamegraphs failed (the hot functions are complete): ${(e as Error).message}`
        : `Profiling failed, so there are no hot functions or flamegraphs: ${(e as Error).message}`;
      phase.session.results.warnings.push({ code: 'profile-failed', scenario: scenario.name, message });
      ports.logger.warn(`${scenario.name}: ${message}`);
      phase.session.update();
    }
  }
}
