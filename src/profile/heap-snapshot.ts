/**
 * What a heap holds by constructor, from a V8 heap snapshot (.heapsnapshot), and two snapshots
 * compared: count and size per constructor at the end of the load against its start, the
 * Chrome DevTools "Comparison" view a leak is found with. Pure: the snapshot comes in as bytes.
 *
 * A service's snapshot can be hundreds of MB, and JSON.parse of it would hold several times that
 * as objects: only the header and the strings are parsed as JSON; the node table (most of the
 * file) is scanned digit by digit and folded into one entry per constructor as it goes; the
 * edges are not read here (heap-holders.ts reads the end snapshot's graph to find who holds what).
 */

/** One constructor's objects: how many, and their own (shallow) size in bytes. */
export interface ConstructorStats {
  name: string;
  count: number;
  size: number;
}

/** DevTools' group names for the node types that are not named by a constructor. */
export const TYPE_GROUPS: Readonly<Record<string, string | null>> = {
  hidden: '(system)',
  'object shape': '(system)',
  array: '(array)',
  string: '(string)',
  'concatenated string': '(string)',
  'sliced string': '(string)',
  code: '(compiled code)',
  closure: '(closure)',
  number: '(heap number)',
  symbol: '(symbol)',
  bigint: '(bigint)',
  regexp: 'RegExp',
  // the roots and other entries V8 adds to make the graph: no memory of the program's
  synthetic: null,
};

export const NODES = Buffer.from('"nodes":[');
const STRINGS = Buffer.from('"strings":[');

export interface Meta {
  width: number;
  typeAt: number;
  nameAt: number;
  sizeAt: number;
  /** Where the object's id is among the node fields; -1 when a snapshot has none. */
  idAt: number;
  types: string[];
}

/**
 * The group a node is counted in: its constructor for objects, DevTools' group for the other
 * types ("(string)", "(closure)"); null for V8's synthetic roots, which hold no memory of the program.
 */
export function groupOf(typeName: string, name: string | undefined): string | null {
  if (typeName in TYPE_GROUPS) return TYPE_GROUPS[typeName] ?? null;
  return name ?? '(unknown)';
}

export function metaOf(bytes: Buffer, nodesAt: number, file: string): Meta {
  let header: { snapshot?: { meta?: { node_fields?: string[]; node_types?: unknown[] } } };
  try {
    header = JSON.parse(`${bytes.toString('utf8', 0, nodesAt).replace(/,\s*$/, '')}}`);
  } catch {
    throw new Error(`${file} is not a V8 heap snapshot (its header is not JSON)`);
  }
  const fields = header.snapshot?.meta?.node_fields ?? [];
  const types = header.snapshot?.meta?.node_types?.[0];
  const [typeAt, nameAt, sizeAt, idAt] = ['type', 'name', 'self_size', 'id'].map((f) => fields.indexOf(f));
  if (!Array.isArray(types) || typeAt! < 0 || nameAt! < 0 || sizeAt! < 0) {
    throw new Error(`${file} is not a V8 heap snapshot this version of perfgate reads (no type, name and self_size among its node fields)`);
  }
  return { width: fields.length, typeAt: typeAt!, nameAt: nameAt!, sizeAt: sizeAt!, idAt: idAt!, types: types as string[] };
}

/** Scans one numeric table ("nodes":[…], "edges":[…]) from `at`, each value with its place; the index after its "]". */
export function scanNumbers(bytes: Buffer, at: number, each: (value: number, index: number) => void): number {
  let value = 0;
  let digits = false;
  let index = 0;
  for (; at < bytes.length; at++) {
    const c = bytes[at]!;
    if (c >= 48 && c <= 57) {
      value = value * 10 + (c - 48);
      digits = true;
      continue;
    }
    if (digits) {
      each(value, index++);
      value = 0;
      digits = false;
    }
    if (c === 93) return at + 1;
  }
  return at;
}

/** The snapshot's string table (it comes last), looked for from `from` on. */
export function stringsOf(bytes: Buffer, from: number, file: string): string[] {
  const stringsAt = bytes.indexOf(STRINGS, from);
  const end = bytes.lastIndexOf(93);
  if (stringsAt < 0 || end < stringsAt) throw new Error(`${file} is not a complete V8 heap snapshot (no "strings" table; was it cut?)`);
  try {
    return JSON.parse(bytes.toString('utf8', stringsAt + STRINGS.length - 1, end + 1));
  } catch {
    throw new Error(`${file} is not a complete V8 heap snapshot (its strings are not JSON; was it cut?)`);
  }
}

/** Every constructor's count and shallow size in one snapshot, the largest first. */
export function constructorsOf(bytes: Buffer, file: string): ConstructorStats[] {
  return scanSnapshot(bytes, file).constructors;
}

/**
 * A snapshot's constructor table, and the highest number V8 gave a heap object in it. V8 numbers
 * heap objects (odd numbers, one sequence per process) in the order its snapshots first see
 * them, and keeps an object's number as it moves: in a later snapshot of the same process, an
 * object numbered above this one was made after this snapshot. Numbers of the embedder's nodes
 * (even ones, from addresses) are not part of that sequence.
 */
export function scanSnapshot(bytes: Buffer, file: string): { constructors: ConstructorStats[]; lastId: number } {
  const nodesAt = bytes.indexOf(NODES);
  if (nodesAt < 0) throw new Error(`${file} is not a V8 heap snapshot (no "nodes" table)`);
  const meta = metaOf(bytes, nodesAt, file);
  // (name index, type index) → [count, size], folded while scanning the node table.
  const groups = new Map<number, [number, number]>();
  const typeCount = meta.types.length;
  let field = 0;
  let type = 0;
  let name = 0;
  let size = 0;
  let id = 0;
  let lastId = 0;
  const at = scanNumbers(bytes, nodesAt + NODES.length, (value) => {
    if (field === meta.typeAt) type = value;
    else if (field === meta.nameAt) name = value;
    else if (field === meta.sizeAt) size = value;
    else if (field === meta.idAt) id = value;
    if (++field < meta.width) return;
    if (id % 2 === 1 && id > lastId) lastId = id;
    const key = name * typeCount + type;
    const group = groups.get(key);
    if (group) {
      group[0] += 1;
      group[1] += size;
    } else groups.set(key, [1, size]);
    field = 0;
  });
  const strings = stringsOf(bytes, at, file);
  const byName = new Map<string, ConstructorStats>();
  for (const [key, [count, bytesOf]] of groups) {
    const group = groupOf(meta.types[key % typeCount] ?? 'hidden', strings[Math.floor(key / typeCount)]);
    if (group === null) continue;
    const entry = byName.get(group) ?? { name: group, count: 0, size: 0 };
    entry.count += count;
    entry.size += bytesOf;
    byName.set(group, entry);
  }
  return { constructors: [...byName.values()].sort((a, b) => b.size - a.size || a.name.localeCompare(b.name)), lastId };
}

/** The Comparison view: per constructor, `end` minus `start` (count and size), the largest growth in size first. */
export function compareConstructors(start: readonly ConstructorStats[], end: readonly ConstructorStats[]): ConstructorStats[] {
  const delta = new Map<string, ConstructorStats>();
  for (const [list, sign] of [
    [end, 1],
    [start, -1],
  ] as const) {
    for (const c of list) {
      const entry = delta.get(c.name) ?? { name: c.name, count: 0, size: 0 };
      entry.count += sign * c.count;
      entry.size += sign * c.size;
      delta.set(c.name, entry);
    }
  }
  return [...delta.values()].filter((c) => c.count !== 0 || c.size !== 0).sort((a, b) => b.size - a.size || a.name.localeCompare(b.name));
}

/**
 * Bounds both sides' comparison tables: per side the `limit` constructors that grew most in
 * size, plus each kept one's counterpart on the other side, so the bounded tables compare as the
 * full ones do.
 */
export function boundConstructors(
  base: readonly ConstructorStats[],
  head: readonly ConstructorStats[],
  limit: number,
): { base: ConstructorStats[]; head: ConstructorStats[] } {
  const kept = new Set([...base.slice(0, limit), ...head.slice(0, limit)].map((c) => c.name));
  return { base: base.filter((c) => kept.has(c.name)), head: head.filter((c) => kept.has(c.name)) };
}

/** Sums constructor tables (a side's processes) by name. */
export function sumConstructors(tables: readonly (readonly ConstructorStats[])[]): ConstructorStats[] {
  const sum = new Map<string, ConstructorStats>();
  for (const table of tables) {
    for (const c of table) {
      const entry = sum.get(c.name) ?? { name: c.name, count: 0, size: 0 };
      entry.count += c.count;
      entry.size += c.size;
      sum.set(c.name, entry);
    }
  }
  return [...sum.values()].sort((a, b) => b.size - a.size || a.name.localeCompare(b.name));
}
