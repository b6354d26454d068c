/** Numbers in the gate's own messages (warnings, failure lines, look reasons). */

/** A fraction as a percentage: 0.05 → "5%", 0.025 → "2.5%", −0.123 → "-12.3%". */
export function percentText(fraction: number): string {
  return `${Number((100 * fraction).toFixed(1))}%`;
}

/** A p-value or level with two significant digits: 0.0098, 0.0005, 1.9e-9. */
export function formatP(p: number): string {
  if (p === 0) return '0';
  if (p >= 1e-4) return String(Number(p.toPrecision(2)));
  return p.toExponential(1);
}
