/**
 * Reproduce's probes phase on several processes (src/cli/reproduce/probeShards.ts): the shards' job
 * files, run as reproduce starts them (`s3gym probe --job FILE`), play every probe run exactly once
 * and write the same files as the whole list in one process (timestamps aside).
 */
import { cpSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { main } from "../../src/cli/main.js";
import { probeCommand, probeDataDir, shardOf } from "../../src/cli/probe/probe.js";
import { probeJob, probeJobText, readProbeJob } from "../../src/cli/probe/probeJob.js";
import { UsageError } from "../../src/cli/shared/args.js";
import { planDataProbes, type DataProbeSpec } from "../../src/runner/probe/memoryProbe.js";

const LEARNER = "builtin:learner";
const OTHER = "builtin:learner?judge=0.25";
const SCHEDULE = ["--explore-episodes", "3", "--checkpoint-every", "1", "--eval-episodes", "2", "--max-steps", "8", "--progress", "off"];
const SPEC: DataProbeSpec = {
  pathways: ["memory"],
  cells: [
    { model: LEARNER, empty: true, shuffledSeeds: [0], transplantFrom: OTHER, transplantSeeds: [0], runSeeds: [0] },
    { model: "builtin:random?noise=independent", empty: true, shuffledSeeds: [], runSeeds: [0] },
  ],
};
const sink = { write: () => true };

/** The probe runs' files, timestamps blanked. */
function probeFiles(data: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const d of readdirSync(join(data, "runs")).sort()) {
    if (!d.includes("__probe-")) continue;
    for (const f of readdirSync(join(data, "runs", d)).sort()) {
      if (f.startsWith(".")) continue;
      const text = readFileSync(join(data, "runs", d, f), "utf8")
        .replace(/"(started_at|ended_at)": ?"[^"]*"/g, '"$1":"T"')
        .replace(/"wall_s": ?[0-9.e+-]+/g, '"wall_s":0')
        .replaceAll(data, "DATA");
      out.set(`${d}/${f}`, text);
    }
  }
  return out;
}

describe("probes on several processes", () => {
  it("shards by run id: each planned probe run in exactly one shard", () => {
    const planned = ["b", "a", "d", "c", "e"].map((id) => ({ entry: { runId: id } }) as never);
    const ids = (i: number, n: number) => shardOf(planned, { index: i, count: n }).map((p) => (p as { entry: { runId: string } }).entry.runId);
    expect(ids(0, 2).sort()).toEqual(["a", "c", "e"]);
    expect(ids(1, 2).sort()).toEqual(["b", "d"]);
    expect(ids(2, 3)).toEqual(["c"]);
    expect(shardOf(planned)).toHaveLength(5);
  });

  it("a bad job file is a usage error naming the field", () => {
    const dir = mkdtempSync(join(tmpdir(), "s3probejob-"));
    const file = join(dir, "job.json");
    const job = probeJob("/data", SPEC, 0, 2);
    writeFileSync(file, probeJobText({ ...job, settings: { ...job.settings, shard: { index: 2, count: 2 } } }));
    expect(() => readProbeJob(file)).toThrow(UsageError);
    expect(() => readProbeJob(file)).toThrow(/shard/);
    writeFileSync(file, probeJobText(job));
    expect(readProbeJob(file)).toEqual(job);
  });

  it("two shards' processes write what one process writes, each probe run once", async () => {
    const data = mkdtempSync(join(tmpdir(), "s3probeshard-"));
    expect(await main(["run", "--models", `${LEARNER},builtin:random?noise=independent`, "--games", "trust", "--pathways", "memory", "--data", data, ...SCHEDULE])).toBe(0);
    expect(await main(["run", "--models", LEARNER, "--games", "trust", "--pathways", "memory", "--data", data, "--run-seed", "1", ...SCHEDULE])).toBe(0);
    expect(await main(["run", "--models", OTHER, "--games", "trust", "--pathways", "memory", "--data", data, ...SCHEDULE])).toBe(0);
    const whole = mkdtempSync(join(tmpdir(), "s3probeshard-whole-"));
    const sharded = mkdtempSync(join(tmpdir(), "s3probeshard-split-"));
    cpSync(data, whole, { recursive: true });
    cpSync(data, sharded, { recursive: true });
    expect(planDataProbes(whole, SPEC)).toHaveLength(4);
    expect(await probeDataDir(whole, SPEC, sink)).toBe(0);
    const dir = mkdtempSync(join(tmpdir(), "s3probeshard-jobs-"));
    for (const i of [0, 1]) {
      const file = join(dir, `job${i}.json`);
      writeFileSync(file, probeJobText(probeJob(sharded, SPEC, i, 2)));
      expect(await probeCommand(["--job", file, "--progress", "off"], { stdout: sink })).toBe(0);
    }
    const a = probeFiles(whole);
    const b = probeFiles(sharded);
    expect(new Set([...a.keys()].map((k) => k.split("/")[0])).size).toBe(4);
    expect([...b.keys()]).toEqual([...a.keys()]);
    for (const [f, t] of a) expect(b.get(f), f).toBe(t);
    // A rerun of a shard plays nothing more (its runs are complete: only their manifests count the invocation).
    const logs = (m: Map<string, string>) => [...m].filter(([f]) => f.endsWith(".jsonl"));
    const before = logs(probeFiles(sharded));
    expect(await probeCommand(["--job", join(dir, "job0.json"), "--progress", "off"], { stdout: sink })).toBe(0);
    expect(logs(probeFiles(sharded))).toEqual(before);
  }, 120_000);
});
