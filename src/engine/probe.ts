import { request } from 'node:http';
import type { ScenarioConfig } from '../config/types.js';

/** How much of a response body a message quotes. */
export const BODY_SAMPLE_CHARS = 160;

/** One answer to one request: its status and the start of its body on one line; or why there was none. */
export type ProbeAnswer = { status: number; body: string } | { failure: string };

/**
 * Sends a scenario's request once and describes the answer for a message: `answered 404 "Cannot
 * GET /user/42"`, or why there was none. Never throws.
 */
export async function probeScenario(baseUrl: string, scenario: Pick<ScenarioConfig, 'method' | 'path' | 'headers' | 'body'>, timeoutMs = 5000): Promise<string> {
  const answer = await probeAnswer(baseUrl, scenario, timeoutMs);
  if ('failure' in answer) return answer.failure;
  return `it answered ${answer.status}${answer.body ? ` "${answer.body}"` : ' with an empty body'}`;
}

/** Sends a scenario's request once: its status and the start of its body (at most BODY_SAMPLE_CHARS, on one line), or why there was none. Never throws. */
export function probeAnswer(baseUrl: string, scenario: Pick<ScenarioConfig, 'method' | 'path' | 'headers' | 'body'>, timeoutMs = 5000): Promise<ProbeAnswer> {
  return new Promise((resolve) => {
    const req = request(`${baseUrl}${scenario.path}`, { method: scenario.method, headers: scenario.headers, timeout: timeoutMs }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        if (body.length < BODY_SAMPLE_CHARS * 4) body += chunk;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: oneLine(body) }));
      res.on('error', () => resolve({ status: res.statusCode ?? 0, body: '' }));
    });
    req.once('timeout', () => {
      req.destroy();
      resolve({ failure: `it did not answer within ${timeoutMs / 1000} s` });
    });
    req.once('error', (error) => resolve({ failure: `the request failed (${error.message})` }));
    if (scenario.body !== null && scenario.body !== undefined) req.write(scenario.body);
    req.end();
  });
}

/** The start of a body on one line, cut at BODY_SAMPLE_CHARS with an ellipsis. */
function oneLine(body: string): string {
  const text = body.replace(/\s+/g, ' ').trim();
  return text.length > BODY_SAMPLE_CHARS ? `${text.slice(0, BODY_SAMPLE_CHARS)}…` : text;
}
