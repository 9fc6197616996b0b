/**
 * Exploration for a pathway that plans its own episodes (verified.md, "Budget and schedule"):
 *
 *   for each batch (broad: several episodes; deep: one):
 *     plan                 the pathway's curriculum picks each episode's seed and config
 *     play                 the batch's episodes concurrently, all with the experience as it was before the batch
 *     consolidate, in order   episode by episode (the verifier call), launching checkpoint x after episode x
 *
 * So checkpoint x is taken once the batch holding episode x has been played, with the memory as it
 * was right after episode x's consolidation. On resume, done episodes are not played again (their
 * steps give the trajectory) and the pathway takes logged decisions and verdicts from its files.
 * When an episode, a plan or a consolidation fails on infrastructure, exploration stops there: the
 * episodes of the batch before it are still consolidated, every checkpoint from it on fails.
 */
import { settleAll } from "../util/settleAll.js";
import type { Trajectory } from "../agent/trajectoryText.js";
import { ModelCallError } from "../models/types.js";
import { trajectoryFromSteps } from "../pathways/trajectory.js";
import type { ExperienceState } from "../pathways/types.js";
import type { RunContext } from "./context.js";
import { failureReason, runEpisode } from "./episodeRunner.js";
import { episodeSlot, type ResumeState } from "./resume.js";

type Played = { ok: true; trajectory: Trajectory } | { ok: false; reason: string };

export async function exploreInBatches(
  run: RunContext,
  resume: ResumeState,
  experience: ExperienceState,
  launch: (c: number) => void,
  aborted: () => boolean,
): Promise<{ from: number; reason: string } | null> {
  const plans = experience.exploration;
  if (!plans) throw new Error(`${run.runId}: pathway ${run.pathway} does not plan its exploration`);
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
            throw new Error(`${run.runId}: exploration episode ${p.episode} is logged with seed ${done.seed} on ${done.config}, but its curriculum decision says seed ${p.seed} on ${p.config}`);
          }
          const end = done.end_observation;
          if (end === undefined) throw new Error(`${run.runId}: exploration episode ${p.episode} has no end_observation in episodes.jsonl; cannot rebuild its trajectory`);
          return { ok: true, trajectory: trajectoryFromSteps(p.episode, resume.exploreSteps.get(p.episode) ?? [], end) };
        }
        const config = p.config === "explore" ? run.configs.explore : run.variants[p.config];
        if (!config) throw new Error(`${run.runId}: exploration episode ${p.episode} was planned on '${p.config}', which is not an explore variant of ${run.game.name}`);
        const outcome = await runEpisode(run, { phase: "explore", checkpoint: null, episode: p.episode, seed: p.seed, config, experience: snapshot });
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
