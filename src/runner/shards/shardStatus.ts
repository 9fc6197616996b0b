/**
 * `s3gym status`: every planned run's state per shard, from the shards' plan.json (shardPlan.ts) and
 * each run's manifest and lock (docs/scale.md, "Status"). A shard directory that was never written
 * (its task never started) still has its runs listed, from any other shard's plan.
 *
 * A run's state:
 * - `done`: its manifest says complete;
 * - `failed`: some checkpoint failed (or the run stopped on an error); rerunning replays what failed;
 * - `degenerate`: stopped for too many unusable replies (endpoints.md); a rerun plays it again as is;
 * - `partial`: started and not ended: stopped by a spend cap, or killed (its manifest still says
 *   running and no live process holds its lock on this machine), or no manifest beside its logs;
 * - `running`: a live process on this machine holds its lock (another machine's process cannot be
 *   seen from here: its run reads `partial` until it ends);
 * - `not started`: no run directory.
 */
import { existsSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { readRegularText } from "../../util/regularFile.js";
import { lockPath, manifestPath, runDir, runFile, shardDirName, shardDirsUnder } from "../../logs/runDir.js";
import { ConfigError } from "../../util/errors.js";
import { pidIsAlive } from "../../util/pid.js";
import type { Option } from "../../util/options.js";
import { matrixDiff, readShardPlan, type ShardPlan } from "./shardPlan.js";
import { checkShardSet, runIdsIn } from "./shardSet.js";
import { episodeProgress, recordedCommand, resumeLine, type EpisodeProgress } from "../monitor/runProgress.js";

export const RUN_STATES = ["done", "running", "partial", "failed", "degenerate", "not started"] as const;
export type RunState = (typeof RUN_STATES)[number];

export interface RunStatus {
  runId: string;
  model: string;
  game: string;
  pathway: string;
  state: RunState;
  /** Why, where it is not plain (the degenerate verdict, "killed mid-run", "stopped by the spend cap"). */
  detail: string | null;
  /** Episodes logged whole and planned (runProgress.ts); absent for a run not started. */
  progress?: EpisodeProgress;
}

export interface ShardStatus {
  /** The shard; null for a data directory that is not a shard (no plan.json). */
  shard: { index: number; count: number } | null;
  /** The shard's data directory (absolute), present or not. */
  dir: string;
  /** Whether the directory holds this shard's plan (its first invocation started). */
  started: boolean;
  runs: RunStatus[];
  /** The `s3gym run` arguments that resume it (without the program name); null when nothing is left or not known. */
  resume: string[] | null;
  /**
   * A plain data directory's resume commands, as its unfinished runs' manifests recorded them (one
   * per distinct command, `cd <folder> && s3gym run ...`); empty when none is left or none recorded.
   */
  resumeCommands?: string[];
}

/** The state of run `runId` in `dataDir`, with its episodes done / planned once it has a directory. */
export function runState(dataDir: string, runId: string): { state: RunState; detail: string | null; progress?: EpisodeProgress } {
  const s = runStateOnly(dataDir, runId);
  return s.state === "not started" ? s : { ...s, progress: episodeProgress(runDir(dataDir, runId)) };
}

function runStateOnly(dataDir: string, runId: string): { state: RunState; detail: string | null } {
  const dir = runDir(dataDir, runId);
  if (!existsSync(dir)) return { state: "not started", detail: null };
  const manifest = readManifestHead(dir);
  if (manifest === null) {
    return existsSync(runFile(dir, "steps")) ? { state: "partial", detail: "no readable manifest.json beside its logs" } : { state: "not started", detail: null };
  }
  switch (manifest.status) {
    case "complete":
      return { state: "done", detail: null };
    case "failed":
      return { state: "failed", detail: "some checkpoint failed" };
    case "error":
      return { state: "failed", detail: "the run stopped on an error (see its manifest and the run's output)" };
    case "degenerate":
      return { state: "degenerate", detail: typeof manifest.degenerate_reason === "string" ? manifest.degenerate_reason : "too many unusable replies" };
    case "partial":
      return { state: "partial", detail: "stopped by the spend cap" };
    case "running": {
      const pid = lockOwner(dir);
      if (pid !== null && pidIsAlive(pid)) return { state: "running", detail: `process ${pid} on this machine` };
      return { state: "partial", detail: "killed mid-run: its manifest says running and no process on this machine holds its lock (a process on another machine cannot be seen from here)" };
    }
    default:
      return { state: "partial", detail: `manifest status '${manifest.status}'` };
  }
}

/** A manifest's status (and degenerate verdict), or null when it is missing or unreadable. */
function readManifestHead(dir: string): { status: string; degenerate_reason?: unknown } | null {
  try {
    const m = JSON.parse(readRegularText(manifestPath(dir))) as { status?: unknown; degenerate_reason?: unknown } | null;
    return m !== null && typeof m === "object" && typeof m.status === "string" ? (m as { status: string }) : null;
  } catch {
    return null;
  }
}

function lockOwner(dir: string): number | null {
  try {
    const pid = Number(readRegularText(lockPath(dir)).trim());
    return Number.isInteger(pid) && pid > 0 ? pid : null;
  } catch {
    return null;
  }
}

/** The --data directories given, with a parent of shard directories replaced by those shards. */
export function expandShardDirs(dataDirs: readonly string[]): string[] {
  const out: string[] = [];
  for (const given of dataDirs) {
    const d = resolve(given);
    const under = !existsSync(join(d, "plan.json")) && !existsSync(join(d, "runs")) ? shardDirsUnder(d) : [];
    out.push(...(under.length > 0 ? under : [d]));
  }
  return [...new Set(out)];
}

/**
 * The status of every shard of every plan among `dataDirs` (shard directories, or parents of them),
 * plus plain data directories' runs as found. The shards of one plan are looked for beside the given
 * ones (`<parent>/shard-k-of-n`). Throws a ConfigError when the shards cannot be one data set
 * (shardSet.ts) or a directory is missing.
 */
/**
 * The folders whose status is read (`s3gym status --data`, repeated): the command takes each value
 * whole (a comma is part of a folder's name here, not a list) and drops blank ones.
 */
export const STATUS_DATA_OPTION: Option<string> = {
  name: "data",
  kind: { type: "text", shown: "DIR", parse: (v: string) => v },
  default: undefined,
  multiple: true,
  help: "a shard directory (DIR/shard-i-of-n, written by s3gym run --shard), the directory that holds them,\n  or a plain data directory (required; repeat it for several)",
};

export function shardStatus(dataDirs: readonly string[]): ShardStatus[] {
  const dirs = expandShardDirs(dataDirs);
  for (const d of dirs) {
    if (!existsSync(d)) throw new ConfigError(`--data ${d}: not found (give a shard directory, e.g. DIR/shard-1-of-4, or the DIR that holds them)`);
  }
  // One group per plan (the parent directory and the shard count); every shard of it, given or not.
  const groups = new Map<string, { parent: string; plan: ShardPlan; given: Map<number, string> }>();
  const plain: string[] = [];
  for (const d of dirs) {
    const plan = readShardPlan(d);
    if (plan === null) {
      plain.push(d);
      continue;
    }
    const parent = dirname(d);
    const key = `${parent}\0${plan.shard.count}`;
    const g = groups.get(key) ?? { parent, plan, given: new Map() };
    const diff = matrixDiff(g.plan, plan);
    if (diff !== "") throw new ConfigError(`shards ${join(parent, shardDirName(g.plan.shard))} and ${d} record different matrices (${diff}): they are not shards of one plan`);
    g.given.set(plan.shard.index, d);
    groups.set(key, g);
  }
  const out: ShardStatus[] = [];
  const all: string[] = [...plain];
  for (const g of groups.values()) {
    for (let k = 1; k <= g.plan.shard.count; k++) {
      const dir = g.given.get(k) ?? join(g.parent, shardDirName({ index: k, count: g.plan.shard.count }));
      const own = existsSync(dir) ? readShardPlan(dir) : null;
      if (own !== null) {
        const diff = own.shard.index !== k ? `it says shard ${own.shard.index}` : matrixDiff(g.plan, own);
        if (diff !== "") throw new ConfigError(`${dir}: its plan.json is not shard ${k} of the plan the other shards record (${diff})`);
        all.push(dir);
      }
      const runs = g.plan.runs.filter((r) => r.shard === k).map((r) => ({ runId: r.run_id, model: r.model, game: r.game, pathway: r.pathway, ...runState(dir, r.run_id) }));
      const left = runs.some((r) => r.state !== "done" && r.state !== "running");
      const argv = (own ?? g.plan).argv;
      out.push({
        shard: { index: k, count: g.plan.shard.count },
        dir,
        started: own !== null,
        runs,
        resume: left ? ["run", ...argv, "--shard", `${k}/${g.plan.shard.count}`, "--data", g.parent] : null,
      });
    }
  }
  checkShardSet(all);
  for (const d of plain) {
    const runs = runIdsIn(d).map((id) => ({ runId: id, model: "", game: "", pathway: "", ...runState(d, id) }));
    // Each unfinished run's own recorded command, once per distinct command.
    const commands = runs.filter((r) => r.state !== "done" && r.state !== "running").map((r) => recordedCommand(runDir(d, r.runId)));
    const resumeCommands = [...new Set(commands.flatMap((c) => (c === null ? [] : [resumeLine(c)])))];
    out.push({ shard: null, dir: d, started: true, runs, resume: null, resumeCommands });
  }
  return out;
}
