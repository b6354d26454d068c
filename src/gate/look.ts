import type { CompareRequest } from '../engine/run.js';
import { compareResults } from './compare.js';
import { decideLook } from './sequential.js';

/**
 * The stopping rule both shells hand the engine for the pre-registered looks: the verdicts at
 * the look's nominal level (sequential.ts's design) decide whether the run stops. The engine
 * measures; the gate decides.
 */
export const interimLook: NonNullable<CompareRequest['look']> = (results, index) =>
  decideLook(results, index, compareResults(results, { httpLevel: results.sequential!.looks[index]!.nominalAlpha }));
