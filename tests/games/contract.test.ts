/**
 * The properties every game and config must have (games.md, "Rules common to all games").
 * Per-game rule scenarios live in tests/games/<game>.test.ts.
 */
import { describe, expect, it } from "vitest";
import { playEpisode } from "../../src/games/episode.js";
import { textPolicyDecision } from "../../src/games/policies.js";
import { GAMES } from "../../src/games/registry.js";
import { CONFIG_NAMES, GAME_NAMES } from "../../src/games/types.js";

const only = process.env.S3GYM_TEST_GAMES?.split(",") ?? [...GAME_NAMES];
const games = GAME_NAMES.filter((g) => only.includes(g));

async function transcript(game: string, config: string, seed: number, policy: "random" | "heuristic") {
  const g = GAMES[game as keyof typeof GAMES];
  const run = await playEpisode(g, seed, config, (ctx) => {
    const d = textPolicyDecision(g, policy, ctx);
    return { action: d.action, selfScore: d.selfScore };
  });
  return run;
}

describe.each(games)("%s", (name) => {
  const game = GAMES[name];
  describe.each(CONFIG_NAMES)("config %s", (config) => {
    it("same seed and actions give an identical transcript; different seeds differ", async () => {
      for (const policy of ["random", "heuristic"] as const) {
        const a = await transcript(name, config, 3, policy);
        const b = await transcript(name, config, 3, policy);
        expect(JSON.stringify(b.steps)).toBe(JSON.stringify(a.steps));
      }
      // Whole transcripts, not first observations: a trust episode opens the same for every seed
      // (only the hidden opponent differs), and that is right.
      const transcripts = new Set<string>();
      for (let seed = 0; seed < 6; seed++) transcripts.add(JSON.stringify((await transcript(name, config, seed, "random")).steps));
      expect(transcripts.size).toBeGreaterThan(1);
    });

    it("rewards sum to the episode score, and score_after tracks it", async () => {
      for (let seed = 0; seed < 5; seed++) {
        for (const policy of ["random", "heuristic"] as const) {
          const run = await transcript(name, config, seed, policy);
          const sum = run.steps.reduce((acc, s) => acc + s.reward, 0);
          expect(sum).toBeCloseTo(run.score, 9);
          let running = 0;
          for (const s of run.steps) {
            running += s.reward;
            expect(s.score_after).toBeCloseTo(running, 9);
          }
          expect(run.steps.length).toBeLessThanOrEqual(game.configs[config].maxSteps);
          expect(run.steps.at(-1)?.done ?? true).toBe(true);
        }
      }
    });

    it("a state saved to JSON mid-episode and restored continues identically", async () => {
      for (let seed = 0; seed < 3; seed++) {
        const g = game;
        let state = g.reset(seed, config);
        const rules = g.rules(config);
        const history: { observation: string; action: string | null; feedback: string }[] = [];
        const mid = 4;
        for (let i = 0; i < mid && !state.done; i++) {
          const observation = g.observe(state);
          const d = textPolicyDecision(g, "random", { rules, observation, history });
          const r = g.step(state, d.action);
          history.push({ observation, action: d.action, feedback: r.feedback });
          state = r.state;
        }
        const restored = g.fromState(JSON.parse(JSON.stringify(state)));
        expect(restored).toEqual(state);
        let a = state;
        let b = restored;
        for (let i = 0; i < 20 && !a.done; i++) {
          const observation = g.observe(a);
          expect(g.observe(b)).toBe(observation);
          const d = textPolicyDecision(g, "random", { rules, observation, history: history.slice() });
          const ra = g.step(a, d.action);
          const rb = g.step(b, d.action);
          expect(JSON.stringify(rb)).toBe(JSON.stringify(ra));
          history.push({ observation, action: d.action, feedback: ra.feedback });
          a = ra.state;
          b = rb.state;
        }
      }
    });

    it("observe -> parseObservation gives the state's facts, from the start and mid-episode", () => {
      for (let seed = 0; seed < 4; seed++) {
        let state = game.reset(seed, config);
        const rules = game.rules(config);
        const history: { observation: string; action: string | null; feedback: string }[] = [];
        for (let i = 0; i < 12; i++) {
          const observation = game.observe(state);
          expect(game.parseObservation(observation)).toEqual(game.facts(state));
          if (state.done) break;
          const d = textPolicyDecision(game, i % 2 ? "random" : "heuristic", { rules, observation, history });
          const r = game.step(state, d.action);
          history.push({ observation, action: d.action, feedback: r.feedback });
          state = r.state;
        }
      }
      // Text that is not this game's observation is refused, not misread.
      expect(() => game.parseObservation(`Step 1 of 8\nnot a ${name} board`)).toThrow();
    });

    it("step() does not mutate its input state, and clone() is independent", () => {
      const s0 = game.reset(1, config);
      const before = JSON.stringify(s0);
      const actions = game.legalActions(s0);
      expect(actions.length).toBeGreaterThan(0);
      game.step(s0, actions[0]!);
      game.step(game.clone(s0), null);
      expect(JSON.stringify(s0)).toBe(before);
    });

    it("no observation or feedback contains the verifier score", async () => {
      for (let seed = 0; seed < 4; seed++) {
        const run = await transcript(name, config, seed, "heuristic");
        for (const s of run.steps) {
          expect(s.observation).not.toMatch(/score|reward/i);
          expect(s.feedback).not.toMatch(/score|reward/i);
        }
      }
    });

    it("an unparsable answer is a step with feedback naming the grammar", () => {
      const s0 = game.reset(2, config);
      const r = game.step(s0, null);
      // pvz's own rule overrides the common one: its turn is played and scores 1 while the lawn holds (rules v3).
      const unparsedReward = name === "pvz" ? 1 : 0;
      expect(r.valid).toBe(false);
      expect(r.reward).toBe(unparsedReward);
      expect(r.state.step).toBe(1);
      expect(r.feedback).toContain(game.actionGrammar);
      const r2 = game.step(s0, "utter nonsense %%%");
      expect(r2.valid).toBe(false);
      expect(r2.reward).toBe(unparsedReward);
      expect(r2.feedback).toContain(game.actionGrammar);
    });

    it("rules text starts with the title line and ends with the response contract", () => {
      const text = game.rules(config);
      expect(text.startsWith(`# S3Gym game: ${name} (config: ${config})`)).toBe(true);
      expect(text).toContain("Answer: <action>");
      expect(text).toContain("Score: <number>");
      expect(text).toContain(String(game.configs[config].maxSteps));
    });

    it("the step cap ends the episode", () => {
      const capped = { ...game.configs[config], maxSteps: 1 };
      const s = game.reset(5, capped, "capped");
      const r = game.step(s, game.legalActions(s)[0]!);
      expect(r.done).toBe(true);
      expect(() => game.step(r.state, null)).toThrow(/finished/);
      const uncapped = game.reset(5, config);
      expect(game.step(uncapped, null).state.step).toBe(1);
    });
  });

  it("the heuristic is not worse than random on average over eval seeds 0..7", async () => {
    let h = 0;
    let r = 0;
    for (let seed = 0; seed < 8; seed++) {
      h += (await transcript(name, "eval", seed, "heuristic")).score;
      r += (await transcript(name, "eval", seed, "random")).score;
    }
    expect(h).toBeGreaterThanOrEqual(r);
  });
});
