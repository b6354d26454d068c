/**
 * The function table of one side: self and total samples per function, from its merged call
 * tree. Pure.
 *
 * Self time is where the samples landed (the function's own code was running); total time is
 * every sample with the function anywhere on the stack, counted once per sample even when the
 * function is on the stack several times (recursion), as in Chrome DevTools' bottom-up view.
 *
 * Attributed time (own code only) answers "which of my functions is this time for": every sample
 * is charged to the innermost own function on its stack — its self time plus the samples of the
 * dependency, Node core, V8/native and regular-expression frames it calls, up to the next own
 * function below. A sample with no own function on its stack is charged to none. So the own
 * functions' attributed samples add up to at most the side's samples, and a helper whose time is
 * spent in zlib or a regex holds that time although its self time is near zero.
 */
import type { AttributedInto, FunctionCategory, FunctionStats, ProfileSummary } from '../results/types.js';
import type { CallNode, CallTree } from './call-tree.js';

const CATEGORIES: readonly FunctionCategory[] = ['own', 'dependency', 'node', 'native'];

/** Frames kept per own function in `into` (the hottest, by samples). */
export const INTO_LIMIT = 5;

/** Hottest first: self, then total, then name and place so the order is stable. */
export function compareHotness(a: FunctionStats, b: FunctionStats): number {
  return b.self - a.self || b.total - a.total || a.name.localeCompare(b.name) || a.file.localeCompare(b.file) || a.line - b.line;
}

/** Every function of the tree, hottest first (not bounded: see boundSummaries in diff.ts). */
export function summarizeCallTree(tree: CallTree): ProfileSummary {
  const stats = new Map<string, FunctionStats>();
  const categories = Object.fromEntries(CATEGORIES.map((c) => [c, 0])) as Record<FunctionCategory, number>;
  // Total time: a node's total counts for its function unless an ancestor is the same function.
  const onPath = new Map<string, number>();
  // What each own function's attributed samples went into, by the frame they landed in.
  const into = new Map<FunctionStats, Map<string, AttributedInto>>();
  const visit = (node: CallNode, owner: FunctionStats | null) => {
    let entry = stats.get(node.key);
    if (!entry) {
      entry = { ...node.fn, self: 0, total: 0, ...(node.fn.category === 'own' && { attributed: 0 }) };
      stats.set(node.key, entry);
    }
    entry.self += node.self;
    if (!onPath.get(node.key)) entry.total += node.total;
    categories[node.fn.category] += node.self;
    for (const reason of node.deoptReasons) {
      entry.deoptReasons ??= [];
      if (!entry.deoptReasons.includes(reason)) entry.deoptReasons.push(reason);
    }
    const charged = node.fn.category === 'own' ? entry : owner;
    if (charged !== null && node.self > 0) {
      charged.attributed! += node.self;
      if (charged !== entry) {
        const landed = into.get(charged) ?? new Map<string, AttributedInto>();
        into.set(charged, landed);
        const frame = landed.get(node.key) ?? { ...node.fn, samples: 0 };
        frame.samples += node.self;
        landed.set(node.key, frame);
      }
    }
    onPath.set(node.key, (onPath.get(node.key) ?? 0) + 1);
    for (const child of node.children) visit(child, charged);
    onPath.set(node.key, onPath.get(node.key)! - 1);
  };
  for (const child of tree.root.children) visit(child, null);
  for (const [fn, landed] of into) {
    fn.into = [...landed.values()].sort((a, b) => b.samples - a.samples || a.name.localeCompare(b.name)).slice(0, INTO_LIMIT);
  }
  const functions = [...stats.values()].filter((f) => f.total > 0).sort(compareHotness);
  return { samples: tree.samples, idleSamples: tree.idleSamples, categories, functions, functionCount: functions.length };
}
