import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { DURABLE_INTERVAL_MS, RunLogs } from "../../src/logs/runLogs.js";
import type { StepRecord } from "../../src/logs/schema.js";
import { callRecord, step as stepRecord } from "../analysis/helpers.js";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A RunLogs on a fake clock, with every writer's sync() recorded in call order. */
function logsAt(clock: { t: number }) {
  const dir = mkdtempSync(join(tmpdir(), "s3gym-runlogs-"));
  dirs.push(dir);
  const logs = new RunLogs(dir, ["memory"], () => clock.t);
  const synced: string[] = [];
  for (const [name, w] of [
    ["steps", logs.steps],
    ["episodes", logs.episodes],
    ["checkpoints", logs.checkpoints],
    ["calls", logs.calls],
  ] as const) {
    vi.spyOn(w, "sync").mockImplementation(() => void synced.push(name));
  }
  return { logs, synced };
}

describe("RunLogs: durable points at boundaries, at most DURABLE_INTERVAL_MS apart", () => {
  it("syncs the first boundary, skips boundaries within the interval, and syncs again once it has passed", () => {
    const clock = { t: 1000 };
    const { logs, synced } = logsAt(clock);
    const boundary = () => {
      logs.syncSteps();
      logs.syncRecords();
    };
    boundary();
    expect(synced).toEqual(["steps", "steps", "episodes", "checkpoints"]);
    synced.length = 0;
    clock.t += DURABLE_INTERVAL_MS - 1;
    boundary();
    logs.syncRecords(); // a checkpoint record's boundary
    expect(synced).toEqual([]);
    clock.t += 1; // exactly the interval since the last durable point
    boundary();
    expect(synced).toEqual(["steps", "steps", "episodes", "checkpoints"]);
  });
  it("makes the steps durable before the records whenever records are synced, even when only syncRecords is due", () => {
    const clock = { t: 0 };
    const { logs, synced } = logsAt(clock);
    logs.syncRecords();
    synced.length = 0;
    clock.t += DURABLE_INTERVAL_MS / 2;
    logs.syncSteps(); // not due: skipped
    clock.t += DURABLE_INTERVAL_MS / 2; // due by the time the record is written
    logs.syncRecords();
    expect(synced).toEqual(["steps", "episodes", "checkpoints"]);
  });
  it("close() syncs every file, the audit log too, whatever the clock says", () => {
    const clock = { t: 0 };
    const { logs, synced } = logsAt(clock);
    logs.syncRecords();
    synced.length = 0;
    logs.close();
    expect(synced).toEqual(expect.arrayContaining(["steps", "episodes", "checkpoints", "calls"]));
  });
});

describe("RunLogs: steps lines of one turn go out together, never after a record that claims them", () => {
  const step = (episode: number, n: number): StepRecord =>
    ({ ...stepRecord({ run_id: "r", model: "m", game: "snake", pathway: "memory" }, { episode, step: n, s: null, r: 0 }), done: n === 1 }) as StepRecord;

  const lines = (dir: string, f: string) => readFileSync(join(dir, f), "utf8").split("\n").filter(Boolean).length;

  it("an episode, a checkpoint or a pathway record written in the same turn finds its steps on disk first; flush() writes them for a reader", async () => {
    const dir = mkdtempSync(join(tmpdir(), "s3gym-runlogs-"));
    dirs.push(dir);
    const logs = new RunLogs(dir, ["memory"], () => 0);
    logs.steps.append(step(0, 0));
    logs.steps.append(step(0, 1));
    expect(lines(dir, "steps.jsonl")).toBe(0);
    logs.episodes.append({
      run_id: "r",
      model: "m",
      game: "snake",
      pathway: "memory",
      phase: "explore",
      config: "explore",
      checkpoint: null,
      episode: 0,
      seed: 0,
      score: 0,
      steps: 2,
      status: "ok",
      error: null,
      started_at: "a",
      ended_at: "b",
    });
    expect(lines(dir, "steps.jsonl")).toBe(2);
    logs.steps.append(step(1, 0));
    logs.checkpoints.append({ run_id: "r", model: "m", game: "snake", pathway: "memory", checkpoint: 0, scores: [0], mean: 0, status: "ok", reason: null });
    expect(lines(dir, "steps.jsonl")).toBe(3);
    logs.steps.append(step(1, 1));
    logs.append("memory", { run_id: "r", model: "m", game: "snake", pathway: "memory", after_episode: 0, text: "m", retain: "", avoid: "", next: "", parsed: true, error: null, response: null });
    expect(lines(dir, "steps.jsonl")).toBe(4);
    logs.steps.append(step(2, 0));
    logs.flush();
    expect(lines(dir, "steps.jsonl")).toBe(5);
    // A calls line (the audit log) is never held.
    logs.calls.append(callRecord("r", { phase: "explore", episode: 2, step: 1 }));
    expect(lines(dir, "calls.jsonl")).toBe(1);
    logs.steps.append(step(2, 1));
    await new Promise<void>((resolve) => setImmediate(resolve));
    expect(lines(dir, "steps.jsonl")).toBe(6);
    logs.close();
  });
});
