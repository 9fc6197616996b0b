/**
 * Red team, item 3 of issue 12: resume never loses evaluation steps. Damage a finished run's logs
 * the ways the red team did, rerun the same command, and the run is complete again with every step:
 * a checkpoint record never outlives the episodes it claims.
 */
import { mkdtempSync, readFileSync, truncateSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { getGame } from "../../src/games/registry.js";
import { runDir } from "../../src/logs/runDir.js";
import { runMatrix } from "../../src/runner/loop/runLoop.js";
import { buildMatrix } from "../../src/runner/loop/schedule.js";
import { factory, readCompleteRun, small } from "../runner/helpers.js";

const settings = small({ exploreEpisodes: 4, checkpointEvery: 2, evalEpisodes: 2 });

async function run(data: string, pathway: string) {
  const entries = buildMatrix(["builtin:heuristic"], ["snake"], [pathway], 0);
  const [o] = await runMatrix({ dataDir: data, entries, settings, game: getGame, createModel: factory() });
  return { outcome: o!, dir: runDir(data, entries[0]!.runId) };
}

/** Keeps the lines of a JSONL file that `keep` accepts. */
function filterLines(path: string, keep: (r: Record<string, unknown>, i: number) => boolean): void {
  const lines = readFileSync(path, "utf8")
    .split("\n")
    .filter((l) => l.length > 0);
  writeFileSync(
    path,
    lines
      .filter((l, i) => keep(JSON.parse(l) as Record<string, unknown>, i))
      .map((l) => `${l}\n`)
      .join(""),
  );
}

async function damagedAndRerun(pathway: string, damage: (dir: string) => void): Promise<void> {
  const data = mkdtempSync(join(tmpdir(), "s3resume-loss-"));
  const first = await run(data, pathway);
  expect(first.outcome.status).toBe("complete");
  const before = await readCompleteRun(first.dir, settings);
  damage(first.dir);
  const second = await run(data, pathway);
  expect(second.outcome.status).toBe("complete");
  const after = await readCompleteRun(second.dir, settings, { resumed: true });
  expect(after.steps).toHaveLength(before.steps.length);
  const byX = (r: typeof before) => r.checkpoints.map((c) => [c.checkpoint, c.scores] as const).sort((a, b) => a[0] - b[0]);
  expect(byX(after)).toEqual(byX(before));
}

describe("resume after damaged logs", () => {
  it("an emptied episodes.jsonl: every episode is played again, no checkpoint stays without its episodes", async () => {
    await damagedAndRerun("history", (dir) => writeFileSync(join(dir, "episodes.jsonl"), ""));
  });

  it("the last 40 bytes of steps.jsonl cut: the cut episode is played again and its checkpoint rewritten", async () => {
    await damagedAndRerun("history", (dir) => {
      const p = join(dir, "steps.jsonl");
      truncateSync(p, statSync(p).size - 40);
    });
  });

  it("a gap in an evaluation episode's step indices replays that episode", async () => {
    await damagedAndRerun("memory", (dir) => filterLines(join(dir, "steps.jsonl"), (r) => !(r.phase === "eval" && r.checkpoint === 2 && r.episode === 0 && r.step === 1)));
  });

  it("a middle exploration episode lost: what was built on it is played again instead of an error", async () => {
    await damagedAndRerun("memory", (dir) => filterLines(join(dir, "episodes.jsonl"), (r) => !(r.phase === "explore" && r.episode === 2)));
  });
});
