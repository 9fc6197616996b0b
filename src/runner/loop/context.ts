/**
 * What one run (model x game x pathway x run seed) carries down to its episodes: the resolved
 * protocol settings, the game and its two configs, the model, the log writers and the progress
 * events. Built per run by `contextFor` in runLoop.ts (for `executeRun`); nothing here is a module-level singleton.
 */
import type { Game } from "../../games/types.js";
import type { Model } from "../../models/types.js";
import type { CallRecord, CheckpointRecord, EpisodeRecord, RunManifest, StepRecord } from "../../logs/schema.js";
import type { ExperienceState } from "../../pathways/types.js";
import type { ReplyKind } from "../../agent/reply.js";
import type { ReplyMonitor, ReplyStats } from "../monitor/replyMonitor.js";
import type { TokenCounter } from "../../models/tokenCounter.js";
import type { StepQualityTally } from "../monitor/runQuality.js";
import type { RunLogs } from "../../logs/runLogs.js";
import type { SpendCap } from "../monitor/spendCap.js";
import type { EvalMemo } from "./evalMemo.js";
import { PROTOCOL_SETTINGS, type ProtocolSettings } from "../settings/protocolSettings.js";

export { type ExtraView, type ProtocolSettings, type ViewSettings } from "../settings/protocolSettings.js";

/**
 * The one set of defaults, from the rows: every PROTOCOL_SETTINGS row that carries its default
 * (`inDefaults`). The library's defaults, what the flags give an empty command line, and a job file's
 * missing fields are this.
 */
export const DEFAULT_SETTINGS: ProtocolSettings = Object.fromEntries(
  PROTOCOL_SETTINGS.filter((r) => r.inDefaults && r.default !== undefined).map((r) => [r.key, r.default]),
) as unknown as ProtocolSettings;

/** A game config as a run uses it: the name that keys the generator, the values, the rules text. */
export interface ResolvedConfig {
  /** `explore`, `eval`, or a named explore variant. */
  name: string;
  config: Record<string, unknown> & { maxSteps: number };
  rules: string;
}

/** Progress hooks (progress.ts implements them; tests may record them). All optional. */
export interface RunEvents {
  /** `exploreLeft`: exploration episodes still to play (the run's critical path, for the ETA); absent for a checkpoint list. */
  runStarted?(runId: string, info: { totalEpisodes: number; doneEpisodes: number; label: string; exploreLeft?: number }): void;
  step?(runId: string, tokensIn: number, tokensOut: number): void;
  /** One step reply classified (degenerate detection), with the run's reply statistics so far. */
  reply?(runId: string, kind: ReplyKind, stats: Readonly<ReplyStats>): void;
  /** One model call measured (calls.jsonl line): retries, cost, cached. */
  call?(runId: string, record: CallRecord): void;
  episodeDone?(runId: string, record: EpisodeRecord): void;
  checkpointDone?(runId: string, record: CheckpointRecord): void;
  runEnded?(runId: string, status: string): void;
  /** Something the run repaired and the user should hear about (a damaged log line quarantined). */
  warning?(runId: string, message: string): void;
}

export interface RunContext {
  runId: string;
  /** The model name as the user wrote it (spec or models-file alias): the `model` field of every record. */
  modelName: string;
  model: Model;
  game: Game;
  /** A registered pathway (src/pathways/registry.ts), or `training` for a checkpoint list. */
  pathway: string;
  settings: ProtocolSettings;
  configs: Record<"explore" | "eval", ResolvedConfig>;
  /** The game's named explore variants, step cap applied (played only when a pathway plans its exploration). */
  variants: Record<string, ResolvedConfig>;
  /** The model of a pathway's own roles (`--verifier-model`); absent: the run's model. */
  roleModel?: { name: string; model: Model };
  /** The external judge of `--judge model:<spec>` (runner/loop/judgeCalls.ts); absent for every other judge. */
  judgeModel?: { name: string; model: Model };
  /**
   * A rejudged run (`s3gym rejudge`, recordedExploration.ts): its exploration episodes are a recorded
   * run's, replayed (under this run's judge) instead of played; absent: the run explores itself.
   */
  recorded?: RecordedExploration;
  exploreSeeds: number[];
  evalSeeds: number[];
  /** The `id` view's seeds (runs with `--views ...,id`; runner/loop/views.ts), recorded in the manifest. */
  idSeeds?: number[];
  logs: RunLogs;
  counter: TokenCounter;
  events: RunEvents;
  /** Classifies step replies and trips when the run is degenerate (replyMonitor.ts). */
  replies: ReplyMonitor;
  /** Injectable clock for started_at / ended_at. */
  now: () => Date;
  /** The matrix's spend cap (`--max-usd`, `--max-input-tokens`), checked before each episode starts; absent: none. */
  cap?: SpendCap;
  /** The evaluation memo (evalMemo.ts) of a deterministic model's run; absent: every episode is played. */
  memo?: EvalMemo;
  /**
   * The quality tally of steps.jsonl (runQuality.ts): its lines when the run opened, then each step
   * appended through logStep; the run's end reads it instead of the file. Absent: the end reads the file.
   */
  stepTally?: StepQualityTally;
}

/** The game's config with the run's step cap applied (a game's shorter cap wins). */
export function resolveConfig(game: Game, name: "explore" | "eval", maxSteps: number): ResolvedConfig {
  return capped(game, name, game.configs[name] as Record<string, unknown> & { maxSteps: number }, maxSteps);
}

function capped(game: Game, name: string, base: Record<string, unknown> & { maxSteps: number }, maxSteps: number): ResolvedConfig {
  const config = { ...structuredClone(base), maxSteps: Math.min(base.maxSteps, maxSteps) };
  return { name, config, rules: game.rules(config, name) };
}

/** The game's named explore variants, each with the run's step cap applied. */
export function resolveVariants(game: Game, maxSteps: number): Record<string, ResolvedConfig> {
  const out: Record<string, ResolvedConfig> = {};
  for (const [name, c] of Object.entries(game.exploreVariants ?? {})) out[name] = capped(game, name, c as Record<string, unknown> & { maxSteps: number }, maxSteps);
  return out;
}

/** How a variant's numbers differ from explore's ("mines 14 (explore 10)"), for the curriculum prompt. */
export function variantDifference(explore: Record<string, unknown>, variant: Record<string, unknown>): string {
  const keys = [...new Set([...Object.keys(explore), ...Object.keys(variant)])].sort();
  const show = (v: unknown) => (v === undefined ? "unset" : JSON.stringify(v));
  const diff = keys.filter((k) => JSON.stringify(explore[k]) !== JSON.stringify(variant[k])).map((k) => `${k} ${show(variant[k])} (explore ${show(explore[k])})`);
  return diff.length > 0 ? diff.join(", ") : "the explore config";
}

/** One recorded exploration episode (a rejudge's source, recordedExploration.ts): its `ok` record and its steps in step order. */
export interface RecordedEpisode {
  record: EpisodeRecord;
  steps: StepRecord[];
}

/** Where a replayed episode goes: the run, the episode, the rules text of the config it played. */
export interface ReplayTarget {
  run: RunContext;
  episode: number;
  rules: string;
}

/**
 * What becomes of a recorded episode's steps (already carrying this run's identity, without the
 * source's judged and experience-pinning fields) before they are written into this run.
 */
export type StepTransform = (steps: StepRecord[], at: ReplayTarget) => Promise<StepRecord[]>;

/** A recorded run's exploration, replayed into this run instead of played (recordedExploration.ts). */
export interface RecordedExploration {
  /** The recorded run: its id and its directory as given. */
  source: { runId: string; dir: string };
  /** Its `ok` exploration episodes by number. */
  episodes: ReadonlyMap<number, RecordedEpisode>;
  transform: StepTransform;
  /**
   * A memory probe (runner/probe/memoryProbe.ts): the experience the run's checkpoints read instead
   * of the one its pathway consolidates from the replayed episodes, and what the manifest records of
   * it. Absent: the pathway's own experience (a rejudge).
   */
  probe?: {
    record: NonNullable<RunManifest["probe"]>;
    experience(run: RunContext): ExperienceState;
  };
}
