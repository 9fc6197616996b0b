/**
 * The exploration loop, the one every run's exploration goes through: the protocol loop's
 * (runLoop.ts), a pathway's that plans its own batches (verified.md, "Budget and schedule") and
 * train-loop's exploration rounds (training/explore.ts).
 *
 *   for each batch of the pathway (its `exploration` plan; without one: episode x alone, seed x, explore):
 *     plan                    which exploration seed and config each episode plays (verified: its curriculum)
 *     play                    the batch's episodes concurrently, all with the experience as it was before the batch
 *     consolidate, in order   episode by episode, launching checkpoint x after episode x
 *
 * So checkpoint x is taken once the batch holding episode x has been played, with the experience as
 * it was right after episode x's consolidation. On resume, done episodes are not played again (their
 * steps give the trajectory) and the pathway takes logged decisions and verdicts from its files.
 * When an episode, a plan or a consolidation fails on infrastructure, exploration stops there: the
 * episodes of the batch before it are still consolidated, every checkpoint from it on fails.
 */
import { settleAll } from "../../util/settleAll.js";
import type { Trajectory } from "../../agent/trajectoryText.js";
import { ModelCallError } from "../../models/types.js";
import { trajectoryFromSteps } from "../../pathways/trajectory.js";
import type { ExperienceState, ExplorationBatch, PlannedEpisode } from "../../pathways/types.js";
import type { RunContext } from "./context.js";
import { failureReason, runEpisode } from "./episodeRunner.js";
import { episodeSlot, type ResumeState } from "../resume/resume.js";
import { replayRecordedEpisode } from "../resume/recordedExploration.js";

type Played = { ok: true; trajectory: Trajectory } | { ok: false; reason: string };

/** Where and why exploration stopped on an infrastructure failure (null: it did not). */
export type ExplorationStop = { from: number; reason: string } | null;

/** A pathway that does not plan its exploration: episode x alone, on exploration seed x and `explore`. */
function oneByOne(run: RunContext): NonNullable<ExperienceState["exploration"]> {
  return {
    batches: (n) => Array.from({ length: n }, (_, i): ExplorationBatch => ({ index: i + 1, phase: "deep", episodes: [i + 1] })),
    plan: async (batch) => batch.episodes.map((x): PlannedEpisode => ({ episode: x, seed: run.exploreSeeds[x - 1]!, config: "explore" })),
  };
}

export async function exploreLoop(run: RunContext, resume: ResumeState, experience: ExperienceState, launch: (c: number) => void, aborted: () => boolean): Promise<ExplorationStop> {
  const plans = experience.exploration ?? oneByOne(run);
  const s = run.settings;
  for (const batch of plans.batches(s.exploreEpisodes)) {
    if (aborted()) return null;
    const first = batch.episodes[0]!;
    let planned;
    try {
      planned = await plans.plan(batch);
    } catch (e) {
      if (!(e instanceof ModelCallError)) throw e;
      return { from: first, reason: `curriculum before exploration episode ${first} failed: ${failureReason(e)}` };
    }
    const snapshot = experience.snapshot();
    // settleAll: a spend cap stops new episodes while those already playing finish.
    const played = await settleAll(
      planned.map(async (p): Promise<Played> => {
        const done = resume.episodes.get(episodeSlot("explore", null, p.episode));
        if (done) {
          if (done.seed !== p.seed || done.config !== p.config) {
            throw new Error(`${run.runId}: exploration episode ${p.episode} is logged with seed ${done.seed} on ${done.config}, but its plan says seed ${p.seed} on ${p.config}`);
          }
          const end = done.end_observation;
          if (end === undefined) throw new Error(`${run.runId}: exploration episode ${p.episode} has no end_observation in episodes.jsonl; cannot rebuild its trajectory`);
          return { ok: true, trajectory: trajectoryFromSteps(p.episode, resume.exploreSteps.get(p.episode) ?? [], end) };
        }
        const config = p.config === "explore" ? run.configs.explore : run.variants[p.config];
        if (!config) throw new Error(`${run.runId}: exploration episode ${p.episode} was planned on '${p.config}', which is not an explore variant of ${run.game.name}`);
        // A rejudged run replays the recorded run's episode instead of playing it (recordedExploration.ts).
        let outcome;
        try {
          outcome = run.recorded
            ? await replayRecordedEpisode(run, run.recorded, p, config.rules)
            : await runEpisode(run, { phase: "explore", checkpoint: null, episode: p.episode, seed: p.seed, config, experience: snapshot });
        } catch (e) {
          // A replayed episode's external judge failed on infrastructure (a played one records it).
          if (!(e instanceof ModelCallError)) throw e;
          return { ok: false, reason: `exploration episode ${p.episode} failed: judge: ${failureReason(e)}` };
        }
        if (outcome.record.status !== "ok") return { ok: false, reason: `exploration episode ${p.episode} failed: ${outcome.record.error ?? "unknown"}` };
        return { ok: true, trajectory: trajectoryFromSteps(p.episode, outcome.steps, outcome.endObservation) };
      }),
    );
    for (const [i, p] of planned.entries()) {
      const r = played[i]!;
      if (!r.ok) return { from: p.episode, reason: r.reason };
      if (experience.consolidated() < p.episode) {
        try {
          await experience.consolidate(p.episode, r.trajectory);
        } catch (e) {
          if (!(e instanceof ModelCallError)) throw e;
          return { from: p.episode, reason: `consolidation after exploration episode ${p.episode} failed: ${failureReason(e)}` };
        }
      }
      if (p.episode % s.checkpointEvery === 0) launch(p.episode);
    }
  }
  return null;
}
