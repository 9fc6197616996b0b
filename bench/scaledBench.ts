/**
 * The scaffold shared by the benches that time one step of the kit on synthetic data of several sizes
 * (bench/analysis.ts, bench/view.ts): the same flags, and the measured step run in a fresh child
 * process so that its peak RSS is its own, not the generator's.
 */
import { spawnSync } from "node:child_process";
import { parseArgs } from "node:util";

export const MB = 1024 * 1024;

export interface ScaledBenchArgs {
  scales: number[];
  B: number;
  keep: boolean;
  /** Set in the child: [dataDir, outDir] from the end of the command line. */
  child: [string, string] | null;
  /** `--data DIR`: an existing data directory to measure (null: synthetic data at each scale). */
  data: string | null;
}

/** `--scales 1,10 --B 2000 [--keep]`; `--child` (with dataDir outDir last) marks the measured process. */
export function parseScaledBenchArgs(): ScaledBenchArgs {
  const { values } = parseArgs({
    options: {
      scales: { type: "string", default: "1,10" },
      B: { type: "string", default: "2000" },
      keep: { type: "boolean", default: false },
      child: { type: "boolean", default: false },
      /** An existing data directory to measure instead of synthetic data (benches that support it). */
      data: { type: "string" },
    },
    allowPositionals: true,
    strict: true,
  });
  const scales = (values.scales ?? "1,10").split(",").map(Number);
  const B = Number(values.B);
  if (scales.some((s) => !Number.isInteger(s) || s < 1)) throw new Error(`--scales: positive integers separated by commas, got ${values.scales}`);
  if (!Number.isInteger(B) || B < 0) throw new Error(`--B: a non-negative integer, got ${values.B}`);
  return {
    scales,
    B,
    keep: values.keep ?? false,
    child: values.child ? (process.argv.slice(-2) as [string, string]) : null,
    data: values.data ?? null,
  };
}

/** Runs `script --child --B B dataDir outDir` in a fresh Node and returns the JSON line it printed last. */
export function runChild<T>(script: string, B: number, dataDir: string, outDir: string, what: string, nodeFlags: string[] = []): T {
  const proc = spawnSync(process.execPath, [...nodeFlags, "--import", "tsx", script, "--child", "--B", String(B), dataDir, outDir], {
    encoding: "utf8",
    maxBuffer: 64 * MB,
  });
  if (proc.status !== 0) {
    process.stderr.write(proc.stderr);
    throw new Error(`${what} child failed (exit ${proc.status})`);
  }
  return JSON.parse(proc.stdout.trim().split("\n").pop() ?? "{}") as T;
}
