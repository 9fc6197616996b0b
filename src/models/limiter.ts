/**
 * Per-endpoint concurrency: a semaphore on calls in flight. Providers limit per key, so one limiter
 * serves every model that shares an endpoint host and an API key variable. Limiters live in a
 * registry created per CLI invocation (a run context), never in a module-level singleton.
 *
 * Waiters are served by priority, first come first served within a priority: `critical` calls
 * (exploration steps and summary calls: a run's sequential chain, which bounds the wall time) go
 * before `normal` ones (checkpoint evaluations, which nothing waits on but the run's end). So that
 * evaluations are never starved, a normal waiter that has been passed over `maxBypass` times in a
 * row (default 8) gets the next slot: under saturation normal calls still get at least one slot in
 * `maxBypass + 1`.
 */
import type { CallIdentity, CompletionRequest, CompletionResult, Model } from "./types.js";

export type CallPriority = "critical" | "normal";

/** Exploration steps and summary calls are on a run's critical path; everything else is normal. */
export function callPriority(identity: Pick<CallIdentity, "purpose" | "phase"> | undefined): CallPriority {
  if (!identity) return "normal";
  return identity.purpose === "summary" || identity.phase === "explore" ? "critical" : "normal";
}

export interface LimiterOptions {
  /** Consecutive times a waiting normal call may be passed over by critical ones (default 8). */
  maxBypass?: number;
}

/** A FIFO queue with O(1) shift (the waiting lists can hold thousands of calls). */
class Fifo<T> {
  private items: (T | undefined)[] = [];
  private head = 0;
  get length(): number {
    return this.items.length - this.head;
  }
  push(x: T): void {
    this.items.push(x);
  }
  shift(): T | undefined {
    if (this.head >= this.items.length) return undefined;
    const x = this.items[this.head];
    this.items[this.head++] = undefined;
    if (this.head > 1024 && this.head * 2 > this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
    return x;
  }
}

export class Limiter {
  private inFlight = 0;
  private readonly critical = new Fifo<() => void>();
  private readonly normal = new Fifo<() => void>();
  /** Times in a row the oldest normal waiter was passed over. */
  private bypassed = 0;
  private readonly maxBypass: number;

  constructor(
    private max: number,
    options: LimiterOptions = {},
  ) {
    if (!Number.isInteger(max) || max < 1) throw new RangeError(`concurrency must be an integer >= 1, got ${max}`);
    this.maxBypass = options.maxBypass ?? 8;
    if (!Number.isInteger(this.maxBypass) || this.maxBypass < 1) throw new RangeError(`maxBypass must be an integer >= 1, got ${this.maxBypass}`);
  }

  get limit(): number {
    return this.max;
  }
  get active(): number {
    return this.inFlight;
  }
  get waiting(): number {
    return this.critical.length + this.normal.length;
  }

  /** Lowers the limit (two models sharing an endpoint asked for different limits: the stricter wins). */
  lowerTo(limit: number): void {
    this.max = Math.min(this.max, limit);
  }

  /**
   * Runs `fn` when a slot is free. Waiters are served critical first, first come first served
   * within a priority, with the anti-starvation rule above. A call never overtakes earlier waiters
   * on arrival: it takes a free slot only when nobody waits.
   */
  async run<T>(fn: () => Promise<T>, priority: CallPriority = "normal"): Promise<T> {
    if (this.inFlight >= this.max || this.waiting > 0) {
      await new Promise<void>((resolve) => (priority === "critical" ? this.critical : this.normal).push(resolve));
    } else {
      this.inFlight++;
    }
    try {
      return await fn();
    } finally {
      this.release();
    }
  }

  /** The next waiter to serve, or undefined. */
  private next(): (() => void) | undefined {
    if (this.critical.length > 0 && (this.normal.length === 0 || this.bypassed < this.maxBypass)) {
      if (this.normal.length > 0) this.bypassed++;
      return this.critical.shift();
    }
    this.bypassed = 0;
    return this.normal.shift();
  }

  private release(): void {
    // The slot passes straight to the next waiter (inFlight unchanged), unless the limit was lowered.
    if (this.inFlight <= this.max) {
      const next = this.next();
      if (next) return next();
    }
    this.inFlight--;
  }
}

/** One limiter per (endpoint host, key variable) within one run context. */
export class LimiterRegistry {
  private readonly limiters = new Map<string, Limiter>();

  get(endpointHost: string, keyAlias: string, limit: number): Limiter {
    const key = `${endpointHost}\u0000${keyAlias}`;
    const existing = this.limiters.get(key);
    if (existing) {
      existing.lowerTo(limit);
      return existing;
    }
    const created = new Limiter(limit);
    this.limiters.set(key, created);
    return created;
  }

  get size(): number {
    return this.limiters.size;
  }
}

/** The limiter layer as a Model: the call's identity gives its priority. */
export class LimitedModel implements Model {
  readonly spec: string;
  readonly endpointHost: string;

  constructor(
    private readonly inner: Model,
    private readonly limiter: Limiter,
  ) {
    this.spec = inner.spec;
    this.endpointHost = inner.endpointHost;
  }

  complete(request: CompletionRequest): Promise<CompletionResult> {
    return this.limiter.run(() => this.inner.complete(request), callPriority(request.identity));
  }
}
