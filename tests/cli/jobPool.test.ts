/**
 * The reproduction's runs phase: the job pool (slots kept busy in list order, no new job after a
 * failure, a job that throws is a failure with its reason) and the job list (every run of the
 * matrix, the views, the verified pathway and each training loop seed in exactly one job, longest first).
 */
import { describe, expect, it } from "vitest";
import { runPool } from "../../src/cli/jobPool.js";
import { ceilingRuns, DIAL_GAMES, DIAL_MODELS, DIAL_SCHEDULE, LOOP_SEED_STRIDE, MATRIX_SHARDS, matrixRuns, PAPER_SCHEDULE, QUICK_SCHEDULE, runsJobs, verifiedRuns, VIEWS_SHARDS, viewRuns, type RunsJob } from "../../src/cli/reproduce.js";
import { buildMatrix, parseShard, shardMatrix } from "../../src/runner/schedule.js";
import { GAME_NAMES } from "../../src/games/types.js";

/** A job runner whose jobs end when the test says so. */
function controlled() {
  const started: string[] = [];
  const ends = new Map<string, (code: number) => void>();
  let running = 0;
  let peak = 0;
  const run = (job: { name: string }): Promise<number> => {
    started.push(job.name);
    running++;
    peak = Math.max(peak, running);
    return new Promise((resolve) => ends.set(job.name, (code) => (running--, resolve(code))));
  };
  const tick = () => new Promise((r) => setImmediate(r));
  return { started, run, end: (name: string, code = 0) => ends.get(name)!(code), tick, peak: () => peak };
}

describe("runPool", () => {
  it("keeps every slot busy, in list order, and never runs more than the slots", async () => {
    const c = controlled();
    const jobs = ["a", "b", "c", "d", "e"].map((name) => ({ name }));
    let t = 0;
    const ended: string[] = [];
    const p = runPool(jobs, 2, c.run, { clock: () => (t += 10), onEnd: (r) => ended.push(r.job.name) });
    await c.tick();
    expect(c.started).toEqual(["a", "b"]);
    c.end("b");
    await c.tick();
    // b's slot takes the next job at once; a is still running.
    expect(c.started).toEqual(["a", "b", "c"]);
    c.end("a");
    await c.tick();
    c.end("c");
    await c.tick();
    c.end("d");
    await c.tick();
    c.end("e");
    const out = await p;
    expect(c.peak()).toBe(2);
    expect(ended).toEqual(["b", "a", "c", "d", "e"]);
    expect(out.done.map((r) => r.code)).toEqual([0, 0, 0, 0, 0]);
    expect(out.skipped).toEqual([]);
    expect(out.done.every((r) => r.ms > 0)).toBe(true);
  });

  it("starts nothing new after a failure, lets the running job finish, and lists the jobs not started", async () => {
    const c = controlled();
    const jobs = ["a", "b", "c", "d"].map((name) => ({ name }));
    const p = runPool(jobs, 2, c.run, { clock: () => 0 });
    await c.tick();
    c.end("a", 2);
    await c.tick();
    expect(c.started).toEqual(["a", "b"]);
    c.end("b", 0);
    const out = await p;
    expect(out.done.map((r) => [r.job.name, r.code])).toEqual([["a", 2], ["b", 0]]);
    expect(out.skipped.map((j) => j.name)).toEqual(["c", "d"]);
  });

  it("turns a job that throws into exit 1 with its reason, and refuses a bad slot count", async () => {
    const out = await runPool([{ name: "x" }, { name: "y" }], 1, async (j) => {
      if (j.name === "x") throw new Error("spawn ENOENT");
      return 0;
    }, { clock: () => 0 });
    expect(out.done).toEqual([{ job: { name: "x" }, code: 1, ms: 0, error: "spawn ENOENT" }]);
    expect(out.skipped.map((j) => j.name)).toEqual(["y"]);
    await expect(runPool([], 0, async () => 0, { clock: () => 0 })).rejects.toThrow(/slots must be a positive integer/);
  });
});

/** The run ids a `s3gym run` job plays: its --models/--pathways matrix, cut by its --shard. */
function runIdsOf(job: RunsJob): string[] {
  const flag = (name: string): string => job.argv[job.argv.indexOf(name) + 1]!;
  const games = job.argv.includes("--games") && flag("--games") !== "all" ? flag("--games").split(",") : GAME_NAMES;
  const seed = job.argv.includes("--run-seed") ? Number(flag("--run-seed")) : 0;
  const matrix = buildMatrix(flag("--models").split(","), games, flag("--pathways").split(","), seed);
  const shard = job.argv.includes("--shard") ? parseShard(flag("--shard")) : null;
  // A run is known by its data directory and id: the judge dial's judge-1 runs share ids with the
  // matrix's builtin:learner runs, in another directory.
  return shardMatrix(matrix, shard).map((e) => `${flag("--data")}|${e.runId}`);
}

describe("runsJobs", () => {
  const jobs = runsJobs(PAPER_SCHEDULE, "/d");

  it("starts with the training loops (one job per loop seed), then the views' shards, and plays every run exactly once", () => {
    const loops = jobs.filter((j) => j.command === "train-loop");
    expect(jobs.slice(0, 3).map((j) => j.command)).toEqual(["train-loop", "train-loop", "train-loop"]);
    // Three loop seeds far enough apart that no two loops explore a board in common (round r: seed + r - 1).
    expect(loops.map((j) => Number(j.argv[j.argv.indexOf("--run-seed") + 1]))).toEqual([0, LOOP_SEED_STRIDE, 2 * LOOP_SEED_STRIDE]);
    expect(LOOP_SEED_STRIDE).toBeGreaterThan(PAPER_SCHEDULE.trainingRounds);
    expect(runsJobs(QUICK_SCHEDULE, "/d").filter((j) => j.command === "train-loop")).toHaveLength(1);
    expect(jobs[3]!.name).toBe(`views 1/${VIEWS_SHARDS}`);
    const dialSeeds = DIAL_SCHEDULE.paper.runSeeds;
    expect(jobs).toHaveLength(3 + VIEWS_SHARDS + 1 + 1 + dialSeeds + MATRIX_SHARDS);
    const played = jobs.filter((j) => j.command === "run").flatMap(runIdsOf);
    const dial = Array.from({ length: dialSeeds }, (_, seed) => buildMatrix([...DIAL_MODELS], [...DIAL_GAMES], ["none", "history", "memory"], seed)).flat();
    const expected = [...[...matrixRuns(PAPER_SCHEDULE), ...viewRuns(PAPER_SCHEDULE), ...verifiedRuns(PAPER_SCHEDULE), ...ceilingRuns(PAPER_SCHEDULE)].map((r) => `/d|${r.runId}`), ...dial.map((r) => `/d/dial|${r.runId}`)];
    expect([...played].sort()).toEqual([...expected].sort());
    expect(new Set(played).size).toBe(played.length);
  });

  it("writes every shard into the one data directory (--no-shard-subdir: one machine, its locks keep them apart)", () => {
    const sharded = jobs.filter((j) => j.argv.includes("--shard"));
    expect(sharded.length).toBe(VIEWS_SHARDS + MATRIX_SHARDS);
    for (const j of sharded) expect(j.argv).toContain("--no-shard-subdir");
  });

  it("gives every matrix shard a mix of the models (not one model per shard)", () => {
    for (const j of jobs.filter((x) => x.name.startsWith("matrix"))) {
      const models = new Set(runIdsOf(j).map((id) => id.split("__")[2]!.replace(/-[0-9a-f]{8}$/, "")));
      expect(models.size, j.name).toBeGreaterThanOrEqual(3);
    }
  });

  it("passes the views flag only to the views' shards, and --progress off to every job", () => {
    for (const j of jobs) {
      expect(j.argv.slice(j.argv.indexOf("--progress"), j.argv.indexOf("--progress") + 2)).toEqual(["--progress", "off"]);
      expect(j.argv.includes("--views")).toBe(j.name.startsWith("views"));
      // The judge dial has its own schedule, so its own data directory.
      expect(j.argv[j.argv.indexOf("--data") + 1]).toBe(j.name.startsWith("judge dial") ? "/d/dial" : "/d");
    }
  });
});
