import { describe, expect, it } from "vitest";
import { evalCallSeed, evalCallSeeds } from "../../src/models/callSeed.js";
import { fnv1a32 } from "../../src/util/rng.js";

describe("evalCallSeeds", () => {
  const key = { model: "builtin:learner", game: "tetris", runSeed: 0, seed: 791177821, sample: 0 };

  it("gives evalCallSeed's seed at every step, asked in any order and again", () => {
    const seeds = evalCallSeeds(key);
    for (const step of [0, 5, 1, 5, 0, 63]) expect(seeds(step)).toBe(evalCallSeed({ ...key, step }));
    // A second episode of the same key (another checkpoint) reads the same seeds.
    expect(evalCallSeeds(key)(5)).toBe(evalCallSeed({ ...key, step: 5 }));
  });

  it("hashes the canonical key text (sorted keys), so a view's episode has its own seeds", () => {
    // The key text written out by hand, keys in sorted order.
    const text = `s3gym/eval-call-seed|{"game":"tetris","model":"builtin:learner","runSeed":0,"sample":0,"seed":791177821,"step":2,"view":"id"}`;
    expect(evalCallSeeds({ ...key, view: "id" })(2)).toBe(fnv1a32(text) >>> 1);
    expect(evalCallSeeds({ ...key, view: "id" })(2)).not.toBe(evalCallSeeds(key)(2));
  });

  it("does not keep a step that is not a small whole number", () => {
    const seeds = evalCallSeeds(key);
    expect(seeds(2.5)).toBe(evalCallSeed({ ...key, step: 2.5 }));
    expect(seeds(-1)).toBe(evalCallSeed({ ...key, step: -1 }));
  });
});
