import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import type { ScenarioConfig } from '../../src/config/types.js';
import { runLoads } from '../../src/engine/load/seam.js';
import { ClosedLoopLoad } from '../../src/engine/load/closed.js';

const scenario: ScenarioConfig = { name: 'GET /', method: 'GET', path: '/', headers: {}, body: null, connections: 4, pipelining: 1, rate: null, expect: null };

/**
 * A real node:http server on port 0 whose every connection's first request waits `firstMs`
 * before it is answered (a connection that still has to warm up, as the first requests of fresh
 * connections on a busy shared CPU do); it counts the connections it accepted.
 */
async function listen(firstMs: number): Promise<{ server: Server; url: string; connections: () => number }> {
  let connections = 0;
  const server = createServer((req, res) => {
    const socket = req.socket as typeof req.socket & { answered?: boolean };
    const answer = () => res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
    if (socket.answered) return answer();
    socket.answered = true;
    setTimeout(answer, firstMs);
  });
  server.on('connection', () => connections++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { server, url: `http://127.0.0.1:${port}`, connections: () => connections };
}

async function close(server: Server): Promise<void> {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
}

test("a start pair's windows are counted on the same connections, so a window measures the service, not the connections' start", async () => {
  const { server, url, connections } = await listen(400);
  try {
    const loads = await ClosedLoopLoad.open([url], scenario, { maxMs: 3000, sliceMs: 600 });
    let windows: Awaited<ReturnType<ClosedLoopLoad['measure']>>[];
    try {
      windows = [await loads.measure(600), await loads.measure(600), await loads.measure(600)];
    } finally {
      await loads.close();
    }
    assert.equal(connections(), scenario.connections, 'no window opened connections of its own');
    for (const [sample] of windows) assert.ok(sample!.requests > 0 && sample!.rps > 0, 'every window counted responses');
    // The first window still holds the connections' slow first answers; the later ones do not.
    assert.ok(windows[0]![0]!.latencyUs.max >= 350_000, `the first window saw the slow first answers (max ${windows[0]![0]!.latencyUs.max} µs)`);
    for (const [sample] of windows.slice(1)) assert.ok(sample!.latencyUs.max < 200_000, `a later window has no first answer in it (max ${sample!.latencyUs.max} µs)`);
    // Every response is counted once, in the window it came in or between windows.
    assert.ok(windows.flat().reduce((n, s) => n + s.served, 0) >= windows.flat().reduce((n, s) => n + s.requests, 0));
  } finally {
    await close(server);
  }
});

test('one load per window (runLoads) opens fresh connections each time, and its window pays for their start', async () => {
  const { server, url, connections } = await listen(400);
  try {
    const [first] = await runLoads([url], scenario, 600);
    const [second] = await runLoads([url], scenario, 600);
    assert.equal(connections(), 2 * scenario.connections);
    for (const sample of [first!, second!]) assert.ok(sample.latencyUs.max >= 350_000, `the fresh connections' first answers are in the window (max ${sample.latencyUs.max} µs)`);
  } finally {
    await close(server);
  }
});

test('a window counts the timeouts of its own time: a service that stops answering shows them in the window it stopped in', async () => {
  let answering = true;
  const server = createServer((_req, res) => {
    if (answering) res.end('ok');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  try {
    // 1 s slices: a request times out after 2 s
    const loads = await ClosedLoopLoad.open([url], scenario, { maxMs: 5000, sliceMs: 1000 });
    try {
      const [healthy] = await loads.measure(300);
      answering = false;
      const [stuck] = await loads.measure(2500);
      assert.ok(healthy!.requests > 0);
      assert.equal(healthy!.timeouts, 0);
      assert.equal(stuck!.timeouts, scenario.connections, 'each connection timed out once in the window');
      assert.ok(stuck!.errors >= stuck!.timeouts, 'a timeout is also an error, as autocannon counts it');
    } finally {
      await loads.close();
    }
  } finally {
    await close(server);
  }
});
