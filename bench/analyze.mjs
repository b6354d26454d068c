// The gate's analysis for bench scripts: the same compareResults (and sequential design) the
// CLI runs, loaded from the TypeScript source through tsx so a bench always measures the
// current code.
import { register } from 'tsx/esm/api';

register();
export const { compareResults } = await import('../src/gate/compare.ts');
export const { decideLook } = await import('../src/gate/sequential.ts');
export const { planSequential } = await import('../src/engine/plan.ts');
export const { DEFAULT_GATE } = await import('../src/config/schema.ts');
export const { resolveConfig } = await import('../src/config/load.ts');
export const { createRandom } = await import('../src/stats/random.ts');
