// Group-sequential bounds for a two-look design: one interim look at information fraction t
// (the share of the planned pairs measured so far) and the final look at t = 1.
//
// The overall two-sided level α is spent with the Lan–DeMets O'Brien–Fleming-type spending
// function (Lan & DeMets 1983, Biometrika 70:659; Jennison & Turnbull, Group Sequential Methods,
// 2000, §7.2):
//   α(t) = 2 − 2·Φ(z_{1−α/2} / √t).
// The interim bound c₁ spends α(t) at once: P(|Z₁| ≥ c₁) = α(t). The final bound c₂ spends the rest:
//   P(|Z₁| < c₁, |Z₂| ≥ c₂) = α − α(t),
// where (Z₁, Z₂) are the standardised statistics at the two looks, bivariate normal with
// correlation √t (the canonical joint distribution; Jennison & Turnbull §3.1). A sum statistic on
// cumulative units (the sign-flip test's, or a rank sum) follows it asymptotically, so the bounds
// apply to the paired test through its nominal p-values: reject at look k when p < 2·(1 − Φ(c_k)).
//
// The rectangle probability is one integral over Z₁ of a normal tail in Z₂ given Z₁, evaluated by
// composite Simpson's rule; c₂ is found by bisection.

import { normalCdf, normalQuantile } from './normal.js';

export interface TwoLookBounds {
  /** Information fraction of the interim look, in (0, 1). */
  t: number;
  /** Overall two-sided level. */
  alpha: number;
  /** z bounds at the interim and the final look. */
  z: [number, number];
  /** Nominal two-sided p-value thresholds: reject at look k when p < nominal[k]. */
  nominal: [number, number];
  /** α spent at the interim look; the final look spends alpha − spent[0]. */
  spent: [number, number];
}

/** Lan–DeMets O'Brien–Fleming-type α spent by information fraction t. */
export function obrienFlemingSpending(t: number, alpha: number): number {
  if (!(t > 0 && t <= 1)) throw new RangeError(`obrienFlemingSpending: t must be in (0, 1], got ${t}`);
  return 2 - 2 * normalCdf(normalQuantile(1 - alpha / 2) / Math.sqrt(t));
}

function normalDensity(z: number): number {
  return Math.exp(-0.5 * z * z) / Math.sqrt(2 * Math.PI);
}

/** P(|Z₁| < c₁, |Z₂| ≥ c₂) for standard bivariate normal (Z₁, Z₂) with correlation rho. */
export function continueThenReject(c1: number, c2: number, rho: number): number {
  const s = Math.sqrt(1 - rho * rho);
  const steps = 2000; // even; the integrand is smooth, Simpson's error is far below 1e-10 here
  const h = (2 * c1) / steps;
  let sum = 0;
  for (let i = 0; i <= steps; i++) {
    const z1 = -c1 + i * h;
    const inner = normalCdf((-c2 - rho * z1) / s) + (1 - normalCdf((c2 - rho * z1) / s));
    const weight = i === 0 || i === steps ? 1 : i % 2 === 1 ? 4 : 2;
    sum += weight * normalDensity(z1) * inner;
  }
  return (sum * h) / 3;
}

/** The two-look design's bounds for an interim look at information fraction t and overall level α. */
export function twoLookBounds(t: number, alpha: number): TwoLookBounds {
  if (!(t > 0 && t < 1)) throw new RangeError(`twoLookBounds: t must be in (0, 1), got ${t}`);
  if (!(alpha > 0 && alpha < 1)) throw new RangeError(`twoLookBounds: alpha must be in (0, 1), got ${alpha}`);
  const spent1 = obrienFlemingSpending(t, alpha);
  const c1 = normalQuantile(1 - spent1 / 2);
  const rest = alpha - spent1;
  const rho = Math.sqrt(t);
  // The probability falls as c₂ rises; c₂ lies between the fixed-design bound (all α at the end,
  // minus nothing) and a bound that spends only `rest` ignoring the correlation.
  let lo = normalQuantile(1 - alpha / 2) - 1;
  let hi = normalQuantile(1 - rest / 2) + 1;
  for (let i = 0; i < 100; i++) {
    const mid = (lo + hi) / 2;
    if (continueThenReject(c1, mid, rho) > rest) lo = mid;
    else hi = mid;
  }
  const c2 = (lo + hi) / 2;
  return {
    t,
    alpha,
    z: [c1, c2],
    nominal: [2 * (1 - normalCdf(c1)), 2 * (1 - normalCdf(c2))],
    spent: [spent1, rest],
  };
}
