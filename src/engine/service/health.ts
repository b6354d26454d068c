/**
 * The engine's end of the health channel: a Unix socket per running service, in a private
 * temporary directory, whose path reaches every process of the service as PERFGATE_HEALTH_SOCKET
 * (src/preload/health.cjs connects to it). Per slice the engine opens a window in every connected
 * process ("begin"), sends the load, closes it ("end") and collects one report per process. A
 * process that does not answer in time is left out and counted as missing; a process that
 * disconnects is forgotten. Nothing here ever waits on the service longer than its timeouts.
 *
 * The heap bytes a window allocated are known to the process only once its profile is read
 * (src/preload/counters.cjs), so they come later: `flush()`, when the start's load is over, asks
 * every process for them and writes them into the reports it already handed out (the slices of
 * results.json hold those same objects). Until then, and where a process never answers, they are
 * null: not counted.
 */
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { IoTally, NamedCalls, ProcessHealth, SliceHealth } from '../../results/types.js';

/** How long the engine waits for every process to acknowledge "begin" (an idle process answers in well under 1 ms). */
const BEGIN_TIMEOUT_MS = 1000;
/**
 * How long it waits for the reports after "end". A process whose loop is blocked answers only
 * when the loop frees up (after the requests still queued when the load stopped): long enough for
 * that, short enough that a stuck service cannot stall the run.
 */
const END_TIMEOUT_MS = 5000;
/**
 * How long the engine waits for the allocated bytes after "flush": an idle process reads its
 * profile in a few ms (about 1.5 kB of it per collection since its first window).
 */
const FLUSH_TIMEOUT_MS = 2000;
/** Longest line a process may send (a report is ~500 bytes; the allocations of a start's windows ~40 bytes each). */
const MAX_LINE = 256 * 1024;
/** Unix socket paths are limited to 107 bytes on Linux (sun_path). */
const MAX_SOCKET_PATH = 100;

interface Peer {
  socket: Socket;
  pending: string;
  /** The window this process acknowledged last. */
  begun: number;
  /** Its report for that window, once received. */
  report: ProcessHealth | null;
  /** Its reports since the last flush, by window, to be given their allocated bytes. */
  reports: Map<number, ProcessHealth>;
  /** Whether it answered the last flush. */
  flushed: boolean;
}

export interface WindowReports {
  processes: ProcessHealth[];
  /** Processes that acknowledged the window but did not report in time. */
  missing: number;
}

export class HealthChannel {
  private readonly peers = new Set<Peer>();
  private nextId = 1;
  private changed: (() => void) | null = null;

  private constructor(
    readonly socketPath: string,
    private readonly dir: string,
    private readonly server: Server,
  ) {
    server.on('connection', (socket) => this.accept(socket));
  }

  /**
   * Listens on a new socket in a private (0700) temporary directory. `otherUser`: the service
   * runs as another user (head's), to whom the caller gives the socket; its directory is then
   * 0711, which lets that user reach the socket by its path but not list the directory.
   */
  static async open(otherUser = false): Promise<HealthChannel> {
    let dir = mkdtempSync(join(tmpdir(), 'perfgate-health-'));
    if (join(dir, 'health.sock').length > MAX_SOCKET_PATH) {
      rmSync(dir, { recursive: true, force: true });
      dir = mkdtempSync('/tmp/perfgate-health-');
    }
    const path = join(dir, 'health.sock');
    const server = createServer();
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(path, () => {
        server.off('error', reject);
        resolve();
      });
    });
    server.unref();
    if (otherUser) chmodSync(dir, 0o711);
    return new HealthChannel(path, dir, server);
  }

  /** Processes connected now. */
  get connected(): number {
    return this.peers.size;
  }

  private accept(socket: Socket): void {
    const peer: Peer = { socket, pending: '', begun: 0, report: null, reports: new Map(), flushed: false };
    this.peers.add(peer);
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      peer.pending += chunk;
      if (peer.pending.length > MAX_LINE) {
        socket.destroy(); // not our preload
        return;
      }
      for (let newline = peer.pending.indexOf('\n'); newline >= 0; newline = peer.pending.indexOf('\n')) {
        const line = peer.pending.slice(0, newline);
        peer.pending = peer.pending.slice(newline + 1);
        this.receive(peer, line);
      }
    });
    const forget = () => {
      this.peers.delete(peer);
      this.changed?.();
    };
    socket.on('error', forget);
    socket.on('close', forget);
  }

  private receive(peer: Peer, line: string): void {
    let message: Record<string, unknown>;
    try {
      message = JSON.parse(line);
    } catch {
      return;
    }
    if (message.op === 'begun' && typeof message.id === 'number') peer.begun = message.id;
    else if (message.op === 'report' && message.id === peer.begun) {
      peer.report = toProcessHealth(message);
      peer.reports.set(peer.begun, peer.report);
    } else if (message.op === 'allocations') {
      this.fillAllocations(peer, message.windows);
      peer.flushed = true;
    }
    this.changed?.();
  }

  private send(peer: Peer, message: object): void {
    if (!peer.socket.destroyed) peer.socket.write(`${JSON.stringify(message)}\n`);
  }

  /** Resolves when `done()` holds or after `timeoutMs`, re-checking whenever a process writes or leaves. */
  private waitUntil(done: () => boolean, timeoutMs: number): Promise<void> {
    return new Promise((resolve) => {
      const finish = () => {
        clearTimeout(timer);
        this.changed = null;
        resolve();
      };
      const timer = setTimeout(finish, timeoutMs);
      this.changed = () => {
        if (done()) finish();
      };
      this.changed();
    });
  }

  /** Opens a window in every connected process; returns its id once all acknowledged (or the timeout passed). */
  async begin(): Promise<number> {
    const id = this.nextId++;
    for (const peer of this.peers) {
      peer.report = null;
      this.send(peer, { op: 'begin', id });
    }
    await this.waitUntil(() => [...this.peers].every((p) => p.begun === id), BEGIN_TIMEOUT_MS);
    return id;
  }

  /** Closes window `id` and collects the reports of the processes that opened it. */
  async end(id: number): Promise<WindowReports> {
    const opened = () => [...this.peers].filter((p) => p.begun === id);
    for (const peer of this.peers) this.send(peer, { op: 'end', id });
    await this.waitUntil(() => opened().every((p) => p.report !== null), END_TIMEOUT_MS);
    const processes = opened().flatMap((p) => (p.report === null ? [] : [p.report]));
    return { processes, missing: opened().length - processes.length };
  }

  /**
   * Asks every process for the allocated bytes of its windows since the last flush and writes
   * them into their reports; resolves once all answered or after the timeout. Call it when no
   * window is open and the start's load is over: reading the profile takes the process's loop.
   */
  async flush(): Promise<void> {
    for (const peer of this.peers) {
      peer.flushed = false;
      this.send(peer, { op: 'flush' });
    }
    await this.waitUntil(() => [...this.peers].every((p) => p.flushed), FLUSH_TIMEOUT_MS);
    for (const peer of this.peers) peer.reports.clear();
  }

  private fillAllocations(peer: Peer, windows: unknown): void {
    if (!Array.isArray(windows)) return;
    for (const window of windows as Array<Record<string, unknown> | null>) {
      const report = typeof window?.id === 'number' ? peer.reports.get(window.id) : undefined;
      if (report) report.allocatedBytes = toCount(window!.allocatedBytes);
    }
  }

  /** Disconnects every process (they stop measuring and carry on) and removes the socket; safe to call twice. */
  close(): void {
    if (!this.server.listening) return;
    for (const peer of this.peers) peer.socket.destroy();
    this.peers.clear();
    this.server.close();
    rmSync(this.dir, { recursive: true, force: true });
  }
}

const GC_KINDS = ['minor', 'major', 'incremental', 'weakcb'] as const;

function finite(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) ? value : 0;
}

/** A report line as results.json stores it: only the known fields, numbers checked (the line comes from the service's process). */
export function toProcessHealth(message: Record<string, unknown>): ProcessHealth {
  const delay = message.eventLoopDelayUs as Record<string, unknown> | null | undefined;
  const gc = (message.gc ?? {}) as Record<string, Record<string, unknown> | undefined>;
  const heapAfterGc = message.heapAfterGcBytes;
  return {
    pid: finite(message.pid),
    ppid: finite(message.ppid),
    worker: message.worker === true,
    windowMs: finite(message.windowMs),
    eventLoopDelayUs:
      delay && typeof delay === 'object'
        ? { p50: finite(delay.p50), p99: finite(delay.p99), max: finite(delay.max), samples: finite(delay.samples) }
        : null,
    eventLoopUtilization: finite(message.eventLoopUtilization),
    gc: Object.fromEntries(GC_KINDS.map((k) => [k, { count: finite(gc[k]?.count), ms: finite(gc[k]?.ms) }])) as ProcessHealth['gc'],
    heapUsedBytes: finite(message.heapUsedBytes),
    heapAfterGcBytes: typeof heapAfterGc === 'number' && Number.isFinite(heapAfterGc) ? heapAfterGc : null,
    rssBytes: finite(message.rssBytes),
    activeHandles: finite(message.activeHandles),
    io: toIoTallies(message.io),
    ioRequests: Math.max(0, Math.round(finite(message.ioRequests))),
    queries: toNamedCalls(message.queries),
    allocatedBytes: toCount(message.allocatedBytes),
    syscalls: toCount(message.syscalls),
    socketBytesRead: toCount(message.socketBytesRead),
    socketBytesWritten: toCount(message.socketBytesWritten),
    responses: toCount(message.responses),
  };
}

/** A work counter as results.json stores it: a whole number ≥ 0, or null when the process could not count it. */
function toCount(value: unknown): number | null {
  return typeof value === 'number' && Number.isFinite(value) ? Math.max(0, Math.round(value)) : null;
}

/** Most destinations kept per process and window, and the longest destination name (the preload sends at most 20). */
const MAX_DESTINATIONS = 20;
const MAX_DESTINATION_CHARS = 300;

function toIoTallies(value: unknown): IoTally[] {
  if (!Array.isArray(value)) return [];
  return value.slice(0, MAX_DESTINATIONS).flatMap((entry: Record<string, unknown> | null) =>
    entry && typeof entry.destination === 'string'
      ? [{ destination: entry.destination.slice(0, MAX_DESTINATION_CHARS), roundTrips: Math.max(0, Math.round(finite(entry.roundTrips))), waitMs: Math.max(0, finite(entry.waitMs)) }]
      : [],
  );
}

/** Most names kept per process and window (the preload sends at most 50 and one "other" per destination), and the longest name. */
const MAX_NAMES = 100;
const MAX_NAME_CHARS = 300;

function toNamedCalls(value: unknown): NamedCalls[] {
  if (!Array.isArray(value)) return [];
  return value.slice(0, MAX_NAMES).flatMap((entry: Record<string, unknown> | null) =>
    entry && typeof entry.destination === 'string' && typeof entry.name === 'string'
      ? [
          {
            destination: entry.destination.slice(0, MAX_DESTINATION_CHARS),
            name: entry.name.slice(0, MAX_NAME_CHARS),
            calls: Math.max(0, Math.round(finite(entry.calls))),
            waitMs: Math.max(0, finite(entry.waitMs)),
          },
        ]
      : [],
  );
}

/** A slice's health record from its window's reports; null when no process reported (not Node.js, or the preload could not connect). */
export function sliceHealth(reports: WindowReports | null, requestsSinceStart: number): SliceHealth | null {
  if (reports === null || reports.processes.length === 0) return null;
  return { requestsSinceStart, missing: reports.missing, processes: reports.processes };
}
