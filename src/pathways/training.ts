/**
 * The `training` pathway (protocol.md, "Training runs"): no experience at all. Its runs are not played
 * by the protocol loop: `s3gym run --pathways training` evaluates a list of model checkpoints
 * (checkpoint = epoch, runner/loop/evalList.ts), and train-loop's rounds explore with the current checkpoint
 * (training/explore.ts). Nothing is consolidated, so its exploration episodes are independent and
 * planned as one batch played concurrently: episode x plays exploration seed x on `explore`.
 */
import { nonePathway } from "./none.js";
import { definePathway, type ExplorationBatch } from "./types.js";

/** Every exploration episode in one batch (none when there are none). */
function oneBatch(exploreEpisodes: number): ExplorationBatch[] {
  if (exploreEpisodes === 0) return [];
  return [{ index: 1, phase: "broad", episodes: Array.from({ length: exploreEpisodes }, (_, i) => i + 1) }];
}

/** `none`'s experience (none, ever), played outside the protocol loop, its exploration in one batch. */
export const trainingPathway = definePathway<{ consolidated: number }>({
  ...nonePathway,
  name: "training",
  protocolLoop: false,
  inDefaultMatrix: false,
  exploration: {
    batches: oneBatch,
    async plan(host, state, batch) {
      const seeds = host.exploration?.seeds;
      if (!seeds) throw new Error("training: the run offers no exploration host (its seeds)");
      return { state, episodes: batch.episodes.map((x) => ({ episode: x, seed: seeds[x - 1]!, config: "explore" })) };
    },
  },
});
