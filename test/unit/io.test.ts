import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { assessResults } from '../../src/assess/compare.js';
import { analyzeIo } from '../../src/assess/io.js';
import { renderIoMarkdown, renderMarkdown } from '../../src/report/markdown.js';
import { renderIoTerminal, renderTerminal } from '../../src/report/terminal.js';
import { validateResults } from '../../src/results/validate.js';
import type { Results, Side } from '../../src/results/types.js';
import { createRandom } from '../../src/stats/random.js';
import { processHealth } from '../helpers/health.js';
import { resultsFromPairs } from '../helpers/results.js';

const PG = '127.0.0.1:5432';

/** Per side: round trips and wait (ms) per request to PG, and the requests each slice finished. */
type IoSpec = { roundTrips: number; waitMs: number };

/** 12 pairs, 2 per start pair, whose slices carry I/O counts wobbling by a seeded ±noise (round trips stay whole). */
function ioResults(specs: Record<Side, IoSpec | null>, noise = 0.1, seed = 3): Results {
  const rand = createRandom(seed);
  const wobble = () => 1 + noise * (2 * rand() - 1);
  const results = resultsFromPairs(
    Array.from({ length: 12 }, () => [1000, 1000]),
    {},
    2,
  );
  for (const pair of results.scenarios[0]!.pairs) {
    for (const side of ['base', 'head'] as Side[]) {
      const spec = specs[side];
      const requests = Math.round(300 * wobble());
      const io = spec === null ? [] : [{ destination: PG, roundTrips: Math.round(spec.roundTrips * requests * wobble()), waitMs: spec.waitMs * requests * wobble() }];
      pair[side].health = { requestsSinceStart: 10_000, missing: 0, processes: [processHealth({ io, ioRequests: requests })] };
    }
  }
  return results;
}

describe('I/O per request', () => {
  it('an N+1 query: 1 → 21 round trips per request, and the wait with them, changed; the reports say so', () => {
    const results = ioResults({ base: { roundTrips: 1, waitMs: 0.4 }, head: { roundTrips: 21, waitMs: 6.1 } });
    const [c] = analyzeIo(results)!.comparisons;
    assert.equal(c!.destination, PG);
    assert.ok(Math.abs(c!.base!.roundTripsPerRequest - 1) < 0.15 && Math.abs(c!.head!.roundTripsPerRequest - 21) < 2);
    assert.equal(c!.roundTripsChanged, true);
    assert.equal(c!.waitChanged, true);
    const analysis = assessResults(results);
    assert.deepEqual(analysis.io, analyzeIo(results), 'assessResults carries it');
    const markdown = renderIoMarkdown(analysis)!;
    assert.match(markdown, /^\*\*I\/O per request\*\* · round trips/);
    assert.match(markdown, /- GET \/hello · \*\*127\.0\.0\.1:5432: 1\.0 → 2\d\.\d round trips per request, 0\.4 → [56]\.\d ms waiting\*\*: more round trips per request: a query per item \(N\+1\)/);
    assert.match(renderIoTerminal(analysis).join('\n'), /GET \/hello · 127\.0\.0\.1:5432: 1\.0 → 2\d\.\d round trips per request, 0\.4 → [56]\.\d ms waiting: more round trips/);
    // and both full reports carry the section
    assert.match(renderMarkdown(results, analysis), /\*\*I\/O per request\*\*/);
    assert.match(renderTerminal(results, analysis, { full: true }), /I\/O per request — /);
  });

  it('exact counts: almost every start exactly 20 round trips apart, one start off by an edge, is a change', () => {
    // A service that makes exactly 1 or 21 queries per request gives the same per-start
    // difference nearly every time; ties that heavy must not hide the change.
    const results = ioResults({ base: { roundTrips: 1, waitMs: 0.4 }, head: { roundTrips: 21, waitMs: 6.1 } }, 0);
    const pairs = results.scenarios[0]!.pairs;
    const io = pairs[0]!.head.health!.processes[0]!.io![0]!;
    io.roundTrips -= 7; // a few requests' queries ended in the next slice
    const [c] = analyzeIo(results)!.comparisons;
    assert.equal(c!.roundTripsChanged, true, JSON.stringify(c));
  });

  it('a dropped index: as many round trips, each waiting ten times longer', () => {
    const results = ioResults({ base: { roundTrips: 1, waitMs: 0.5 }, head: { roundTrips: 1, waitMs: 5 } });
    const [c] = analyzeIo(results)!.comparisons;
    assert.equal(c!.roundTripsChanged, false);
    assert.equal(c!.waitChanged, true);
    assert.match(renderIoMarkdown(assessResults(results))!, /1\.0 → 1\.0 round trips per request, 0\.5 → [45]\.\d ms waiting\*\*: as many round trips, each answered later/);
  });

  it('the same I/O on both sides, with noise, is unchanged', () => {
    for (const seed of [1, 2, 3, 4, 5]) {
      const results = ioResults({ base: { roundTrips: 3, waitMs: 1.2 }, head: { roundTrips: 3, waitMs: 1.2 } }, 0.15, seed);
      const [c] = analyzeIo(results)!.comparisons;
      assert.equal(c!.roundTripsChanged || c!.waitChanged, false, `seed ${seed}: ${JSON.stringify(c)}`);
      assert.match(renderIoMarkdown(assessResults(results))!, /[23]\.\d → [23]\.\d round trips per request, 1\.\d → 1\.\d ms waiting \(unchanged\)/);
    }
  });

  it('a destination only head talks to is new', () => {
    const results = ioResults({ base: null, head: { roundTrips: 2, waitMs: 0.3 } });
    const [c] = analyzeIo(results)!.comparisons;
    assert.equal(c!.base, null);
    assert.equal(c!.roundTripsChanged, true);
    assert.match(renderIoMarkdown(assessResults(results))!, /none → 2\.0 round trips per request, none → 0\.3 ms waiting\*\*: a new destination/);
  });

  it('a run without I/O counts (no outgoing connection, or results from before) has no section', () => {
    const results = resultsFromPairs([[1000, 1000], [1000, 1010]]);
    assert.equal(assessResults(results).io, undefined);
    assert.equal(renderIoMarkdown(assessResults(results)), null);
    assert.deepEqual(renderIoTerminal(assessResults(results)), []);
  });

  it('named calls (a client that publishes them) go under a changed line, matched to the socket\'s destination, the most changed first', () => {
    const results = ioResults({ base: { roundTrips: 1, waitMs: 0.4 }, head: { roundTrips: 21, waitMs: 6.1 } });
    const ORDER = 'SELECT * FROM orders WHERE customer_id = $1';
    const ITEM = 'SELECT * FROM items WHERE order_id = $1';
    for (const pair of results.scenarios[0]!.pairs) {
      for (const side of ['base', 'head'] as Side[]) {
        const health = pair[side].health!.processes[0]!;
        const requests = health.ioRequests;
        // The client names its server as it was given, localhost; the socket has the address.
        health.queries = [
          { destination: 'localhost:5432', name: ORDER, calls: requests, waitMs: 0.3 * requests },
          ...(side === 'head' ? [{ destination: 'localhost:5432', name: ITEM, calls: 20 * requests, waitMs: 5 * requests }] : []),
          { destination: '10.0.0.9:5432', name: 'not this server', calls: requests, waitMs: 1 },
        ];
      }
    }
    const [c] = analyzeIo(results)!.comparisons;
    assert.deepEqual(
      c!.named.map((n) => [n.name, n.base, n.head]),
      [
        [ITEM, 0, 20],
        [ORDER, 1, 1],
      ],
    );
    const markdown = renderIoMarkdown(assessResults(results))!;
    assert.match(markdown, /more round trips per request: [^\n]*; most changed: SELECT [^\n]*FROM items WHERE order\\_id = \\\$1 \(0 → 20 calls per request\)/);
    assert.match(renderIoTerminal(assessResults(results)).join('\n'), /; most changed: SELECT \* FROM items WHERE order_id = \$1 \(0 → 20 calls per request\)/);

    const same = ioResults({ base: { roundTrips: 1, waitMs: 0.4 }, head: { roundTrips: 1, waitMs: 0.4 } }, 0.02);
    for (const pair of same.scenarios[0]!.pairs) {
      for (const side of ['base', 'head'] as Side[]) {
        const health = pair[side].health!.processes[0]!;
        health.queries = [{ destination: PG, name: ORDER, calls: health.ioRequests, waitMs: 1 }];
      }
    }
    assert.doesNotMatch(renderIoTerminal(assessResults(same)).join('\n'), /calls per request/, 'an unchanged line names nothing');
  });

  it('a pipelining client: the calls of a name changed beyond the noise while the round trips moved by less than half a trip, and the line says so', () => {
    const results = ioResults({ base: { roundTrips: 0.15, waitMs: 0.2 }, head: { roundTrips: 0.15, waitMs: 0.2 } }, 0.02);
    for (const pair of results.scenarios[0]!.pairs) {
      for (const side of ['base', 'head'] as Side[]) {
        const health = pair[side].health!.processes[0]!;
        health.queries = [{ destination: PG, name: 'GET', calls: (side === 'base' ? 1 : 2) * health.ioRequests, waitMs: 1 }];
      }
    }
    const [c] = analyzeIo(results)!.comparisons;
    assert.deepEqual([c!.roundTripsChanged, c!.named[0]!.changed], [false, true]);
    assert.match(renderIoTerminal(assessResults(results)).join('\n'), /more calls per request, pipelined: [^\n]*; most changed: GET \(1\.0 → 2\.0 calls per request\)/);
  });

  it('results.json keeps the counts through validation', () => {
    const results = ioResults({ base: { roundTrips: 1, waitMs: 0.4 }, head: { roundTrips: 21, waitMs: 6.1 } });
    const again = validateResults(JSON.parse(JSON.stringify(results)), 'results.json');
    assert.deepEqual(again.scenarios[0]!.pairs[0]!.head.health!.processes[0]!.io, results.scenarios[0]!.pairs[0]!.head.health!.processes[0]!.io);
    assert.equal(again.scenarios[0]!.pairs[0]!.head.health!.processes[0]!.ioRequests, results.scenarios[0]!.pairs[0]!.head.health!.processes[0]!.ioRequests);
  });
});
