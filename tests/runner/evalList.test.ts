import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { getGame } from "../../src/games/registry.js";
import { readRunRecords } from "../../src/logs/reader.js";
import type { Model } from "../../src/models/types.js";
import { runCheckpointList } from "../../src/runner/loop/evalList.js";
import { runMatrix } from "../../src/runner/loop/runLoop.js";
import { runDir } from "../../src/logs/runDir.js";
import { buildMatrix } from "../../src/runner/loop/schedule.js";
import { evalSeeds } from "../../src/runner/loop/seeds.js";
import { factory, implementedGames, RecordingModel, small } from "./helpers.js";

const game = implementedGames()[0]!;

describe("evaluating a list of model checkpoints (training runs)", () => {
  it("plays every epoch on the shared eval seeds with no experience, phase eval, checkpoint = epoch; resumable", async () => {
    const data = mkdtempSync(join(tmpdir(), "s3list-"));
    const settings = small({ evalEpisodes: 2 });
    const recorders: RecordingModel[] = [];
    const make = factory((_n: string, m: Model) => {
      const r = new RecordingModel(m);
      recorders.push(r);
      return r;
    });
    const checkpoints = [
      { checkpoint: 0, model: "builtin:random" },
      { checkpoint: 1, model: "builtin:heuristic" },
    ];
    const o = await runCheckpointList({ dataDir: data, modelName: "toy-sft", game: getGame(game), settings, checkpoints, createModel: make });
    expect(o.status).toBe("complete");
    const r = await readRunRecords(runDir(data, o.runId));
    expect(r.manifest).toMatchObject({ pathway: "training", model: "toy-sft", status: "complete", eval_seeds: evalSeeds(0, game, 2) });
    expect((r.manifest!.config as { checkpoints: number[] }).checkpoints).toEqual([0, 1]);
    expect(r.checkpoints.map((c) => c.checkpoint).sort()).toEqual([0, 1]);
    expect(r.episodes.every((e) => e.phase === "eval" && e.pathway === "training")).toBe(true);
    expect([...new Set(r.episodes.map((e) => e.seed))].sort()).toEqual([...evalSeeds(0, game, 2)].sort());
    // Epoch 0 was answered by the random policy, epoch 1 by the heuristic, with no experience block.
    expect(r.steps.filter((s) => s.checkpoint === 0).every((s) => s.response.startsWith("(random policy)"))).toBe(true);
    expect(r.steps.filter((s) => s.checkpoint === 1).every((s) => s.response.startsWith("(heuristic policy)"))).toBe(true);
    expect(recorders.flatMap((x) => x.requests).every((q) => !q.messages[1]!.content.includes("<experience>"))).toBe(true);
    expect(r.calls).toHaveLength(r.steps.length);

    // Same eval seeds as a History run of the same game: paired with the other pathways.
    const entries = buildMatrix(["builtin:heuristic"], [game], ["history"], 0);
    await runMatrix({ dataDir: data, entries, settings: small({ exploreEpisodes: 0, evalEpisodes: 2 }), game: getGame, createModel: factory() });
    const h = await readRunRecords(runDir(data, entries[0]!.runId));
    expect(h.manifest!.eval_seeds).toEqual(r.manifest!.eval_seeds);

    // Adding an epoch later plays only the new one.
    const again = await runCheckpointList({
      dataDir: data,
      modelName: "toy-sft",
      game: getGame(game),
      settings,
      checkpoints: [...checkpoints, { checkpoint: 2, model: "builtin:heuristic" }],
      createModel: make,
    });
    expect(again.checkpoints.map((c) => c.checkpoint)).toEqual([0, 1, 2]);
    const r2 = await readRunRecords(runDir(data, o.runId));
    expect(r2.episodes).toHaveLength(6);
  });
});

describe("builtin:oracle", () => {
  it("gets the live state through `privileged` and self-scores exactly (the perfect judge)", async () => {
    const data = mkdtempSync(join(tmpdir(), "s3oracle-"));
    const entries = buildMatrix(["builtin:oracle"], [game], ["none"], 0);
    const [o] = await runMatrix({ dataDir: data, entries, settings: small(), game: getGame, createModel: factory() });
    expect(o!.status).toBe("complete");
    const r = await readRunRecords(runDir(data, entries[0]!.runId));
    expect(r.steps.length).toBeGreaterThan(0);
    for (const s of r.steps) expect(s.self_score).toBe(s.reward);
  });
});
