/**
 * Hand-built run directories for the training tests: every record is written here, line by line,
 * not by the runner. The manifest carries the protocol block the runner writes (the game configs
 * resolved with the step cap), which is all `rebuildStepMessages` needs to rebuild the prompts.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { getGame } from "../../src/games/registry.js";
import type { GameName } from "../../src/games/types.js";
import { DEFAULT_SETTINGS, resolveConfig } from "../../src/runner/loop/context.js";
import { runId } from "../../src/runner/settings/runId.js";

export interface HandStep {
  observation: string;
  response: string;
  action: string | null;
  self_score: number | null;
  reward?: number;
  feedback?: string;
  valid?: boolean;
  score_after?: number;
}

export interface HandEpisode {
  phase: "explore" | "eval";
  checkpoint: number | null;
  episode: number;
  seed: number;
  steps: HandStep[];
  /** Default `ok`; `null` writes no episode record (an unfinished episode). */
  status?: "ok" | "failed" | null;
  end_observation?: string;
}

export interface HandRun {
  game: GameName;
  pathway: string;
  model: string;
  runSeed?: number;
  maxSteps?: number;
  rewardVisibility?: "hidden" | "visible";
  episodes: HandEpisode[];
}

/** Writes manifest.json, steps.jsonl and episodes.jsonl of one run under `dataDir/runs/`; returns the run dir. */
export function writeHandRun(dataDir: string, r: HandRun): string {
  const game = getGame(r.game);
  const maxSteps = r.maxSteps ?? 8;
  const runSeed = r.runSeed ?? 0;
  const id = runId({ game: r.game, pathway: r.pathway, model: r.model, runSeed });
  const dir = join(dataDir, "runs", id);
  mkdirSync(dir, { recursive: true });
  const explore = resolveConfig(game, "explore", maxSteps);
  const evalCfg = resolveConfig(game, "eval", maxSteps);
  const visibility = r.rewardVisibility ?? "hidden";
  const identity = { run_id: id, model: r.model, game: r.game, pathway: r.pathway };
  const manifest = {
    ...identity,
    kit_version: "test",
    endpoint_host: "builtin",
    run_seed: runSeed,
    explore_seeds: r.episodes.filter((e) => e.phase === "explore").map((e) => e.seed),
    eval_seeds: r.episodes.filter((e) => e.phase === "eval").map((e) => e.seed),
    reward_visibility: visibility,
    config: {
      protocol: {
        explore_episodes: 30,
        checkpoint_every: 3,
        eval_episodes: 3,
        max_steps: maxSteps,
        context_tokens: DEFAULT_SETTINGS.contextTokens,
        max_new_tokens: 1000,
        tokenizer: "o200k",
        reward_visibility: visibility,
        run_seed: runSeed,
        game_configs: { explore: explore.config, eval: evalCfg.config },
      },
    },
    started_at: "2025-01-01T00:00:00.000Z",
    ended_at: "2025-01-01T00:01:00.000Z",
    status: "complete",
  };
  writeFileSync(join(dir, "manifest.json"), `${JSON.stringify(manifest, null, 2)}\n`);
  const steps: string[] = [];
  const episodes: string[] = [];
  for (const e of r.episodes) {
    const where = { phase: e.phase, config: e.phase, checkpoint: e.checkpoint, episode: e.episode, seed: e.seed };
    let total = 0;
    e.steps.forEach((s, i) => {
      total = s.score_after ?? total + (s.reward ?? 0);
      steps.push(
        JSON.stringify({
          ...identity,
          ...where,
          step: i,
          observation: s.observation,
          response: s.response,
          action: s.action,
          self_score: s.self_score,
          parse_error: s.action === null ? "no answer" : s.self_score === null ? "missing score" : null,
          valid: s.valid ?? s.action !== null,
          feedback: s.feedback ?? "",
          reward: s.reward ?? 0,
          score_after: total,
          done: i === e.steps.length - 1,
          tokens_in: 0,
          tokens_out: 0,
          latency_ms: 0,
        }),
      );
    });
    if (e.status === null) continue;
    episodes.push(
      JSON.stringify({
        ...identity,
        ...where,
        score: total,
        steps: e.steps.length,
        status: e.status ?? "ok",
        error: e.status === "failed" ? "http_5xx after 2 retries: down" : null,
        started_at: "2025-01-01T00:00:00.000Z",
        ended_at: "2025-01-01T00:00:01.000Z",
        end_observation: e.end_observation ?? "END",
      }),
    );
  }
  writeFileSync(join(dir, "steps.jsonl"), steps.map((l) => `${l}\n`).join(""));
  writeFileSync(join(dir, "episodes.jsonl"), episodes.map((l) => `${l}\n`).join(""));
  return dir;
}

/**
 * Plays chosen actions through the real game from reset(seed, explore config) so the hand-built
 * steps carry the true observations, feedback and rewards (needed where a test replays the episode).
 */
export function playChosen(gameName: GameName, seed: number, maxSteps: number, chosen: Array<{ action: string; self_score: number }>): { steps: HandStep[]; end: string } {
  const game = getGame(gameName);
  const cfg = resolveConfig(game, "explore", maxSteps);
  let state = game.reset(seed, cfg.config, cfg.name);
  const steps: HandStep[] = [];
  for (const c of chosen) {
    const observation = game.observe(state);
    const next = game.step(state, c.action);
    steps.push({
      observation,
      response: `Thinking.\nAnswer: ${c.action}\nScore: ${c.self_score}`,
      action: c.action,
      self_score: c.self_score,
      reward: next.reward,
      feedback: next.feedback,
      valid: next.valid,
      score_after: game.score(next.state),
    });
    state = next.state;
  }
  return { steps, end: game.observe(state) };
}
