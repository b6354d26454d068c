/**
 * Every warning code perfgate writes, with what it means: the engine records some while it runs
 * (results.warnings), the gate derives the rest from the data (src/assess/warnings.ts). A code is a
 * stable key for scripts (verdicts.json, the action's annotations); the message is for people.
 */
export const WARNING_CODES = {
  // recorded while running (src/engine/)
  'not-production': "service.env sets NODE_ENV to something other than production",
  'not-pinned': 'load.pin is on, but the load generator and the services could not be given CPUs of their own',
  'profile-failed': "a scenario's profiling phase failed (the verdicts do not depend on it)",
  'benchmark-file-dropped': 'a benchmark file failed in several rounds in a row and was not run again',
  'benchmark-glob-unmatched': 'one of several benchmarks globs matches no file in base or head',
  'config-changed': "the pull request changes perfgate's configuration: base ran with its own service commands, and the report shows what changed",
  'base-config-unusable': "base's configuration could not be used (unreadable, or no file and the flags or inputs give base no service to start), so base's service ran with head's commands",
  'noisy-service': "a service printed more at a start than its log keeps (the first 64 KiB and the last 192 KiB): the rest was counted and left out, and printing under load is measured work",
  'lockfile-not-read': 'the pull request changes the lockfile (npm, pnpm or yarn), but perfgate could not read it, so CPU time is not attributed to the packages it upgraded',
  // recorded for the run environment (src/compare/environment.ts), by the action and the CLI alike
  'no-boundary': "the pull request's code ran without a boundary: a process it left outside its group could outlive the step",
  'no-head-user': "the pull request's code ran as perfgate's own user (no separate user could be made): it could reach perfgate's process, the runner's files and base's",
  // recorded by the action (src/action/)
  'pr-workflow': "the measurement ran under the pull request's own workflow (a fork's run, or a pull request that changes .github/workflows/): its numbers are the pull request's own claim",
  'own-files-changed': "a process of the run changed perfgate's own files (the action's dist/, action.yml, package.json); perfgate put back the bytes it read at the start",
  // derived by the gate (src/assess/warnings.ts, src/assess/compare.ts)
  'stored-baseline': 'head was compared with a stored baseline measured in another run (unpaired): wider intervals, and an offset between the runs is not in them',
  incomplete: 'the run did not finish; verdicts use the pairs measured before it stopped',
  'few-pairs': 'too few pairs for a reliable verdict',
  'few-starts': 'too few start pairs for a reliable verdict',
  'non-2xx': 'a side answered some requests with a non-2xx status',
  'request-errors': 'a side had connection errors or timeouts',
  underpowered: 'no change could reach significance with this many units and gated comparisons',
  'starts-disagree': "the start pairs' own changes spread wider than the limit",
  inconclusive: 'a gated comparison is inconclusive',
  'benchmark-budget': 'the micro-benchmarks stopped at their time budget',
  'benchmark-failed': 'a benchmark file failed on a side',
  'few-rounds': 'too few micro-benchmark rounds for a reliable verdict',
  'load-generator-bound': 'throughput measured the load generator, not the service',
  'no-health': 'a service sent no health data',
  'unfair-comparison': "the starts not under load burned more CPU while one side was measured than while the other was (a side's idle service working only while the other is measured): the run gives no verdict",
} as const satisfies Record<string, string>;

export type WarningCode = keyof typeof WARNING_CODES;

