import type { Principal } from '../auth/caller.js';
import type { GraphExecutor } from '../infra/neo4j.js';
import { AccessCache } from './access-cache.js';
import { type AccessRule, type Admission, type AdmissionDeps, Admitter } from './admission.js';
import { type QuotaDeps, QuotaMeter, type QuotaTicket } from './quota.js';
import { GateRepository } from './repository.js';
import { GateRoundTrip } from './round-trip.js';
import { ChangeSignals } from './signals.js';

export interface GateDeps extends AdmissionDeps, QuotaDeps {
  graph: GraphExecutor;
}

/**
 * The request gate: everything a request asks Redis before it runs (its key's access to the workspace, the
 * workspace's graph generation, the monthly quota and the per-key rate limit) in ONE round trip shared by the
 * requests of an event-loop turn (GateRoundTrip), and the signals that keep those answers true after a change
 * (accessChanged, graphChanged, limitChanged). Access answers are cached in-process under the workspace's auth
 * epoch (AccessCache), so the hot path never reads Neo4j. When Redis cannot be reached, nothing cached is
 * trusted (Neo4j decides) and a metered or rate-limited request is a 503: nothing may be served that cannot be
 * counted.
 *
 * It composes its parts and runs their background work: who may enter (Admitter), the quota (QuotaMeter), the
 * change signals (ChangeSignals).
 */
export class RequestGate {
  private readonly roundTrip: GateRoundTrip;
  private readonly admitter: Admitter;
  private readonly quota: QuotaMeter;
  private readonly signals: ChangeSignals;
  private timers: NodeJS.Timeout[] = [];
  private readonly graphListeners = new Set<(workspaceId: string) => void>();

  constructor(deps: GateDeps) {
    const repo = new GateRepository(deps.graph);
    const cache = new AccessCache();
    this.roundTrip = new GateRoundTrip(deps.redis, deps.logger);
    this.quota = new QuotaMeter(deps, repo);
    this.signals = new ChangeSignals(deps, repo, cache);
    this.admitter = new Admitter(deps, this.roundTrip, repo, cache, this.quota, this.signals);
    // Back from an outage: nothing cached before it is trusted, and what changes owe Redis is delivered first.
    let redisWasDown = false;
    deps.redis.on('error', (err: Error) => deps.logger.debug({ err: err.message }, 'redis connection error'));
    deps.redis.on('close', () => (redisWasDown = true));
    deps.redis.on('ready', () => {
      if (!redisWasDown) return;
      redisWasDown = false;
      cache.clear();
      void this.signals.deliverPendingSignals();
    });
  }

  /** Whether this process still owes Redis a signal of a committed change (the process is not ready meanwhile). */
  get owesSignals(): boolean {
    return this.signals.owesSignals;
  }

  /** Round trips to Redis made for requests so far. */
  get roundTrips(): number {
    return this.roundTrip.count;
  }

  /** See Admitter.admit. */
  admit(token: string | undefined, workspaceId: string, rule: AccessRule): Promise<Admission> {
    return this.admitter.admit(token, workspaceId, rule);
  }

  /** See Admitter.meter. */
  meter(token: string, caller: Admission['caller']): Promise<Omit<Admission, 'caller'> & { quota: QuotaTicket }> {
    return this.admitter.meter(token, caller);
  }

  /** See Admitter.identify. */
  identify(token: string): Promise<Principal | undefined> {
    return this.admitter.identify(token);
  }

  /** See Admitter.authenticate. */
  authenticate(token: string | undefined): Promise<Principal> {
    return this.admitter.authenticate(token);
  }

  /** See ChangeSignals.accessChanged. */
  accessChanged(workspaceIds: string[], revokedKeyHashes: string[] = []): Promise<void> {
    return this.signals.accessChanged(workspaceIds, revokedKeyHashes);
  }

  /** See ChangeSignals.wrote. */
  wrote(workspaceId: string): Promise<void> {
    this.tellGraphChanged(workspaceId);
    return this.signals.wrote(workspaceId);
  }

  /** See ChangeSignals.graphChanged. */
  graphChanged(workspaceId: string): Promise<void> {
    this.tellGraphChanged(workspaceId);
    return this.signals.graphChanged(workspaceId);
  }

  /**
   * Calls `listener` with the workspace of every change this process signals, before the signal goes out (the
   * embedder wakes on it). Returns what removes the listener.
   */
  onGraphChanged(listener: (workspaceId: string) => void): () => void {
    this.graphListeners.add(listener);
    return () => this.graphListeners.delete(listener);
  }

  private tellGraphChanged(workspaceId: string): void {
    for (const listener of this.graphListeners) listener(workspaceId);
  }

  /** See ChangeSignals.limitChanged. */
  limitChanged(workspaceId: string): Promise<void> {
    return this.signals.limitChanged(workspaceId);
  }

  /** See ChangeSignals.deliverPendingSignals. */
  deliverPendingSignals(): Promise<void> {
    return this.signals.deliverPendingSignals();
  }

  /** See QuotaMeter.usage. */
  usage(workspaceId: string): ReturnType<QuotaMeter['usage']> {
    return this.quota.usage(workspaceId);
  }

  /** Starts writing key use and counters to Neo4j, and delivering owed signals, in the background. */
  start(options: { flushUsesMs?: number; persistUsageMs?: number; deliverSignalsMs?: number } = {}): void {
    this.timers = [
      setInterval(() => void this.flushUses(), options.flushUsesMs ?? 10_000),
      setInterval(() => void this.persistUsage(), options.persistUsageMs ?? 30_000),
      // Every process looks, not only the one that owes: a process that never lost Redis must not keep serving
      // what a change another process could not signal has made stale.
      setInterval(() => void this.deliverPendingSignals(), options.deliverSignalsMs ?? 2_000),
    ];
    void this.deliverPendingSignals();
    for (const timer of this.timers) timer.unref();
  }

  async stop(): Promise<void> {
    for (const timer of this.timers) clearInterval(timer);
    await Promise.all([this.flushUses(), this.persistUsage(), this.quota.told()]);
  }

  /** See Admitter.flushUses. */
  flushUses(): Promise<void> {
    return this.admitter.flushUses();
  }

  /** See QuotaMeter.persistUsage. */
  persistUsage(): Promise<void> {
    return this.quota.persistUsage();
  }
}
