/**
 * How p-values and significance levels are written, the same in the gate's messages (look
 * reasons, warnings) and in the reports (the stopping design): two significant digits.
 */

/** A p-value or level with two significant digits: 0.0098, 0.0005, 1.9e-9. */
export function formatP(p: number): string {
  if (p === 0) return '0';
  if (p >= 1e-4) return String(Number(p.toPrecision(2)));
  return p.toExponential(1);
}
