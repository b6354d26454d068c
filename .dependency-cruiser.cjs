/**
 * The rooms of src/ and which may use which. Data flows one way: config → engine (measures) →
 * results.json → assess (decides) → report (renders); compare composes a run; the CLI and the
 * action are adapters on top. A room may import the rooms below it, never one above, and no
 * module may import itself back through others (no circles). `npm run lint` checks this.
 *
 *   stats, version.ts   ground floor: pure statistics and number formatting; import nothing
 *   config              the configuration: schema, defaults, resolution; uses stats
 *   results             results.json only: schema, types, migration, io; uses config, stats
 *   profile             pure: cpuprofile → call tree → summary → diff → culprit; uses results' types
 *   engine              measuring only (workspace, process, service, load, phases, run); uses the above
 *   assess              results → the Assessment (every comparison, one Holm family, culprits) and
 *                       verdicts.json; uses config, profile, results, stats
 *   report              the Assessment → what readers see; reads assess/types and assess/read only:
 *                       it never measures and never decides. report/document/ builds the report
 *                       document (the words, in typed cells); report/print/ only lays it out
 *   github              the GitHub REST and artifact clients; uses results' types and the logger port
 *   compare             request → plan → run → assess, and its variants; uses engine, assess and below
 *   init, history       features built on the above
 *   cli, action         adapters: nothing imports them
 *   preload             CommonJS perfgate --requires into the user's processes: Node only, nothing of src/
 */
const room = (name) => `^src/${name}(/|\\.ts$)`;
const below = (name, allowed) => ({
  name: `${name}-imports-only-below`,
  comment: `${name}/ may import only ${allowed.join(', ') || 'nothing else of src/'} (and itself)`,
  severity: 'error',
  from: { path: room(name) },
  to: { path: '^src/', pathNot: [room(name), ...allowed.map(room)] },
});

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'a module that reaches itself back through its imports: the rooms no longer have an order',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    below('stats', []),
    below('version', []),
    below('preload', []),
    below('config', ['stats', 'version']),
    below('results', ['stats', 'config', 'version']),
    below('profile', ['stats', 'config', 'results']),
    below('engine', ['stats', 'config', 'profile', 'results', 'version']),
    below('assess', ['stats', 'config', 'profile', 'results', 'version']),
    below('report', ['stats', 'config', 'profile', 'results', 'assess/types', 'assess/read', 'version']),
    below('github', ['results', 'engine/ports']),
    below('compare', ['stats', 'config', 'profile', 'results', 'engine', 'assess', 'version']),
    below('init', ['stats', 'config', 'profile', 'results', 'engine', 'version']),
    below('history', ['stats', 'config', 'profile', 'results', 'assess', 'report', 'github', 'version']),
    {
      name: 'culprit-decided-once',
      comment: 'the culprit is found once, by assess/ (assess/subjects.ts): everything after it reads it from the Assessment, at most naming its type',
      severity: 'error',
      from: { path: '^src/', pathNot: ['^src/assess/', '^src/profile/'] },
      to: { path: '^src/profile/culprit\\.ts$', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'printers-only-lay-out',
      comment:
        'report/print/ only lays the report document out (escapes, colours, aligns): it reads the document types, the escaping and the number formats, never the Assessment, the results or profile/; the words are the document builders\' (report/document/)',
      severity: 'error',
      from: { path: '^src/report/print/' },
      to: {
        path: '^src/',
        pathNot: ['^src/report/print/', '^src/report/document/types\\.ts$', '^src/report/escape\\.ts$', '^src/stats/format\\.ts$'],
      },
    },
    {
      name: 'renderers-build-then-print',
      comment:
        'the entry points (report/markdown.ts, terminal.ts, comment.ts) build the document and hand it to a printer: they name no metric and format no figure themselves (report/format.ts is the document builders\'), and read neither the configuration, the results or the Assessment beyond their types, nor profile/: what a section says of a culprit or a verdict is its builder\'s',
      severity: 'error',
      from: { path: '^src/report/(markdown|terminal|comment)\\.ts$' },
      to: {
        path: ['^src/report/format\\.ts$', '^src/profile/', '^src/config/', '^src/results/', '^src/assess/'],
        pathNot: ['^src/results/types\\.ts$', '^src/assess/types\\.ts$'],
      },
    },
    {
      name: 'report-words-from-profile-in-the-document',
      comment:
        'in report/, only the document builders (report/document/) put profile/\'s names and places into words: the renderers and printers read the built document',
      severity: 'error',
      from: { path: '^src/report/', pathNot: ['^src/report/document/'] },
      to: { path: '^src/profile/' },
    },
    {
      name: 'shells-on-top',
      comment: 'the CLI and the action are adapters: no other room imports them',
      severity: 'error',
      from: { path: '^src/', pathNot: ['^src/(cli|action)/'] },
      to: { path: '^src/(cli|action)/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsConfig: { fileName: 'tsconfig.json' },
    tsPreCompilationDeps: true,
  },
};
