/**
 * The step-log schema: the data contract between the runner (writer) and the analysis (reader).
 * Read this file to learn the data. Every field carries a comment; the TypeScript types are inferred
 * from the schemas, and the writer and the reader both validate against them (logs.md).
 *
 * Unknown extra fields are allowed (`.passthrough()`) so logs converted from other tools, or written by
 * hand for a test, stay analysable. Fields the kit writes that older data (or other tools) may lack
 * are `.optional()`; everything the kit writes is declared here.
 *
 * Versions: `SCHEMA_VERSION` is written into every manifest (`schema_version`) and covers all the
 * files of the run. A manifest without it was written before versions existed (version 0: main at
 * b999829, the fixture under tests/fixtures/data-v0); version 0 data reads, reports and loads for
 * resume unchanged, because version 1 only added declarations of fields version 0 already wrote.
 * (Whether a run may be continued is the games' `rules_version`, a separate check.)
 */
import { z } from "zod";

/** The version of the data contract this kit writes (the manifest's `schema_version`). */
export const SCHEMA_VERSION = 1;

export const PHASES = ["explore", "eval"] as const;

/**
 * Evaluation views (views.md, SEAGym's lenses): `eval` is the protocol's strict held-out evaluation;
 * `id` plays the explore config on a third seed list disjoint from exploration and evaluation; `replay`
 * re-plays the first K exploration seeds with the explore config. A record without `view` is `eval`,
 * so data written before views existed (and any run without `--views`) reads as it always did.
 */
export const VIEWS = ["eval", "id", "replay"] as const;
export type ViewName = (typeof VIEWS)[number];
/** The views `--views` adds to the protocol's own `eval` (the ones a record names in its `view` field). */
export type ExtraView = Exclude<ViewName, "eval">;
export const EXTRA_VIEWS: readonly ExtraView[] = VIEWS.filter((v): v is ExtraView => v !== "eval");

/**
 * The `view` field of eval steps, episodes, checkpoints and calls: written only for `id` and
 * `replay` (absent means `eval`); explore records never carry it.
 */
const viewField = z.enum(VIEWS).optional();

/** The view of a record: its `view` field, or `eval` when absent. */
export function viewOf(r: { view?: ViewName | undefined }): ViewName {
  return r.view ?? "eval";
}

/** The view of an episode's record: `explore` for exploration (which has no view), else its view (viewOf). */
export function episodeViewOf(r: { phase: string; view?: ViewName | undefined }): ViewName | "explore" {
  return r.phase === "eval" ? viewOf(r) : "explore";
}

/** Identity fields repeated on every line, so files from many runs can be concatenated. */
const identity = {
  /** Deterministic from (game, pathway, model, run seed): a restarted run finds its own directory. */
  run_id: z.string().min(1),
  /** The model spec, e.g. `openai:gpt-4o-mini` or `builtin:heuristic`. */
  model: z.string().min(1),
  /** One of the seven games (free string so converted logs of other games still load). */
  game: z.string().min(1),
  /** A registered pathway (`none`, `history`, `memory`: src/pathways/registry.ts) or `training` (free string for other tools' pathways). */
  pathway: z.string().min(1),
};

export const StepRecord = z
  .object({
    ...identity,
    /** `explore` (lenient config, feeds experience) or `eval` (strict, held out, never feeds experience). */
    phase: z.enum(PHASES),
    /**
     * Eval steps of an evaluation view other than the protocol's (views.md): `id` (explore config,
     * the id seed list) or `replay` (explore config, an exploration seed re-played). Absent = `eval`.
     */
    view: viewField,
    /** The game config used: `explore`, `eval`, or a named variant (`explore` for the id and replay views). */
    config: z.string().min(1),
    /** eval: the checkpoint x (training runs: the epoch index); explore: null. */
    checkpoint: z.number().int().nonnegative().nullable(),
    /**
     * explore: 1..N_explore; eval: 0..N_eval-1 within the checkpoint; view `id`: 0..N_view-1; view
     * `replay`: j = 0..K-1, re-playing exploration episode j+1 (its seed), present from checkpoint j+1 on.
     */
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
    /** The endpoint's finish reason (`stop`; `length` marks a reply cut off at max_tokens); null when not reported. */
    finish_reason: z.string().nullable().optional(),
    /** Prompt tokens the provider served from its prefix cache, when it reports them (else null). */
    tokens_cached: z.number().nonnegative().nullable().optional(),
    /** History runs: steps kept per earlier exploration episode in this step's prompt (episode 1 first; 0 = dropped). */
    history_keep: z.array(z.number().int().nonnegative()).optional(),
    /** Memory runs: the memory version (after_episode of memory.jsonl) this step's prompt carried. */
    memory_version: z.number().int().nonnegative().optional(),
    /**
     * Hybrid runs: the earlier exploration steps retrieved into this step's prompt, in the order shown
     * (most similar first; docs/memory.md): exploration episode and its 0-based step. Empty when none.
     */
    retrieved_steps: z.array(z.object({ episode: z.number().int().positive(), step: z.number().int().nonnegative() })).optional(),
    /**
     * Optional: the reply's reasoning text (`reasoning_content` / `reasoning`), cut to 20,000
     * characters; null when the reply had none. Never parsed unless `--answer-from` says so.
     */
    reasoning: z.string().nullable().optional(),
    /** Optional: the reasoning's full length in characters (0 when none). */
    reasoning_chars: z.number().int().nonnegative().optional(),
    /** Optional: who counted this step's tokens: `server` (the endpoint's usage) or a local tokenizer (`o200k` ...): an estimate. */
    tokens_counted_by: z.string().optional(),
    /** Optional: earliest turns of this episode left out of this step's prompt so it fit --context-tokens (the newest kept); absent when none. */
    turns_dropped: z.number().int().positive().optional(),
    /** Optional: `reasoning` when the action and self-score were read from the reasoning (`--answer-from reasoning|both`). */
    answer_source: z.enum(["content", "reasoning"]).optional(),
    /**
     * Optional, exploration steps of a run whose judge is not `self` (`--judge`, docs/judging.md): the
     * score the experience carried for this step instead of `self_score` (History's block, the summary
     * and verifier input, BuildSFT's filter); null when the judge gave none (`none`, an unparsable
     * judge reply, an unscored step under `shuffled`). `self_score` stays the acting model's own.
     * Absent (with the two fields below) under `self`: the experience carried `self_score`.
     */
    experience_score: z.number().nullable().optional(),
    /** Optional: who gave `experience_score`: `verifier` (the hidden step reward), `shuffled`, `none` or `model:<spec>` (an external judge). */
    experience_score_source: z.string().optional(),
    /** Optional, `shuffled`: the step whose self-score this step carried (of episode `experience_score_from_episode`): the permutation, written out; absent on a step past the end of that episode (no score), and on a last step that carries the rest of a longer episode's scores, the first of them. */
    experience_score_from: z.number().int().nonnegative().optional(),
    /** Optional, `shuffled`: the exploration episode whose self-scores this step's episode carried (the shuffle permutes the recorded run's exploration episodes). */
    experience_score_from_episode: z.number().int().nonnegative().optional(),
  })
  .passthrough();
export type StepRecord = z.infer<typeof StepRecord>;

export const EpisodeRecord = z
  .object({
    ...identity,
    phase: z.enum(PHASES),
    /** The evaluation view of an eval episode (`id` or `replay`, as on its steps); absent = `eval`. */
    view: viewField,
    config: z.string().min(1),
    /** eval: checkpoint x (or epoch); explore: null. */
    checkpoint: z.number().int().nonnegative().nullable(),
    /** explore: 1..N_explore; eval: 0..N_eval-1 within the checkpoint (views: as on the step record). */
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
    /** The observation after the last step: a History block ends with it (without its "Step k of N" header). */
    end_observation: z.string().optional(),
    /**
     * Optional: 16 hex digits of SHA-256 over the run's compared protocol settings (the `compared`
     * rows of src/runner/settings/protocolSettings.ts; a field at its row's `absent` value left out), so the
     * protocol can be checked from the logs when manifest.json is gone (src/runner/settings/protocolFingerprint.ts).
     * Absent in logs of older kits and other tools.
     */
    protocol_fingerprint: z.string().optional(),
  })
  .passthrough();
export type EpisodeRecord = z.infer<typeof EpisodeRecord>;

export const CheckpointRecord = z
  .object({
    ...identity,
    /** The checkpoint x (exploration episodes seen), or the epoch in a training run. */
    checkpoint: z.number().int().nonnegative(),
    /**
     * The view this record scores (`id` or `replay`); absent = `eval`. A run with views writes one
     * record per (view, checkpoint); the replay view writes none at checkpoint 0 (nothing explored yet).
     */
    view: viewField,
    /** The evaluation episode scores, in episode order. */
    scores: z.array(z.number().finite()),
    /** Mean of `scores`; null when failed. */
    mean: z.number().finite().nullable(),
    /** `ok`, or `failed` (excluded from Avg/Max; AUC+ joins its valid neighbours). */
    status: z.enum(["ok", "failed"]),
    /** Null, or why the checkpoint failed. */
    reason: z.string().nullable(),
    /** Evaluation episodes that failed (empty when ok, and when exploration stopped before the checkpoint ran). */
    failed_episodes: z.array(z.number().int().nonnegative()).optional(),
  })
  .passthrough();
export type CheckpointRecord = z.infer<typeof CheckpointRecord>;

/** One fact of a verified memory version: "in condition C, action A led to effect E", with its evidence. */
export const VerifiedFactRecord = z.object({
  /** Stable id (`f1`, `f2` ... in order of first verification); a fact keeps it across versions. */
  id: z.string().min(1),
  /** The condition C, as the verifier wrote it. */
  condition: z.string(),
  /** The action A. */
  action: z.string(),
  /** The effect E. */
  effect: z.string(),
  /** Evidence count: exploration episodes whose verdict stated this fact. */
  support: z.number().int().positive(),
  /** Those episodes, ascending. */
  episodes: z.array(z.number().int().positive()),
  /** Per supporting episode, the step numbers (1-based, as in the trajectory text) the verdict cited. */
  steps: z.array(z.object({ /** The episode. */ episode: z.number().int().positive(), /** Its cited steps. */ steps: z.array(z.number().int().positive()) })),
  /** Later verified episodes that stated another effect for the same condition and action. */
  contradictions: z.number().int().nonnegative(),
  /** `active`, or `disputed` after one contradiction (a second drops the fact). */
  status: z.enum(["active", "disputed"]),
});
export type VerifiedFactRecord = z.infer<typeof VerifiedFactRecord>;

export const MemoryRecord = z
  .object({
    ...identity,
    /** The memory version after this exploration episode (0 = the empty initial memory). */
    after_episode: z.number().int().nonnegative(),
    /** The memory text the next prompts carry. */
    text: z.string(),
    /** The parsed triple: what to retain (empty in verified runs). */
    retain: z.string(),
    /** The parsed triple: what to avoid. */
    avoid: z.string(),
    /** The parsed triple: what to try next. */
    next: z.string(),
    /** Whether the summary reply parsed; when false the previous memory was kept. */
    parsed: z.boolean(),
    /** Null, or why the reply was rejected. */
    error: z.string().nullable(),
    /** The raw summary reply (null for version 0). */
    response: z.string().nullable(),
    /** Steps of the episode's trajectory the summary prompt kept (its tail is cut to fit the context budget). */
    trajectory_steps_kept: z.number().int().nonnegative().optional(),
    /** Prompt tokens of the summary call. */
    tokens_in: z.number().nonnegative().optional(),
    /** Completion tokens of the summary call. */
    tokens_out: z.number().nonnegative().optional(),
    /** Wall time of the summary call in milliseconds (0 when replayed from the cache). */
    latency_ms: z.number().nonnegative().optional(),
    /** True when the summary was replayed from the on-disk response cache. */
    cached: z.boolean().optional(),
    /**
     * Verified runs: the facts of this memory version (verified.md, "Consolidation"), sorted by support;
     * `text` is their rendering under the context budget and retain/avoid/next are empty. A version
     * whose verdict was rejected repeats the previous version's facts (parsed = false).
     */
    facts: z.array(VerifiedFactRecord).optional(),
    /** Verified runs: ids of facts dropped by this version (a second contradiction). */
    dropped_fact_ids: z.array(z.string()).optional(),
  })
  .passthrough();
export type MemoryRecord = z.infer<typeof MemoryRecord>;


/** Verified runs: one curriculum decision per exploration batch (curriculum.jsonl). */
export const CurriculumRecord = z
  .object({
    ...identity,
    /** 1-based batch number (broad batches first, then one deep batch per episode). */
    batch: z.number().int().positive(),
    /** `broad` or `deep`. */
    phase: z.enum(["broad", "deep"]),
    /** The memory version the decision saw (= the first episode of the batch - 1). */
    memory_version: z.number().int().nonnegative(),
    /** The choice per episode of the batch, in episode order. */
    choices: z.array(
      z.object({
        /** The exploration episode. */
        episode: z.number().int().positive(),
        /** The seed, one of the run's exploration seeds. */
        seed: z.number().int().nonnegative(),
        /** `explore` or one of the game's named explore variants. */
        variant: z.string().min(1),
      }),
    ),
    /** The reason text of the reply (empty when the reply was rejected). */
    reason: z.string(),
    /** Whether the reply parsed; when false the choices are the fallback (the next untried seeds, variant explore). */
    parsed: z.boolean(),
    /** Null, or why the reply was rejected. */
    error: z.string().nullable(),
    /** The raw reply. */
    response: z.string(),
    /** Prompt tokens of the curriculum call. */
    tokens_in: z.number().nonnegative(),
    /** Completion tokens of the curriculum call. */
    tokens_out: z.number().nonnegative(),
    /** Wall time of the call in ms (0 when replayed from the cache). */
    latency_ms: z.number().nonnegative(),
    /** True when the reply was replayed from the on-disk response cache. */
    cached: z.boolean().optional(),
  })
  .passthrough();
export type CurriculumRecord = z.infer<typeof CurriculumRecord>;

/** Verified runs: the verifier's verdict on one exploration episode (verdicts.jsonl). */
export const VerdictRecord = z
  .object({
    ...identity,
    /** The exploration episode judged. */
    episode: z.number().int().positive(),
    /** Its seed. */
    seed: z.number().int().nonnegative(),
    /** Its config (`explore` or a named variant). */
    config: z.string().min(1),
    /** `success` / `failure` / `uncertain`; null when the reply was rejected. */
    outcome: z.enum(["success", "failure", "uncertain"]).nullable(),
    /** The causal facts stated (empty when rejected). */
    facts: z.array(
      z.object({
        /** Condition C. */ condition: z.string(),
        /** Action A. */ action: z.string(),
        /** Effect E. */ effect: z.string(),
        /** Supporting step numbers (1-based). */ steps: z.array(z.number().int().positive()),
      }),
    ),
    /** Whether the reply parsed; when false the memory is kept unchanged. */
    parsed: z.boolean(),
    /** Null, or why the reply was rejected. */
    error: z.string().nullable(),
    /** The raw reply. */
    response: z.string(),
    /** The model that verified (the run's model, or --verifier-model). */
    verifier_model: z.string().min(1),
    /** Steps of the trajectory the verifier prompt kept (its tail is cut to fit the context budget). */
    trajectory_steps_kept: z.number().int().nonnegative(),
    /** Prompt tokens of the verifier call. */
    tokens_in: z.number().nonnegative(),
    /** Completion tokens of the verifier call. */
    tokens_out: z.number().nonnegative(),
    /** Wall time of the call in ms (0 when replayed from the cache). */
    latency_ms: z.number().nonnegative(),
    /** True when the reply was replayed from the on-disk response cache. */
    cached: z.boolean().optional(),
  })
  .passthrough();
export type VerdictRecord = z.infer<typeof VerdictRecord>;

export const CallRecord = z
  .object({
    /** The run the call belongs to. */
    run_id: z.string().min(1),
    /** `step` (a step's answer) | `summary` (a memory update) | `correction` (BuildSFT's corrected answer) | `curriculum` / `verifier` (the verified pathway's roles) | `judge` (an external judge's score of an exploration step, `--judge model:<spec>`). */
    purpose: z.enum(["step", "summary", "correction", "curriculum", "verifier", "judge"]),
    /** The phase of the episode the call served; null when it served none. */
    phase: z.enum(PHASES).nullable(),
    /** The checkpoint of an evaluation call; null otherwise. */
    checkpoint: z.number().int().nonnegative().nullable(),
    /** The evaluation view of an eval call (`id` or `replay`); absent = `eval` (and for every other call). */
    view: viewField,
    /** The episode the call served; null when it served none. */
    episode: z.number().int().nonnegative().nullable(),
    /** The 0-based step of a step call; null for a summary. */
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
    /**
     * Dollar cost from the user's price table; null when no price is known. For a call replayed from
     * the cache (`cached`), the price of the answer when it was paid for: nothing is spent again, and
     * the usage totals count it as replayed, not spent.
     */
    cost_usd: z.number().nonnegative().nullable(),
    /**
     * Set when the endpoint's usage was inconsistent and part of it was not used, e.g. cached prompt
     * tokens above the prompt tokens (tokens_cached is then null). Absent when the usage was sound.
     */
    usage_note: z.string().optional(),
    /** The sample index of the call identity (0 unless a step is sampled several times). */
    sample: z.number().int().nonnegative().optional(),
    /** The endpoint's finish reason; null on failure or when not reported. */
    finish_reason: z.string().nullable().optional(),
    /** Optional: completion tokens spent reasoning (`completion_tokens_details.reasoning_tokens`), part of tokens_out; absent when not reported. */
    tokens_reasoning: z.number().nonnegative().optional(),
    /** Optional: the failure kind of each retried attempt (`http_429`, `http_5xx`, `bad_response`, `timeout` ...); absent without retries. */
    retry_kinds: z.array(z.string()).optional(),
    /** Optional: the seed sent with the request (callSeed.ts); absent when none was sent. */
    seed: z.number().int().optional(),
    /** Optional: the provider's `system_fingerprint` (the served build), beside the seed: a drift shows in run_quality. */
    system_fingerprint: z.string().optional(),
    /**
     * Optional: the model id the reply named, only when it differs from the id asked for (a provider
     * serving a dated snapshot behind an alias, a router that swapped models). Absent when the server
     * echoed the id, and in logs written before it was recorded.
     */
    served_model: z.string().optional(),
    /** Optional: the kit's own count of the prompt (run tokenizer), for step calls; compared with tokens_in, and the only token count of a built-in model (which reports no usage). */
    tokens_in_local: z.number().nonnegative().optional(),
    /** Optional: true when the server's tokens_in fell short of tokens_in_local by more than the margins of logs/qualityThresholds.ts (a silent server-side cut). */
    server_truncated: z.boolean().optional(),
    /**
     * Optional, endpoint pools only (several base URLs for one model, scale.md): the host (and port)
     * that answered the call, or that it last tried when it failed. A host only: never a URL's
     * credentials, path or query, never a key. Absent with one endpoint and for cache replays.
     */
    endpoint: z.string().optional(),
    /**
     * Optional, endpoint pools only: the hosts the run left on this call, in order, because each was
     * down (refused connections, repeated 5xx or timeouts); the run's later calls stay on `endpoint`.
     * The failed attempts are in retries / retry_kinds. Absent when the run did not move.
     */
    moved_from: z.array(z.string()).optional(),
  })
  .passthrough();
export type CallRecord = z.infer<typeof CallRecord>;

/**
 * The protocol numbers as recorded (`config.protocol`, and the train-loop state), snake_case; with
 * the game configs they decide what the episodes are, so a resume under other numbers is refused.
 * Nested config objects drop keys they do not declare when read (the manifest itself keeps extras). `src/runner/settings/protocolRecord.ts` is the one two-way
 * mapping between these and the runner's ProtocolSettings.
 */
export const SettingsRecord = z.object({
  /** N_explore: exploration episodes (0 for a training run's checkpoint list). */
  explore_episodes: z.number().int().nonnegative(),
  /** A checkpoint after every this many exploration episodes. */
  checkpoint_every: z.number().int().positive(),
  /** Evaluation episodes per checkpoint. */
  eval_episodes: z.number().int().nonnegative(),
  /** The step cap (a game whose config sets a shorter cap keeps its own). */
  max_steps: z.number().int().positive(),
  /** The context window the History ICL budget and the summary prompt are fitted to, in tokens. */
  context_tokens: z.number().int().positive(),
  /** The reply reserve, sent as max_tokens on every call. */
  max_new_tokens: z.number().int().positive(),
  /** The tokenizer the budget counts with (`o200k` | `cl100k`). */
  tokenizer: z.string().min(1),
  /** `hidden` (main setting) or `visible` (rewards shown in the prompt). */
  reward_visibility: z.enum(["hidden", "visible"]),
  /**
   * How replies are read (src/agent/parseResponse.ts): `last-answer` (the last Answer label, a Score
   * only after it) or `strict-contract` (the literal two-line rule, `--strict-contract`). Absent in
   * runs written before it was recorded, which were read by the literal rule.
   */
  parse_rule: z.enum(["last-answer", "strict-contract"]).optional(),
  /** The run seed the episode seeds derive from. */
  run_seed: z.number().int().nonnegative(),
  /** Verified runs only (verified.md): the exploration schedule and the roles' model. */
  verified: z
    .object({
      /** Episodes per broad batch (`--broad-batch`): they are played concurrently from one memory. */
      broad_batch: z.number().int().positive(),
      /** The model of the curriculum and verifier roles (`--verifier-model`); null: the run's model. */
      verifier_model: z.string().min(1).nullable(),
    })
    .optional(),
  /**
   * `--views`: the evaluation views played at every checkpoint besides `eval` (views.md). Absent in a
   * run without `--views` (the protocol exactly as the paper's) and in runs written before views existed.
   */
  views: z
    .object({
      /** The views on, `eval` first (always on), then `id` and/or `replay`. */
      names: z.array(z.enum(VIEWS)).min(1),
      /** `--view-episodes`: episodes of the `id` view per checkpoint (its seed list's length). */
      view_episodes: z.number().int().nonnegative(),
      /** `--replay-episodes`: K, the first K exploration seeds the `replay` view re-plays. */
      replay_episodes: z.number().int().nonnegative(),
    })
    .optional(),
  /**
   * Where the Answer/Score lines were read (`--answer-from`): `reasoning` or `both`; absent for the
   * default `content` (so runs written before the flag still resume).
   */
  answer_from: z.enum(["content", "reasoning", "both"]).optional(),
  /**
   * How History's truncation moved (`--history-cut`, pathways/history.ts): `anchored` (the cut stays
   * put while it fits, and leaves a reserve when it moves, so prompts stay a cacheable prefix) or
   * `per-step` (refitted at every step). Absent in runs written before the rule: `per-step`.
   */
  history_cut: z.enum(["anchored", "per-step"]).optional(),
  /**
   * `keep` with `--keep-think`: earlier turns' `<think>` blocks replayed in later prompts. Absent: dropped
   * (runs written before the rule replayed them; they resume under the new rule, see docs/endpoints.md).
   */
  think_replay: z.enum(["keep"]).optional(),
  /**
   * Which score the experience carried for each exploration step (`--judge`, docs/judging.md):
   * `verifier`, `shuffled`, `none` or `model:<spec>`. Absent: `self` (the acting model's own
   * self-scores, the paper's protocol and every run written before the axis existed).
   */
  judge: z.string().optional(),
  /** Hybrid runs (`--hybrid-k`, docs/memory.md): earlier exploration steps retrieved per step. Absent: the default, 4. */
  hybrid_k: z.number().int().nonnegative().optional(),
  /** Hybrid runs (`--hybrid-summary-share`): the share of the experience budget reserved for the summary. Absent: the default, 0.25. */
  hybrid_summary_share: z.number().min(0).max(1).optional(),
});
export type SettingsRecord = z.infer<typeof SettingsRecord>;

/** SettingsRecord plus the two game configs. */
export const ProtocolRecord = SettingsRecord.extend({
  /** The two game configs exactly as played (each game's schema in src/games/<game>/, step cap applied). */
  game_configs: z.object({
    explore: z.record(z.string(), z.unknown()),
    eval: z.record(z.string(), z.unknown()),
  }),
});
export type ProtocolRecord = z.infer<typeof ProtocolRecord>;

/** What a model name resolved to: the spec behind a models-file alias, and the entry's sampling. */
export const ResolvedModelRecord = z
  .object({
    /** The real spec, e.g. `openai:gpt-4o-mini` behind the alias `mini`. */
    spec: z.string().min(1),
    /** The models-file entry's sampling (temperature, extra_body ...); {} when none. */
    sampling: z.record(z.string(), z.unknown()),
  });

/** One model of a training run's checkpoint list, as evaluated by the last invocation. */
export const CheckpointModelRecord = z
  .object({
    /** The epoch. */
    checkpoint: z.number().int().nonnegative(),
    /** The model name as given on --checkpoints. */
    model: z.string().min(1),
    /** Its endpoint host, or `builtin`. */
    endpoint_host: z.string().optional(),
    /** What the name resolved to, when known. */
    resolved: ResolvedModelRecord.nullable().optional(),
  });

/** Settings of the invocation that do not decide the episodes (they may change between invocations). */
export const InvocationRecord = z
  .object({
    /** --concurrency: calls in flight per endpoint. */
    concurrency: z.number().int().positive().optional(),
    /** --max-retries. */
    max_retries: z.number().int().nonnegative().optional(),
    /** --timeout-ms, per attempt. */
    timeout_ms: z.number().positive().optional(),
    /** Whether the response cache was on. */
    cache: z.boolean().optional(),
    /** `--shard i/n` as given (for `--shard auto`, the shard the scheduler's environment gave), or null. */
    shard: z.string().nullable().optional(),
    /** The --models-file path as given, or null. */
    models_file: z.string().nullable().optional(),
    /** The NAME of the API key's environment variable (never its value). */
    api_key_env: z.string().optional(),
    /** Training runs: the checkpoint list this invocation evaluated. */
    checkpoint_models: z.array(CheckpointModelRecord).optional(),
    /** BuildSFT's exploration runs: true (no checkpoints are evaluated). */
    exploration_only: z.boolean().optional(),
    /** --answer-from: where the Answer/Score lines were read (`content`, `reasoning`, `both`). */
    answer_from: z.enum(["content", "reasoning", "both"]).optional(),
    /** --max-bad-replies: the share (0..1) of unusable step replies that stops a run as `degenerate`. */
    max_bad_replies: z.number().min(0).max(1).optional(),
    /** --max-tokens-param, when given: how the reply cap was sent where the models file did not say. */
    max_tokens_param: z.enum(["auto", "max_tokens", "max_completion_tokens"]).optional(),
    /** --drop-params, when given: sampling parameters never sent. */
    drop_params: z.array(z.string()).optional(),
    /**
     * `s3gym run` only: the command that resumes the run, as the last invocation ran it: the folder it
     * ran in (`cwd`) and its arguments (`argv`, without `s3gym run`), each passed through the secret
     * redaction. `s3gym status` and Ctrl-C print it as `cd <cwd> && s3gym run <argv>`.
     */
    command: z.object({ cwd: z.string(), argv: z.array(z.string()) }).optional(),
    /** What each endpoint's preflight found: its context length (`max_model_len`) and the server's tokens per local token (`/tokenize`), null where the server did not tell. */
    preflight: z
      .array(z.object({ model: z.string(), host: z.string(), max_model_len: z.number().int().positive().nullable(), token_ratio: z.number().positive().nullable() }))
      .optional(),
    /**
     * `s3gym run STUDY.yaml`: the resolved study this invocation played. `sha256` is the hash of the
     * canonical JSON of the resolved study (study file path and bytes' hash, profile, every flag
     * value after overrides, models, seeds, folders); `file` is where that resolved study is kept,
     * relative to the data folder (`studies/<sha256>.json`; `study.json` beside it is the latest).
     * Absent for runs started by flags or a job file.
     */
    study: z.object({ sha256: z.string().regex(/^[0-9a-f]{64}$/), file: z.string() }).optional(),
  });

/** The run's resolved configuration (`config`). Optional parts are absent in hand-written or converted logs. */
export const RunConfigRecord = z
  .object({
    /** The protocol numbers and game configs. */
    protocol: ProtocolRecord.optional(),
    /** What the run's model name resolved to (absent for a training run: see invocation.checkpoint_models). */
    model: ResolvedModelRecord.nullable().optional(),
    /** The checkpoints the run evaluates (epochs for a training run). */
    checkpoints: z.array(z.number().int().nonnegative()).optional(),
    /** Sampling parameters every call of the run sends. */
    sampling: z.object({ /** = protocol.max_new_tokens. */ max_tokens: z.number().int().positive() }).optional(),
    /** The invocation's settings. */
    invocation: InvocationRecord.optional(),
  });
export type RunConfigRecord = z.infer<typeof RunConfigRecord>;

/**
 * A run's quality (endpoints.md, "Run quality"), computed from its logs when it ends: what decides
 * whether its numbers may enter a paper table (logs/qualityThresholds.ts holds the thresholds).
 */
export const RunQualityRecord = z.object({
  /** `complete` | `degenerate` | `failed` | `partial` (stopped by a spend cap, resumable) | `error`. */
  status: z.string(),
  /** True when any threshold of logs/qualityThresholds.ts was passed or the status is not `complete`: left out of the paper tables by default. */
  flagged: z.boolean(),
  /** Why it is flagged, one short phrase per cause; empty when clean. */
  flags: z.array(z.string()),
  /** Step replies logged (steps.jsonl). */
  step_replies: z.number().int().nonnegative(),
  /** Share of step replies with no parsable Answer line or no Score line (0..1). */
  bad_reply_share: z.number().min(0).max(1),
  /** Share of step replies cut at the token cap (finish_reason `length`). */
  cut_at_cap_share: z.number().min(0).max(1),
  /** Share of steps whose action the game refused (unparsable replies included). */
  invalid_action_share: z.number().min(0).max(1),
  /** Share of step replies whose answer text was empty. */
  empty_answer_share: z.number().min(0).max(1),
  /** Calls whose prompt the server silently cut (calls.jsonl `server_truncated`). */
  server_truncated_calls: z.number().int().nonnegative(),
  /** Steps that could not fit the context and ended their episode (`context_overflow`). */
  over_context_steps: z.number().int().nonnegative(),
  /** Steps sent with earlier turns of their episode left out to fit the context (`turns_dropped`). */
  turns_dropped_steps: z.number().int().nonnegative(),
  /** Retried attempts by failure kind (`http_429`, `http_5xx`, `bad_response`, `timeout` ...). */
  retries_by_kind: z.record(z.string(), z.number().int().nonnegative()),
  /** The distinct `system_fingerprint`s that answered, in first-seen order (more than one: the served model changed). */
  system_fingerprints: z.array(z.string()),
  /** The distinct model ids replies named other than the one asked for (calls.jsonl `served_model`), first-seen order; absent when none did. */
  served_models: z.array(z.string()).optional(),
});
export type RunQualityRecord = z.infer<typeof RunQualityRecord>;

/** Calls, tokens and dollars of every invocation so far, summed from calls.jsonl when the run ends. */
export type UsageRecord = z.infer<typeof UsageRecord>;
export const UsageRecord = z
  .object({
    /** Model calls made (failed ones included). */
    calls: z.number().int().nonnegative(),
    /** Calls that ended in an error after their retries. */
    failed_calls: z.number().int().nonnegative(),
    /** Calls replayed from the response cache. */
    cached_calls: z.number().int().nonnegative(),
    /** Prompt tokens. */
    tokens_in: z.number().nonnegative(),
    /** Completion tokens. */
    tokens_out: z.number().nonnegative(),
    /** Prompt tokens served from the provider's prefix cache (where reported). */
    tokens_cached: z.number().nonnegative(),
    /** Dollars from the price table, summed over the calls that had a price; null when none had one. */
    cost_usd: z.number().nonnegative().nullable(),
    /** Successful calls by who counted their tokens: `server` (the endpoint's usage) or a local tokenizer's name (estimates). */
    tokens_counted_by: z.record(z.string(), z.number().int().nonnegative()).optional(),
    /** Transport retries summed over the calls. */
    retries: z.number().int().nonnegative().optional(),
    /** Dollars of the calls actually made (cache replays cost nothing); null when none had a price. */
    spent_usd: z.number().nonnegative().nullable().optional(),
    /** Prompt tokens of the calls actually made (cache replays excluded): what `--max-input-tokens` counts. */
    spent_tokens_in: z.number().nonnegative().optional(),
  });

/**
 * What a reviewer needs to check where a run's (or a report's) numbers came from, in one object
 * (`provenance` of a manifest and of report.json). Never a key's value, a URL's credentials, path or
 * query. Manifests written before it existed have none: they still load, and report.json lists
 * their runs with `provenance: null`.
 */
export const ProvenanceRecord = z
  .object({
    /** The kit's version (its package.json `version`). */
    kit_version: z.string(),
    /** The kit's git commit (40 hex digits) when it ran from a checkout; null when installed from a tarball or the commit could not be read. */
    kit_commit: z.string().nullable(),
    /** Whether that checkout had uncommitted changes (tracked or untracked, not ignored); null when not a checkout or git could not tell. */
    kit_dirty: z.boolean().nullable(),
    /** The Node.js version that ran it (`process.version`, e.g. `v20.20.2`). */
    node_version: z.string(),
    /**
     * Runs only: the NAME of the environment variable whose key the calls sent (the models-file
     * entry's `api_key_env`, else `--api-key-env`, else OPENAI_API_KEY); null for a built-in model
     * (no key) or a model built by hand.
     */
    api_key_env: z.string().nullable().optional(),
    /** Runs only: the endpoint host(s) the calls went to (a pool's hosts as a comma list), or `builtin`. */
    endpoint: z.string().optional(),
    /**
     * Runs only: the calls in flight allowed per endpoint and key, as actually used (the models-file
     * entry's `concurrency`, else `--concurrency`); null for a built-in model (not limited).
     */
    concurrency: z.number().int().positive().nullable().optional(),
    /**
     * Runs only: the distinct `system_fingerprint`s the endpoint's replies carried, in first-seen
     * order (calls.jsonl), as of the last manifest write; empty when the server sent none (or no
     * call has been summarised yet). More than one: the served build changed during the run.
     */
    served_fingerprints: z.array(z.string()).optional(),
    /**
     * Runs only: the model ids the replies named where they differ from the id asked for (calls.jsonl
     * `served_model`), in first-seen order; empty when every reply named the id asked for (or none).
     */
    served_models: z.array(z.string()).optional(),
  })
  .passthrough();
export type ProvenanceRecord = z.infer<typeof ProvenanceRecord>;

export const RunManifest = z
  .object({
    /** The data contract version (SCHEMA_VERSION); absent in data written before versions existed (version 0). */
    schema_version: z.number().int().nonnegative().optional(),
    /** Deterministic from (game, pathway, model, run seed); the directory's name. */
    run_id: z.string().min(1),
    /** The model name as given (spec or models-file alias); a training run's label. */
    model: z.string().min(1),
    /** The game. */
    game: z.string().min(1),
    /** The pathway (see the records' identity). */
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
    /** The `id` view's seeds (runs with `--views ...,id`), the same at every checkpoint; absent otherwise. The replay view's are the first K explore_seeds. */
    id_seeds: z.array(z.number().int().nonnegative()).optional(),
    /** `hidden` (the main setting) or `visible` (ablation: rewards shown in the prompt). */
    reward_visibility: z.enum(["hidden", "visible"]),
    /** The full resolved configuration of the run. */
    config: RunConfigRecord,
    /** ISO 8601: when the first invocation started the run. */
    started_at: z.string(),
    /** ISO 8601 when the run ended; null while running (or killed). */
    ended_at: z.string().nullable(),
    /** `running` | `complete` | `failed` (some checkpoint failed) | `degenerate` (stopped: too many bad replies) | `error`. */
    status: z.string(),
    /** Active wall time in seconds summed over invocations (a killed one counts up to its last manifest write). */
    wall_s: z.number().nonnegative().nullable().optional(),
    /** How many invocations have written this run. */
    invocations: z.number().int().positive().optional(),
    /** Calls, tokens and dollars, once the run ended. */
    usage: UsageRecord.optional(),
    /** Optional, once ended: this invocation's step replies by kind (`replies`, `bad`, `empty`, `noAnswer`, `noScore`, `withReasoning`, `cutAtLength`). */
    replies: z.record(z.string(), z.number()).optional(),
    /** Optional: why the run stopped as `degenerate` (what share of replies was empty or unparsable, whether reasoning was present). */
    degenerate_reason: z.string().optional(),
    /** Optional, once ended (or stopped): the run's quality over all its invocations (RunQualityRecord; endpoints.md "Run quality"). */
    quality: RunQualityRecord.optional(),
    /** The kit, Node and endpoint this run was played with (ProvenanceRecord); absent in manifests written before it was recorded. */
    provenance: ProvenanceRecord.optional(),
    /**
     * Optional, a rejudged run (`s3gym rejudge`, docs/judging.md): the recorded run whose exploration
     * episodes this run's experience was rebuilt from (its run id and its run directory as given);
     * this run played only the evaluation episodes. Absent for a run that explored itself.
     */
    rejudged_from: z.object({ run_id: z.string().min(1), dir: z.string() }).optional(),
    /**
     * Optional, a memory probe (`s3gym probe`, docs/memory.md): `rejudged_from` is the intact
     * run whose exploration and evaluation seeds it shares; `kind` says which experience its
     * evaluation episodes read instead of the intact one: `empty` (none), `shuffled` (the same
     * model's run of another run seed) or `transplant` (another model's run), that run being `donor`.
     */
    probe: z.object({ kind: z.enum(["empty", "shuffled", "transplant"]), donor: z.object({ run_id: z.string().min(1), dir: z.string(), model: z.string(), run_seed: z.number().int() }).optional() }).optional(),
  })
  .passthrough();
export type RunManifest = z.infer<typeof RunManifest>;

/** The files of a run directory and the schema of each line. */
export const RUN_FILES = {
  steps: { file: "steps.jsonl", schema: StepRecord },
  episodes: { file: "episodes.jsonl", schema: EpisodeRecord },
  checkpoints: { file: "checkpoints.jsonl", schema: CheckpointRecord },
  memory: { file: "memory.jsonl", schema: MemoryRecord },
  curriculum: { file: "curriculum.jsonl", schema: CurriculumRecord },
  verdicts: { file: "verdicts.jsonl", schema: VerdictRecord },
  calls: { file: "calls.jsonl", schema: CallRecord },
} as const;
