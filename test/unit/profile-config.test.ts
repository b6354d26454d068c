import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ConfigError, resolveConfig } from '../../src/config/index.js';
import { profiledScenarios } from '../../src/engine/phases/profile.js';
import { buildOverrides } from '../../src/config/options.js';

const MINIMAL = { service: { start: 'node server.js' }, scenarios: ['GET /hello', 'POST /echo'] };

function problems(document: Record<string, unknown>, overrides?: unknown): string {
  try {
    resolveConfig({ document, overrides });
  } catch (error) {
    assert.ok(error instanceof ConfigError);
    return error.message;
  }
  assert.fail('resolved, but should not have');
}

describe('profile configuration', () => {
  test('on by default for every scenario: 10 s per side, 1 ms sampling', () => {
    const config = resolveConfig({ document: MINIMAL });
    assert.deepEqual(config.profile, { enabled: true, durationMs: 10_000, intervalUs: 1000, scenarios: null, when: 'changed', confirm: true });
    assert.deepEqual(
      profiledScenarios(config).map((s) => s.name),
      ['GET /hello', 'POST /echo'],
    );
  });

  test('profile: false skips it; a mapping sets duration, interval and scenarios', () => {
    assert.equal(resolveConfig({ document: { ...MINIMAL, profile: false } }).profile!.enabled, false);
    assert.deepEqual(profiledScenarios(resolveConfig({ document: { ...MINIMAL, profile: false } })), []);
    const config = resolveConfig({ document: { ...MINIMAL, profile: { duration: '3s', interval: '250us', scenarios: ['POST /echo'] } } });
    assert.deepEqual(config.profile, { enabled: true, durationMs: 3000, intervalUs: 250, scenarios: ['POST /echo'], when: 'changed', confirm: true });
    assert.equal(resolveConfig({ document: { ...MINIMAL, profile: { when: 'always' } } }).profile!.when, 'always');
    assert.equal(resolveConfig({ document: { ...MINIMAL, profile: { confirm: false } } }).profile!.confirm, false);
    assert.throws(() => resolveConfig({ document: { ...MINIMAL, profile: { confirm: 'yes' } } }), /profile.confirm.*is not true or false/);
    assert.deepEqual(
      profiledScenarios(config).map((s) => s.name),
      ['POST /echo'],
    );
    assert.equal(resolveConfig({ document: { ...MINIMAL, profile: { interval: '0.5ms' } } }).profile!.intervalUs, 500);
  });

  test('wrong values are named with what is allowed', () => {
    assert.match(problems({ ...MINIMAL, profile: { interval: '10us' } }), /profile\.interval: "10us" is out of range; write e\.g\. 1ms, 500us/);
    assert.match(problems({ ...MINIMAL, profile: { interval: 1 } }), /profile\.interval: 1 is not a sampling interval/);
    assert.match(problems({ ...MINIMAL, profile: { duration: '100ms' } }), /profile\.duration: "100ms" is out of range; use 1s to 10m/);
    assert.match(
      problems({ ...MINIMAL, profile: { scenarios: ['GET /nope'] } }),
      /profile\.scenarios\[0\]: "GET \/nope" is not a scenario name; use one of "GET \/hello", "POST \/echo"/,
    );
    assert.match(problems({ ...MINIMAL, profile: { when: 'sometimes' } }), /profile\.when: .*is not changed or always/);
    assert.match(problems({ ...MINIMAL, profile: 'yes' }), /profile: "yes" is not a profile setting; write false to skip profiling/);
  });

  test('--no-profile and --profile-duration override the file', () => {
    const off = resolveConfig({ document: { ...MINIMAL, profile: { duration: '5s' } }, overrides: buildOverrides({ profile: 'false' }) });
    assert.equal(off.profile!.enabled, false);
    const shorter = resolveConfig({ document: MINIMAL, overrides: buildOverrides({ 'profile-duration': '2s' }) });
    assert.equal(shorter.profile!.durationMs, 2000);
    assert.deepEqual(buildOverrides({ profile: 'false', 'profile-duration': '2s' }), { profile: false });
  });
});
