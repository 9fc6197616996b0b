/** `--shard auto`: the shard from the scheduler's environment (schedule.ts shardFromEnv), env in, shard out. */
import { describe, expect, it } from "vitest";
import { shardFromEnv } from "../../src/runner/loop/schedule.js";
import { parseShardDirName, shardDirName } from "../../src/logs/runDir.js";

describe("shardFromEnv", () => {
  it("a 0-based Slurm array: task t of N is shard t+1/N", () => {
    expect(shardFromEnv({ SLURM_ARRAY_TASK_ID: "0", SLURM_ARRAY_TASK_COUNT: "4" }, null)).toEqual({ shard: { index: 1, count: 4 }, source: "slurm" });
    expect(shardFromEnv({ SLURM_ARRAY_TASK_ID: "3", SLURM_ARRAY_TASK_COUNT: "4", SLURM_ARRAY_TASK_MIN: "0", SLURM_ARRAY_TASK_MAX: "3" }, null).shard).toEqual({ index: 4, count: 4 });
  });

  it("an array not 0-based (--array=5-8), or with a step (--array=1-7:2), numbers its tasks from MIN", () => {
    expect(shardFromEnv({ SLURM_ARRAY_TASK_ID: "6", SLURM_ARRAY_TASK_MIN: "5", SLURM_ARRAY_TASK_MAX: "8" }, null).shard).toEqual({ index: 2, count: 4 });
    // 1, 3, 5, 7: task 5 is the third of four.
    expect(shardFromEnv({ SLURM_ARRAY_TASK_ID: "5", SLURM_ARRAY_TASK_COUNT: "4", SLURM_ARRAY_TASK_MIN: "1", SLURM_ARRAY_TASK_MAX: "7", SLURM_ARRAY_TASK_STEP: "2" }, null).shard).toEqual({
      index: 3,
      count: 4,
    });
  });

  it("a Kubernetes indexed Job: JOB_COMPLETION_INDEX i with --shard-count N is shard i+1/N", () => {
    expect(shardFromEnv({ JOB_COMPLETION_INDEX: "2" }, 5)).toEqual({ shard: { index: 3, count: 5 }, source: "k8s" });
  });

  it("both schedulers agreeing is one shard; --shard-count agreeing with Slurm is accepted", () => {
    expect(shardFromEnv({ SLURM_ARRAY_TASK_ID: "1", SLURM_ARRAY_TASK_COUNT: "3", JOB_COMPLETION_INDEX: "1" }, 3).shard).toEqual({ index: 2, count: 3 });
  });

  it.each([
    [{}, null, /no scheduler task index.*SLURM_ARRAY_TASK_ID.*JOB_COMPLETION_INDEX.*--shard i\/n/],
    [{ JOB_COMPLETION_INDEX: "0" }, null, /JOB_COMPLETION_INDEX=0 is set but not the number of shards: add --shard-count/],
    [{ JOB_COMPLETION_INDEX: "5" }, 5, /not below --shard-count 5/],
    [{ SLURM_ARRAY_TASK_ID: "2" }, null, /neither SLURM_ARRAY_TASK_COUNT nor SLURM_ARRAY_TASK_MAX/],
    [{ SLURM_ARRAY_TASK_ID: "2", SLURM_ARRAY_TASK_COUNT: "4" }, 3, /Slurm array has 4 tasks.*--shard-count says 3/],
    [{ SLURM_ARRAY_TASK_ID: "1", SLURM_ARRAY_TASK_COUNT: "3", JOB_COMPLETION_INDEX: "2" }, 3, /Slurm says shard 2\/3.*Kubernetes says 3\/3/],
    // --array=1,4,9: COUNT 3 but MIN..MAX spans 9: no numbering from the task's own environment.
    [{ SLURM_ARRAY_TASK_ID: "4", SLURM_ARRAY_TASK_COUNT: "3", SLURM_ARRAY_TASK_MIN: "1", SLURM_ARRAY_TASK_MAX: "9" }, null, /not a range.*SLURM_ARRAY_TASK_ID=4.*contiguous --array=0-\(N-1\)/],
    [{ SLURM_ARRAY_TASK_ID: "x1", SLURM_ARRAY_TASK_COUNT: "3" }, null, /SLURM_ARRAY_TASK_ID='x1' is not a non-negative integer/],
  ] as const)("refuses %j (shard-count %s), naming the variables", (env, count, message) => {
    expect(() => shardFromEnv(env, count)).toThrow(message);
  });
});

describe("shard directory names", () => {
  it("shard-i-of-n, 1-based as --shard i/n, and read back", () => {
    expect(shardDirName({ index: 2, count: 4 })).toBe("shard-2-of-4");
    expect(parseShardDirName("shard-2-of-4")).toEqual({ index: 2, count: 4 });
    expect(parseShardDirName("shard-5-of-4")).toBeNull();
    expect(parseShardDirName("shard-0-of-4")).toBeNull();
    expect(parseShardDirName("runs")).toBeNull();
  });
});

describe("s3gym run --shard auto", () => {
  it("a Slurm task plays its shard into DIR/shard-i-of-n and records the plan (source slurm, no secret in a URL)", async () => {
    const { mkdtempSync, readFileSync, readdirSync } = await import("node:fs");
    const { tmpdir } = await import("node:os");
    const { join } = await import("node:path");
    const { runCommand } = await import("../../src/cli/run/run.js");
    const { withExitCode } = await import("../../src/cli/main.js");
    const data = mkdtempSync(join(tmpdir(), "s3auto-"));
    const argv = [
      "--models",
      "builtin:random",
      "--games",
      "snake",
      "--pathways",
      "none,history",
      "--explore-episodes",
      "1",
      "--checkpoint-every",
      "1",
      "--eval-episodes",
      "1",
      "--max-steps",
      "2",
      "--progress",
      "off",
      "--shard",
      "auto",
      "--data",
      data,
      "--label-unused-check",
    ];
    const err: string[] = [];
    const io = { stdout: { write: () => true }, stderr: { write: (t: string) => err.push(t) } };
    // An unknown flag still fails first (exit 2), naming it.
    expect(await withExitCode("run", () => runCommand(argv, { env: { SLURM_ARRAY_TASK_ID: "1", SLURM_ARRAY_TASK_COUNT: "2" }, ...io }), io)).toBe(2);
    const code = await runCommand(argv.slice(0, -1), { env: { SLURM_ARRAY_TASK_ID: "1", SLURM_ARRAY_TASK_COUNT: "2" }, ...io });
    expect(code, err.join("")).toBe(0);
    expect(err.join("")).toContain("shard 2/2 (from the Slurm array task): 1 of 2 runs");
    expect(readdirSync(data)).toEqual(["shard-2-of-2"]);
    const plan = JSON.parse(readFileSync(join(data, "shard-2-of-2", "plan.json"), "utf8"));
    expect(plan.shard).toEqual({ index: 2, count: 2 });
    expect(plan.source).toBe("slurm");
    expect(plan.runs.map((r: { shard: number }) => r.shard)).toEqual([1, 2]);
    expect(plan.argv).not.toContain("--shard");
    expect(plan.argv).not.toContain(data);
  });
});

describe("makeShardPlan", () => {
  it("keeps no user:password of a URL in the arguments it records", async () => {
    const { makeShardPlan } = await import("../../src/runner/shards/shardPlan.js");
    const p = makeShardPlan([], { index: 1, count: 1 }, "flag", ["--base-url", "https://me:s3cret@host:8000/v1", "--models", "openai:m"]);
    expect(p.argv).toEqual(["--base-url", "https://REDACTED@host:8000/v1", "--models", "openai:m"]);
  });
});
