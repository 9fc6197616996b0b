/**
 * The synthetic data set's records: the runs (manifest, steps, episodes, checkpoints; logs.md) of any
 * models x games x pathways, plus training runs, deterministic from a seed. Pure: options in, records
 * out, nothing written; `writeSyntheticData` (logs/synthetic.ts) writes them through the log writer,
 * so every record is checked against its schema (logs/schema.ts) on the way to disk. It feeds the
 * report's end-to-end tests and the analysis benchmarks; it is NOT a model of any real agent, only a
 * plausible shape of data:
 * - each run has a latent success probability that drifts with experience (x exploration episodes),
 *   per-step rewards in the game's own units summing to the episode score;
 * - self-scores agree with the reward's sign with a model-specific accuracy, some are unscored, a
 *   few fall outside the reward range (to exercise NMAE's clipping);
 * - a small share of checkpoints fail (infrastructure), leaving a failed episode record.
 * Every run draws from its own generator keyed by (seed, run_id), so a run's records do not depend on
 * which other runs are generated.
 */
import { Rng } from "../util/rng.js";
import type { CheckpointRecord, EpisodeRecord, RunManifest, StepRecord } from "./schema.js";

/** What to generate. Defaults give one paper-scale matrix minus the training runs. */
export interface SyntheticOptions {
  /** Seed of everything (default 0). */
  seed?: number;
  /** Model names (default: seven made-up model names). */
  models?: readonly string[];
  /** Game names (default: the seven S3Gym games). */
  games?: readonly string[];
  /** Context pathways (default history and memory). */
  pathways?: readonly string[];
  /** Replicate runs per (model, game, pathway), run seeds 0..runSeeds-1 (default 1). */
  runSeeds?: number;
  /** Exploration episodes (default 30). */
  exploreEpisodes?: number;
  /** Checkpoint spacing (default 3). */
  checkpointEvery?: number;
  /** Evaluation episodes per checkpoint (default 3). */
  evalEpisodes?: number;
  /** Steps per episode, drawn uniformly in [min, max] (default [8, 30]: mean 19). */
  stepsPerEpisode?: readonly [number, number];
  /** Training runs: for each model and game, `epochs` checkpoints (epoch 0 = base). Default none. */
  training?: { models: readonly string[]; games?: readonly string[]; epochs: number } | null;
  /** Probability that a checkpoint fails (default 0.03). */
  failRate?: number;
  /** Probability that a step's self-score is missing (default 0.05). */
  unscoredRate?: number;
  /** Append a torn (half-written) line to the first run's steps.jsonl (default false). */
  tornLastLine?: boolean;
}

/** One generated run: its manifest and the records of its three JSONL files, in file order. */
export interface SyntheticRun {
  run_id: string;
  /** True for a training run (pathway `training`). */
  training: boolean;
  manifest: RunManifest;
  steps: StepRecord[];
  episodes: EpisodeRecord[];
  checkpoints: CheckpointRecord[];
}

/** The line the torn-last-line option appends to the first run's steps.jsonl: half a record, no newline. */
export const SYNTHETIC_TORN_LINE = '{"run_id":"torn","model":"x","game":"y","pathway":"history","phase":"explo';

export const SYNTHETIC_GAMES = ["chess", "minesweeper", "nullify", "tetris", "snake", "pvz", "trust"] as const;
export const SYNTHETIC_MODELS = ["alpha-7b", "bravo-8b", "charlie-14b", "delta-32b", "echo-70b", "foxtrot-mini", "golf-pro"] as const;

/** Reward units per game (pos: a good step's reward; neg: a bad step's, with its rate). */
interface Profile {
  pos: number;
  neg: number;
  negRate: number;
}
const PROFILES: Record<string, Profile> = {
  chess: { pos: 0.2, neg: 0, negRate: 0 },
  minesweeper: { pos: 0.0625, neg: -0.0625, negRate: 0.02 },
  nullify: { pos: 1, neg: 0, negRate: 0 },
  tetris: { pos: 1, neg: 0, negRate: 0 },
  snake: { pos: 1, neg: 0, negRate: 0 },
  pvz: { pos: 1, neg: 0, negRate: 0 },
  trust: { pos: 3, neg: -1, negRate: 0.2 },
};
const DEFAULT_PROFILE: Profile = { pos: 1, neg: 0, negRate: 0 };

const BASE_TIME = Date.UTC(2025, 0, 1);

function slug(s: string): string {
  return s.replace(/[^A-Za-z0-9]+/g, "-");
}

function round(x: number, d = 4): number {
  const f = 10 ** d;
  return Math.round(x * f) / f;
}

/** Deterministic run id from (game, pathway, model, run seed), like the runner's. */
export function syntheticRunId(game: string, pathway: string, model: string, runSeed: number): string {
  return `${game}.${pathway}.${slug(model)}.s${runSeed}`;
}

interface EpisodeOut {
  steps: StepRecord[];
  score: number;
  nSteps: number;
}

/** Everything one run needs to write its lines. */
interface RunCtx {
  rng: Rng;
  id: { run_id: string; model: string; game: string; pathway: string };
  profile: Profile;
  stepRange: readonly [number, number];
  unscoredRate: number;
  /** Self-judging accuracy at experience fraction f in [0, 1]. */
  accuracy: (f: number) => number;
  rows: string[];
}

/** The fields that say which run and which episode a step or episode line belongs to, in the lines' key order. */
function placeOf(ctx: RunCtx, phase: "explore" | "eval", checkpoint: number | null, index: number, seed: number) {
  return { ...ctx.id, phase, config: phase, checkpoint, episode: index, seed };
}

/** Plays one synthetic episode and returns its step lines. `failAt` stops it early (infrastructure). */
function episode(ctx: RunCtx, phase: "explore" | "eval", checkpoint: number | null, index: number, seed: number, p: number, f: number, failAt: number | null): EpisodeOut {
  const { rng, profile } = ctx;
  const cap = ctx.stepRange[1];
  const n = ctx.stepRange[0] + rng.int(ctx.stepRange[1] - ctx.stepRange[0] + 1);
  const last = failAt === null ? n : Math.min(n, failAt);
  const steps: StepRecord[] = [];
  let score = 0;
  const acc = ctx.accuracy(f);
  for (let k = 0; k < last; k++) {
    const u = rng.float();
    const r = u < p ? profile.pos : u < p + profile.negRate ? profile.neg : 0;
    score = round(score + r, 6);
    let s: number | null;
    if (rng.float() < ctx.unscoredRate) s = null;
    else {
      const right = rng.float() < acc;
      const claimPositive = r > 0 ? right : !right;
      s = claimPositive ? round(profile.pos * (0.5 + rng.float()), 2) : r < 0 && right ? profile.neg : 0;
      if (rng.float() < 0.02) s = claimPositive ? profile.pos * 3 : -profile.pos; // outside the range
    }
    const action = `move ${rng.int(10)} ${rng.int(10)}`;
    const unparsable = rng.float() < 0.01;
    const rows = Array.from({ length: 12 }, () => ctx.rows[rng.int(ctx.rows.length)]).join("\n");
    steps.push({
      ...placeOf(ctx, phase, checkpoint, index, seed),
      step: k,
      observation: `Step ${k + 1}/${cap}\n${rows}`,
      response: unparsable ? "I am not sure what to do here." : `Thinking about the board, ${action} looks best.\nAnswer: ${action}\nScore: ${s ?? "?"}`,
      action: unparsable ? null : action,
      self_score: unparsable ? null : s,
      parse_error: unparsable ? "no Answer line" : s === null ? "no Score line" : null,
      valid: !unparsable,
      feedback: unparsable ? "invalid action: expected 'move r c'" : r > 0 ? "good move" : "ok",
      reward: unparsable ? 0 : r,
      score_after: score,
      done: k === last - 1 && failAt === null,
      tokens_in: 800 + k * 120,
      tokens_out: 40,
      latency_ms: 300 + rng.int(700),
    });
  }
  return { steps, score, nSteps: last };
}

function episodeLine(ctx: RunCtx, phase: "explore" | "eval", checkpoint: number | null, index: number, seed: number, e: EpisodeOut, failed: boolean, t: number): EpisodeRecord {
  return {
    ...placeOf(ctx, phase, checkpoint, index, seed),
    score: e.score,
    steps: e.nSteps,
    status: failed ? "failed" : "ok",
    error: failed ? "retries exhausted: 503" : null,
    started_at: new Date(BASE_TIME + t * 60_000).toISOString(),
    ended_at: new Date(BASE_TIME + t * 60_000 + 45_000).toISOString(),
  };
}

/** The records of one run, in file order. */
interface RunOut {
  steps: StepRecord[];
  episodes: EpisodeRecord[];
  checkpoints: CheckpointRecord[];
}

/**
 * The synthetic data set's runs, one at a time, in the order they are written (games x models x
 * pathways x run seeds, then the training runs). Deterministic: the same options give the same
 * records. Nothing is written (logs/synthetic.ts writes them).
 */
export function* syntheticRuns(opts: SyntheticOptions = {}): Generator<SyntheticRun> {
  const seed = opts.seed ?? 0;
  const models = opts.models ?? SYNTHETIC_MODELS;
  const games = opts.games ?? SYNTHETIC_GAMES;
  const pathways = opts.pathways ?? ["history", "memory"];
  const nSeeds = opts.runSeeds ?? 1;
  const nExplore = opts.exploreEpisodes ?? 30;
  const every = opts.checkpointEvery ?? 3;
  const nEval = opts.evalEpisodes ?? 3;
  const stepRange = opts.stepsPerEpisode ?? [8, 30];
  const failRate = opts.failRate ?? 0.03;
  const unscoredRate = opts.unscoredRate ?? 0.05;
  const rowPool = (rng: Rng): string[] => Array.from({ length: 32 }, () => Array.from({ length: 16 }, () => ".*#o"[rng.int(4)]).join(""));

  const makeRun = (id: RunCtx["id"], plan: (ctx: RunCtx, out: RunOut) => void, accuracy: (f: number) => number, runSeed: number): SyntheticRun => {
    const rng = Rng.fromKey(`synthetic/${seed}/${id.run_id}`);
    const ctx: RunCtx = { rng, id, profile: PROFILES[id.game] ?? DEFAULT_PROFILE, stepRange, unscoredRate, accuracy, rows: rowPool(rng) };
    const out: RunOut = { steps: [], episodes: [], checkpoints: [] };
    plan(ctx, out);
    const manifest: RunManifest = {
      ...id,
      kit_version: "synthetic",
      endpoint_host: "builtin",
      run_seed: runSeed,
      explore_seeds: Array.from({ length: id.pathway === "training" ? 0 : nExplore }, (_, i) => 1000 + i),
      eval_seeds: Array.from({ length: nEval }, (_, i) => i),
      reward_visibility: "hidden",
      // Not a RunConfigRecord's parts: the generator's own settings (the schema lets unknown keys through).
      config: { synthetic: true, seed } as RunManifest["config"],
      started_at: new Date(BASE_TIME).toISOString(),
      ended_at: new Date(BASE_TIME + 3_600_000).toISOString(),
      status: out.checkpoints.some((c) => c.status === "failed") ? "failed" : "complete",
      wall_s: 3600,
    };
    return { run_id: id.run_id, training: id.pathway === "training", manifest, ...out };
  };

  /** Evaluates a checkpoint: nEval episodes at success probability p, maybe failing. */
  const checkpoint = (ctx: RunCtx, out: RunOut, x: number, p: number, f: number, t: number): void => {
    const fails = ctx.rng.float() < failRate;
    const failedEpisode = fails ? ctx.rng.int(nEval) : -1;
    const scores: number[] = [];
    for (let e = 0; e < nEval; e++) {
      if (e > failedEpisode && fails) break; // the endpoint kept failing: the rest never ran
      const failed = e === failedEpisode;
      const ep = episode(ctx, "eval", x, e, e, p, f, failed ? 1 + ctx.rng.int(5) : null);
      out.steps.push(...ep.steps);
      out.episodes.push(episodeLine(ctx, "eval", x, e, e, ep, failed, t + e));
      if (!failed) scores.push(ep.score);
    }
    const mean = scores.length > 0 ? round(scores.reduce((a, b) => a + b, 0) / scores.length, 9) : null;
    out.checkpoints.push({
      ...ctx.id,
      checkpoint: x,
      scores,
      mean: fails ? null : mean,
      status: fails ? "failed" : "ok",
      reason: fails ? "episode failed: retries exhausted: 503" : null,
    });
  };

  for (const game of games) {
    for (const model of models) {
      const mrng = Rng.fromKey(`synthetic/${seed}/model/${model}/${game}`);
      const base = 0.1 + 0.35 * mrng.float();
      const acc0 = 0.55 + 0.35 * mrng.float();
      for (const pathway of pathways) {
        for (let rs = 0; rs < nSeeds; rs++) {
          const run_id = syntheticRunId(game, pathway, model, rs);
          const prng = Rng.fromKey(`synthetic/${seed}/skill/${run_id}`);
          const gain = (prng.float() - 0.3) * 0.3 + (pathway === "memory" ? 0.05 : 0);
          const learn = pathway === "memory" ? 0.1 : pathway === "history" ? 0.05 : 0;
          const skill = (x: number, rng: Rng): number => Math.min(0.95, Math.max(0.01, base + (gain * x) / nExplore + (rng.float() - 0.5) * 0.06));
          yield makeRun(
            { run_id, model, game, pathway },
            (ctx, out) => {
              let t = 0;
              checkpoint(ctx, out, 0, skill(0, ctx.rng), 0, t);
              for (let x = 1; x <= nExplore; x++) {
                t += 10;
                const ep = episode(ctx, "explore", null, x, 1000 + x - 1, skill(x - 1, ctx.rng), (x - 1) / nExplore, null);
                out.steps.push(...ep.steps);
                out.episodes.push(episodeLine(ctx, "explore", null, x, 1000 + x - 1, ep, false, t));
                if (x % every === 0) checkpoint(ctx, out, x, skill(x, ctx.rng), x / nExplore, t + 1);
              }
            },
            (f) => Math.min(0.98, acc0 + learn * f),
            rs,
          );
        }
      }
    }
  }

  if (opts.training) {
    const tr = opts.training;
    for (const game of tr.games ?? games) {
      for (const model of tr.models) {
        const run_id = syntheticRunId(game, "training", model, 0);
        const prng = Rng.fromKey(`synthetic/${seed}/skill/${run_id}`);
        const base = 0.1 + 0.35 * prng.float();
        const gain = (prng.float() - 0.4) * 0.3;
        const K = tr.epochs;
        yield makeRun(
          { run_id, model, game, pathway: "training" },
          (ctx, out) => {
            for (let epoch = 0; epoch < K; epoch++) {
              const p = Math.min(0.95, Math.max(0.01, base + (gain * epoch) / Math.max(1, K - 1) + (ctx.rng.float() - 0.5) * 0.06));
              checkpoint(ctx, out, epoch, p, 0, epoch * 10);
            }
          },
          () => 0.7,
          0,
        );
      }
    }
  }
}
