/**
 * The third arm: a profile says where head's time went, not what caused the drop. For each
 * scenario the gate failed whose profile named a culprit, head is measured against head with
 * this pull request's change to that function taken back, or for an upgraded package base's
 * installed copy of it (workspace/revert.ts), as the same
 * start-pair A/B as the main measurement: the HTTP phase's blocks, each of the main plan's first
 * block's size, one, or more while the answer is unclear (up to MAX_ARM_BLOCKS). The assessment
 * compares what the revert gives back with the drop (assess/confirmation.ts).
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { PerfgateConfig, ServiceConfig } from '../../config/types.js';
import { displayName } from '../../profile/names.js';
import { describeRevertFailed } from '../../results/errors.js';
import type { Confirmation, ConfirmTarget, Results, Side } from '../../results/types.js';
import { CancelledError } from '../errors.js';
import { buildPlan, type Plan } from '../plan.js';
import { RunSession } from '../session.js';
import type { BaseSeal } from '../workspace/base-seal.js';
import { revertFunction, revertPackage, runsHeadsCode } from '../workspace/revert.js';
import { serviceDir, setupTree, type Tree } from '../workspace/trees.js';
import { runHttpPhase } from './http.js';

export interface ConfirmPhase {
  config: PerfgateConfig;
  services: Record<Side, ServiceConfig>;
  plan: Plan;
  trees: Record<Side, Tree>;
  seal: BaseSeal;
  /** The culprits of the scenarios whose verdict is a gated regression (the compare service decides: assess/look.ts). */
  targets: ConfirmTarget[];
  /** The next culprit to revert for a scenario after its last arm, or null (the compare service decides: assess/look.ts). */
  next?: (results: Results, scenario: string) => ConfirmTarget['culprit'] | null;
  /** Whether the scenario's last arm, as measured so far, needs another block for a clear answer (the compare service decides: assess/look.ts). */
  again?: (results: Results, scenario: string) => boolean;
  outDir: string;
}

/** Arms per scenario at most: the first culprit's, and the next one's when the first explained too little. */
export const MAX_ARMS = 2;

/**
 * Blocks per arm at most: one, and more while its answer is unclear. Fixed before the arm's
 * first block, since each look spends a share of the interval's 5% (assess/confirmation.ts).
 */
export const MAX_ARM_BLOCKS = 3;

/**
 * Each named scenario's culprit reverted and measured against head, or skipped with the reason;
 * then, while `next` names another culprit (the compare service decides: assess/look.ts), that
 * one, up to MAX_ARMS per scenario. Recorded in results.confirmations, in order.
 */
export async function runConfirmations(session: RunSession, phase: ConfirmPhase): Promise<void> {
  session.ports.progress({ phase: 'confirm', pair: 0, pairs: phase.targets.length });
  for (const target of phase.targets) {
    let culprit: ConfirmTarget['culprit'] | null = target.culprit;
    for (let arm = 0; arm < MAX_ARMS && culprit !== null; arm++) {
      session.ports.progress({ phase: 'confirm', scenario: target.scenario, pair: arm + 1, pairs: MAX_ARMS, message: culpritLabel(session.results, target.scenario, culprit) });
      await confirmCulprit(session, phase, target.scenario, culprit, arm);
      culprit = arm + 1 < MAX_ARMS && phase.next ? phase.next(session.results, target.scenario) : null;
    }
  }
}

/**
 * The culprit as the reports name it ("arrow in lookupUser", a package by its name): V8 names an
 * anonymous function by its place ("(anonymous server.js:7:22)"), and the profile knows better.
 */
function culpritLabel(results: Results, scenario: string, culprit: ConfirmTarget['culprit']): string {
  if (culprit.package !== null) return culprit.package;
  const profiled = results.profiles?.find((p) => p.scenario === scenario)?.sides.head.functions;
  const fn = profiled?.find((f) => f.name === culprit.name && f.file === culprit.file && f.line === culprit.line);
  return fn === undefined ? culprit.name : displayName(fn);
}

/** One arm: the culprit reverted and measured, or skipped with the reason; appended to results.confirmations. */
async function confirmCulprit(session: RunSession, phase: ConfirmPhase, scenario: string, culprit: ConfirmTarget['culprit'], arm: number): Promise<void> {
  const started = performance.now();
  const record: Confirmation = {
    scenario,
    culprit,
    status: 'skipped',
    reason: null,
    reverted: null,
    pairs: [],
    wallMs: 0,
    blocks: 0,
    maxBlocks: MAX_ARM_BLOCKS,
  };
  // Published once its first block is measured, so that the compare service can read it before the next (`again`).
  const publish = () =>
    session.update((r) => {
      record.wallMs = Math.round(performance.now() - started);
      if (!r.confirmations?.includes(record)) r.confirmations = [...(r.confirmations ?? []), record];
    });
  const reason = await measureRevert(session, phase, record, arm, publish).catch((e: unknown) => {
    // The verdicts stand without the arm: a reverted head that does not build, start or answer is said, not the run's failure.
    if (e instanceof CancelledError || session.signal?.aborted) throw e;
    // A later block that failed leaves the blocks measured before it: their answer stands, at the looks' level.
    if (record.status === 'measured') {
      session.ports.logger.warn(`${scenario}: block ${(record.blocks ?? 0) + 1} of the arm reverting ${culpritLabel(session.results, scenario, culprit)} could not be measured; its first ${record.blocks} stand: ${e instanceof Error ? e.message.split('\n')[0] : String(e)}`);
      return null;
    }
    record.pairs = [];
    return `the reverted head could not be measured: ${e instanceof Error ? e.message.split('\n')[0] : String(e)}`;
  });
  if (reason !== null) session.ports.logger.info(`${scenario}: the culprit ${culpritLabel(session.results, scenario, culprit)} is not confirmed by a revert: ${reason}`);
  record.reason = reason;
  publish();
}

/**
 * Reverts the record's culprit and measures head against it, one block, then another while the
 * compare service finds the answer unclear, up to MAX_ARM_BLOCKS, filling the record and
 * publishing it after each block; the reason when it could not.
 */
async function measureRevert(session: RunSession, phase: ConfirmPhase, record: Confirmation, arm: number, publish: () => void): Promise<string | null> {
  const { results } = session;
  const { culprit } = record;
  const head = phase.trees.head;
  const cwd = phase.services.head.cwd;
  const dir = join(phase.outDir, 'confirm', `${record.scenario.replace(/[^\w.-]+/g, '_')}${arm === 0 ? '' : `-${arm + 1}`}`);
  const scratchDir = join(dir, 'tree');
  if (culprit.package === null && !results.changes) return 'the run recorded no diff of this PR';
  const revert =
    culprit.package !== null
      ? await revertPackage({ head, baseDir: serviceDir(phase.trees.base, phase.services.base), cwd, name: culprit.package, scratchDir })
      : await revertFunction({ head, since: results.changes!.since, fn: culprit, cwd, builds: Boolean(phase.services.head.build), scratchDir });
  if (!revert.ok) return revert.reason;
  try {
    const logDir = join(dir, 'logs');
    mkdirSync(logDir, { recursive: true });
    // Built as head is, not installed: its node_modules is head's, or head's with base's copy of the culprit package.
    const service = { ...phase.services.head, install: '' };
    await setupTree(revert.tree, { service, env: { ...session.env, PERFGATE_SIDE: 'head' }, logDir, tracker: session.tracker }, session.ports);
    const unchanged = culprit.package === null ? runsHeadsCode(head.root, revert.tree.root, culprit) : null;
    if (unchanged !== null) return unchanged;
    record.reverted = { file: revert.file, hunks: revert.hunks };
    const target = { scenario: record.scenario, culprit: culpritLabel(session.results, record.scenario, record.culprit), reverted: revert.tree, dir, logDir };
    let block = 0;
    do {
      if (block > 0) session.ports.progress({ phase: 'confirm', scenario: record.scenario, pair: arm + 1, pairs: MAX_ARMS, block: block + 1, blocks: MAX_ARM_BLOCKS, message: target.culprit });
      const measured = await measureArm(session, phase, target, block);
      if (measured.revertFailed !== null) return measured.revertFailed;
      record.pairs = [...record.pairs, ...measured.pairs];
      record.status = 'measured';
      record.blocks = ++block;
      publish();
    } while (block < MAX_ARM_BLOCKS && phase.again?.(session.results, record.scenario));
    return null;
  } finally {
    session.tracker.headUser?.reclaim([revert.tree.root]);
    await revert.dispose();
  }
}

/**
 * Block `block` of the arm, of the main plan's first block's size for one scenario, head against
 * the reverted head ("base"), through the HTTP phase itself: the same starts, warm-up, load and
 * slices. Its pairs are written to a results file of their own, so the main results hold them
 * only once, as the record's; they are numbered on from the arm's earlier blocks (block, start,
 * index), so each start pair stays a unit of its own.
 */
async function measureArm(session: RunSession, phase: ConfirmPhase, arm: { scenario: string; culprit: string; reverted: Tree; dir: string; logDir: string }, block: number) {
  const { config } = phase;
  const scenario = config.scenarios.find((s) => s.name === arm.scenario)!;
  const stored = session.results.scenarios.find((s) => s.name === arm.scenario)!;
  const first = phase.plan.blocks[0]!;
  const armConfig: PerfgateConfig = { ...config, scenarios: [scenario], load: { ...config.load, pairs: first.pairs, blocks: 1, instances: first.instances } };
  const { starts: _s, sequential: _q, profiles: _p, confirmations: _c, ...rest } = session.results;
  const armResults: Results = { ...rest, config: armConfig, scenarios: [{ name: stored.name, method: stored.method, path: stored.path, ...(stored.rate && { rate: stored.rate }), pairs: [] }], warnings: [] };
  const armSession = new RunSession(armResults, join(arm.dir, `results${block === 0 ? '' : `-${block + 1}`}.json`), session.env, arm.logDir, session.tracker, session.ports, session.signal);
  const again = block === 0 ? '' : `, block ${block + 1} of at most ${MAX_ARM_BLOCKS}: the answer so far is unclear`;
  session.ports.logger.info(`${arm.scenario}: measuring head against head with this PR's change to ${arm.culprit} reverted (${first.pairs} pairs${again})`);
  await runHttpPhase(armSession, {
    config: armConfig,
    services: { base: phase.services.head, head: phase.services.head },
    plan: buildPlan(armConfig, phase.plan.seed + block),
    trees: { base: arm.reverted, head: phase.trees.head },
    look: null,
    seal: phase.seal,
    // A reverted head that fails the route at its first warm-up has answered already: no pair of it would say anything about the function.
    stopsWhenBroken: 'base',
  });
  const broken = armResults.scenarios[0]!.headBroken;
  if (broken?.shares) return { pairs: [], revertFailed: describeRevertFailed(broken.shares.base, broken.shares.head) };
  const before = { starts: block * first.instances, pairs: block * first.pairs };
  return { pairs: armResults.scenarios[0]!.pairs.map((p) => ({ ...p, block, start: p.start + before.starts, index: p.index + before.pairs })), revertFailed: null };
}
