import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import type * as hdr from 'hdr-histogram-js';
import { Pool } from 'undici';
import type { ScenarioConfig } from '../../config/types.js';
import { countWindow, isExpectedStatus, openingLeadMs, latencyHistogram, latencyOf, type LoadOptions, type LoadRun, type LoadWindow, RequestTally, statusCounts, type WindowSample } from './window.js';
import { type BuiltRequest, type Captured, RequestPlan, type RowCursor } from './requests.js';

/**
 * A sequence's virtual user: it sends the sequence's requests one after the other, each when the
 * previous one has answered and the next slot of the schedule that is its own has come. A slot
 * that comes while it still waits waits with it, its latency counted from its own intended time.
 */
interface VirtualUser {
  /** The index in the sequence of the request it sends next. */
  position: number;
  row: string[] | null;
  captured: Captured;
  busy: boolean;
  /** Intended send times of its slots that came while it was busy, in order. */
  waiting: number[];
}

/** One target's connection pool and what its current window has counted. */
interface Target {
  pool: Pool;
  /** Requests sent and not yet answered (or failed). */
  outstanding: number;
  histogram: hdr.Histogram | null;
  /** How late each request of the window left against its intended time, µs: the generator's own delay. */
  lag: hdr.Histogram | null;
  responses: number;
  non2xx: number;
  /** The window's unexpected statuses, by status. */
  statuses: Map<number, number>;
  errors: number;
  timeouts: number;
  sent: number;
  dropped: number;
  /** Responses since the last window closed (or since the load opened), counted or not. */
  served: number;
  /** Several requests: the window's count per request. */
  tally: RequestTally | null;
  /** The values file's rows, taken in turn by this target's requests (null: no values). */
  rows: RowCursor | null;
  /** A sequence's virtual users (one per connection); empty for a mix. */
  users: VirtualUser[];
}

/** The longest the scheduler sleeps between two looks at its clock, ms: a late tick delays the requests due in it, and that delay is measured (lag), not hidden. */
const MAX_TICK_MS = 5;

/**
 * Fixed-rate (open-loop) load: the k-th request to each target is due at t0 + k/rate, whatever
 * the service is doing, and its latency runs from that intended instant to the end of its
 * response. A service that stalls for 50 ms delays every request that fell due in those 50 ms,
 * and each of them is counted with its wait; a closed loop (autocannon's default) sends nothing
 * while the service stalls, so the stall shows as one slow request per connection (coordinated
 * omission; Tene, "How NOT to measure latency"). autocannon's `overallRate` paces a closed loop
 * (its connections wait for answers, so a stall still stops the sending: #187), and its `-C`
 * correction only adds synthetic samples to its millisecond histogram afterwards: hence a
 * scheduler of our own, on undici's pool.
 *
 * Requests that find every connection busy wait in the pool's queue, and that wait is part of
 * their latency (as it would be for a user). At most `rate × timeout` requests are outstanding per
 * target: beyond that a due request is not sent and is counted as dropped, so a service that
 * cannot keep up shows as a lower achieved rate and dropped requests, not as unbounded memory in
 * the generator. The generator's own delay (how late a due request actually left) is measured
 * per window, so a run where perfgate could not keep its schedule says so.
 */
export class FixedRateLoad implements LoadRun {
  private readonly targets: Target[];
  private readonly intervalMs: number;
  private readonly maxOutstanding: number;
  private readonly t0 = performance.now();
  /** Requests scheduled so far per target (all targets share one schedule). */
  private scheduled = 0;
  private timer: NodeJS.Timeout | null = null;
  private closed = false;
  private counting = false;
  private readonly plan: RequestPlan;

  private constructor(
    baseUrls: string[],
    private readonly scenario: ScenarioConfig,
    private readonly ratePerSecond: number,
    sliceMs: number,
  ) {
    this.intervalMs = 1000 / ratePerSecond;
    const timeoutMs = Math.max(2, Math.ceil(sliceMs / 1000) * 2) * 1000;
    this.maxOutstanding = Math.max(scenario.connections * scenario.pipelining, Math.ceil((ratePerSecond * timeoutMs) / 1000));
    const plan = RequestPlan.of(scenario);
    this.plan = plan;
    this.targets = baseUrls.map((baseUrl) => ({
      pool: new Pool(baseUrl, {
        connections: scenario.connections,
        pipelining: scenario.pipelining,
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
        keepAliveTimeout: 60_000,
      }),
      outstanding: 0,
      histogram: null,
      lag: null,
      responses: 0,
      non2xx: 0,
      statuses: new Map(),
      errors: 0,
      timeouts: 0,
      sent: 0,
      dropped: 0,
      served: 0,
      tally: plan.perRequest ? new RequestTally(plan.requests.map((r) => r.name)) : null,
      rows: plan.rowCursor(),
      users: plan.sequence
        ? Array.from({ length: scenario.connections }, (): VirtualUser => ({ position: 0, row: null, captured: {}, busy: false, waiting: [] }))
        : [],
    }));
  }

  /** Starts the schedule on every target and waits a short lead, so no window counts the connections' opening. */
  static async open(baseUrls: string[], scenario: ScenarioConfig, options: LoadOptions): Promise<FixedRateLoad> {
    const rate = options.ratePerSecond;
    if (!rate || !(rate > 0)) throw new Error(`FixedRateLoad.open: no rate for scenario "${scenario.name}"`);
    const load = new FixedRateLoad(baseUrls, scenario, rate, options.sliceMs);
    load.tick();
    await sleep(openingLeadMs(options.sliceMs));
    return load;
  }

  /** Sends every request that has fallen due, then sleeps until the next one is due (at most MAX_TICK_MS). */
  private tick(): void {
    this.timer = null;
    if (this.closed) return;
    const now = performance.now();
    const due = Math.floor((now - this.t0) / this.intervalMs) + 1;
    for (; this.scheduled < due; this.scheduled++) {
      const intended = this.t0 + this.scheduled * this.intervalMs;
      for (const target of this.targets) this.send(target, this.scheduled, intended, now);
    }
    const next = this.t0 + this.scheduled * this.intervalMs - performance.now();
    this.timer = setTimeout(() => this.tick(), Math.max(0, Math.min(MAX_TICK_MS, next)));
  }

  /**
   * The `slot`-th request of the schedule, due at `intended`: the mix's next request, or a step of
   * the sequence of the virtual user whose slot it is (`slot` modulo the users, so each user
   * has every users-th slot). Not sent, and counted as dropped, when the target already has a
   * timeout's worth of requests outstanding.
   */
  private send(target: Target, slot: number, intended: number, now: number): void {
    const counted = this.counting;
    if (target.outstanding >= this.maxOutstanding) {
      if (counted) target.dropped++;
      return;
    }
    if (counted) {
      target.sent++;
      target.lag?.recordValue(Math.max(1, Math.round((now - intended) * 1000)));
    }
    target.outstanding++;
    const { plan } = this;
    if (plan.sequence) {
      const user = target.users[slot % target.users.length]!;
      if (user.busy) user.waiting.push(intended);
      else this.step(target, user, intended);
      return;
    }
    const index = plan.order[slot % plan.order.length]!;
    const built = plan.build(index, plan.usesRow(index) ? target.rows!.next() : null, null)!;
    void this.dispatch(target, index, built, intended).finally(() => {
      target.outstanding--;
    });
  }

  /** A virtual user's next request of its sequence; then, when it has answered, the next slot that waited for it. */
  private step(target: Target, user: VirtualUser, intended: number): void {
    const { plan } = this;
    user.busy = true;
    if (user.position === 0) {
      user.row = target.rows?.next() ?? null;
      user.captured = {};
    }
    const index = plan.order[user.position]!;
    // Every value it uses was captured by an earlier step (a step whose capture failed sends the user back to the start).
    const built = plan.build(index, user.row, user.captured)!;
    void this.dispatch(target, index, built, intended, user.captured).then((captured) => {
      target.outstanding--;
      user.position = captured ? (user.position + 1) % plan.order.length : 0;
      user.busy = false;
      const next = user.waiting.shift();
      if (next !== undefined && !this.closed) this.step(target, user, next);
    });
  }

  /**
   * Sends one request and counts its answer in the window it ends in. Resolves true when the
   * response gave every value the request captures (or it captures none); never rejects.
   */
  private async dispatch(target: Target, index: number, built: BuiltRequest, intended: number, captured?: Captured): Promise<boolean> {
    const { scenario, plan } = this;
    try {
      const response = await target.pool.request({ path: built.path, method: built.method as 'GET', headers: built.headers, body: built.body });
      let body = '';
      if (plan.needsBody(index)) body = await response.body.text();
      else await response.body.dump();
      const gave = captured ? plan.capture(index, body, response.headers, captured) : true;
      target.served++;
      if (!this.counting || !target.histogram) return gave;
      target.responses++;
      const unexpected = !isExpectedStatus(scenario, response.statusCode);
      const failed = !gave || unexpected;
      if (failed) target.non2xx++;
      if (unexpected) target.statuses.set(response.statusCode, (target.statuses.get(response.statusCode) ?? 0) + 1);
      const latencyUs = (performance.now() - intended) * 1000;
      target.histogram.recordValue(Math.max(1, Math.round(latencyUs)));
      target.tally?.record(index, latencyUs, failed);
      return gave;
    } catch (e) {
      const error = e as Error & { code?: string };
      if (this.closed || !this.counting) return false;
      target.errors++;
      target.tally?.fail(index);
      if (error.code === 'UND_ERR_HEADERS_TIMEOUT' || error.code === 'UND_ERR_BODY_TIMEOUT') target.timeouts++;
      return false;
    }
  }

  /** One window of `durationMs` on every target at once; `served` is every response since the previous window closed. */
  async measure(durationMs: number, window: LoadWindow = {}): Promise<WindowSample[]> {
    for (const target of this.targets) {
      target.histogram = latencyHistogram();
      target.lag = latencyHistogram();
      target.tally?.open();
      Object.assign(target, { responses: 0, non2xx: 0, statuses: new Map(), errors: 0, timeouts: 0, sent: 0, dropped: 0 });
    }
    const { startedAt, windowMs } = await countWindow(durationMs, window, (on) => {
      this.counting = on;
    });
    return this.targets.map((target) => {
      const latencyUs = latencyOf(target.histogram!, true);
      const lag = target.lag!;
      target.histogram = null;
      target.lag = null;
      const offered = {
        ratePerSecond: this.ratePerSecond,
        sent: target.sent,
        dropped: target.dropped,
        lagUsP50: lag.totalCount > 0 ? lag.getValueAtPercentile(50) : 0,
        lagUsP99: lag.totalCount > 0 ? lag.getValueAtPercentile(99) : 0,
      };
      lag.destroy();
      const served = target.served;
      target.served = 0;
      return {
        startedAt,
        durationMs: Math.round(windowMs * 10) / 10,
        requests: target.responses,
        rps: Math.round((target.responses / (windowMs / 1000)) * 10) / 10,
        latencyUs,
        non2xx: target.non2xx,
        ...statusCounts(target.statuses),
        errors: target.errors,
        timeouts: target.timeouts,
        offered,
        ...(target.tally && { byRequest: target.tally.close() }),
        served,
      };
    });
  }

  /** Stops the schedule and drops the connections (requests still in flight are abandoned: no window counts them). */
  async close(): Promise<void> {
    this.closed = true;
    this.counting = false;
    if (this.timer) clearTimeout(this.timer);
    await Promise.allSettled(this.targets.map((target) => target.pool.destroy()));
  }
}
