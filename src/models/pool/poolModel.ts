/**
 * One model served by several endpoints (scale.md, "One model, many endpoints"): each call goes to
 * its run's endpoint (poolRouting.ts decides which), through that endpoint's own limiter and retry
 * layer. When the endpoint is down and another is available, its retry layer stops early
 * (EndpointDownError) and the call is sent again on the run's next endpoint; the result carries the
 * route (the endpoint that answered, the endpoints the run left), which the call log writes to
 * calls.jsonl. Retries and their kinds add up over the endpoints a call tried.
 *
 * Stack of one member (createModel.ts): limiter(endpoint) -> retry(endpoint, health hook) -> guard -> openai.
 */
import { EndpointDownError } from "../retry.js";
import type { EndpointHealth, PoolRouter } from "./poolRouting.js";
import { ModelCallError, type CompletionRequest, type CompletionResult, type Model } from "../types.js";

export interface PoolMember {
  /** Host (and port): what calls.jsonl records. */
  host: string;
  /** The member's stack (limiter -> retry -> guard -> openai). */
  model: Model;
  health: EndpointHealth;
}

export class PoolModel implements Model {
  readonly spec: string;
  readonly endpointHost: string;
  /** Moves one call may make before it fails as with one endpoint (endpoints flapping up and down). */
  private readonly maxMoves: number;

  constructor(
    private readonly members: readonly PoolMember[],
    private readonly router: PoolRouter,
    private readonly now: () => number,
  ) {
    this.spec = members[0]!.model.spec;
    this.endpointHost = members.map((m) => m.host).join(",");
    this.maxMoves = 2 * members.length;
  }

  async complete(request: CompletionRequest): Promise<CompletionResult> {
    const runId = request.identity.runId;
    const started = performance.now();
    const movedFrom: string[] = [];
    const kinds: string[] = [];
    let retries = 0;
    let tried: number | null = null;
    for (let moves = 0; ; moves++) {
      const route = this.router.route(runId, this.now());
      // The run left an endpoint: the one this call just failed on, or (first attempt) the one
      // another call of the run left before this one was sent.
      const left = tried !== null ? (tried !== route.index ? tried : null) : route.movedFrom;
      if (left !== null) movedFrom.push(this.members[left]!.host);
      tried = route.index;
      const member = this.members[route.index]!;
      try {
        const r = await member.model.complete(request);
        member.health.recordSuccess();
        const allKinds = [...kinds, ...(r.retryKinds ?? [])];
        return {
          ...r,
          retries: retries + r.retries,
          ...(allKinds.length > 0 ? { retryKinds: allKinds } : {}),
          latencyMs: Math.round(performance.now() - started),
          route: { endpoint: member.host, movedFrom },
        };
      } catch (e) {
        if (!(e instanceof ModelCallError)) throw e;
        const allKinds = [...kinds, ...e.retryKinds];
        if (!(e instanceof EndpointDownError) || moves >= this.maxMoves) {
          throw new ModelCallError(e.message, e.kind, retries + e.retries, allKinds, { endpoint: member.host, movedFrom });
        }
        // The failed attempt that stopped the retries counts as a retry of the call.
        retries += e.retries + 1;
        kinds.push(...e.retryKinds, e.kind);
      }
    }
  }
}

/**
 * The retry layer's hook for one member: records each failed attempt in the endpoint's health and
 * stops retrying there when it is down and the pool has somewhere else to go.
 */
export function failoverHook(health: EndpointHealth, router: PoolRouter, index: number, now: () => number): (e: { kind: string; networkCode: string | null }) => boolean {
  return (e) => health.recordFailure(e.kind, e.networkCode === "ECONNREFUSED", now()) && router.hasAlternative(index, now());
}
