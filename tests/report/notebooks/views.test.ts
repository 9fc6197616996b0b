/**
 * Notebook 06 (views and cost) executed headless with the node engine against a small run played
 * with --views: every cell runs, its tables and figures display, and the files it writes are the
 * report's, byte for byte.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it, vi } from "vitest";
import { reportCommand } from "../../../src/cli/report/report.js";
import { getGame } from "../../../src/games/registry.js";
import { executedProblems, NOTEBOOK_ENGINES } from "../../../src/report/notebooks/engines.js";
import { runMatrix } from "../../../src/runner/loop/runLoop.js";
import { buildMatrix } from "../../../src/runner/loop/schedule.js";
import { tempDir } from "../../analysis/helpers.js";
import { factory, small } from "../../runner/helpers.js";

const ROOT = join(import.meta.dirname, "..", "..", "..");
const notBuilt = NOTEBOOK_ENGINES.node.check(ROOT)[0] ?? null;
const NB = "06_views_and_cost.ipynb";

let data: string;
let ref: string;
beforeAll(async () => {
  data = tempDir("s3gym-nb06-data-");
  const settings = {
    ...small({ exploreEpisodes: 4, checkpointEvery: 2, evalEpisodes: 2, maxSteps: 6 }),
    views: { extra: ["id", "replay"] as ("id" | "replay")[], viewEpisodes: 2, replayEpisodes: 2 },
  };
  const entries = buildMatrix(["builtin:learner"], ["snake"], ["history", "none"], 0);
  const outcomes = await runMatrix({ dataDir: data, entries, settings, game: getGame, createModel: factory() });
  expect(outcomes.map((o) => o.status)).toEqual(["complete", "complete"]);
  ref = tempDir("s3gym-nb06-ref-");
  const quiet = vi.spyOn(process.stdout, "write").mockImplementation(() => true);
  try {
    expect(await reportCommand(["--data", data, "--out", ref, "--bootstrap", "200"])).toBe(0);
  } finally {
    quiet.mockRestore();
  }
}, 120_000);

describe("notebook 06 with the node engine", () => {
  it.skipIf(notBuilt !== null)(
    `runs, shows the views' tables and figures, and writes the report's bytes${notBuilt ? ` (skipped: ${notBuilt})` : ""}`,
    async () => {
      const out = tempDir("s3gym-nb06-out-");
      const env = { S3GYM_DATA: data, S3GYM_OUT: out, S3GYM_BOOTSTRAP: "200", S3GYM_SEED: "0" };
      await NOTEBOOK_ENGINES.node.execute(ROOT, join(ROOT, "notebooks", NB), join(out, "notebooks"), env, 300);
      expect(executedProblems(join(out, "notebooks", NB))).toEqual([]);
      const nb = JSON.parse(readFileSync(join(out, "notebooks", NB), "utf8")) as { cells: { outputs?: { output_type: string; data?: Record<string, unknown> }[] }[] };
      const displays = nb.cells.flatMap((c) => c.outputs ?? []).filter((o) => o.output_type === "display_data");
      expect(displays.filter((o) => o.data?.["text/html"] !== undefined).length).toBe(5); // views, view_updates, forgetting, cost_runs, cost
      expect(displays.filter((o) => o.data?.["image/png"] !== undefined).length).toBe(2); // views_snake, cost_gain
      const files = ["views", "view_updates", "forgetting", "cost", "cost_runs"]
        .flatMap((t) => [`tables/${t}.csv`, `tables/${t}.md`])
        .concat(["views_snake.svg", "views_snake.png", "cost_gain.svg", "cost_gain.png"]);
      for (const f of files) {
        expect(existsSync(join(ref, f)), `report wrote ${f}`).toBe(true);
        expect(readFileSync(join(out, f)).equals(readFileSync(join(ref, f))), f).toBe(true);
      }
    },
    300_000,
  );
});
