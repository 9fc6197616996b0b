/**
 * The hybrid pathway's retrieval (docs/memory.md, "Stop terms"), on recorded hybrid runs:
 *
 *   tsx bench/hybridRetrieval.ts --runs RUN_DIR[,RUN_DIR...]
 *
 * For each run and checkpoint x >= 1 it rebuilds the state Z_x from the logs (as the replay does),
 * retrieves for every evaluation step of checkpoint x with the kit's present ranking, and prints per
 * run: the indexed steps and stop terms at the last checkpoint, the CPU milliseconds per step of the
 * retrieval (index builds included), and how many steps' logged `retrieved_steps` are the first
 * snippets of the present ranking. On runs written by this kit the share is 100% (a lower one is a
 * replay defect); on runs written before the stop terms it says how often the ranking's change moved
 * what a step saw. The steps are retrieved without their episode's earlier turns, so the budget
 * is at least the live one: the logged list must be a prefix of the one rebuilt here. It prints what
 * it measured; it asserts nothing.
 */
import { parseArgs } from "node:util";
import { TokenCounter } from "../src/models/tokenCounter.js";
import { loadRunLogs } from "../src/runner/resume/replay.js";
import { manifestProtocol, settingsFromRecord } from "../src/runner/settings/protocolRecord.js";
import { hybridOf, hybridPathway, stopTerms, type HybridState } from "../src/pathways/hybrid.js";
import type { PathwayLogs } from "../src/pathways/types.js";

const { values } = parseArgs({ options: { runs: { type: "string" } } });
if (!values.runs) throw new Error("--runs RUN_DIR[,RUN_DIR...] is required (hybrid run directories)");

console.log("| run | indexed steps (last) | stop terms (last) | eval steps | CPU ms / step | logged = present ranking |");
console.log("| :-- | --: | --: | --: | --: | --: |");
for (const dir of values.runs.split(",")) {
  const data = loadRunLogs(dir);
  if (data.manifest.pathway !== "hybrid") throw new Error(`${dir}: a ${data.manifest.pathway} run; give hybrid run directories`);
  const logs: PathwayLogs = { steps: data.steps, episodes: data.episodes, records: (file) => (data.own[file] ?? []) as never };
  const s = settingsFromRecord(manifestProtocol(data.manifest));
  const counter = new TokenCounter(s.tokenizer);
  const ctx = { settings: { contextTokens: s.contextTokens, maxNewTokens: s.maxNewTokens, tokenizer: s.tokenizer, ...hybridOf(s) }, counter };
  const checkpoints = [...new Set(data.steps.filter((r) => r.phase === "eval" && r.checkpoint !== null && r.checkpoint > 0).map((r) => r.checkpoint!))].sort((a, b) => a - b);
  let steps = 0;
  let same = 0;
  let cpu = 0;
  let last: HybridState | null = null;
  for (const c of checkpoints) {
    const state = hybridPathway.rebuild(logs, c, ctx);
    last = state;
    const evals = data.steps.filter((r) => r.phase === "eval" && r.checkpoint === c && (r.view ?? "eval") === "eval");
    const t0 = process.cpuUsage();
    const snapshot = hybridPathway.snapshot(state, ctx);
    const got = evals.map((r) => snapshot.forStep({ rules: "", turns: [], observation: r.observation, rewardVisibility: s.rewardVisibility }).fields);
    const t = process.cpuUsage(t0);
    cpu += (t.user + t.system) / 1000;
    for (let i = 0; i < evals.length; i++) {
      const logged = evals[i]!.retrieved_steps ?? [];
      const present = (got[i] as { retrieved_steps: { episode: number; step: number }[] }).retrieved_steps;
      steps++;
      if (logged.every((l, j) => present[j] !== undefined && present[j]!.episode === l.episode && present[j]!.step === l.step)) same++;
    }
  }
  const n = last?.steps.length ?? 0;
  const stop = last ? stopTerms(last.steps.map((x) => x.observation)).size : 0;
  const name = dir.split("/").filter(Boolean).pop();
  console.log(`| ${name} | ${n} | ${stop} | ${steps} | ${steps ? (cpu / steps).toFixed(3) : "-"} | ${steps ? `${same} (${((100 * same) / steps).toFixed(1)}%)` : "-"} |`);
}
