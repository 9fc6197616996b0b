/**
 * "Where does X go" for a game, measured with a toy one defined in this file: its rules, render and
 * policies modules (in the kit: src/games/<game>/rules.ts, render.ts, policies.ts) go to
 * `gameFromModules` as an index.ts would hand them, and the game is registered by its name in
 * GAME_NAMES (src/games/types.ts) and one entry of GAMES (src/games/registry.ts); here those two edits
 * are module mocks, as a test cannot edit them. `s3gym play` then plays it through the registry, the
 * envelope's contract holds (observation -> parseObservation = facts, the step cap, the rules text).
 */
import { z } from "zod";
import { describe, expect, it, vi } from "vitest";
import type { Rng } from "../../src/util/rng.js";
import type { PolicyContext, PolicyDecision, Transition } from "../../src/games/types.js";

vi.mock("../../src/games/types.js", async (importOriginal) => {
  const real = await importOriginal<typeof import("../../src/games/types.js")>();
  return { ...real, GAME_NAMES: [...real.GAME_NAMES, "toy"] };
});
vi.mock("../../src/games/registry.js", async (importOriginal) => {
  const real = await importOriginal<typeof import("../../src/games/registry.js")>();
  const types = await import("../../src/games/types.js");
  const GAMES = { ...real.GAMES, toy: toyGame() } as typeof real.GAMES;
  const isGameName = (name: string) => (types.GAME_NAMES as readonly string[]).includes(name);
  return { ...real, GAMES, isGameName, getGame: (name: string) => (isGameName(name) ? GAMES[name as keyof typeof GAMES] : real.getGame(name)) };
});

// The toy: count up to a target; "Answer: up" adds one (reward 1), anything else is invalid.
interface ToyInner {
  n: number;
}
interface ToyConfig {
  maxSteps: number;
  target: number;
}
interface ToyFacts {
  n: number;
  target: number;
}
const rules = {
  configs: { explore: { maxSteps: 8, target: 3 }, eval: { maxSteps: 8, target: 4 } },
  exploreVariants: { short: { maxSteps: 4, target: 2 }, long: { maxSteps: 12, target: 6 } },
  configSchema: z.object({ maxSteps: z.number().int().min(1), target: z.number().int().min(1) }).strict(),
  innerSchema: z.object({ n: z.number().int() }).strict(),
  actionGrammar: "up",
  init: (_c: ToyConfig, _rng: Rng): ToyInner => ({ n: 0 }),
  apply(inner: ToyInner, action: string | null, config: ToyConfig): Transition {
    if (action?.trim().toLowerCase() !== "up") return { reward: 0, feedback: "invalid action: expected 'up'", valid: false, done: false };
    inner.n += 1;
    return { reward: 1, feedback: `n is ${inner.n}`, valid: true, done: inner.n >= config.target };
  },
  score: (inner: ToyInner) => inner.n,
  rulesBody: (c: ToyConfig) => `Count up to ${c.target}: answer 'up' to add one.`,
  legalActions: () => ["up"],
};
const render = {
  render: (inner: ToyInner, c: ToyConfig) => `n = ${inner.n} of ${c.target}`,
  facts: (inner: ToyInner, c: ToyConfig): ToyFacts => ({ n: inner.n, target: c.target }),
  parseObservation(body: string): ToyFacts {
    const m = /^n = (\d+) of (\d+)$/.exec(body);
    if (!m) throw new Error(`not a toy observation: ${body}`);
    return { n: Number(m[1]), target: Number(m[2]) };
  },
};
const up = (_ctx: PolicyContext, _rng: Rng): PolicyDecision => ({ action: "up", selfScore: 1 }) as unknown as PolicyDecision;
const policies = { random: up, heuristic: up };

function toyGame() {
  // Imported lazily: the mocks above must be in place before the envelope reads GAME_NAMES.
  return envelope.gameFromModules<ToyInner, ToyConfig, ToyFacts>({ name: "toy" as never, summary: "count up to a target (a test's toy game)", successThreshold: 3, rules, render, policies });
}
const envelope = await import("../../src/games/envelope.js");

describe("a toy game added with its three modules and one registry row", () => {
  it("keeps the envelope's contract: observe -> parseObservation = facts, rewards, the end", async () => {
    const { getGame } = await import("../../src/games/registry.js");
    const game = getGame("toy");
    let state = game.reset(7, "eval");
    const seen: number[] = [];
    while (!state.done) {
      const obs = game.observe(state);
      expect(game.parseObservation(obs)).toEqual(game.facts(state));
      const r = game.step(state, "up");
      seen.push(r.reward);
      state = r.state;
    }
    expect(seen).toEqual([1, 1, 1, 1]);
    expect(game.score(state)).toBe(4);
    expect(game.rules("eval")).toContain("Count up to 4");
  });

  it("is listed by the game list parser and refused under a wrong name", async () => {
    const { parseGameList } = await import("../../src/games/registry.js");
    expect(parseGameList("snake,toy")).toEqual(["snake", "toy"]);
    expect(() => parseGameList("toy,nosuch")).toThrow(/unknown game 'nosuch'/);
  });
});
