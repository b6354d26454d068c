/**
 * Webhook payloads shaped like the ones GitHub writes to GITHUB_EVENT_PATH (trimmed to the
 * fields a reader could plausibly use, with GitHub's names and nesting).
 */
import { OWNER, REPO } from './github-api.js';

const BASE_REPO = {
  id: 1296269,
  node_id: 'MDEwOlJlcG9zaXRvcnkxMjk2MjY5',
  name: REPO,
  full_name: `${OWNER}/${REPO}`,
  private: false,
  fork: false,
  owner: { login: OWNER, id: 1, type: 'Organization' },
  html_url: `https://github.com/${OWNER}/${REPO}`,
  url: `https://api.github.com/repos/${OWNER}/${REPO}`,
  default_branch: 'main',
};

function repoFor(fullName: string) {
  if (fullName === BASE_REPO.full_name) return BASE_REPO;
  const [owner, name] = fullName.split('/');
  return {
    ...BASE_REPO,
    id: 7777777,
    name,
    full_name: fullName,
    fork: true,
    owner: { login: owner, id: 77, type: 'User' },
    html_url: `https://github.com/${fullName}`,
    url: `https://api.github.com/repos/${fullName}`,
  };
}

export interface PullRequestSpec {
  number: number;
  baseSha: string;
  headSha: string;
  baseRef?: string;
  headRef?: string;
  /** owner/name of the head repository; a different one than acme/shop makes a fork PR. */
  headRepo?: string;
  labels?: string[];
  action?: string;
}

export function pullRequestEvent(spec: PullRequestSpec) {
  const headRepo = repoFor(spec.headRepo ?? BASE_REPO.full_name);
  const headRef = spec.headRef ?? 'feature';
  return {
    action: spec.action ?? 'synchronize',
    number: spec.number,
    pull_request: {
      url: `${BASE_REPO.url}/pulls/${spec.number}`,
      id: 279147437 + spec.number,
      html_url: `${BASE_REPO.html_url}/pull/${spec.number}`,
      number: spec.number,
      state: 'open',
      locked: false,
      title: 'Make it faster (or not)',
      user: { login: headRepo.owner.login, id: 77, type: 'User' },
      body: null,
      labels: (spec.labels ?? []).map((name, i) => ({ id: 208045946 + i, name, color: 'f29513', default: false })),
      draft: false,
      head: { label: `${headRepo.owner.login}:${headRef}`, ref: headRef, sha: spec.headSha, user: headRepo.owner, repo: headRepo },
      base: { label: `${OWNER}:${spec.baseRef ?? 'main'}`, ref: spec.baseRef ?? 'main', sha: spec.baseSha, user: BASE_REPO.owner, repo: BASE_REPO },
      author_association: headRepo === BASE_REPO ? 'MEMBER' : 'FIRST_TIME_CONTRIBUTOR',
    },
    repository: BASE_REPO,
    sender: { login: headRepo.owner.login, id: 77, type: 'User' },
  };
}

export function pushEvent(before: string, after: string, ref = 'refs/heads/main') {
  return {
    ref,
    before,
    after,
    created: false,
    deleted: false,
    forced: false,
    base_ref: null,
    compare: `${BASE_REPO.html_url}/compare/${before.slice(0, 12)}...${after.slice(0, 12)}`,
    commits: [{ id: after, message: 'Speed up the handler', author: { name: 'Dev', email: 'dev@example.com' } }],
    head_commit: { id: after, message: 'Speed up the handler' },
    repository: BASE_REPO,
    pusher: { name: 'dev', email: 'dev@example.com' },
    sender: { login: 'dev', id: 2, type: 'User' },
  };
}

export interface WorkflowRunSpec {
  runId: number;
  attempt?: number;
  /** The measuring run's event. */
  event: string;
  headSha: string;
  headBranch: string;
  headRepo?: string;
  /** What GitHub lists on the run: the same-repository pull requests (none for a fork). */
  pullRequests?: { number: number; headSha: string; headRef: string; baseSha: string }[];
  conclusion?: 'success' | 'failure';
}

export function workflowRunEvent(spec: WorkflowRunSpec) {
  const headRepo = repoFor(spec.headRepo ?? BASE_REPO.full_name);
  return {
    action: 'completed',
    workflow_run: {
      id: spec.runId,
      name: 'perf',
      node_id: 'WFR_kwLOAAAB',
      head_branch: spec.headBranch,
      head_sha: spec.headSha,
      path: '.github/workflows/perf.yml',
      display_title: 'Make it faster (or not)',
      run_number: 17,
      event: spec.event,
      status: 'completed',
      conclusion: spec.conclusion ?? 'success',
      workflow_id: 161335,
      url: `${BASE_REPO.url}/actions/runs/${spec.runId}`,
      html_url: `${BASE_REPO.html_url}/actions/runs/${spec.runId}`,
      pull_requests: (spec.pullRequests ?? []).map((pr) => ({
        url: `${BASE_REPO.url}/pulls/${pr.number}`,
        id: 279147437 + pr.number,
        number: pr.number,
        head: { ref: pr.headRef, sha: pr.headSha, repo: { id: BASE_REPO.id, url: BASE_REPO.url, name: REPO } },
        base: { ref: 'main', sha: pr.baseSha, repo: { id: BASE_REPO.id, url: BASE_REPO.url, name: REPO } },
      })),
      run_attempt: spec.attempt ?? 1,
      run_started_at: '2026-11-22T10:00:00Z',
      artifacts_url: `${BASE_REPO.url}/actions/runs/${spec.runId}/artifacts`,
      repository: BASE_REPO,
      head_repository: headRepo,
    },
    workflow: { id: 161335, name: 'perf', path: '.github/workflows/perf.yml' },
    repository: BASE_REPO,
    sender: { login: headRepo.owner.login, id: 77, type: 'User' },
  };
}
