// The smallest shift a run could have detected, for the report ("this run could see changes of ±x%").
//
// The Hodges–Lehmann estimate is asymptotically normal around the true shift Δ (Hodges & Lehmann 1963;
// Hollander, Wolfe & Chicken, Nonparametric Statistical Methods, 3rd ed., §3.2), with some standard
// error SE. A two-sided level-α test then detects a true shift Δ with probability `power` when
//   |Δ| ≥ (z_{1−α/2} + z_{power}) · SE,
// the usual normal-approximation detectable-difference formula (Chow, Shao & Wang, Sample Size
// Calculations in Clinical Research, 2nd ed. 2008, §3.1: n follows from the same relation solved for
// the sample size; here n is fixed and the shift is solved for).
//
// SE is not estimated from the standard deviation: the per-slice log-ratios are heavy-tailed and
// one-sided (a noisy neighbour only ever slows one side down), so a standard deviation is dominated by
// a few bad slices. Instead SE is read off the distribution-free Hodges–Lehmann interval, whose width
// adapts to the tails: for a normal estimator the interval is estimate ± z_{(1+c)/2}·SE, so
// SE ≈ halfWidth / z_{(1+c)/2}.

import { normalQuantile } from './normal.js';

export interface DetectableShiftOptions {
  /** Confidence level of the interval whose half-width is given (use the achieved level). Default 0.95. */
  confidence?: number;
  /** Two-sided significance level of the test. Default 0.01. */
  alpha?: number;
  /** Probability of detecting a shift of the returned size. Default 0.8. */
  power?: number;
}

function checkProbability(name: string, value: number): void {
  if (!(value > 0 && value < 1)) throw new RangeError(`smallestDetectableShift: ${name} must be in (0, 1), got ${value}`);
}

/**
 * Smallest true shift (on the scale of the interval, the log-ratio scale for perfgate) that a level-α
 * test would detect with the given power, from the half-width of a confidence interval of the shift.
 */
export function smallestDetectableShift(intervalHalfWidth: number, options: DetectableShiftOptions = {}): number {
  const confidence = options.confidence ?? 0.95;
  const alpha = options.alpha ?? 0.01;
  const power = options.power ?? 0.8;
  checkProbability('confidence', confidence);
  checkProbability('alpha', alpha);
  checkProbability('power', power);
  if (intervalHalfWidth < 0) throw new RangeError(`smallestDetectableShift: half-width must be ≥ 0, got ${intervalHalfWidth}`);
  const standardError = intervalHalfWidth / normalQuantile((1 + confidence) / 2);
  return (normalQuantile(1 - alpha / 2) + normalQuantile(power)) * standardError;
}
