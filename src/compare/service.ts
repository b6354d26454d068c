/**
 * The compare sequence, one for every caller: the CLI and the action, whatever the variant
 * (variant.ts: same runner, record, stored baseline, a matrix shard). Refs and configuration are
 * resolved once (resolveComparison), the variant says what of them is measured, the run is
 * planned and estimated from that plan (planComparison), and the run executes that very plan
 * inside the run environment (measureComparison; environment.ts). The shells only translate:
 * flags or inputs into these requests, and the outcome into an exit status, outputs, a comment.
 */
import { buildOverrides, type OptionValues, scenarioArgs } from '../config/options.js';
import type { PerfgateConfig } from '../config/types.js';
import { secretsFrom } from '../engine/process/env.js';
import { estimateRun, type RunEstimate } from '../engine/estimate.js';
import { buildPlan, type LookDesign, type Plan } from '../engine/plan.js';
import type { EnginePorts } from '../engine/ports.js';
import { type Preflight, preflight } from '../engine/preflight.js';
import type { ProcessTracker } from '../engine/process/processes.js';
import { type CompareOutcome, type CompareRequest, runCompare } from '../engine/run.js';
import type { SidesRequest } from '../engine/workspace/trees.js';
import { confirmAgain, confirmTargets, interimLook, leakScenarios, nextConfirmTarget, unprofiledScenarios } from '../assess/look.js';
import { writeResults } from '../results/io.js';
import type { GitHubRecord, Results, RunWarning, ShardRecord, TakenLook } from '../results/types.js';
import { environmentWarnings, type RunEnvironment } from './environment.js';
import { ownBenchmarks, type Shard } from './shard.js';
import { randomSeed } from '../stats/random.js';
import type { ResolvedComparison, Variant } from './variant.js';
import { VERSION } from '../version.js';

/** What to compare, as the user said it: refs by name, settings as flags or inputs. */
export interface ComparisonInput extends SidesRequest {
  /** Config file named by the user (absolute, or relative to head's root), or null for an optional perfgate.yml. */
  configFile: string | null;
  /** The settings given as flags or inputs (config/options.ts); they win over perfgate.yml. */
  settings: OptionValues;
  /** Who gave the settings, for messages: "command-line flags", "action inputs". */
  settingsSource: string;
}

/**
 * Resolves the refs to commits and the configuration (head's and base's), before anything is
 * checked out: a typo costs a second. The result is passed down; nothing resolves them again.
 * The variant then says what of it the run measures (variant.ts, resolve).
 */
export function resolveComparison(input: ComparisonInput): Promise<Preflight> {
  return preflight({
    repoDir: input.repoDir,
    baseRef: input.baseRef,
    mergeBase: input.mergeBase,
    headRef: input.headRef,
    configFile: input.configFile,
    overrides: buildOverrides(input.settings),
    overridesSource: input.settingsSource,
    scenarios: scenarioArgs(input.settings),
  });
}

/** The schedule a run executes, and how long it takes. */
export interface PlannedComparison {
  plan: Plan;
  estimate: RunEstimate;
  /** What the plan's interim looks compare; null: the run has none. */
  looks: LookDesign | null;
}

/**
 * The run's plan (its seed: the configuration's, or a new one) and the estimate computed from it.
 * `looks`: what the interim looks compare (the variant's), which sets their levels; null: none.
 */
export function planComparison(config: PerfgateConfig, looks: LookDesign | null = 'paired'): PlannedComparison {
  const plan = buildPlan(config, config.seed ?? randomSeed(), looks);
  return { plan, estimate: estimateRun(config, plan), looks: plan.sequential ? looks : null };
}

export interface ComparisonRequest {
  /** The refs and configuration resolveComparison returned, as the variant resolved them (a shard: its part). */
  checked: Preflight & { shard?: ResolvedComparison['shard'] };
  /** What planComparison returned for checked.config: the run executes this plan. */
  planned: PlannedComparison;
  /** How to name the base in reports (e.g. the PR's base branch when the base ref is a sha). */
  baseLabel?: string;
  /** results.json, logs and temporary worktrees go here. */
  outDir: string;
  /** Where tools perfgate installs on demand (0x) are kept. */
  toolsDir: string;
  tracker: ProcessTracker;
  signal: AbortSignal;
  /** The action's record of the GitHub run, stored in results.json. */
  github?: GitHubRecord;
  /**
   * The stopping rule at the plan's interim looks (the variant's, compare/variant.ts; by default
   * the paired one); null: measure every planned block, as a record, which compares nothing, does.
   */
  look?: ((results: Results, index: number) => TakenLook) | null;
}

/**
 * Measures base and head as planned, writing results.json as it goes; the gate's stopping rule
 * and its choice of scenarios to profile are handed to the engine here. The secrets kept from the
 * user's processes are the tokens in `ports.env`.
 */
export function runComparison(request: ComparisonRequest, ports: Omit<EnginePorts, 'secrets'>): Promise<CompareOutcome> {
  const { checked } = request;
  const look = request.look === undefined ? interimLook : request.look;
  return runCompare(
    {
      sides: checked,
      config: checked.config,
      baseConfig: checked.baseConfig,
      baseConfigProblem: checked.baseConfigProblem,
      plan: request.planned.plan,
      baseLabel: request.baseLabel,
      outDir: request.outDir,
      toolsDir: request.toolsDir,
      tracker: request.tracker,
      toolVersion: VERSION,
      signal: request.signal,
      ...(look && { look }),
      unprofiledScenarios,
      leakScenarios,
      confirmTargets,
      nextConfirmTarget,
      confirmAgain,
      ...(request.github && { github: request.github }),
      ...(checked.shard && { shard: shardPart(checked.shard.shard, checked.shard.record, checked.config) }),
    },
    { ...ports, secrets: secretsFrom(ports.env) },
  );
}

/** The engine's view of a shard: its record, and the rule that deals it its benchmark files. */
function shardPart(shard: Shard, record: ShardRecord, config: PerfgateConfig): NonNullable<CompareRequest['shard']> {
  return {
    record: structuredClone(record),
    ownBenchmarks: (discovered, into) => ownBenchmarks(discovered, shard, into, config.gate.benchmarks.gated),
  };
}

export interface MeasureRequest extends Omit<ComparisonRequest, 'tracker' | 'signal' | 'look'> {
  variant: Variant;
  /**
   * What the shell checks once every process of the run is stopped and before the results are
   * final, and what it found (the action: its own files, put back once the boundary is closed).
   */
  afterRun?: () => Promise<RunWarning[]>;
}

/**
 * Measures as planned inside the run environment, then gives the results what the variant and
 * the shell add (a stored baseline, warnings) and writes results.json with them. The engine's
 * session writes the file during the run, this once after it, both through writeResults: the
 * shells never write it, so the file in the run directory is always what they report.
 */
export async function measureComparison(
  request: MeasureRequest,
  environment: RunEnvironment,
  ports: Omit<EnginePorts, 'secrets' | 'env'>,
): Promise<CompareOutcome> {
  const { variant, afterRun, ...rest } = request;
  let measured: CompareOutcome;
  try {
    measured = await runComparison(
      { ...rest, tracker: environment.tracker, signal: environment.signal, look: variant.looks?.decide ?? null },
      { ...ports, env: environment.env },
    );
  } finally {
    // Measured or failed, there is nothing left to cancel: a signal from here on ends the process as usual.
    environment.stopListening();
  }
  const { resultsPath } = measured;
  // What the environment left uncontained is said after what the run found, in both shells alike.
  const warnings = [...environmentWarnings(environment), ...(afterRun ? await afterRun() : [])];
  if (warnings.length > 0) measured.results.warnings.push(...warnings);
  const results = variant.finish(measured.results);
  if (warnings.length > 0 || results !== measured.results) writeResults(resultsPath, results);
  return { results, resultsPath };
}
