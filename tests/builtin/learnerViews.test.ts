/**
 * SEAGym's id and replay views play the explore config in an EVALUATION role (views.md): the learner
 * must play them greedily, like the eval view. Played with its exploration rule instead (the config's
 * name decided its phase), the replay view "forgot" seeds its flat eval curve never lost: on this
 * schedule (12 exploration episodes, a checkpoint every 4) tetris' replay view forgot 3 of 3 seeds.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadDataset } from "../../src/analysis/load/dataset.js";
import { analyzeViews } from "../../src/analysis/tables/viewTables.js";
import { getGame } from "../../src/games/registry.js";
import { runMatrix } from "../../src/runner/loop/runLoop.js";
import { buildMatrix } from "../../src/runner/loop/schedule.js";
import { factory } from "../runner/helpers.js";
import { learnerSettings } from "./learnerHelpers.js";

describe("builtin:learner in the id and replay views", () => {
  it("the replay view forgets at most one seed, FR's interval covering 0", { timeout: 120_000 }, async () => {
    const data = mkdtempSync(join(tmpdir(), "s3learner-views-"));
    const settings = {
      ...learnerSettings({ exploreEpisodes: 12, checkpointEvery: 4, evalEpisodes: 3, maxSteps: 24 }),
      views: { extra: ["id", "replay"] as ("id" | "replay")[], viewEpisodes: 3, replayEpisodes: 3 },
    };
    const entries = buildMatrix(["builtin:learner"], ["tetris", "minesweeper"], ["history"], 0);
    const outcomes = await runMatrix({ dataDir: data, entries, settings, game: getGame, createModel: factory() });
    for (const o of outcomes) expect(o.status).toBe("complete");
    const ds = await loadDataset(data);
    const { forgetting } = analyzeViews(ds, { B: 200, seed: 0 });
    expect(forgetting.rows.length).toBe(2);
    for (const row of forgetting.rows) {
      expect(row.forgotten).toBeLessThanOrEqual(1);
      expect(row.fr.lo).toBe(0);
    }
  });
});
