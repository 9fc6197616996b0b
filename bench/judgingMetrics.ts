/**
 * What balanced accuracy and AUROC add to self_judging: builds the table on a paper-scale synthetic
 * data set (7 models x 7 games x 2 pathways, 30 exploration episodes per run) with B = 2000, once as
 * it is and once with every reward counted as 0 (no row then has the 10 rewarded steps the two
 * measures need, so none runs their pass: the table itself has no switch), and prints both times, wall
 * and CPU. It prints, it never asserts.
 *
 *   tsx bench/judgingMetrics.ts [--B 2000] [--reps 2]
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadDataset } from "../src/analysis/load/dataset.js";
import { judgingInputs, selfJudgingTable, type JudgingInputs } from "../src/analysis/tables/judgingTables.js";
import { writeSyntheticData } from "../src/logs/synthetic.js";
import { SYNTHETIC_GAMES, SYNTHETIC_MODELS } from "../src/logs/syntheticRuns.js";

function arg(name: string, dflt: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : dflt;
}

/** The same inputs with every reward set to 0: no row has 10 r > 0 steps, so none runs the rank pass. */
function withoutPositives(inputs: JudgingInputs): JudgingInputs {
  return {
    ranges: inputs.ranges,
    runs: inputs.runs.map((jr) => {
      const episodes = new Map([...jr.episodes].map(([e, c]) => [e, { ...c, posR: 0, under: 0 }]));
      return { ...jr, episodes, total: { ...jr.total, posR: 0, under: 0 } };
    }),
  };
}

async function main(): Promise<void> {
  const B = arg("B", 2000);
  const reps = arg("reps", 2);
  const root = mkdtempSync(join(tmpdir(), "s3gym-bench-judging-"));
  try {
    const dataDir = join(root, "data");
    const gen = await writeSyntheticData(dataDir, { seed: 0, models: SYNTHETIC_MODELS, games: SYNTHETIC_GAMES, pathways: ["history", "memory"], runSeeds: 1 });
    const ds = await loadDataset(dataDir);
    const inputs = judgingInputs(ds);
    const stripped = withoutPositives(inputs);
    process.stdout.write(`data: ${gen.runs} runs, ${gen.steps} steps; B = ${B}\n`);
    // CPU seconds beside wall: on a shared machine the wall time says more about the neighbours.
    const time = (ji: JudgingInputs): { s: number; cpu: number; estimable: number; rows: number } => {
      const t0 = performance.now();
      const c0 = process.cpuUsage();
      const t = selfJudgingTable(ji, { B, seed: 0 });
      const c = process.cpuUsage(c0);
      return { s: (performance.now() - t0) / 1000, cpu: (c.user + c.system) / 1e6, estimable: t.rows.filter((r) => r.auroc.point !== null).length, rows: t.rows.length };
    };
    for (let i = 0; i < reps; i++) {
      const full = time(inputs);
      const base = time(stripped);
      process.stdout.write(
        `rep ${i + 1}: self_judging ${full.s.toFixed(2)} s wall (${full.cpu.toFixed(2)} s CPU) with balanced accuracy + AUROC on ${full.estimable}/${full.rows} rows; ${base.s.toFixed(2)} s wall (${base.cpu.toFixed(2)} s CPU) with none estimable (added: ${(full.s - base.s).toFixed(2)} s wall, ${(full.cpu - base.cpu).toFixed(2)} s CPU)\n`,
      );
    }
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

await main();
