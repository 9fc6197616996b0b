/**
 * Routing for one model served by a pool of endpoints (scale.md, "One model, many endpoints"): the
 * pure part, with no I/O and an injected clock, so every decision can be tested by hand.
 *
 * - Affinity: a run's endpoints are ranked by rendezvous (highest-random-weight) hashing of
 *   (run id, endpoint id). The ranking of two endpoints does not depend on the others, so removing
 *   one endpoint moves only the runs ranked on it first, and adding one takes runs only onto itself.
 * - Stickiness: a run stays on the endpoint it was given until that endpoint is down; then it moves
 *   to the next available endpoint in its own ranking and stays there (that endpoint's prefix cache
 *   now holds its prompts), even after the first one is back.
 * - Health: an endpoint is down after one refused connection (nothing listens), or after
 *   FAILURES_TO_DOWN failovers in a row of other kinds (5xx, timeouts, resets: one alone can be a
 *   hiccup), or after SOFT_FAILURES_TO_DOWN failed attempts in a row that were 429s or garbage
 *   (SOFT_FAILOVER_KINDS: an endpoint that rate-limits forever, or answers what is not a reply, is
 *   up but serves nothing; its runs move to endpoints that answer). A down endpoint is tried again after a backoff that doubles per consecutive downing
 *   (DOWN_BACKOFF), never banned forever; the first answer it gives makes it healthy again.
 */
import { createHash } from "node:crypto";

/** Failure kinds (retry.ts's classification) that count against an endpoint's health. */
export const FAILOVER_KINDS: readonly string[] = ["transport", "timeout", "http_5xx"];

/** Consecutive failovers (of kinds other than a refused connection) that take an endpoint down. */
export const FAILURES_TO_DOWN = 3;

/**
 * Failure kinds of an endpoint that is up but serves nothing when they go on: a 429 (rate limit) and
 * a garbage body (`bad_response`: not JSON, no choices, a 200 carrying an error). One is normal
 * traffic; SOFT_FAILURES_TO_DOWN in a row, with no answer from the endpoint between them, take it
 * down like a dead one.
 */
export const SOFT_FAILOVER_KINDS: readonly string[] = ["http_429", "bad_response"];

/**
 * Consecutive 429s or garbage bodies that take an endpoint down: more than the 3 of a dead endpoint,
 * as a loaded endpoint answers 429 now and then; fewer than the 6 attempts of one call at the
 * default --max-retries 5, so a call moves before its retries run out.
 */
export const SOFT_FAILURES_TO_DOWN = 4;

/** How long a down endpoint waits before it is tried again: base * 2^(downings - 1), capped. */
export const DOWN_BACKOFF = { baseMs: 2_000, maxMs: 300_000 } as const;

/**
 * The rendezvous weight of an endpoint for a run: the first 48 bits of sha256(run id, NUL, endpoint
 * id) as a number (exact in a double). A cryptographic hash is not needed for secrecy, only for an
 * even spread that no run id pattern can skew.
 */
export function rendezvousWeight(runId: string, endpointId: string): number {
  return parseInt(createHash("sha256").update(`${runId}\u0000${endpointId}`).digest("hex").slice(0, 12), 16);
}

/**
 * The indices of `endpointIds` from the run's most to least preferred endpoint. Ties (never seen
 * with 48-bit weights, but possible) go to the smaller endpoint id, so the order is total.
 */
export function rendezvousOrder(runId: string, endpointIds: readonly string[]): number[] {
  const w = endpointIds.map((id) => rendezvousWeight(runId, id));
  return endpointIds.map((_, i) => i).sort((a, b) => w[b]! - w[a]! || (endpointIds[a]! < endpointIds[b]! ? -1 : endpointIds[a]! > endpointIds[b]! ? 1 : 0));
}

/** One endpoint's health: healthy, down until a time, or on probation (down, its wait over). */
export class EndpointHealth {
  /** Failovers in a row since the last answer. */
  private streak = 0;
  /** 429s and garbage bodies in a row since the last answer (SOFT_FAILOVER_KINDS). */
  private softStreak = 0;
  /** Consecutive times it went down without an answer in between (drives the backoff). */
  private downings = 0;
  /** When a down endpoint may be tried again; null while healthy. */
  private retryAt: number | null = null;

  /** True when a call may be sent to it now (healthy, or down with its wait over: a probe). */
  available(now: number): boolean {
    return this.retryAt === null || now >= this.retryAt;
  }

  /** True while it is down (its wait over or not). */
  get down(): boolean {
    return this.retryAt !== null;
  }

  /** An answer (any reply that is not an infrastructure failure): healthy again. */
  recordSuccess(): void {
    this.streak = 0;
    this.softStreak = 0;
    this.downings = 0;
    this.retryAt = null;
  }

  /**
   * A failed attempt. FAILOVER_KINDS count toward FAILURES_TO_DOWN, SOFT_FAILOVER_KINDS (429s,
   * garbage) toward SOFT_FAILURES_TO_DOWN; other kinds (4xx, protocol errors: the request's fault)
   * say nothing about the endpoint and leave the streaks as they are. Returns true when the endpoint
   * is down after it.
   */
  recordFailure(kind: string, refused: boolean, now: number): boolean {
    const soft = SOFT_FAILOVER_KINDS.includes(kind);
    if (!soft && !FAILOVER_KINDS.includes(kind)) return this.down;
    // Down and still waiting: a call that was in flight when it went down; already counted.
    if (this.retryAt !== null && now < this.retryAt) return true;
    if (soft) this.softStreak++;
    else this.streak++;
    // A probe that fails goes straight back down (with a longer wait): it was tried because it was down.
    if (refused || this.streak >= FAILURES_TO_DOWN || this.softStreak >= SOFT_FAILURES_TO_DOWN || this.retryAt !== null) {
      this.downings++;
      this.retryAt = now + Math.min(DOWN_BACKOFF.maxMs, DOWN_BACKOFF.baseMs * 2 ** (this.downings - 1));
      this.streak = 0;
      this.softStreak = 0;
    }
    return this.down;
  }
}

/** Where a call goes: the endpoint index, and the endpoint the run left to get there (or null). */
export interface Route {
  index: number;
  movedFrom: number | null;
}

/**
 * The routing state of one pool: its endpoints' health (shared with every pool naming the same
 * endpoint, through `health`) and each run's current endpoint.
 */
export class PoolRouter {
  private readonly assigned = new Map<string, number>();
  private readonly orders = new Map<string, number[]>();

  constructor(
    /** Endpoint ids (host and path): what the ranking hashes, so list order does not matter. */
    readonly endpointIds: readonly string[],
    /** Health of endpoint i. */
    private readonly health: (index: number) => EndpointHealth,
  ) {
    if (endpointIds.length === 0) throw new RangeError("a pool needs at least one endpoint");
  }

  /** The run's ranking of the endpoints (computed once per run). */
  orderOf(runId: string): number[] {
    let o = this.orders.get(runId);
    if (!o) this.orders.set(runId, (o = rendezvousOrder(runId, this.endpointIds)));
    return o;
  }

  /** The run's current endpoint, or undefined before its first call. */
  current(runId: string): number | undefined {
    return this.assigned.get(runId);
  }

  /**
   * The endpoint for the run's next attempt: its current one while available, else the first
   * available in its ranking (the run moves there), else, with none available, its current one
   * (or its first choice): the call then waits out its own retries there, as with one endpoint.
   */
  route(runId: string, now: number): Route {
    const cur = this.assigned.get(runId);
    if (cur !== undefined && this.health(cur).available(now)) return { index: cur, movedFrom: null };
    const next = this.orderOf(runId).find((i) => i !== cur && this.health(i).available(now));
    const index = next ?? cur ?? this.orderOf(runId)[0]!;
    this.assigned.set(runId, index);
    return { index, movedFrom: cur !== undefined && index !== cur ? cur : null };
  }

  /** True when some endpoint other than `index` may take a call now (a failover has somewhere to go). */
  hasAlternative(index: number, now: number): boolean {
    return this.endpointIds.some((_, i) => i !== index && this.health(i).available(now));
  }
}

/** Health per endpoint id, shared by every pool of one invocation (ModelContext.pools). */
export class PoolRegistry {
  private readonly health = new Map<string, EndpointHealth>();
  private readonly routers = new Map<string, PoolRouter>();

  constructor(
    /** Monotonic milliseconds; tests inject a fake clock. */
    readonly now: () => number = () => performance.now(),
  ) {}

  healthOf(endpointId: string): EndpointHealth {
    let h = this.health.get(endpointId);
    if (!h) this.health.set(endpointId, (h = new EndpointHealth()));
    return h;
  }

  /** The router of a pool (one per distinct list of endpoint ids: its runs' assignments live there). */
  router(endpointIds: readonly string[]): PoolRouter {
    const key = endpointIds.join("\u0000");
    let r = this.routers.get(key);
    if (!r) this.routers.set(key, (r = new PoolRouter(endpointIds, (i) => this.healthOf(endpointIds[i]!))));
    return r;
  }
}
