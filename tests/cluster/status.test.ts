/**
 * `s3gym status` and the shard-set checks. A shard's `s3gym run` process is SIGKILLed mid-run: status
 * names that shard's runs (killed mid-run), lists the other shard's as not started from the first
 * shard's plan, prints the commands that resume them and exits 1; running those commands completes
 * the matrix and status exits 0. Shard directories read together (status, report) refuse two
 * protocols, two rules versions and a run in two shards, naming them; plain data directories keep
 * the loader's merge of copies.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { startServer, type RunningServer } from "../../src/builtin/server.js";
import { withExitCode } from "../../src/cli/main.js";
import { runCommand } from "../../src/cli/run/run.js";
import { statusCommand } from "../../src/cli/status/status.js";
import { loadDataset } from "../../src/analysis/load/dataset.js";
import { claimDataDirProtocol } from "../../src/runner/shards/dataDirProtocol.js";
import { buildMatrix } from "../../src/runner/loop/schedule.js";
import { makeShardPlan, recordShardPlan } from "../../src/runner/shards/shardPlan.js";
import { checkShardSet } from "../../src/runner/shards/shardSet.js";
import { shardStatus } from "../../src/runner/shards/shardStatus.js";
import { small } from "../runner/helpers.js";

const MAIN = join(import.meta.dirname, "..", "..", "dist", "cli", "main.js");
const servers: RunningServer[] = [];
afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
});
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function status(dirs: string[]): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const io = { stdout: { write: (t: string) => out.push(t) }, stderr: { write: (t: string) => err.push(t) } };
  const code = await withExitCode(
    "status",
    () =>
      statusCommand(
        dirs.flatMap((d) => ["--data", d]),
        io,
      ),
    io,
  );
  return { code, out: out.join(""), err: err.join("") };
}

describe.skipIf(!existsSync(MAIN))("a shard killed mid-run", () => {
  it("status names the killed shard's runs, the unstarted shard's, the resume commands; resuming completes it", async () => {
    const server = await startServer({ latencyMs: 60 });
    servers.push(server);
    const data = mkdtempSync(join(tmpdir(), "s3status-"));
    const argv = [
      "--models",
      "openai:s3gym-heuristic",
      "--games",
      "snake,trust",
      "--pathways",
      "none,history",
      "--explore-episodes",
      "4",
      "--checkpoint-every",
      "2",
      "--eval-episodes",
      "2",
      "--max-steps",
      "8",
      "--base-url",
      server.url,
      "--progress",
      "off",
      "--concurrency",
      "1",
    ];
    const env = { ...process.env, OPENAI_API_KEY: "k" };
    const child = spawn(process.execPath, [MAIN, "run", ...argv, "--shard", "1/2", "--data", data], { env, stdio: "ignore" });
    const planned = buildMatrix(["openai:s3gym-heuristic"], ["snake", "trust"], ["none", "history"], 0);
    const first = planned[0]!.runId;
    // Killed once its first episode is logged.
    const episodes = join(data, "shard-1-of-2", "runs", first, "episodes.jsonl");
    const deadline = Date.now() + 90_000;
    while (Date.now() < deadline && child.exitCode === null && !(existsSync(episodes) && readFileSync(episodes, "utf8").includes("\n"))) await sleep(50);
    expect(child.exitCode, "the shard ended before it could be killed").toBeNull();
    child.kill("SIGKILL");
    await new Promise((r) => child.once("exit", r));

    const s = await status([data]);
    expect(s.code).toBe(1);
    expect(s.out).toMatch(new RegExp(`shard 1/2\\t${data}/shard-1-of-2\\t.*partial`));
    expect(s.out).toMatch(new RegExp(`partial\\s*\\t${first}\\tkilled mid-run`));
    expect(s.out).toContain(`shard 2/2\t${data}/shard-2-of-2 (not started: no plan.json)\t2 not started`);
    for (const e of planned.filter((_, i) => i % 2 === 1)) expect(s.out).toMatch(new RegExp(`not started\\s*\\t${e.runId}`));
    expect(s.out).toMatch(/total\t4 runs\t.*INCOMPLETE/);
    const resumeLines = s.out.split("\n").filter((l) => l.startsWith("  s3gym run "));
    expect(resumeLines).toHaveLength(2);
    expect(resumeLines[0]).toContain(`--shard 1/2 --data ${data}`);
    expect(resumeLines[1]).toContain(`--shard 2/2 --data ${data}`);
    expect(resumeLines[0]).toContain("--models openai:s3gym-heuristic --games snake,trust --pathways none,history");

    // The printed commands, run: the matrix completes and status says so.
    for (const shard of shardStatus([data])) {
      if (shard.resume === null) continue;
      const code = await runCommand(shard.resume.slice(1), { env: { OPENAI_API_KEY: "k" }, stdout: { write: () => true }, stderr: { write: () => true } });
      expect(code).toBe(0);
    }
    const after = await status([join(data, "shard-1-of-2"), join(data, "shard-2-of-2")]);
    expect(after.out).toMatch(/total\t4 runs\t4 done\tcomplete/);
    expect(after.code).toBe(0);
  }, 240_000);
});

describe("shard directories read together", () => {
  const settings = small();
  const matrix = buildMatrix(["builtin:random"], ["snake", "trust"], ["none"], 0);
  /** A shard directory by hand: its plan, its protocol record, its runs' manifests (rules version). */
  function shardDir(root: string, index: number, runs: string[], opts: { evalEpisodes?: number; rules?: number } = {}): string {
    const dir = join(root, `shard-${index}-of-2`);
    recordShardPlan(dir, makeShardPlan(matrix, { index, count: 2 }, "flag", ["--models", "builtin:random"]));
    claimDataDirProtocol(dir, { ...settings, evalEpisodes: opts.evalEpisodes ?? settings.evalEpisodes });
    for (const id of runs) {
      mkdirSync(join(dir, "runs", id), { recursive: true });
      writeFileSync(join(dir, "runs", id, "manifest.json"), JSON.stringify({ run_id: id, status: "complete", rules_version: opts.rules ?? 3 }));
    }
    return dir;
  }
  const [a, b] = [matrix[0]!.runId, matrix[1]!.runId];

  it("accepts shards of one protocol and rules version with disjoint runs", () => {
    const root = mkdtempSync(join(tmpdir(), "s3set-"));
    expect(() => checkShardSet([shardDir(root, 1, [a]), shardDir(root, 2, [b])])).not.toThrow();
  });

  it("refuses a run in two shards, naming it and both directories (report's loader too)", async () => {
    const root = mkdtempSync(join(tmpdir(), "s3set-"));
    const dirs = [shardDir(root, 1, [a]), shardDir(root, 2, [b, a])];
    expect(() => checkShardSet(dirs)).toThrow(new RegExp(`run ${a} appears in two shards, ${dirs[0]} and ${dirs[1]}`));
    await expect(loadDataset(dirs)).rejects.toThrow(/appears in two shards/);
    const s = await status([root]);
    expect(s.code).toBe(2);
    expect(s.err).toMatch(/appears in two shards/);
  });

  it("refuses two protocols, naming the directories and the number that differs", () => {
    const root = mkdtempSync(join(tmpdir(), "s3set-"));
    const dirs = [shardDir(root, 1, [a]), shardDir(root, 2, [b], { evalEpisodes: 5 })];
    expect(() => checkShardSet(dirs)).toThrow(new RegExp(`shards ${dirs[0]} and ${dirs[1]} were run under different protocols \\(eval_episodes: 2 -> 5\\)`));
  });

  it("refuses two rules versions, naming a run of each", () => {
    const root = mkdtempSync(join(tmpdir(), "s3set-"));
    const dirs = [shardDir(root, 1, [a]), shardDir(root, 2, [b], { rules: 2 })];
    expect(() => checkShardSet(dirs)).toThrow(new RegExp(`run ${a}: games' rules version 3\\).*run ${b}: rules version 2`));
  });

  it("a directory where nothing has started yet is not complete (exit 1, said)", async () => {
    const s = await status([mkdtempSync(join(tmpdir(), "s3empty-"))]);
    expect(s.code).toBe(1);
    expect(s.err).toMatch(/no shard plan and no run found/);
  });

  it("leaves plain data directories (no plan.json) to the loader's merge of copies", () => {
    const root = mkdtempSync(join(tmpdir(), "s3set-"));
    const x = join(root, "x");
    const y = join(root, "y");
    for (const d of [x, y]) mkdirSync(join(d, "runs", a), { recursive: true });
    expect(() => checkShardSet([x, y])).not.toThrow();
  });

  it("a shard directory holds one plan: another shard or matrix there is refused", () => {
    const root = mkdtempSync(join(tmpdir(), "s3set-"));
    const dir = shardDir(root, 1, []);
    expect(() => recordShardPlan(dir, makeShardPlan(matrix, { index: 1, count: 2 }, "slurm", []))).not.toThrow();
    expect(() => recordShardPlan(dir, makeShardPlan(matrix, { index: 2, count: 2 }, "flag", []))).toThrow(/already holds another plan \(it is shard 1\/2, this is 2\/2\)/);
    const other = buildMatrix(["builtin:heuristic"], ["snake"], ["none"], 0);
    expect(() => recordShardPlan(dir, makeShardPlan(other, { index: 1, count: 2 }, "flag", []))).toThrow(/already holds another plan \(run .* is planned by one and not the other\)/);
  });
});
