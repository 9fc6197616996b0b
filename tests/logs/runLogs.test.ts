import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { DURABLE_INTERVAL_MS, RunLogs } from "../../src/logs/runLogs.js";

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
