/**
 * The perfgate.yml `perfgate init` writes: only the keys it found something for, each with a
 * comment saying where it came from, so the user can tell a finding from a guess.
 */
import YAML from 'yaml';

/** A value and why init chose it (written as a trailing comment). */
export interface Noted<T> {
  value: T;
  note: string;
}

/** A scenario line, or one written commented out: a route the user has to finish or fix first. */
export interface ScenarioEntry extends Noted<string> {
  commented?: boolean;
  /** The value is YAML already (a flow mapping), written as it is. */
  raw?: boolean;
}

export interface InitConfig {
  /** Absent: no service (micro-benchmarks only). */
  start?: Noted<string>;
  /** Directory of the service inside the repository ('.' is left out). */
  cwd?: string;
  /** What install perfgate will run, for a comment (service.install stays unset: the lockfile decides). */
  install?: string;
  /** The database drivers found, for a commented-out service.setup that says what a setup is for. */
  databaseDrivers?: string[];
  readyPath?: Noted<string>;
  readyTimeout?: string;
  scenarios: ScenarioEntry[];
  /** The comment on the scenarios key; default: what to add. */
  scenariosNote?: string;
  /** Comment lines after the scenarios. */
  scenariosAfter?: string[];
  benchmarks?: Noted<string[]>;
  /** Relative path of perfgate.schema.json for editors, when perfgate is installed. */
  schemaPath?: string | null;
}

/** A YAML scalar or flow sequence, quoted only when it must be. */
function yamlValue(value: unknown): string {
  return YAML.stringify(value, { collectionStyle: 'flow', lineWidth: 0 }).trimEnd();
}

function line(indent: string, key: string, value: unknown, note?: string): string {
  return `${indent}${key}${key ? ' ' : ''}${yamlValue(value)}${note ? ` # ${note}` : ''}`;
}

/**
 * The gate, commented out: init cannot know a project's promises, but a user who keeps service
 * levels or a stricter route elsewhere (k6 thresholds) looks here for where they go.
 */
const GATE_EXAMPLE = [
  '# gate: # what fails the build; the defaults (throughput 2%, latency p99 15%, errors 1 point) hold until you set one',
  '#   latency_p99: { max: 300ms } # a service level on head: fails only when head is significantly above it',
  '#   errors: { max: 0.1% }',
  '# A scenario may set its own rules: - { path: /checkout, gate: { throughput: 1% } }',
];

export function renderConfig(config: InitConfig): string {
  const lines = [
    ...(config.schemaPath ? [`# yaml-language-server: $schema=${config.schemaPath}`] : []),
    '# perfgate.yml, written by perfgate init. Every key, default and allowed value:',
    '# https://github.com/perfgate/perfgate/blob/main/docs/configuration.md',
  ];
  if (config.start) {
    lines.push('service:');
    lines.push(line('  ', 'start:', config.start.value, config.start.note));
    if (config.cwd && config.cwd !== '.') lines.push(line('  ', 'cwd:', config.cwd));
    if (config.install) lines.push(`  # install: chosen from the lockfile (${config.install}); set it to override`);
    if (config.databaseDrivers?.length) {
      lines.push(
        `  # setup: node scripts/db-setup.js # package.json has ${config.databaseDrivers.join(', ')}: a database per side (PERFGATE_SIDE), created, migrated and seeded before every start (docs/databases.md)`,
      );
    }
    if (config.readyPath || config.readyTimeout) {
      lines.push('  ready:');
      if (config.readyPath) lines.push(line('    ', 'path:', config.readyPath.value, config.readyPath.note));
      if (config.readyTimeout) lines.push(line('    ', 'timeout:', config.readyTimeout));
    }
    lines.push(`scenarios: # ${config.scenariosNote ?? 'HTTP load on base and head; add the routes your users call most, e.g. GET /api/items'}`);
    for (const scenario of config.scenarios) {
      const value = scenario.raw ? scenario.value : yamlValue(scenario.value);
      lines.push(`  ${scenario.commented ? '# ' : ''}- ${value}${scenario.note ? ` # ${scenario.note}` : ''}`);
    }
    for (const comment of config.scenariosAfter ?? []) lines.push(`  # ${comment}`);
    lines.push(...GATE_EXAMPLE);
  } else if (config.cwd && config.cwd !== '.') {
    lines.push('service:', line('  ', 'cwd:', config.cwd));
  }
  if (config.benchmarks) {
    lines.push(`# ${config.benchmarks.note}`);
    lines.push(line('', 'benchmarks:', config.benchmarks.value.length === 1 ? config.benchmarks.value[0] : config.benchmarks.value));
  }
  return `${lines.join('\n')}\n`;
}
