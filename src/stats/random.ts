// Seeded randomness for the slice order (which side runs first in each pair). A run must be replayable
// from its printed seed, so everything random goes through createRandom(seed).

import { randomInt } from 'node:crypto';

/**
 * A small, fast PRNG: Tommy Ettinger's mulberry32 (public domain, 2017), 32 bits of state, full period
 * 2^32, which is plenty for shuffling a few hundred slices. Returns floats uniform in [0, 1) with 32
 * random bits each. The same seed gives the same sequence on every platform (integer arithmetic only).
 */
export function createRandom(seed: number): () => number {
  if (!Number.isFinite(seed)) throw new RangeError(`createRandom: seed must be a finite number, got ${seed}`);
  let state = Math.trunc(seed) >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A fresh 31-bit seed from the operating system's CSPRNG (0 ≤ seed < 2^31), to print and reuse. */
export function randomSeed(): number {
  return randomInt(0, 0x80000000);
}

/**
 * Fisher–Yates shuffle (Knuth, TAOCP vol. 2, §3.4.2, Algorithm P): every permutation is equally likely
 * given a uniform rand. Returns a new array; the input is left alone.
 */
export function shuffle<T>(items: readonly T[], rand: () => number): T[] {
  const out = items.slice();
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    const tmp = out[i]!;
    out[i] = out[j]!;
    out[j] = tmp;
  }
  return out;
}
