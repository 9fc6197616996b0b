/**
 * The protocol loop of one run (protocol.md, "One run") and the run matrix.
 *
 *   checkpoint(0)                        empty experience
 *   for x in 1..N:
 *     explore episode x                  explore config, seed explore[x-1], experience Z_{x-1}
 *     consolidate                        history: append the block; memory: summary call
 *     if x % every == 0: checkpoint(x)   launched, not awaited: it reads a frozen snapshot of Z_x
 *   await every checkpoint
 *
 * Exploration episodes are sequential (each needs the previous consolidation); a checkpoint's
 * evaluation episodes run concurrently with each other and with later exploration, throttled only by
 * the model layer's per-endpoint limiter. When exploration episode x (or its consolidation) fails on
 * infrastructure, exploration stops and every checkpoint >= x is recorded `failed` with that reason;
 * earlier checkpoints are unaffected.
 */
import { existsSync, mkdirSync, readdirSync, unlinkSync } from "node:fs";
import { LogFormatError, readJsonFile } from "../../logs/reader.js";
import { refuseNewerSchemaFile } from "../../logs/schemaVersion.js";
import { ConfigError } from "../../util/errors.js";
import { join } from "node:path";
import { isAtomicTemp } from "../../util/atomicWrite.js";
import { settleAll } from "../../util/settleAll.js";
import type { Game } from "../../games/types.js";
import { RunManifest, type CallRecord, type CheckpointRecord, type EpisodeRecord } from "../../logs/schema.js";
import { toCallRecord, type CallEvent, type OnCall } from "../../models/callLog.js";
import { redactSecrets } from "../../models/secrets.js";
import type { Model } from "../../models/types.js";
import { TokenCounter } from "../../models/tokenCounter.js";
import { resolveConfig, resolveVariants, type ExtraView, type ProtocolSettings, type RunContext, type RunEvents } from "./context.js";
import { runEpisode } from "./episodeRunner.js";
import { EvalMemo } from "./evalMemo.js";
import { createExperience } from "./experience.js";
import { exploreLoop } from "./exploreLoop.js";
import { getPathway } from "../../pathways/registry.js";
import type { ExperienceSnapshot } from "../../pathways/types.js";
import { checkDataDirClaim, checkDataDirProtocol, claimDataDirProtocol } from "../shards/dataDirProtocol.js";
import { checkLogsAgainstPlan } from "../resume/logProtocol.js";
import { protocolFingerprint } from "../settings/protocolFingerprint.js";
import { checkResumable, ManifestWriter, modelConfig, type InvocationInput } from "../settings/manifest.js";
import { episodeSlot, loadForResume, type ResumeState } from "../resume/resume.js";
import { acquireRunLock } from "../resume/runLock.js";
import { manifestPath, runDir, runFile } from "../../logs/runDir.js";
import { RunLogs } from "../../logs/runLogs.js";
import { checkpointList, totalEpisodes, type MatrixEntry } from "./schedule.js";
import { runSeeds } from "./seeds.js";
import { extraViews, viewCheckpointKey, viewEpisodes, viewEpisodeTotal, type ViewEpisode } from "./views.js";
import { DEFAULT_MAX_BAD_REPLIES, ReplyMonitor, WARMUP_REPLIES } from "../monitor/replyMonitor.js";
import { readCallLines, summarizeCalls } from "../monitor/usage.js";
import { runQuality, StepQualityTally } from "../monitor/runQuality.js";

/** The endpoint host of the built-in policies (instruments: the all-invalid rule does not judge them). */
const BUILTIN_HOST = "builtin";
import { SpendCap, SpendCapReached, type CapLimits } from "../monitor/spendCap.js";
import type { RecordedExploration } from "../resume/recordedExploration.js";
import { judgeModel } from "../../pathways/judge.js";

export interface RunOutcome {
  runId: string;
  /**
   * `complete`: every checkpoint ok; `failed`: some checkpoint failed; `degenerate`: stopped because
   * too many replies were empty or unparsable (replyMonitor.ts; `error` says what was seen);
   * `partial`: the spend cap stopped it between episodes (spendCap.ts; resumable with a higher cap);
   * `error`: the run could not proceed (a bug, a lock, a config clash).
   */
  status: "complete" | "failed" | "degenerate" | "partial" | "error";
  checkpoints: CheckpointRecord[];
  error: string | null;
}

function identityOf(run: RunContext) {
  return { run_id: run.runId, model: run.modelName, game: run.game.name, pathway: run.pathway };
}

/**
 * Plays checkpoint `c`: the eval seeds with the frozen experience, episodes already done (resume)
 * reused, then writes the checkpoint record. Public: a training run evaluates a list of model
 * checkpoints with exactly this function (pathway `training`, `c` = epoch, empty experience).
 */
export async function runCheckpoint(run: RunContext, c: number, experience: ExperienceSnapshot, done: ReadonlyMap<string, EpisodeRecord>): Promise<CheckpointRecord> {
  return playCheckpoint(
    run,
    c,
    experience,
    done,
    run.evalSeeds.map((seed, episode) => ({ episode, seed })),
  );
}

/**
 * Plays view `view` (`id` or `replay`, runner/loop/views.ts) at checkpoint `c` with the same frozen
 * experience as the checkpoint's `eval` episodes; null when the view has no episode there (replay at
 * checkpoint 0: nothing explored yet, so no record: the cell is missing, not 0).
 */
export async function runViewCheckpoint(run: RunContext, view: ExtraView, c: number, experience: ExperienceSnapshot, done: ReadonlyMap<string, EpisodeRecord>): Promise<CheckpointRecord | null> {
  const episodes = viewEpisodes(run, view, c);
  if (episodes.length === 0) return null;
  return playCheckpoint(run, c, experience, done, episodes, view);
}

async function playCheckpoint(
  run: RunContext,
  c: number,
  experience: ExperienceSnapshot,
  done: ReadonlyMap<string, EpisodeRecord>,
  episodes: readonly ViewEpisode[],
  view?: ExtraView,
): Promise<CheckpointRecord> {
  // Every episode settles before the checkpoint ends, also when one throws (a spend cap, a bug): none
  // may still be writing once the run closes its logs.
  const records = await settleAll(
    episodes.map(async ({ episode, seed }) => {
      const prior = done.get(episodeSlot("eval", c, episode, view));
      if (prior) return prior;
      return (await runEpisode(run, { phase: "eval", checkpoint: c, episode, seed, experience, ...(view ? { view } : {}) })).record;
    }),
  );
  const failed = records.filter((r) => r.status !== "ok");
  const scores = records.filter((r) => r.status === "ok").map((r) => r.score);
  const record: CheckpointRecord = {
    ...identityOf(run),
    checkpoint: c,
    ...(view ? { view } : {}),
    // All scores in episode order when ok; when failed, only the episodes that completed.
    scores,
    mean: failed.length === 0 && scores.length > 0 ? scores.reduce((a, b) => a + b, 0) / scores.length : null,
    status: failed.length === 0 ? "ok" : "failed",
    reason: failed.length === 0 ? null : `${view ? `${view} view ` : ""}evaluation episode ${failed[0]!.episode} failed: ${failed[0]!.error ?? "unknown"}`,
    failed_episodes: failed.map((r) => r.episode),
  };
  run.logs.checkpoints.append(record);
  run.logs.syncRecords();
  run.events.checkpointDone?.(run.runId, record);
  return record;
}

/** A checkpoint (of `view`, default `eval`) that never ran because exploration stopped before it. */
function writeFailedCheckpoint(run: RunContext, c: number, reason: string, view?: ExtraView): CheckpointRecord {
  const record: CheckpointRecord = { ...identityOf(run), checkpoint: c, ...(view ? { view } : {}), scores: [], mean: null, status: "failed", reason, failed_episodes: [] };
  run.logs.checkpoints.append(record);
  run.logs.syncRecords();
  run.events.checkpointDone?.(run.runId, record);
  return record;
}

/** The protocol loop over an opened run (logs already made resumable). */
export async function runProtocol(run: RunContext, resume: ResumeState, onCheckpoint?: () => void): Promise<RunOutcome> {
  const s = run.settings;
  const checkpoints = checkpointList(s.exploreEpisodes, s.checkpointEvery);
  // A memory probe's checkpoints read the probe's experience (another run's, or none) instead.
  const experience = run.recorded?.probe ? run.recorded.probe.experience(run) : createExperience(run, resume.own);
  const results = new Map<number, CheckpointRecord>(resume.checkpoints);
  const views = extraViews(s);
  // The other views' records (id, replay), by viewCheckpointKey; a replay cell with no episode has none.
  const viewResults = new Map<string, CheckpointRecord | null>(resume.viewCheckpoints);
  const pending: Promise<void>[] = [];
  const errors: unknown[] = [];
  // The rejection handler is attached at launch: a checkpoint may fail while exploration still runs.
  const track = <T>(work: Promise<T>, done: (r: T) => void): void => {
    pending.push(
      work.then(
        (r) => {
          done(r);
          // The manifest rewrite can fail (a full disk): that stops the run like a failed write
          // of a record, instead of escaping as an unhandled rejection.
          try {
            onCheckpoint?.();
          } catch (e) {
            errors.push(e);
          }
        },
        (e: unknown) => {
          errors.push(e);
        },
      ),
    );
  };

  const launch = (c: number): void => {
    const todo = views.filter((v) => !viewResults.has(viewCheckpointKey(v, c)));
    if (results.has(c) && todo.length === 0) return;
    // One snapshot for every view of the checkpoint: they all see the same frozen experience.
    const snapshot = experience.snapshot();
    if (!results.has(c)) track(runCheckpoint(run, c, snapshot, resume.episodes), (r) => results.set(c, r));
    for (const v of todo) track(runViewCheckpoint(run, v, c, snapshot, resume.episodes), (r) => viewResults.set(viewCheckpointKey(v, c), r));
  };

  launch(0);
  let stop: { from: number; reason: string } | null = null;
  try {
    // A pathway that plans its exploration (verified) is explored in its batches; the others one by one.
    stop = await exploreLoop(run, resume, experience, launch, () => errors.length > 0);
  } finally {
    // Even when exploration throws (a bug), no checkpoint may still be writing once we return.
    await Promise.allSettled(pending);
  }
  if (stop) {
    for (const c of checkpoints) {
      if (c < stop.from) continue;
      if (!results.has(c)) results.set(c, writeFailedCheckpoint(run, c, stop.reason));
      for (const v of views) {
        const key = viewCheckpointKey(v, c);
        if (!viewResults.has(key)) viewResults.set(key, viewEpisodes(run, v, c).length > 0 ? writeFailedCheckpoint(run, c, stop.reason, v) : null);
      }
    }
  }
  if (errors.length > 0) throw errors[0];

  const ordered = checkpoints.map((c) => results.get(c)).filter((r): r is CheckpointRecord => r !== undefined);
  // A run is complete when every checkpoint of every view it plays is ok (the outcome lists `eval`'s).
  const viewsOk = [...viewResults.values()].every((r) => r === null || r.status === "ok");
  const status = ordered.length === checkpoints.length && ordered.every((r) => r.status === "ok") && viewsOk ? "complete" : "failed";
  return { runId: run.runId, status, checkpoints: ordered, error: null };
}

// ---------------------------------------------------------------------------------------------

/** Routes model-call events to the calls.jsonl of the run named in the call identity. */
export class CallRouter {
  private readonly logs = new Map<string, RunLogs>();
  /** The runs' evaluation memos (evalMemo.ts), which keep their evaluation steps' call lines. */
  private readonly memos = new Map<string, EvalMemo>();
  /** Calls whose run is not open here (should not happen; counted so a test can assert it). */
  unrouted = 0;

  /** `events` hears every routed call (progress shows retries and dollars from it). */
  constructor(private readonly events: RunEvents = {}) {}

  readonly onCall: OnCall = (e: CallEvent) => {
    if (!this.logs.has(e.identity.runId)) {
      this.unrouted++;
      return;
    }
    const record = toCallRecord(e);
    this.write(e.identity.runId, record);
    this.memos.get(e.identity.runId)?.observeCall(record);
  };

  /** A call line of an open run: calls.jsonl, then the call event (a memo's replayed call comes here too). */
  write(runId: string, record: CallRecord): void {
    this.logs.get(runId)!.calls.append(record);
    this.events.call?.(runId, record);
  }

  attach(runId: string, logs: RunLogs, memo?: EvalMemo): void {
    this.logs.set(runId, logs);
    if (memo) this.memos.set(runId, memo);
  }
  detach(runId: string): void {
    this.logs.delete(runId);
    this.memos.delete(runId);
  }
}

export interface OpenRunOptions {
  dataDir: string;
  entry: MatrixEntry;
  game: Game;
  model: Model;
  settings: ProtocolSettings;
  router: CallRouter;
  events?: RunEvents;
  /** Names and numbers worth recording in the manifest (concurrency, cache, shard ...). */
  invocation?: InvocationInput;
  now?: () => Date;
  /** What to play once the run is open (default: the protocol loop; a training run evaluates its checkpoint list). */
  play?: (run: RunContext, resume: ResumeState, onCheckpoint: () => void) => Promise<RunOutcome>;
  /** Episodes the run plays in total, for progress (default: from the protocol settings). */
  totalEpisodes?: number;
  /** The checkpoints recorded in the manifest (default: the protocol's list). */
  checkpoints?: number[];
  /** Record the resolved model in the manifest and check it on resume (default true; false for a training run's checkpoint list). */
  recordModel?: boolean;
  /** The model of the pathway's own roles (verified: `--verifier-model`); absent: the run's model. */
  roleModel?: { name: string; model: Model };
  /** The external judge (`--judge model:<spec>`); absent for every other judge. */
  judgeModel?: { name: string; model: Model };
  /** A rejudged run: the recorded exploration it replays instead of exploring (recordedExploration.ts). */
  recorded?: RecordedExploration;
  /** The matrix's spend cap (spendCap.ts), shared by its runs. */
  cap?: SpendCap;
}

/** Removes temporary files a kill left behind during an atomic rewrite. */
function removeStaleTemps(dir: string): void {
  for (const f of readdirSync(dir)) if (isAtomicTemp(f)) unlinkSync(join(dir, f));
}

/** Checks, before any call, that an existing run directory can be resumed with these settings. */
export function preflightRun(o: Pick<OpenRunOptions, "dataDir" | "entry" | "game" | "model" | "settings" | "recordModel">): void {
  const path = manifestPath(runDir(o.dataDir, o.entry.runId));
  const s = o.settings;
  const configs = { explore: resolveConfig(o.game, "explore", s.maxSteps), eval: resolveConfig(o.game, "eval", s.maxSteps) };
  if (!existsSync(path)) {
    // No manifest (deleted, or never written): the logs still say how the run was played.
    if (existsSync(runDir(o.dataDir, o.entry.runId)))
      checkLogsAgainstPlan(runDir(o.dataDir, o.entry.runId), o.entry.runId, { configs, evalEpisodes: s.evalEpisodes, exploreEpisodes: s.exploreEpisodes, fingerprint: protocolFingerprint(s) });
    return;
  }
  // A newer kit's run is never resumed here: its manifest would be rewritten as this version.
  refuseNewerSchemaFile(path);
  let previous: RunManifest;
  try {
    previous = readJsonFile(path, RunManifest);
  } catch (e) {
    // Fixable before any call (exit 2): the message names the file and what is wrong with it.
    if (e instanceof LogFormatError) throw new ConfigError(`${e.message}; this run cannot be resumed from it: restore the manifest, or move the run directory away to start that run over`);
    throw e;
  }
  checkResumable(
    previous,
    { runId: o.entry.runId, settings: s, configs },
    // A training run's models are its checkpoints' (checked by checkCheckpointModels), not one model.
    o.recordModel === false ? null : modelConfig(o),
  );
}

function contextFor(o: Pick<OpenRunOptions, "entry" | "game" | "model" | "settings" | "roleModel" | "cap" | "judgeModel" | "recorded">, logs: RunLogs, events: RunEvents, now: () => Date): RunContext {
  const s = o.settings;
  return {
    runId: o.entry.runId,
    modelName: o.entry.model,
    model: o.model,
    game: o.game,
    pathway: o.entry.pathway,
    settings: s,
    configs: { explore: resolveConfig(o.game, "explore", s.maxSteps), eval: resolveConfig(o.game, "eval", s.maxSteps) },
    variants: resolveVariants(o.game, s.maxSteps),
    ...(o.roleModel ? { roleModel: o.roleModel } : {}),
    ...(o.judgeModel ? { judgeModel: o.judgeModel } : {}),
    ...(o.recorded ? { recorded: o.recorded } : {}),
    ...runSeeds(s, o.game.name),
    logs,
    // Its lines from earlier invocations (a resume: after the rewrite and the torn tail's repair), read once.
    stepTally: StepQualityTally.ofFile(runFile(logs.dir, "steps")),
    counter: new TokenCounter(s.tokenizer),
    events,
    replies: new ReplyMonitor(s.maxBadReplies ?? DEFAULT_MAX_BAD_REPLIES, WARMUP_REPLIES, s.answerFrom ?? "content", o.model.endpointHost !== BUILTIN_HOST),
    now,
    ...(o.cap ? { cap: o.cap } : {}),
  };
}

/** Opens (or resumes) one run and plays it to the end. Never throws: failures become the outcome. */
export async function executeRun(o: OpenRunOptions): Promise<RunOutcome> {
  const dir = runDir(o.dataDir, o.entry.runId);
  let release: (() => void) | null = null;
  let logs: RunLogs | null = null;
  let manifest: ManifestWriter | null = null;
  try {
    mkdirSync(dir, { recursive: true });
    release = acquireRunLock(dir);
    // Refuse a protocol clash before the resume rewrite touches any file.
    preflightRun(o);
    removeStaleTemps(dir);
    // The protocol loop's evaluation is built on its exploration; another player's (a training run's
    // checkpoint list) is not.
    const resume = loadForResume(dir, { pathway: o.entry.pathway, explorationFeedsEvaluation: o.play === undefined });
    logs = new RunLogs(dir, getPathway(o.entry.pathway).files);
    const events = o.events ?? {};
    for (const w of resume.quarantined) events.warning?.(o.entry.runId, w);
    const base = contextFor(o, logs, events, o.now ?? (() => new Date()));
    // A deterministic model's evaluation episodes with the same inputs are played once per process (evalMemo.ts).
    const router = o.router;
    const run: RunContext = o.model.deterministic === true ? { ...base, memo: new EvalMemo(o.model, (r) => router.write(base.runId, r)) } : base;
    router.attach(run.runId, logs, run.memo);
    manifest = new ManifestWriter(run, o.invocation ?? {}, resume.manifest, o.checkpoints, o.recordModel !== false);
    manifest.write("running", false);
    const written = manifest;
    const s = run.settings;
    events.runStarted?.(run.runId, {
      totalEpisodes: o.totalEpisodes ?? totalEpisodes(s.exploreEpisodes, s.checkpointEvery, s.evalEpisodes) + viewEpisodeTotal(s),
      doneEpisodes: resume.episodes.size,
      label: `${o.entry.game}/${o.entry.pathway}/${o.entry.model}`,
      // The protocol loop's exploration chain is its critical path (progress.ts's ETA); a checkpoint list has none.
      ...(o.play === undefined ? { exploreLeft: s.exploreEpisodes - [...resume.episodes.values()].filter((e) => e.phase === "explore").length } : {}),
    });
    let outcome: RunOutcome;
    try {
      outcome = await (o.play ?? runProtocol)(run, resume, () => written.write("running", false));
    } catch (e) {
      if (!(e instanceof SpendCapReached)) throw e;
      logs.flush();
      // Stopped between episodes: every logged episode is whole, so the run resumes like a killed one.
      const calls = readCallLines(dir);
      written.write(
        "partial",
        false,
        { ...summarizeCalls(dir, undefined, calls) },
        { replies: { ...run.replies.stats }, quality: runQuality(dir, "partial", run.model.endpointHost !== BUILTIN_HOST, run.stepTally, calls) },
      );
      events.runEnded?.(run.runId, "partial");
      return { runId: run.runId, status: "partial", checkpoints: [], error: e.message };
    }
    // The steps lines held for this turn go out before the manifest says the run ended.
    logs.flush();
    const degenerate = run.replies.verdict();
    if (degenerate !== null) outcome = { ...outcome, status: "degenerate", error: degenerate };
    // calls.jsonl read once, for the usage and the quality.
    const calls = readCallLines(dir);
    manifest.write(
      outcome.status,
      true,
      { ...summarizeCalls(dir, undefined, calls) },
      {
        replies: { ...run.replies.stats },
        ...(degenerate !== null ? { degenerate_reason: degenerate } : {}),
        quality: runQuality(dir, outcome.status, run.model.endpointHost !== BUILTIN_HOST, run.stepTally, calls),
      },
    );
    events.runEnded?.(run.runId, outcome.status);
    return outcome;
  } catch (e) {
    // A manifest never says "running" once its process has given up on the run (a bad calls line,
    // a full disk, a bug): best-effort, since a full disk may refuse this write too.
    try {
      manifest?.write("error", true);
    } catch {
      // the error below names the cause; the lock's dead pid tells readers the run is not running
    }
    o.events?.runEnded?.(o.entry.runId, "error");
    return { runId: o.entry.runId, status: "error", checkpoints: [], error: redactSecrets(e instanceof Error ? e.message : String(e)) };
  } finally {
    o.router.detach(o.entry.runId);
    logs?.close();
    release?.();
  }
}

export interface MatrixOptions {
  dataDir: string;
  entries: readonly MatrixEntry[];
  settings: ProtocolSettings | ((entry: MatrixEntry) => ProtocolSettings);
  /** The game of a matrix entry (the registry by default; tests pass wrapped games). */
  game: (name: string) => Game;
  /** One model per distinct model name, created once and shared by that model's runs. */
  createModel: (name: string, onCall: OnCall) => Model;
  events?: RunEvents;
  invocation?: InvocationInput;
  now?: () => Date;
  /** `--max-usd` / `--max-input-tokens`: stop the matrix between episodes once spend would pass them. */
  cap?: CapLimits;
  /** Rejudged runs (`s3gym rejudge`): the recorded exploration an entry replays; undefined: it explores. */
  recorded?: (entry: MatrixEntry) => RecordedExploration | undefined;
  /**
   * How many runs play at once, in entry order (default: all). A run's logs do not depend on which
   * other runs play beside it (each has its own files, and a model's reply depends on its own call
   * alone), so a process of in-process models, which no limiter bounds, may play fewer to hold fewer
   * episodes in memory at once; an endpoint's runs play all at once, so its limiter stays full.
   */
  runsAtOnce?: number;
}

/** `play` over `items` in order, at most `n` at a time; the results in item order (`play` must not throw: executeRun does not). */
async function inTurns<T, R>(items: readonly T[], n: number, play: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < items.length) {
      const i = next++;
      out[i] = await play(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(n, items.length)) }, lane));
  return out;
}

/**
 * Checks a planned matrix against the data directory before any call: one protocol per directory
 * (the other runs already there, dataDirProtocol.ts), and each run being resumed field by field
 * (preflightRun). Throws a ConfigError naming the differing numbers. `claim: false` only checks and
 * writes nothing (a run that may still be refused before its first episode must leave the directory
 * as it was); the matrix claims the directory when it starts playing.
 */
export function planMatrix(
  dataDir: string,
  entries: readonly MatrixEntry[],
  settingsOf: (e: MatrixEntry) => ProtocolSettings,
  modelOf: (e: MatrixEntry) => Model,
  game: (name: string) => Game,
  { claim = true }: { claim?: boolean } = {},
): void {
  // A run's own earlier invocations first: their message is the more specific (rules version, model).
  for (const e of entries) preflightRun({ dataDir, entry: e, game: game(e.game), model: modelOf(e), settings: settingsOf(e) });
  // The compared numbers are the matrix's own (a models-file max_tokens, the only per-entry
  // difference, is not compared), so the first entry's settings stand for all of them.
  if (entries.length > 0) {
    checkDataDirProtocol(dataDir, settingsOf(entries[0]!), new Set(entries.map((e) => e.runId)));
    // Atomic, and still there when a manifest is deleted: what makes the check above hold.
    if (claim) claimDataDirProtocol(dataDir, settingsOf(entries[0]!));
    else checkDataDirClaim(dataDir, settingsOf(entries[0]!));
  }
}

/** What the matrix's runs already spent in earlier invocations (their calls.jsonl), for the cap. */
function spentBefore(dataDir: string, entries: readonly MatrixEntry[]): { usd: number; tokensIn: number } {
  let usd = 0;
  let tokensIn = 0;
  for (const e of entries) {
    const dir = runDir(dataDir, e.runId);
    if (!existsSync(manifestPath(dir))) continue;
    const u = summarizeCalls(dir);
    usd += u.spent_usd ?? 0;
    tokensIn += u.spent_tokens_in;
  }
  return { usd, tokensIn };
}

/**
 * Runs a whole matrix concurrently: every run's exploration chain proceeds in parallel, and the
 * endpoints' limiters (inside the models) bound the calls in flight. Resumable runs are checked first,
 * so a protocol clash fails before any call.
 */
export async function runMatrix(o: MatrixOptions): Promise<RunOutcome[]> {
  const cap = o.cap && (o.cap.maxUsd !== null || o.cap.maxInputTokens !== null) ? new SpendCap(o.cap, spentBefore(o.dataDir, o.entries)) : null;
  // Spent already by earlier invocations: refused before anything is written (no run opened, no claim).
  const spentOut = cap?.check() ?? null;
  if (spentOut !== null)
    throw new ConfigError(`${spentOut.replace(" (another episode would pass it)", "")} by earlier invocations of these runs; nothing was run: rerun with a higher cap to resume them`);
  // The cap hears every call beside the progress display (episodes report to it themselves: episodeRunner.ts).
  const events: RunEvents = cap
    ? {
        ...o.events,
        call: (id, r) => {
          cap.add(r);
          o.events?.call?.(id, r);
        },
      }
    : (o.events ?? {});
  const router = new CallRouter(events);
  const models = new Map<string, Model>();
  const settingsOf = (e: MatrixEntry) => (typeof o.settings === "function" ? o.settings(e) : o.settings);
  for (const e of o.entries) if (!models.has(e.model)) models.set(e.model, o.createModel(e.model, router.onCall));
  // A pathway's roles may be answered by another model (verified's `--verifier-model`): one instance per name too.
  const roleModelOf = (e: MatrixEntry): { name: string; model: Model } | undefined => {
    const name = getPathway(e.pathway).roleModel?.((settingsOf(e) as unknown as Record<string, unknown>)[e.pathway]);
    if (!name) return undefined;
    if (!models.has(name)) models.set(name, o.createModel(name, router.onCall));
    return { name, model: models.get(name)! };
  };
  // The external judge (`--judge model:<spec>`): one instance per name too.
  const judgeModelOf = (e: MatrixEntry): { name: string; model: Model } | undefined => {
    const name = judgeModel(settingsOf(e).judge);
    if (name === null) return undefined;
    if (!models.has(name)) models.set(name, o.createModel(name, router.onCall));
    return { name, model: models.get(name)! };
  };
  planMatrix(o.dataDir, o.entries, settingsOf, (e) => models.get(e.model)!, o.game);
  return inTurns(o.entries, o.runsAtOnce ?? o.entries.length, (entry) =>
    executeRun({
      dataDir: o.dataDir,
      entry,
      game: o.game(entry.game),
      model: models.get(entry.model)!,
      settings: settingsOf(entry),
      ...(roleModelOf(entry) ? { roleModel: roleModelOf(entry)! } : {}),
      ...(judgeModelOf(entry) ? { judgeModel: judgeModelOf(entry)! } : {}),
      ...(o.recorded?.(entry) ? { recorded: o.recorded(entry)! } : {}),
      router,
      events,
      ...(o.invocation ? { invocation: o.invocation } : {}),
      ...(o.now ? { now: o.now } : {}),
      ...(cap ? { cap } : {}),
    }),
  );
}
