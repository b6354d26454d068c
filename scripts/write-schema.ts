/**
 * Writes perfgate.schema.json (the editor schema) and docs/configuration.md (the reference) from
 * the one zod schema in src/config/schema.ts (and its parts, schema-*.ts). Run with
 * `npm run schema` after changing the schema; test/unit/config.test.ts fails while either file
 * is stale.
 */
import { OPTIONS } from '../src/config/options.js';
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { ConfigError, configJsonSchema, JSON_SCHEMA_ID, resolveConfig } from '../src/config/index.js';
import { parseConfigText } from '../src/config/load.js';
import {
  MAX_BLOCKS,
  MAX_CONFIG_BYTES,
  MAX_INSTANCES,
  MAX_LOAD_MS,
  MAX_PAIRS,
  MAX_REQUESTS,
  MAX_SCENARIOS,
} from '../src/config/bounds.js';

export const REPO_ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
export const SCHEMA_FILE = join(REPO_ROOT, 'perfgate.schema.json');
export const DOCS_FILE = join(REPO_ROOT, 'docs', 'configuration.md');

/** The published JSON Schema, as written to perfgate.schema.json. */
export function schemaText(): string {
  return `${JSON.stringify(configJsonSchema(), null, 2)}\n`;
}

/** The full example of the reference; the unit tests resolve it, so it cannot drift from the schema. */
export const EXAMPLE_YAML = `# yaml-language-server: $schema=${JSON_SCHEMA_ID}
service:
  install: npm ci
  build: npm run build
  start: node dist/server.js
  cwd: .
  env: { NODE_ENV: production, LOG_LEVEL: warn }
  ready: { path: /health, timeout: 30s }
scenarios:
  - GET /hello
  - name: echo
    method: POST
    path: /echo
    headers: { x-request-source: perfgate }
    body: { hello: world }      # sent as JSON, with content-type: application/json
    connections: 20
load:
  slice: 1s
  pairs: 72
  blocks: 3
  instances: 8
  warmup: 4s
  mode: simultaneous
  pin: auto
  connections: 10
  pipelining: 1
benchmarks:
  files: [bench/**/*.bench.js, bench/**/*.bench.mjs]
  rounds: 10
  timeout: 2m
  budget: 15m
gate:
  throughput: 2%
  latency_p99: 15%
  latency_p50: off
  cpu_per_request: { limit: 20%, gated: true }
  benchmarks: 10%
alpha: 0.01
seed: 42
profile:
  duration: 10s
  interval: 1ms
  scenarios: [GET /hello]     # default: every scenario; profile: false skips profiling
`;

/** Smaller examples in the reference's sections; the unit tests resolve these too. */
export const SNIPPETS = {
  benchmarks: `benchmarks:                  # or just a glob: benchmarks: bench/**/*.bench.js
  files: [bench/*.bench.js, bench/*.bench.ts]
  rounds: 12                           # default 10
  timeout: 1m                          # per process; default 2m
  budget: 10m                          # whole phase; default 15m
`,
  scenarios: `scenarios:
  - GET /hello                 # name "GET /hello", method GET
  - /health                    # GET
  - name: search
    path: /search?q=perf
  - name: create
    method: POST
    path: /items
    body: { title: x }         # JSON; content-type: application/json added
`,
  gate: `gate:
  throughput: 3%                       # limit 3 %, gated
  latency_p99: off                     # information only, default limit 15 %
  latency_p90: { limit: 10%, gated: true }
  cpu_per_request: { gated: true }     # gated at the default 10 %
  event_loop_delay_p99: { limit: 50%, min: 20ms }   # gated; both 50 % and 20 ms worse
  heap_growth: { limit: 1MB, gated: true }          # fail on a possible leak (1 MB per 10k requests)
  latency_p50: { max: 100ms }                       # service level on head (gated); the 10 % limit stays information only
  errors: { max: 0.1% }                             # service level: at most 0.1 % of requests fail
`,
  scenarioGate: `gate:
  throughput: 5%
scenarios:
  - name: checkout
    path: /checkout
    gate:
      throughput: 1%                   # this scenario only; the others keep 5 %
      latency_p99: { max: 250ms }      # its own service level
  - GET /admin                         # the global rules
`,
};

/** A broken file whose real messages the reference quotes. */
const BAD_EXAMPLE_YAML = `scenarioes:
  - GET /hello
scenarios:
  - { path: /echo, method: FETCH }
load: { slice: fast }
gate: { latency-p99: 15% }
`;

// ------------------------------------------------------------------------------------ docs

type Json = { [key: string]: unknown };

interface Row {
  key: string;
  type: string;
  default: string;
  description: string;
}

/** A node with its `$ref` followed; the referring node's own keys (description, default) win. */
function deref(root: Json, node: Json): Json {
  const ref = node['$ref'];
  if (typeof ref !== 'string') return node;
  const name = ref.replace('#/$defs/', '');
  const { $ref: _ref, ...own } = node;
  return { ...deref(root, (root['$defs'] as Record<string, Json>)[name]!), ...own };
}

function list(words: string[]): string {
  const unique = [...new Set(words)];
  return unique.length <= 1 ? (unique[0] ?? '') : `${unique.slice(0, -1).join(', ')} or ${unique.at(-1)}`;
}

/** A reader's type name: the schema's doc note if it has one, else one derived from the JSON type. */
function typeName(root: Json, raw: Json): string {
  const node = deref(root, raw);
  if (typeof node['x-doc-type'] === 'string') return node['x-doc-type'];
  if (node['const'] !== undefined) return `\`${String(node['const'])}\``;
  if (Array.isArray(node['enum'])) return list(node['enum'].map((v) => `\`${String(v)}\``));
  if (Array.isArray(node['anyOf'])) {
    // null is "the same as leaving the key out"; the formats section says so once.
    const branches = (node['anyOf'] as Json[]).filter((b) => deref(root, b)['type'] !== 'null');
    return list(branches.map((b) => typeName(root, b)));
  }
  const types = (Array.isArray(node['type']) ? node['type'] : [node['type']]).filter((t) => t !== 'null');
  return list(
    types.map((type) => {
      if (type === 'array') return `list of ${typeName(root, (node['items'] as Json) ?? {})}`;
      if (type === 'object' && node['additionalProperties'] && typeof node['additionalProperties'] === 'object') {
        return `mapping of name → ${typeName(root, node['additionalProperties'] as Json)}`;
      }
      if (type === 'object') return 'mapping';
      return String(type ?? 'any');
    }),
  );
}

/** Defaults as they would be written in perfgate.yml. */
function yamlish(value: unknown): string {
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    return `{ ${Object.entries(value)
      .map(([k, v]) => `${k}: ${yamlish(v)}`)
      .join(', ')} }`;
  }
  return typeof value === 'string' ? value : JSON.stringify(value);
}

function defaultText(node: Json): string {
  if (typeof node['x-doc-default'] === 'string') return node['x-doc-default'];
  const value = node['default'];
  if (value === undefined) return '—';
  if (typeof value === 'object' && value !== null && Object.keys(value).length === 0) return '—';
  return `\`${yamlish(value)}\``;
}

/** Rows for a key and everything under it; list items appear as `key[].child`. */
function rows(root: Json, raw: Json, key: string, options: { self?: boolean } = {}): Row[] {
  const node = deref(root, raw);
  const out: Row[] = [];
  if (options.self !== false) {
    out.push({
      key,
      type: typeName(root, raw),
      default: defaultText(node),
      description: String(node['description'] ?? ''),
    });
  }
  // Descend into the branch that is a mapping (or a list of them); shared $defs are documented once.
  // Unions nest (a union made nullable is a union of a union), so branches are flattened.
  const branches = (n: Json): Json[] => [n, ...((n['anyOf'] as Json[] | undefined) ?? []).flatMap((b) => branches(deref(root, b)))];
  const candidates = branches(node);
  for (const candidate of candidates) {
    if ('$ref' in raw) break;
    const properties = candidate['properties'] as Record<string, Json> | undefined;
    if (properties) {
      for (const [child, childNode] of Object.entries(properties)) out.push(...rows(root, childNode, `${key}.${child}`));
    }
    const items = candidate['items'] as Json | undefined;
    if (candidate['type'] === 'array' && items) out.push(...rows(root, items, `${key}[]`, { self: false }));
  }
  return out;
}

function table(rowList: Row[]): string {
  const cell = (text: string) => text.replaceAll('|', '\\|').replaceAll('\n', ' ');
  const lines = ['| key | type | default | description |', '|---|---|---|---|'];
  for (const row of rowList) {
    lines.push(`| \`${row.key}\` | ${cell(row.type)} | ${cell(row.default)} | ${cell(row.description)} |`);
  }
  return lines.join('\n');
}

function problemsOf(yaml: string): string {
  try {
    resolveConfig({ document: parseConfigText(yaml, 'perfgate.yml') });
  } catch (error) {
    if (error instanceof ConfigError) return error.message;
    throw error;
  }
  throw new Error('the bad example resolved; make it bad again');
}

function mib(bytes: number): string {
  return `${bytes / 1024 / 1024} MiB`;
}

/** docs/configuration.md, generated so it cannot disagree with the schema. */
export function docsText(): string {
  const schema = configJsonSchema({ docNotes: true });
  const properties = schema['properties'] as Record<string, Json>;
  const section = (key: string) => table(rows(schema, properties[key]!, key));
  const gateRule = deref(schema, { $ref: '#/$defs/gateRule' });
  const ruleObject = (gateRule['anyOf'] as Json[]).map((b) => deref(schema, b)).find((b) => b['properties'])!;
  const ruleRows = Object.entries(ruleObject['properties'] as Record<string, Json>).flatMap(([child, node]) =>
    rows(schema, node, `gate.<metric>.${child}`),
  );
  // The event-loop delay rules take one more key, the absolute floor.
  const delayRule = deref(schema, { $ref: '#/$defs/delayGateRule' });
  const delayObject = (delayRule['anyOf'] as Json[]).map((b) => deref(schema, b)).find((b) => b['properties'])!;
  const floorRows = Object.entries(delayObject['properties'] as Record<string, Json>)
    .filter(([child]) => !(child in (ruleObject['properties'] as Record<string, Json>)))
    .flatMap(([child, node]) => rows(schema, node, `gate.event_loop_delay_*.${child}`));
  // The latency and errors rules take a service level, max.
  const levelRows = (id: string, what: string) => {
    const rule = deref(schema, { $ref: `#/$defs/${id}` });
    const object = (rule['anyOf'] as Json[]).map((b) => deref(schema, b)).find((b) => b['properties'])!;
    return Object.entries(object['properties'] as Record<string, Json>)
      .filter(([child]) => !(child in (ruleObject['properties'] as Record<string, Json>)))
      .flatMap(([child, node]) => rows(schema, node, `gate.${what}.${child}`));
  };
  const maxRows = [...levelRows('latencyGateRule', 'latency_*'), ...levelRows('errorsGateRule', 'errors')];
  const describe = (key: string) => String(properties[key]!['description']);

  return `# Configuration reference

<!-- Generated by \`npm run schema\` (scripts/write-schema.ts) from src/config/schema*.ts.
     Edit the descriptions there, not here; a unit test fails while this file is stale. -->

perfgate reads \`perfgate.yml\` at the repository root (or the file named by \`--config\` / the
\`config\` input). Every key has a default except \`service.start\` and \`scenarios\`, and those two
can come from action inputs or CLI flags instead, so a one-step workflow needs no file at all.
A project with micro-benchmarks alone lists them under \`benchmarks\` and needs neither.

- **Precedence.** Built-in defaults, then \`perfgate.yml\`, then action inputs / CLI flags.
  Inputs and flags merge into the file key by key; a list (such as \`scenarios\`) or a single
  value given as an input replaces the file's.
- **Validation.** The merged configuration is checked once, before anything is installed or
  started. Unknown keys are errors (with a "did you mean" suggestion), and every problem is
  reported at once, one per line, with the file, the key, the value and what is allowed.
- **Bounds.** perfgate.yml may be at most ${mib(MAX_CONFIG_BYTES)}, checked before its YAML is parsed. A
  configuration may ask for at most ${MAX_SCENARIOS} scenarios, ${MAX_REQUESTS} requests per scenario, ${MAX_PAIRS}
  \`load.pairs\`, ${MAX_BLOCKS} \`load.blocks\`, ${MAX_INSTANCES} \`load.instances\`, and ${MAX_LOAD_MS / 3_600_000} hours of measured load (\`pairs\` ×
  \`slice\` × scenarios, twice that with \`mode: alternate\`). Each bound is far above what a project
  needs; a value beyond it is refused at once, with the limit and the fix, before anything is
  planned or started.
- **Editors.** [\`perfgate.schema.json\`](../perfgate.schema.json) is the JSON Schema (draft
  2020-12) generated from the same definition, with \`$id\` ${JSON_SCHEMA_ID}.
  With the YAML language server (e.g. the VS Code YAML extension), a first line
  \`# yaml-language-server: $schema=<url or path of the schema>\` turns on completion, hover help
  and checking; the example below points at the \`$id\`.

## Example

\`\`\`yaml
${EXAMPLE_YAML}\`\`\`

A file this broken:

\`\`\`yaml
${BAD_EXAMPLE_YAML}\`\`\`

stops the run before anything starts, with:

\`\`\`text
${problemsOf(BAD_EXAMPLE_YAML)}
\`\`\`

## Value formats

- **duration**: \`500ms\`, \`1s\`, \`1.5s\`, \`2m\`, or a bare number of seconds (\`5\`).
- **percentage**: \`5%\` or \`5\`; both mean five percent (\`0.05\` means 0.05 %). Limits are
  relative changes between base and head, above 0 % and at most 100 %.
- **command**: a shell command, run in \`service.cwd\` of each tree (base and head).
- **path**: starts with \`/\`, may carry a query (\`/search?q=x\`), no spaces.
- **scenario line**: \`METHOD /path\` (\`GET /hello\`, \`post /echo\`), or just \`/path\` for GET.
- **sampling interval**: \`1ms\`, \`500us\` or \`500µs\` (V8 samples in microseconds).
- An empty value (\`build:\` with nothing after it, YAML null) is the same as leaving the key
  out, for \`install\`, \`build\`, \`ready.path\` and \`seed\`.

## \`service\`

${describe('service')}

${section('service')}

## \`scenarios\`

${describe('scenarios')}

${section('scenarios')}

\`\`\`yaml
${SNIPPETS.scenarios}\`\`\`

The \`scenarios\` action input and the repeatable \`--scenarios\` flag (or \`--scenario\`) pick
scenarios: a value that names a scenario of this file selects it, a scenario line that names none
(\`GET /path\`) adds it for this run.

## \`load\`

${describe('load')}

${section('load')}

Per scenario, a run takes about \`pairs\` × \`slice\` of measurement (twice that with
\`mode: alternate\`) plus \`blocks\` × \`instances\` × \`warmup\` of warm-up, plus installing,
building and starting each block: 130–140 s with the defaults on 2 vCPUs
(docs/calibration.md). \`perfgate plan\` prints the estimate for a configuration.

## \`benchmarks\`

${describe('benchmarks')}

${section('benchmarks')}

\`\`\`yaml
${SNIPPETS.benchmarks}\`\`\`

The micro-benchmarks run after the HTTP scenarios: about 2 × \`rounds\` × (the time one process
of each file takes), at most \`budget\`. How to write suites that gate well, and what the rounds
can detect: [benchmarks.md](benchmarks.md).

## \`gate\`

${describe('gate')}

${section('gate')}

The long form of a rule:

${table([...ruleRows, ...floorRows, ...maxRows])}

An event-loop delay rule counts a change only when it is beyond both its relative \`limit\` and
its absolute \`min\`, so a fast loop going from 0.1 ms to 0.2 ms (+100%) never fails a build.
\`heap_growth\` is not a paired comparison but a rule on the trend of post-GC heap against the
requests served; [health.md](health.md) explains it and every other health metric.

\`\`\`yaml
${SNIPPETS.gate}\`\`\`

### Limits per scenario

A scenario may carry its own \`gate:\` with the same keys and forms, for the metrics measured per
scenario (the HTTP and health metrics; start-up, \`heap_growth\` and \`benchmarks\` are about the
whole service and stay global). Each key it writes overrides the global rule for that scenario
alone, the keys of a mapping one by one: \`{ max: 300ms }\` keeps the global limit, and \`1%\`
keeps the global service level. The report's rows and headline then give the scenario's own
limit.

\`\`\`yaml
${SNIPPETS.scenarioGate}\`\`\`

### Service levels

\`max\` on \`latency_p50\`, \`latency_p90\`, \`latency_p99\`, \`latency_p999\` (a duration) or
\`errors\` (a share of requests) is an absolute level on head, beside the relative limit:
"p99 below 300 ms", "errors below 0.1%". It gates unless the mapping says \`gated: false\` (or the
rule is \`off\`), whatever the relative limit does. Throughput, CPU and the health metrics have no
level (their absolute value depends on the machine more than on the code).

A level is checked with the same care about noise as a change. The unit is head's start: each
start's slices are summarised by their Hodges–Lehmann estimate, and a one-sided sign-flip test
asks whether head is above the level (on ln(value / level) for a latency, value − level for
errors). Its p joins the one Holm family of the gated metrics, so levels do not raise the run's
false-fail rate beyond \`alpha\`. A level **fails** when head is significantly above it, **passes**
when the whole 95% interval of head's value is at or below it, and is **inconclusive**
otherwise (too few starts, or head close to the level). At an interim look (\`load.early-stop\`) a
level head is already significantly above stops the run, and a run stops clear only once every
gated level passes. Levels are shown in their own table
("Service levels"), in the headline when one fails, and in verdicts.json under \`levels\`.

## \`alpha\` and \`seed\`

${table([...rows(schema, properties['alpha']!, 'alpha'), ...rows(schema, properties['seed']!, 'seed')])}

## \`profile\`

${describe('profile')}

${section('profile')}

Per profiled scenario the phase restarts base and head together, loads both for up to 2 s of
warm-up and then \`duration\`, and draws the flamegraphs — 16.5s per scenario with the defaults, as
\`perfgate plan\` estimates it (docs/ci-time.md). The \`--no-profile\` and
\`--profile-duration\` flags override these keys.

## Command line and action

What head is compared with is no key of this file: base measured beside head (the default), or a
stored record of base (\`perfgate record\`, then \`perfgate compare --baseline <results.json>\`; action
inputs \`mode: record\` and \`baseline: stored\`; [modes.md](modes.md)). A record is refused when its
configuration hash differs from this run's: every key here that changes how a run measures must
be the same on main's pushes and on the pull requests.

The same settings can be given as command-line flags and as action inputs, under the same names;
they win over this file. \`perfgate plan\` checks them with the file, sends each scenario's request once to
the service started in the work tree, and prints the plan.

${optionsTable()}
`;
}

/** The one table of options (src/config/options.ts): flag and input name, key, older flag names. */
function optionsTable(): string {
  const header = '| flag and action input | key | older flag names |\n| --- | --- | --- |';
  const body = OPTIONS.map((o) => {
    const older = [...(o.aliases ?? []).map((a) => `\`--${a}\``), ...(o.name === 'profile' ? ['`--no-profile` (= `--profile false`)'] : [])];
    return `| \`${o.name}\` | \`${o.key}\` | ${older.join(', ')} |`;
  });
  return [header, ...body].join('\n');
}

function main(): void {
  writeFileSync(SCHEMA_FILE, schemaText());
  writeFileSync(DOCS_FILE, docsText());
  process.stdout.write(`wrote ${SCHEMA_FILE}\nwrote ${DOCS_FILE}\n`);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) main();
