/**
 * The `verified` pathway (verified.md): RSIAgent's exploration inside the S3Gym protocol.
 *
 *   curriculum  one call per exploration batch: which exploration seeds and explore variants to play
 *               (broad: episodes 1..N/2 in concurrent batches of --broad-batch; deep: one at a time)
 *   actor       the run's model playing under the response contract with the current memory text,
 *               exactly as the memory pathway (same prompt layout, same step logs)
 *   verifier    one call per exploration episode on its visible trajectory (never the reward or the
 *               score): an outcome and causal facts with supporting steps
 *   consolidate facts enter with their evidence; contradictions dispute, then drop (verifiedMemory.ts)
 *
 * Files: curriculum.jsonl (each decision), verdicts.jsonl (each verdict, raw reply and parse status),
 * memory.jsonl (every version, with its facts: ids, support, episodes, steps). Memory version x is in
 * effect after exploration episode x; checkpoint x reads it; after the last episode it is frozen.
 * A malformed reply never stops the run: a rejected curriculum falls back to the next untried seeds
 * (variant explore), a rejected verdict keeps the memory; both are logged with their reason.
 */
import { buildCurriculumMessages, parseCurriculum, type CurriculumChoice, type CurriculumOffer } from "../agent/curriculumPrompt.js";
import { renderTrajectory, type Trajectory } from "../agent/trajectoryText.js";
import { successThreshold } from "../games/successThreshold.js";
import { buildVerifierMessages, parseVerdict, type Outcome, type Verdict } from "../agent/verifierPrompt.js";
import type { MemoryRecord, VerifiedFactRecord } from "../logs/schema.js";
import { callSeed } from "../models/callSeed.js";
import type { CallIdentity, ChatMessage } from "../models/types.js";
import type { TokenCounter } from "../models/tokenCounter.js";
import { fitHistory, makeHistoryBlock } from "./history.js";
import { keptMemoryVersions } from "./memory.js";
import { definePathway, type ExplorationBatch, type OwnRecords, type PathwayHost, type PathwaySettings, type PlannedEpisode } from "./types.js";
import { UsageError } from "../util/errors.js";
import type { OptionTable } from "../util/options.js";
import { consolidateVerdict, EMPTY_VERIFIED_MEMORY, memoryTextUnderBudget, type VerifiedMemory } from "./verifiedMemory.js";

export interface VerifiedState {
  memory: VerifiedMemory;
  /** Every planned exploration episode so far (curriculum decisions), in episode order. */
  plans: readonly PlannedEpisode[];
  /** The verifier's outcome per consolidated episode (null: its reply was rejected). */
  outcomes: readonly { episode: number; outcome: Outcome | null }[];
}

const EMPTY_STATE: VerifiedState = { memory: EMPTY_VERIFIED_MEMORY, plans: [], outcomes: [] };

/** The default episodes per broad batch (`--broad-batch`). */
export const DEFAULT_BROAD_BATCH = 5;

/** The verified pathway's settings (`--broad-batch`, `--verifier-model`): its runs' `settings.verified`. */
export interface VerifiedSettings {
  /** Exploration episodes per broad batch. */
  broadBatch: number;
  /** The model of the curriculum and verifier roles; null: the run's model. */
  verifierModel: string | null;
}

/** The verified pathway's option rows: its flags on `s3gym run`, its job-file and study-file fields. */
export const VERIFIED_OPTIONS: OptionTable<VerifiedSettings> = {
  broadBatch: { name: "broad-batch", kind: { type: "int", range: { min: 1, max: 10_000 } }, default: DEFAULT_BROAD_BATCH, about: "exploration episodes per verified batch" },
  verifierModel: { name: "verifier-model", kind: { type: "text", shown: "M", parse: verifierModelFlag }, default: null, about: "model of the curriculum and verifier roles (default the run's model)" },
};

function verifierModelFlag(value: string): string {
  if (value.trim() === "") throw new UsageError("--verifier-model is empty: name a model spec (e.g. builtin:learner), or drop it to use the run's model");
  return value.trim();
}

/** A verified run's own settings, or the rows' defaults when the run carries none (a library caller's). */
function verifiedSettingsOf(own: unknown): VerifiedSettings {
  return (own as VerifiedSettings | undefined) ?? { broadBatch: DEFAULT_BROAD_BATCH, verifierModel: null };
}

/** How a verified run's settings are recorded in its manifest (`config.protocol.verified`) and read back. */
export const VERIFIED_RECORD = {
  write: (v: VerifiedSettings | undefined) => (v ? { broad_batch: v.broadBatch, verifier_model: v.verifierModel } : undefined),
  read: (r: unknown): VerifiedSettings | undefined => {
    const v = r as { broad_batch: number; verifier_model: string | null } | undefined;
    return v ? { broadBatch: v.broad_batch, verifierModel: v.verifier_model } : undefined;
  },
};

/**
 * Broad then deep: the first half of the exploration episodes (1..15 of 30) in batches of
 * `broadBatch` (the last one may be shorter), then one episode per batch.
 */
export function verifiedBatches(exploreEpisodes: number, broadBatch: number): ExplorationBatch[] {
  if (!Number.isInteger(broadBatch) || broadBatch < 1) throw new Error(`broad-batch must be an integer >= 1, got ${broadBatch}`);
  const broad = Math.floor(exploreEpisodes / 2);
  const out: ExplorationBatch[] = [];
  for (let first = 1; first <= broad; first += broadBatch) {
    const last = Math.min(broad, first + broadBatch - 1);
    out.push({ index: out.length + 1, phase: "broad", episodes: range(first, last) });
  }
  for (let x = broad + 1; x <= exploreEpisodes; x++) out.push({ index: out.length + 1, phase: "deep", episodes: [x] });
  return out;
}

function range(a: number, b: number): number[] {
  return Array.from({ length: b - a + 1 }, (_, i) => a + i);
}

/** The token budget of the memory text: a quarter of the context left after the reply reserve. */
export function memoryBudget(settings: PathwaySettings): number {
  return Math.max(0, Math.floor((settings.contextTokens - settings.maxNewTokens) / 4));
}

/** The success criterion the verifier prompt states: the game's success threshold (games/successThreshold.ts). */
export function successCriterion(game: string): string {
  const t = successThreshold(game);
  return t === null ? "the episode reached the game's objective." : `the episode's final score under the rules reaches at least ${t}.`;
}

/**
 * The fallback choice (a rejected or failed-to-parse curriculum reply): for each episode the next
 * seed of the exploration list not yet played nor planned, variant `explore`; when every seed was
 * played, the list again from its start.
 */
export function fallbackChoices(seeds: readonly number[], plans: readonly PlannedEpisode[], episodes: readonly number[]): CurriculumChoice[] {
  const used = new Set(plans.map((p) => p.seed));
  const untried = seeds.filter((s) => !used.has(s));
  return episodes.map((episode, i) => ({ episode, seed: untried[i] ?? seeds[i % Math.max(1, seeds.length)] ?? 0, variant: "explore" }));
}

/** The curriculum's view of the run: every seed with what was played on it and what the verifier said. */
export function curriculumOffer(host: PathwayHost, state: VerifiedState, batch: ExplorationBatch, memoryText: string): CurriculumOffer {
  const ex = host.exploration!;
  const outcome = new Map(state.outcomes.map((o) => [o.episode, o.outcome]));
  return {
    phase: batch.phase,
    episodes: batch.episodes,
    seeds: ex.seeds.map((seed) => ({
      seed,
      played: state.plans.filter((p) => p.seed === seed).map((p) => ({ episode: p.episode, variant: p.config, outcome: outcome.get(p.episode) ?? null })),
    })),
    variants: ex.configs.map((c) => ({ name: c.name, differs: c.differs })),
    memory: memoryText,
    rules: host.exploreRules,
  };
}

function identityOf(host: PathwayHost) {
  return { run_id: host.runId, model: host.modelName, game: host.gameName, pathway: host.pathway };
}

function memoryRecord(host: PathwayHost, m: VerifiedMemory, extra: Partial<MemoryRecord> & { parsed: boolean; error: string | null; response: string | null }, dropped: string[]) {
  const text = memoryTextUnderBudget(m, memoryBudget(host.settings), (t) => host.counter.count(t));
  return { ...identityOf(host), after_episode: m.afterEpisode, text, retain: "", avoid: "", next: "", ...extra, facts: m.facts.map((f) => ({ ...f })), dropped_fact_ids: dropped };
}

/** A memory version from its memory.jsonl record. */
export function verifiedMemoryFromRecord(r: Pick<MemoryRecord, "after_episode" | "facts">): VerifiedMemory {
  const facts: VerifiedFactRecord[] = (r.facts ?? []).map((f) => ({ ...f }));
  const nextId = facts.reduce((n, f) => Math.max(n, Number(f.id.slice(1)) + 1), 1);
  return { afterEpisode: r.after_episode, facts, nextId };
}

/** The verifier call's messages, the trajectory cut from its tail to fit the context budget. */
export function verifierMessages(rules: string, game: string, trajectory: Trajectory, settings: PathwaySettings, counter: TokenCounter): { messages: ChatMessage[]; keptSteps: number } {
  const base = { rules, steps: trajectory.steps.length, successCriterion: successCriterion(game), ...(trajectory.scoresShown === false ? { scoresWithheld: true } : {}) };
  const bare = buildVerifierMessages({ ...base, trajectory: "" });
  const budget = settings.contextTokens - settings.maxNewTokens - counter.messages(bare);
  const [keep] = fitHistory([makeHistoryBlock(trajectory, counter)], budget, counter);
  const keptSteps = Math.min(keep ?? 0, trajectory.steps.length);
  const text = renderTrajectory(trajectory, keptSteps) || "(the episode does not fit the context budget)";
  return { messages: buildVerifierMessages({ ...base, trajectory: text }), keptSteps };
}

async function roleCall(host: PathwayHost, identity: CallIdentity, messages: ChatMessage[]) {
  const model = host.exploration?.roleModel ?? host.model;
  const result = await model.complete({ messages, sampling: { max_tokens: host.settings.maxNewTokens, seed: callSeed(identity) }, identity });
  host.onUsage(result.usage.tokensIn, result.usage.tokensOut);
  return result;
}

/**
 * Resume's rule for the verified files: memory.jsonl as the memory pathway keeps it (versions 0..k);
 * one verdict per done exploration episode x <= k+1 (verdict k+1 may precede its memory version when
 * a kill fell between the two); one curriculum decision per batch whose memory (version first - 1)
 * is kept. A decision or verdict made on lost experience is made again.
 */
function keepVerifiedRecords(records: OwnRecords, explored: (x: number) => boolean): OwnRecords {
  const memory = keptMemoryVersions(records.memory ?? [], explored);
  const lastMemory = memory.length - 1;
  const judged = new Set<number>();
  const verdicts = (records.verdicts ?? []).filter((r) => {
    if (judged.has(r.episode) || r.episode > lastMemory + 1 || !explored(r.episode)) return false;
    judged.add(r.episode);
    return true;
  });
  const decided = new Set<number>();
  const curriculum = (records.curriculum ?? []).filter((r) => {
    if (decided.has(r.batch) || r.memory_version > lastMemory) return false;
    decided.add(r.batch);
    return true;
  });
  return { memory, curriculum, verdicts };
}

export const verifiedPathway = definePathway<VerifiedState>({
  name: "verified",
  // The paper's self-judging tables pool History and Memory; the verified pathway's own judging (its
  // verifier) has its own table (verifier reliability), so adding verified runs leaves those tables as they were.
  judged: false,
  protocolLoop: true,
  // reproduce runs it for one model only (its own job), not across the matrix.
  inDefaultMatrix: false,
  options: VERIFIED_OPTIONS,
  roleModel: (own) => verifiedSettingsOf(own).verifierModel,
  files: ["memory", "curriculum", "verdicts"],
  keep: keepVerifiedRecords,

  create(host) {
    const restored = host.restored("memory");
    if (restored.length > 0) return { ...EMPTY_STATE, memory: verifiedMemoryFromRecord(restored[0]!) };
    host.append("memory", memoryRecord(host, EMPTY_VERIFIED_MEMORY, { parsed: true, error: null, response: null }, []));
    return EMPTY_STATE;
  },

  consolidated: (s) => s.memory.afterEpisode,

  async consolidate(host, state, x, trajectory) {
    if (x !== state.memory.afterEpisode + 1) throw new Error(`verified: consolidating episode ${x} after version ${state.memory.afterEpisode}`);
    const plan = state.plans.find((p) => p.episode === x) ?? { episode: x, seed: host.exploration?.seeds[x - 1] ?? 0, config: "explore" };
    // Resume: a verdict and a memory version already logged are taken as they are (no second call).
    const loggedVerdict = host.restored("verdicts").find((v) => v.episode === x);
    const loggedMemory = host.restored("memory").find((m) => m.after_episode === x);
    let verdict: Verdict | null;
    if (loggedVerdict) {
      verdict = loggedVerdict.parsed && loggedVerdict.outcome !== null ? { outcome: loggedVerdict.outcome, facts: loggedVerdict.facts } : null;
    } else {
      const rules = host.exploration?.configs.find((c) => c.name === plan.config)?.rules ?? host.exploreRules;
      const { messages, keptSteps } = verifierMessages(rules, host.gameName, trajectory, host.settings, host.counter);
      const identity: CallIdentity = { runId: host.runId, purpose: "verifier", phase: "explore", checkpoint: null, episode: x, step: null, sample: 0 };
      const result = await roleCall(host, identity, messages);
      const parsed = parseVerdict(result.text, trajectory.steps.length);
      verdict = parsed.ok ? parsed.verdict : null;
      host.append("verdicts", {
        ...identityOf(host),
        episode: x,
        seed: plan.seed,
        config: plan.config,
        outcome: parsed.ok ? parsed.verdict.outcome : null,
        facts: parsed.ok ? parsed.verdict.facts : [],
        parsed: parsed.ok,
        error: parsed.ok ? null : parsed.error,
        response: result.text,
        verifier_model: host.exploration?.roleModelName ?? host.modelName,
        trajectory_steps_kept: keptSteps,
        tokens_in: result.usage.tokensIn,
        tokens_out: result.usage.tokensOut,
        latency_ms: result.latencyMs,
        cached: result.cached,
      });
    }
    const outcomes = [...state.outcomes, { episode: x, outcome: verdict?.outcome ?? null }];
    if (loggedMemory) return { ...state, memory: verifiedMemoryFromRecord(loggedMemory), outcomes };
    const { memory, dropped } = consolidateVerdict(state.memory, x, verdict);
    host.append("memory", memoryRecord(host, memory, { parsed: verdict !== null, error: verdict === null ? "verdict rejected or absent: memory kept" : null, response: null }, dropped));
    return { ...state, memory, outcomes };
  },

  snapshot(state, ctx) {
    const text = memoryTextUnderBudget(state.memory, memoryBudget(ctx.settings), (t) => ctx.counter.count(t));
    return { forStep: () => ({ text, fields: { memory_version: state.memory.afterEpisode } }) };
  },

  rebuild(logs, k) {
    const rec = logs.records("memory").find((m) => m.after_episode === k);
    if (!rec) throw new Error(`verified memory version ${k} is not in memory.jsonl`);
    const plans = logs.records("curriculum").flatMap((c) => c.choices.filter((ch) => ch.episode <= k).map((ch) => ({ episode: ch.episode, seed: ch.seed, config: ch.variant })));
    const outcomes = logs
      .records("verdicts")
      .filter((v) => v.episode <= k)
      .map((v) => ({ episode: v.episode, outcome: v.parsed ? v.outcome : null }));
    return { memory: verifiedMemoryFromRecord(rec), plans, outcomes };
  },

  exploration: {
    batches: (n, own) => verifiedBatches(n, verifiedSettingsOf(own).broadBatch),
    async plan(host, state, batch) {
      const ex = host.exploration;
      if (!ex) throw new Error("verified: the run offers no exploration host (seeds, configs, role model)");
      const logged = host.restored("curriculum").find((c) => c.batch === batch.index);
      let choices: CurriculumChoice[];
      if (logged) {
        choices = logged.choices;
      } else {
        const memoryText = memoryTextUnderBudget(state.memory, memoryBudget(host.settings), (t) => host.counter.count(t));
        const offer = curriculumOffer(host, state, batch, memoryText);
        const identity: CallIdentity = { runId: host.runId, purpose: "curriculum", phase: "explore", checkpoint: null, episode: batch.episodes[0]!, step: null, sample: 0 };
        const result = await roleCall(host, identity, buildCurriculumMessages(offer));
        const parsed = parseCurriculum(result.text, offer);
        choices = parsed.ok ? parsed.choices : fallbackChoices(ex.seeds, state.plans, batch.episodes);
        host.append("curriculum", {
          ...identityOf(host),
          batch: batch.index,
          phase: batch.phase,
          memory_version: state.memory.afterEpisode,
          choices,
          reason: parsed.ok ? parsed.reason : "",
          parsed: parsed.ok,
          error: parsed.ok ? null : parsed.error,
          response: result.text,
          tokens_in: result.usage.tokensIn,
          tokens_out: result.usage.tokensOut,
          latency_ms: result.latencyMs,
          cached: result.cached,
        });
      }
      const episodes = choices.map((c) => ({ episode: c.episode, seed: c.seed, config: c.variant }));
      return { state: { ...state, plans: [...state.plans.filter((p) => !batch.episodes.includes(p.episode)), ...episodes] }, episodes };
    },
  },
});
