/**
 * The third arm: a profile says where head's time went, not what caused the drop. For each
 * scenario the gate failed whose profile named a culprit, head is measured against head with
 * this pull request's change to that function taken back, or for an upgraded package base's
 * installed copy of it (workspace/revert.ts), as the same
 * start-pair A/B as the main measurement: the HTTP phase's blocks, one block of the main plan's
 * size. The assessment compares what the revert gives back with the drop (assess/confirmation.ts).
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { PerfgateConfig, ServiceConfig } from '../../config/types.js';
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
  outDir: string;
}

/** Arms per scenario at most: the first culprit's, and the next one's when the first explained too little. */
export const MAX_ARMS = 2;

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
      session.ports.progress({ phase: 'confirm', scenario: target.scenario, pair: arm + 1, pairs: MAX_ARMS, message: culprit.package ?? culprit.name });
      await confirmCulprit(session, phase, target.scenario, culprit, arm);
      culprit = arm + 1 < MAX_ARMS && phase.next ? phase.next(session.results, target.scenario) : null;
    }
  }
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
  };
  const reason = await measureRevert(session, phase, record, arm).catch((e: unknown) => {
    // The verdicts stand without the arm: a reverted head that does not build, start or answer is said, not the run's failure.
    if (e instanceof CancelledError || session.signal?.aborted) throw e;
    record.pairs = [];
    record.status = 'skipped';
    return `the reverted head could not be measured: ${e instanceof Error ? e.message.split('\n')[0] : String(e)}`;
  });
  if (reason !== null) session.ports.logger.info(`${scenario}: the culprit ${culprit.name} is not confirmed by a revert: ${reason}`);
  session.update((r) => {
    record.reason = reason;
    record.wallMs = Math.round(performance.now() - started);
    r.confirmations = [...(r.confirmations ?? []), record];
  });
}

/** Reverts the record's culprit and measures head against it, filling the record; the reason when it could not. */
async function measureRevert(session: RunSession, phase: ConfirmPhase, record: Confirmation, arm: number): Promise<string | null> {
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
    const measured = await measureArm(session, phase, { scenario: record.scenario, culprit: record.culprit.name, reverted: revert.tree, dir, logDir });
    record.status = 'measured';
    record.reverted = { file: revert.file, hunks: revert.hunks };
    record.pairs = measured;
    return null;
  } finally {
    session.tracker.headUser?.reclaim([revert.tree.root]);
    await revert.dispose();
  }
}

/**
 * One block of the main plan's size for one scenario, head against the reverted head ("base"),
 * through the HTTP phase itself: the same starts, warm-up, load and slices. Its pairs are
 * written to a results file of its own, so the main results hold them only once, as the record's.
 */
async function measureArm(session: RunSession, phase: ConfirmPhase, arm: { scenario: string; culprit: string; reverted: Tree; dir: string; logDir: string }) {
  const { config } = phase;
  const scenario = config.scenarios.find((s) => s.name === arm.scenario)!;
  const stored = session.results.scenarios.find((s) => s.name === arm.scenario)!;
  const first = phase.plan.blocks[0]!;
  const armConfig: PerfgateConfig = { ...config, scenarios: [scenario], load: { ...config.load, pairs: first.pairs, blocks: 1, instances: first.instances } };
  const { starts: _s, sequential: _q, profiles: _p, confirmations: _c, ...rest } = session.results;
  const armResults: Results = { ...rest, config: armConfig, scenarios: [{ name: stored.name, method: stored.method, path: stored.path, ...(stored.rate && { rate: stored.rate }), pairs: [] }], warnings: [] };
  const armSession = new RunSession(armResults, join(arm.dir, 'results.json'), session.env, arm.logDir, session.tracker, session.ports, session.signal);
  session.ports.logger.info(`${arm.scenario}: measuring head against head with this PR's change to ${arm.culprit} reverted (${first.pairs} pairs)`);
  await runHttpPhase(armSession, {
    config: armConfig,
    services: { base: phase.services.head, head: phase.services.head },
    plan: buildPlan(armConfig, phase.plan.seed),
    trees: { base: arm.reverted, head: phase.trees.head },
    look: null,
    seal: phase.seal,
  });
  return armResults.scenarios[0]!.pairs;
}
