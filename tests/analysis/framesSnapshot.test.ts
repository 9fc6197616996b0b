/**
 * The frames' columns built beside the SQL tables' load (one validating pass for both) and handed to
 * `loadColumns` through S3GYM_FRAMES: the same columns as loadColumns' own load, taken only while the
 * logs are unchanged, and waited for while a live writer is at it.
 */
import { appendFileSync, existsSync, mkdtempSync, readdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { loadColumns, type FrameColumns } from "../../src/analysis/load/frames.js";
import { awaitFramesSnapshot, FRAMES_SNAPSHOT_VAR, markFramesSnapshot, readFramesSnapshot, unmarkFramesSnapshot, writeFramesSnapshot } from "../../src/analysis/load/framesSnapshot.js";
import { buildLogDatabase } from "../../src/analysis/sql/logDatabase.js";
import { runFileStamps } from "../../src/logs/reader.js";
import { writeSyntheticData } from "../../src/index.js";

async function data(): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), "s3gym-frames-snap-"));
  await writeSyntheticData(dir, { models: ["m1", "m2"], games: ["chess"], pathways: ["history", "none"], exploreEpisodes: 3, checkpointEvery: 3, evalEpisodes: 2, stepsPerEpisode: [2, 4] });
  return dir;
}

afterEach(() => {
  delete process.env[FRAMES_SNAPSHOT_VAR];
});

describe("frames built beside the SQL tables", () => {
  it("are the columns loadColumns loads itself (NaN cells, extra fields and run rows included)", async () => {
    const dir = await data();
    let got: FrameColumns | null = null;
    const built = await buildLogDatabase([dir], { cacheDir: null, frames: (c) => (got = c) });
    built.remove();
    const own = await loadColumns([dir]);
    expect(got).not.toBeNull();
    expect(own.steps.run_id.length).toBeGreaterThan(0);
    expect(got).toEqual(own);
    // The SQL tables hold the same steps as the frames.
    expect(built.rows.steps).toBe(own.steps.run_id.length);
  }, 60_000);

  it("a cache hit builds nothing and hands no frames", async () => {
    const dir = await data();
    const cacheDir = mkdtempSync(join(tmpdir(), "s3gym-frames-cache-"));
    (await buildLogDatabase([dir], { cacheDir })).remove();
    let called = false;
    const again = await buildLogDatabase([dir], { cacheDir, frames: () => (called = true) });
    expect(again.fromCache).toBe(true);
    expect(called).toBe(false);
  }, 60_000);
});

describe("S3GYM_FRAMES", () => {
  it("loadColumns takes the snapshot of the same, unchanged directories, and loads itself once a run file changed", async () => {
    const dir = await data();
    const own = await loadColumns([dir]);
    const file = join(mkdtempSync(join(tmpdir(), "s3gym-frames-file-")), "frames.v8");
    // A marked copy: only the snapshot carries this model name, so its answer is told from a load.
    const marked: FrameColumns = { ...own, runs: { ...own.runs, model: own.runs.model.map(() => "from-snapshot") } };
    writeFramesSnapshot(file, [dir], runFileStamps([dir]), marked);
    process.env[FRAMES_SNAPSHOT_VAR] = file;
    expect((await loadColumns([dir])).runs.model).toEqual(own.runs.model.map(() => "from-snapshot"));
    // Other directories, or options the snapshot was not made with: a load of its own.
    expect((await loadColumns([dir], { text: true })).runs.model).toEqual(own.runs.model);
    // A run file changed after the snapshot's load began: not taken.
    const stepsFile = join(dir, "runs", readdirSync(join(dir, "runs"))[0] as string, "steps.jsonl");
    appendFileSync(stepsFile, "\n");
    expect(readFramesSnapshot<FrameColumns>(file, [dir])).toBeNull();
    expect((await loadColumns([dir])).runs.model).toEqual(own.runs.model);
  }, 60_000);

  it("waits for a live writer's snapshot; a dead writer's mark or a missing file gives null", async () => {
    const dir = await data();
    const own = await loadColumns([dir]);
    const folder = mkdtempSync(join(tmpdir(), "s3gym-frames-wait-"));
    const file = join(folder, "frames.v8");
    // The parent of this test process is alive and not this process: a live writer.
    markFramesSnapshot(file, process.ppid);
    const stamps = runFileStamps([dir]);
    setTimeout(() => {
      writeFramesSnapshot(file, [dir], stamps, own);
      unmarkFramesSnapshot(file);
    }, 400);
    const t = Date.now();
    const got = await awaitFramesSnapshot<FrameColumns>(file, [dir], 20);
    expect(Date.now() - t).toBeGreaterThanOrEqual(300);
    expect(got).toEqual(own);
    expect(existsSync(`${file}.writing`)).toBe(false);

    const other = join(folder, "other.v8");
    writeFileSync(`${other}.writing`, "999999999"); // no such process
    expect(await awaitFramesSnapshot(other, [dir], 20)).toBeNull();
    expect(await awaitFramesSnapshot(undefined, [dir])).toBeNull();
  }, 60_000);
});
