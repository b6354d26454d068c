import { isAbsolute, join } from 'node:path';
import { loadConfigFile, resolveConfig } from '../config/load.js';
import type { PerfgateConfig } from '../config/types.js';
import type { CompareRequest } from '../engine/run.js';
import { compareResults } from '../gate/compare.js';
import { decideLook } from '../gate/sequential.js';

/**
 * How both shells load the configuration from the head tree: `configFile` (absolute, or
 * relative to the head tree's root; default perfgate.yml, optional) merged under the overrides.
 */
export function configLoader(configFile: string | null, overrides: unknown, overridesSource: string): CompareRequest['loadConfig'] {
  return (headRoot: string): PerfgateConfig => {
    const path = configFile ? (isAbsolute(configFile) ? configFile : join(headRoot, configFile)) : join(headRoot, 'perfgate.yml');
    const loaded = loadConfigFile(path, { required: configFile !== null });
    return resolveConfig({ document: loaded?.document, source: loaded?.source ?? 'perfgate.yml', overrides, overridesSource });
  };
}

/** Variables a CI runner or user may hold a token in; their values are scrubbed by value too. */
export function secretsFrom(env: Record<string, string | undefined>): string[] {
  return ['GITHUB_TOKEN', 'GH_TOKEN', 'INPUT_GITHUB-TOKEN', 'INPUT_GITHUB_TOKEN', 'ACTIONS_RUNTIME_TOKEN', 'ACTIONS_ID_TOKEN_REQUEST_TOKEN']
    .map((k) => env[k])
    .filter((v): v is string => Boolean(v));
}

/**
 * The stopping rule both shells hand the engine for the pre-registered looks: the verdicts at
 * the look's nominal level (gate/sequential.ts's design) decide whether the run stops.
 */
export const interimLook: NonNullable<CompareRequest['look']> = (results, index) =>
  decideLook(results, index, compareResults(results, { httpLevel: results.sequential!.looks[index]!.nominalAlpha }));
