/** Plays one episode in-process with an action source; used by `s3gym play`, tests and benchmarks. */
import type { EpisodeState, Game, PolicyContext } from "./types.js";

/** One step of a played episode: the step-record fields of logs.md that apply to a bare game. */
export interface PlayedStep {
  step: number;
  observation: string;
  action: string | null;
  self_score: number | null;
  valid: boolean;
  feedback: string;
  reward: number;
  score_after: number;
  done: boolean;
}

/** Chooses the next action; returns undefined to stop early (e.g. an actions file ran out). */
export type ActionSource = (
  ctx: PolicyContext,
  state: EpisodeState,
) => { action: string | null; selfScore: number | null } | undefined | Promise<{ action: string | null; selfScore: number | null } | undefined>;

export async function playEpisode(
  game: Game,
  seed: number,
  config: string,
  source: ActionSource,
  onStep?: (s: PlayedStep) => void,
): Promise<{ steps: PlayedStep[]; score: number; state: EpisodeState }> {
  let state = game.reset(seed, config);
  const rules = game.rules(config);
  const history: PolicyContext["history"] = [];
  const steps: PlayedStep[] = [];
  while (!state.done) {
    const observation = game.observe(state);
    const choice = await source({ rules, observation, history: history.slice() }, state);
    if (!choice) break;
    const res = game.step(state, choice.action);
    const s: PlayedStep = {
      step: state.step,
      observation,
      action: choice.action,
      self_score: choice.selfScore,
      valid: res.valid,
      feedback: res.feedback,
      reward: res.reward,
      score_after: game.score(res.state),
      done: res.done,
    };
    steps.push(s);
    onStep?.(s);
    history.push({ observation, action: choice.action, feedback: res.feedback });
    state = res.state;
  }
  return { steps, score: game.score(state), state };
}
