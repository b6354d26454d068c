/**
 * The environment handed to the user's processes (install, build, service). The PR's code
 * runs there, so nothing that could act on GitHub may reach it: the token variables, every
 * action input (INPUT_*), the runner's ACTIONS_* credentials, and any variable whose value
 * contains a secret, whatever its name.
 */
const DROPPED_NAMES = /^(GITHUB_TOKEN|GH_TOKEN|GITHUB_PAT|INPUT_.*|ACTIONS_.*)$/i;

export function scrubEnv(
  env: Record<string, string | undefined>,
  secrets: readonly string[],
): Record<string, string> {
  const needles = secrets.filter((s) => s.length >= 8);
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined || DROPPED_NAMES.test(name)) continue;
    if (needles.some((s) => value.includes(s))) continue;
    out[name] = value;
  }
  return out;
}
