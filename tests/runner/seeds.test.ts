import { describe, expect, it } from "vitest";
import { evalSeeds, exploreSeeds } from "../../src/runner/loop/seeds.js";
import { runId } from "../../src/runner/settings/runId.js";
import { buildMatrix, checkpointList, parseShard, planRuns, shardMatrix, totalEpisodes } from "../../src/runner/loop/schedule.js";
import { GAME_NAMES } from "../../src/games/types.js";

describe("seeds", () => {
  it("explore and eval lists are disjoint by construction for every game and many run seeds", () => {
    for (const game of GAME_NAMES)
      for (let runSeed = 0; runSeed < 50; runSeed++) {
        const ex = exploreSeeds(runSeed, game, 30);
        const ev = evalSeeds(runSeed, game, 30);
        expect(new Set(ex).size).toBe(30);
        expect(new Set(ev).size).toBe(30);
        expect(ex.filter((s) => ev.includes(s))).toEqual([]);
        for (const s of [...ex, ...ev]) expect(Number.isSafeInteger(s) && s >= 0).toBe(true);
      }
  });
  it("depend only on (run seed, game) and are prefix-stable", () => {
    expect(exploreSeeds(3, "snake", 5)).toEqual(exploreSeeds(3, "snake", 30).slice(0, 5));
    expect(evalSeeds(3, "snake", 3)).toEqual(evalSeeds(3, "snake", 10).slice(0, 3));
    expect(evalSeeds(3, "snake", 3)).not.toEqual(evalSeeds(4, "snake", 3));
    expect(evalSeeds(3, "snake", 3)).not.toEqual(evalSeeds(3, "tetris", 3));
  });
  it("rejects a bad run seed", () => {
    expect(() => exploreSeeds(-1, "snake", 3)).toThrow(/run seed/);
  });
});

describe("run id", () => {
  it("is deterministic, one safe path segment, and tells apart specs that slug alike", () => {
    const a = runId({ game: "snake", pathway: "history", model: "openai:qwen/qwen3-8b:free", runSeed: 0 });
    expect(a).toBe(runId({ game: "snake", pathway: "history", model: "openai:qwen/qwen3-8b:free", runSeed: 0 }));
    expect(a).toMatch(/^[A-Za-z0-9._-]+$/);
    expect(a).not.toBe(runId({ game: "snake", pathway: "history", model: "openai:qwen_qwen3-8b:free", runSeed: 0 }));
    expect(a).not.toBe(runId({ game: "snake", pathway: "history", model: "openai:qwen/qwen3-8b:free", runSeed: 1 }));
    expect(runId({ game: "snake", pathway: "memory", model: "../../etc/passwd", runSeed: 0 })).not.toContain("/");
  });
  it("does not depend on the folder of a content-addressed learner checkpoint (the loop's results must not depend on where the data lives)", () => {
    const at = (model: string) => runId({ game: "snake", pathway: "training", model, runSeed: 1 });
    const name = "learner-0123456789abcdef.json";
    const here = at(`builtin:learner@/home/a/s3gym/data/checkpoints/${name}`);
    expect(at(`builtin:learner@/tmp/clone/data/checkpoints/${name}`)).toBe(here);
    expect(at(`builtin:learner@data\\checkpoints\\${name}`)).toBe(here);
    expect(at(`builtin:learner@${name}`)).toBe(here);
    expect(here).not.toContain("home");
    // Other content, other options, or a file not named by its content: other runs.
    expect(at("builtin:learner@/x/learner-fedcba9876543210.json")).not.toBe(here);
    expect(at(`builtin:learner@/x/${name}?judge=0.5`)).not.toBe(here);
    expect(at(`builtin:learner@/x/${name}?judge=0.5`)).toBe(at(`builtin:learner@/y/${name}?judge=0.5`));
    expect(at("builtin:learner@/x/mine.json")).not.toBe(at("builtin:learner@/y/mine.json"));
    expect(at("builtin:learner@/x/learner-0123.json")).not.toBe(at("builtin:learner@/y/learner-0123.json"));
  });
});

describe("schedule", () => {
  it("checkpoints 0, every, 2*every, ... up to N (protocol defaults give 11)", () => {
    expect(checkpointList(30, 3)).toEqual([0, 3, 6, 9, 12, 15, 18, 21, 24, 27, 30]);
    expect(checkpointList(10, 3)).toEqual([0, 3, 6, 9]);
    expect(checkpointList(0, 3)).toEqual([0]);
    expect(totalEpisodes(30, 3, 3)).toBe(63);
    expect(() => checkpointList(3, 0)).toThrow(/checkpoint-every/);
  });
  it("shards partition the matrix deterministically, whatever the flag order", () => {
    const m = buildMatrix(["builtin:random", "builtin:heuristic"], [...GAME_NAMES], ["none", "history", "memory"], 0);
    const m2 = buildMatrix(["builtin:heuristic", "builtin:random"], [...GAME_NAMES].reverse(), ["memory", "none", "history"], 0);
    expect(m).toEqual(m2);
    expect(m).toHaveLength(42);
    const shards = [1, 2, 3, 4, 5].map((i) => shardMatrix(m, { index: i, count: 5 }).map((e) => e.runId));
    const all = shards.flat();
    expect(new Set(all).size).toBe(42);
    expect(all.sort()).toEqual(m.map((e) => e.runId).sort());
    for (const s of shards) expect(s.length === 8 || s.length === 9).toBe(true);
  });
  it("planRuns: one sorted list of the protocol-loop runs and a training run per game, cut by the shard alike, then split by kind", () => {
    const games = ["chess", "snake"];
    const whole = planRuns({ models: ["builtin:random"], games, pathways: ["none", "training", "history"], runSeed: 4, trainingLabel: "ckpts", shard: null });
    expect(whole.matrix.map((e) => e.runId)).toEqual([...whole.matrix.map((e) => e.runId)].sort());
    expect(whole.entries.map((e) => e.pathway).sort()).toEqual(["history", "history", "none", "none"]);
    expect(whole.trainingRuns.map((e) => [e.model, e.game, e.pathway, e.runSeed])).toEqual([
      ["ckpts", "chess", "training", 4],
      ["ckpts", "snake", "training", 4],
    ]);
    expect(whole.selected).toEqual(whole.matrix);
    const halves = [1, 2].map((index) => planRuns({ models: ["builtin:random"], games, pathways: ["none", "training", "history"], runSeed: 4, trainingLabel: "ckpts", shard: { index, count: 2 } }));
    for (const h of halves) {
      expect(h.matrix).toEqual(whole.matrix);
      expect(h.selected).toEqual(shardMatrix(whole.matrix, h === halves[0] ? { index: 1, count: 2 } : { index: 2, count: 2 }));
      expect([...h.entries, ...h.trainingRuns]).toHaveLength(h.selected.length);
    }
    // Without a training label, pathway training plays nothing here (s3gym run requires the label with it).
    expect(planRuns({ models: ["builtin:random"], games, pathways: ["none"], runSeed: 0, trainingLabel: null, shard: null }).trainingRuns).toEqual([]);
  });
  it("parses i/n and rejects nonsense", () => {
    expect(parseShard("2/4")).toEqual({ index: 2, count: 4 });
    for (const bad of ["0/4", "5/4", "a/b", "1", "1/0"]) expect(() => parseShard(bad)).toThrow(/shard/);
  });
});
