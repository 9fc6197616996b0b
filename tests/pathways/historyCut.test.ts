/**
 * History's `anchored` cut (--history-cut, the default of new runs): the experience stays the same
 * from step to step while it fits, so each prompt begins with the previous one and a provider's
 * prefix cache serves it; when the cut moves it leaves a reserve of max(context / 16, the episode's
 * growth so far). Compared here with the `per-step` rule (refitted at every step).
 */
import { describe, expect, it } from "vitest";
import { buildStepMessages, type EarlierTurn } from "../../src/agent/stepPrompt.js";
import type { Trajectory } from "../../src/agent/trajectoryText.js";
import { countMessageTokens } from "../../src/models/tokens.js";
import { experienceBudget, historyContext, historyCost, makeHistoryBlock, type HistoryCut } from "../../src/pathways/history.js";
import { TokenCounter } from "../../src/models/tokenCounter.js";

function traj(episode: number, steps: number): Trajectory {
  return {
    episode,
    steps: Array.from({ length: steps }, (_, i) => ({
      observation: `Step ${i + 1} of 64\nboard of episode ${episode}, row ${"x".repeat(20 + ((i * 7) % 13))}`,
      action: `move ${i}`,
      selfScore: i % 2,
      feedback: "ok",
    })),
    endObservation: `final board ${episode}`,
  };
}

const counter = new TokenCounter("o200k");
const blocks = Array.from({ length: 10 }, (_, i) => makeHistoryBlock(traj(i + 1, 20), counter));
const full = blocks.map((b) => b.stepTokens.length);
const rules = "# S3Gym game: snake (config: explore)\nRULES of the game. ".repeat(4);
const turn = (i: number): EarlierTurn => ({ observation: `Step ${i + 1} of 64\nthe board now ${"o".repeat(30)}`, response: `Answer: up\nScore: ${i % 2}`, feedback: "moved" });

/** One episode of `steps` steps: the keep vector and experience text at each step under `cut`. */
function episode(cut: HistoryCut, contextTokens: number, steps: number) {
  const settings = { contextTokens, maxNewTokens: 100, tokenizer: "o200k" as const, historyCut: cut };
  const turns: EarlierTurn[] = [];
  const out: { keep: number[]; text: string; promptTokens: number; budget: number }[] = [];
  for (let j = 0; j < steps; j++) {
    const step = { rules, turns: [...turns], observation: turn(j).observation, rewardVisibility: "hidden" as const };
    const c = historyContext(blocks, settings, step, counter);
    out.push({ ...c, promptTokens: countMessageTokens(buildStepMessages({ ...step, experience: c.text })), budget: experienceBudget(settings, step, counter) });
    turns.push(turn(j));
  }
  return out;
}

const distinct = (xs: { text: string }[]) => new Set(xs.map((x) => x.text)).size;
const total = historyCost(blocks, full, counter);

describe("anchored history cut", () => {
  it("keeps one experience through an episode whose growth fits the reserve, where per-step refits it again and again", () => {
    // A context where the history is cut from the first step on; the reserve is context/16.
    const contextTokens = Math.floor(total * 0.7);
    const steps = 6;
    const anchored = episode("anchored", contextTokens, steps);
    const perStep = episode("per-step", contextTokens, steps);
    const growth = anchored[0]!.budget - anchored[steps - 1]!.budget;
    expect(growth).toBeLessThanOrEqual(Math.floor(contextTokens / 16)); // the premise of this case
    expect(distinct(anchored)).toBe(1);
    expect(distinct(perStep)).toBeGreaterThanOrEqual(steps / 2);
    for (let j = 0; j < steps; j++) {
      // Every prompt fits the context minus the reply reserve ...
      expect(anchored[j]!.promptTokens).toBeLessThanOrEqual(contextTokens - 100);
      // ... and keeps a state of the same cutting order, never more than per-step's.
      anchored[j]!.keep.forEach((k, i) => expect(k).toBeLessThanOrEqual(perStep[j]!.keep[i]!));
    }
  });

  it("refits a long episode a few times (the reserve grows with the episode), always within the budget", () => {
    const contextTokens = Math.floor(total * 0.7);
    const steps = 64;
    const anchored = episode("anchored", contextTokens, steps);
    const perStep = episode("per-step", contextTokens, steps);
    const growth = anchored[0]!.budget - anchored[steps - 1]!.budget;
    // Refits at growth 0, then each time the episode outgrows a reserve at least as large as its
    // growth so far: at most 2 + log2(growth / (context / 16)) of them.
    const bound = 2 + Math.ceil(Math.log2(growth / Math.floor(contextTokens / 16)));
    expect(distinct(anchored)).toBeLessThanOrEqual(bound);
    expect(distinct(perStep)).toBeGreaterThan(3 * bound);
    for (const s of anchored) expect(s.promptTokens).toBeLessThanOrEqual(contextTokens - 100);
    // The keep vectors only move forward in the cutting order within the episode.
    for (let j = 1; j < steps; j++) anchored[j]!.keep.forEach((k, i) => expect(k).toBeLessThanOrEqual(anchored[j - 1]!.keep[i]!));
  });

  it("keeps everything, as per-step does, while everything fits", () => {
    const contextTokens = total + 5000;
    const anchored = episode("anchored", contextTokens, 10);
    for (const s of anchored) expect(s.keep).toEqual(full);
    expect(anchored.map((s) => s.text)).toEqual(episode("per-step", contextTokens, 10).map((s) => s.text));
  });

  it("is a function of the step alone: the same result mid-episode without the steps before it", () => {
    const contextTokens = Math.floor(total * 0.7);
    const settings = { contextTokens, maxNewTokens: 100, tokenizer: "o200k" as const, historyCut: "anchored" as const };
    const turns = Array.from({ length: 30 }, (_, i) => turn(i));
    const step = { rules, turns, observation: "now", rewardVisibility: "hidden" as const };
    const fresh = new TokenCounter("o200k");
    const freshBlocks = Array.from({ length: 10 }, (_, i) => makeHistoryBlock(traj(i + 1, 20), fresh));
    expect(historyContext(freshBlocks, settings, step, fresh)).toEqual(historyContext(blocks, settings, step, counter));
  });
});

describe("anchored cut, computed incrementally", () => {
  // The runner passes ONE turns array per episode, grown by a push per step; historyContext resumes
  // its walk from the previous step's. Every step must equal a walk from scratch (a fresh array),
  // also after an earlier turn was changed in place.
  it("gives at every step what a walk from scratch gives, and notices a changed earlier turn", () => {
    const settings = { contextTokens: Math.floor(total * 0.6), maxNewTokens: 100, tokenizer: "o200k" as const, historyCut: "anchored" as const };
    const live: EarlierTurn[] = [];
    const scratch = (observation: string) => historyContext(blocks, settings, { rules, turns: live.map((t) => ({ ...t })), observation, rewardVisibility: "hidden" }, counter);
    const moves = new Set<string>();
    for (let j = 0; j < 30; j++) {
      const observation = turn(j).observation;
      const got = historyContext(blocks, settings, { rules, turns: live, observation, rewardVisibility: "hidden" }, counter);
      expect(got).toEqual(scratch(observation));
      moves.add(got.keep.join(","));
      if (j === 20) {
        // An earlier turn grows in place by much more than the reserve: the cut must move.
        live[3] = { ...live[3]!, observation: live[3]!.observation + " y".repeat(2000) };
        const changed = historyContext(blocks, settings, { rules, turns: live, observation, rewardVisibility: "hidden" }, counter);
        expect(changed).toEqual(scratch(observation));
        expect(changed.keep).not.toEqual(got.keep);
        live[3]!.feedback = "moved twice";
        expect(historyContext(blocks, settings, { rules, turns: live, observation, rewardVisibility: "hidden" }, counter)).toEqual(scratch(observation));
      }
      live.push(turn(j));
    }
    // The schedule really exercises a cut that moves (else the comparison shows little).
    expect(moves.size).toBeGreaterThan(1);
  });
});
