/**
 * The reproduction's plan (src/cli/reproduce/reproducePlan.ts): the runs phase as typed jobs (every run of
 * the matrix, the views, the verified pathway, the ceiling, the judge dial and each training loop seed
 * in exactly one job, longest first), and the watched runs derived from the same jobs. (Moved from
 * tests/cli/jobPool.test.ts and tests/report/notebooks/prerequisites.test.ts when the plan left
 * src/cli/reproduce/reproduce.ts: the expectations read the jobs' settings instead of argv arrays.)
 */
import { describe, expect, it } from "vitest";
import {
  CEILING_MODEL,
  DEFAULT_SCHEDULE,
  DIAL_GAMES,
  DIAL_MODELS,
  DIAL_SCHEDULE,
  JUDGE_SWAP_MODEL,
  JUDGE_SWAP_NULLS,
  JUDGE_SWAP_NULL_RUN_SEEDS,
  JUDGE_SWAP_RUN_SEEDS,
  groupRuns,
  LEARNER_SEED_SHARDS,
  FLAT_REFERENCES,
  LOOP_SEED_STRIDE,
  MATRIX_SHARDS,
  REFERENCE_SHARDS,
  OFFLINE_MODELS,
  PAPER_SCHEDULE,
  planReproduction,
  QUICK_SCHEDULE,
  TRAINING_LABEL,
  VIEWS_SHARDS,
  watchedRuns,
  type ReproduceJob,
} from "../../src/cli/reproduce/reproducePlan.js";
import type { RunJobSettings } from "../../src/runner/settings/jobSettings.js";
import { buildMatrix, shardMatrix, totalEpisodes } from "../../src/runner/loop/schedule.js";
import { runId } from "../../src/runner/settings/runId.js";
import { GAME_NAMES } from "../../src/games/types.js";

/** The run jobs' settings. */
function runSettings(jobs: readonly ReproduceJob[]): (RunJobSettings & { name: string })[] {
  return jobs.flatMap((j) => (j.command === "run" ? [{ ...j.settings, name: j.name }] : []));
}

/** The run ids a run job plays, computed here from its settings: its models x games x pathways matrix, cut by its shard. */
function runIdsOf(s: RunJobSettings): string[] {
  const matrix = buildMatrix(s.models, s.games, s.pathways, s.settings.runSeed);
  // A run is known by its data directory and id: the judge dial's judge-1 runs share ids with the
  // matrix's builtin:learner runs, in another directory.
  return shardMatrix(matrix, s.shard).map((e) => `${s.data}|${e.runId}`);
}

const NOT_LEARNER = OFFLINE_MODELS.filter((m) => m !== "builtin:learner" && !(FLAT_REFERENCES as readonly string[]).includes(m));

describe("planReproduction", () => {
  const jobs = planReproduction(PAPER_SCHEDULE, "/d");

  it("starts with the training loops (one job per loop seed), then the views' shards, and plays every run exactly once", () => {
    const loops = jobs.flatMap((j) => (j.command === "train-loop" ? [j.settings] : []));
    expect(jobs.slice(0, 3).map((j) => j.command)).toEqual(["train-loop", "train-loop", "train-loop"]);
    // Three loop seeds far enough apart that no two loops explore a board in common (round r: seed + r - 1).
    expect(loops.map((s) => s.settings.runSeed)).toEqual([0, LOOP_SEED_STRIDE, 2 * LOOP_SEED_STRIDE]);
    expect(LOOP_SEED_STRIDE).toBeGreaterThan(PAPER_SCHEDULE.trainingRounds);
    expect(planReproduction(QUICK_SCHEDULE, "/d").filter((j) => j.command === "train-loop")).toHaveLength(1);
    expect(jobs[3]!.name).toBe(`views 1/${VIEWS_SHARDS}`);
    const dialSeeds = DIAL_SCHEDULE.paper.runSeeds;
    const swapSeeds = JUDGE_SWAP_RUN_SEEDS.paper;
    const nullSeeds = JUDGE_SWAP_NULL_RUN_SEEDS.paper;
    // The dial's jobs, one per further run seed of the judge swap's model, and one per run seed of its stochastic nulls.
    expect(jobs).toHaveLength(3 + VIEWS_SHARDS + 1 + 1 + 1 + dialSeeds + (swapSeeds - dialSeeds) + nullSeeds + MATRIX_SHARDS + REFERENCE_SHARDS);
    const played = runSettings(jobs).flatMap(runIdsOf);
    const dial = [
      ...Array.from({ length: dialSeeds }, (_, seed) => buildMatrix([...DIAL_MODELS], [...DIAL_GAMES], ["none", "history", "memory"], seed)).flat(),
      ...Array.from({ length: swapSeeds - dialSeeds }, (_, i) => buildMatrix([JUDGE_SWAP_MODEL], [...DIAL_GAMES], ["none", "history", "memory"], dialSeeds + i)).flat(),
      ...Array.from({ length: nullSeeds }, (_, seed) => buildMatrix([...JUDGE_SWAP_NULLS], [...DIAL_GAMES], ["none", "history", "memory"], seed)).flat(),
    ];
    // The judge swap's model is one of the dial's, so its first seeds are the dial's own runs; each job rejudges its own runs.
    expect(DIAL_MODELS as readonly string[]).toContain(JUDGE_SWAP_MODEL);
    for (const j of jobs.filter((x) => x.group === "dial")) {
      const rj = (j.settings as { rejudge?: { models: string[]; judges: string[] } | null }).rejudge!;
      expect(rj.judges).toEqual(["verifier", "shuffled", "none"]);
      expect(rj.models.length).toBeGreaterThan(0);
      for (const m of rj.models) expect((j.settings as { models: string[] }).models).toContain(m);
    }
    const expected = [
      ...buildMatrix(NOT_LEARNER, GAME_NAMES, ["none", "history", "memory"], 0),
      // The flat references play none only: their other pathways would replay the none run step for step.
      ...buildMatrix([...FLAT_REFERENCES], GAME_NAMES, ["none"], 0),
      ...buildMatrix(["builtin:learner"], GAME_NAMES, ["none", "history", "memory"], 0),
      ...buildMatrix(["builtin:learner"], GAME_NAMES, ["verified"], 0),
      ...buildMatrix([CEILING_MODEL], GAME_NAMES, ["none"], 0),
      ...buildMatrix(["builtin:learner"], ["chess", "minesweeper"], ["hybrid"], 0),
    ].map((r) => `/d|${r.runId}`);
    expect([...played].sort()).toEqual([...expected, ...dial.map((r) => `/d/dial|${r.runId}`)].sort());
    expect(new Set(played).size).toBe(played.length);
  });

  it("writes every shard into the one data directory (no shard subfolder: one machine, its locks keep them apart)", () => {
    const sharded = runSettings(jobs).filter((s) => s.shard !== null);
    expect(sharded.length).toBe(VIEWS_SHARDS + MATRIX_SHARDS + REFERENCE_SHARDS);
    for (const s of sharded) expect(s.shardSubdir).toBe(false);
  });

  it("gives every matrix shard a mix of the models (not one model per shard)", () => {
    for (const s of runSettings(jobs).filter((x) => x.name.startsWith("matrix"))) {
      const models = new Set(runIdsOf(s).map((id) => id.split("__")[2]!.replace(/-[0-9a-f]{8}$/, "")));
      expect(models.size, s.name).toBeGreaterThanOrEqual(3);
    }
  });

  it("gives the views only to the views' shards, and the dial its own data directory", () => {
    for (const s of runSettings(jobs)) {
      expect(s.settings.views !== undefined).toBe(s.name.startsWith("views"));
      // The judge dial (and the judge swap's further runs, on its schedule) has its own schedule, so its own data directory.
      expect(s.data).toBe(s.name.startsWith("judge dial") || s.name.startsWith("judge swap") ? "/d/dial" : "/d");
    }
  });

  it("the default matrix is the offline models (the learner's runs in the views' jobs), all games, none/history/memory, on the paper's schedule", () => {
    const [matrix, views] = [runSettings(jobs).find((s) => s.name.startsWith("matrix"))!, runSettings(jobs).find((s) => s.name.startsWith("views"))!];
    const references = runSettings(jobs).find((s) => s.name.startsWith("references"))!;
    expect(references.models).toEqual(["builtin:random", "builtin:heuristic", "builtin:perfect-judge"]);
    expect(references.pathways).toEqual(["none"]);
    expect(matrix.models).toEqual(["builtin:learner?judge=0.25", "builtin:random?noise=independent", "builtin:heuristic?noise=independent"]);
    expect(views.models).toEqual(["builtin:learner"]);
    expect(views.settings.views).toEqual({ extra: ["id", "replay"], viewEpisodes: 3, replayEpisodes: 3 });
    expect({ ...views.settings, views: undefined }).toEqual({ ...matrix.settings, views: undefined });
    expect(matrix.games).toEqual([...GAME_NAMES]);
    expect(matrix.pathways).toEqual(["none", "history", "memory"]);
    const s = matrix.settings;
    expect([s.exploreEpisodes, s.checkpointEvery, s.evalEpisodes, s.maxSteps, s.runSeed]).toEqual([30, 3, 3, 64, 0]);
    const q = runSettings(planReproduction(QUICK_SCHEDULE, "/d")).find((x) => x.name.startsWith("matrix"))!;
    expect([q.settings.exploreEpisodes, q.settings.evalEpisodes, q.settings.maxSteps]).toEqual([3, 2, 16]);
  });

  it("the verified runs are builtin:learner on every game, pathway verified, on the matrix's own schedule (one protocol per data directory)", () => {
    const v = runSettings(jobs).find((s) => s.name === "verified")!;
    expect([v.models, v.games, v.pathways, v.data]).toEqual([["builtin:learner"], [...GAME_NAMES], ["verified"], "/d"]);
    expect(v.verified).toEqual({ broadBatch: 5, verifierModel: null });
    const m = runSettings(jobs).find((s) => s.name.startsWith("matrix"))!;
    expect(v.settings).toEqual(m.settings);
  });

  it("Figure 7 is builtin:learner's offline training loop: 19 rounds (20 checkpoints) with the builtin trainer", () => {
    const loop = jobs[0]!;
    if (loop.command !== "train-loop") throw new Error("the first job is a training loop");
    expect([loop.settings.model, loop.settings.trainer, loop.settings.rounds, loop.settings.label]).toEqual(["builtin:learner", "builtin", 19, TRAINING_LABEL]);
    expect(loop.settings.sft.threshold).toBe(0.01);
  });
});

describe("the learner cells' run seeds", () => {
  const LEARNERS = ["builtin:learner", "builtin:learner?judge=0.25"];
  /** Per (model, game, pathway) of the data directory's matrix pathways: the run seeds played. */
  function seedsByCell(jobs: readonly ReproduceJob[]): Map<string, number[]> {
    const cells = new Map<string, number[]>();
    for (const s of runSettings(jobs).filter((x) => x.data === "/d" && x.training === null)) {
      for (const e of shardMatrix(buildMatrix(s.models, s.games, s.pathways, s.settings.runSeed), s.shard)) {
        if (!["none", "history", "memory"].includes(e.pathway)) continue;
        const key = `${e.model}|${e.game}|${e.pathway}`;
        cells.set(key, [...(cells.get(key) ?? []), s.settings.runSeed].sort());
      }
    }
    return cells;
  }

  it("the default and quick designs play every learner cell at 3 run seeds and every other cell at run seed 0 once; the paper's design one", () => {
    for (const [schedule, n] of [
      [DEFAULT_SCHEDULE, 3],
      [QUICK_SCHEDULE, 3],
      [PAPER_SCHEDULE, 1],
    ] as const) {
      const cells = seedsByCell(planReproduction(schedule, "/d"));
      // 4 models x 7 games x 3 pathways (the learners and the stochastic nulls), the 3 flat references' and the ceiling's none runs, each exactly once per seed.
      expect(cells.size, schedule.name).toBe(4 * 7 * 3 + 3 * 7 + 7);
      for (const [key, seeds] of cells) {
        const model = key.split("|")[0]!;
        expect(seeds, `${schedule.name} ${key}`).toEqual(LEARNERS.includes(model) ? Array.from({ length: n }, (_, i) => i) : [0]);
      }
    }
  });

  it("the further seeds play the matrix's protocol without the views, in their own shards", () => {
    const jobs = planReproduction(DEFAULT_SCHEDULE, "/d");
    const extra = runSettings(jobs).filter((s) => s.name.startsWith("learners"));
    expect(extra).toHaveLength(2 * LEARNER_SEED_SHARDS);
    const matrix = runSettings(jobs).find((s) => s.name.startsWith("matrix"))!;
    for (const s of extra) {
      expect(s.settings.views).toBeUndefined();
      expect({ ...s.settings, runSeed: 0 }).toEqual(matrix.settings);
      expect(s.models).toEqual(LEARNERS);
    }
    expect(extra.map((s) => s.name)).toContain(`learners, run seed 2, ${LEARNER_SEED_SHARDS}/${LEARNER_SEED_SHARDS}`);
  });
});

describe("watchedRuns", () => {
  it("are the matrix's, the views', the verified, the ceiling's, the hybrid and the loops' evaluation runs, in that order, with their episodes; not the dial's", () => {
    for (const schedule of [PAPER_SCHEDULE, QUICK_SCHEDULE]) {
      const jobs = planReproduction(schedule, "/d");
      const loop = totalEpisodes(schedule.exploreEpisodes, schedule.checkpointEvery, schedule.evalEpisodes);
      // The views: the id view's episodes at each of the 11 (paper) or 2 (quick) checkpoints, and the replay view's min(K, x) at checkpoint x.
      const checkpoints = schedule.name === "quick" ? [0, 3] : Array.from({ length: 11 }, (_, i) => 3 * i);
      const views = loop + checkpoints.reduce((a, c) => a + schedule.evalEpisodes + Math.min(3, c), 0);
      const of = (models: string[], pathways: string[], total: number, runSeed = 0) => buildMatrix(models, GAME_NAMES, pathways, runSeed).map((e) => ({ runId: e.runId, totalEpisodes: total }));
      // The matrix group: its shards and the learner cells' further run seeds, as one list by run id.
      const further = Array.from({ length: schedule.learnerRunSeeds - 1 }, (_, i) => of(["builtin:learner", "builtin:learner?judge=0.25"], ["none", "history", "memory"], loop, i + 1)).flat();
      const matrix = [...of(NOT_LEARNER, ["none", "history", "memory"], loop), ...of([...FLAT_REFERENCES], ["none"], loop), ...further].sort((a, b) =>
        a.runId < b.runId ? -1 : a.runId > b.runId ? 1 : 0,
      );
      const seeds = schedule.name === "quick" ? [0] : [0, 100, 200];
      const training = seeds.flatMap((runSeed) =>
        GAME_NAMES.map((game) => ({ runId: runId({ game, pathway: "training", model: TRAINING_LABEL, runSeed }), totalEpisodes: (schedule.trainingRounds + 1) * schedule.trainingEvalEpisodes })),
      );
      expect(watchedRuns(jobs)).toEqual([
        ...matrix,
        ...of(["builtin:learner"], ["none", "history", "memory"], views),
        // The verified and hybrid runs at every learner run seed (the paper design: one).
        ...Array.from({ length: schedule.learnerRunSeeds }, (_, s) => of(["builtin:learner"], ["verified"], loop, s))
          .flat()
          .sort((a, b) => (a.runId < b.runId ? -1 : a.runId > b.runId ? 1 : 0)),
        ...of([CEILING_MODEL], ["none"], loop),
        ...Array.from({ length: schedule.learnerRunSeeds }, (_, s) => buildMatrix(["builtin:learner"], ["chess", "minesweeper"], ["hybrid"], s).map((e) => ({ runId: e.runId, totalEpisodes: loop })))
          .flat()
          .sort((a, b) => (a.runId < b.runId ? -1 : a.runId > b.runId ? 1 : 0)),
        ...training,
      ]);
      const extraSwapSeeds = Math.max(0, JUDGE_SWAP_RUN_SEEDS[schedule.name] - DIAL_SCHEDULE[schedule.name].runSeeds);
      expect(groupRuns(jobs, "dial").length).toBe(
        (DIAL_SCHEDULE[schedule.name].runSeeds * DIAL_MODELS.length + extraSwapSeeds + JUDGE_SWAP_NULL_RUN_SEEDS[schedule.name] * JUDGE_SWAP_NULLS.length) * DIAL_GAMES.length * 3,
      );
    }
  });
});
