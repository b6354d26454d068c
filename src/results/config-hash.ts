import { createHash } from 'node:crypto';
import type { PerfgateConfig } from '../config/types.js';

/** JSON with every object's keys sorted, so the same configuration gives the same text whoever built the object. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/**
 * sha256 of the measured configuration, hex: two runs with the same hash measured the same
 * scenarios the same way, so a shift between them is not a change of settings. The engine records
 * it; history computes it from results.config for files that lack it.
 */
export function configHash(config: PerfgateConfig): string {
  return createHash('sha256').update(canonicalJson(config)).digest('hex');
}
