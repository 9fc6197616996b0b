/**
 * The step-log schema: the data contract between the runner (writer) and the analysis (reader).
 * Read this file to learn the data. Every field carries a comment; the TypeScript types are inferred
 * from the schemas, and the writer and the reader both validate against them (logs.md).
 *
 * Unknown extra fields are allowed (`.passthrough()`) so logs converted from other tools, or written by
 * hand for a test, stay analysable.
 */
import { z } from "zod";

export const PHASES = ["explore", "eval"] as const;
export const PATHWAYS = ["none", "history", "memory", "training"] as const;

/** Identity fields repeated on every line, so files from many runs can be concatenated. */
const identity = {
  /** Deterministic from (game, pathway, model, run seed): a restarted run finds its own directory. */
  run_id: z.string().min(1),
  /** The model spec, e.g. `openai:gpt-4o-mini` or `builtin:heuristic`. */
  model: z.string().min(1),
  /** One of the seven games (free string so converted logs of other games still load). */
  game: z.string().min(1),
  /** `none` | `history` | `memory` | `training` (free string for other tools' pathways). */
  pathway: z.string().min(1),
};

export const StepRecord = z
  .object({
    ...identity,
    /** `explore` (lenient config, feeds experience) or `eval` (strict, held out, never feeds experience). */
    phase: z.enum(PHASES),
    /** The game config used: `explore`, `eval`, or a named variant. */
    config: z.string().min(1),
    /** eval: the checkpoint x (training runs: the epoch index); explore: null. */
    checkpoint: z.number().int().nonnegative().nullable(),
    /** explore: 1..N_explore; eval: 0..N_eval-1 within the checkpoint. */
    episode: z.number().int().nonnegative(),
    /** The episode's seed (the game generator is derived from game, config and this seed). */
    seed: z.number().int().nonnegative(),
    /** 0-based step index within the episode. */
    step: z.number().int().nonnegative(),
    /** Exactly the observation text the model was shown for this step's state. */
    observation: z.string(),
    /** The raw model text (for reasoning models: the final content, not the reasoning). */
    response: z.string(),
    /** The parsed action; null when the response had no parsable action. */
    action: z.string().nullable(),
    /** The parsed self-score s (the model's guess of this step's reward); null when absent/unparsable. */
    self_score: z.number().finite().nullable(),
    /** Why parsing failed (action or score), or null. */
    parse_error: z.string().nullable(),
    /** Whether the game accepted the action as legal. */
    valid: z.boolean(),
    /** The visible feedback text the game showed after this step. */
    feedback: z.string(),
    /** The verifier step reward r (hidden from the model in the main setting). */
    reward: z.number().finite(),
    /** The verifier's running episode score after this step. */
    score_after: z.number().finite(),
    /** Whether the episode ended with this step. */
    done: z.boolean(),
    /** Prompt tokens of this step's call (0 for built-in policies). */
    tokens_in: z.number().nonnegative(),
    /** Completion tokens of this step's call (0 for built-in policies). */
    tokens_out: z.number().nonnegative(),
    /** Wall time of this step's model call in milliseconds (0 when replayed from the cache). */
    latency_ms: z.number().nonnegative(),
    /** Optional: true when the model answer was replayed from the on-disk cache. */
    cached: z.boolean().optional(),
    /**
     * Optional: the reply's reasoning text (`reasoning_content` / `reasoning`), cut to 20,000
     * characters; null when the reply had none. Never parsed unless `--answer-from` says so.
     */
    reasoning: z.string().nullable().optional(),
    /** Optional: the reasoning's full length in characters (0 when none). */
    reasoning_chars: z.number().int().nonnegative().optional(),
    /** Optional: who counted this step's tokens: `server` (the endpoint's usage) or a local tokenizer (`o200k` ...): an estimate. */
    tokens_counted_by: z.string().optional(),
    /** Optional: `reasoning` when the action and self-score were read from the reasoning (`--answer-from reasoning|both`). */
    answer_source: z.enum(["content", "reasoning"]).optional(),
  })
  .passthrough();
export type StepRecord = z.infer<typeof StepRecord>;

export const EpisodeRecord = z
  .object({
    ...identity,
    phase: z.enum(PHASES),
    config: z.string().min(1),
    /** eval: checkpoint x (or epoch); explore: null. */
    checkpoint: z.number().int().nonnegative().nullable(),
    /** explore: 1..N_explore; eval: 0..N_eval-1 within the checkpoint. */
    episode: z.number().int().nonnegative(),
    seed: z.number().int().nonnegative(),
    /** The verifier's episode score y (the game's score at the end). Meaningless when failed. */
    score: z.number().finite(),
    /** Steps taken. */
    steps: z.number().int().nonnegative(),
    /** `ok`, or `failed` when infrastructure (not the model's answers) stopped the episode. */
    status: z.enum(["ok", "failed"]),
    /** Null, or why the episode failed (e.g. `retries exhausted: 503`). */
    error: z.string().nullable(),
    /** ISO 8601. */
    started_at: z.string(),
    /** ISO 8601. */
    ended_at: z.string(),
  })
  .passthrough();
export type EpisodeRecord = z.infer<typeof EpisodeRecord>;

export const CheckpointRecord = z
  .object({
    ...identity,
    /** The checkpoint x (exploration episodes seen), or the epoch in a training run. */
    checkpoint: z.number().int().nonnegative(),
    /** The evaluation episode scores, in episode order. */
    scores: z.array(z.number().finite()),
    /** Mean of `scores`; null when failed. */
    mean: z.number().finite().nullable(),
    /** `ok`, or `failed` (excluded from Avg/Max; AUC+ joins its valid neighbours). */
    status: z.enum(["ok", "failed"]),
    /** Null, or why the checkpoint failed. */
    reason: z.string().nullable(),
  })
  .passthrough();
export type CheckpointRecord = z.infer<typeof CheckpointRecord>;

export const MemoryRecord = z
  .object({
    ...identity,
    /** The memory version after this exploration episode (0 = the empty initial memory). */
    after_episode: z.number().int().nonnegative(),
    /** The memory text the next prompts carry. */
    text: z.string(),
    /** The parsed triple. */
    retain: z.string(),
    avoid: z.string(),
    next: z.string(),
    /** Whether the summary reply parsed; when false the previous memory was kept. */
    parsed: z.boolean(),
    /** Null, or why the reply was rejected. */
    error: z.string().nullable(),
    /** The raw summary reply (null for version 0). */
    response: z.string().nullable(),
  })
  .passthrough();
export type MemoryRecord = z.infer<typeof MemoryRecord>;

export const CallRecord = z
  .object({
    run_id: z.string().min(1),
    /** `step` | `summary` | `correction`. */
    purpose: z.enum(["step", "summary", "correction"]),
    phase: z.enum(PHASES).nullable(),
    checkpoint: z.number().int().nonnegative().nullable(),
    episode: z.number().int().nonnegative().nullable(),
    step: z.number().int().nonnegative().nullable(),
    /** Prompt tokens (from the API's usage, or counted with the tokenizer when absent). */
    tokens_in: z.number().nonnegative(),
    /** Completion tokens (reasoning tokens included when the API counts them). */
    tokens_out: z.number().nonnegative(),
    /** Prompt tokens the provider served from its prefix cache, when it reports them. */
    tokens_cached: z.number().nonnegative().nullable(),
    /** Optional: `server` when the tokens are the endpoint's usage; a local tokenizer's name when estimated (no usage reported). */
    tokens_counted_by: z.string().optional(),
    /** Wall time including retries, ms. */
    latency_ms: z.number().nonnegative(),
    /** Retries made before the final outcome. */
    retries: z.number().int().nonnegative(),
    /** Replayed from the on-disk cache. */
    cached: z.boolean(),
    /** Null on success; else the error class (`http_429`, `http_5xx`, `timeout`, `transport`, ...). */
    error: z.string().nullable(),
    /** Dollar cost from the user's price table; null when no price is known. */
    cost_usd: z.number().nonnegative().nullable(),
  })
  .passthrough();
export type CallRecord = z.infer<typeof CallRecord>;

export const RunManifest = z
  .object({
    run_id: z.string().min(1),
    model: z.string().min(1),
    game: z.string().min(1),
    pathway: z.string().min(1),
    /** The kit version that wrote the run. */
    kit_version: z.string(),
    /**
     * The games' rules version the run played (src/games/version.ts); absent in manifests written
     * before it was recorded, which played version 1. A run is only resumed under the same version.
     */
    rules_version: z.number().int().positive().optional(),
    /** The endpoint host (e.g. `api.openai.com`, `127.0.0.1:8000`), or `builtin`; never a key. */
    endpoint_host: z.string(),
    /** The run seed the episode seeds derive from. */
    run_seed: z.number().int().nonnegative(),
    /** Exploration seeds in episode order. */
    explore_seeds: z.array(z.number().int().nonnegative()),
    /** Evaluation seeds, the same at every checkpoint. */
    eval_seeds: z.array(z.number().int().nonnegative()),
    /** `hidden` (the main setting) or `visible` (ablation: rewards shown in the prompt). */
    reward_visibility: z.enum(["hidden", "visible"]),
    /** The full resolved configuration of the run. */
    config: z.record(z.string(), z.unknown()),
    started_at: z.string(),
    ended_at: z.string().nullable(),
    /** `running` | `complete` | `failed` (some checkpoint failed) | `degenerate` (stopped: too many bad replies) | `error`. */
    status: z.string(),
    /** Wall time in seconds, once ended. */
    wall_s: z.number().nonnegative().nullable().optional(),
    /** Optional, once ended: this invocation's step replies by kind (`replies`, `bad`, `empty`, `noAnswer`, `noScore`, `withReasoning`, `cutAtLength`). */
    replies: z.record(z.string(), z.number()).optional(),
    /** Optional: why the run stopped as `degenerate` (what share of replies was empty or unparsable, whether reasoning was present). */
    degenerate_reason: z.string().optional(),
  })
  .passthrough();
export type RunManifest = z.infer<typeof RunManifest>;

/** The files of a run directory and the schema of each line. */
export const RUN_FILES = {
  steps: { file: "steps.jsonl", schema: StepRecord },
  episodes: { file: "episodes.jsonl", schema: EpisodeRecord },
  checkpoints: { file: "checkpoints.jsonl", schema: CheckpointRecord },
  memory: { file: "memory.jsonl", schema: MemoryRecord },
  calls: { file: "calls.jsonl", schema: CallRecord },
} as const;
