/**
 * Reading several shard directories at once (report, sql, view, notebooks through loadDataset; and
 * status): shards recorded as one plan must be one data set. Refused, naming the directories:
 * - two shards of different protocols (their `protocol.json`, dataDirProtocol.ts): report would put
 *   curves of two schedules side by side;
 * - two shards of different games' rules versions (their runs' manifests): one seed, two boards;
 * - one run in two shards: a shard plays a disjoint part of the matrix, so a run in two of them is
 *   a shard run twice (or a copy), and which copy counts would be a guess.
 * Only directories with a plan.json (written by `--shard`) are checked: plain data directories keep
 * the loader's merge of copies (logs.md, analysis.md).
 */
import { existsSync, readdirSync } from "node:fs";
import { resolve } from "node:path";
import { readRegularText } from "../../util/regularFile.js";
import { manifestPath, runDir, runsDir } from "../../logs/runDir.js";
import { ConfigError } from "../../util/errors.js";
import { escapeControl } from "../../util/outsideText.js";
import { UNRECORDED_RULES_VERSION } from "../../games/version.js";
import { protocolDiff, readDataDirProtocol } from "./dataDirProtocol.js";
import { readShardPlan } from "./shardPlan.js";

/** The run directories under `<data>/runs`, sorted; empty without one. */
export function runIdsIn(dataDir: string): string[] {
  const root = runsDir(dataDir);
  if (!existsSync(root)) return [];
  return readdirSync(root, { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => d.name)
    .sort();
}

/** The games' rules versions of the runs in `dataDir` (from their manifests; an unreadable one is left out). */
function rulesVersions(dataDir: string): Map<number, string> {
  const out = new Map<number, string>();
  for (const id of runIdsIn(dataDir)) {
    let v: unknown;
    try {
      v = (JSON.parse(readRegularText(manifestPath(runDir(dataDir, id)))) as { rules_version?: unknown }).rules_version;
    } catch {
      continue;
    }
    const version = typeof v === "number" ? v : UNRECORDED_RULES_VERSION;
    if (!out.has(version)) out.set(version, id);
  }
  return out;
}

const shown = (dir: string): string => escapeControl(dir);

/** Throws a ConfigError when the shard directories among `dataDirs` cannot be read as one data set. */
export function checkShardSet(dataDirs: readonly string[]): void {
  const shards = [...new Set(dataDirs.map((d) => resolve(d)))].filter((d) => readShardPlan(d) !== null);
  if (shards.length < 2) return;
  // Protocols: each against the first shard that recorded one.
  let first: { dir: string; protocol: NonNullable<ReturnType<typeof readDataDirProtocol>> } | null = null;
  for (const dir of shards) {
    const protocol = readDataDirProtocol(dir);
    if (protocol === null) continue;
    if (first === null) first = { dir, protocol };
    else {
      const diff = protocolDiff(first.protocol, protocol);
      if (diff !== "")
        throw new ConfigError(
          `shards ${shown(first.dir)} and ${shown(dir)} were run under different protocols (${diff}): they are not one data set; read them separately, or rerun one shard with the other's flags`,
        );
    }
  }
  // Rules versions: every run of every shard under one version.
  let seen: { version: number; dir: string; run: string } | null = null;
  for (const dir of shards) {
    for (const [version, run] of rulesVersions(dir)) {
      if (seen === null) seen = { version, dir, run };
      else if (seen.version !== version) {
        throw new ConfigError(
          `shards ${shown(seen.dir)} (run ${seen.run}: games' rules version ${seen.version}) and ${shown(dir)} (run ${run}: rules version ${version}) played different rules: one seed means another board under each; rerun the older shard with this kit (resume refuses it: start it in a new --data)`,
        );
      }
    }
  }
  // A run in two shards.
  const owner = new Map<string, string>();
  for (const dir of shards) {
    for (const id of runIdsIn(dir)) {
      const other = owner.get(id);
      if (other !== undefined)
        throw new ConfigError(
          `run ${id} appears in two shards, ${shown(other)} and ${shown(dir)}: a shard plays its own part of the matrix; remove the copy that should not count (or pass only one of the directories)`,
        );
      owner.set(id, dir);
    }
  }
}
