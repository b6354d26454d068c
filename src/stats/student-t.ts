// Student's t distribution, for the two-sample t-test the change-point merge step uses
// (stats/change-points.ts). Its tail is a regularized incomplete beta function:
// P(|T| > t) = I_{ν/(ν+t²)}(ν/2, 1/2) (Abramowitz & Stegun 26.5.27 with 26.7.1).

/**
 * ln Γ(x) for x > 0: Lanczos's approximation with g = 7 and Godfrey's nine coefficients (relative
 * error below 1e-15), the reflection-free form since every argument here is positive.
 */
const LANCZOS = [
  0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313, -176.61502916214059, 12.507343278686905,
  -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7,
];

export function logGamma(x: number): number {
  if (!(x > 0)) throw new RangeError(`logGamma: x must be positive, got ${x}`);
  if (x < 0.5) return Math.log(Math.PI / Math.sin(Math.PI * x)) - logGamma(1 - x);
  const z = x - 1;
  let sum = LANCZOS[0]!;
  for (let i = 1; i < LANCZOS.length; i++) sum += LANCZOS[i]! / (z + i);
  const t = z + 7.5;
  return 0.5 * Math.log(2 * Math.PI) + (z + 0.5) * Math.log(t) - t + Math.log(sum);
}

/**
 * The continued fraction of the incomplete beta function, evaluated by the modified Lentz method
 * (Press et al., Numerical Recipes, 3rd ed., §6.4, `betacf`). Converges fast for x < (a+1)/(a+b+2).
 */
function betaContinuedFraction(a: number, b: number, x: number): number {
  const TINY = 1e-300;
  const EPS = 1e-16;
  const qab = a + b;
  const qap = a + 1;
  const qam = a - 1;
  let c = 1;
  let d = 1 - (qab * x) / qap;
  if (Math.abs(d) < TINY) d = TINY;
  d = 1 / d;
  let h = d;
  for (let m = 1; m <= 10_000; m++) {
    const m2 = 2 * m;
    let aa = (m * (b - m) * x) / ((qam + m2) * (a + m2));
    d = 1 + aa * d;
    if (Math.abs(d) < TINY) d = TINY;
    c = 1 + aa / c;
    if (Math.abs(c) < TINY) c = TINY;
    d = 1 / d;
    h *= d * c;
    aa = (-(a + m) * (qab + m) * x) / ((a + m2) * (qap + m2));
    d = 1 + aa * d;
    if (Math.abs(d) < TINY) d = TINY;
    c = 1 + aa / c;
    if (Math.abs(c) < TINY) c = TINY;
    d = 1 / d;
    const delta = d * c;
    h *= delta;
    if (Math.abs(delta - 1) < EPS) return h;
  }
  return h;
}

/**
 * The regularized incomplete beta function I_x(a, b), a, b > 0, 0 ≤ x ≤ 1 (Numerical Recipes §6.4,
 * `betai`). `complement` is 1 − x, passed when the caller has it without cancellation.
 */
export function regularizedBeta(x: number, a: number, b: number, complement = 1 - x): number {
  if (x <= 0) return 0;
  if (complement <= 0) return 1;
  const front = Math.exp(logGamma(a + b) - logGamma(a) - logGamma(b) + a * Math.log(x) + b * Math.log(complement));
  // The symmetry I_x(a, b) = 1 − I_{1−x}(b, a) keeps the fraction where it converges.
  if (x < (a + 1) / (a + b + 2)) return (front * betaContinuedFraction(a, b, x)) / a;
  return 1 - (front * betaContinuedFraction(b, a, complement)) / b;
}

/** Two-sided tail P(|T| ≥ |t|) of Student's t with `df` degrees of freedom; 0 for an infinite t. */
export function studentTTwoSided(t: number, df: number): number {
  if (Number.isNaN(t) || !(df > 0)) return Number.NaN;
  if (!Number.isFinite(t)) return 0;
  return regularizedBeta(df / (df + t * t), df / 2, 0.5, (t * t) / (df + t * t));
}
