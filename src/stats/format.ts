/**
 * Numbers as readers see them (rates, durations, percentages, counts, p-values), shared by every
 * layer that prints one: the configuration's messages, the gate's reasons, the report, the
 * history page. Pure and locale-independent: the same input gives the same bytes on every
 * machine, so snapshots hold.
 */

/** A p-value or level with two significant digits: 0.0098, 0.0005, 1.9e-9. */
export function formatP(p: number): string {
  if (p === 0) return '0';
  if (p >= 1e-4) return String(Number(p.toPrecision(2)));
  return p.toExponential(1);
}

/** U+2212: a real minus sign, the width of a plus sign (a hyphen looks like a dash in tables). */
export const MINUS = '\u2212';
const NOT_AVAILABLE = 'n/a';

/** A magnitude unit: values at or above `divisor` (after rounding) are shown in it. */
interface Unit {
  divisor: number;
  suffix: string;
}

const RATE_UNITS: Unit[] = [
  { divisor: 1e6, suffix: 'M/s' },
  { divisor: 1e3, suffix: 'k/s' },
  { divisor: 1, suffix: '/s' },
];

const OPS_UNITS: Unit[] = [
  { divisor: 1e9, suffix: 'G' },
  { divisor: 1e6, suffix: 'M' },
  { divisor: 1e3, suffix: 'k' },
  { divisor: 1, suffix: '' },
];

const DURATION_UNITS: Unit[] = [
  { divisor: 1e6, suffix: ' s' },
  { divisor: 1e3, suffix: ' ms' },
  { divisor: 1, suffix: ' µs' },
];

const BYTE_UNITS: Unit[] = [
  { divisor: 1e9, suffix: ' GB' },
  { divisor: 1e6, suffix: ' MB' },
  { divisor: 1e3, suffix: ' kB' },
  { divisor: 1, suffix: ' B' },
];

/** Up to three significant digits, trailing zeros dropped: 28.4, 950, 1.2, 0.05. */
function significant(value: number): string {
  return String(Number(value.toPrecision(3)));
}

/** Inserts thousands separators into the integer part of a plain decimal string. */
function groupThousands(digits: string): string {
  const [whole, fraction] = digits.split('.');
  const grouped = whole!.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return fraction === undefined ? grouped : `${grouped}.${fraction}`;
}

/** Picks the largest unit the value reaches once rounded (999.7 µs is "1 ms", not "1000 µs"). */
function scaleToUnit(value: number, units: Unit[]): string {
  if (!Number.isFinite(value)) return NOT_AVAILABLE;
  const sign = value < 0 ? MINUS : '';
  const magnitude = Math.abs(value);
  const unit = units.find((u) => Number((magnitude / u.divisor).toPrecision(3)) >= 1) ?? units[units.length - 1]!;
  return sign + significant(magnitude / unit.divisor) + unit.suffix;
}

/** Requests per second: 950/s, 28.4k/s, 1.23M/s. */
export function formatRate(reqPerSec: number): string {
  return scaleToUnit(reqPerSec, RATE_UNITS);
}

/** Operations per second of a micro-benchmark, under an "ops/s" header: 950, 6.3k, 256k, 1.2M. */
export function formatOpsPerSec(opsPerSec: number | null): string {
  return opsPerSec === null ? NOT_AVAILABLE : scaleToUnit(opsPerSec, OPS_UNITS);
}

/** A size in bytes, decimal units (1 kB = 1,000 bytes): 812 B, 41.2 kB, 1.5 MB. */
export function formatBytes(bytes: number): string {
  return scaleToUnit(bytes, BYTE_UNITS);
}

/** A plain amount, three significant digits: 0.93, 6.1, 950, 1.2k. */
export function formatAmount(value: number): string {
  return scaleToUnit(value, OPS_UNITS);
}

/** A duration given in µs: 850 µs, 1.21 ms, 2.5 s. */
export function formatDurationUs(us: number): string {
  return scaleToUnit(us, DURATION_UNITS);
}

/** Decimals for a percentage: one below 100%, none from there on (+3,949% needs no tenths). */
export function percentDecimals(magnitudePercent: number): number {
  return magnitudePercent >= 99.95 ? 0 : 1;
}

/** A signed percentage number without the % sign; a value that rounds to zero has no sign. */
export function signedPercent(fraction: number, decimals: number): string {
  const digits = groupThousands(Math.abs(fraction * 100).toFixed(decimals));
  if (Number(digits.replace(/,/g, '')) === 0) return digits;
  return (fraction < 0 ? MINUS : '+') + digits;
}

/** A relative change with its sign: −12.2%, +3.1%, +3,949%. */
export function formatChange(fraction: number): string {
  if (!Number.isFinite(fraction)) return NOT_AVAILABLE;
  return signedPercent(fraction, percentDecimals(Math.abs(fraction * 100))) + '%';
}

/** An interval of relative changes in %, both ends with the same decimals: (−14.0 … −10.1). */
export function formatInterval(lo: number, hi: number): string {
  if (!Number.isFinite(lo) || !Number.isFinite(hi)) return `(${NOT_AVAILABLE})`;
  const decimals = percentDecimals(Math.max(Math.abs(lo), Math.abs(hi)) * 100);
  return `(${signedPercent(lo, decimals)} … ${signedPercent(hi, decimals)})`;
}

/** An unsigned fraction as a percentage for limits and thresholds: 5%, 2.5%, 15%. */
export function formatPercent(fraction: number): string {
  if (!Number.isFinite(fraction)) return NOT_AVAILABLE;
  const percent = Math.abs(fraction * 100);
  const digits = percent.toFixed(percentDecimals(percent)).replace(/\.0$/, '');
  return groupThousands(digits) + '%';
}

/**
 * An integer as plain digits (a seed, a line number, a block count): never anything but digits
 * and a minus sign, whatever a results file holds there.
 */
export function formatInteger(value: number): string {
  return Number.isSafeInteger(value) ? String(value) : NOT_AVAILABLE;
}

/** A whole count with thousands separators: 12,345. */
export function formatCount(count: number): string {
  return Number.isFinite(count) ? groupThousands(Math.round(count).toFixed(0)) : NOT_AVAILABLE;
}

/** A difference of two shares in percentage points, with its sign: +31.0 pt, −0.4 pt. */
export function formatPoints(fraction: number): string {
  if (!Number.isFinite(fraction)) return NOT_AVAILABLE;
  return `${signedPercent(fraction, percentDecimals(Math.abs(fraction * 100)))} pt`;
}

/** Shortens text to at most `max` characters (code points), ending in "…" when cut. */
export function truncate(text: string, max: number): string {
  const chars = [...text];
  if (chars.length <= max) return text;
  return chars.slice(0, Math.max(0, max - 1)).join('') + '…';
}
