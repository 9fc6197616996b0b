/**
 * The compiled check the log writers use instead of zod's parse (zodFastCheck.ts): true only where
 * zod accepts, for the run files' own schemas and for values bent in every way a writer could bend them.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { CallRecord, RUN_FILES, StepRecord } from "../../src/logs/schema.js";
import { fastCheckOf } from "../../src/util/zodFastCheck.js";

const step = {
  run_id: "chess__none__builtin-random__seed0",
  model: "builtin:random",
  game: "chess",
  pathway: "none",
  phase: "explore",
  config: "explore",
  checkpoint: null,
  episode: 1,
  seed: 42,
  step: 0,
  observation: "Board",
  response: "Answer: a1 a2\nScore: 0",
  action: "a1 a2",
  self_score: 0,
  parse_error: null,
  valid: true,
  feedback: "ok",
  reward: 0.5,
  score_after: 0.5,
  done: false,
  tokens_in: 0,
  tokens_out: 0,
  latency_ms: 0,
  history_keep: [3, 0],
};
const call = {
  run_id: "chess__none__builtin-random__seed0",
  purpose: "step",
  phase: "eval",
  checkpoint: 0,
  episode: 0,
  step: 3,
  tokens_in: 10,
  tokens_out: 2,
  tokens_cached: null,
  latency_ms: 1,
  retries: 0,
  cached: false,
  error: null,
  cost_usd: null,
  retry_kinds: ["http_429"],
};

/** Values a field could wrongly hold. */
const BAD = [undefined, null, "", "x", "ab", "\u{1F600}", -1, 0, 0.5, 1, 2 ** 60, Number.NaN, Infinity, -Infinity, true, false, [], [1.5], [-1], ["s"], {}, "explore", "eval", "step", "replay"];

describe("fastCheckOf", () => {
  it("compiles the hot run files' schemas (else the writers would still pay zod on every line)", () => {
    expect(fastCheckOf(StepRecord)).not.toBeNull();
    expect(fastCheckOf(CallRecord)).not.toBeNull();
  });

  it("passes a conforming step and call line", () => {
    expect(fastCheckOf(StepRecord)!(step)).toBe(true);
    expect(fastCheckOf(CallRecord)!(call)).toBe(true);
  });

  it("rejects what zod rejects, by hand", () => {
    const s = fastCheckOf(StepRecord)!;
    expect(s({ ...step, reward: Number.NaN })).toBe(false);
    expect(s({ ...step, episode: 1.5 })).toBe(false);
    expect(s({ ...step, step: -1 })).toBe(false);
    expect(s({ ...step, run_id: "" })).toBe(false);
    expect(s({ ...step, phase: "train" })).toBe(false);
    expect(s({ ...step, history_keep: [1, -2] })).toBe(false);
    const { observation: _, ...missing } = step;
    expect(s(missing)).toBe(false);
    expect(s({ ...step, extra_field: { any: "thing" } })).toBe(true); // passthrough
  });

  it("is never looser than zod, for every run file's schema and any one or two fields bent", () => {
    const base: Record<string, Record<string, unknown>> = { steps: step, calls: call };
    for (const [name, { schema }] of Object.entries(RUN_FILES)) {
      const check = fastCheckOf(schema);
      if (check === null) continue; // zod for every line: nothing to compare
      const keys = Object.keys((schema as unknown as { shape: Record<string, unknown> }).shape);
      const seed = base[name] ?? {};
      fc.assert(
        fc.property(fc.array(fc.tuple(fc.constantFrom(...keys), fc.constantFrom(...BAD)), { minLength: 1, maxLength: 3 }), (edits) => {
          const v: Record<string, unknown> = { ...seed };
          for (const [k, x] of edits) v[k] = x;
          if (check(v)) expect(schema.safeParse(v).success, `${name}: ${JSON.stringify(edits)}`).toBe(true);
        }),
        { numRuns: 1500 },
      );
    }
  });

  it("walks an object's own keys: key order does not matter, a missing required field or a non-plain object says maybe", () => {
    const s = fastCheckOf(StepRecord)!;
    const reversed = Object.fromEntries(Object.entries(step).reverse());
    expect(s(reversed)).toBe(true);
    expect(StepRecord.safeParse(reversed).success).toBe(true);
    // Optional fields may be absent; every required one must be there.
    const { history_keep: _h, ...noOptional } = step;
    expect(s(noOptional)).toBe(true);
    for (const k of ["run_id", "checkpoint", "reward", "done"]) {
      const v: Record<string, unknown> = { ...step };
      delete v[k];
      expect(s(v), k).toBe(false);
      expect(StepRecord.safeParse(v).success, k).toBe(false);
    }
    // An inherited field is not walked as the record's own: zod reads it, so the check gives up.
    expect(s(Object.assign(Object.create({ reward: 1 }), { ...step }))).toBe(false);
    class Rec {
      constructor(o: object) {
        Object.assign(this, o);
      }
    }
    expect(s(new Rec(step))).toBe(false);
    expect(s(Object.assign(Object.create(null), step))).toBe(true);
    // A field named like an Object.prototype property could be read through the prototype: not compiled.
    expect(fastCheckOf(z.object({ constructor: z.string() }).passthrough())).toBeNull();
    expect(fastCheckOf(z.object({ toString: z.string().optional() }))).toBeNull();
  });

  it("is never looser than zod with fields removed, for every run file's schema", () => {
    const base: Record<string, Record<string, unknown>> = { steps: step, calls: call };
    for (const [name, { schema }] of Object.entries(RUN_FILES)) {
      const check = fastCheckOf(schema);
      if (check === null) continue;
      const keys = Object.keys((schema as unknown as { shape: Record<string, unknown> }).shape);
      const seed = base[name] ?? {};
      fc.assert(
        fc.property(fc.subarray(keys), fc.array(fc.tuple(fc.constantFrom(...keys), fc.constantFrom(...BAD)), { maxLength: 2 }), (gone, edits) => {
          const v: Record<string, unknown> = { ...seed };
          for (const [k, x] of edits) v[k] = x;
          for (const k of gone) delete v[k];
          if (check(v)) expect(schema.safeParse(v).success, `${name}: -${JSON.stringify(gone)} ${JSON.stringify(edits)}`).toBe(true);
        }),
        { numRuns: 1500 },
      );
    }
  });

  it("gives up (null) on what it does not know, and says maybe (false) under a length floor zod counts in code points", () => {
    expect(fastCheckOf(z.object({ a: z.string().email() }))).toBeNull();
    expect(fastCheckOf(z.object({ a: z.number() }).refine((o) => o.a > 0))).toBeNull();
    expect(fastCheckOf(z.object({ a: z.number() }).strict())).toBeNull();
    expect(fastCheckOf(z.union([z.string(), z.number()]))).toBeNull();
    const c = fastCheckOf(z.string().min(2))!;
    expect(c("\u{1F600}\u{1F600}")).toBe(true);
    expect(c("\u{1F600}")).toBe(false); // two UTF-16 units, one code point: zod rejects
    expect(z.string().min(2).safeParse("\u{1F600}").success).toBe(false);
  });
});
