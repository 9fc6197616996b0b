import { z } from "zod";
import { Rng, rngStateFromKey, type RngState } from "../util/rng.js";
import { ConfigError } from "../util/errors.js";
import { formatIssues } from "../util/zodIssues.js";
import { RESPONSE_CONTRACT, rulesTitle } from "./responseContract.js";
import type { BaseConfig, EpisodeState, Game, GameName, GameRules, PolicyContext, StepResult, TextPolicy } from "./types.js";
import { GAME_NAMES } from "./types.js";
import { BOARDS_VERSION } from "./version.js";

/**
 * The key an episode's generator is derived from. The config NAME (not its numbers) enters the key,
 * so changing only the step cap does not change the board; a named variant gets its own stream. The
 * boards version (`v<BOARDS_VERSION>`, version.ts) enters it too: new generators, new boards for the
 * same seed; a change of scoring alone keeps the boards.
 */
export function episodeKey(game: string, configName: string, seed: number): string {
  return `s3gym/v${BOARDS_VERSION}|${game}|${configName}|${seed}`;
}

/** The header line every observation starts with: the step about to be taken and the cap. */
export function stepHeader(step: number, maxSteps: number): string {
  return `Step ${step + 1} of ${maxSteps}`;
}

/** Splits an observation into its step header and the game's own body (the inverse of observe). */
export function splitObservation(text: string): { step: number; maxSteps: number; body: string } {
  const m = /^Step (\d+) of (\d+)\n/.exec(text);
  if (!m) throw new Error("observation does not start with a 'Step k of N' line");
  return { step: Number(m[1]) - 1, maxSteps: Number(m[2]), body: text.slice(m[0].length) };
}

/**
 * A reader of observations that keeps the last one's parse: a learner tactic reads its step's
 * observation twice or more (its own rule, then the heuristic or search that judges it), so later reads
 * get the first's result. The result is shared: callers only read it. An observation whose body does
 * not parse is not kept (it throws every time).
 */
export function lastObservationReader<T>(parse: (body: string) => T): (observation: string) => T {
  let last: { observation: string; value: T } | null = null;
  return (observation) => {
    if (last !== null && last.observation === observation) return last.value;
    const value = parse(splitObservation(observation).body);
    last = { observation, value };
    return value;
  };
}

/** Feedback for an unparsable or illegal action, naming the expected grammar. */
export function invalidFeedback(grammar: string, why = "invalid action"): string {
  return `${why}: expected '${grammar}'`;
}

/**
 * A policy's generator. With a seed (the call's: the runner derives it from the call identity and
 * sends it over HTTP too) it is the seed's stream, so episodes with the same opening still differ.
 * Without one (a bare HTTP request) it is derived from what the policy sees, which repeats on
 * identical observations: the fallback, not the protocol's behaviour.
 */
export function policyRng(policy: string, ctx: PolicyContext, seed?: number): Rng {
  if (seed !== undefined) return Rng.fromKey(`policy|${policy}|seed|${seed}`);
  const first = ctx.history[0]?.observation ?? ctx.observation;
  return Rng.fromKey(`policy|${policy}|${ctx.history.length}|${first}|${ctx.observation}`);
}

/**
 * A deep copy of plain data (arrays, plain objects, primitives), as structuredClone makes of it and
 * several times faster: step() copies the whole state every step. Episode states are plain JSON trees
 * (no object reached twice, no Map, Date or class instance; tests/games/stateCopy.test.ts checks every
 * game's states), and on such a tree the two copies are equal, key order included.
 */
export function copyPlain<T>(x: T): T {
  if (typeof x !== "object" || x === null) return x;
  // Primitive children are copied inline, not through a call each: most of a state is boolean or
  // number grids, and the call per cell was most of step()'s cost.
  if (Array.isArray(x)) {
    const n = x.length;
    let i = 0;
    while (i < n && (typeof x[i] !== "object" || x[i] === null)) i++;
    // A row of primitives (a board row) copies as one slice, which keeps the array's packed kind.
    if (i === n) return x.slice() as T;
    const out = new Array(n);
    for (i = 0; i < n; i++) {
      const v: unknown = x[i];
      out[i] = typeof v === "object" && v !== null ? copyPlain(v) : v;
    }
    return out as T;
  }
  const out: Record<string, unknown> = {};
  // for-in, not Object.keys: no key array per object (a quarter of the copy's time, measured). On a
  // plain object (own enumerable keys only, nothing enumerable inherited) it visits the same keys in
  // the same order.
  for (const k in x) {
    const v = (x as Record<string, unknown>)[k];
    out[k] = typeof v === "object" && v !== null ? copyPlain(v) : v;
  }
  return out as T;
}

/** Wraps a game's pure rules into the public Game API. */
export function makeGame<I, C extends BaseConfig, F>(rules: GameRules<I, C, F>): Game<I, C, F> {
  const configNames = Object.keys(rules.configs);
  const copyInner: (inner: I) => I = rules.copyInner ?? copyPlain;

  function resolveConfig(config: string | C, configName?: string): { name: string; config: C } {
    if (typeof config === "string") {
      const c = (rules.configs as Record<string, C>)[config];
      if (!c) throw new ConfigError(`unknown config '${config}' for ${rules.name}: expected one of ${configNames.join(", ")}`);
      return { name: config, config: structuredClone(c) };
    }
    const parsed = rules.configSchema.safeParse(config);
    if (!parsed.success) throw new ConfigError(`invalid ${rules.name} config: ${formatIssues(parsed.error)}`);
    return { name: configName ?? "custom", config: parsed.data };
  }

  const stateSchema = z.object({
    game: z.literal(rules.name),
    configName: z.string().min(1),
    config: rules.configSchema,
    seed: z.number().int().nonnegative(),
    step: z.number().int().nonnegative(),
    done: z.boolean(),
    rng: z.tuple([z.number().int(), z.number().int(), z.number().int(), z.number().int()]),
    inner: rules.innerSchema,
  });

  const game: Game<I, C, F> = {
    name: rules.name,
    summary: rules.summary,
    configs: rules.configs,
    successThreshold: rules.successThreshold,
    exploreVariants: rules.exploreVariants,
    configSchema: rules.configSchema,
    actionGrammar: rules.actionGrammar,
    policies: rules.policies,
    resolveConfig: (config) => resolveConfig(config),

    reset(seed, config, configName) {
      if (!Number.isSafeInteger(seed) || seed < 0) throw new Error(`seed must be a non-negative integer, got ${seed}`);
      const resolved = resolveConfig(config, configName);
      const rngState = rngStateFromKey(episodeKey(rules.name, resolved.name, seed));
      const inner = rules.init(resolved.config, new Rng(rngState));
      return { game: rules.name, configName: resolved.name, config: resolved.config, seed, step: 0, done: false, rng: rngState, inner };
    },

    observe(state) {
      return `${stepHeader(state.step, state.config.maxSteps)}\n${rules.render(state.inner, state.config)}`;
    },

    facts: (state) => rules.facts(state.inner, state.config),
    parseObservation: (observation) => rules.parseObservation(splitObservation(observation).body),

    step(state, action): StepResult<I, C> {
      if (state.done) throw new Error(`${rules.name}: step() called on a finished episode`);
      // The next state shares the config with this one (step never changes a config, and neither
      // may a caller: states are values) and copies only what apply() changes: the inner state
      // (through the game's own copyInner where it has one) and the generator's four words. The
      // keys are written in reset()'s order, so the state serialises as a full copy did.
      const inner = copyInner(state.inner);
      const r = state.rng;
      const rng: RngState = [r[0], r[1], r[2], r[3]];
      const config = state.config;
      const t = rules.apply(inner, action, config, new Rng(rng));
      const step = state.step + 1;
      const capped = !t.done && step >= config.maxSteps;
      const done = t.done || capped;
      const next: EpisodeState<I, C> = { game: state.game, configName: state.configName, config, seed: state.seed, step, done, rng, inner };
      const feedback = capped ? `${t.feedback}${t.feedback ? " " : ""}(step cap of ${config.maxSteps} reached)` : t.feedback;
      return { state: next, reward: t.reward, feedback, valid: t.valid, done };
    },

    score: (state) => rules.score(state.inner, state.config),

    rules(config, configName) {
      const resolved = resolveConfig(config, configName);
      return `${rulesTitle(rules.name, resolved.name)}\n\n${rules.rulesBody(resolved.config).trim()}\n\n${RESPONSE_CONTRACT}`;
    },

    legalActions: (state) => (state.done ? [] : rules.legalActions(state.inner, state.config)),
    clone: (state) => copyPlain(state),

    fromState(json) {
      const parsed = stateSchema.safeParse(json);
      if (!parsed.success) throw new Error(`invalid ${rules.name} state: ${formatIssues(parsed.error)}`);
      return parsed.data as EpisodeState<I, C>;
    },
  };
  return game;
}

/** What a game's rules.ts exports for the envelope (`import * as rules`): its other exports are not read. */
export type RulesModule<I, C extends BaseConfig, F> = Pick<
  GameRules<I, C, F>,
  "configs" | "exploreVariants" | "configSchema" | "innerSchema" | "actionGrammar" | "init" | "copyInner" | "apply" | "score" | "rulesBody" | "legalActions"
>;

/** What a game's render.ts exports for the envelope (`import * as render`): the observation and its inverse. */
export type RenderModule<I, C extends BaseConfig, F> = Pick<GameRules<I, C, F>, "render" | "facts" | "parseObservation">;

/** What a game's policies.ts exports for the envelope (`import * as policies`): the two built-in policies. */
export type PoliciesModule = Record<"random" | "heuristic", TextPolicy>;

/**
 * A game from its modules: an index.ts states only the game's own facts (name, summary, success
 * threshold) and hands over its rules, render and policies modules whole; every member `makeGame`
 * needs is read from them by name (and only those: `game.policies` holds random and heuristic alone).
 */
export function gameFromModules<I, C extends BaseConfig, F>(parts: {
  name: GameName;
  summary: string;
  /** `success_threshold` (views.md, verified.md): the score at or above which an episode counts as solved. */
  successThreshold: number;
  rules: RulesModule<I, C, F>;
  render: RenderModule<I, C, F>;
  policies: PoliciesModule;
}): Game<I, C, F> {
  const { rules, render, policies } = parts;
  return makeGame<I, C, F>({
    name: parts.name,
    summary: parts.summary,
    configs: rules.configs,
    exploreVariants: rules.exploreVariants,
    successThreshold: parts.successThreshold,
    configSchema: rules.configSchema,
    innerSchema: rules.innerSchema,
    actionGrammar: rules.actionGrammar,
    init: rules.init,
    ...(rules.copyInner ? { copyInner: rules.copyInner } : {}),
    apply: rules.apply,
    render: render.render,
    facts: render.facts,
    parseObservation: render.parseObservation,
    score: rules.score,
    rulesBody: rules.rulesBody,
    legalActions: rules.legalActions,
    policies: { random: policies.random, heuristic: policies.heuristic },
  });
}

export { GAME_NAMES };
