/**
 * The `history` pathway (History ICL): the state is the blocks of the consolidated exploration
 * episodes, oldest first; every step's prompt carries them fitted to its budget (history.ts holds
 * the budget and truncation rule, shared with the memory pathway's summary prompt).
 */
import { historyContext, makeHistoryBlock, type HistoryBlock } from "./history.js";
import { trajectoryFromSteps } from "./trajectory.js";
import { definePathway, type PathwayLogs } from "./types.js";

/**
 * Blocks built from the logs, per loaded run: rebuilding every step of a long run (BuildSFT) stays
 * linear instead of re-tokenising every earlier episode at every step. Same blocks as built afresh.
 */
const rebuiltBlocks = new WeakMap<PathwayLogs, Map<number, HistoryBlock>>();

/** History ICL: the state is the blocks of the consolidated exploration episodes, oldest first. */
export const historyPathway = definePathway<readonly HistoryBlock[]>({
  name: "history",
  judged: true,
  protocolLoop: true,
  inDefaultMatrix: true,
  files: [],
  create: () => [],
  consolidated: (blocks) => blocks.length,
  async consolidate(host, blocks, x, trajectory) {
    if (x !== blocks.length + 1) throw new Error(`history: consolidating episode ${x} after ${blocks.length}`);
    return [...blocks, makeHistoryBlock(trajectory, host.counter)];
  },
  snapshot(blocks, ctx) {
    return {
      forStep(view) {
        const c = historyContext(blocks, ctx.settings, view, ctx.counter);
        return { text: c.text, fields: { history_keep: c.keep } };
      },
    };
  },
  rebuild(logs, k, ctx) {
    let memo = rebuiltBlocks.get(logs);
    if (!memo) rebuiltBlocks.set(logs, (memo = new Map()));
    const blocks: HistoryBlock[] = [];
    for (let x = 1; x <= k; x++) {
      let block = memo.get(x);
      if (!block) {
        const rec = logs.episodes.find((e) => e.phase === "explore" && e.episode === x && e.status === "ok");
        if (!rec) throw new Error(`exploration episode ${x} is not in episodes.jsonl`);
        const steps = logs.steps.filter((s) => s.phase === "explore" && s.episode === x);
        block = makeHistoryBlock(trajectoryFromSteps(x, steps, String(rec.end_observation)), ctx.counter);
        memo.set(x, block);
      }
      blocks.push(block);
    }
    return blocks;
  },
});
