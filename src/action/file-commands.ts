/**
 * The runner's file commands (GITHUB_OUTPUT, GITHUB_STATE, GITHUB_ENV, GITHUB_PATH,
 * GITHUB_STEP_SUMMARY) are files under RUNNER_TEMP that the PR's code, running as the same user,
 * can find and append to even without their variables: a forged `decision=pass` output, a
 * post-step state, a NODE_OPTIONS for later steps. A process of the PR's can outlive the
 * measurement, so perfgate takes their content before the PR's code runs, keeps what it writes
 * itself in memory, and only at the very end of the step writes each file back as it was plus
 * perfgate's own lines. Each file is replaced, not rewritten in place: a process that still holds
 * the old one open writes into a file the runner no longer reads.
 */
import * as core from '@actions/core';
import { randomUUID } from 'node:crypto';
import { appendFileSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { EOL } from 'node:os';

export const FILE_COMMANDS = ['GITHUB_OUTPUT', 'GITHUB_STATE', 'GITHUB_ENV', 'GITHUB_PATH', 'GITHUB_STEP_SUMMARY'] as const;

export type FileCommandSnapshot = { name: string; path: string; content: Buffer }[];

/** Where publish writes the step's outputs and summary. */
export interface StepFiles {
  setOutput(name: string, value: string): void;
  appendSummary(text: string): Promise<void>;
}

/** Straight to the runner's files, through the toolkit: for a step that runs no PR code. */
export const directStepFiles: StepFiles = {
  setOutput: (name, value) => core.setOutput(name, value),
  appendSummary: async (text) => {
    await core.summary.addRaw(text).write();
  },
};

export function snapshotFileCommands(env: Record<string, string | undefined>): FileCommandSnapshot {
  return FILE_COMMANDS.flatMap((name) => {
    const path = env[name];
    if (!path) return [];
    try {
      return [{ name, path, content: readFileSync(path) }];
    } catch {
      return [];
    }
  });
}

/** A file command's `name<<delimiter` form, as the toolkit writes it (a random delimiter no value holds). */
function keyValueLine(name: string, value: string): string {
  let delimiter = `ghadelimiter_${randomUUID()}`;
  while (value.includes(delimiter)) delimiter = `ghadelimiter_${randomUUID()}`;
  return `${name}<<${delimiter}${EOL}${value}${EOL}${delimiter}${EOL}`;
}

/** Replaces `path` by a new file holding `content`. */
function replaceFile(path: string, content: Buffer): void {
  try {
    rmSync(path, { force: true });
    writeFileSync(path, content, { flag: 'wx', mode: 0o644 });
  } catch {
    // Someone created it again between the two calls, or the directory refuses removal: overwrite.
    writeFileSync(path, content);
  }
}

/**
 * The file commands of a step that runs PR code: their content before it ran, and perfgate's
 * own outputs and summary, held in memory until seal() writes both.
 */
export class FileCommandLedger implements StepFiles {
  private readonly own = new Map<string, string>();
  private sealed = false;

  constructor(private readonly snapshot: FileCommandSnapshot) {}

  /** False when the runner gave no such file (then the toolkit's fallback applies). */
  private append(name: (typeof FILE_COMMANDS)[number], text: string): boolean {
    const file = this.snapshot.find((s) => s.name === name);
    if (!file) return false;
    if (this.sealed) appendFileSync(file.path, text);
    else this.own.set(name, (this.own.get(name) ?? '') + text);
    return true;
  }

  setOutput(name: string, value: string): void {
    if (!this.append('GITHUB_OUTPUT', keyValueLine(name, value))) core.setOutput(name, value);
  }

  async appendSummary(text: string): Promise<void> {
    if (!this.append('GITHUB_STEP_SUMMARY', text)) await directStepFiles.appendSummary(text);
  }

  /**
   * Writes every file back as it was before the PR's code ran, followed by perfgate's own lines.
   * Returns the names of the files the PR's code had changed. Later writes go straight to the files.
   */
  seal(): string[] {
    const changed: string[] = [];
    for (const { name, path, content } of this.snapshot) {
      let now: Buffer | null = null;
      try {
        now = readFileSync(path);
      } catch {
        // removed: written back below
      }
      if (!now?.equals(content)) changed.push(name);
      const own = this.own.get(name);
      if (now?.equals(content) && own === undefined) continue;
      replaceFile(path, own === undefined ? content : Buffer.concat([content, Buffer.from(own, 'utf8')]));
    }
    this.sealed = true;
    return changed;
  }
}
