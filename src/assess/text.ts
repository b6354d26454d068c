/** Numbers in the gate's own messages (warnings, failure lines, look reasons); p-values: src/stats/format.ts. */

/** A fraction as a percentage: 0.05 → "5%", 0.025 → "2.5%", −0.123 → "-12.3%". */
export function percentText(fraction: number): string {
  return `${Number((100 * fraction).toFixed(1))}%`;
}
