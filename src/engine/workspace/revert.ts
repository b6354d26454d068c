/**
 * Head's tree with the pull request's change to one function taken back: the third arm that
 * tests a culprit (docs/profiling.md, "Confirming the culprit"). The partial patch is cut from
 * git's own diff of the function's file, hunk by hunk, and applied in reverse by `git apply`:
 * no parser decides what the function's code was, so a revert either is exactly base's lines
 * inside the function or is refused with git's reason.
 */
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { touches } from '../../profile/changes.js';
import type { FunctionId } from '../../results/types.js';
import { sourceOf } from './source-map.js';
import { git, type Tree, treeGit, worktreeGitDir } from './trees.js';

/** What the revert took back (a function's hunks, or a package's folder: hunks 0), or why it could not. */
export type Revert =
  | { ok: true; tree: Tree; file: string; hunks: number; dispose: () => Promise<void> }
  | { ok: false; reason: string };

/** One hunk of a zero-context diff: its header, its lines, and head's lines it covers; `removes`: base's lines it replaces. */
interface Hunk {
  text: string;
  start: number;
  count: number;
  removes: number;
}

/** A cut of one file's diff: the patch of its hunks that touch a line range, and whether they only add lines that cover all of it. */
export interface PartialPatch {
  patch: string;
  hunks: number;
  /** Every line of the range is an added line and the hunks remove none: base had no such code to put back. */
  allNew: boolean;
}

/**
 * The section of a diff (`git diff -M --unified=0`) that makes head's file: the one whose `+++`
 * names a file, not /dev/null (a rename git did not pair shows the old path deleted beside it).
 */
function headSection(lines: string[]): { plus: string; body: string[] } | null {
  const starts = lines.flatMap((line, i) => (line.startsWith('diff --git ') ? [i] : []));
  for (const [n, from] of starts.entries()) {
    const section = lines.slice(from, starts[n + 1] ?? lines.length);
    const first = section.findIndex((line) => line.startsWith('@@ '));
    const plus = section.slice(0, first < 0 ? section.length : first).find((line) => line.startsWith('+++ '));
    if (plus && plus !== '+++ /dev/null' && first >= 0) return { plus: plus.slice(4), body: section.slice(first) };
  }
  return null;
}

/**
 * The part of one file's diff (`git diff -M --unified=0`) whose hunks touch head's lines
 * start…end, as a patch `git apply` reads; null when none of its hunks does. Its header names
 * head's path on both sides, as git quoted it: a renamed file's revert takes back the function's
 * lines in place, not the rename, and a new file's is not its deletion.
 */
export function partialPatch(diff: string, start: number, end: number): PartialPatch | null {
  const section = headSection(diff.split('\n'));
  if (section === null) return null;
  const hunks: Hunk[] = [];
  for (const line of section.body) {
    const match = /^@@ -\d+(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/.exec(line);
    if (match) hunks.push({ text: line, start: Number(match[2]), count: match[3] === undefined ? 1 : Number(match[3]), removes: match[1] === undefined ? 1 : Number(match[1]) });
    else if (hunks.length > 0 && line !== '') hunks.at(-1)!.text += `\n${line}`;
  }
  const kept = hunks.filter((h) => touches([[h.start, h.count]], start, end));
  if (kept.length === 0) return null;
  const { plus } = section;
  const minus = plus.replace(/^("?)b\//, '$1a/');
  const header = [`diff --git ${minus} ${plus}`, `--- ${minus}`, `+++ ${plus}`];
  const allNew = kept.every((h) => h.removes === 0) && kept.some((h) => h.start <= start && h.start + h.count - 1 >= end);
  return { patch: `${[...header, ...kept.map((h) => h.text)].join('\n')}\n`, hunks: kept.length, allNew };
}

export interface RevertRequest {
  head: Tree;
  /** The commit head's lines were compared with (ChangeSet.since). */
  since: string;
  /** The culprit: an own function, its file relative to the repository root. */
  fn: Pick<FunctionId, 'name' | 'file' | 'line' | 'endLine'>;
  /** Head's service directory relative to its root (service.cwd): its node_modules is copied. */
  cwd: string;
  /** Whether the service has a build (service.build) that remakes built files from their sources in the reverted tree. */
  builds: boolean;
  /** Where the reverted tree is made. */
  scratchDir: string;
}

/** A worktree of head's commit beside head's tree, and how to remove it. */
async function headWorktree(head: Tree, scratchDir: string): Promise<{ root: string; gitDir: string; dispose: () => Promise<void> }> {
  mkdirSync(scratchDir, { recursive: true });
  const root = join(scratchDir, 'reverted');
  const commit = await treeGit(head, ['rev-parse', 'HEAD']);
  await treeGit(head, ['worktree', 'add', '--detach', '--force', root, commit]);
  const gitDir = await worktreeGitDir(root);
  return { root, gitDir, dispose: () => treeGit(head, ['worktree', 'remove', '--force', root]).then(() => undefined, () => undefined) };
}

/** Head's installed node_modules copied into the reverted tree: the revert changes one thing, not what is installed. */
function copyModules(from: string, to: string): void {
  if (existsSync(join(from, 'node_modules'))) cpSync(join(from, 'node_modules'), join(to, 'node_modules'), { recursive: true, verbatimSymlinks: true });
}

/** The path head's `file` had at `since`: itself, or the one this PR renamed it from; null when this PR left it alone. */
async function pathAtSince(head: Tree, since: string, file: string): Promise<string | null> {
  const fields = (await treeGit(head, ['diff', '--no-color', '-M', '--name-status', '-z', since])).split('\0');
  for (let i = 0; i + 1 < fields.length; ) {
    const paired = /^[RC]/.test(fields[i]!);
    if ((paired ? fields[i + 2] : fields[i + 1]) === file) return fields[i + 1]!;
    i += paired ? 3 : 2;
  }
  return null;
}

/** git's zero-context diff of one file of head's tree from `since`, its old path beside it so that a rename pairs. */
async function fileDiff(head: Tree, since: string, from: string, file: string, scratchDir: string): Promise<string> {
  mkdirSync(scratchDir, { recursive: true });
  // Read from a file, not from git's output, which is trimmed: that would cut the "\r" of a CRLF file's last line.
  const out = join(scratchDir, 'head.diff');
  const args = ['-c', 'core.quotePath=false', 'diff', '--no-color', '--no-ext-diff', '--no-textconv', '-M', '--unified=0', '--src-prefix=a/', '--dst-prefix=b/', `--output=${out}`];
  await treeGit(head, [...args, since, '--', ...new Set([from, file])]);
  return readFileSync(out, 'utf8');
}

/**
 * The lines to revert for a culprit: its own, or when its file was built (a source map beside
 * it names the source in the repository) and the service builds, the source's lines it came
 * from, since the build would remake the built file from head's source.
 */
function revertTarget(request: RevertRequest): { target: Pick<FunctionId, 'file' | 'line' | 'endLine'>; builtFrom: string | null } {
  const { fn } = request;
  const source = sourceOf(request.head.root, fn.file, fn.line, Math.max(fn.line, fn.endLine ?? fn.line));
  if (source === null) return { target: fn, builtFrom: null };
  return { target: request.builds ? source : fn, builtFrom: source.file };
}

/**
 * A worktree of head's commit beside head's, with a copy of head's installed node_modules and
 * the pull request's hunks inside the function's lines applied in reverse. The caller builds it
 * (service.build) and disposes of it.
 */
export async function revertFunction(request: RevertRequest): Promise<Revert> {
  const { head, since, fn } = request;
  const { target, builtFrom } = revertTarget(request);
  const end = Math.max(target.line, target.endLine ?? target.line);
  const where = `${fn.name} (${target.file}:${target.line}–${end})`;
  const from = await pathAtSince(head, since, target.file);
  const part = from === null ? null : partialPatch(await fileDiff(head, since, from, target.file, request.scratchDir), target.line, end);
  if (part === null && builtFrom !== null && !request.builds) {
    return { ok: false, reason: `could not revert ${fn.name}: ${fn.file} is built from ${builtFrom} (its source map), and the service has no build (service.build) to remake it from a reverted source` };
  }
  if (part === null) return { ok: false, reason: `this PR changed no line of ${where}` };
  // Taking out code base never had does not give back base's speed: the callers would break.
  if (part.allNew) return { ok: false, reason: `could not revert ${where}: all of it is new in this PR, so base has no ${fn.name} to put back` };
  const { root, gitDir, dispose } = await headWorktree(head, request.scratchDir);
  try {
    // Head's work tree may differ from its commit (uncommitted changes): its file as measured is the one reverted.
    cpSync(join(head.root, target.file), join(root, target.file));
    const patchFile = join(request.scratchDir, 'revert.patch');
    writeFileSync(patchFile, part.patch);
    try {
      await git(['apply', '-R', '--unidiff-zero', '--whitespace=nowarn', patchFile], root);
    } catch (e) {
      await dispose();
      return { ok: false, reason: `could not revert ${where}: git apply -R refused this PR's ${part.hunks} hunk(s) in it: ${(e as Error).message.split('\n').at(-1)}` };
    }
    copyModules(join(head.root, request.cwd), join(root, request.cwd));
    return { ok: true, tree: { ...head, root, gitDir }, file: target.file, hunks: part.hunks, dispose };
  } catch (e) {
    await dispose();
    throw e;
  }
}

/**
 * Why the reverted tree, once built, would still run head's code: the culprit's file (what the
 * profile saw run) is byte for byte head's, e.g. a build that remade it from a source the revert
 * did not touch. Null when it differs or cannot be read (then starting it tells).
 */
export function runsHeadsCode(headRoot: string, revertedRoot: string, fn: Pick<FunctionId, 'name' | 'file'>): string | null {
  const read = (root: string) => {
    try {
      return readFileSync(join(root, fn.file));
    } catch {
      return null;
    }
  };
  const reverted = read(revertedRoot);
  const head = read(headRoot);
  if (reverted === null || head === null || !reverted.equals(head)) return null;
  return `could not revert ${fn.name}: after the build, ${fn.file} in the reverted tree is head's byte for byte, so the reverted service would still run this PR's change`;
}

/**
 * For a culprit in a dependency the PR upgraded: a worktree of head's commit with head's
 * node_modules, except that package's folder, which is base's as base installed it. Its own
 * dependencies stay head's: a package whose new version needs new dependencies is compared as
 * base's code on head's tree.
 */
/** `baseDir`: base's installed service directory; `cwd`: head's service directory relative to its root. */
export async function revertPackage(request: { head: Tree; baseDir: string; cwd: string; name: string; scratchDir: string }): Promise<Revert> {
  const { head, name } = request;
  const baseFolder = join(request.baseDir, 'node_modules', name);
  if (!existsSync(baseFolder)) return { ok: false, reason: `base has no node_modules/${name} to put in head's place` };
  const { root, gitDir, dispose } = await headWorktree(head, request.scratchDir);
  try {
    copyModules(join(head.root, request.cwd), join(root, request.cwd));
    const target = join(root, request.cwd, 'node_modules', name);
    rmSync(target, { recursive: true, force: true });
    cpSync(baseFolder, target, { recursive: true, verbatimSymlinks: true });
    return { ok: true, tree: { ...head, root, gitDir }, file: `node_modules/${name}`, hunks: 0, dispose };
  } catch (e) {
    await dispose();
    throw e;
  }
}
