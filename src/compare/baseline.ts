/**
 * The two checks of a comparison with a stored baseline that the CLI and the action share: this
 * runner against the record's before anything is measured (as the engine will fingerprint it),
 * and the environment the run recorded once it is measured, before the baseline is attached.
 */
import type { PerfgateConfig } from '../config/types.js';
import { scrubEnv, secretsFrom } from '../engine/process/env.js';
import { fingerprint } from '../engine/workspace/fingerprint.js';
import { checkEnvironment } from '../results/baseline.js';
import { configHash } from '../results/config-hash.js';
import type { Results, StoredBaseline } from '../results/types.js';
import { VERSION } from '../version.js';

/** Refuses (BaselineError) when this runner, perfgate or the configuration differ from the record's. */
export async function checkRunner(
  baseline: StoredBaseline,
  config: PerfgateConfig,
  env: Record<string, string | undefined>,
  cwd: string,
  source: string,
): Promise<void> {
  const environment = { ...(await fingerprint(scrubEnv(env, secretsFrom(env)), cwd)), configHash: configHash(config) };
  checkEnvironment(baseline, { environment, toolVersion: VERSION }, source);
}

/** The measured results compared with the baseline, after the same check on what the run recorded. */
export function attachBaseline(results: Results, baseline: StoredBaseline, source: string): Results {
  checkEnvironment(baseline, { environment: results.environment, toolVersion: results.tool.version }, source);
  return { ...results, baseline };
}
