/**
 * Workflow-run artifacts through the toolkit (@actions/artifact: the results service at
 * ACTIONS_RESULTS_URL, blob storage at the signed URLs it hands out); listing another run's
 * artifacts through the REST API, for the fork-safe report workflow, is in run-artifacts.ts.
 */
import { DefaultArtifactClient } from '@actions/artifact';
import { readdirSync, readFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import type { Repo } from './event.js';
import { ArtifactError, extractZipFile, type RunArtifact } from './run-artifacts.js';

// The REST half lives in run-artifacts.ts, without the toolkit, so the CLI does not bundle it.
export { ArtifactError, artifactPrefix, listRunArtifacts, type RunArtifact } from './run-artifacts.js';

/** The page of an artifact on github.com: a single un-zipped file opens in the browser from there. */
export function artifactUrl(serverUrl: string, repo: Repo, runId: string | number, artifactId: number): string {
  const path = [repo.owner, repo.repo, 'actions', 'runs', String(runId), 'artifacts', String(artifactId)].map(encodeURIComponent);
  return `${serverUrl.replace(/\/+$/, '')}/${path.join('/')}`;
}

/** Why artifacts cannot be uploaded here, or null when they can (the runner provides both variables). */
export function uploadUnavailable(env: Record<string, string | undefined>): string | null {
  const missing = ['ACTIONS_RUNTIME_TOKEN', 'ACTIONS_RESULTS_URL'].filter((name) => !env[name]);
  return missing.length === 0 ? null : `${missing.join(' and ')} not set (not running as a step on a GitHub runner)`;
}

/** One file as an artifact of its own, not zipped, named after the file: its link shows it in the browser. */
export async function uploadFile(path: string): Promise<RunArtifact> {
  const response = await new DefaultArtifactClient().uploadArtifact(basename(path), [path], dirname(path), { skipArchive: true });
  return uploaded(basename(path), response);
}

/** Files under `root` as one zip artifact. */
export async function uploadArchive(name: string, files: string[], root: string): Promise<RunArtifact> {
  const response = await new DefaultArtifactClient().uploadArtifact(name, files, root);
  return uploaded(name, response);
}

function uploaded(name: string, response: { id?: number; size?: number; digest?: string }): RunArtifact {
  if (typeof response.id !== 'number') throw new ArtifactError(`The artifact service did not return an id for ${name}.`);
  return { id: response.id, name, sizeBytes: response.size ?? 0, digest: response.digest ? `sha256:${response.digest}` : null };
}

/**
 * Downloads another run's artifact into `dir` as its zip archive (not unpacked: the toolkit's
 * unzip has no size limit), checking the bytes against the digest GitHub recorded at upload,
 * so what is read is what the measuring run uploaded. Returns the archive's path.
 */
export async function downloadRunArtifact(token: string, repo: Repo, runId: number, artifact: RunArtifact, dir: string): Promise<string> {
  const { digestMismatch } = await new DefaultArtifactClient().downloadArtifact(artifact.id, {
    path: dir,
    skipDecompress: true,
    ...(artifact.digest && { expectedHash: artifact.digest }),
    findBy: { token, workflowRunId: runId, repositoryOwner: repo.owner, repositoryName: repo.repo },
  });
  if (digestMismatch) {
    throw new ArtifactError(`Artifact ${artifact.name} of run ${runId} does not match the digest recorded at upload: refusing to read it.`);
  }
  const files = readdirSync(dir);
  if (files.length !== 1) throw new ArtifactError(`Artifact ${artifact.name} of run ${runId} downloaded as ${files.length} files, not one archive.`);
  return join(dir, files[0]!);
}

/**
 * One file of a downloaded artifact archive, unpacked to at most `maxBytes` (an archive from a
 * job that ran PR code may inflate to far more than it claims).
 */
export function extractArtifactFile(archive: string, name: string, maxBytes: number, what: string): Buffer {
  try {
    return extractZipFile(readFileSync(archive), name, maxBytes, what);
  } catch (e) {
    const message = e instanceof ArtifactError ? e.message : `Cannot read ${what}: ${(e as Error).message}`;
    throw new ArtifactError(`${message}. Refusing to report it.`);
  }
}
