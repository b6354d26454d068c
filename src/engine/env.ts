/**
 * The environment handed to the user's processes (install, build, service). The PR's code
 * runs there, so nothing that could act on GitHub may reach it: the token variables, every
 * action input (INPUT_*), the runner's ACTIONS_* credentials, and any variable whose value
 * contains a secret, whatever its name.
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
/** Every action input and runner credential goes too, whatever it holds. */
const DROPPED_PREFIX = /^(INPUT_|ACTIONS_)/i;

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
    if (value === undefined || SECRET_NAMES.has(name.toUpperCase()) || DROPPED_PREFIX.test(name)) continue;
    if (needles.some((s) => value.includes(s))) continue;
    out[name] = value;
  }
  return out;
}
