/** gameFromModules: a game's index.ts hands over its modules whole; only the members the envelope needs are read. */
import { describe, expect, it } from "vitest";
import { gameFromModules, lastObservationReader } from "../../src/games/envelope.js";
import { GAMES, getGame } from "../../src/games/registry.js";
import type { BaseConfig, Game } from "../../src/games/types.js";
import * as chessPolicies from "../../src/games/chess/policies.js";
import * as chessRender from "../../src/games/chess/render.js";
import * as chessRules from "../../src/games/chess/rules.js";
import * as snakePolicies from "../../src/games/snake/policies.js";
import * as snakeRender from "../../src/games/snake/render.js";
import * as snakeRules from "../../src/games/snake/rules.js";

describe("gameFromModules", () => {
  it("every registered game's policies are random and heuristic alone, not the rest of policies.ts", () => {
    // chess's policies.ts also exports heuristicKnowing, rulesKnowing and learnVectors.
    expect(Object.keys(chessPolicies).length).toBeGreaterThan(2);
    for (const game of Object.values(GAMES)) expect(Object.keys(game.policies)).toEqual(["random", "heuristic"]);
  });

  it("plays the same episode as the registered game, with and without a copyInner in rules.ts", () => {
    expect("copyInner" in snakeRules).toBe(true);
    expect("copyInner" in chessRules).toBe(false);
    samePlay(gameFromModules({ name: "snake", summary: "s", successThreshold: 3, rules: snakeRules, render: snakeRender, policies: snakePolicies }), getGame("snake"));
    samePlay(gameFromModules({ name: "chess", summary: "c", successThreshold: 1, rules: chessRules, render: chessRender, policies: chessPolicies }), getGame("chess"));
  });
});

function samePlay<I, C extends BaseConfig, F>(built: Game<I, C, F>, registered: Game): void {
  expect([built.name, built.successThreshold, built.actionGrammar]).toEqual([registered.name, registered.successThreshold, registered.actionGrammar]);
  expect(built.rules("eval")).toBe(registered.rules("eval"));
  let a = built.reset(7, "explore");
  let b = registered.reset(7, "explore");
  for (let i = 0; i < 12 && !a.done; i++) {
    expect(built.observe(a)).toBe(registered.observe(b));
    expect(built.facts(a)).toEqual(registered.facts(b));
    const legal = registered.legalActions(b);
    expect(built.legalActions(a)).toEqual(legal);
    const action = legal.length > 0 ? legal[i % legal.length]! : null;
    const sa = built.step(a, action);
    const sb = registered.step(b, action);
    expect([sa.reward, sa.feedback, sa.valid, sa.done]).toEqual([sb.reward, sb.feedback, sb.valid, sb.done]);
    expect(built.score(sa.state)).toBe(registered.score(sb.state));
    a = sa.state;
    b = sb.state;
  }
}

describe("lastObservationReader", () => {
  it("parses an observation's body once while it is the last one read, again for another, and keeps no failure", () => {
    const bodies: string[] = [];
    const read = lastObservationReader((body) => {
      bodies.push(body);
      if (body === "bad") throw new Error("unparsable");
      return { body };
    });
    const a = read("Step 1 of 4\nboard A");
    expect(read("Step 1 of 4\nboard A")).toBe(a);
    expect(read("Step 2 of 4\nboard B")).toEqual({ body: "board B" });
    expect(read("Step 1 of 4\nboard A")).not.toBe(a);
    expect(() => read("Step 3 of 4\nbad")).toThrow(/unparsable/);
    expect(() => read("Step 3 of 4\nbad")).toThrow(/unparsable/);
    expect(bodies).toEqual(["board A", "board B", "board A", "bad", "bad"]);
  });
});
