/** The SQL cache's housekeeping (sqlCache.ts): which build folders a build removes, on an injected clock. */
import { existsSync, mkdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { removeDeadBuilds } from "../../src/analysis/sql/sqlCache.js";
import { tempDir } from "./helpers.js";

describe("removeDeadBuilds", () => {
  it("removes a dead process's build and an earlier version's build untouched for an hour by the clock given; keeps a live one's, a fresh one's and other folders", () => {
    const dir = tempDir("s3gym-sqlcache-");
    const folders = {
      mine: `.build-${process.pid}-aaaaaa`,
      // No process has pid 2^22 + 1 (above Linux's pid_max ceiling of 2^22).
      dead: `.build-${2 ** 22 + 1}-bbbbbb`,
      legacy: ".build-cccccc",
      other: "keep-me",
    };
    for (const f of Object.values(folders)) mkdirSync(join(dir, f));
    const made = statSync(join(dir, folders.legacy)).mtimeMs;
    // 59 minutes after the legacy folder was last touched: it may still be building.
    removeDeadBuilds(dir, ".build-", () => made + 59 * 60 * 1000);
    expect(Object.values(folders).map((f) => existsSync(join(dir, f)))).toEqual([true, false, true, true]);
    // 61 minutes after: abandoned.
    removeDeadBuilds(dir, ".build-", () => made + 61 * 60 * 1000);
    expect(Object.values(folders).map((f) => existsSync(join(dir, f)))).toEqual([true, false, false, true]);
  });
});
