/**
 * The heap files the profiling phase's processes write next to their CPU profiles (the preload,
 * src/preload/preload.cjs): sampling heap profiles of what they allocated, and, where the timed
 * slices flagged a possible leak, heap snapshots at the start and end of the load. Read here,
 * bounded; what they mean is src/profile/allocations.ts's and heap-snapshot.ts's.
 */
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { parseHeapProfile, profileBytes, type SamplingHeapProfile } from '../../profile/allocations.js';
import { type KeptHolder, keptHolders } from '../../profile/heap-holders.js';
import { compareConstructors, type ConstructorStats, scanSnapshot, sumConstructors } from '../../profile/heap-snapshot.js';
import { nameHolders, sumHolders } from '../../profile/holder-writers.js';
import type { ScriptSources } from '../../profile/inlining.js';
import type { AllocationProfile, RetainedHeap } from '../../results/types.js';

/**
 * The largest heap snapshot read. The node table is scanned without building objects, but the
 * file is held in memory once and its strings parsed: a snapshot above this is skipped, and the
 * results say so, rather than risk the run's memory.
 */
export const MAX_SNAPSHOT_BYTES = 256 * 1024 * 1024;

/** A side's sampling heap profiles as read, before their functions are named. */
export interface HeapProfiles {
  profiles: SamplingHeapProfile[];
  processes: AllocationProfile['processes'];
}

/**
 * The side's sampling heap profiles (HEAP.<pid>.heapprofile, with HEAP.<pid>.json holding the
 * responses the process served while sampled). A cut or unreadable file is a warning: the other
 * processes still make the side's table.
 */
export function readHeapProfiles(dir: string, names: string[], warn: (message: string) => void): HeapProfiles {
  const found: HeapProfiles = { profiles: [], processes: [] };
  for (const name of names.filter((n) => n.startsWith('HEAP.') && n.endsWith('.heapprofile')).sort()) {
    const file = join(dir, name);
    try {
      const profile = parseHeapProfile(readFileSync(file, 'utf8'), file);
      const meta = JSON.parse(readFileSync(file.replace(/\.heapprofile$/, '.json'), 'utf8')) as { responses?: unknown };
      const responses = typeof meta.responses === 'number' && meta.responses >= 0 ? meta.responses : 0;
      found.profiles.push(profile);
      found.processes.push({ file, bytes: profileBytes(profile), responses });
    } catch (e) {
      warn(`allocations: ${(e as Error).message}`);
    }
  }
  return found;
}

/** The most holders a side keeps in results.json: the leak is among the first few. */
export const HOLDER_LIMIT = 12;

/**
 * A side's snapshots compared: end minus start per constructor, over the processes that wrote
 * both (the table unbounded), and who holds what the load left behind (bounded), named against
 * the side's tree (`naming.root`) and sources; `naming.ownScripts`: the service's own scripts the
 * profiles ran, where a holder's writer is looked for when its variable's script has none.
 */
export function readRetained(
  dir: string,
  names: string[],
  warn: (message: string) => void,
  naming: { root: string; sources: ScriptSources; ownScripts: readonly string[] },
): RetainedHeap | null {
  const pids = names.flatMap((n) => /^SNAP\.(\d+)\.start\.heapsnapshot$/.exec(n)?.[1] ?? []);
  if (pids.length === 0) return null;
  const starts: ConstructorStats[][] = [];
  const ends: ConstructorStats[][] = [];
  const holders: KeptHolder[][] = [];
  const skipped: string[] = [];
  for (const pid of pids.sort()) {
    const files = ['start', 'end'].map((when) => join(dir, `SNAP.${pid}.${when}.heapsnapshot`));
    try {
      const sizes = files.map((file) => statSync(file).size);
      if (sizes.some((size) => size > MAX_SNAPSHOT_BYTES)) {
        skipped.push(`process ${pid}'s heap snapshot is ${Math.round(Math.max(...sizes) / 1e6)} MB, above the ${MAX_SNAPSHOT_BYTES / 1024 / 1024} MB perfgate reads`);
        continue;
      }
      const start = scanSnapshot(readFileSync(files[0]!), files[0]!);
      const endBytes = readFileSync(files[1]!);
      const end = scanSnapshot(endBytes, files[1]!);
      holders.push(keptHolders(endBytes, start.lastId, files[1]!));
      starts.push(start.constructors);
      ends.push(end.constructors);
    } catch (e) {
      const message = (e as NodeJS.ErrnoException).code === 'ENOENT' ? `process ${pid} wrote no heap snapshot at the end of the load` : (e as Error).message;
      skipped.push(message);
      warn(`heap snapshots: ${message}`);
    }
  }
  const total = (tables: ConstructorStats[][]) => tables.flat().reduce((sum, c) => sum + c.size, 0);
  const constructors = compareConstructors(sumConstructors(starts), sumConstructors(ends));
  return {
    skipped: starts.length === 0 ? skipped.join('; ') || 'no process wrote both heap snapshots' : null,
    processes: starts.length,
    startBytes: total(starts),
    endBytes: total(ends),
    constructors,
    constructorCount: constructors.length,
    holders: nameHolders(sumHolders(holders).slice(0, HOLDER_LIMIT), naming.sources, naming.root, naming.ownScripts),
  };
}
