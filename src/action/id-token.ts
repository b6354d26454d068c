import * as core from '@actions/core';
import { UnsafeSetupError } from './guard.js';

/**
 * A job with `permissions: id-token: write` gets ACTIONS_ID_TOKEN_REQUEST_TOKEN: with it, any
 * process that reads it can ask GitHub for an OpenID Connect token naming this repository and
 * workflow, and trade that token for cloud credentials where a cloud trusts it. perfgate never
 * needs one. It keeps the variable from the pull request's processes, but that code runs as the
 * same user and can read the post step's environment while it starts (docs/security.md), so a
 * measuring job with the permission is refused like one with a write token.
 */
export function refuseIdToken(env: Record<string, string | undefined>, allowed: boolean): void {
  if (!env.ACTIONS_ID_TOKEN_REQUEST_TOKEN) return;
  const why =
    "this job can request an OpenID Connect token (permissions id-token: write sets ACTIONS_ID_TOKEN_REQUEST_TOKEN), which the pull request's code could trade for cloud credentials";
  if (allowed) {
    core.warning(`perfgate: allow-id-token is true, so the pull request's code runs although ${why}.`);
    return;
  }
  throw new UnsafeSetupError(
    `perfgate runs the pull request's code, and ${why}. Give id-token: write only to a job that runs no pull request code ` +
      '(the measuring job needs contents: read only: example-workflows/perf.yml), or set allow-id-token: true to accept the risk.',
  );
}
