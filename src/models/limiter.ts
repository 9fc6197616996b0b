/**
 * Per-endpoint concurrency: a FIFO semaphore on calls in flight. Providers limit per key, so one
 * limiter serves every model that shares an endpoint host and an API key variable. Limiters live
 * in a registry created per CLI invocation (a run context), never in a module-level singleton.
 */
import type { CompletionRequest, CompletionResult, Model } from "./types.js";

export class Limiter {
  private inFlight = 0;
  private readonly queue: (() => void)[] = [];

  constructor(private max: number) {
    if (!Number.isInteger(max) || max < 1) throw new RangeError(`concurrency must be an integer >= 1, got ${max}`);
  }

  get limit(): number {
    return this.max;
  }
  get active(): number {
    return this.inFlight;
  }
  get waiting(): number {
    return this.queue.length;
  }

  /** Lowers the limit (two models sharing an endpoint asked for different limits: the stricter wins). */
  lowerTo(limit: number): void {
    this.max = Math.min(this.max, limit);
  }

  /** Runs `fn` when a slot is free; waiters are served first come, first served. */
  async run<T>(fn: () => Promise<T>): Promise<T> {
    if (this.inFlight >= this.max || this.queue.length > 0) {
      await new Promise<void>((resolve) => this.queue.push(resolve));
    } else {
      this.inFlight++;
    }
    try {
      return await fn();
    } finally {
      this.release();
    }
  }

  private release(): void {
    // The slot passes straight to the oldest waiter (inFlight unchanged), unless the limit was lowered.
    if (this.inFlight <= this.max) {
      const next = this.queue.shift();
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

/** The limiter layer as a Model. */
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
    return this.limiter.run(() => this.inner.complete(request));
  }
}
