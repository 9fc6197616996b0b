/**
 * Analysis benchmark: generates a paper-scale synthetic data set (7 models x 7 games x 2 pathways = 98
 * runs, ~116k steps, plus 20 training checkpoints x 7 games), runs the report with B = 2000 in a fresh
 * child process, and prints wall time and peak memory; then the same for a data set ten times larger
 * (10 replicate run seeds per cell, 10 trained models). It prints, it never asserts: the point is to
 * see that memory stays roughly flat (the loader streams and keeps ~24 bytes per judged step).
 *
 *   tsx bench/analysis.ts                 # scales 1 and 10, B = 2000
 *   tsx bench/analysis.ts --scales 1 --B 500 --keep
 *
 * The report runs in a child (`node --import tsx bench/analysis.ts --child ...`) so its peak RSS is
 * its own, not the generator's.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { loadDataset } from "../src/analysis/load/dataset.js";
import { buildReport } from "../src/report/buildReport.js";
import { writeSyntheticData } from "../src/logs/synthetic.js";
import { SYNTHETIC_GAMES, SYNTHETIC_MODELS } from "../src/logs/syntheticRuns.js";
import { writeReport } from "../src/cli/report/report.js";
import { MB, parseScaledBenchArgs, runChild } from "./scaledBench.js";

interface ChildResult {
  load_s: number;
  tables_s: number;
  write_s: number;
  total_s: number;
  peak_rss_mb: number;
  heap_after_load_mb: number;
  runs: number;
  steps: number;
}

/** The child: load, build, write; report timings and memory as one JSON line. */
async function child(dataDir: string, outDir: string, B: number): Promise<void> {
  const gc = (globalThis as { gc?: () => void }).gc;
  const t0 = performance.now();
  const ds = await loadDataset(dataDir);
  const t1 = performance.now();
  gc?.();
  // The compact columns are typed arrays, whose buffers live outside the JS heap: count both.
  const mu = process.memoryUsage();
  const heapAfterLoad = (mu.heapUsed + mu.arrayBuffers) / MB;
  const report = buildReport(ds, { B, seed: 0 });
  const t2 = performance.now();
  await writeReport(report, outDir, [dataDir]);
  const t3 = performance.now();
  const res: ChildResult = {
    load_s: (t1 - t0) / 1000,
    tables_s: (t2 - t1) / 1000,
    write_s: (t3 - t2) / 1000,
    total_s: (t3 - t0) / 1000,
    // resourceUsage().maxRSS is in kilobytes on Linux and macOS.
    peak_rss_mb: process.resourceUsage().maxRSS / 1024,
    heap_after_load_mb: heapAfterLoad,
    runs: report.counts.runs,
    steps: report.counts.steps,
  };
  process.stdout.write(JSON.stringify(res) + "\n");
}

async function main(): Promise<void> {
  const { scales, B, keep, child: childArgs } = parseScaledBenchArgs();
  if (childArgs) {
    await child(childArgs[0], childArgs[1], B);
    return;
  }
  const rows: string[] = [];
  for (const scale of scales) {
    const root = mkdtempSync(join(tmpdir(), `s3gym-bench-x${scale}-`));
    const dataDir = join(root, "data");
    const outDir = join(root, "out");
    const g0 = performance.now();
    const gen = await writeSyntheticData(dataDir, {
      seed: 0,
      models: SYNTHETIC_MODELS,
      games: SYNTHETIC_GAMES,
      pathways: ["history", "memory"],
      runSeeds: scale,
      training: { models: scale === 1 ? ["trained"] : Array.from({ length: scale }, (_, i) => `trained-${i}`), epochs: 20 },
    });
    const genS = (performance.now() - g0) / 1000;
    process.stdout.write(`x${scale}: generated ${gen.runs} runs (${gen.trainingRuns} training), ${gen.steps} steps, ${(gen.bytes / MB).toFixed(0)} MB in ${genS.toFixed(1)} s\n`);
    const w0 = performance.now();
    const res = runChild<ChildResult>(fileURLToPath(import.meta.url), B, dataDir, outDir, `report at scale ${scale}`, ["--expose-gc"]);
    const wall = (performance.now() - w0) / 1000;
    rows.push(
      `| x${scale} | ${res.runs} | ${res.steps} | ${(gen.bytes / MB).toFixed(0)} | ${res.load_s.toFixed(1)} | ${res.tables_s.toFixed(1)} | ${res.write_s.toFixed(1)} | ${wall.toFixed(1)} | ${res.peak_rss_mb.toFixed(0)} | ${res.heap_after_load_mb.toFixed(0)} |`,
    );
    process.stdout.write(`x${scale}: report in ${wall.toFixed(1)} s wall, peak RSS ${res.peak_rss_mb.toFixed(0)} MB\n`);
    if (keep) process.stdout.write(`x${scale}: kept ${root}\n`);
    else rmSync(root, { recursive: true, force: true });
  }
  process.stdout.write(
    [
      "",
      `report with B = ${B} (load = stream + validate every line; tables = every metric and bootstrap; write = CSV/MD + SVG/PNG figures)`,
      "| scale | runs | steps | data MB | load s | tables s | write s | wall s (process) | peak RSS MB | retained after load MB (heap + buffers) |",
      "| --- | --: | --: | --: | --: | --: | --: | --: | --: | --: |",
      ...rows,
      "",
    ].join("\n"),
  );
}

await main();
