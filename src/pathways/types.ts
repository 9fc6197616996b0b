/**
 * What a pathway is (architecture.md, "Pathway"): a registered definition that says how the
 * experience state Z of a run is created, consolidated after each exploration episode, frozen for a
 * checkpoint, and rebuilt from the logs alone. The runner (live path and resume) and the replay both
 * drive a pathway only through this interface; neither names a pathway.
 *
 * States are values: `consolidate` returns the next state and never mutates the one it was given, so
 * a snapshot taken for a checkpoint stays what it was while later exploration consolidates.
 */
import type { Option } from "../util/options.js";
import type { EarlierTurn } from "../agent/stepPrompt.js";
import type { Trajectory } from "../agent/trajectoryText.js";
import type { RunFileKind } from "../logs/runDir.js";
import type { EpisodeRecord, RUN_FILES, StepRecord } from "../logs/schema.js";
import type { TokenizerName } from "../models/tokens.js";
import type { Model } from "../models/types.js";
import type { z } from "zod";
import type { TokenCounter } from "../models/tokenCounter.js";
import type { HistoryCut } from "./history.js";

/** What the experience may depend on at one step. */
export interface StepView {
  rules: string;
  turns: EarlierTurn[];
  observation: string;
  rewardVisibility: "hidden" | "visible";
}

/** A frozen experience: the text for any step read with it, and the step-record fields that pin it. */
export interface ExperienceSnapshot {
  forStep(view: StepView): { text: string; fields: Record<string, unknown> };
}

/** No experience: the empty text and no pinning fields (`none`, and every step of a training run). */
export const NO_EXPERIENCE: ExperienceSnapshot = { forStep: () => ({ text: "", fields: {} }) };

/** The protocol numbers a pathway may use (the same for a live run and for a replay of its logs). */
export interface PathwaySettings {
  contextTokens: number;
  maxNewTokens: number;
  tokenizer: TokenizerName;
  /** History's truncation rule (history.ts); absent = `per-step`. */
  historyCut?: HistoryCut;
  /** The hybrid pathway's snippets per step (`--hybrid-k`); absent = its default (hybrid.ts). */
  hybridK?: number;
  /** The hybrid pathway's share of the budget reserved for the summary (`--hybrid-summary-share`); absent = its default. */
  hybridSummaryShare?: number;
}

/** A record of one of the run's files, as its writer takes it. */
export type RunRecordOf<K extends RunFileKind> = z.input<(typeof RUN_FILES)[K]["schema"]>;
/** A record of one of the run's files, as the reader gives it. */
export type RunRecord<K extends RunFileKind> = z.infer<(typeof RUN_FILES)[K]["schema"]>;

/** A pathway's own files' records, by file, each in file order (what resume keeps, what a replay reads). */
export type OwnRecords = { readonly [K in RunFileKind]?: readonly RunRecord<K>[] };

/** An exploration batch of a pathway that plans its own exploration (verified.md, "Budget and schedule"). */
export interface ExplorationBatch {
  /** 1-based, in order. */
  index: number;
  /** `broad`: episodes played concurrently from one memory; `deep`: one episode at a time. */
  phase: "broad" | "deep";
  /** The exploration episode numbers of the batch, ascending and contiguous. */
  episodes: number[];
}

/** What an exploration episode plays: one of the run's exploration seeds, and `explore` or a named explore variant. */
export interface PlannedEpisode {
  episode: number;
  seed: number;
  config: string;
}

/** What the run offers a pathway that plans its own exploration. */
export interface ExplorationHost {
  /** The run's exploration seeds, in order (shared by every pathway of the game). */
  seeds: readonly number[];
  /** `explore` first, then the game's named explore variants: rules text and how each differs from explore. */
  configs: readonly { name: string; rules: string; differs: string }[];
  /** The pathway's own settings (its `options` rows' values, `settings[<name>]`); undefined when the run carries none. */
  own: unknown;
  /** The model that answers the pathway's own roles (curriculum, verifier): `--verifier-model`, else the run's. */
  roleModel: Model;
  /** Its name as the user wrote it (recorded on every verdict). */
  roleModelName: string;
}

/** How a pathway that plans its own exploration drives the exploration loop (the runner's batched explorer). */
export interface PathwayExploration<S> {
  /** The batches of a run of `exploreEpisodes` episodes (cover 1..N once, in order). */
  batches(exploreEpisodes: number, own: unknown): ExplorationBatch[];
  /**
   * What each episode of the batch plays, decided from the state before the batch (may call the
   * model; a ModelCallError propagates: the run loop treats it as a failed exploration episode). On
   * resume a decision already in the pathway's files is taken from there.
   */
  plan(host: PathwayHost, state: S, batch: ExplorationBatch): Promise<{ state: S; episodes: PlannedEpisode[] }>;
}

/** What a live run offers the pathway: identity, numbers, the model, its own log files. */
export interface PathwayHost {
  runId: string;
  /** The model name as the user wrote it (the `model` field of every record). */
  modelName: string;
  gameName: string;
  pathway: string;
  settings: PathwaySettings;
  /** The rules text of the explore config (what a summary prompt quotes). */
  exploreRules: string;
  counter: TokenCounter;
  model: Model;
  /** Records of the pathway's own files already on disk when the run resumed (clean prefixes). */
  restored<K extends RunFileKind>(file: K): readonly RunRecord<K>[];
  /** Appends a record to one of the pathway's own files (declared in `files`) and makes it durable. */
  append<K extends RunFileKind>(file: K, record: RunRecordOf<K>): void;
  /** Tokens of a pathway's own model call, for the progress display. */
  onUsage(tokensIn: number, tokensOut: number): void;
  /** Present when the pathway plans its own exploration (its definition has `exploration`). */
  exploration?: ExplorationHost;
}

/** A run's records as the replay reads them (whole files of one run). */
export interface PathwayLogs {
  steps: readonly StepRecord[];
  episodes: readonly EpisodeRecord[];
  /** The records of one of the pathway's own files, in file order (empty when the file is absent). */
  records<K extends RunFileKind>(file: K): readonly RunRecord<K>[];
}

/** What a replay offers the pathway instead of a host: the run's numbers and a token counter. */
export interface ReplayContext {
  settings: PathwaySettings;
  counter: TokenCounter;
}

/** A pathway's option rows, erased to their values' common type (each module keeps its own typed table). */
export type PathwayOptionTable = Readonly<Record<string, Option<unknown>>>;

export interface PathwayDefinition<S> {
  /** The name on `--pathways`, in run ids and in every record's `pathway` field. */
  readonly name: string;
  /**
   * Whether its exploration steps make the self-judging step set (metrics.md): steps a model scored
   * while learning from experience. `none` is not judged.
   */
  readonly judged: boolean;
  /**
   * Whether the protocol loop plays it (explore, consolidate, checkpoints: runner/loop/runLoop.ts), so its
   * runs share the data directory's protocol (dataDirProtocol.ts) and `s3gym run` plays them in its
   * matrix. `training` is not: its runs are a checkpoint list's evaluations (runner/loop/evalList.ts) and
   * train-loop's exploration rounds (training/explore.ts).
   */
  readonly protocolLoop: boolean;
  /** Whether `reproduce` plays it for every model of its matrix (`verified` runs for one model only). */
  readonly inDefaultMatrix: boolean;
  /**
   * Optional: the pathway's own settings, one option row each (src/util/options.ts: flag, kind,
   * default, help; type them as `OptionTable<YourSettings>`). `s3gym run` offers the flags (accepted
   * with this pathway on `--pathways` only), its usage lists them, a job file holds them under the
   * pathway's name and a study file under a block of that name; the runs of this pathway get them as
   * `settings[<name>]`.
   */
  readonly options?: PathwayOptionTable;
  /**
   * Optional: the model spec that answers the pathway's own roles (verified: curriculum and verifier),
   * from its own settings; null or absent: the run's model. The runner makes one instance per name.
   */
  roleModel?(own: unknown): string | null;
  /**
   * The run files it writes besides steps, episodes, checkpoints and calls (`memory`: memory.jsonl):
   * the run opens their writers, resume cleans them (`keep`), a replay reads them (`PathwayLogs.records`).
   */
  readonly files: readonly RunFileKind[];
  /**
   * Resume (runner/resume/resume.ts): the records of its files to keep, given which exploration episodes are
   * done: a clean prefix, nothing decided on experience that is gone (it is decided again). Returns
   * the kept records themselves (the same objects, in file order); a file left out loses every line.
   * Required when `files` is not empty.
   */
  keep?(records: OwnRecords, explored: (x: number) => boolean): OwnRecords;
  /** Z_0 of a live run (written to the pathway's files when it is logged, unless restored). */
  create(host: PathwayHost): S;
  /** How many exploration episodes the state has consolidated (x of Z_x). */
  consolidated(state: S): number;
  /**
   * Z_x from Z_{x-1} and exploration episode x's trajectory. May call the model (a ModelCallError
   * propagates: the run loop treats it as a failed exploration episode); on resume, a state already
   * in the pathway's files is taken from there instead of being computed again.
   */
  consolidate(host: PathwayHost, state: S, x: number, trajectory: Trajectory): Promise<S>;
  /** The experience a state gives to the steps that read it (an exploration episode, a checkpoint). */
  snapshot(state: S, ctx: ReplayContext): ExperienceSnapshot;
  /** Z_k from the logs alone (replay: the exact context of any logged step). */
  rebuild(logs: PathwayLogs, k: number, ctx: ReplayContext): S;
  /**
   * Optional: the pathway chooses what its exploration episodes play and in which batches (verified:
   * curriculum, broad-then-deep). Absent: episode x plays exploration seed x on `explore`, one at a time.
   */
  readonly exploration?: PathwayExploration<S>;
}

/** The live experience of one run: a pathway definition bound to its host and current state. */
export interface ExperienceState {
  /** The highest exploration episode x whose consolidation is done (0: none). */
  consolidated(): number;
  /** The experience as it is now, frozen (later consolidations do not change it). */
  snapshot(): ExperienceSnapshot;
  /** Consolidates exploration episode x (must be consolidated() + 1). */
  consolidate(x: number, trajectory: Trajectory): Promise<void>;
  /** Present when the pathway plans its exploration: its batches, and the plan of one batch. */
  exploration?: {
    batches(exploreEpisodes: number): ExplorationBatch[];
    plan(batch: ExplorationBatch): Promise<PlannedEpisode[]>;
  };
}

/** Declares a pathway (keeps its state type checked inside, erased in the registry). */
export function definePathway<S>(d: PathwayDefinition<S>): PathwayDefinition<S> {
  return d;
}
