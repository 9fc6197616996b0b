/**
 * ETA error on a recorded run (issue 26, item 6; docs/endpoints.md "Progress"): replays a run's
 * episodes.jsonl in the order the episodes ended, on a clock set to each end, into the progress
 * state, and compares every ETA shown with the time that really remained (the run's last episode
 * end minus now). Prints, for the old pace rule (episodes left x mean time per episode) and the
 * critical-path rule (progress.ts), the median and worst ratio shown/true (or true/shown, whichever
 * is above 1).
 *
 *   npx tsx bench/etaError.ts <run directory> [<run directory> ...]
 */
import { readRunFile } from "../src/logs/reader.js";
import { runFile } from "../src/logs/runDir.js";
import { EpisodeRecord } from "../src/logs/schema.js";
import { ProgressState } from "../src/runner/monitor/progress.js";

function errors(episodes: EpisodeRecord[], withChain: boolean): number[] {
  const start = Math.min(...episodes.map((e) => Date.parse(e.started_at)));
  const ends = episodes.map((e) => Date.parse(e.ended_at)).sort((a, b) => a - b);
  const last = ends.at(-1)!;
  let now = start;
  const st = new ProgressState(() => now);
  const explore = episodes.filter((e) => e.phase === "explore").length;
  st.runStarted("r", { totalEpisodes: episodes.length, doneEpisodes: 0, label: "r", ...(withChain ? { exploreLeft: explore } : {}) });
  const out: number[] = [];
  for (const e of [...episodes].sort((a, b) => Date.parse(a.ended_at) - Date.parse(b.ended_at))) {
    now = Date.parse(e.ended_at);
    st.episodeDone("r", e);
    const shown = st.etaMs(st.runs.get("r")!);
    const truth = last - now;
    // Only where the truth is measurable (at least 1% of the run left).
    if (shown === null || truth < (last - start) / 100) continue;
    const ratio = Math.max(shown, 1) / Math.max(truth, 1);
    out.push(ratio >= 1 ? ratio : 1 / ratio);
  }
  return out.sort((a, b) => a - b);
}

const fmt = (xs: number[]) => (xs.length === 0 ? "-" : `median ${xs[Math.floor(xs.length / 2)]!.toFixed(2)}x, worst ${xs.at(-1)!.toFixed(2)}x (${xs.length} readings)`);

for (const dir of process.argv.slice(2)) {
  const episodes = readRunFile(runFile(dir, "episodes"), EpisodeRecord).lines.map((l) => l.value);
  console.log(`${dir}: ${episodes.length} episodes`);
  console.log(`  pace rule (before):          ${fmt(errors(episodes, false))}`);
  console.log(`  critical-path rule (now):    ${fmt(errors(episodes, true))}`);
}
