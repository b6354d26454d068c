// The gate's analysis for bench scripts: the same assessResults (and sequential design) the
// CLI runs, loaded from the TypeScript source through tsx so a bench always measures the
// current code.
import { register } from 'tsx/esm/api';

register();
export const { assessResults } = await import('../src/assess/compare.ts');
export const { decideLook } = await import('../src/assess/sequential.ts');
export const { planSequential } = await import('../src/engine/plan.ts');
export const { DEFAULT_GATE, DEFAULT_HEAP_GROWTH } = await import('../src/config/defaults.ts');
export const { resolveConfig } = await import('../src/config/load.ts');
export const { createRandom } = await import('../src/stats/random.ts');
const { upgradeResults } = await import('../src/results/migrate.ts');

/** A recorded line with its results in the current shape, as the CLI reads a results.json (recorded pools hold every earlier shape). */
export function upgradeLine(line, source) {
  return line.results ? { ...line, results: upgradeResults(line.results, source) } : line;
}
