/**
 * builtin:ceiling (src/games/ceiling.ts) is the top line beside the floor (random) and the reference
 * (heuristic): on the eval seeds 0..49 it beats or ties the heuristic on every game, and is strictly
 * higher where hidden state is worth something (chess rules, trust's opponent, minesweeper's mines).
 * Measured when written (issue 28): chess 0.536 -> 1, trust 69.82 -> 72.64, minesweeper 0.8825 -> 1;
 * nullify ties at 1 (the heuristic now solves all 50 boards, so no strict gain is left there).
 */
import { describe, expect, it } from "vitest";
import { playEpisode } from "../../src/games/episode.js";
import { decide, resolvePolicyName, type PolicyName } from "../../src/games/policies.js";
import { GAMES } from "../../src/games/registry.js";
import { GAME_NAMES, type GameName } from "../../src/games/types.js";
import { CEILINGS } from "../../src/games/ceiling.js";

async function meanScore(name: GameName, policy: PolicyName): Promise<number> {
  const game = GAMES[name];
  let sum = 0;
  for (let seed = 0; seed < 50; seed++) {
    const r = await playEpisode(game, seed, "eval", (ctx, state) => decide(game, policy, state, ctx, seed * 1000 + state.step));
    sum += r.score;
  }
  return sum / 50;
}

const STRICT: GameName[] = ["chess", "trust", "minesweeper"];

describe("builtin:ceiling", () => {
  for (const name of GAME_NAMES) {
    it(`${name}: beats or ties the heuristic on eval seeds 0..49${STRICT.includes(name) ? ", strictly" : ""}`, async () => {
      const [h, c] = [await meanScore(name, "heuristic"), await meanScore(name, "ceiling")];
      expect(c).toBeGreaterThanOrEqual(h);
      if (STRICT.includes(name)) expect(c).toBeGreaterThan(h);
    }, 300_000);
  }

  it("wins every minesweeper and chess eval board it plays (it knows the mines and the rules)", async () => {
    expect(await meanScore("minesweeper", "ceiling")).toBe(1);
    expect(await meanScore("chess", "ceiling")).toBe(1);
  }, 300_000);

  it("trust: against a copycat it collaborates and cheats only on each round's last move", () => {
    const game = GAMES.trust;
    let state = game.reset(0, "eval");
    state = { ...state, inner: { ...state.inner, opponent: "copycat" } };
    const moves: string[] = [];
    for (let k = 0; k < 8; k++) {
      const a = CEILINGS.trust(game, state, { rules: "", observation: game.observe(state), history: [] }, undefined as never);
      moves.push(a);
      state = game.step(state, a).state;
    }
    // 7 x (2) + 3 = 17 is the best round against a copycat (hand-computed).
    expect(moves).toEqual([...Array(7).fill("collaborate"), "cheat"]);
    expect(game.score(state)).toBe(17);
  });

  it("oracle is perfect-judge's old name, accepted with a notice", () => {
    expect(resolvePolicyName("oracle")).toEqual({ name: "perfect-judge", notice: expect.stringMatching(/perfect-judge/) });
    expect(resolvePolicyName("ceiling")).toEqual({ name: "ceiling", notice: null });
    expect(resolvePolicyName("toString")).toBeNull();
  });
});
