/**
 * The function table of one side: self and total samples per function, from its merged call
 * tree. Pure.
 *
 * Self time is where the samples landed (the function's own code was running); total time is
 * every sample with the function anywhere on the stack, counted once per sample even when the
 * function is on the stack several times (recursion), as in Chrome DevTools' bottom-up view.
 */
import type { FunctionCategory, FunctionStats, ProfileSummary } from '../results/types.js';
import type { CallNode, CallTree } from './call-tree.js';

const CATEGORIES: readonly FunctionCategory[] = ['own', 'dependency', 'node', 'native'];

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
  const visit = (node: CallNode) => {
    let entry = stats.get(node.key);
    if (!entry) {
      entry = { ...node.fn, self: 0, total: 0 };
      stats.set(node.key, entry);
    }
    entry.self += node.self;
    if (!onPath.get(node.key)) entry.total += node.total;
    categories[node.fn.category] += node.self;
    for (const reason of node.deoptReasons) {
      entry.deoptReasons ??= [];
      if (!entry.deoptReasons.includes(reason)) entry.deoptReasons.push(reason);
    }
    onPath.set(node.key, (onPath.get(node.key) ?? 0) + 1);
    for (const child of node.children) visit(child);
    onPath.set(node.key, onPath.get(node.key)! - 1);
  };
  for (const child of tree.root.children) visit(child);
  const functions = [...stats.values()].filter((f) => f.total > 0).sort(compareHotness);
  return { samples: tree.samples, idleSamples: tree.idleSamples, categories, functions, functionCount: functions.length };
}
