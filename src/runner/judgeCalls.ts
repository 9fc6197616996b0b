/**
 * The run's judge applied to one exploration episode's steps (docs/judging.md): the fields a step
 * record carries beside its own self-score (pathways/judge.ts), and, for an external judge
 * (`--judge model:<spec>`), its calls: one per step, from the rules, the observation and the action
 * the actor saw (agent/judgePrompt.ts), logged in calls.jsonl as purpose `judge` of the episode, so
 * their cost joins the episode's exploration cost. Used by a live exploration episode
 * (episodeRunner.ts) and by a rejudged run's replayed episodes (recordedExploration.ts) alike.
 */
import { buildJudgeMessages, parseJudgeReply } from "../agent/judgePrompt.js";
import type { StepRecord } from "../logs/schema.js";
import { callSeed } from "../models/callSeed.js";
import type { CallIdentity } from "../models/types.js";
import { judgedFields, judgeModel, withJudgedFields } from "../pathways/judge.js";
import type { RunContext } from "./context.js";

/** Whether a run's exploration steps are judged by another judge than the acting model's own self-scores. */
export function judgesExploration(run: Pick<RunContext, "settings">): boolean {
  const j = run.settings.judge;
  return j !== undefined && j !== "self";
}

/**
 * The steps (in step order) with the judge's fields; the same records under `self`. An external
 * judge's call that fails on infrastructure throws its ModelCallError (the episode fails, and is
 * played or replayed again on resume); an unparsable judge reply gives that step a null score.
 */
export async function judgeEpisode(run: Pick<RunContext, "settings" | "runId" | "judgeModel" | "events">, steps: readonly StepRecord[], rules: string, episode: number): Promise<StepRecord[]> {
  const judge = run.settings.judge;
  if (judge === undefined || judge === "self") return [...steps];
  let scores: (number | null)[] | undefined;
  if (judgeModel(judge) !== null) {
    const jm = run.judgeModel;
    if (!jm) throw new Error(`${run.runId}: judge ${judge} has no model to call (the runner opens one per judge model)`);
    scores = await Promise.all(
      steps.map(async (s) => {
        const identity: CallIdentity = { runId: run.runId, purpose: "judge", phase: "explore", checkpoint: null, episode, step: s.step, sample: 0 };
        const result = await jm.model.complete({
          messages: buildJudgeMessages({ rules, observation: s.observation, action: s.action }),
          sampling: { max_tokens: run.settings.maxNewTokens, seed: callSeed(identity) },
          identity,
        });
        run.events.step?.(run.runId, result.usage.tokensIn, result.usage.tokensOut);
        const parsed = parseJudgeReply(result.text);
        return parsed.ok ? parsed.score : null;
      }),
    );
  }
  return withJudgedFields(steps, judgedFields(judge, steps, { runSeed: run.settings.runSeed, episode, ...(scores ? { scores } : {}) }));
}
