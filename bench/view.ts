/**
 * Viewer benchmark: generates the paper-scale synthetic data set (7 models x 7 games x 2 pathways =
 * 98 runs, ~116k steps) and one ten times larger (10 replicate run seeds per cell: 980 runs, ~1.2M
 * steps), builds the viewer site of each in a fresh child process, and prints the build time, the
 * peak memory and the number of files written (three per run: bounded by runs, not episodes). It prints, it never asserts: the point is that time grows linearly with the data and
 * memory stays flat (the site is written one run at a time; only the analysis' compact columns, ~24
 * bytes per judged step, are held for the whole data set, as in `report`).
 *
 *   npm run bench:view                          # scales 1 and 10, B = 2000
 *   npm run bench:view -- --scales 1 --B 200 --keep
 *
 * Synthetic manifests carry no protocol block, so this measures everything but the prompt rebuild
 * (whose cost is the runner's replay, per step of runs written by `s3gym run`). `--data DIR` measures
 * an existing data directory instead (logs written by `s3gym run` or `s3gym reproduce`, prompts
 * rebuilt), once:
 *
 *   npm run bench:view -- --data data --B 2000
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { writeSyntheticData } from "../src/logs/synthetic.js";
import { SYNTHETIC_GAMES, SYNTHETIC_MODELS } from "../src/logs/syntheticRuns.js";
import { buildViewer } from "../src/report/viewer/build.js";
import { MB, parseScaledBenchArgs, runChild } from "./scaledBench.js";

interface ChildResult {
  build_s: number;
  /** User + system CPU seconds of the build (what a loaded machine does not inflate). */
  cpu_s: number;
  peak_rss_mb: number;
  runs: number;
  episodes: number;
  steps: number;
  chunks: number;
  site_mb: number;
}

function cpuSeconds(c: NodeJS.CpuUsage): number {
  return (c.user + c.system) / 1e6;
}

async function child(dataDir: string, outDir: string, B: number): Promise<void> {
  const t0 = performance.now();
  const c0 = process.cpuUsage();
  const s = await buildViewer({ dataDirs: [dataDir], outDir, B, seed: 0 });
  const res: ChildResult = {
    build_s: (performance.now() - t0) / 1000,
    cpu_s: cpuSeconds(process.cpuUsage(c0)),
    // resourceUsage().maxRSS is in kilobytes on Linux and macOS.
    peak_rss_mb: process.resourceUsage().maxRSS / 1024,
    runs: s.runs,
    episodes: s.episodes,
    steps: s.steps,
    chunks: s.chunks,
    site_mb: s.bytes / MB,
  };
  process.stdout.write(JSON.stringify(res) + "\n");
}

async function main(): Promise<void> {
  const { scales, B, keep, child: childArgs, data } = parseScaledBenchArgs();
  if (childArgs) {
    await child(childArgs[0], childArgs[1], B);
    return;
  }
  if (data !== null) {
    const root = mkdtempSync(join(tmpdir(), "s3gym-bench-view-data-"));
    const r = runChild<ChildResult>(fileURLToPath(import.meta.url), B, data, join(root, "site"), `view of ${data}`);
    process.stdout.write(
      `${data}: ${r.runs} runs, ${r.episodes} episodes, ${r.steps} steps -> ${r.chunks} files, ${r.site_mb.toFixed(0)} MB; ` +
        `build ${r.build_s.toFixed(1)} s wall, ${r.cpu_s.toFixed(1)} CPU-s, peak RSS ${r.peak_rss_mb.toFixed(0)} MB (B = ${B})\n`,
    );
    if (keep) process.stdout.write(`kept ${root}\n`);
    else rmSync(root, { recursive: true, force: true });
    return;
  }
  const rows: string[] = [];
  for (const scale of scales) {
    const root = mkdtempSync(join(tmpdir(), `s3gym-bench-view-x${scale}-`));
    const dataDir = join(root, "data");
    const outDir = join(root, "site");
    const g0 = performance.now();
    const gen = await writeSyntheticData(dataDir, { seed: 0, models: SYNTHETIC_MODELS, games: SYNTHETIC_GAMES, pathways: ["history", "memory"], runSeeds: scale });
    process.stdout.write(`x${scale}: generated ${gen.runs} runs, ${gen.steps} steps, ${(gen.bytes / MB).toFixed(0)} MB in ${((performance.now() - g0) / 1000).toFixed(1)} s\n`);
    const r = runChild<ChildResult>(fileURLToPath(import.meta.url), B, dataDir, outDir, `view at scale ${scale}`);
    rows.push(
      `| x${scale} | ${r.runs} | ${r.episodes} | ${r.steps} | ${(gen.bytes / MB).toFixed(0)} | ${r.chunks} | ${r.site_mb.toFixed(0)} | ${r.build_s.toFixed(1)} | ${r.cpu_s.toFixed(1)} | ${((r.build_s * 1e6) / r.steps).toFixed(1)} | ${r.peak_rss_mb.toFixed(0)} |`,
    );
    process.stdout.write(`x${scale}: site built in ${r.build_s.toFixed(1)} s, peak RSS ${r.peak_rss_mb.toFixed(0)} MB, ${r.chunks} data files (three per run, plus the overview)\n`);
    if (keep) process.stdout.write(`x${scale}: kept ${root}\n`);
    else rmSync(root, { recursive: true, force: true });
  }
  process.stdout.write(
    [
      "",
      `s3gym view build with B = ${B} (load + curve bootstrap as report, then every run's chunks written)`,
      "| scale | runs | episodes | steps | data MB | files | site MB | build s | CPU-s | µs per step | peak RSS MB |",
      "| --- | --: | --: | --: | --: | --: | --: | --: | --: | --: | --: |",
      ...rows,
      "",
    ].join("\n"),
  );
}

await main();
