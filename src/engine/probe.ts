import { request } from 'node:http';
import type { ScenarioConfig } from '../config/types.js';

/** How much of a response body a message quotes. */
const BODY_SAMPLE_CHARS = 160;

/**
 * Sends a scenario's request once and describes the answer for a message: `answered 404 "Cannot
 * GET /user/42"`, or why there was none. Never throws.
 */
export function probeScenario(baseUrl: string, scenario: Pick<ScenarioConfig, 'method' | 'path' | 'headers' | 'body'>, timeoutMs = 5000): Promise<string> {
  return new Promise((resolve) => {
    const req = request(`${baseUrl}${scenario.path}`, { method: scenario.method, headers: scenario.headers, timeout: timeoutMs }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        if (body.length < BODY_SAMPLE_CHARS * 4) body += chunk;
      });
      res.on('end', () => resolve(`it answered ${res.statusCode}${describeBody(body)}`));
      res.on('error', () => resolve(`it answered ${res.statusCode}`));
    });
    req.once('timeout', () => {
      req.destroy();
      resolve(`it did not answer within ${timeoutMs / 1000} s`);
    });
    req.once('error', (error) => resolve(`the request failed (${error.message})`));
    if (scenario.body !== null && scenario.body !== undefined) req.write(scenario.body);
    req.end();
  });
}

/** The start of a body on one line, quoted; nothing when empty. */
function describeBody(body: string): string {
  const text = body.replace(/\s+/g, ' ').trim();
  if (!text) return ' with an empty body';
  return ` "${text.length > BODY_SAMPLE_CHARS ? `${text.slice(0, BODY_SAMPLE_CHARS)}…` : text}"`;
}
