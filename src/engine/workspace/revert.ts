/**
 * Head's tree with the pull request's change to one function taken back: the third arm that
 * tests a culprit (docs/profiling.md, "Confirming the culprit"). The partial patch is cut from
 * git's own diff of the function's file, hunk by hunk, and applied in reverse by `git apply`:
 * no parser decides what the function's code was, so a revert either is exactly base's lines
 * inside the function or is refused with git's reason.
 */
import { cpSync, existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { touches } from '../../profile/changes.js';
import type { FunctionId } from '../../results/types.js';
import { git, type Tree, treeGit, worktreeGitDir } from './trees.js';

/** What the revert took back (a function's hunks, or a package's folder: hunks 0), or why it could not. */
export type Revert =
  | { ok: true; tree: Tree; file: string; hunks: number; dispose: () => Promise<void> }
  | { ok: false; reason: string };

/** One hunk of a zero-context diff: its header, its lines, and head's lines it covers. */
interface Hunk {
  text: string;
  start: number;
  count: number;
}

/**
 * The part of one file's diff (`git diff --unified=0`) whose hunks touch head's lines
 * start…end, as a patch `git apply` reads (the file's header kept as git wrote it); null when
 * none of its hunks does.
 */
export function partialPatch(diff: string, start: number, end: number): { patch: string; hunks: number } | null {
  const lines = diff.split('\n');
  const first = lines.findIndex((line) => line.startsWith('@@ '));
  if (first < 0) return null;
  const header = lines.slice(0, first);
  const hunks: Hunk[] = [];
  for (const line of lines.slice(first)) {
    const match = /^@@ -\d+(?:,\d+)? \+(\d+)(?:,(\d+))? @@/.exec(line);
    if (match) hunks.push({ text: line, start: Number(match[1]), count: match[2] === undefined ? 1 : Number(match[2]) });
    else if (hunks.length > 0 && line !== '') hunks.at(-1)!.text += `\n${line}`;
  }
  const kept = hunks.filter((h) => touches([[h.start, h.count]], start, end));
  if (kept.length === 0) return null;
  return { patch: `${[...header, ...kept.map((h) => h.text)].join('\n')}\n`, hunks: kept.length };
}

export interface RevertRequest {
  head: Tree;
  /** The commit head's lines were compared with (ChangeSet.since). */
  since: string;
  /** The culprit: an own function, its file relative to the repository root. */
  fn: Pick<FunctionId, 'name' | 'file' | 'line' | 'endLine'>;
  /** Head's service directory relative to its root (service.cwd): its node_modules is copied. */
  cwd: string;
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

/**
 * A worktree of head's commit beside head's, with a copy of head's installed node_modules and
 * the pull request's hunks inside the function's lines applied in reverse. The caller builds it
 * (service.build) and disposes of it.
 */
export async function revertFunction(request: RevertRequest): Promise<Revert> {
  const { head, since, fn } = request;
  const end = Math.max(fn.line, fn.endLine ?? fn.line);
  const diff = await treeGit(head, ['-c', 'core.quotePath=false', 'diff', '--no-color', '--no-ext-diff', '--no-textconv', '--unified=0', '--src-prefix=a/', '--dst-prefix=b/', since, '--', fn.file]);
  const part = partialPatch(diff, fn.line, end);
  if (part === null) return { ok: false, reason: `this PR changed no line of ${fn.name} (${fn.file}:${fn.line}–${end})` };
  const { root, gitDir, dispose } = await headWorktree(head, request.scratchDir);
  try {
    // Head's work tree may differ from its commit (uncommitted changes): its file as measured is the one reverted.
    cpSync(join(head.root, fn.file), join(root, fn.file));
    const patchFile = join(request.scratchDir, 'revert.patch');
    writeFileSync(patchFile, part.patch);
    try {
      await git(['apply', '-R', '--unidiff-zero', '--whitespace=nowarn', patchFile], root);
    } catch (e) {
      await dispose();
      return { ok: false, reason: `git apply -R of this PR's ${part.hunks} hunk(s) in ${fn.name} did not apply: ${(e as Error).message.split('\n').at(-1)}` };
    }
    copyModules(join(head.root, request.cwd), join(root, request.cwd));
    return { ok: true, tree: { ...head, root, gitDir }, file: fn.file, hunks: part.hunks, dispose };
  } catch (e) {
    await dispose();
    throw e;
  }
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
