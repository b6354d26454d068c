/**
 * The recommended pull-request workflow written out, as `perfgate init` writes it: a measuring
 * job that holds no write token, and a comment job in report mode that runs no PR code.
 * example-workflows/perf.yml is the same workflow (test/unit/init.test.ts keeps the two in step);
 * .github/workflows/gate.yml is its reusable form, which the README's first workflow calls.
 */
import { DATABASE_NAMES, type DatabaseFacts, type DatabaseKind } from './detect.js';

/** The action's one canonical reference (package.json's repository is github.com/perfgate/perfgate). */
export const ACTION_REPOSITORY = 'perfgate/perfgate';
export const ACTION_MAJOR = 'v1';
export const ACTION_REF = `${ACTION_REPOSITORY}@${ACTION_MAJOR}`;
/** How the write-token job's reference is pinned: the release's full commit sha, the tag as a comment. */
export const PINNED_ACTION_REF = `${ACTION_REPOSITORY}@<full commit sha> # ${ACTION_MAJOR}`;

/** A database server as a service container of the measuring job, and what the job's steps are told to find it. */
interface DatabaseContainer {
  container: string[];
  env: string[];
}

const CONTAINERS: Record<DatabaseKind, DatabaseContainer> = {
  postgres: {
    container: [
      '      postgres:',
      '        image: postgres:16',
      '        env:',
      '          POSTGRES_PASSWORD: perfgate # a throwaway container\'s password, not a secret',
      "        ports: ['5432:5432']",
      '        options: >-',
      '          --health-cmd "pg_isready -U postgres"',
      ...healthTiming(),
    ],
    // pg, pg-promise and postgres read the PG* variables; many configurations read DATABASE_URL
    env: ['PGHOST: 127.0.0.1', 'PGPORT: 5432', 'PGUSER: postgres', 'PGPASSWORD: perfgate', 'DATABASE_URL: postgres://postgres:perfgate@127.0.0.1:5432/postgres'],
  },
  mysql: {
    container: [
      '      mysql:',
      '        image: mysql:8.4',
      '        env:',
      '          MYSQL_ROOT_PASSWORD: perfgate # a throwaway container\'s password, not a secret',
      "        ports: ['3306:3306']",
      '        options: >-',
      '          --health-cmd "mysqladmin ping -h 127.0.0.1 -uroot -pperfgate"',
      ...healthTiming(),
    ],
    // mysql and mysql2 read no variable of their own: the service passes these to its connection
    env: ['MYSQL_HOST: 127.0.0.1', 'MYSQL_PORT: 3306', 'MYSQL_USER: root', 'MYSQL_PASSWORD: perfgate', 'DATABASE_URL: mysql://root:perfgate@127.0.0.1:3306/mysql'],
  },
  mongodb: {
    container: [
      '      mongodb:',
      '        image: mongo:7',
      "        ports: ['27017:27017']",
      '        options: >-',
      '          --health-cmd "mongosh --quiet --eval \'db.adminCommand({ ping: 1 })\'"',
      ...healthTiming(),
    ],
    env: ['MONGODB_URI: mongodb://127.0.0.1:27017'],
  },
  redis: {
    container: ['      redis:', '        image: redis:7', "        ports: ['6379:6379']", '        options: >-', '          --health-cmd "redis-cli ping"', ...healthTiming()],
    env: ['REDIS_URL: redis://127.0.0.1:6379'],
  },
};

/** The job's variables for these servers; a name two of them use (DATABASE_URL) goes to the first. */
function envLines(kinds: DatabaseKind[]): string[] {
  const seen = new Set<string>();
  const lines: string[] = [];
  for (const entry of kinds.flatMap((kind) => CONTAINERS[kind].env)) {
    const key = entry.slice(0, entry.indexOf(':'));
    if (!seen.has(key)) lines.push(`      ${entry}`);
    seen.add(key);
  }
  return lines;
}

function healthTiming(): string[] {
  return ['          --health-interval 2s', '          --health-timeout 5s', '          --health-retries 30'];
}

/**
 * The measuring job's service containers and environment for the databases package.json's
 * drivers talk to (the shape of example-workflows/perf-postgres.yml), or a comment pointing there
 * when only an ORM says a database is used.
 */
function databaseLines(databases: DatabaseFacts | undefined): string[] {
  if (!databases) return [];
  const lines: string[] = [];
  if (databases.servers.length > 0) {
    const found = databases.servers.map((s) => `${s.drivers.join(', ')} (${DATABASE_NAMES[s.kind]})`).join('; ');
    lines.push(
      `    # package.json's ${found}: the database runs beside the job, and every command perfgate runs`,
      '    # (install, setup, the service) gets the variables below: rename them to what the service reads.',
      '    # Give each side its own database with service.setup in perfgate.yml (docs/databases.md).',
      '    services:',
      ...databases.servers.flatMap((s) => CONTAINERS[s.kind].container),
      '    env:',
      ...envLines(databases.servers.map((s) => s.kind)),
    );
  }
  if (databases.unknown.length > 0) {
    lines.push(
      `    # package.json has ${databases.unknown.join(', ')} but no driver init knows: add the database your service uses`,
      '    # as a service container here, with its environment; example-workflows/perf-postgres.yml shows how (docs/databases.md).',
    );
  }
  return lines;
}

export interface WorkflowOptions {
  /** Steps' package manager: pnpm and yarn are enabled through corepack (npm comes with Node). */
  packageManager?: 'npm' | 'pnpm' | 'yarn' | null;
  /** .nvmrc or .node-version, relative to the repository root; null: Node 24. */
  nodeVersionFile?: string | null;
  /** Settings as action inputs, for a repository without perfgate.yml (the README's snippet). */
  inputs?: { start: string; scenarios: string };
  /** The measuring job's time limit, minutes. */
  timeoutMinutes?: number;
  /** The databases package.json's drivers talk to: service containers for the measuring job. */
  databases?: DatabaseFacts;
}

export const DEFAULT_TIMEOUT_MINUTES = 30;

export function renderWorkflow(options: WorkflowOptions = {}): string {
  const node = options.nodeVersionFile ? `{ node-version-file: ${options.nodeVersionFile} }` : '{ node-version: 24 }';
  const corepack =
    options.packageManager === 'pnpm' || options.packageManager === 'yarn'
      ? [`      - run: corepack enable # ${options.packageManager}, the version package.json's packageManager names`]
      : [];
  const inputs = options.inputs
    ? [`          start: ${options.inputs.start} # or a perfgate.yml at the repository root`, `          scenarios: ${options.inputs.scenarios}`]
    : [];
  return `${[
    `# perf: the A/B performance gate (https://github.com/perfgate/perfgate).${options.inputs ? '' : ' Settings: perfgate.yml.'}`,
    "# - measure runs the pull request's code with a read-only token and no persisted git credential,",
    '#   fails the check on a regression and uploads the results artifact.',
    '# - comment runs no PR code (no checkout), holds the write token, and comments from the artifact.',
    '#   Pull requests from forks get a read-only token even there: add example-workflows/perf-comment.yml.',
    'name: perf',
    'on:',
    '  pull_request:',
    "    # labeled/unlabeled: adding the accept label re-runs the gate (see measure's `if`).",
    '    types: [opened, synchronize, reopened, labeled, unlabeled]',
    'permissions: {} # each job asks for what it needs',
    'jobs:',
    '  measure:',
    '    # Only the accept label is worth a new measurement, not every label.',
    "    if: (github.event.action != 'labeled' && github.event.action != 'unlabeled') || github.event.label.name == 'perf-regression-accepted'",
    '    runs-on: ubuntu-latest',
    `    timeout-minutes: ${options.timeoutMinutes ?? DEFAULT_TIMEOUT_MINUTES}`,
    '    permissions:',
    '      contents: read',
    '    # At job level: a skipped run (an unrelated label) never cancels the measurement in flight;',
    '    # a new push does.',
    '    concurrency:',
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a GitHub Actions expression, written as is
    '      group: perf-measure-${{ github.event.pull_request.number }}',
    '      cancel-in-progress: true',
    '    outputs:',
    "      # sha256 of the results.json perfgate uploaded: the comment job refuses any other.",
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a GitHub Actions expression, written as is
    '      results-digest: ${{ steps.perfgate.outputs.results-digest }}',
    ...databaseLines(options.databases),
    '    steps:',
    '      - uses: actions/checkout@v6',
    '        with:',
    '          fetch-depth: 0 # base and head are both needed',
    "          persist-credentials: false # no token in .git/config for the PR's code (perfgate refuses otherwise)",
    '      - uses: actions/setup-node@v6',
    `        with: ${node}`,
    ...corepack,
    `      - uses: ${ACTION_REF}`,
    '        id: perfgate',
    '        with:',
    ...inputs,
    '          comment: never # the comment job posts it',
    '  comment:',
    '    needs: measure',
    '    # Same-repository pull requests; forks get their comment from perf-comment.yml.',
    "    if: always() && needs.measure.result != 'skipped' && needs.measure.result != 'cancelled' && github.event.pull_request.head.repo.full_name == github.repository",
    '    runs-on: ubuntu-latest',
    '    timeout-minutes: 10',
    '    permissions:',
    '      actions: read # the results artifact of this run',
    '      pull-requests: write # the sticky comment',
    '    concurrency:',
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a GitHub Actions expression, written as is
    '      group: perf-comment-${{ github.event.pull_request.number }}',
    '      cancel-in-progress: false',
    '    steps:',
    '      # No checkout: nothing from the pull request runs next to the write token. Pin this step by',
    `      # the release's full commit sha so a moved tag cannot change what runs with it: ${PINNED_ACTION_REF}`,
    `      - uses: ${ACTION_REF}`,
    '        with:',
    '          mode: report',
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a GitHub Actions expression, written as is
    '          results-digest: ${{ needs.measure.outputs.results-digest }}',
  ].join('\n')}\n`;
}
