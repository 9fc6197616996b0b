/**
 * A shard's record of the whole planned matrix (docs/scale.md, "What a shard records"). A shard's
 * data directory (`--data DIR --shard i/n` writes `DIR/shard-i-of-n`) holds `plan.json`: the run
 * ids of the FULL matrix in shard order, this shard's number, where the shard came from (flag, Slurm,
 * Kubernetes) and the `s3gym run` arguments without the shard and data flags. So any one shard
 * directory tells `s3gym status` which runs every shard should hold, including shards that never
 * started, and how to resume them.
 *
 * Written by the first invocation with an exclusive create; a later one (a resume, another task of a
 * requeued array) must plan the same matrix and shard, or it is refused before anything runs: two
 * matrices in one shard directory could not be told apart by status or merged by report.
 */
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { createFileExclusive } from "../../util/atomicWrite.js";
import { ConfigError } from "../../util/errors.js";
import { formatIssues } from "../../util/zodIssues.js";
import type { MatrixEntry, Shard, ShardSource } from "../loop/schedule.js";
import type { OptionTable } from "../../util/options.js";

/** `--shard`, `--shard-count`, `--no-shard-subdir` as given (read by `s3gym run`: the shard's number may come from a scheduler's environment). */
export interface ShardFlags {
  /** `i/n`, or `auto` (the Slurm array task or the Kubernetes completion index). */
  shard: string | undefined;
  /** With `--shard auto`: the number of shards of a Kubernetes indexed Job. */
  shardCount: number | undefined;
  /** Write the shard into --data itself instead of --data/shard-i-of-n. */
  noShardSubdir: boolean;
}

/** The shard flags' option rows (`s3gym run`): their parser spec, usage and ranges. */
export const SHARD_OPTIONS: OptionTable<ShardFlags> = {
  shard: { name: "shard", kind: { type: "text", shown: "i/n|auto", parse: (v) => v }, default: undefined },
  shardCount: { name: "shard-count", kind: { type: "int", range: { min: 1, max: 100_000 } }, default: undefined, arg: "N" },
  noShardSubdir: { name: "no-shard-subdir", kind: { type: "switch", on: true }, default: false },
};

export const PLAN_FILE = "plan.json";

const PlannedRun = z.object({
  /** The run's id (its directory under runs/). */
  run_id: z.string().min(1),
  /** The model name as given (spec or models-file alias; a training run's label). */
  model: z.string().min(1),
  /** The game. */
  game: z.string().min(1),
  /** The pathway. */
  pathway: z.string().min(1),
  /** The run seed. */
  run_seed: z.number().int().nonnegative(),
  /** The 1-based shard that plays it (round-robin over the sorted matrix: schedule.ts shardMatrix). */
  shard: z.number().int().positive(),
});

export const ShardPlan = z.object({
  /** This directory's shard, 1-based as `--shard i/n`. */
  shard: z.object({ index: z.number().int().positive(), count: z.number().int().positive() }),
  /** Where the shard number came from: `flag` (--shard i/n), `slurm` or `k8s` (--shard auto). */
  source: z.enum(["flag", "slurm", "k8s"]),
  /**
   * The `s3gym run` arguments of the first invocation without --shard, --shard-count and --data: the
   * resume command's. A URL's user:password part is replaced by `REDACTED` (keys belong in env vars).
   */
  argv: z.array(z.string()),
  /** Every run of the planned matrix (all shards), sorted by run_id. */
  runs: z.array(PlannedRun),
});
export type ShardPlan = z.infer<typeof ShardPlan>;

/** The plan of shard `shard` of `matrix` (every run, each with the shard that plays it). */
export function makeShardPlan(matrix: readonly MatrixEntry[], shard: Shard, source: ShardSource | "flag", argv: readonly string[]): ShardPlan {
  const safeArgv = argv.map((a) => a.replace(/([a-z][a-z0-9+.-]*:\/\/)[^/@\s]*@/gi, "$1REDACTED@"));
  const runs = [...matrix]
    .sort((a, b) => (a.runId < b.runId ? -1 : a.runId > b.runId ? 1 : 0))
    .map((e, i) => ({ run_id: e.runId, model: e.model, game: e.game, pathway: e.pathway, run_seed: e.runSeed, shard: (i % shard.count) + 1 }));
  return { shard: { index: shard.index, count: shard.count }, source, argv: safeArgv, runs };
}

/** The plan in `dir`, or null when it has none (not a shard directory). Throws a ConfigError naming the file when it cannot be read. */
export function readShardPlan(dir: string): ShardPlan | null {
  const file = join(dir, PLAN_FILE);
  if (!existsSync(file)) return null;
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, "utf8"));
  } catch (e) {
    throw new ConfigError(`${file}: invalid JSON (${(e as Error).message}); it records the shard's planned matrix: restore it, or delete it and rerun the shard's command to record it again`);
  }
  const parsed = ShardPlan.safeParse(raw);
  if (!parsed.success) throw new ConfigError(`${file}: ${formatIssues(parsed.error)}; restore it, or delete it and rerun the shard's command to record it again`);
  return parsed.data;
}

/** How two plans' matrices differ ("" when they agree): the first run id one has and the other lacks, or the count. */
export function matrixDiff(a: ShardPlan, b: ShardPlan): string {
  if (a.shard.count !== b.shard.count) return `${a.shard.count} shards vs ${b.shard.count}`;
  const idsA = new Set(a.runs.map((r) => r.run_id));
  const idsB = new Set(b.runs.map((r) => r.run_id));
  const onlyA = [...idsA].find((id) => !idsB.has(id));
  const onlyB = [...idsB].find((id) => !idsA.has(id));
  if (onlyA !== undefined) return `run ${onlyA} is planned by one and not the other`;
  if (onlyB !== undefined) return `run ${onlyB} is planned by one and not the other`;
  return "";
}

/**
 * Records `plan` in `dir` (exclusive create), or checks that the plan already there is the same
 * matrix and shard; a different one is a ConfigError naming the directory and the difference.
 */
export function recordShardPlan(dir: string, plan: ShardPlan): void {
  mkdirSync(dir, { recursive: true });
  if (createFileExclusive(join(dir, PLAN_FILE), planContent(plan))) return;
  checkShardPlan(dir, plan);
}

function planContent(plan: ShardPlan): string {
  return `${JSON.stringify({ ...plan, note: "the planned matrix of every shard; written by the shard's first s3gym run (docs/scale.md)" }, null, 2)}\n`;
}

/** What `recordShardPlan` would refuse, checked without writing anything: another plan already recorded in `dir`. */
export function checkShardPlan(dir: string, plan: ShardPlan): void {
  const theirs = readShardPlan(dir);
  if (theirs === null) return;
  const diff = theirs.shard.index !== plan.shard.index ? `it is shard ${theirs.shard.index}/${theirs.shard.count}, this is ${plan.shard.index}/${plan.shard.count}` : matrixDiff(theirs, plan);
  if (diff !== "") {
    throw new ConfigError(`--data ${dir} already holds another plan (${diff}): a shard directory holds one shard of one matrix; use another --data directory, or rerun with the original flags`);
  }
}
