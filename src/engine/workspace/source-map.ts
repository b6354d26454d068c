/**
 * Where a built file's lines come from: a TypeScript (or other compiled) service runs its build
 * output, so its profile names dist/server.js while this pull request changed src/server.ts. The
 * build's own source map (Source Map v3, read by Node's module.SourceMap) says which source lines
 * each built line was made from; nothing is guessed from the two texts.
 */
import { readFileSync } from 'node:fs';
import { SourceMap, type SourceMapPayload } from 'node:module';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ChangedFile } from '../../results/types.js';

/** The source map a built file names in its last `sourceMappingURL` comment: a file beside it, or inline; null without one. */
function readSourceMap(path: string, text: string): { payload: SourceMapPayload; dir: string } | null {
  const url = [...text.matchAll(/^\s*\/\/[#@] sourceMappingURL=(\S+)\s*$/gm)].at(-1)?.[1];
  if (url === undefined) return null;
  try {
    const inline = /^data:application\/json[^,]*?(;base64)?,(.*)$/.exec(url);
    if (inline) {
      const body = inline[1] ? Buffer.from(inline[2]!, 'base64').toString('utf8') : decodeURIComponent(inline[2]!);
      return { payload: JSON.parse(body) as SourceMapPayload, dir: dirname(path) };
    }
    if (/^[a-z]+:/i.test(url)) return null;
    const mapPath = resolve(dirname(path), decodeURIComponent(url));
    return { payload: JSON.parse(readFileSync(mapPath, 'utf8')) as SourceMapPayload, dir: dirname(mapPath) };
  } catch {
    // A map that is missing or not JSON maps nothing: the built file is reverted as it is.
    return null;
  }
}

/** A source named in a map, relative to the repository root; null when it is outside it or not a file. */
function sourcePath(root: string, mapDir: string, source: string): string | null {
  let path: string;
  try {
    path = source.startsWith('file:') ? fileURLToPath(source) : /^[a-z][\w+.-]*:/i.test(source) ? '' : resolve(mapDir, source);
  } catch {
    return null;
  }
  const inside = path === '' ? '' : relative(root, path);
  return inside === '' || inside.startsWith('..') || isAbsolute(inside) ? null : inside.split(sep).join('/');
}

/** A built file read with its source map: its lines, and the source line (repository-relative) each one was made from. */
interface Built {
  lines: string[];
  /** Where built line `line` (1-based) came from, by its last mapping; null when it has none, or its source is outside the repository. */
  origin(line: number): { file: string; line: number } | null;
}

/** A built file in the tree and its source map; null when it cannot be read or names no readable map. */
function readBuilt(root: string, file: string): Built | null {
  let text: string;
  try {
    text = readFileSync(join(root, file), 'utf8');
  } catch {
    return null;
  }
  const found = readSourceMap(join(root, file), text);
  if (found === null) return null;
  let map: SourceMap;
  try {
    map = new SourceMap(found.payload);
  } catch {
    return null;
  }
  // sourceRoot prefixes every source, as the format says; Node's SourceMap leaves it to the reader.
  const sourceRoot = found.payload.sourceRoot ? `${found.payload.sourceRoot.replace(/\/?$/, '/')}` : '';
  const lines = text.split('\n');
  return {
    lines,
    origin(line) {
      // The line's last mapping: a lookup at its end finds it, or one of an earlier line when it has none.
      const entry = map.findEntry(line - 1, lines[line - 1]?.length ?? 0);
      if (!('originalSource' in entry) || entry.generatedLine !== line - 1) return null;
      const source = entry.originalSource.startsWith(sourceRoot) ? entry.originalSource : `${sourceRoot}${entry.originalSource}`;
      const path = sourcePath(root, found.dir, source);
      return path === null ? null : { file: path, line: entry.originalLine + 1 };
    },
  };
}

/**
 * The source lines that a built file's lines start…end (1-based, as the profile names them)
 * were made from, by the file's source map: one source file in the repository, from the first
 * to the last line any of them maps to. Null when the file has no source map, when its lines map
 * to nothing, to a file outside the repository, or to more than one source (a bundle).
 */
export function sourceOf(root: string, file: string, start: number, end: number): { file: string; line: number; endLine: number } | null {
  const built = readBuilt(root, file);
  if (built === null) return null;
  const mapped: { file: string; line: number }[] = [];
  for (let line = start; line <= end && line <= built.lines.length; line++) {
    const origin = built.origin(line);
    if (origin !== null) mapped.push(origin);
  }
  const sources = new Set(mapped.map((o) => o.file));
  if (sources.size !== 1) return null;
  const lines = mapped.map((o) => o.line);
  return { file: [...sources][0]!, line: Math.min(...lines), endLine: Math.max(...lines) };
}

/**
 * The source line each of `places` (own functions' first lines in built files, as a profile
 * names them) was made from, by its file's source map, in order; null where the file has no
 * map or the line maps to nothing in the repository. Each file is read once.
 */
export function sourceLines(root: string, places: readonly { file: string; line: number }[]): ({ file: string; line: number } | null)[] {
  const files = new Map<string, Built | null>();
  return places.map(({ file, line }) => {
    if (!files.has(file)) files.set(file, readBuilt(root, file));
    const origin = line > 0 ? (files.get(file)?.origin(line) ?? null) : null;
    return origin === null || origin.file === file ? null : origin;
  });
}

/**
 * This pull request's change as a built file shows it: the built lines made from source lines it
 * changed (a line it removed: the built line of the source line before the removal), as hunks
 * [start, count]; null when the file has no source map. A culprit in built code is then marked
 * changed or not as one in the source would be.
 */
export function builtHunks(root: string, file: string, changed: readonly ChangedFile[]): [number, number][] | null {
  const built = readBuilt(root, file);
  if (built === null) return null;
  const bySource = new Map(changed.map((f) => [f.file, f.hunks]));
  const hunks: [number, number][] = [];
  for (let line = 1; line <= built.lines.length; line++) {
    const origin = built.origin(line);
    const inSource = origin === null ? undefined : bySource.get(origin.file);
    if (!inSource?.some(([at, count]) => (count > 0 ? at <= origin!.line && origin!.line < at + count : origin!.line === at))) continue;
    const last = hunks.at(-1);
    if (last && last[0] + last[1] === line) last[1]++;
    else hunks.push([line, 1]);
  }
  return hunks;
}
