/**
 * One run as an Inspect eval log (the plain-JSON `.json` form of Inspect's `EvalLog`, log format
 * version 2; docs/interop.md has the field mapping). Pure: plain data in, plain objects out; the
 * writer (exportInspect.ts) streams them to disk, the header first and then one sample at a time.
 *
 * The mapping, in short: the run is the eval (task = `s3gym/<game>`, model = the model spec, the
 * pathway, judge, protocol numbers and seeds in task_args and metadata); each episode is a sample
 * (id = `<view>-<episode>-seed<seed>`, epoch = checkpoint + 1 for evaluation episodes, 1 for
 * exploration); each step is a model event (the messages exactly as sent, rebuilt from the logs, and
 * the reply) followed by an intermediate score event carrying the step's reward and self-score; the
 * sample has two final scores, `verifier` (the episode's score) and `self_judge` (its mean self-score
 * and the agreement of its self-scores with the rewards).
 *
 * Text from the logs (model names, replies, observations) only ever becomes JSON string values.
 */
import { createHash } from "node:crypto";
import type { Estimate } from "../../analysis/stats/bootstrap.js";
import { judgeSteps, type RewardRange } from "../../analysis/metrics/judging.js";
import { isSolved } from "../../games/successThreshold.js";
import type { EpisodeRecord, RunManifest, StepRecord } from "../../logs/schema.js";
import type { ChatMessage } from "../../models/types.js";
import type { UsageTotals } from "../../runner/monitor/usage.js";

/** The Inspect log format version written (EvalLog.version). */
export const INSPECT_LOG_VERSION = 2;
/** Message texts at least this long go to the sample's attachments once and are referenced (`attachment://<id>`), as Inspect does. */
const ATTACH_MIN = 256;

type Json = Record<string, unknown>;

/** A metric's estimate as Inspect's EvalMetric (null when the metric is missing: Inspect needs a number). */
function metricOf(name: string, e: Estimate | null | undefined, level: number): Json | null {
  if (!e || e.point === null || !Number.isFinite(e.point)) return null;
  return {
    name,
    value: e.point,
    params: {},
    metadata: { lo: e.lo, hi: e.hi, level, ...(e.n !== undefined ? { n: e.n } : {}), ...(e.indicative ? { indicative: true } : {}) },
  };
}

/** An EvalScore from named estimates; the missing ones are named in its metadata. */
export function evalScore(name: string, estimates: readonly [string, Estimate | null | undefined][], level: number, metadata: Json): Json {
  const metrics: Json = {};
  const missing: string[] = [];
  for (const [m, e] of estimates) {
    const metric = metricOf(m, e, level);
    if (metric === null) missing.push(m);
    else metrics[m] = metric;
  }
  return { name, scorer: name, params: {}, metrics, metadata: { ...metadata, ...(missing.length > 0 ? { missing } : {}) } };
}

/** What the header needs about the run, beyond its manifest. */
export interface RunHeaderInput {
  run_id: string;
  model: string;
  game: string;
  pathway: string;
  manifest: Partial<RunManifest> | null;
  /** The run's status and flags (analysis/tables/runQuality.ts runVerdict). */
  status: string;
  flags: string[];
  /** Episodes the log will hold, and those that ended `ok`. */
  episodes: number;
  completedEpisodes: number;
  /** results.scores (evalScore) and results.metadata. */
  scores: Json[];
  resultsMetadata: Json;
  /** calls.jsonl summed (null: the run has no calls.jsonl). */
  usage: UsageTotals | null;
  /** The kit version writing the export. */
  exporter: string;
}

/** Inspect's four statuses from the run's (docs/interop.md): complete -> success, partial/running -> cancelled/started, the rest -> error. */
export function inspectStatus(status: string): "success" | "cancelled" | "started" | "error" {
  if (status === "complete") return "success";
  if (status === "partial") return "cancelled";
  if (status === "running") return "started";
  return "error";
}

/** A short, stable id from text (Inspect's ids are opaque strings). */
export function shortId(text: string): string {
  return createHash("sha256").update(text).digest("base64url").slice(0, 22);
}

function int(x: number): number {
  return Math.round(x);
}

/** Everything of the log but its samples, in Inspect's field order. */
export function inspectHeader(h: RunHeaderInput): Json {
  const m = h.manifest ?? {};
  const protocol = m.config?.protocol;
  const spec = m.config?.model?.spec ?? h.model;
  const { game_configs: gameConfigs, ...settings } = (protocol ?? {}) as Json & { game_configs?: unknown };
  const judge = protocol?.verified
    ? { role: "verifier and curriculum", model: protocol.verified.verifier_model ?? spec }
    : h.pathway === "none"
      ? null
      : { role: "self-judge (the model's own self-scores)", model: spec };
  const commit = (m as { kit_commit?: unknown }).kit_commit;
  const seeds = { run_seed: m.run_seed ?? null, explore_seeds: m.explore_seeds ?? null, eval_seeds: m.eval_seeds ?? null, ...(m.id_seeds ? { id_seeds: m.id_seeds } : {}) };
  const status = inspectStatus(h.status);
  const degenerate = typeof m.degenerate_reason === "string" ? m.degenerate_reason : null;
  const usage = h.usage;
  const modelUsage: Json = {};
  if (usage !== null) {
    modelUsage[spec] = {
      input_tokens: int(usage.tokens_in),
      output_tokens: int(usage.tokens_out),
      total_tokens: int(usage.tokens_in + usage.tokens_out),
      input_tokens_cache_read: int(usage.tokens_cached),
      total_cost: usage.cost_usd,
    };
  }
  return {
    version: INSPECT_LOG_VERSION,
    status,
    eval: {
      eval_id: shortId(`eval:${h.run_id}`),
      run_id: h.run_id,
      created: m.started_at ?? "",
      task: `s3gym/${h.game}`,
      task_id: shortId(`task:${h.game}:${JSON.stringify(gameConfigs ?? null)}`),
      task_version: m.rules_version ?? 1,
      task_attribs: {},
      task_args: { game: h.game, pathway: h.pathway, game_configs: gameConfigs ?? null },
      task_args_passed: {},
      dataset: { name: h.game, location: `s3gym:${h.run_id}`, samples: h.episodes, shuffled: false },
      model: spec,
      model_generate_config: protocol ? { max_tokens: protocol.max_new_tokens } : {},
      model_base_url: null,
      model_args: { name_as_given: h.model, endpoint_host: m.endpoint_host ?? null, sampling: m.config?.model?.sampling ?? {} },
      config: {},
      ...(typeof commit === "string" && commit.length > 0 ? { revision: { type: "git", origin: "s3gym", commit } } : {}),
      packages: { s3gym: m.kit_version ?? "unknown" },
      metadata: {
        s3gym: {
          pathway: h.pathway,
          judge,
          protocol: protocol ? settings : null,
          seeds,
          reward_visibility: m.reward_visibility ?? null,
          kit_version: m.kit_version ?? null,
          kit_commit: typeof commit === "string" ? commit : null,
          schema_version: m.schema_version ?? 0,
          rules_version: m.rules_version ?? null,
          exported_by: h.exporter,
        },
      },
      scorers: [
        { name: "verifier", options: {}, metrics: [], metadata: { about: "the game's verifier: the episode's score (the hidden step rewards summed by the game)" } },
        { name: "self_judge", options: {}, metrics: [], metadata: { about: "the model's own self-scores: their episode mean and their sign agreement with the hidden rewards" } },
      ],
    },
    plan: {
      name: "s3gym protocol",
      steps: [
        {
          solver: `s3gym/${h.pathway}`,
          params: protocol
            ? {
                explore_episodes: protocol.explore_episodes,
                checkpoint_every: protocol.checkpoint_every,
                eval_episodes: protocol.eval_episodes,
                max_steps: protocol.max_steps,
                context_tokens: protocol.context_tokens,
              }
            : {},
          params_passed: {},
        },
      ],
      config: protocol ? { max_tokens: protocol.max_new_tokens } : {},
    },
    results: { total_samples: h.episodes, completed_samples: h.completedEpisodes, scores: h.scores, metadata: h.resultsMetadata },
    stats: {
      started_at: m.started_at ?? "",
      completed_at: m.ended_at ?? "",
      model_usage: modelUsage,
      role_usage: {},
      connection_limit_history: [],
    },
    ...(status === "error" ? { error: { message: degenerate ?? `the run's status is ${h.status}${h.flags.length > 0 ? `: ${h.flags.join("; ")}` : ""}`, traceback: "", traceback_ansi: "" } } : {}),
    invalidated: false,
    tags: h.flags.length > 0 ? ["flagged"] : [],
    metadata: {
      s3gym: {
        status: h.status,
        flagged: h.flags.length > 0,
        flags: h.flags,
        quality: m.quality ?? null,
        usage: usage === null ? null : usage,
        usage_note: usage === null ? "no calls.jsonl: tokens and cost unknown (left out, not zero)" : "summed from calls.jsonl: every model call of every invocation",
      },
    },
  };
}

const REF = "attachment://";

/**
 * A sample's attachments: long texts stored once, referenced as `attachment://<id>`. A text from
 * outside that itself starts with `attachment://` (a reply written to look like a reference) is
 * always stored as an attachment, so Inspect's reader resolves it to that very text and never to
 * another text of the sample.
 */
class Attachments {
  readonly map: Record<string, string> = {};
  private readonly made = new Set<string>();
  ref(text: string): string {
    if (text.length < ATTACH_MIN && !text.startsWith(REF)) return text;
    const id = createHash("sha256").update(text).digest("hex").slice(0, 32);
    this.map[id] = text;
    const r = `${REF}${id}`;
    this.made.add(r);
    return r;
  }
  /** `v` with every string that looks like a reference this sample did not make turned into a real one (walks objects and arrays). */
  guard<T>(v: T): T {
    if (typeof v === "string") return (v.startsWith(REF) && !this.made.has(v) ? this.ref(v) : v) as T;
    if (Array.isArray(v)) return v.map((x) => this.guard(x)) as T;
    if (v !== null && typeof v === "object") return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, this.guard(x)])) as T;
    return v;
  }
}

/** The kit's message as Inspect's ChatMessage (long content as an attachment). */
function chatMessage(m: ChatMessage, att: Attachments, source: "input" | "generate"): Json {
  return { role: m.role, content: att.ref(m.content), source };
}

/** The reply of a step as an assistant message: its reasoning (when logged) first, then the text as received. */
function replyMessage(s: StepRecord, model: string, att: Attachments): Json {
  const reasoning = typeof s.reasoning === "string" && s.reasoning.length > 0 ? s.reasoning : null;
  const content =
    reasoning === null
      ? att.ref(s.response)
      : [
          { type: "reasoning", reasoning: att.ref(reasoning), redacted: false },
          { type: "text", text: att.ref(s.response) },
        ];
  return { role: "assistant", content, source: "generate", model };
}

function stopReason(finish: string | null | undefined): string {
  if (finish === "stop") return "stop";
  if (finish === "length") return "max_tokens";
  if (finish === "content_filter") return "content_filter";
  return "unknown";
}

/** One step as the model call's usage. */
function stepUsage(s: StepRecord): Json {
  return {
    input_tokens: int(s.tokens_in),
    output_tokens: int(s.tokens_out),
    total_tokens: int(s.tokens_in + s.tokens_out),
    ...(typeof s.tokens_cached === "number" ? { input_tokens_cache_read: int(s.tokens_cached) } : {}),
  };
}

/** An ISO time `ms` after `iso` (or `iso` itself when it does not parse). */
function after(iso: string, ms: number): string {
  const t = Date.parse(iso);
  return Number.isFinite(t) ? new Date(t + ms).toISOString() : iso;
}

/** What the sample builder needs about one episode. */
export interface EpisodeInput {
  /** The episode's record (null: the episode never finished) and its steps in order. */
  record: EpisodeRecord | null;
  steps: readonly StepRecord[];
  /** Each step's messages as sent (rebuilt from the logs), or why they could not be rebuilt. */
  prompts: readonly { step: number; messages: ChatMessage[] }[] | string;
  /** The model spec the calls went to. */
  model: string;
  /** The game's success threshold (null: not a game of the kit) and reward range (for the self-judge's NMAE-free agreement). */
  successThreshold: number | null;
  rewardRange: RewardRange | null;
}

/** The sample id of an episode: its view (or `explore`), its number and its seed. */
export function sampleId(head: { phase: string; view?: string | undefined; episode: number; seed: number }): string {
  const view = head.phase === "explore" ? "explore" : (head.view ?? "eval");
  return `${view}-${head.episode}-seed${head.seed}`;
}

/** The epoch of an episode: checkpoint + 1 for evaluation episodes (the same seed at every checkpoint), 1 for exploration. */
export function sampleEpoch(head: { phase: string; checkpoint: number | null }): number {
  return head.phase === "eval" && head.checkpoint !== null ? head.checkpoint + 1 : 1;
}

/** Mean of the non-null self-scores (null when none). */
function meanSelfScore(steps: readonly StepRecord[]): number | null {
  const xs = steps.map((s) => s.self_score).filter((x): x is number => x !== null);
  return xs.length === 0 ? null : xs.reduce((a, b) => a + b, 0) / xs.length;
}

/** One episode as an Inspect EvalSample. */
export function inspectSample(e: EpisodeInput): Json {
  const head = e.record ?? e.steps[0];
  if (head === undefined) throw new Error("an episode with neither a record nor steps");
  const att = new Attachments();
  const started = e.record?.started_at ?? null;
  const ended = e.record?.ended_at ?? null;
  const view = head.phase === "explore" ? "explore" : (head.view ?? "eval");
  const rebuilt = typeof e.prompts !== "string";
  const promptOf = new Map(rebuilt ? (e.prompts as { step: number; messages: ChatMessage[] }[]).map((p) => [p.step, p.messages]) : []);
  // Without the rebuilt prompts, a step's input is its observation alone (lossy: docs/interop.md).
  const inputOf = (s: StepRecord): ChatMessage[] => promptOf.get(s.step) ?? [{ role: "user", content: s.observation }];

  const events: Json[] = [];
  let clock = 0;
  for (const s of e.steps) {
    const at = started === null ? "" : after(started, clock);
    const reply = replyMessage(s, e.model, att);
    events.push({
      event: "model",
      timestamp: at,
      working_start: clock / 1000,
      model: e.model,
      input: inputOf(s).map((m) => chatMessage(m, att, "input")),
      tools: [],
      tool_choice: "none",
      config: {},
      output: {
        model: e.model,
        choices: [{ message: reply, stop_reason: stopReason(s.finish_reason) }],
        completion: att.ref(s.response),
        usage: stepUsage(s),
        time: s.latency_ms / 1000,
      },
      cache: s.cached === true ? "read" : null,
      working_time: s.latency_ms / 1000,
      metadata: { step: s.step, ...(s.turns_dropped ? { turns_dropped: s.turns_dropped } : {}), ...(s.tokens_counted_by ? { tokens_counted_by: s.tokens_counted_by } : {}) },
    });
    clock += s.latency_ms;
    events.push({
      event: "score",
      timestamp: started === null ? "" : after(started, clock),
      working_start: clock / 1000,
      scorer: "step",
      score: {
        value: { reward: s.reward, self_score: s.self_score },
        answer: s.action,
        explanation: s.parse_error,
        metadata: { step: s.step, reward: s.reward, self_score: s.self_score, score_after: s.score_after, valid: s.valid, done: s.done, feedback: s.feedback },
        history: [],
      },
      target: null,
      intermediate: true,
    });
  }

  const judged = judgeSteps(
    e.steps.map((s) => ({ s: s.self_score, r: s.reward })),
    e.rewardRange,
  );
  const meanS = meanSelfScore(e.steps);
  const score = e.record?.score ?? null;
  const ok = e.record?.status === "ok";
  const solved = ok && score !== null && e.successThreshold !== null ? isSolved(score, e.successThreshold) : null;
  // A failed or unfinished episode's score means nothing (the metrics leave it out): no verifier
  // score, and the sample's error says why.
  const scores: Json = {
    ...(ok && score !== null ? { verifier: { value: score, answer: null, explanation: null, metadata: { solved, success_threshold: e.successThreshold }, history: [] } } : {}),
    self_judge: {
      value: { mean_self_score: meanS, agreement: judged.agree },
      answer: null,
      explanation: null,
      metadata: { scored_steps: judged.n_steps - judged.n_unscored, unscored_steps: judged.n_unscored, over: judged.over, under: judged.under },
      history: [],
    },
  };
  const endAt = ended ?? "";
  for (const name of Object.keys(scores)) {
    events.push({ event: "score", timestamp: endAt, working_start: clock / 1000, scorer: name, score: scores[name], target: null, intermediate: false });
  }

  const last = e.steps[e.steps.length - 1];
  const first = e.steps[0];
  const lastReply = last ? replyMessage(last, e.model, att) : null;
  const messages = last ? [...inputOf(last).map((m) => chatMessage(m, att, "input")), lastReply] : [];
  let tin = 0;
  let tout = 0;
  for (const s of e.steps) {
    tin += s.tokens_in;
    tout += s.tokens_out;
  }
  const sample: Json = {
    id: sampleId({ ...head, view: "view" in head ? head.view : undefined }),
    epoch: sampleEpoch(head),
    input: first ? inputOf(first).map((m) => chatMessage(m, att, "input")) : "",
    target: "",
    messages,
    output: {
      model: e.model,
      choices: lastReply ? [{ message: lastReply, stop_reason: stopReason(last?.finish_reason) }] : [],
      completion: last ? att.ref(last.response) : "",
      usage: last ? stepUsage(last) : null,
    },
    scores,
    metadata: {
      phase: head.phase,
      view,
      config: head.config,
      checkpoint: head.checkpoint,
      episode: head.episode,
      seed: head.seed,
      status: e.record?.status ?? "unfinished",
      score,
      steps: e.steps.map((s) => ({ step: s.step, self_score: s.self_score, reward: s.reward, action: s.action, valid: s.valid })),
      prompts: rebuilt ? "rebuilt from the logs, exactly as sent" : `not rebuilt (${e.prompts as string}): each step's input is its observation alone`,
      ...(e.record?.end_observation !== undefined ? { end_observation: e.record.end_observation } : {}),
    },
    store: {},
    events,
    model_usage: { [e.model]: { input_tokens: int(tin), output_tokens: int(tout), total_tokens: int(tin + tout) } },
    role_usage: {},
    started_at: started,
    completed_at: ended,
    total_time: started !== null && ended !== null && Number.isFinite(Date.parse(ended) - Date.parse(started)) ? (Date.parse(ended) - Date.parse(started)) / 1000 : null,
    working_time: clock / 1000,
    ...(ok ? {} : { error: { message: e.record ? `episode failed: ${e.record.error ?? "no reason recorded"}` : "the episode never finished (no episode record)", traceback: "", traceback_ansi: "" } }),
  };
  // Every other text of the sample (feedback, actions, observations in metadata ...) is guarded too.
  const guarded = att.guard(sample);
  return { ...guarded, attachments: att.map };
}
