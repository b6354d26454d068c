import { join } from 'node:path';
import { buildPlan } from '../../src/engine/plan.js';
import { preflight } from '../../src/engine/preflight.js';
import { ProcessTracker } from '../../src/engine/process/processes.js';
import type { CompareRequest } from '../../src/engine/run.js';
import { randomSeed } from '../../src/stats/random.js';

/**
 * The engine's request for a makeRepo repository: its work tree against main, perfgate.yml as it
 * is (resolved by preflight, as the shells do), a new seed; no stopping rule and no base
 * configuration, so both sides run head's commands and every block is measured.
 */
export async function engineRequest(repo: string, tracker = new ProcessTracker()): Promise<CompareRequest> {
  const checked = await preflight({ repoDir: repo, baseRef: 'main', mergeBase: true, headRef: null, configFile: null, overrides: {}, overridesSource: 'test' });
  return {
    sides: checked,
    config: checked.config,
    plan: buildPlan(checked.config, checked.config.seed ?? randomSeed()),
    outDir: join(repo, '.out'),
    tracker,
    toolVersion: 'test',
  };
}
