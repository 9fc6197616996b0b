import type { z } from "zod";
import type { Rng, RngState } from "../util/rng.js";

export const GAME_NAMES = ["chess", "minesweeper", "nullify", "tetris", "snake", "pvz", "trust"] as const;
export type GameName = (typeof GAME_NAMES)[number];
export const CONFIG_NAMES = ["explore", "eval"] as const;
export type ConfigName = (typeof CONFIG_NAMES)[number];

/** Every config carries the step cap; the rest is game-specific. */
export interface BaseConfig {
  /** Step cap: every model response is one step, parsed or not (protocol default 64). */
  maxSteps: number;
}

/**
 * What one game module implements: pure rules over its own inner state. The shared envelope
 * (`makeGame`) adds the step counter, the cap, the seed-derived generator, cloning and JSON restore,
 * so the seven games do not each reimplement them.
 */
export interface GameRules<I, C extends BaseConfig, F = unknown> {
  name: GameName;
  /** One line for `s3gym games`. */
  summary: string;
  /** The two configs of games.md, as data. */
  configs: Record<ConfigName, C>;
  /**
   * `success_threshold`: the episode score at or above which an episode counts as solved (replay
   * forgetting, the verified pathway). Game data beside the configs, not inside them: the configs are
   * recorded in every manifest and compared on resume.
   */
  successThreshold: number;
  /**
   * Named explore variants (verified.md): configs a curriculum may choose for an exploration
   * episode besides `explore` (at least two; names other than explore/eval). Evaluation never
   * plays them; each one's rules text states how it differs.
   */
  exploreVariants: Record<string, C>;
  /** Validates a config read from anywhere (named variants included). */
  configSchema: z.ZodType<C>;
  /** Validates an inner state restored from JSON. */
  innerSchema: z.ZodType<I>;
  /** The action grammar, quoted in invalid-action feedback, e.g. "uncover (row, col)". */
  actionGrammar: string;
  /** A fresh inner state; every random draw comes from `rng`. */
  init(config: C, rng: Rng): I;
  /**
   * Applies one response's action to `inner` IN PLACE (the envelope passes a clone). `action` is null
   * when the response had no parsable `Answer:` line. Must not count steps or enforce the cap.
   */
  apply(inner: I, action: string | null, config: C, rng: Rng): Transition;
  /**
   * The copy of `inner` that step() hands to `apply` (optional; default: a full deep copy). A game
   * may share parts that `apply` never changes in place (a mine layout, a history's finished rounds)
   * and must then have `apply` replace such a part rather than change it: every earlier state stays
   * as it was (tests/games/stateCopy.test.ts checks whole episodes).
   */
  copyInner?(inner: I): I;
  /** The observation body: what a player sees (never the verifier score). */
  render(inner: I, config: C): string;
  /** The facts the observation shows, as data (what a text policy or a model may read off the screen). */
  facts(inner: I, config: C): F;
  /**
   * The inverse of `render`: an observation body back into its facts; throws on any other text. The
   * contract test checks parseObservation(render(x)) equals facts(x) for every game.
   */
  parseObservation(body: string): F;
  /** The verifier's running episode score. */
  score(inner: I, config: C): number;
  /** Rules text for the config in use (without the title line and the response contract). */
  rulesBody(config: C): string;
  /** Legal (or legal-looking, for combinatorial games) actions, for API users and tests. */
  legalActions(inner: I, config: C): string[];
  /** Text-only built-in policies. */
  policies: Record<"random" | "heuristic", TextPolicy>;
}

export interface Transition {
  /** Verifier step reward r: the change in the episode score caused by this step. */
  reward: number;
  /** Visible feedback a player sees (never the reward or score). */
  feedback: string;
  /** Whether the game accepted the action as legal. */
  valid: boolean;
  /** Whether the game ended by its own rules (the envelope adds the step cap). */
  done: boolean;
}

/** A whole episode's state: plain JSON, restorable with `fromState`. */
export interface EpisodeState<I = unknown, C extends BaseConfig = BaseConfig> {
  game: GameName;
  configName: string;
  config: C;
  seed: number;
  /** Steps taken so far (the next step's 0-based index). */
  step: number;
  done: boolean;
  /** The episode's own generator state (xoshiro128**), derived from (game, config name, seed). */
  rng: RngState;
  inner: I;
}

export interface StepResult<I = unknown, C extends BaseConfig = BaseConfig> extends Transition {
  state: EpisodeState<I, C>;
}

/** What a text policy sees: exactly what a model sees, nothing privileged. */
export interface PolicyContext {
  /** The rules text (system message) of the episode. */
  rules: string;
  /** The current observation text. */
  observation: string;
  /** This episode's earlier steps, oldest first. */
  history: Array<{ observation: string; action: string | null; feedback: string }>;
}

export interface PolicyDecision {
  action: string;
  /** The policy's own estimate of the step reward (0 for `random`). */
  selfScore: number;
}

export type TextPolicy = (ctx: PolicyContext, rng: Rng) => PolicyDecision;

/** The public game API (architecture.md, "Game" boundary). */
// biome-ignore lint/suspicious/noExplicitAny: the registry holds games of different state, config and facts types; each game module keeps its own (a default of unknown would make every game unassignable to Game)
export interface Game<I = any, C extends BaseConfig = any, F = any> {
  name: GameName;
  summary: string;
  configs: Record<ConfigName, C>;
  /** When an episode counts as solved (`success_threshold`; read it through games/successThreshold.ts). */
  successThreshold: number;
  /** Named explore variants (GameRules.exploreVariants); never evaluated. */
  exploreVariants: Record<string, C>;
  configSchema: z.ZodType<C>;
  actionGrammar: string;
  /** Resolves a config name (explore|eval) or validates an explicit config object. */
  resolveConfig(config: string | C): { name: string; config: C };
  reset(seed: number, config: string | C, configName?: string): EpisodeState<I, C>;
  observe(state: EpisodeState<I, C>): string;
  /** The facts `observe(state)` shows, as data. */
  facts(state: EpisodeState<I, C>): F;
  /** An observation (with its "Step k of N" header) back into its facts; throws on any other text. */
  parseObservation(observation: string): F;
  step(state: EpisodeState<I, C>, action: string | null): StepResult<I, C>;
  score(state: EpisodeState<I, C>): number;
  rules(config: string | C, configName?: string): string;
  legalActions(state: EpisodeState<I, C>): string[];
  clone(state: EpisodeState<I, C>): EpisodeState<I, C>;
  /** Restores a state from parsed JSON, validating it; throws an error naming the bad field. */
  fromState(json: unknown): EpisodeState<I, C>;
  policies: Record<"random" | "heuristic", TextPolicy>;
}
