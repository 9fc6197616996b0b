/**
 * The coupling dose-response of builtin:learner (learner.md, docs/learner.md): the judge dial at
 * 0, 0.25, 0.5, 0.75, 1 -> Agree, NMAE, mean NABA per pathway (history, memory), and, pooled over
 * every run of every dial setting, the run-level r(Agree, NABA) and the blockwise rho(A, g) of the
 * coupling table. Several run seeds per setting so the trend is not one lucky draw. It prints, it
 * never asserts.
 *
 *   tsx bench/coupling.ts                                   # defaults below
 *   tsx bench/coupling.ts --games tetris,pvz --seeds 4 --explore-episodes 9 --max-steps 24
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { loadDataset } from "../src/analysis/load/dataset.js";
import { buildReport } from "../src/report/buildReport.js";
import { withExitCode } from "../src/cli/main.js";
import { runCommand } from "../src/cli/run/run.js";

const { values: v } = parseArgs({
  options: {
    games: { type: "string", default: "all" },
    seeds: { type: "string", default: "3" },
    "explore-episodes": { type: "string", default: "9" },
    "checkpoint-every": { type: "string", default: "3" },
    "eval-episodes": { type: "string", default: "3" },
    "max-steps": { type: "string", default: "16" },
  },
});
const JUDGES = [0, 0.25, 0.5, 0.75, 1];
const seeds = Number(v.seeds);
const root = mkdtempSync(join(tmpdir(), "s3coupling-"));
const started = Date.now();
const dirs: string[] = [];
const fmt = (x: number | null | undefined): string => (x === null || x === undefined || Number.isNaN(x) ? "-" : x.toFixed(3));
const mean = (xs: number[]): number | null => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : null);

console.log(`judge\tagree\tnmae\tNABA history\tNABA memory\tr(Agree,NABA) runs\trho(A,g) blocks`);
for (const judge of JUDGES) {
  const model = judge === 1 ? "builtin:learner" : `builtin:learner?judge=${judge}`;
  const dir = join(root, `judge-${judge}`);
  dirs.push(dir);
  for (let s = 0; s < seeds; s++) {
    const code = await withExitCode("run", () =>
      runCommand(
        [
          "--models",
          model,
          "--games",
          v.games!,
          "--pathways",
          "history,memory",
          "--data",
          dir,
          "--run-seed",
          String(s),
          "--explore-episodes",
          v["explore-episodes"]!,
          "--checkpoint-every",
          v["checkpoint-every"]!,
          "--eval-episodes",
          v["eval-episodes"]!,
          "--max-steps",
          v["max-steps"]!,
          "--progress",
          "off",
        ],
        { stdout: { write: () => true } as never },
      ),
    );
    if (code !== 0) throw new Error(`s3gym run exited ${code} for ${model} seed ${s}`);
  }
  const r = buildReport(await loadDataset(dir), { B: 200 });
  const sj = r.tables.self_judging.rows.find((x) => x.game === "all" && x.model === "all") ?? r.tables.self_judging.rows.find((x) => x.model === model);
  const naba = (p: string) => mean(r.tables.main_results.rows.filter((x) => x.pathway === p && x.naba.point !== null).map((x) => x.naba.point!));
  const rl = r.tables.run_level.rows[0];
  const cp = r.tables.coupling.rows.find((x) => x.game === "all");
  console.log(`${judge}\t${fmt(sj?.agree.point)}\t${fmt(sj?.nmae.point)}\t${fmt(naba("history"))}\t${fmt(naba("memory"))}\t${fmt(rl?.pearson_agree_naba.point)}\t${fmt(cp?.rho_agree.point)}`);
}
const pooled = buildReport(await loadDataset(dirs), { B: 200 });
console.log(
  `pooled over all settings: r(Agree, NABA) over ${pooled.tables.run_level.rows[0]?.n_runs ?? "?"} runs = ${fmt(pooled.tables.run_level.rows[0]?.pearson_agree_naba.point)}; ` +
    `blockwise rho(A, g) = ${fmt(pooled.tables.coupling.rows.find((x) => x.game === "all")?.rho_agree.point)}`,
);
console.log(`(${seeds} run seeds per setting, games ${v.games}; ${Math.round((Date.now() - started) / 1000)} s; data in ${root})`);
