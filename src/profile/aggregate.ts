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
 *
 * One exception to "charged to none": a dependency's async function resumed from the microtask
 * queue (`await Jimp.read(file)`: the decoding runs after the read's await, on a stack of jimp's
 * frames alone, since V8 samples synchronous stacks only). Such a stack starts with the
 * dependency's frame right under the root, or under Node's microtask runner; it is charged to the
 * own function that calls that dependency function elsewhere in the profile (its first,
 * synchronous part), else to the own function that calls into that package the most. Event
 * callbacks (a socket's data, a framework's routing) start in Node core frames and stay uncharged.
 *
 * A dependency function's `withNatives` is the same idea within a package: its self time plus the
 * Node core and V8/native frames (a regex, JSON.stringify, a Buffer copy) it calls, up to the next
 * dependency or own function. Which of a package's functions grew is read from it: V8 books a
 * regex to a frame of its own below the function that runs it, a built-in often to the function
 * itself, so self time alone moves with that choice rather than with the work.
 */
import type { AttributedInto, FunctionCategory, FunctionStats, ProfileSummary } from '../results/types.js';
import type { CallNode, CallTree } from './call-tree.js';

const CATEGORIES: readonly FunctionCategory[] = ['own', 'dependency', 'node', 'native'];

/** Frames kept per own function in `into` (the hottest, by samples). */
export const INTO_LIMIT = 5;

/** Node core and V8 frames that run the microtask queue: a dependency frame below only these was resumed from it. */
const MICROTASK_RUNNERS = new Set(['processTicksAndRejections', 'runMicrotasks']);

/** Samples under a frame (by function key or package) per own caller: the innermost own function above its outermost occurrence. */
type Callers = Map<string, Map<string, { node: CallNode; samples: number }>>;

/**
 * Who calls each dependency function and package from own code: for every dependency frame below
 * an own function, its samples are counted for that own function, once per path (a recursive or
 * re-entered package counts at its outermost frame below the own function).
 */
function ownCallers(tree: CallTree): { byFunction: Callers; byPackage: Callers } {
  const byFunction: Callers = new Map();
  const byPackage: Callers = new Map();
  const count = (callers: Callers, key: string, owner: CallNode, samples: number) => {
    const forKey = callers.get(key) ?? new Map<string, { node: CallNode; samples: number }>();
    callers.set(key, forKey);
    const entry = forKey.get(owner.key) ?? { node: owner, samples: 0 };
    entry.samples += samples;
    forKey.set(owner.key, entry);
  };
  const visit = (node: CallNode, owner: CallNode | null, seen: ReadonlySet<string>) => {
    let below = seen;
    if (node.fn.category === 'own') {
      owner = node;
      below = new Set();
    } else if (owner !== null && node.fn.category === 'dependency') {
      // A file outside the repository that is in no package has no package to share.
      const pkg = node.fn.package === null ? null : `package:${node.fn.package}`;
      const fresh = new Set(seen);
      if (!seen.has(node.key)) count(byFunction, node.key, owner, node.total);
      if (pkg !== null && !seen.has(pkg)) count(byPackage, pkg, owner, node.total);
      fresh.add(node.key);
      if (pkg !== null) fresh.add(pkg);
      below = fresh;
    }
    for (const child of node.children) visit(child, owner, below);
  };
  for (const child of tree.root.children) visit(child, null, new Set());
  return { byFunction, byPackage };
}

/** The own caller with the most samples in `callers` (ties: the first by key, so the choice is stable). */
function mainCaller(callers: Map<string, { node: CallNode; samples: number }> | undefined): CallNode | null {
  let best: { node: CallNode; samples: number } | null = null;
  for (const entry of callers?.values() ?? []) {
    if (best === null || entry.samples > best.samples || (entry.samples === best.samples && entry.node.key < best.node.key)) best = entry;
  }
  return best?.node ?? null;
}

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
  const statsOf = (node: CallNode): FunctionStats => {
    let entry = stats.get(node.key);
    if (!entry) {
      entry = { ...node.fn, self: 0, total: 0, ...(node.fn.category === 'own' && { attributed: 0 }), ...(node.fn.category === 'dependency' && { withNatives: 0 }) };
      stats.set(node.key, entry);
    }
    return entry;
  };
  let callers: ReturnType<typeof ownCallers> | null = null;
  /** The own function a resumed dependency frame is charged to (see the module's comment), or null. */
  const resumedBy = (node: CallNode): FunctionStats | null => {
    callers ??= ownCallers(tree);
    const caller =
      mainCaller(callers.byFunction.get(node.key)) ?? (node.fn.package === null ? null : mainCaller(callers.byPackage.get(`package:${node.fn.package}`)));
    return caller === null ? null : statsOf(caller);
  };
  /** A top-level path: Node's microtask runner frames are walked through, the first dependency frame below them is looked up. */
  const visitTop = (node: CallNode) => {
    if (node.fn.category === 'dependency') return visit(node, resumedBy(node), null);
    if (MICROTASK_RUNNERS.has(node.fn.name) && (node.fn.category === 'node' || node.fn.category === 'native')) {
      visit(node, null, null, (child) => visitTop(child));
      return;
    }
    visit(node, null, null);
  };
  /** `owner`: the innermost own function above (attributed time); `inPackage`: the innermost dependency function since it (withNatives). */
  const visit = (node: CallNode, owner: FunctionStats | null, inPackage: FunctionStats | null, visitChild?: (child: CallNode) => void) => {
    const entry = statsOf(node);
    entry.self += node.self;
    const packageOwner = node.fn.category === 'dependency' ? entry : node.fn.category === 'own' ? null : inPackage;
    if (packageOwner !== null) packageOwner.withNatives! += node.self;
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
    for (const child of node.children) {
      if (visitChild && charged === null) visitChild(child);
      else visit(child, charged, packageOwner);
    }
    onPath.set(node.key, onPath.get(node.key)! - 1);
  };
  for (const child of tree.root.children) visitTop(child);
  for (const [fn, landed] of into) {
    fn.into = [...landed.values()].sort((a, b) => b.samples - a.samples || a.name.localeCompare(b.name)).slice(0, INTO_LIMIT);
  }
  const functions = [...stats.values()].filter((f) => f.total > 0).sort(compareHotness);
  return { samples: tree.samples, idleSamples: tree.idleSamples, categories, functions, functionCount: functions.length };
}
