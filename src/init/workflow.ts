/**
 * The recommended pull-request workflow written out, as `perfgate init` writes it: a measuring
 * job that holds no write token, and a comment job in report mode that runs no PR code.
 * example-workflows/perf.yml is the same workflow (test/unit/init.test.ts keeps the two in step);
 * .github/workflows/gate.yml is its reusable form, which the README's first workflow calls.
 */

/** The action's one canonical reference (package.json's repository is github.com/perfgate/perfgate). */
export const ACTION_REPOSITORY = 'perfgate/perfgate';
export const ACTION_MAJOR = 'v1';
export const ACTION_REF = `${ACTION_REPOSITORY}@${ACTION_MAJOR}`;
/** How the write-token job's reference is pinned: the release's full commit sha, the tag as a comment. */
export const PINNED_ACTION_REF = `${ACTION_REPOSITORY}@<full commit sha> # ${ACTION_MAJOR}`;

export interface WorkflowOptions {
  /** Steps' package manager: pnpm and yarn are enabled through corepack (npm comes with Node). */
  packageManager?: 'npm' | 'pnpm' | 'yarn' | null;
  /** .nvmrc or .node-version, relative to the repository root; null: Node 24. */
  nodeVersionFile?: string | null;
  /** Settings as action inputs, for a repository without perfgate.yml (the README's snippet). */
  inputs?: { start: string; scenarios: string };
  /** The measuring job's time limit, minutes. */
  timeoutMinutes?: number;
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
