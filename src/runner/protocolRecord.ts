/**
 * The one mapping between the runner's protocol settings (ProtocolSettings, camelCase) and their
 * recorded form (`config.protocol` of a manifest, the train-loop state: ProtocolRecord of
 * src/logs/schema.ts, snake_case), in both directions. Everything that writes the numbers or reads
 * them back (manifest, resume check, replay, BuildSFT, train loop) goes through here.
 */
import { EXTRA_VIEWS, type ProtocolRecord, type RunManifest, type SettingsRecord } from "../logs/schema.js";
import { TOKENIZERS, type TokenizerName } from "../models/tokens.js";
import type { ProtocolSettings, RunContext } from "./context.js";

/** ProtocolSettings -> their recorded form. */
export function settingsRecord(s: ProtocolSettings): SettingsRecord {
  return {
    explore_episodes: s.exploreEpisodes,
    checkpoint_every: s.checkpointEvery,
    eval_episodes: s.evalEpisodes,
    max_steps: s.maxSteps,
    context_tokens: s.contextTokens,
    max_new_tokens: s.maxNewTokens,
    tokenizer: s.tokenizer,
    reward_visibility: s.rewardVisibility,
    parse_rule: s.parseRule,
    run_seed: s.runSeed,
    // Only verified runs record it, so every other run's protocol reads as before.
    ...(s.verified ? { verified: { broad_batch: s.verified.broadBatch, verifier_model: s.verified.verifierModel } } : {}),
    // Where answers are parsed changes what the episodes are; recorded only when not the default so
    // that runs written before the flag existed still resume.
    ...(s.answerFrom !== undefined && s.answerFrom !== "content" ? { answer_from: s.answerFrom } : {}),
    history_cut: s.historyCut ?? "per-step",
    // Recorded only when on, so the protocol of runs without it reads as before (docs/endpoints.md).
    ...(s.keepThink === true ? { think_replay: "keep" as const } : {}),
    // Only with --views: a run without them records (and compares on resume) exactly what it did before views existed.
    ...(s.views ? { views: { names: ["eval", ...s.views.extra], view_episodes: s.views.viewEpisodes, replay_episodes: s.views.replayEpisodes } } : {}),
  };
}

/** The recorded form -> ProtocolSettings. Throws naming the field when the tokenizer is not one the kit has. */
export function settingsFromRecord(r: SettingsRecord, where = "config.protocol"): ProtocolSettings {
  if (!(TOKENIZERS as readonly string[]).includes(r.tokenizer)) {
    throw new Error(`${where}.tokenizer: '${r.tokenizer}' is not a tokenizer of this kit (expected ${TOKENIZERS.join(" or ")})`);
  }
  return {
    exploreEpisodes: r.explore_episodes,
    checkpointEvery: r.checkpoint_every,
    evalEpisodes: r.eval_episodes,
    maxSteps: r.max_steps,
    contextTokens: r.context_tokens,
    maxNewTokens: r.max_new_tokens,
    tokenizer: r.tokenizer as TokenizerName,
    rewardVisibility: r.reward_visibility,
    // Absent before it was recorded: those runs were read by the literal contract.
    parseRule: r.parse_rule ?? "strict-contract",
    runSeed: r.run_seed,
    ...(r.verified ? { verified: { broadBatch: r.verified.broad_batch, verifierModel: r.verified.verifier_model } } : {}),
    ...(r.answer_from !== undefined ? { answerFrom: r.answer_from } : {}),
    // Absent before it was recorded: those runs were cut per step.
    historyCut: r.history_cut ?? "per-step",
    ...(r.think_replay === "keep" ? { keepThink: true } : {}),
    ...(r.views
      ? {
          views: {
            extra: EXTRA_VIEWS.filter((v) => r.views!.names.includes(v)),
            viewEpisodes: r.views.view_episodes,
            replayEpisodes: r.views.replay_episodes,
          },
        }
      : {}),
  };
}

/** The part of the config that decides what the episodes are: it must not change on resume. */
export function protocolRecord(run: Pick<RunContext, "settings" | "configs">): ProtocolRecord {
  return { ...settingsRecord(run.settings), game_configs: { explore: run.configs.explore.config, eval: run.configs.eval.config } };
}

/** A manifest's protocol block; throws naming the file's field when the manifest has none (hand-written logs). */
export function manifestProtocol(manifest: RunManifest): ProtocolRecord {
  const p = manifest.config.protocol;
  if (!p) throw new Error(`run ${manifest.run_id}: manifest.json has no config.protocol (the protocol numbers and game configs), so its prompts cannot be rebuilt`);
  return p;
}
