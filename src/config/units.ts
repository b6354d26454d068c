/**
 * The units perfgate.yml is written in (durations, percentages) and how they read back in
 * messages. Durations resolve to ms and limits to fractions, so nothing past config parses text.
 */

/** "500ms", "1s", "1.5s", "2m", or a bare number of seconds ("5"). No spaces, no hours: slices are short. */
export const DURATION_PATTERN = /^\d+(?:\.\d+)?(?:ms|s|m)?$/;
export const DURATION_HINT = 'write e.g. 500ms, 1s, 2m (a bare number is seconds)';

/** "5%", "2.5%". A bare number is accepted as a number, not as text. */
export const PERCENT_PATTERN = /^\d+(?:\.\d+)?%$/;

/**
 * Duration in ms (rounded to whole ms). Numbers are seconds, because YAML `warmup: 5` reads
 * naturally as five seconds. The caller has already matched DURATION_PATTERN for strings.
 */
export function parseDurationMs(value: number | string): number {
  if (typeof value === 'number') return Math.round(value * 1000);
  const match = /^(\d+(?:\.\d+)?)(ms|s|m)?$/.exec(value);
  if (!match) return Number.NaN;
  const amount = Number(match[1]);
  const unitMs = match[2] === 'ms' ? 1 : match[2] === 'm' ? 60_000 : 1000;
  return Math.round(amount * unitMs);
}

/** The shortest exact spelling of a duration, in the units users write: 100ms, 30s, 10m. */
export function formatDuration(ms: number): string {
  if (ms !== 0 && ms % 60_000 === 0) return `${ms / 60_000}m`;
  if (ms !== 0 && ms % 1000 === 0) return `${ms / 1000}s`;
  if (ms === 0) return '0s';
  return ms < 1000 ? `${ms}ms` : `${ms / 1000}s`;
}

/** Percent (5 or "5%") → fraction (0.05). The caller has already matched PERCENT_PATTERN for strings. */
export function parsePercent(value: number | string): number {
  const percent = typeof value === 'number' ? value : Number(value.slice(0, -1));
  // Divide rather than multiply by 0.01: 5 / 100 is exactly the double nearest 0.05, 5 * 0.01 is not.
  return percent / 100;
}


/** "0.5MB", "200kB" (MB = 10^6 bytes, kB = 10^3). A bare number is accepted as a number of MB, not as text. */
export const SIZE_PATTERN = /^\d+(?:\.\d+)?(?:MB|kB)$/;

/** A size (0.5, "0.5MB" or "200kB") → MB. The caller has already matched SIZE_PATTERN for strings. */
export function parseSizeMb(value: number | string): number {
  if (typeof value === 'number') return value;
  const amount = Number(value.slice(0, -2));
  return value.endsWith('kB') ? amount / 1000 : amount;
}

/** MB → "0.5MB" for defaults shown in the JSON Schema and docs. */
export function formatSizeMb(mb: number): string {
  return `${Number(mb.toPrecision(12))}MB`;
}
