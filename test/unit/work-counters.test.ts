import assert from 'node:assert/strict';
import { request, Agent, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import { describe, it } from 'node:test';
import { assessResults } from '../../src/assess/compare.js';
import { aggregateHealth, HEALTH_METRIC_DEFINITIONS } from '../../src/assess/health.js';
import type { CounterMetricId } from '../../src/config/types.js';
import { counterRows, describeCounterChange } from '../../src/report/counters.js';
import { renderMarkdown } from '../../src/report/markdown.js';
import type { HealthComparison } from '../../src/results/types.js';
import { HEALTHY, healthResults, processHealth } from '../helpers/health.js';

interface Counts {
  allocatedBytes?: number | null;
  syscalls: number | null;
  socketBytesRead: number;
  socketBytesWritten: number;
  responses: number;
}
const { startCounters } = createRequire(import.meta.url)('../../src/preload/counters.cjs') as {
  startCounters: () => {
    begin(id: number): void;
    end(): Counts | null;
    flush(): Promise<Array<{ id: number; allocatedBytes: number | null }>>;
    track(socket: unknown): void;
  };
};

/** GET the server `times` times over one kept-alive connection; resolves when all answered. */
async function get(port: number, agent: Agent, times: number): Promise<void> {
  for (let i = 0; i < times; i++) {
    await new Promise<void>((resolve, reject) => {
      request({ port, agent, path: '/' }, (res) => res.resume().on('end', resolve)).on('error', reject).end();
    });
  }
}

describe('the work counters inside a process (preload/counters.cjs)', () => {
  // One counter set for the whole file: it subscribes to the process's accepted sockets once.
  const counters = startCounters();

  it('counts the bytes allocated on the heap in each window, what the collections freed included, and gives them at the flush', async () => {
    let keep: number[] = [];
    const allocate = (arrays: number) => {
      for (let i = 0; i < arrays; i++) keep = new Array(125).fill(i);
    };
    // Three windows of 100,000, 20,000 and 50,000 arrays of 125 small integers (~1 kB each: far
    // more than the young generation holds, so most is allocated and freed inside the window),
    // with 60,000 more between the windows that none of them may count.
    const arrays = { 7: 100_000, 8: 20_000, 9: 50_000 };
    for (const [id, n] of Object.entries(arrays)) {
      counters.begin(Number(id));
      allocate(n);
      const counts = counters.end()!;
      assert.equal(counts.allocatedBytes, undefined, 'not known before the flush');
      assert.ok(counts.syscalls !== null && counts.syscalls >= 0, 'Linux: /proc/self/io is read');
      allocate(20_000);
    }
    assert.equal(keep.length, 125);
    const flushed = await counters.flush();
    assert.deepEqual(
      flushed.map((w) => w.id),
      [7, 8, 9],
    );
    for (const { id, allocatedBytes } of flushed) {
      const perArray = allocatedBytes! / arrays[id as keyof typeof arrays];
      // 125 × 8 bytes of elements and the headers of the array and its store (Node's 64-bit heap).
      assert.ok(perArray > 1000 && perArray < 1100, `window ${id}: ${perArray} bytes per array`);
    }
    assert.deepEqual(await counters.flush(), [], 'each window is given once');
  });

  it("counts the bytes of the process's accepted sockets in the window only, and the read and write calls", async () => {
    const body = 'x'.repeat(1000);
    const server = createServer((_req, res) => res.end(body));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      await get(port, agent, 5); // before the window: on the same connection, not counted
      counters.begin(1);
      await get(port, agent, 20);
      const counts = counters.end()!;
      // 20 responses of 1,000 bytes and their headers; 20 requests of a line and a few headers
      assert.ok(counts.socketBytesWritten > 20 * 1000 && counts.socketBytesWritten < 20 * 1300, `${counts.socketBytesWritten} bytes written`);
      assert.ok(counts.socketBytesRead > 20 * 20 && counts.socketBytesRead < 20 * 200, `${counts.socketBytesRead} bytes read`);
      // the server's read and write of each request, and the client's, in this one process
      assert.ok(counts.syscalls! >= 20 * 2, `${counts.syscalls} system calls`);
      assert.equal(counts.responses, 20, 'the requests served in the window, counted by the server');
      // a connection that closes in the window still counts what it carried
      const closing = new Agent({ keepAlive: false });
      counters.begin(2);
      await get(port, closing, 3);
      await new Promise((resolve) => setTimeout(resolve, 50));
      assert.ok(counters.end()!.socketBytesWritten > 3 * 1000);
    } finally {
      agent.destroy();
      server.close();
    }
  });

  it('gives nothing for a window that is not open', () => {
    assert.equal(counters.end(), null);
  });
});

describe('work counters per request (assess)', () => {
  const counters = { allocatedBytes: 46_000, syscalls: 6, socketBytesRead: 120, socketBytesWritten: 900 };

  it('sums the processes, and is unknown when one of them could not count', () => {
    const slice = (second: number | null) => ({
      requestsSinceStart: 1000,
      missing: 0,
      processes: [processHealth({ allocatedBytes: 1000, syscalls: 10 }), processHealth({ allocatedBytes: second, syscalls: 5 })],
    });
    assert.equal(aggregateHealth(slice(500))!.allocatedBytes, 1500);
    assert.equal(aggregateHealth(slice(500))!.syscalls, 15);
    assert.ok(Number.isNaN(aggregateHealth(slice(null))!.allocatedBytes));
    assert.ok(Number.isNaN(aggregateHealth({ ...slice(500), missing: 1 })!.syscalls), 'a process that did not report would read as less work');
  });

  it("divides by the responses the service finished in its windows, the load generator's count where it has none", () => {
    const results = healthResults(4, { base: { ...HEALTHY, counters }, head: { ...HEALTHY, counters } });
    const slice = results.scenarios[0]!.pairs[0]!.base;
    const allocated = HEALTH_METRIC_DEFINITIONS.find((d) => d.id === 'allocated_per_request')!;
    const health = aggregateHealth(slice.health)!;
    assert.equal(allocated.value(slice, { ...health, allocatedBytes: 5e6, responses: 1000 }), 5000);
    assert.equal(allocated.value(slice, { ...health, allocatedBytes: 5e6, responses: 0 }), 5e6 / slice.requests, 'not served by Node\'s http');
    assert.ok(Number.isNaN(allocated.value(slice, { ...health, allocatedBytes: 5e6, responses: Number.NaN })), 'counted by no process');
  });

  it('head allocates 4% more per request: a regression of the allocation counter only, information only by default', () => {
    const results = healthResults(20, { base: { ...HEALTHY, counters }, head: { ...HEALTHY, counters: { ...counters, allocatedBytes: 47_840 } } }, { noise: 0.01 });
    const analysis = assessResults(results);
    const verdict = (metric: CounterMetricId) => analysis.health!.comparisons.find((c) => c.metric === metric)!;
    const allocated = verdict('allocated_per_request');
    assert.equal(allocated.verdict, 'regression');
    assert.equal(allocated.gated, false);
    assert.ok(Math.abs(allocated.change - 0.04) < 0.01, `${allocated.change}`);
    assert.ok(Math.abs(allocated.absoluteChange - 1840) < 400, `${allocated.absoluteChange} bytes`);
    for (const metric of ['syscalls_per_request', 'socket_written_per_request', 'socket_read_per_request'] as const) {
      assert.equal(verdict(metric).verdict, 'unchanged', metric);
    }
    assert.equal(analysis.decision, 'pass');
    const markdown = renderMarkdown(results, analysis);
    assert.match(markdown, /\| allocated \/ request \| 4\d(\.\d)? kB \| 4\d(\.\d)? kB \| head allocates 1\.\d+ kB more per request \(\+[34]\.\d%, CI \+\d\.\d … \+\d\.\d%\) \| ⚠️ regression \|/);
    assert.match(markdown, /\| other work \/ request \| [\d.]+ GCs\/1k · 6(\.\d+)? syscalls · 9\d\d B written · 1\d\d B read \|/);
  });

  it('nothing changed: the counters take one line, kept in the shortened comment', () => {
    const results = healthResults(20, { base: { ...HEALTHY, counters }, head: { ...HEALTHY, counters } }, { noise: 0.01 });
    const rows = counterRows(assessResults(results).health!.comparisons);
    assert.equal(rows.length, 1);
    assert.equal(rows[0]!.metric, 'work / request');
    assert.match(rows[0]!.base, /^4\d(\.\d)? kB allocated · [\d.]+ GCs\/1k · 6(\.\d+)? syscalls · 9\d\d B written · 1\d\d B read$/);
    assert.equal(rows[0]!.notable, true);
  });

  it('says each change in words, with its sign', () => {
    const comparison = (metric: CounterMetricId, absoluteChange: number, change: number): HealthComparison & { metric: CounterMetricId } =>
      ({ metric, scenario: 'GET /', absoluteChange, change, ciLow: change - 0.012, ciHigh: change + 0.012 }) as HealthComparison & { metric: CounterMetricId };
    assert.equal(describeCounterChange(comparison('allocated_per_request', 1900, 0.041)), 'head allocates 1.9 kB more per request (+4.1%, CI +2.9 … +5.3%)');
    assert.equal(describeCounterChange(comparison('syscalls_per_request', -1, -0.16)), 'head makes 1 fewer system calls per request (−16.0%, CI −17.2 … −14.8%)');
    assert.equal(describeCounterChange(comparison('socket_written_per_request', -120, -0.03)), 'head writes 120 B less to sockets per request (−3.0%, CI −4.2 … −1.8%)');
    assert.equal(describeCounterChange(comparison('gc_count_per_request', 0.4, 0.2)), 'head runs 0.4 more garbage collections per 1,000 requests (+20.0%, CI +18.8 … +21.2%)');
    // Too few start pairs for an interval (a run stopped at its first look): the change alone.
    const early = { ...comparison('allocated_per_request', 21_000, 4.02), ciLow: Number.NEGATIVE_INFINITY, ciHigh: Number.POSITIVE_INFINITY };
    assert.equal(describeCounterChange(early), 'head allocates 21 kB more per request (+402%)');
  });
});
