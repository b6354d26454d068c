import type { EventEmitter } from 'node:events';
import autocannon from 'autocannon';
import { setTimeout as sleep } from 'node:timers/promises';
import type * as hdr from 'hdr-histogram-js';
import type { ScenarioConfig } from '../../config/types.js';
import { countWindow, isExpectedStatus, openingLeadMs, latencyHistogram, latencyOf, type LoadOptions, type LoadRun, type LoadWindow, RequestTally, statusCounts, type WindowSample } from './window.js';
import { type Captured, RequestPlan, type RowCursor } from './requests.js';

type Instance = Promise<autocannon.Result> & EventEmitter & { stop(): void };

/** One target's connections and what its current window has counted. */
interface Target {
  instance: Instance;
  histogram: hdr.Histogram | null;
  responses: number;
  non2xx: number;
  /** The window's unexpected statuses, by status. */
  statuses: Map<number, number>;
  errors: number;
  timeouts: number;
  /** Responses since the last window closed (or since the connections opened), counted or not. */
  served: number;
  /** Several requests: the window's count per request. */
  tally: RequestTally | null;
  /** The request the response being handled answered, and whether it lacked a value to capture (set by its onResponse, read by the 'response' listener that autocannon calls right after, on the same connection). */
  answered: number;
  missed: boolean;
}

/** Per connection (autocannon's request context, fresh at each turn of the requests): the sequence's row and captures. */
interface TurnContext {
  row?: string[] | null;
  captured?: Captured;
}

/** The message of the error autocannon emits (as `reqError`, once per pipelined request) for a request that timed out. */
const TIMED_OUT = 'request timed out';

/**
 * Closed-loop load (every connection sends its next request when the previous one is answered)
 * on one or more services at once, kept up over several measuring windows (`measure`)
 * until `close`: autocannon (in this process) holds the same connections all along. Every
 * target's connections are opened first (a short lead, never counted), then each window counts
 * responses for all targets from the same instant to the same instant. Two services loaded at
 * once on shared CPUs must be measured over exactly the same time: a side whose load started
 * or ended later would have the CPUs to itself for that moment.
 *
 * Why the connections are kept across windows: a window that opens fresh connections measures
 * their start as much as the service. On a 2-vCPU runner with two services of 2 ms of CPU per
 * request sharing one CPU, the first request of several new connections waited 120–390 ms
 * (steady-state p99 about 120 ms), so a 1 s window's p99 came out at 250–330 ms and the
 * head/base p99 ratio of one window spread by 26–34% (SD); over windows of continuous load it
 * was 120 ms and 3–7.5% (plain http: 14% against 6%), with the same throughput ratios
 * (docs/calibration-log.md, "Fresh connections in every slice").
 *
 * Every response time in a window goes into an HdrHistogram at µs resolution (autocannon's own
 * histogram is in whole milliseconds, too coarse for a fast service whose p99 may be 1.2 ms).
 * Requests per second are counted by us over our own monotonic clock.
 */
export class ClosedLoopLoad implements LoadRun {
  private readonly targets: Target[];
  private readonly pipelining: number;
  private counting = false;

  private constructor(
    baseUrls: string[],
    scenario: ScenarioConfig,
    /** The longest this session may load (its windows and the gaps between them): autocannon's backstop. */
    maxMs: number,
    sliceMs: number,
  ) {
    this.pipelining = scenario.pipelining;
    const plan = RequestPlan.of(scenario);
    this.targets = baseUrls.map((baseUrl) => {
      const target = {
        histogram: null,
        responses: 0,
        non2xx: 0,
        statuses: new Map(),
        errors: 0,
        timeouts: 0,
        served: 0,
        tally: plan.perRequest ? new RequestTally(plan.requests.map((r) => r.name)) : null,
        answered: -1,
        missed: false,
      } as Omit<Target, 'instance'> as Target;
      target.instance = autocannon({
        // One plain request is sent as before: a prebuilt buffer, no work per response.
        ...(plan.plain
          ? {
              url: `${baseUrl}${scenario.path}`,
              method: scenario.method as autocannon.Request['method'],
              headers: scenario.headers,
              body: scenario.body ?? undefined,
            }
          : { url: baseUrl, requests: autocannonRequests(plan, target) }),
        connections: scenario.connections,
        pipelining: scenario.pipelining,
        // stopped by us in close(); this is only a backstop
        duration: maxMs / 1000 + 30,
        // autocannon checks its stop flag only on its sampling tick (default every 1000 ms):
        // tick often enough that the run ends promptly when stopped.
        sampleInt: Math.max(10, Math.min(100, Math.round(sliceMs / 20))),
        // a window must not wait 10 s for a stuck request; a timeout is counted and reported
        timeout: Math.max(2, Math.ceil(sliceMs / 1000) * 2),
      }) as unknown as Instance; // without a callback it is both
      const onResponse = plan.plain
        ? (_client: unknown, statusCode: number, _bytes: number, responseTimeMs: number) => {
            target.served++;
            if (!this.counting || !target.histogram) return;
            target.responses++;
            if (!isExpectedStatus(scenario, statusCode)) {
              target.non2xx++;
              target.statuses.set(statusCode, (target.statuses.get(statusCode) ?? 0) + 1);
            }
            target.histogram.recordValue(Math.max(1, Math.round(responseTimeMs * 1000)));
          }
        : (_client: unknown, statusCode: number, _bytes: number, responseTimeMs: number) => {
            target.served++;
            const answered = target.answered;
            const missed = target.missed;
            target.answered = -1;
            target.missed = false;
            if (!this.counting || !target.histogram) return;
            target.responses++;
            const unexpected = !isExpectedStatus(scenario, statusCode);
            const failed = missed || unexpected;
            if (failed) target.non2xx++;
            if (unexpected) target.statuses.set(statusCode, (target.statuses.get(statusCode) ?? 0) + 1);
            target.histogram.recordValue(Math.max(1, Math.round(responseTimeMs * 1000)));
            target.tally?.record(answered, responseTimeMs * 1000, failed);
          };
      target.instance.on('response', onResponse);
      target.instance.on('reqError', (error: Error) => {
        if (!this.counting) return;
        target.errors++;
        if (error?.message === TIMED_OUT) target.timeouts++;
      });
      return target;
    });
  }

  /**
   * Opens the connections to every target, in the order given, and waits a short lead so that
   * no window counts their opening. `maxMs`: how long the session will load at most (its windows
   * and the gaps between them); `sliceMs`: its windows' length, which sets autocannon's tick and
   * request timeout.
   */
  static async open(baseUrls: string[], scenario: ScenarioConfig, options: LoadOptions): Promise<ClosedLoopLoad> {
    const session = new ClosedLoopLoad(baseUrls, scenario, options.maxMs, options.sliceMs);
    await sleep(openingLeadMs(options.sliceMs));
    return session;
  }

  /** One window of `durationMs` on every target at once; `served` is every response since the previous window closed. */
  async measure(durationMs: number, window: LoadWindow = {}): Promise<WindowSample[]> {
    for (const target of this.targets) {
      target.histogram = latencyHistogram();
      target.tally?.open();
      Object.assign(target, { responses: 0, non2xx: 0, statuses: new Map(), errors: 0, timeouts: 0 });
    }
    const { startedAt, windowMs } = await countWindow(durationMs, window, (on) => {
      this.counting = on;
    });
    return this.targets.map((target) => {
      const histogram = target.histogram!;
      target.histogram = null;
      const latencyUs = latencyOf(histogram);
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
        // autocannon reports a failed connection once per pipelined request
        errors: Math.ceil(target.errors / this.pipelining),
        timeouts: Math.ceil(target.timeouts / this.pipelining),
        ...(target.tally && { byRequest: target.tally.close() }),
        served,
      };
    });
  }

  /** Stops the load on every target and waits until autocannon has let go of the connections; throws autocannon's own error, if it failed. */
  async close(): Promise<void> {
    this.counting = false;
    for (const target of this.targets) target.instance.stop();
    const settled = await Promise.allSettled(this.targets.map((target) => target.instance));
    const failed = settled.find((s) => s.status === 'rejected');
    if (failed) throw failed.reason;
  }
}

/**
 * A plan as autocannon's `requests`: one turn of the mix (or the sequence), which every
 * connection sends round and round with its own context (fresh at each turn). Each request is
 * built just before it is sent: a mix takes the next row of values for each request that uses
 * one, a sequence takes one row per turn and fills in what its earlier requests captured. A
 * request that needs a value its sequence failed to capture is not sent (setupRequest returns
 * null): autocannon starts the turn over. onResponse tells the target which request was answered,
 * for the per-request breakdown, and whether it lacked a value it should have given.
 */
function autocannonRequests(plan: RequestPlan, target: Target): autocannon.Request[] {
  // One cursor per target: its connections take the rows in turn, and each side sees the same rows.
  const rows: RowCursor | null = plan.rowCursor();
  return plan.order.map((index, position): autocannon.Request => {
    const needsBody = plan.needsBody(index);
    return {
      setupRequest: ((request: autocannon.Request, context: TurnContext) => {
        if (plan.sequence && position === 0) {
          context.row = rows?.next() ?? null;
          context.captured = {};
        }
        const row = plan.sequence ? (context.row ?? null) : plan.usesRow(index) ? rows!.next() : null;
        const built = plan.build(index, row, context.captured ?? null);
        if (!built) return null;
        const { body, ...rest } = built;
        return { ...request, ...rest, method: rest.method as autocannon.Request['method'], ...(body !== null && { body }) };
      }) as unknown as autocannon.Request['setupRequest'],
      ...((plan.perRequest || plan.captures) && {
        onResponse: ((_status: number, body: string, context: TurnContext, headers: Record<string, string | string[]>) => {
          target.answered = index;
          if (!plan.requests[index]!.capture) return;
          context.captured ??= {};
          if (!plan.capture(index, needsBody ? body : '', headers, context.captured)) target.missed = true;
        }) as unknown as autocannon.Request['onResponse'],
      }),
    };
  });
}
