/**
 * A recorded run's exploration, replayed into another run (docs/judging.md, "Rejudge"): the run's
 * exploration episodes are not played but taken from the recorded run, each passed through a
 * transform of its steps before it enters this run's logs and its experience. The run is otherwise a
 * run like any other (the protocol loop consolidates each episode into its pathway's state and plays
 * every checkpoint's evaluation episodes on its own evaluation seeds), so resume, shards, status, the
 * viewer and the report need nothing of their own: a replayed episode is written like a played one
 * (its steps, then the record that claims them), and a resume replays what its logs lack.
 *
 * `s3gym rejudge` is one use: the transform is the run's judge (the same evidence, judged by another
 * judge). Another (a memory probe: the same evidence into another experience state) passes its own.
 */
import type { EpisodeRecord, StepRecord } from "../../logs/schema.js";
import { readMergedRun } from "../../logs/mergedRun.js";
import type { PlannedEpisode } from "../../pathways/types.js";
import { ConfigError } from "../../util/errors.js";
import type { RecordedEpisode, RecordedExploration, ReplayTarget, RunContext, StepTransform } from "../loop/context.js";
import { logStep, type EpisodeOutcome } from "../loop/episodeRunner.js";
import { judgeEpisode } from "../loop/judgeCalls.js";

export type { RecordedEpisode, RecordedExploration, ReplayTarget, StepTransform };

/** The fields of a recorded step that belong to the run that played it, not to a run replaying it. */
const SOURCE_ONLY = ["experience_score", "experience_score_source", "experience_score_from", "experience_score_from_episode", "history_keep", "memory_version", "retrieved_steps"] as const;

/** The recorded run's `ok` exploration episodes (duplicates resolved as the report resolves them). */
export async function readRecordedEpisodes(dir: string): Promise<Map<number, RecordedEpisode>> {
  const merged = await readMergedRun([dir]);
  const out = new Map<number, RecordedEpisode>();
  for (const e of merged.episodes) {
    if (e.record === null || e.record.phase !== "explore" || e.record.status !== "ok") continue;
    out.set(e.record.episode, { record: e.record, steps: e.steps });
  }
  return out;
}

/** The judge of the run as a transform: `s3gym rejudge`'s (the source's self-scores, judged by this run's judge). */
export const judgeTransform: StepTransform = (steps, at) => judgeEpisode(at.run, steps, at.rules, at.episode);

/**
 * Replays recorded exploration episode `planned.episode` into `run`: its steps with this run's
 * identity, through the transform, written, then its record; what a played episode returns. Throws a
 * ConfigError when the recorded run has no such `ok` episode or played another seed or config.
 */
export async function replayRecordedEpisode(run: RunContext, recorded: RecordedExploration, planned: PlannedEpisode, rules: string): Promise<EpisodeOutcome> {
  const rec = recorded.episodes.get(planned.episode);
  if (!rec)
    throw new ConfigError(
      `${run.runId}: the recorded run ${recorded.source.runId} has no complete exploration episode ${planned.episode}: finish that run first (resume it with its own command), then rejudge it`,
    );
  if (rec.record.seed !== planned.seed || rec.record.config !== planned.config) {
    throw new ConfigError(
      `${run.runId}: recorded exploration episode ${planned.episode} played seed ${rec.record.seed} on ${rec.record.config}, but this run plans seed ${planned.seed} on ${planned.config}: the two runs do not share a protocol`,
    );
  }
  const identity = { run_id: run.runId, model: run.modelName, game: run.game.name, pathway: run.pathway };
  const own = rec.steps.map((s) => {
    const copy: Record<string, unknown> = { ...s, ...identity };
    for (const k of SOURCE_ONLY) delete copy[k];
    return copy as StepRecord;
  });
  const steps = await recorded.transform(own, { run, episode: planned.episode, rules });
  for (const s of steps) logStep(run, s);
  run.logs.syncSteps();
  const record: EpisodeRecord = { ...rec.record, ...identity };
  run.logs.episodes.append(record);
  run.logs.syncRecords();
  run.events.episodeDone?.(run.runId, record);
  return { record, steps, endObservation: String(rec.record.end_observation ?? "") };
}
