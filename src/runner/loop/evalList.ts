/**
 * Evaluating a list of model checkpoints (protocol.md, "Training runs"): each checkpoint (epoch 0 =
 * the base model, 1..K-1 = updated ones) plays the game's eval config with no history and no memory,
 * N_eval episodes on the SAME evaluation seeds as every other pathway of the game (paired), logged in
 * the step-log format with phase `eval`, `checkpoint` = epoch, pathway `training`. One run directory
 * per (model family label, game, run seed); resumable like any run (done episodes are skipped).
 * Checkpoints are evaluated concurrently; each may be a different endpoint.
 */
import type { Game } from "../../games/types.js";
import type { OnCall } from "../../models/callLog.js";
import type { Model } from "../../models/types.js";
import type { ProtocolSettings } from "./context.js";
import { NO_EXPERIENCE } from "../../pathways/types.js";
import { CallRouter, executeRun, runCheckpoint, type RunOutcome } from "./runLoop.js";
import { runId } from "../settings/runId.js";
import { TRAINING_PATHWAY } from "../../pathways/registry.js";

export interface CheckpointListOptions {
  dataDir: string;
  /** The label written as `model` on every record and used in the run id (e.g. `qwen3-8b-sft`). */
  modelName: string;
  game: Game;
  /** Default `training`. */
  pathway?: string;
  /** evalEpisodes, maxSteps, maxNewTokens, runSeed, rewardVisibility, tokenizer are used; exploration fields are ignored. */
  settings: ProtocolSettings;
  /** The checkpoints: epoch index and the model spec (or alias) that serves it. */
  checkpoints: ReadonlyArray<{ checkpoint: number; model: string }>;
  /** Builds a checkpoint's model; pass `onCall` on (createModel's ModelContext.onCall) so calls.jsonl is written. */
  createModel: (spec: string, onCall: OnCall) => Model;
  events?: import("./context.js").RunEvents;
  now?: () => Date;
  /** The command that resumes the run (`s3gym run`'s folder and arguments), recorded in the manifest's invocation. */
  command?: { cwd: string; argv: string[] };
}

export async function runCheckpointList(o: CheckpointListOptions): Promise<RunOutcome> {
  const pathway = o.pathway ?? TRAINING_PATHWAY;
  if (o.checkpoints.length === 0) throw new Error("runCheckpointList: the checkpoint list is empty");
  const epochs = o.checkpoints.map((c) => c.checkpoint);
  if (new Set(epochs).size !== epochs.length) throw new Error(`runCheckpointList: duplicate checkpoint index in ${epochs.join(", ")}`);
  const router = new CallRouter(o.events);
  const models = new Map(o.checkpoints.map((c) => [c.checkpoint, o.createModel(c.model, router.onCall)]));
  // The manifest's protocol block: no exploration, one "checkpoint" per listed epoch.
  const settings: ProtocolSettings = { ...o.settings, exploreEpisodes: 0, checkpointEvery: 1 };
  const entry = { model: o.modelName, game: o.game.name, pathway, runSeed: settings.runSeed, runId: runId({ game: o.game.name, pathway, model: o.modelName, runSeed: settings.runSeed }) };
  return executeRun({
    dataDir: o.dataDir,
    entry,
    game: o.game,
    model: models.get(o.checkpoints[0]!.checkpoint)!,
    settings,
    router,
    ...(o.events ? { events: o.events } : {}),
    ...(o.now ? { now: o.now } : {}),
    invocation: {
      checkpoint_models: o.checkpoints.map((c) => {
        const m = models.get(c.checkpoint)!;
        return { checkpoint: c.checkpoint, model: c.model, endpoint_host: m.endpointHost, ...(m.resolved ? { resolved: { spec: m.resolved.spec, sampling: { ...m.resolved.sampling } } } : {}) };
      }),
      ...(o.command ? { command: o.command } : {}),
    },
    totalEpisodes: o.checkpoints.length * settings.evalEpisodes,
    checkpoints: [...epochs].sort((a, b) => a - b),
    // Each checkpoint has its own model (recorded above), so no single `config.model`.
    recordModel: false,
    play: async (run, resume, onCheckpoint) => {
      const records = await Promise.all(
        o.checkpoints.map(async (c) => {
          const prior = resume.checkpoints.get(c.checkpoint);
          if (prior) return prior;
          const r = await runCheckpoint({ ...run, model: models.get(c.checkpoint)! }, c.checkpoint, NO_EXPERIENCE, resume.episodes);
          onCheckpoint();
          return r;
        }),
      );
      return { runId: run.runId, status: records.every((r) => r.status === "ok") ? "complete" : "failed", checkpoints: records, error: null };
    },
  });
}
