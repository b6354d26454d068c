/**
 * The environment handed to the user's processes (install, build, service). The PR's code
 * runs there, so nothing that could act on GitHub may reach it: the token variables, every
 * action input (INPUT_*), the runner's ACTIONS_* credentials, the runner's file commands
 * (GITHUB_ENV, GITHUB_OUTPUT, GITHUB_STATE, GITHUB_PATH, GITHUB_STEP_SUMMARY: writing them sets
 * the step's outputs, the post step's state, later steps' environment), and any variable whose
 * value contains a secret, whatever its name.
 */
export const DROPPED_NAMES =
  /^(GITHUB_TOKEN|GH_TOKEN|GITHUB_PAT|INPUT_.*|ACTIONS_.*|GITHUB_ENV|GITHUB_OUTPUT|GITHUB_STATE|GITHUB_PATH|GITHUB_STEP_SUMMARY)$/i;

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
