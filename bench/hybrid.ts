/**
 * The hybrid pathway against Summary Memory (docs/memory.md), per game and model, from data
 * directories that hold both pathways' runs (run seeds pooled, each run a cluster):
 *
 *   tsx bench/hybrid.ts --data DIR[,DIR...] [--against memory] [--B 2000] [--seed 0]
 *
 * The gain is the report's gain_vs_none with `memory` as the control: the mean over checkpoints
 * x >= 3 and paired evaluation seeds of y_hybrid - y_memory, with the report's interval and exact
 * sign-flip p (analysis/tables/gainTables.ts). It prints what it measured; it asserts nothing.
 */
import { parseArgs } from "node:util";
import { loadDataset } from "../src/analysis/load/dataset.js";
import { rowGainVsNone } from "../src/analysis/tables/gainTables.js";
import { seedCurve, type SeedCurve } from "../src/analysis/stats/seedCurves.js";

const { values } = parseArgs({ options: { data: { type: "string" }, against: { type: "string", default: "memory" }, B: { type: "string", default: "2000" }, seed: { type: "string", default: "0" } } });
if (!values.data) throw new Error("--data DIR[,DIR...] is required");
const ds = await loadDataset(values.data.split(","));
const curves = new Map<string, SeedCurve[]>();
for (const run of ds.runs) {
  const key = `${run.game}\u0000${run.model}\u0000${run.pathway}`;
  curves.set(key, [...(curves.get(key) ?? []), seedCurve(run)]);
}
const cfg = { B: Number(values.B), seed: Number(values.seed) };
const fmt = (x: number | null | undefined): string => (x === null || x === undefined ? "-" : x.toFixed(3));
console.log(`| game | model | runs | hybrid - ${values.against} | p |`);
console.log("| :-- | :-- | --: | --: | --: |");
for (const key of [...curves.keys()].sort()) {
  const [game, model, pathway] = key.split("\u0000") as [string, string, string];
  if (pathway !== "hybrid") continue;
  const control = curves.get(`${game}\u0000${model}\u0000${values.against}`);
  if (!control) continue;
  const hybrid = curves.get(key)!;
  const g = rowGainVsNone(hybrid, control, cfg, [game, model, "hybrid"]);
  const e = g.estimate;
  console.log(`| ${game} | ${model} | ${hybrid.length} | ${fmt(e.point)} [${fmt(e.lo)}, ${fmt(e.hi)}] | ${g.p === null ? "-" : g.p.toFixed(4)} |`);
}
