/**
 * Red team, issue 32 cases 1 and 9: a full disk, and damaged log lines in the middle of a file.
 *
 * Before: a short write stayed on disk and other episodes kept appending to the same file, so a
 * torn step record ended up mid-file with the next record glued on; every rerun then failed with
 * "steps.jsonl:71: field '(line)': invalid JSON", and `report` refused the whole data directory.
 * One bad line in calls.jsonl made `run` exit with no summary and left the manifest "running".
 * Now: the writer cuts a short write back to the last whole line and stops the file's appends with
 * a named error; resume quarantines a damaged line (`<file>.damaged`) and plays its episode again.
 */
import { spawnSync } from "node:child_process";
import { appendFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getGame } from "../../src/games/registry.js";
import { readJsonl } from "../../src/logs/reader.js";
import { runDir } from "../../src/logs/runDir.js";
import { StepRecord } from "../../src/logs/schema.js";
import { JsonlWriter, LogWriteError } from "../../src/logs/writer.js";
import { runMatrix } from "../../src/runner/loop/runLoop.js";
import { buildMatrix } from "../../src/runner/loop/schedule.js";
import { summarizeCalls } from "../../src/runner/monitor/usage.js";
import { z } from "zod";
import { factory, runRecords, small } from "../runner/helpers.js";

const settings = small({ exploreEpisodes: 4, checkpointEvery: 2, evalEpisodes: 2, maxSteps: 10 });
const entries = buildMatrix(["builtin:heuristic"], ["snake", "trust"], ["history", "memory"], 0);

function play(data: string) {
  return runMatrix({ dataDir: data, entries, settings, game: getGame, createModel: factory() });
}

/** Every byte of every JSONL file ends a whole JSON line. */
function allLinesWhole(data: string): void {
  for (const run of readdirSync(join(data, "runs")))
    for (const f of readdirSync(join(data, "runs", run)).filter((n) => n.endsWith(".jsonl"))) {
      const text = readFileSync(join(data, "runs", run, f), "utf8");
      expect(text === "" || text.endsWith("\n"), `${run}/${f} ends mid-line`).toBe(true);
      for (const l of text.split("\n").filter(Boolean)) expect(() => JSON.parse(l), `${run}/${f}`).not.toThrow();
    }
}

let reference: Record<string, string[]>;
beforeAll(async () => {
  const data = mkdtempSync(join(tmpdir(), "s3full-ref-"));
  const outcomes = await play(data);
  expect(outcomes.map((o) => o.status)).toEqual(entries.map(() => "complete"));
  reference = runRecords(data);
}, 60_000);

describe("an append that the disk cuts short", () => {
  const Rec = z.object({ n: z.number(), text: z.string() });

  it("is cut back to the last whole line, and the file's later appends fail with the same named error", () => {
    const path = join(mkdtempSync(join(tmpdir(), "s3full-w-")), "steps.jsonl");
    let budget = 100; // bytes the "disk" still takes
    const w = JsonlWriter.open(path, Rec, {
      write: (fd, buf, off, len) => {
        if (budget <= 0) throw Object.assign(new Error("ENOSPC: no space left on device, write"), { code: "ENOSPC" });
        const n = Math.min(len, budget);
        budget -= n;
        // A real short write: the bytes land on the file.
        appendFileSync(path, buf.subarray(off, off + n));
        return n;
      },
    });
    w.append({ n: 1, text: "a".repeat(20) });
    const whole = readFileSync(path, "utf8");
    expect(() => w.append({ n: 2, text: "b".repeat(200) })).toThrow(LogWriteError);
    expect(readFileSync(path, "utf8")).toBe(whole);
    budget = 1000; // space freed: the writer still refuses, the run must stop and resume
    let message = "";
    try {
      w.append({ n: 3, text: "c" });
    } catch (e) {
      message = (e as Error).message;
    }
    expect(message).toContain(path);
    expect(message).toContain("ENOSPC");
    expect(message).toContain("rerun the same command");
    expect(readFileSync(path, "utf8")).toBe(whole);
    w.close();
  });
});

/** Whether this process may mount a tmpfs (root in CI). */
function canMount(): boolean {
  if (process.platform !== "linux" || process.getuid?.() !== 0) return false;
  const dir = mkdtempSync(join(tmpdir(), "s3full-probe-"));
  const ok = spawnSync("mount", ["-t", "tmpfs", "-o", "size=64k", "tmpfs", dir]).status === 0;
  if (ok) spawnSync("umount", [dir]);
  return ok;
}
const mountable = canMount();

describe.skipIf(!mountable)("a run on a full disk (tmpfs; skipped: mounting a tmpfs needs root on Linux)", () => {
  const mnt = mkdtempSync(join(tmpdir(), "s3full-mnt-"));
  afterAll(() => {
    spawnSync("umount", [mnt]);
  });

  // 10 sizes across the run's writes: steps, episodes, calls and memory files each meet the full disk.
  const sizes = [96, 128, 160, 200, 240, 280, 320, 360, 420, 480];
  it.each(sizes)(
    "with %ik: the run stops naming ENOSPC and its file; after the disk grows a rerun ends with an uninterrupted run's records",
    async (k) => {
      expect(spawnSync("mount", ["-t", "tmpfs", "-o", `size=${k}k`, "tmpfs", mnt]).status).toBe(0);
      try {
        const data = join(mnt, "d");
        mkdirSync(data);
        const first = await play(data);
        const failed = first.filter((o) => o.status === "error");
        expect(failed.length).toBeGreaterThan(0);
        expect(failed.some((o) => /ENOSPC/.test(o.error ?? "") && /\.jsonl|manifest/.test(o.error ?? ""))).toBe(true);
        allLinesWhole(data);
        expect(spawnSync("mount", ["-o", "remount,size=16m", mnt]).status).toBe(0);
        const second = await play(data);
        expect(second.map((o) => o.status)).toEqual(entries.map(() => "complete"));
        expect(runRecords(data)).toEqual(reference);
      } finally {
        spawnSync("umount", [mnt]);
      }
    },
    60_000,
  );
});

describe("damaged lines in the middle of a run's files", () => {
  it("a torn step record with the next record glued on: readers warn and go on, a rerun quarantines it and completes", async () => {
    const data = mkdtempSync(join(tmpdir(), "s3full-glued-"));
    await play(data);
    const dir = runDir(data, entries[0]!.runId);
    const p = join(dir, "steps.jsonl");
    const ls = readFileSync(p, "utf8").split("\n").filter(Boolean);
    // What the old writer left on a full disk: half of line 5 with line 6 glued to it.
    const damaged = [...ls.slice(0, 4), ls[4]!.slice(0, 300) + ls[5]!, ...ls.slice(6)];
    writeFileSync(p, damaged.map((l) => `${l}\n`).join(""));

    const warnings: string[] = [];
    let n = 0;
    for await (const _ of readJsonl(p, StepRecord, { onWarning: (w) => warnings.push(`${w.line}: ${w.message}`) })) n++;
    expect(n).toBe(ls.length - 2);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/^5: damaged line left out/);

    const heard: string[] = [];
    const outcomes = await runMatrix({ dataDir: data, entries, settings, game: getGame, createModel: factory(), events: { warning: (_id, m) => heard.push(m) } });
    expect(outcomes.map((o) => o.status)).toEqual(entries.map(() => "complete"));
    expect(heard.some((m) => m.includes(`${p}:5`) && m.includes("steps.jsonl.damaged"))).toBe(true);
    expect(readFileSync(`${p}.damaged`, "utf8")).toBe(`${damaged[4]}\n`);
    expect(runRecords(data)).toEqual(reference);
  }, 60_000);

  it("a bad line in calls.jsonl: the run ends with its totals and a manifest that is not 'running'", async () => {
    const data = mkdtempSync(join(tmpdir(), "s3full-calls-"));
    await play(data);
    const dir = runDir(data, entries[0]!.runId);
    const p = join(dir, "calls.jsonl");
    const ls = readFileSync(p, "utf8").split("\n").filter(Boolean);
    writeFileSync(p, [ls[0], "{not json", ...ls.slice(1)].map((l) => `${l}\n`).join(""));
    const damaged = { lines: 0 };
    expect(summarizeCalls(dir, damaged).calls).toBe(ls.length);
    expect(damaged.lines).toBe(1);
    // Played again from a fresh start of the same data: the run itself is fine.
    rmSync(join(dir, "checkpoints.jsonl"));
    writeFileSync(join(dir, "checkpoints.jsonl"), "");
    const outcomes = await play(data);
    expect(outcomes.map((o) => o.status)).toEqual(entries.map(() => "complete"));
    const manifest = JSON.parse(readFileSync(join(dir, "manifest.json"), "utf8")) as { status: string; usage: { calls: number } };
    expect(manifest.status).toBe("complete");
    expect(manifest.usage.calls).toBeGreaterThanOrEqual(ls.length);
  }, 60_000);
});
