/**
 * The environment handed to the user's processes (install, build, service). The PR's code
 * runs there, so nothing that could act on GitHub may reach it: the token variables, every
 * action input (INPUT_*), the runner's ACTIONS_* credentials, the runner's file commands
 * (GITHUB_ENV, GITHUB_OUTPUT, GITHUB_STATE, GITHUB_PATH, GITHUB_STEP_SUMMARY: writing them sets
 * the step's outputs, the post step's state, later steps' environment), and any variable whose
 * value contains a secret, whatever its name.
 */
/** The variables a CI runner or a user may hold a GitHub token in (the one list of them). */
export const SECRET_VARIABLES = [
  'GITHUB_TOKEN',
  'GH_TOKEN',
  'GITHUB_PAT',
  'INPUT_GITHUB-TOKEN',
  'INPUT_GITHUB_TOKEN',
  'ACTIONS_RUNTIME_TOKEN',
  'ACTIONS_ID_TOKEN_REQUEST_TOKEN',
] as const;

const SECRET_NAMES = new Set<string>(SECRET_VARIABLES.map((n) => n.toUpperCase()));
/** The runner's file commands: writing them sets the step's outputs, the post step's state, later steps' environment. */
const FILE_COMMANDS = new Set(['GITHUB_ENV', 'GITHUB_OUTPUT', 'GITHUB_STATE', 'GITHUB_PATH', 'GITHUB_STEP_SUMMARY']);
/** Every action input and runner credential goes too, whatever it holds. */
const DROPPED_PREFIX = /^(INPUT_|ACTIONS_)/i;

/** A variable the user's processes never get (and perfgate hides from its own /proc/<pid>/environ). */
export function isDroppedName(name: string): boolean {
  const upper = name.toUpperCase();
  return SECRET_NAMES.has(upper) || FILE_COMMANDS.has(upper) || DROPPED_PREFIX.test(name);
}

/** The values of the secret variables that are set: scrubbed by value too, wherever they appear. */
export function secretsFrom(env: Record<string, string | undefined>): string[] {
  return SECRET_VARIABLES.map((k) => env[k]).filter((v): v is string => Boolean(v));
}

export function scrubEnv(
  env: Record<string, string | undefined>,
  secrets: readonly string[],
): Record<string, string> {
  const needles = secrets.filter((s) => s.length >= 8);
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined || isDroppedName(name)) continue;
    if (needles.some((s) => value.includes(s))) continue;
    out[name] = value;
  }
  return out;
}
