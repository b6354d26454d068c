// The port a service is given: free on every address, and out of the range the kernel takes the
// local end of outgoing connections from, so that no client socket on the machine (the load
// generator's own, a neighbour's) can take it before the service listens.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { test } from 'node:test';
import { freePort } from '../../src/engine/service/service.js';

const low = (() => {
  try {
    return Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
  } catch {
    return 32768;
  }
})();

test('a free port below the range of outgoing connections, on which a server can listen on every address', async () => {
  const ports = new Set<number>();
  for (let i = 0; i < 20; i++) {
    const port = await freePort();
    assert.ok(port >= 1024 && port < low, `port ${port} below ${low}`);
    ports.add(port);
    await new Promise<void>((resolve, reject) => {
      const server = createServer();
      server.once('error', reject);
      server.listen(port, () => server.close(() => resolve()));
    });
  }
  assert.ok(ports.size > 10, `drawn at random: ${[...ports].join(', ')}`);
});
