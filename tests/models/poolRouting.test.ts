/**
 * The pure routing of an endpoint pool (src/models/pool/poolRouting.ts): rendezvous order, stability when
 * an endpoint is removed, stickiness, and the health state machine with its backoff.
 *
 * The pinned weights were computed outside the kit, with coreutils:
 *   printf 'run-A\0h1:8001/v1' | sha256sum | cut -c1-12   -> hex, read as an integer
 */
import { describe, expect, it } from "vitest";
import { DOWN_BACKOFF, EndpointHealth, FAILURES_TO_DOWN, PoolRegistry, SOFT_FAILURES_TO_DOWN, rendezvousOrder, rendezvousWeight } from "../../src/models/pool/poolRouting.js";

const IDS = ["h1:8001/v1", "h2:8002/v1", "h3:8003/v1"];

describe("rendezvous order", () => {
  it("weights are the first 48 bits of sha256(run id NUL endpoint id), as sha256sum computes them", () => {
    expect(rendezvousWeight("run-A", "h1:8001/v1")).toBe(95240785734704);
    expect(rendezvousWeight("run-A", "h3:8003/v1")).toBe(215850520933859);
    expect(rendezvousWeight("run-C", "h2:8002/v1")).toBe(18189577279258);
  });

  it("ranks each run's endpoints by weight (hand-ranked from the sha256sum weights)", () => {
    // run-A: h3 215.9e12 > h1 95.2e12 > h2 70.0e12; run-B: h1 > h2 > h3; run-C: h1 262.1 > h3 252.0 > h2; run-D: h3 > h2 > h1.
    expect(rendezvousOrder("run-A", IDS)).toEqual([2, 0, 1]);
    expect(rendezvousOrder("run-B", IDS)).toEqual([0, 1, 2]);
    expect(rendezvousOrder("run-C", IDS)).toEqual([0, 2, 1]);
    expect(rendezvousOrder("run-D", IDS)).toEqual([2, 1, 0]);
  });

  it("removing an endpoint moves only the runs whose first choice it was, each to its second choice", () => {
    const without = IDS.slice(0, 2); // h3 gone
    // run-A and run-D had h3 first: they go to their second choices h1 and h2; run-B and run-C stay on h1.
    expect(["run-A", "run-B", "run-C", "run-D"].map((r) => without[rendezvousOrder(r, without)[0]!])).toEqual(["h1:8001/v1", "h1:8001/v1", "h1:8001/v1", "h2:8002/v1"]);
    // The same property over many runs and a pool of 8.
    const ids = Array.from({ length: 8 }, (_, i) => `10.0.0.${i}:8000/v1`);
    const rest = ids.filter((_, i) => i !== 5);
    let moved = 0;
    for (let r = 0; r < 2000; r++) {
      const before = ids[rendezvousOrder(`run-${r}`, ids)[0]!]!;
      const after = rest[rendezvousOrder(`run-${r}`, rest)[0]!]!;
      if (before !== ids[5]) expect(after).toBe(before);
      else {
        moved++;
        expect(after).toBe(ids[rendezvousOrder(`run-${r}`, ids)[1]!]);
      }
    }
    // About 1 in 8 of the runs lived on the removed endpoint (binomial: 250 +- 3 sd of 15).
    expect(moved).toBeGreaterThan(205);
    expect(moved).toBeLessThan(295);
  });

  it("does not depend on the order the endpoints are listed in", () => {
    const shuffled = [IDS[2]!, IDS[0]!, IDS[1]!];
    for (const r of ["run-A", "run-B", "run-C", "run-D"]) {
      expect(rendezvousOrder(r, shuffled).map((i) => shuffled[i])).toEqual(rendezvousOrder(r, IDS).map((i) => IDS[i]));
    }
  });

  it("spreads runs evenly: 4 endpoints, 4000 runs, each gets 1000 +- 4 sd", () => {
    const ids = ["a:1/v1", "b:2/v1", "c:3/v1", "d:4/v1"];
    const count = [0, 0, 0, 0];
    for (let r = 0; r < 4000; r++) count[rendezvousOrder(`s3gym-run-${r}`, ids)[0]!]!++;
    for (const c of count) expect(Math.abs(c - 1000)).toBeLessThan(110);
  });
});

describe("endpoint health", () => {
  it("a refused connection takes it down at once; it is tried again after the backoff, which doubles per downing", () => {
    const h = new EndpointHealth();
    expect(h.available(0)).toBe(true);
    expect(h.recordFailure("transport", true, 1000)).toBe(true);
    expect(h.available(1000 + DOWN_BACKOFF.baseMs - 1)).toBe(false);
    expect(h.available(1000 + DOWN_BACKOFF.baseMs)).toBe(true); // on probation
    // The probe fails: down again for twice as long, even without a refusal.
    expect(h.recordFailure("http_5xx", false, 5000)).toBe(true);
    expect(h.available(5000 + 2 * DOWN_BACKOFF.baseMs - 1)).toBe(false);
    expect(h.available(5000 + 2 * DOWN_BACKOFF.baseMs)).toBe(true);
    // An answer: healthy, and the next downing starts from the base wait again.
    h.recordSuccess();
    expect(h.down).toBe(false);
    h.recordFailure("transport", true, 20_000);
    expect(h.available(20_000 + DOWN_BACKOFF.baseMs)).toBe(true);
  });

  it("5xx and timeouts take it down only after FAILURES_TO_DOWN in a row; an answer in between resets the count", () => {
    const h = new EndpointHealth();
    for (let i = 1; i < FAILURES_TO_DOWN; i++) expect(h.recordFailure(i % 2 ? "http_5xx" : "timeout", false, i)).toBe(false);
    h.recordSuccess();
    for (let i = 1; i < FAILURES_TO_DOWN; i++) expect(h.recordFailure("http_5xx", false, i)).toBe(false);
    expect(h.recordFailure("timeout", false, 10)).toBe(true);
  });

  it("4xx and protocol errors say nothing about whether it is up", () => {
    const h = new EndpointHealth();
    for (let i = 0; i < 10; i++) for (const k of ["http_4xx", "protocol"]) expect(h.recordFailure(k, false, i)).toBe(false);
    expect(h.down).toBe(false);
  });

  it("429s and garbage bodies take it down after SOFT_FAILURES_TO_DOWN in a row; an answer in between resets the count", () => {
    expect(SOFT_FAILURES_TO_DOWN).toBe(4);
    const h = new EndpointHealth();
    // 3 in a row, an answer, 3 more: never 4 in a row, still up.
    for (const k of ["http_429", "bad_response", "http_429"]) expect(h.recordFailure(k, false, 0)).toBe(false);
    h.recordSuccess();
    for (const k of ["http_429", "http_429", "bad_response"]) expect(h.recordFailure(k, false, 1)).toBe(false);
    // The fourth in a row: down, for the first backoff.
    expect(h.recordFailure("http_429", false, 2)).toBe(true);
    expect(h.available(2 + DOWN_BACKOFF.baseMs - 1)).toBe(false);
    expect(h.available(2 + DOWN_BACKOFF.baseMs)).toBe(true);
    // A soft failure and a 5xx do not add up across the two rules: 2 x 5xx + 3 x 429 is neither.
    const g = new EndpointHealth();
    for (const k of ["http_5xx", "http_429", "http_5xx", "http_429", "http_429"]) expect(g.recordFailure(k, false, 0)).toBe(false);
  });

  it("calls that were in flight when it went down do not lengthen its wait", () => {
    const h = new EndpointHealth();
    h.recordFailure("transport", true, 0);
    for (let i = 0; i < 5; i++) h.recordFailure("transport", true, 10 + i);
    expect(h.available(DOWN_BACKOFF.baseMs)).toBe(true);
  });

  it("the wait is capped", () => {
    const h = new EndpointHealth();
    let t = 0;
    for (let i = 0; i < 30; i++) {
      h.recordFailure("transport", true, t);
      while (!h.available(t)) t += 1000;
    }
    h.recordFailure("transport", true, t);
    expect(h.available(t + DOWN_BACKOFF.maxMs)).toBe(true);
    expect(h.available(t + DOWN_BACKOFF.maxMs - 1000)).toBe(false);
  });
});

describe("pool router", () => {
  const setup = () => {
    let now = 0;
    const reg = new PoolRegistry(() => now);
    return { reg, router: reg.router(IDS), at: (t: number) => (now = t), health: (i: number) => reg.healthOf(IDS[i]!) };
  };

  it("sends a run's calls to its first choice while it is up, and records no move on the first call", () => {
    const { router } = setup();
    expect(router.route("run-A", 0)).toEqual({ index: 2, movedFrom: null });
    expect(router.route("run-A", 1)).toEqual({ index: 2, movedFrom: null });
    expect(router.route("run-B", 1)).toEqual({ index: 0, movedFrom: null });
  });

  it("moves a run to its next available endpoint when its own is down, and it stays there after recovery", () => {
    const { router, health } = setup();
    router.route("run-A", 0); // h3
    health(2).recordFailure("transport", true, 100);
    expect(router.route("run-A", 200)).toEqual({ index: 0, movedFrom: 2 }); // its second choice, h1
    // h1 down too: its third choice.
    health(0).recordFailure("transport", true, 300);
    expect(router.route("run-A", 300)).toEqual({ index: 1, movedFrom: 0 });
    // h3 and h1 are back (their waits are over): run-A stays where its prompts are cached.
    health(2).recordSuccess();
    health(0).recordSuccess();
    expect(router.route("run-A", 10_000)).toEqual({ index: 1, movedFrom: null });
    // A new run whose first choice is h3 goes there.
    expect(router.route("run-D", 10_000).index).toBe(2);
  });

  it("a run starting while its first choice is down starts on its second (not a move)", () => {
    const { router, health } = setup();
    health(2).recordFailure("transport", true, 0);
    expect(router.route("run-D", 1)).toEqual({ index: 1, movedFrom: null });
  });

  it("with every endpoint down, a run stays put (its call retries there as with one endpoint), and no failover is offered", () => {
    const { router, health } = setup();
    router.route("run-B", 0);
    for (let i = 0; i < 3; i++) health(i).recordFailure("transport", true, 0);
    expect(router.route("run-B", 1)).toEqual({ index: 0, movedFrom: null });
    expect(router.hasAlternative(0, 1)).toBe(false);
    // One endpoint's wait is over: a failover has somewhere to go.
    expect(router.hasAlternative(0, DOWN_BACKOFF.baseMs)).toBe(true);
  });

  it("health is shared by every pool of the registry that lists the endpoint; assignments are per pool", () => {
    const { reg, health } = setup();
    const other = reg.router([IDS[2]!, IDS[1]!]);
    health(2).recordFailure("transport", true, 0); // h3
    // run-A's first choice in the other pool is h3 (its weight is the same): down, so h2.
    expect(other.route("run-A", 1).index).toBe(1);
  });
});
