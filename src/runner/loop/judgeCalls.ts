/**
 * The run's judge applied to one exploration episode's steps (docs/judging.md): the fields a step
 * record carries beside its own self-score (pathways/judge.ts), and, for an external judge
 * (`--judge model:<spec>`), its calls: one per step, from the rules, the observation and the action
 * the actor saw (agent/judgePrompt.ts), logged in calls.jsonl as purpose `judge` of the episode, so
 * their cost joins the episode's exploration cost. Used by a live exploration episode
 * (episodeRunner.ts) and by a rejudged run's replayed episodes (recordedExploration.ts) alike.
 */
import { buildJudgeMessages, parseJudgeReply } from "../../agent/judgePrompt.js";
import type { StepRecord } from "../../logs/schema.js";
import { callSeed } from "../../models/callSeed.js";
import type { CallIdentity } from "../../models/types.js";
import { judgedFields, judgeModel, runShuffle, shuffleKey, withJudgedFields, type ShuffleSource } from "../../pathways/judge.js";
import { ConfigError } from "../../util/errors.js";
import type { RecordedExploration, RunContext } from "./context.js";

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
export async function judgeEpisode(
  run: Pick<RunContext, "settings" | "runId" | "judgeModel" | "events" | "recorded" | "exploreSeeds">,
  steps: readonly StepRecord[],
  rules: string,
  episode: number,
): Promise<StepRecord[]> {
  const judge = run.settings.judge;
  if (judge === undefined || judge === "self") return [...steps];
  let scores: (number | null)[] | undefined;
  let shuffled: ShuffleSource[] | undefined;
  if (judge === "shuffled") shuffled = shuffledSources(run, episode, steps.length);
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
  return withJudgedFields(steps, judgedFields(judge, steps, { ...(scores ? { scores } : {}), ...(shuffled ? { shuffled } : {}) }));
}

/** The run-wide shuffle of a recorded exploration, drawn once per recorded exploration (a run replays it episode by episode). */
const shuffles = new WeakMap<RecordedExploration, Map<number, ShuffleSource[]>>();

/**
 * `shuffled`'s sources for exploration episode `episode`: the self-scores of the episode the
 * permutation of the recorded run's exploration episodes gives it (pathways/judge.ts runShuffle).
 * The placebo needs the whole run's self-scores before it judges the first episode, so only a rejudge (the exploration recorded)
 * can give it, and only of a recorded run whose exploration is complete (else a resume after the
 * recorded run finished would draw another permutation).
 */
function shuffledSources(run: Pick<RunContext, "settings" | "runId" | "recorded" | "exploreSeeds">, episode: number, n: number): ShuffleSource[] {
  const rec = run.recorded;
  if (!rec)
    throw new ConfigError(
      `${run.runId}: judge shuffled permutes the self-scores of the run's exploration episodes, which an on-policy run has not played yet: rejudge a recorded run with it (s3gym rejudge --judge shuffled, or run --rejudge shuffled)`,
    );
  let all = shuffles.get(rec);
  if (!all) {
    // Exploration episodes are numbered from 1 (runner/loop/exploreLoop.ts).
    const planned = run.exploreSeeds.map((_, i) => i + 1);
    const missing = planned.filter((e) => !rec.episodes.has(e));
    if (missing.length > 0)
      throw new ConfigError(
        `${run.runId}: judge shuffled permutes the whole recorded exploration, but ${rec.source.runId} lacks exploration episode(s) ${missing.slice(0, 5).join(", ")}: finish that run first, then rejudge it`,
      );
    all = runShuffle(
      planned.map((e) => ({ episode: e, steps: rec.episodes.get(e)!.steps })),
      shuffleKey(run.settings.runSeed, rec.source.runId),
    );
    shuffles.set(rec, all);
  }
  const mine = all.get(episode);
  if (!mine || mine.length !== n) throw new Error(`${run.runId}: the shuffle holds ${mine?.length ?? 0} scores for exploration episode ${episode}, which has ${n} steps`);
  return mine;
}
