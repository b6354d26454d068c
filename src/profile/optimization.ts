/**
 * What V8's optimizing compilers did to the service's own functions during the profiled run,
 * read from V8's own trace: in the profiling phase only, the preload turns on `--trace-deopt`,
 * `--trace-opt` and `--trace-file-names` (v8.setFlagsFromString; NODE_OPTIONS refuses them), and
 * V8 prints a line to the process's stdout, which the service's log keeps, for every
 * deoptimization and every optimization started, finished or aborted. A line per event, not per
 * call: the trace costs nothing measurable once the code is warm. Pure: text in, notes out.
 *
 * The lines this reads (V8 11 to 13, Node 20 to 24; the function is `name <file>`):
 *   [bailout (kind: deopt-eager, reason: wrong map): begin. deoptimizing 0x… <JSFunction sumPrices </srv/prices.js> (sfi = 0x…)>, …]
 *   [aborted optimizing 0x… <JSFunction f </srv/a.js> (sfi = 0x…)> because: Function is being debugged]
 *
 * Why this and not the profile: a CPU profile's `deoptReason` is rarely filled by recent V8, and
 * `%GetOptimizationStatus` needs --allow-natives-syntax in the service. What it cannot do: an
 * anonymous function has no name in the trace, so only named functions get a note.
 */
import { relative } from 'node:path';
import type { FunctionStats } from '../results/types.js';
import { scriptPath } from './frames.js';

export interface OptimizationEvents {
  deopts: number;
  /** Distinct reasons, in the order first seen. */
  reasons: string[];
  /** Why V8 gave up optimizing it, when it did. */
  aborted: string[];
}

/**
 * Deoptimizations that are part of normal warming up, not a sign of trouble: tiering up (OSR),
 * and code optimized before a path of it had ever run ("Insufficient type feedback for …": V8
 * compiled that path as a deoptimization point and re-optimizes once it has feedback).
 */
const BENIGN_REASONS = new Set(['prepare for on stack replacement (OSR)', 'OSR', '(unknown)']);
const isBenign = (reason: string) => BENIGN_REASONS.has(reason) || reason.startsWith('Insufficient type feedback');

const BAILOUT = /^\[bailout \(kind: ([^,]+), reason: (.*?)\): begin\. deoptimizing 0x[0-9a-f]+ <JSFunction ([^ <>]*) <([^<>]+)> \(sfi/;
const ABORTED = /^\[aborted optimizing 0x[0-9a-f]+ <JSFunction ([^ <>]*) <([^<>]+)> \(sfi[^>]*>(?: \(target [^)]*\))? because: (.*)\]$/;

/** "name\0file" → events, files relative to `root` (the side's repository root, real path). */
export function parseOptimizationTrace(text: string, root: string): Map<string, OptimizationEvents> {
  const events = new Map<string, OptimizationEvents>();
  const entry = (name: string, script: string) => {
    const path = scriptPath(script) ?? script;
    const file = path.startsWith(`${root.replace(/\/$/, '')}/`) ? relative(root, path) : path;
    const key = `${name}\u0000${file}`;
    let found = events.get(key);
    if (!found) {
      found = { deopts: 0, reasons: [], aborted: [] };
      events.set(key, found);
    }
    return found;
  };
  for (const line of text.split('\n')) {
    if (!line.startsWith('[')) continue;
    const bailout = BAILOUT.exec(line);
    if (bailout) {
      const [, , reason, name, script] = bailout;
      if (!name || isBenign(reason!)) continue;
      const e = entry(name, script!);
      e.deopts++;
      if (!e.reasons.includes(reason!)) e.reasons.push(reason!);
      continue;
    }
    const aborted = ABORTED.exec(line);
    if (aborted) {
      const [, name, script, reason] = aborted;
      if (!name) continue;
      const e = entry(name, script!);
      if (!e.aborted.includes(reason!)) e.aborted.push(reason!);
    }
  }
  return events;
}

/** Copies the trace's notes onto the side's own functions (matched by name and file). */
export function applyOptimizationTrace(functions: FunctionStats[], events: ReadonlyMap<string, OptimizationEvents>): void {
  if (events.size === 0) return;
  for (const fn of functions) {
    if (fn.category !== 'own') continue;
    const e = events.get(`${fn.name}\u0000${fn.file}`);
    if (!e || (e.deopts === 0 && e.aborted.length === 0)) continue;
    fn.optimization = { deopts: e.deopts, reasons: e.reasons, ...(e.aborted.length > 0 && { notOptimized: e.aborted }) };
  }
}
