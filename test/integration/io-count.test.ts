// lane: beside — it asserts counts of round trips and a wait's lower bound from timers, not a comparison.
import assert from 'node:assert/strict';
import { mkdtempSync, } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { HealthChannel } from '../../src/engine/service/health.js';
import { ProcessTracker, sleep, } from '../../src/engine/process/processes.js';
import { startPreloaded } from '../helpers/preloaded.js';

/** A "database": answers each line it receives with one line, `delayMs` later. */
async function startSlowEcho(delayMs: number): Promise<{ server: Server; port: number }> {
  const server = createServer((socket) => {
    socket.setEncoding('utf8');
    let pending = '';
    socket.on('data', (chunk: string) => {
      pending += chunk;
      for (let nl = pending.indexOf('\n'); nl >= 0; nl = pending.indexOf('\n')) {
        const line = pending.slice(0, nl);
        pending = pending.slice(nl + 1);
        setTimeout(() => socket.write(`${line} ok\n`), delayMs);
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as { port: number }).port };
}

/**
 * The service: talks to the "database" 3 times when it starts (outside any window and request),
 * then, for each HTTP request, makes 5 round trips one after another (each sent in two writes,
 * as drivers do) and answers; GET /none answers without any, GET /late before its one answer.
 */
const SERVICE = (dbPort: number) => `
const net = require('node:net');
const db = net.connect(${dbPort}, '127.0.0.1');
db.setEncoding('utf8');
let waiting = null;
let buffered = '';
db.on('data', (chunk) => {
  buffered += chunk;
  if (buffered.endsWith('\\n') && waiting) { const done = waiting; waiting = null; buffered = ''; done(); }
});
const ask = (text) => new Promise((resolve) => { waiting = resolve; db.write(text.slice(0, 2)); db.write(text.slice(2) + '\\n'); });
(async () => { for (let i = 0; i < 3; i++) await ask('warm' + i); })();
require('node:http').createServer(async (req, res) => {
  // /late: a write whose answer comes after the response (fire and forget, or a pool that
  // hands its connection on in the releasing request's context).
  if (req.url === '/late') ask('late');
  else if (req.url !== '/none') for (let i = 0; i < 5; i++) await ask('query' + i);
  res.end('done');
}).listen(0, '127.0.0.1', function () { console.log('PORT=' + this.address().port); });
`;

test('the preload counts the outgoing round trips of each request by destination, and their waits, not inbound traffic or its own socket', async () => {
  const channel = await HealthChannel.open();
  const tracker = new ProcessTracker();
  const db = await startSlowEcho(20);
  try {
    const dir = mkdtempSync(join(tmpdir(), 'perfgate-io-'));
    const { port } = await startPreloaded(dir, ['-e', SERVICE(db.port)], {}, channel, tracker, 5000);
    await sleep(200); // its 3 start-up round trips are over

    const id = await channel.begin();
    for (const path of ['/', '/', '/none', '/late']) assert.equal(await (await fetch(`http://127.0.0.1:${port}${path}`)).text(), 'done');
    await sleep(300); // the late answer arrives
    const { processes } = await channel.end(id);
    assert.equal(processes.length, 1);
    const io = processes[0]!.io!;
    assert.equal(io.length, 1, `one destination: ${JSON.stringify(io)}`);
    assert.equal(io[0]!.destination, `127.0.0.1:${db.port}`);
    assert.equal(io[0]!.roundTrips, 11, 'two writes before an answer are one round trip; a late answer counts; start-up ones belong to no request');
    assert.ok(io[0]!.waitMs >= 11 * 19 && io[0]!.waitMs < 5000, `waited at least 220 ms (more on a loaded machine): ${io[0]!.waitMs}`);
    assert.equal(processes[0]!.ioRequests, 4, 'the request without round trips counts too');

    // A window without traffic reports no destination.
    const quiet = await channel.begin();
    await sleep(50);
    assert.deepEqual((await channel.end(quiet)).processes[0]!.io, []);
  } finally {
    await tracker.killAll();
    channel.close();
    db.server.close();
  }
});
