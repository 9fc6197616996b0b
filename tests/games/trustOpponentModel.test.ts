/**
 * Trust opponent knowledge (games/trust/opponentModel.ts, learner.md): the strategies an episode's
 * visible moves leave possible (hand-checked against the definitions in games.md), the prior they
 * give, and that probe-exploit plays differently, and better against the pool it met, with it.
 */
import { describe, expect, it } from "vitest";
import { heuristic, heuristicWithPrior } from "../../src/games/trust/policies.js";
import { mergeOpponents, opponentFromSteps, priorFrom, roundsFromSteps } from "../../src/games/trust/opponentModel.js";
import { renderFacts } from "../../src/games/trust/render.js";
import { opponentMove, payoff, OPPONENT_TYPES, type Move, type OpponentType } from "../../src/games/trust/rules.js";
import { tactics } from "../../src/games/trust/tactics.js";
import type { OpponentRecord, SeenStep } from "../../src/games/tactics.js";
import { Rng } from "../../src/util/rng.js";

const C: Move = "collaborate";
const X: Move = "cheat";
const PAST = { collaborate: "collaborated", cheat: "cheated" } as const;

function obs(history: Array<{ you: Move[]; them: Move[] }>, k: number, cap = 64): string {
  const round = history.length === 0 || history.at(-1)!.you.length === 8 ? history.length + 1 : history.length;
  const move = round > history.length ? 1 : history.at(-1)!.you.length + 1;
  return `Step ${k + 1} of ${cap}\n${renderFacts({ rounds: 5, movesPerRound: 8, round, move, over: false, history })}`;
}

/** The visible steps of an episode in which `you` was played against `type` (deterministic types). */
function steps(type: OpponentType, you: Move[]): SeenStep[] {
  const history: Array<{ you: Move[]; them: Move[] }> = [];
  const out: SeenStep[] = [];
  you.forEach((y, k) => {
    const observation = obs(
      history.map((r) => ({ you: [...r.you], them: [...r.them] })),
      k,
    );
    if (k % 8 === 0) history.push({ you: [], them: [] });
    const cur = history.at(-1)!;
    const them = opponentMove(type, cur.you, cur.them) as Move;
    cur.you.push(y);
    cur.them.push(them);
    out.push({ observation, action: y, feedback: `you ${PAST[y]}, the opponent ${PAST[them]}` });
  });
  return out;
}

describe("what an episode's text shows of its opponent", () => {
  it("the last observation's history plus the last step's own move (from its feedback)", () => {
    const r = roundsFromSteps(steps("copycat", [C, X, X]))!;
    expect(r).toEqual([{ you: [C, X, X], them: [C, C, X] }]);
  });

  it("three cheats all answered by collaborate: only always-collaborate (copykitten would answer the 2nd in a row)", () => {
    expect(opponentFromSteps(steps("always-collaborate", [X, X, X]))).toEqual({ n: 1, types: ["always-collaborate"] });
  });

  it("two cheats answered by collaborate: always-collaborate or copykitten", () => {
    expect(opponentFromSteps(steps("always-collaborate", [X, X]))).toEqual({ n: 1, types: ["always-collaborate", "copykitten"] });
  });

  it("collaborating only: every strategy that collaborates while you do (detective cheats on move 2)", () => {
    // copycat, grudger, copykitten, simpleton and always-collaborate answer C to C; detective opens C, X.
    expect(opponentFromSteps(steps("copycat", [C, C, C]))!.types).toEqual(["always-collaborate", "copycat", "copykitten", "grudger", "simpleton"]);
  });

  it("moves no deterministic strategy explains are a coin's; no moves, no record", () => {
    // You collaborate twice, it answers C then X: only detective opens that way.
    const s = steps("always-collaborate", [C, C]);
    s[1]!.feedback = "you collaborated, the opponent cheated";
    expect(opponentFromSteps(s)!.types).toEqual(["detective"]);
    // Answers X, C, C to C, C, C: no deterministic strategy opens like that.
    const odd = steps("always-collaborate", [C, C, C]);
    odd[0]!.feedback = "you collaborated, the opponent cheated";
    odd[2]!.observation = obs([{ you: [C, C], them: [X, C] }], 2);
    expect(opponentFromSteps(odd)!.types).toEqual(["random"]);
    expect(opponentFromSteps([{ observation: "Step 1 of 9\nnot trust", action: "x", feedback: "" }])).toBeNull();
  });
});

describe("the prior the records give", () => {
  it("1 per strategy plus each record's episodes shared among its candidates", () => {
    const met: OpponentRecord[] = mergeOpponents(
      [{ n: 1, types: ["always-collaborate"] }],
      [
        { n: 1, types: ["always-collaborate"] },
        { n: 1, types: ["always-collaborate", "copykitten"] },
      ],
    );
    expect(met).toEqual([
      { n: 2, types: ["always-collaborate"] },
      { n: 1, types: ["always-collaborate", "copykitten"] },
    ]);
    const p = priorFrom(met);
    expect(p["always-collaborate"]).toBe(3.5);
    expect(p.copykitten).toBe(1.5);
    expect(p.grudger).toBe(1);
    expect(Object.keys(p).sort()).toEqual([...OPPONENT_TYPES].sort());
  });
});

/** probe-exploit's 16-move score against `type` with the given knowledge. */
function score(type: OpponentType, opponents: OpponentRecord[]): number {
  const pe = tactics.tactics.find((t) => t.name === "probe-exploit")!;
  const history: Array<{ you: Move[]; them: Move[] }> = [];
  let total = 0;
  for (let k = 0; k < 16; k++) {
    const observation = obs(
      history.map((r) => ({ you: [...r.you], them: [...r.them] })),
      k,
      16,
    );
    const d = pe.policy({ rules: "", observation, history: [] }, Rng.fromKey("t"), { opponents });
    if (k % 8 === 0) history.push({ you: [], them: [] });
    const cur = history.at(-1)!;
    const them = opponentMove(type, cur.you, cur.them) as Move;
    cur.you.push(d.action as Move);
    cur.them.push(them);
    total += payoff(d.action as Move, them);
  }
  return total;
}

describe("probe-exploit with opponent knowledge", () => {
  it("without knowledge it is the heuristic; a uniform prior changes nothing", () => {
    const o = obs([{ you: [C, X], them: [C, C] }], 2);
    const ctx = { rules: "", observation: o, history: [] };
    const pe = tactics.tactics.find((t) => t.name === "probe-exploit")!;
    expect(pe.policy(ctx, Rng.fromKey("t"), {}).action).toBe(heuristic(ctx, Rng.fromKey("t")).action);
    expect(heuristicWithPrior(ctx, Object.fromEntries(OPPONENT_TYPES.map((t) => [t, 1])))).toEqual(heuristic(ctx, Rng.fromKey("t")));
  });

  it("having met explore's three strategies twice each, it scores more against them, and stops probing an always-collaborate", () => {
    const met: OpponentRecord[] = [
      { n: 2, types: ["always-collaborate"] },
      { n: 2, types: ["always-cheat"] },
      { n: 2, types: ["copycat"] },
    ];
    const pool: OpponentType[] = ["always-collaborate", "always-cheat", "copycat"];
    const before = pool.map((t) => score(t, []));
    const after = pool.map((t) => score(t, met));
    // Measured: 43, -1, 30 without; 48, 0, 30 with (16 moves: cheating an always-collaborate pays 3 a move).
    expect(after[0]).toBe(48);
    expect(before[0]).toBeLessThan(48);
    expect(after.reduce((a, b) => a + b, 0)).toBeGreaterThan(before.reduce((a, b) => a + b, 0));
  });
});
