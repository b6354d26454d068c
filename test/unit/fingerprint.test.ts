// What the engine records of the machine, as history compares it between runs.
import assert from 'node:assert/strict';
import { release } from 'node:os';
import { it } from 'node:test';
import { fingerprint } from '../../src/engine/workspace/fingerprint.js';
import { environmentSchema } from '../../src/results/schema.js';

it('records the kernel, the machine image and the V8 of the Node on PATH, in the schema of results.json', async () => {
  const env = { PATH: process.env.PATH ?? '', ImageOS: 'ubuntu24', ImageVersion: '20261001.1' };
  const recorded = await fingerprint(env, process.cwd());
  assert.equal(recorded.kernel, release());
  assert.equal(recorded.osImage, 'ubuntu24 20261001.1');
  assert.match(recorded.v8Version ?? '', /^\d+\.\d+\.\d+/);
  assert.match(recorded.nodeVersion, /^v\d+\./);
  assert.deepEqual(environmentSchema.parse(recorded), recorded);
});
