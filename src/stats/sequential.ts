// Group-sequential bounds for a design with K looks at information fractions t₁ < … < t_K = 1
// (the share of the planned start pairs measured by each look).
//
// The overall two-sided level α is spent with the Lan–DeMets O'Brien–Fleming-type spending
// function (Lan & DeMets 1983, Biometrika 70:659; Jennison & Turnbull, Group Sequential Methods,
// 2000, §7.2):
//   α(t) = 2 − 2·Φ(z_{1−α/2} / √t).
// Look k's symmetric bound c_k spends what the function adds between the looks:
//   P(|Z_j| < c_j for j < k, |Z_k| ≥ c_k) = α(t_k) − α(t_{k−1}),
// where Z_k = W(t_k)/√t_k for a standard Brownian motion W (the canonical joint distribution of
// the standardised statistics at the looks; Jennison & Turnbull §3.1). A sum statistic on
// cumulative units (the sign-flip test's, or a rank sum) follows it asymptotically, so the bounds
// apply to the paired test through its nominal p-values: reject at look k when p < 2·(1 − Φ(c_k)).
//
// The crossing probabilities are computed by the recursive numerical integration of Armitage,
// McPherson & Rowe (1969; Jennison & Turnbull §19.2): the density of W(t_k) on the paths that
// have not stopped is the density at the previous look convolved with the increment's normal
// density, both on a grid, by composite Simpson's rule; each bound is found by bisection.

import { normalCdf, normalQuantile } from './normal.js';

export interface LookBounds {
  /** Information fractions of the looks, increasing, the last 1. */
  t: number[];
  /** Overall two-sided level. */
  alpha: number;
  /** z bounds, one per look. */
  z: number[];
  /** Nominal two-sided p-value thresholds: reject at look k when p < nominal[k]. */
  nominal: number[];
  /** α spent at each look; they add up to alpha. */
  spent: number[];
}

/** Lan–DeMets O'Brien–Fleming-type α spent by information fraction t. */
export function obrienFlemingSpending(t: number, alpha: number): number {
  if (!(t > 0 && t <= 1)) throw new RangeError(`obrienFlemingSpending: t must be in (0, 1], got ${t}`);
  // 2·Φ(−x), not 2 − 2·Φ(x): an early look of many (t = 1/20) spends about 1e-25, which 1 − Φ(x) rounds to 0.
  return 2 * normalCdf(-normalQuantile(1 - alpha / 2) / Math.sqrt(t));
}

/** Simpson intervals per grid (even); the densities are smooth, the error is far below 1e-9 here. */
const STEPS = 2000;

/** The density of W(t) on the paths that have not stopped, on an even grid over (−b, b). */
interface Grid {
  b: number;
  /** Information fraction of the look. */
  t: number;
  density: Float64Array;
}

function simpsonWeight(i: number): number {
  return i === 0 || i === STEPS ? 1 : i % 2 === 1 ? 4 : 2;
}

/** ∫ density(u)·f(u) du over the grid. */
function integrate(grid: Grid, f: (u: number) => number): number {
  const h = (2 * grid.b) / STEPS;
  let sum = 0;
  for (let i = 0; i <= STEPS; i++) sum += simpsonWeight(i) * grid.density[i]! * f(-grid.b + i * h);
  return (sum * h) / 3;
}

/** P(continued to the grid's look, then |W(t)| ≥ b at information t). */
function crossing(grid: Grid, t: number, b: number): number {
  const s = Math.sqrt(t - grid.t);
  return integrate(grid, (u) => normalCdf((-b - u) / s) + normalCdf((u - b) / s));
}

/** The next look's grid: the increment's normal density convolved with the previous grid's. */
function advance(grid: Grid, t: number, b: number): Grid {
  const s = Math.sqrt(t - grid.t);
  const h = (2 * b) / STEPS;
  const density = new Float64Array(STEPS + 1);
  for (let i = 0; i <= STEPS; i++) {
    const w = -b + i * h;
    density[i] = integrate(grid, (u) => Math.exp(-0.5 * ((w - u) / s) ** 2) / (s * Math.sqrt(2 * Math.PI)));
  }
  return { b, t, density };
}

const computed = new Map<string, LookBounds>();

/**
 * The bounds of a design with looks at information fractions `t` (increasing, the last 1) and
 * overall two-sided level α. A few hundred ms for three looks, so each design is computed once.
 */
export function lookBounds(t: readonly number[], alpha: number): LookBounds {
  const key = `${alpha}|${t.join(',')}`;
  if (!computed.has(key)) computed.set(key, computeBounds(t, alpha));
  const b = computed.get(key)!;
  return { ...b, t: [...b.t], z: [...b.z], nominal: [...b.nominal], spent: [...b.spent] };
}

function computeBounds(t: readonly number[], alpha: number): LookBounds {
  if (t.length < 2) throw new RangeError(`lookBounds: at least 2 looks, got ${t.length}`);
  if (t.some((x, i) => !(x > (i === 0 ? 0 : t[i - 1]!))) || t[t.length - 1] !== 1) {
    throw new RangeError(`lookBounds: information fractions must increase within (0, 1] and end at 1, got ${t.join(', ')}`);
  }
  if (!(alpha > 0 && alpha < 1)) throw new RangeError(`lookBounds: alpha must be in (0, 1), got ${alpha}`);
  const spentBy = t.map((x) => obrienFlemingSpending(x, alpha));
  const spent = spentBy.map((a, k) => a - (k === 0 ? 0 : spentBy[k - 1]!));
  const z = [-normalQuantile(spent[0]! / 2)];
  const t0 = t[0]!;
  const b0 = z[0]! * Math.sqrt(t0);
  const density = new Float64Array(STEPS + 1);
  for (let i = 0; i <= STEPS; i++) {
    const w = -b0 + (i * 2 * b0) / STEPS;
    density[i] = Math.exp((-0.5 * w * w) / t0) / Math.sqrt(2 * Math.PI * t0);
  }
  let grid: Grid = { b: b0, t: t0, density };
  for (let k = 1; k < t.length; k++) {
    const tk = t[k]!;
    // The crossing probability falls as the bound rises; the bound lies between the fixed
    // design's (all α at this look) less one and the bound spending spent[k] alone plus one.
    let lo = normalQuantile(1 - alpha / 2) - 1;
    let hi = -normalQuantile(spent[k]! / 2) + 1;
    for (let i = 0; i < 100; i++) {
      const mid = (lo + hi) / 2;
      if (crossing(grid, tk, mid * Math.sqrt(tk)) > spent[k]!) lo = mid;
      else hi = mid;
    }
    z.push((lo + hi) / 2);
    if (k < t.length - 1) grid = advance(grid, tk, z[k]! * Math.sqrt(tk));
  }
  return { t: [...t], alpha, z, nominal: z.map((c) => 2 * normalCdf(-c)), spent };
}
