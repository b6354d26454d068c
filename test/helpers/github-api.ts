/**
 * A local stand-in for the GitHub REST API, speaking the endpoints perfgate uses the way GitHub
 * does: issue comments with real pagination (Link headers), labels, pull requests by head,
 * a workflow run's artifacts and their download redirect (to Azurite, through ArtifactBackend),
 * GET /user (403 for an installation token, as GitHub answers), comments with their author.
 * It records every request, enforces token permissions (a read-only token gets 403 on writes,
 * as a fork's does), refuses bodies over 65,536 characters, and can be told to answer the next
 * matching requests with a 502 or a rate limit first.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ArtifactBackend, StoredArtifact } from './artifact-service.js';

export const OWNER = 'acme';
export const REPO = 'shop';
/** GitHub's maximum comment body. */
const MAX_BODY = 65_536;

export type Permission = 'read' | 'write';

export interface RecordedRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  token: string | null;
  body: Record<string, unknown> | null;
  status: number;
}

export interface FakeComment {
  id: number;
  body: string;
  user: { login: string; type: 'User' | 'Bot' };
  created_at: string;
  updated_at: string;
  html_url: string;
}

export interface FakePullRequest {
  number: number;
  state: 'open' | 'closed';
  headSha: string;
  headRef: string;
  /** owner/name of the head repository (a fork's, for a fork PR). */
  headRepo: string;
}

export interface FakeJob {
  name: string;
  conclusion: 'success' | 'failure' | 'cancelled' | 'skipped' | null;
  steps: { name: string; conclusion: 'success' | 'failure' | 'cancelled' | 'skipped' | null }[];
}

/** A workflow run as GET /actions/runs/{id} describes it: what triggered it, at which commit, from which repository. */
export interface FakeRun {
  event: string;
  headSha: string;
  headBranch: string;
  /** owner/name whose code the run checked out (a fork's, for a fork PR). */
  headRepo: string;
  /** The workflow's file under .github/workflows (default perf.yml). */
  workflow?: string;
  /** When the run was created (default: when it was added to the fake's listing order, oldest first). */
  createdAt?: string;
  status?: 'completed' | 'in_progress';
  attempt?: number;
}

export interface FakeResponse {
  status: number;
  headers?: Record<string, string>;
  body?: unknown;
}

interface Fault {
  method: string;
  path: RegExp;
  responses: (FakeResponse | (() => FakeResponse))[];
}

const NOT_ACCESSIBLE = {
  message: 'Resource not accessible by integration',
  documentation_url: 'https://docs.github.com/rest/issues/comments#create-an-issue-comment',
  status: '403',
};

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

export class FakeGitHub {
  readonly requests: RecordedRequest[] = [];
  readonly comments = new Map<number, FakeComment[]>();
  readonly labels = new Map<number, string[]>();
  readonly pulls: FakePullRequest[] = [];
  /** pull request number → the paths it changes, as GET /pulls/{n}/files lists them (none by default). */
  readonly pullFiles = new Map<number, string[]>();
  /** run id → its jobs, as GET …/runs/{id}/attempts/{n}/jobs lists them (one attempt). */
  readonly jobs = new Map<number, FakeJob[]>();
  /** run id → the run, for GET …/actions/runs/{id} and the workflow_run of an artifact. */
  readonly runs = new Map<number, FakeRun>();
  /** The repository's default branch, as GET /repos/{owner}/{repo} answers. */
  defaultBranch = 'main';
  /** token → permission; any other token gets 401. */
  readonly tokens = new Map<string, Permission>([
    ['ghs_writeToken', 'write'],
    ['ghs_readOnlyForkToken', 'read'],
  ]);
  /** token → the user it belongs to (a personal token); the others are installation tokens, whose comments are the Actions bot's. */
  readonly users = new Map<string, string>();
  private readonly faults: Fault[] = [];
  private nextCommentId = 5_000_001;

  private constructor(
    private readonly server: Server,
    private readonly artifacts: ArtifactBackend | null,
  ) {}

  static async start(artifacts: ArtifactBackend | null = null): Promise<FakeGitHub> {
    const server = createServer();
    const fake = new FakeGitHub(server, artifacts);
    server.on('request', (req, res) => {
      fake.handle(req, res).catch((e) => fake.send(res, { status: 500, body: { message: String(e) } }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return fake;
  }

  /** GITHUB_API_URL. */
  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }

  /** `count` comments by other people on an issue, so perfgate's has to be paged to. */
  addComments(issue: number, count: number): void {
    for (let i = 0; i < count; i++) this.addComment(issue, `Comment ${i + 1}: looks good`, { login: `reviewer${i % 7}`, type: 'User' });
  }

  addComment(issue: number, body: string, user: FakeComment['user']): FakeComment {
    const now = new Date().toISOString();
    const comment: FakeComment = {
      id: this.nextCommentId++,
      body,
      user,
      created_at: now,
      updated_at: now,
      html_url: `https://github.com/${OWNER}/${REPO}/pull/${issue}#issuecomment-${this.nextCommentId - 1}`,
    };
    this.comments.set(issue, [...(this.comments.get(issue) ?? []), comment]);
    return comment;
  }

  /** Answers the next requests matching method and path with `responses`, in order, then normally again. */
  failNext(method: string, path: RegExp, ...responses: Fault['responses']): void {
    this.faults.push({ method, path, responses });
  }

  /** Requests that changed something (POST, PATCH, PUT, DELETE), answered or not. */
  writes(): RecordedRequest[] {
    return this.requests.filter((r) => r.method !== 'GET');
  }

  private send(res: ServerResponse, response: FakeResponse): void {
    const headers: Record<string, string> = {
      'content-type': 'application/json; charset=utf-8',
      'x-github-api-version-selected': '2022-11-28',
      'x-ratelimit-limit': '5000',
      'x-ratelimit-remaining': '4999',
      'x-ratelimit-reset': String(Math.floor(Date.now() / 1000) + 3600),
      ...response.headers,
    };
    res.writeHead(response.status, headers);
    res.end(response.body === undefined ? '' : JSON.stringify(response.body));
  }

  /** A page of `items` with GitHub's Link header (next, last, first, prev as they apply). */
  private page<T>(url: URL, items: T[], wrap: (slice: T[]) => unknown = (slice) => slice): FakeResponse {
    const perPage = Math.min(100, Number(url.searchParams.get('per_page') ?? 30));
    const page = Math.max(1, Number(url.searchParams.get('page') ?? 1));
    const last = Math.max(1, Math.ceil(items.length / perPage));
    const link = (n: number, rel: string) => {
      const target = new URL(url.pathname, this.url);
      for (const [k, v] of url.searchParams) target.searchParams.set(k, v);
      target.searchParams.set('per_page', String(perPage));
      target.searchParams.set('page', String(n));
      return `<${target.href}>; rel="${rel}"`;
    };
    const links = [];
    if (page > 1) links.push(link(page - 1, 'prev'));
    if (page < last) links.push(link(page + 1, 'next'), link(last, 'last'));
    if (page > 1) links.push(link(1, 'first'));
    return {
      status: 200,
      headers: links.length ? { link: links.join(', ') } : {},
      body: wrap(items.slice((page - 1) * perPage, page * perPage)),
    };
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', this.url);
    const method = req.method ?? 'GET';
    const text = await readBody(req);
    const body = text ? (JSON.parse(text) as Record<string, unknown>) : null;
    const token = /^(?:token|bearer) (.+)$/i.exec(req.headers.authorization ?? '')?.[1] ?? null;
    const record: RecordedRequest = { method, path: url.pathname, query: Object.fromEntries(url.searchParams), token, body, status: 0 };
    this.requests.push(record);
    const respond = (response: FakeResponse) => {
      record.status = response.status;
      this.send(res, response);
    };

    const fault = this.faults.find((f) => f.method === method && f.path.test(url.pathname) && f.responses.length > 0);
    if (fault) {
      const next = fault.responses.shift()!;
      return respond(typeof next === 'function' ? next() : next);
    }
    const permission = token === null ? undefined : this.tokens.get(token);
    if (permission === undefined) return respond({ status: 401, body: { message: 'Bad credentials', status: '401' } });
    if (method === 'GET' && url.pathname === '/user') {
      // An installation token (GITHUB_TOKEN) is not a user: GitHub answers 403.
      const login = this.users.get(token!);
      return respond(login ? { status: 200, body: { login, id: 9001, type: 'User' } } : { status: 403, body: NOT_ACCESSIBLE });
    }
    const repo = `/repos/${OWNER}/${REPO}`;
    if (method === 'GET' && url.pathname === repo) {
      return respond({ status: 200, body: { id: 4242, name: REPO, full_name: `${OWNER}/${REPO}`, private: true, default_branch: this.defaultBranch } });
    }
    if (!url.pathname.startsWith(`${repo}/`)) return respond({ status: 404, body: { message: 'Not Found', status: '404' } });
    const route = `${method} ${url.pathname.slice(repo.length)}`;
    for (const [pattern, handler] of this.routes(url, body, permission === 'write', token)) {
      const match = pattern.exec(route);
      if (match) return respond(handler(match.slice(1)));
    }
    return respond({ status: 404, body: { message: 'Not Found', documentation_url: 'https://docs.github.com/rest', status: '404' } });
  }

  /** The endpoints, as "METHOD /path-under-the-repo" patterns and handlers of their captures. */
  /** Who a token's comments are by: its user, or the Actions bot for an installation token. */
  private author(token: string | null): FakeComment['user'] {
    const login = token === null ? undefined : this.users.get(token);
    return login ? { login, type: 'User' } : { login: 'github-actions[bot]', type: 'Bot' };
  }

  private routes(url: URL, body: Record<string, unknown> | null, writeAllowed: boolean, token: string | null): [RegExp, (args: string[]) => FakeResponse][] {
    const notFound: FakeResponse = { status: 404, body: { message: 'Not Found', status: '404' } };
    const forbidden: FakeResponse = { status: 403, body: NOT_ACCESSIBLE };
    return [
      [/^GET \/issues\/(\d+)\/comments$/, ([issue]) => this.page(url, this.comments.get(Number(issue)) ?? [])],
      [
        /^POST \/issues\/(\d+)\/comments$/,
        ([issue]) => {
          if (!writeAllowed) return forbidden;
          return this.invalidBody(body) ?? { status: 201, body: this.addComment(Number(issue), String(body!.body), this.author(token)) };
        },
      ],
      [
        /^PATCH \/issues\/comments\/(\d+)$/,
        ([id]) => {
          if (!writeAllowed) return forbidden;
          const comment = [...this.comments.values()].flat().find((c) => c.id === Number(id));
          if (!comment) return notFound;
          const invalid = this.invalidBody(body);
          if (invalid) return invalid;
          comment.body = String(body!.body);
          comment.updated_at = new Date().toISOString();
          return { status: 200, body: comment };
        },
      ],
      // Writes perfgate's guard sends without a required field: GitHub answers 403 to a token
      // without the permission before it looks at the fields, and 422 to one with it.
      ...(
        [
          [/^POST \/git\/refs$/, ['ref', 'sha']],
          [/^POST \/pulls$/, ['head', 'base']],
          [/^POST \/issues$/, ['title']],
        ] as const
      ).map(([pattern, required]): [RegExp, () => FakeResponse] => [
        pattern,
        () => {
          if (!writeAllowed) return forbidden;
          const missing = required.filter((field) => body?.[field] === undefined);
          if (missing.length > 0) return { status: 422, body: { message: `Invalid request.\n\n${missing.map((f) => `"${f}"`).join(', ')} weren't supplied.`, status: '422' } };
          return { status: 501, body: { message: 'the fake creates nothing' } };
        },
      ]),
      [
        /^GET \/issues\/(\d+)\/labels$/,
        ([issue]) => this.page(url, (this.labels.get(Number(issue)) ?? []).map((name, i) => ({ id: 100 + i, name, color: 'ededed', default: false }))),
      ],
      [
        /^GET \/pulls$/,
        () => {
          const state = url.searchParams.get('state') ?? 'open';
          const head = url.searchParams.get('head');
          const list = this.pulls
            .filter((pr) => state === 'all' || pr.state === state)
            .filter((pr) => head === null || `${pr.headRepo.split('/')[0]}:${pr.headRef}` === head)
            .map((pr) => this.pullJson(pr));
          return this.page(url, list);
        },
      ],
      [
        /^GET \/actions\/runs\/(\d+)\/artifacts$/,
        ([runId]) => {
          const name = url.searchParams.get('name');
          const list = (this.artifacts?.artifactsOf(Number(runId)) ?? []).filter((a) => name === null || a.name === name);
          return this.page(url, list.map((a) => this.artifactJson(a)), (slice) => ({ total_count: list.length, artifacts: slice }));
        },
      ],
      [
        // Every finalized artifact of the repository, newest first, filtered by exact name as GitHub does.
        /^GET \/actions\/artifacts$/,
        () => {
          const name = url.searchParams.get('name');
          const list = (this.artifacts?.artifacts ?? [])
            .filter((a) => a.finalized && (name === null || a.name === name))
            .sort((a, b) => (a.createdAt < b.createdAt ? 1 : a.createdAt > b.createdAt ? -1 : b.id - a.id));
          return this.page(url, list.map((a) => this.artifactJson(a)), (slice) => ({ total_count: list.length, artifacts: slice }));
        },
      ],
      // A repository's or a workflow's runs, newest first, filtered by branch, event and status as GitHub does.
      [/^GET \/actions\/runs$/, () => this.runList(url, null)],
      [/^GET \/actions\/workflows\/([^/]+)\/runs$/, ([workflow]) => (this.workflowNames().has(workflow!) ? this.runList(url, workflow!) : notFound)],
      [
        /^GET \/actions\/runs\/(\d+)$/,
        ([runId]) => {
          const run = this.runs.get(Number(runId));
          if (!run) return notFound;
          return { status: 200, body: this.runJson(Number(runId), run, [...this.runs.keys()].indexOf(Number(runId))) };
        },
      ],
      [
        /^GET \/pulls\/(\d+)\/files$/,
        ([number]) => {
          const files = (this.pullFiles.get(Number(number)) ?? []).map((filename) => ({ filename, status: 'modified' }));
          return this.page(url, files, (slice) => slice);
        },
      ],
      [
        /^GET \/actions\/runs\/(\d+)\/attempts\/(\d+)\/jobs$/,
        ([runId]) => {
          const jobs = (this.jobs.get(Number(runId)) ?? []).map((job, i) => ({
            id: Number(runId) * 100 + i,
            run_id: Number(runId),
            name: job.name,
            status: 'completed',
            conclusion: job.conclusion,
            steps: job.steps.map((step, number) => ({ name: step.name, status: 'completed', conclusion: step.conclusion, number: number + 1 })),
          }));
          return this.page(url, jobs, (slice) => ({ total_count: jobs.length, jobs: slice }));
        },
      ],
      [
        /^GET \/actions\/artifacts\/(\d+)\/zip$/,
        ([id]) => {
          const artifact = this.artifacts?.artifacts.find((a) => a.id === Number(id) && a.finalized);
          if (artifact?.expired) return { status: 410, body: { message: 'Artifact has expired', status: '410' } };
          return artifact ? { status: 302, headers: { location: this.artifacts!.signedUrl(artifact) } } : notFound;
        },
      ],
    ];
  }

  private workflowNames(): Set<string> {
    return new Set([...this.runs.values()].map((r) => r.workflow ?? 'perf.yml'));
  }

  private runJson(id: number, run: FakeRun, order: number) {
    const workflow = run.workflow ?? 'perf.yml';
    return {
      id,
      name: workflow.replace(/\.ya?ml$/, ''),
      path: `.github/workflows/${workflow}`,
      event: run.event,
      head_sha: run.headSha,
      head_branch: run.headBranch,
      status: run.status ?? 'completed',
      conclusion: (run.status ?? 'completed') === 'completed' ? 'success' : null,
      run_attempt: run.attempt ?? 1,
      created_at: run.createdAt ?? new Date(Date.UTC(2026, 0, 1) + order * 60_000).toISOString(),
      head_repository: { full_name: run.headRepo },
      repository: { full_name: `${OWNER}/${REPO}` },
      pull_requests: [],
    };
  }

  private runList(url: URL, workflow: string | null): FakeResponse {
    const branch = url.searchParams.get('branch');
    const event = url.searchParams.get('event');
    const status = url.searchParams.get('status');
    const list = [...this.runs.entries()]
      .map(([id, run], order) => this.runJson(id, run, order))
      .filter((r) => workflow === null || r.path === `.github/workflows/${workflow}`)
      .filter((r) => (branch === null || r.head_branch === branch) && (event === null || r.event === event) && (status === null || r.status === status))
      .sort((a, b) => (a.created_at < b.created_at ? 1 : a.created_at > b.created_at ? -1 : b.id - a.id));
    return this.page(url, list, (slice) => ({ total_count: list.length, workflow_runs: slice }));
  }

  private artifactJson(a: StoredArtifact) {
    const repo = `${this.url}/repos/${OWNER}/${REPO}`;
    return {
      id: a.id,
      node_id: `MDg6QXJ0aWZhY3Q${a.id}`,
      name: a.name,
      size_in_bytes: a.size,
      url: `${repo}/actions/artifacts/${a.id}`,
      archive_download_url: `${repo}/actions/artifacts/${a.id}/zip`,
      expired: a.expired === true,
      digest: a.digest,
      created_at: a.createdAt,
      updated_at: a.createdAt,
      expires_at: '2099-01-01T00:00:00Z',
      workflow_run: { id: a.runId, ...(this.runs.has(a.runId) && { head_sha: this.runs.get(a.runId)!.headSha, head_branch: this.runs.get(a.runId)!.headBranch }) },
    };
  }

  private invalidBody(body: Record<string, unknown> | null): FakeResponse | null {
    if (typeof body?.body !== 'string') return { status: 422, body: { message: 'Invalid request.\n\n"body" wasn\'t supplied.', status: '422' } };
    if (body.body.length > MAX_BODY) {
      return {
        status: 422,
        body: {
          message: 'Validation Failed',
          errors: [{ resource: 'IssueComment', code: 'custom', field: 'body', message: `body is too long (maximum is ${MAX_BODY} characters)` }],
          status: '422',
        },
      };
    }
    return null;
  }

  private pullJson(pr: FakePullRequest) {
    const [headOwner] = pr.headRepo.split('/');
    return {
      number: pr.number,
      state: pr.state,
      title: `PR ${pr.number}`,
      head: { label: `${headOwner}:${pr.headRef}`, ref: pr.headRef, sha: pr.headSha, repo: { full_name: pr.headRepo, fork: pr.headRepo !== `${OWNER}/${REPO}` } },
      base: { label: `${OWNER}:main`, ref: 'main', sha: 'b'.repeat(40), repo: { full_name: `${OWNER}/${REPO}` } },
    };
  }
}

/** A rate-limited answer as GitHub gives it: 403, remaining 0, the reset one second ahead. */
export function rateLimited(): FakeResponse {
  return {
    status: 403,
    headers: { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(Math.ceil(Date.now() / 1000) + 1) },
    body: { message: 'API rate limit exceeded for installation ID 4242.', documentation_url: 'https://docs.github.com/rest/overview/rate-limits-for-the-rest-api', status: '403' },
  };
}

export const BAD_GATEWAY: FakeResponse = { status: 502, body: { message: 'Server Error' } };
