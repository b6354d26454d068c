/**
 * The lines the pull request changed: head's tree against the merge-base of base and head, as
 * `git diff base...head` gives them, renames followed. Taken from head's worktree before
 * anything is installed or built in it, so its untracked files are the work tree's own (copied
 * by prepareTrees) and not install or build output.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseDiff } from '../../profile/changes.js';
import type { ChangeSet } from '../../results/types.js';
import { type Tree, treeGit } from './trees.js';

/** More files than this and the diff is not kept: a change that large names no function. */
const MAX_FILES = 10_000;
/** A file with more hunks than this (regenerated or minified code) is kept as one range from its first change to its last. */
const MAX_HUNKS = 1_000;

/** Lines in a text file (a last line without a newline counts). */
function lineCount(path: string): number {
  const text = readFileSync(path, 'utf8');
  if (text === '') return 0;
  let lines = 0;
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) === 10) lines++;
  return text.endsWith('\n') ? lines : lines + 1;
}

/**
 * What head changed against the merge-base of base and head. The action's base is the base
 * branch's tip, which may have moved on since the branch was made: diffing against it would
 * count base's newer commits as the PR's. Head's worktree holds its uncommitted changes (CLI,
 * dirty work tree), so its working tree, not its commit, is compared; its untracked files are
 * new in every line.
 */
export async function changedLines(base: Tree, head: Tree): Promise<ChangeSet | null> {
  const since = await treeGit(head, ['merge-base', base.sha, head.sha]).catch(() => base.sha);
  // Prefixes and renames spelled out: a user's diff.noprefix, diff.mnemonicPrefix or diff.renames would change the text.
  const text = await treeGit(head, ['-c', 'core.quotePath=false', 'diff', '--no-color', '--no-ext-diff', '--no-textconv', '-M', '--unified=0', '--src-prefix=a/', '--dst-prefix=b/', since, '--']);
  const files = parseDiff(text);
  const untracked = (await treeGit(head, ['ls-files', '--others', '--exclude-standard', '-z'])).split('\0').filter(Boolean);
  for (const file of untracked) {
    try {
      const lines = lineCount(join(head.root, file));
      files.push({ file, hunks: lines > 0 ? [[1, lines]] : [] });
    } catch {
      files.push({ file, hunks: [] });
    }
  }
  if (files.length > MAX_FILES) return null;
  for (const f of files) {
    if (f.hunks.length <= MAX_HUNKS) continue;
    const start = Math.min(...f.hunks.map(([at]) => at));
    const end = Math.max(...f.hunks.map(([at, count]) => at + Math.max(count, 1) - 1));
    f.hunks = [[start, end - start + 1]];
  }
  return { since, files };
}
