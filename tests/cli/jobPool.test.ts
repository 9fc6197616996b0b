/**
 * The reproduction's runs phase: the job pool (slots kept busy in list order, no new job after a
 * failure, a job that throws is a failure with its reason). The job list is the plan's:
 * tests/training/reproducePlan.test.ts.
 */
import { describe, expect, it } from "vitest";
import { runPool } from "../../src/cli/reproduce/jobPool.js";

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
    expect(out.done.map((r) => [r.job.name, r.code])).toEqual([
      ["a", 2],
      ["b", 0],
    ]);
    expect(out.skipped.map((j) => j.name)).toEqual(["c", "d"]);
  });

  it("turns a job that throws into exit 1 with its reason, and refuses a bad slot count", async () => {
    const out = await runPool(
      [{ name: "x" }, { name: "y" }],
      1,
      async (j) => {
        if (j.name === "x") throw new Error("spawn ENOENT");
        return 0;
      },
      { clock: () => 0 },
    );
    expect(out.done).toEqual([{ job: { name: "x" }, code: 1, ms: 0, error: "spawn ENOENT" }]);
    expect(out.skipped.map((j) => j.name)).toEqual(["y"]);
    await expect(runPool([], 0, async () => 0, { clock: () => 0 })).rejects.toThrow(/slots must be a positive integer/);
  });
});
