import { existsSync, mkdtempSync } from "node:fs";
import { tmpdir, userInfo } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { openLogDatabase } from "../../src/analysis/sql/logDatabase.js";
import { loadColumns, type FrameColumns } from "../../src/analysis/load/frames.js";
import { readFramesSnapshot } from "../../src/analysis/load/framesSnapshot.js";
import { notebookSettings } from "../../src/report/notebooks/settings.js";
import { writeSyntheticData } from "../../src/index.js";

// The built module (npm test builds first): it starts dist/cli/main.js, as reproduce does.
const built = join(__dirname, "..", "..", "dist", "cli", "reproduce", "warmSqlCache.js");

describe.skipIf(!existsSync(built))("warmSqlCache: the report phase fills the SQL cache notebook 00 opens", () => {
  it("after the warm-up, openLogDatabase of the same logs is answered by the cache", async () => {
    const { warmSqlCache } = (await import(built)) as typeof import("../../src/cli/reproduce/warmSqlCache.js");
    const data = mkdtempSync(join(tmpdir(), "s3gym-warm-"));
    await writeSyntheticData(data, { models: ["m1"], games: ["chess"], pathways: ["history"], exploreEpisodes: 3, checkpointEvery: 3, evalEpisodes: 2, stepsPerEpisode: [2, 4] });
    // The child's os.tmpdir() is TMPDIR: a private one, so the user's own cache is not touched.
    const tmp = mkdtempSync(join(tmpdir(), "s3gym-warm-tmp-"));
    const saved = process.env.TMPDIR;
    process.env.TMPDIR = tmp;
    let code: number;
    try {
      code = await warmSqlCache(data).done;
    } finally {
      if (saved === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = saved;
    }
    expect(code).toBe(0);
    const uid = typeof process.getuid === "function" ? process.getuid() : userInfo().username;
    const db = await openLogDatabase([data], { cacheDir: join(tmp, `s3gym-sql-cache-${uid}`) });
    try {
      expect(db.fromCache).toBe(true);
      expect((await db.columns("select count(*) as n from steps")).n[0]).toBeGreaterThan(0);
    } finally {
      db.close();
    }
  }, 60_000);

  it("given a file, the warm-up also writes the frames' columns of the same pass: loadColumns' own, and the writer's mark is gone", async () => {
    const { warmSqlCache } = (await import(built)) as typeof import("../../src/cli/reproduce/warmSqlCache.js");
    const data = mkdtempSync(join(tmpdir(), "s3gym-warm-"));
    await writeSyntheticData(data, { models: ["m1"], games: ["chess"], pathways: ["history", "none"], exploreEpisodes: 3, checkpointEvery: 3, evalEpisodes: 2, stepsPerEpisode: [2, 4] });
    const tmp = mkdtempSync(join(tmpdir(), "s3gym-warm-tmp-"));
    const frames = join(tmp, "frames.v8");
    const saved = process.env.TMPDIR;
    process.env.TMPDIR = tmp;
    let code: number;
    try {
      code = await warmSqlCache(data, frames).done;
    } finally {
      if (saved === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = saved;
    }
    expect(code).toBe(0);
    expect(existsSync(`${frames}.writing`)).toBe(false);
    const dirs = notebookSettings({ S3GYM_DATA: data }).data;
    const own = await loadColumns(dirs);
    expect(own.steps.run_id.length).toBeGreaterThan(0);
    expect(readFramesSnapshot<FrameColumns>(frames, dirs)).toEqual(own);
  }, 60_000);

  it("a data directory that does not exist: a non-zero code, no throw", async () => {
    const { warmSqlCache } = (await import(built)) as typeof import("../../src/cli/reproduce/warmSqlCache.js");
    expect(await warmSqlCache(join(tmpdir(), "s3gym-no-such-dir-xyz")).done).not.toBe(0);
  }, 60_000);
});
