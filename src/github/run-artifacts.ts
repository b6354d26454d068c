/**
 * Another run's artifacts through the REST API alone: their names, listing them, and fetching
 * one's zip archive. Kept apart from the upload toolkit (artifacts.ts) so that the CLI, which
 * reads artifacts but never uploads one, does not bundle it.
 */
import { getProxyUrl } from '@actions/http-client/lib/proxy';
import { createHash } from 'node:crypto';
import { type Dispatcher, fetch, ProxyAgent } from 'undici';
import type { GitHubClient } from './client.js';
import type { Repo } from './event.js';
import { listZip, readZipEntry, ZipError } from './zip.js';

export interface RunArtifact {
  id: number;
  name: string;
  sizeBytes: number;
  /** "sha256:…" as recorded at upload, when GitHub has one. */
  digest: string | null;
}

/** A listed artifact with what the listing says about its age. */
export interface ListedArtifact extends RunArtifact {
  expired: boolean;
  createdAt: string;
}

export class ArtifactError extends Error {}

/**
 * The prefix of one gate's artifact names in one run attempt. Names are unique per workflow run,
 * so a re-run attempt gets its own names instead of failing with 409 Conflict.
 */
export function artifactPrefix(id: string, attempt: number, shard?: { index: number; count: number }): string {
  // A matrix shard's artifacts carry i-of-n: the shards of one run upload side by side (merge-mode.ts).
  const name = shard ? `perfgate-${id}-shard${shard.index}of${shard.count}` : `perfgate-${id}`;
  return attempt > 1 ? `${name}-attempt${attempt}` : name;
}

/** Every unexpired artifact of a workflow run (needs `actions: read` on a run of another workflow). */
export async function listRunArtifacts(client: GitHubClient, repo: Repo, runId: number): Promise<RunArtifact[]> {
  return (await listRunArtifactsWithExpired(client, repo, runId)).filter((a) => !a.expired).map(({ id, name, sizeBytes, digest }) => ({ id, name, sizeBytes, digest }));
}

/** Every artifact of a workflow run, expired ones included, so a reader can say why it skipped one. */
export async function listRunArtifactsWithExpired(client: GitHubClient, repo: Repo, runId: number): Promise<ListedArtifact[]> {
  const artifacts = await client.paginate(client.rest.actions.listWorkflowRunArtifacts, { ...repo, run_id: runId, per_page: 100 });
  return artifacts.map((a) => ({
    id: a.id,
    name: a.name,
    sizeBytes: a.size_in_bytes,
    digest: (a as { digest?: string | null }).digest ?? null,
    expired: a.expired,
    createdAt: a.created_at ?? '',
  }));
}

/**
 * The proxy the environment names for `url` (https_proxy, http_proxy, no_proxy), read as the
 * toolkit's HTTP client reads it for the API calls (loopback never proxied), so that a runner
 * behind a proxy reaches blob storage the way it reaches the API. Node's own fetch ignores them.
 */
function proxyFor(url: string): Dispatcher | undefined {
  const proxy = getProxyUrl(new URL(url));
  return proxy ? new ProxyAgent(proxy.href) : undefined;
}

/**
 * An artifact's zip archive, in memory: GitHub answers the download with a redirect to blob
 * storage, which is fetched without the token, read to at most `maxBytes` whatever the artifact
 * claims, and checked against the digest GitHub recorded at upload (when it has one), so what
 * is read is what the run uploaded.
 */
export async function fetchArtifactZip(client: GitHubClient, repo: Repo, artifact: RunArtifact, maxBytes: number, what: string): Promise<Buffer> {
  const redirect = await client.rest.actions.downloadArtifact({ ...repo, artifact_id: artifact.id, archive_format: 'zip', request: { redirect: 'manual' } });
  const location = (redirect.headers as Record<string, string | undefined>).location;
  if (!location) throw new ArtifactError(`GitHub did not redirect the download of ${what} (status ${redirect.status})`);
  const response = await fetch(location, { dispatcher: proxyFor(location) });
  if (response.status !== 200 || !response.body) {
    throw new ArtifactError(`blob storage answered the download of ${what} with ${response.status} ${response.statusText}`);
  }
  const hash = createHash('sha256');
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of response.body) {
    size += chunk.length;
    if (size > maxBytes) {
      await response.body.cancel().catch(() => {});
      throw new ArtifactError(`${what} is more than ${maxBytes} bytes, more than a results artifact can be`);
    }
    hash.update(chunk);
    chunks.push(Buffer.from(chunk));
  }
  const digest = `sha256:${hash.digest('hex')}`;
  if (artifact.digest && artifact.digest !== digest) {
    throw new ArtifactError(`${what} does not match the digest recorded at upload (${artifact.digest}, its bytes give ${digest}): it was changed after the run uploaded it`);
  }
  return Buffer.concat(chunks);
}

/**
 * One file of an artifact's zip archive, unpacked to at most `maxBytes` (an archive from a job
 * that ran PR code may inflate to far more than it claims).
 */
export function extractZipFile(zip: Buffer, name: string, maxBytes: number, what: string): Buffer {
  try {
    const entry = listZip(zip).find((e) => e.name === name);
    if (!entry) throw new ZipError(`it has no ${name}`);
    return readZipEntry(zip, entry, maxBytes);
  } catch (e) {
    throw new ArtifactError(`Cannot read ${what}: ${(e as Error).message}`);
  }
}
