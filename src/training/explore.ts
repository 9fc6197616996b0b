/**
 * Exploration for the training pathway: N exploration episodes of a game with the current model
 * checkpoint, explore config, exploration seeds of the run seed, and NO experience (protocol.md: the
 * experience block is empty for `training`). Nothing is consolidated and no checkpoint is evaluated,
 * so the episodes are independent: the training pathway plans them as one batch, which the run's
 * exploration loop (runner/loop/exploreLoop.ts) plays concurrently (the model layer's limiter bounds the calls).
 * The logs are an ordinary run directory (pathway `training`, phase `explore`, checkpoint null), which
 * BuildSFT reads like any other run; the run resumes like any other (done episodes are skipped).
 */
import type { Game } from "../games/types.js";
import type { OnCall } from "../models/callLog.js";
import type { Model } from "../models/types.js";
import type { ProtocolSettings, RunEvents } from "../runner/loop/context.js";
import { createExperience } from "../runner/loop/experience.js";
import { exploreLoop } from "../runner/loop/exploreLoop.js";
import { runId } from "../runner/settings/runId.js";
import { CallRouter, executeRun, preflightRun, type RunOutcome } from "../runner/loop/runLoop.js";
import { TRAINING_PATHWAY } from "../pathways/registry.js";

export interface ExplorationOptions {
  dataDir: string;
  /** The model spec (or alias) exploring; also the `model` of every record. */
  model: string;
  game: Game;
  /** exploreEpisodes, maxSteps, maxNewTokens, tokenizer, rewardVisibility, runSeed are used. */
  settings: ProtocolSettings;
  createModel: (spec: string, onCall: OnCall) => Model;
  /** Default `training`. */
  pathway?: string;
  events?: RunEvents;
  now?: () => Date;
}

/** The settings an exploration-only run records (no checkpoint, no evaluation episode). */
export function explorationSettings(s: ProtocolSettings): ProtocolSettings {
  return { ...s, evalEpisodes: 0, checkpointEvery: 1 };
}

export function explorationRunId(o: Pick<ExplorationOptions, "model" | "game" | "settings" | "pathway">): string {
  return runId({ game: o.game.name, pathway: o.pathway ?? TRAINING_PATHWAY, model: o.model, runSeed: o.settings.runSeed });
}

/** Checks, before any call, that an existing exploration run can be resumed with these settings. */
export function preflightExploration(o: ExplorationOptions, model: Model): void {
  const pathway = o.pathway ?? TRAINING_PATHWAY;
  const entry = { model: o.model, game: o.game.name, pathway, runSeed: o.settings.runSeed, runId: explorationRunId(o) };
  preflightRun({ dataDir: o.dataDir, entry, game: o.game, model, settings: explorationSettings(o.settings) });
}

/** Plays (or resumes) the exploration episodes; never throws: failures become the outcome. */
export async function runExploration(o: ExplorationOptions): Promise<RunOutcome> {
  const pathway = o.pathway ?? TRAINING_PATHWAY;
  const settings = explorationSettings(o.settings);
  const router = new CallRouter();
  const model = o.createModel(o.model, router.onCall);
  const entry = { model: o.model, game: o.game.name, pathway, runSeed: settings.runSeed, runId: explorationRunId(o) };
  return executeRun({
    dataDir: o.dataDir,
    entry,
    game: o.game,
    model,
    settings,
    router,
    ...(o.events ? { events: o.events } : {}),
    ...(o.now ? { now: o.now } : {}),
    invocation: { exploration_only: true },
    totalEpisodes: settings.exploreEpisodes,
    checkpoints: [],
    // The run's exploration loop with no checkpoint to launch: the pathway's plan says how the
    // episodes are batched (training: all in one batch, played concurrently, nothing consolidated).
    play: async (run, resume) => {
      const stop = await exploreLoop(
        run,
        resume,
        createExperience(run, resume.own),
        () => {},
        () => false,
      );
      return { runId: run.runId, status: stop ? "failed" : "complete", checkpoints: [], error: stop?.reason ?? null };
    },
  });
}
