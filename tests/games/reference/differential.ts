/**
 * Differential play: a fast policy and its frozen reference are asked for a decision on the SAME
 * context at every step of whole episodes, and every difference is collected. What is played is chosen
 * by a driver (the fast decision, a random legal action, a deliberately poor one), so the episodes
 * reach the states a good policy alone avoids: tall stacks, lost lawns, game over.
 */
import { expect } from "vitest";
import { Rng } from "../../../src/util/rng.js";
import type { BaseConfig, EpisodeState, Game, PolicyContext, PolicyDecision, TextPolicy } from "../../../src/games/types.js";

export interface Mismatch {
  config: string;
  seed: number;
  step: number;
  fast: PolicyDecision;
  reference: PolicyDecision;
}

/** What to play this step: the fast policy's decision is given; return an action or null (no answer). */
export type Driver = (ctx: PolicyContext, state: EpisodeState, decided: PolicyDecision, rng: Rng) => string | null;

export interface DifferentialResult {
  /** Steps at which both policies were asked. */
  steps: number;
  episodes: number;
  mismatches: Mismatch[];
  /** Final states, for checks on what the episodes reached (game over, blocked lanes, ...). */
  finals: EpisodeState[];
}

/** Every config name the game plays: explore, eval and the named explore variants. */
export function allConfigs(game: Game): Array<{ name: string; config: BaseConfig }> {
  return [
    ...Object.entries(game.configs).map(([name, config]) => ({ name, config: config as BaseConfig })),
    ...Object.entries(game.exploreVariants).map(([name, config]) => ({ name, config: config as BaseConfig })),
  ];
}

export function differentialPlay(game: Game, configs: Array<{ name: string; config: BaseConfig }>, seeds: number[], fast: TextPolicy, reference: TextPolicy, driver: Driver): DifferentialResult {
  const out: DifferentialResult = { steps: 0, episodes: 0, mismatches: [], finals: [] };
  for (const { name, config } of configs) {
    for (const seed of seeds) {
      let state = game.reset(seed, config, name);
      const rules = game.rules(config, name);
      const history: PolicyContext["history"] = [];
      const drive = Rng.fromKey(`differential|${game.name}|${name}|${seed}`);
      while (!state.done) {
        const ctx: PolicyContext = { rules, observation: game.observe(state), history: history.slice() };
        // Each policy gets its own generator with the same stream, as the runner would give either one.
        const key = `differential-policy|${name}|${seed}|${state.step}`;
        const a = fast(ctx, Rng.fromKey(key));
        const b = reference(ctx, Rng.fromKey(key));
        out.steps += 1;
        if (a.action !== b.action || !Object.is(a.selfScore, b.selfScore)) out.mismatches.push({ config: name, seed, step: state.step, fast: a, reference: b });
        const action = driver(ctx, state, a, drive);
        const res = game.step(state, action);
        history.push({ observation: ctx.observation, action, feedback: res.feedback });
        state = res.state;
      }
      out.episodes += 1;
      out.finals.push(state);
    }
  }
  return out;
}

/** Plays the fast decision with probability `pFast`, else a random legal action, else `poor` (if given). */
export function mixedDriver(game: Game, pFast: number, poor?: { p: number; action: (state: EpisodeState) => string | null }): Driver {
  return (_ctx, state, decided, rng) => {
    const u = rng.float();
    if (u < pFast) return decided.action;
    if (poor && u < pFast + poor.p) return poor.action(state);
    const legal = game.legalActions(state);
    return legal.length > 0 ? rng.pick(legal) : "pass";
  };
}

/**
 * The check of a policy with a cache: its own episodes (seeds 0-2) and mixed ones (seeds 3-5, with
 * `poor` moves), played twice so the second pass decides from the cache; no mismatch, and enough steps.
 */
export function expectSameDecisionsTwice(
  game: Game,
  configs: ReturnType<typeof allConfigs>,
  policy: TextPolicy,
  reference: TextPolicy,
  poor: { p: number; action: (state: EpisodeState) => string | null },
): void {
  for (let pass = 0; pass < 2; pass++) {
    const own = differentialPlay(game, configs, [0, 1, 2], policy, reference, (_c, _s, d) => d.action);
    expect(own.mismatches).toEqual([]);
    const mixed = differentialPlay(game, configs, [3, 4, 5], policy, reference, mixedDriver(game, 0.5, poor));
    expect(mixed.mismatches).toEqual([]);
    expect(own.steps + mixed.steps).toBeGreaterThan(50);
  }
}
