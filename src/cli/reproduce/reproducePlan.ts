/**
 * The reproduction's plan (`s3gym reproduce`, src/cli/reproduce/reproduce.ts), pure: its schedules, the models
 * and pathways it plays, and the runs phase as a list of typed jobs, each the settings object
 * `s3gym run` or `s3gym train-loop` builds from its flags (src/runner/settings/jobSettings.ts,
 * src/training/loopJob.ts). No I/O and no argv: reproduce writes each job to a file and starts
 * `s3gym <command> --job FILE`. The runs reproduce watches (its progress line) derive from the same jobs.
 *
 * In training/ rather than runner/: a train-loop job carries BuildSFT's settings, whose types are
 * training's, and runner/ may not import training/ (docs/architecture.md); training/ is the lowest
 * layer that sees both kinds of job.
 */
import { join } from "node:path";
import { GAME_NAMES } from "../../games/types.js";
import { DIAL_SUBDIR } from "../../logs/runDir.js";
import { EXTRA_VIEWS } from "../../logs/schema.js";
import { DEFAULT_MATRIX_PATHWAYS, playsProtocolLoop, TRAINING_PATHWAY } from "../../pathways/registry.js";
import { DEFAULT_BROAD_BATCH } from "../../pathways/verified.js";
import type { RunJobSettings } from "../../runner/settings/jobSettings.js";
import { DEFAULT_SETTINGS } from "../../runner/loop/context.js";
import type { DataProbeSpec } from "../../runner/probe/memoryProbe.js";
import type { ProtocolSettings } from "../../runner/settings/protocolSettings.js";
import { runId } from "../../runner/settings/runId.js";
import { planRuns, totalEpisodes } from "../../runner/loop/schedule.js";
import { DEFAULT_REPLAY_EPISODES, viewEpisodeTotal } from "../../runner/loop/views.js";
import { defaultLoopLabel, type Job, type TrainLoopJobSettings } from "../../training/loopJob.js";

/** Evaluation episodes per checkpoint of the default design (DEFAULT_SCHEDULE). */
export const DESIGN_EVAL_EPISODES = 10;

/**
 * The stochastic nulls (models/modelSpec.ts NoiseMode): random and heuristic drawing independently at
 * every checkpoint and pathway, as a sampled LLM does, so their gains are noise around a true 0 and the
 * null check has intervals that can exclude 0 (the plain random and heuristic replay the same draws
 * everywhere: flat references, gains exactly 0).
 */
export const STOCHASTIC_NULLS = ["builtin:random?noise=independent", "builtin:heuristic?noise=independent"] as const;
/** The offline models of the default matrix: floor, reference and perfect-judge lines (not LLMs), and the stochastic nulls. */
export const OFFLINE_MODELS = ["builtin:random", "builtin:heuristic", "builtin:perfect-judge", "builtin:learner", "builtin:learner?judge=0.25", ...STOCHASTIC_NULLS] as const;
/**
 * The matrix's models that learn: each of their cells (game x pathway) is played at
 * Schedule.learnerRunSeeds run seeds, so their tables' intervals resample runs and speak of the model's
 * expected result over exploration runs, not of one run. The others keep run seed 0 (they cannot learn:
 * one run is their whole result). The views are played at run seed 0 only.
 */
export const MATRIX_LEARNERS = ["builtin:learner", "builtin:learner?judge=0.25"] as const;
/**
 * The flat references: deterministic built-ins that ignore their experience and, under common random
 * numbers, replay the same draws in every pathway, so a history or memory run of theirs repeats their
 * none run step for step (gains exactly 0, intervals [0, 0]: rows no check can read). They play the
 * `none` pathway only, as the reference lines (floor, heuristic, perfect judge) the tables and figures
 * draw; the stochastic nulls carry the matrix's null rows.
 */
export const FLAT_REFERENCES = ["builtin:random", "builtin:heuristic", "builtin:perfect-judge"] as const;
/**
 * The ceiling line (games/ceiling.ts): an instrument that reads the hidden state, so no experience
 * pathway can change its play; it runs the `none` pathway only, as its own job (7 runs).
 */
export const CEILING_MODEL = "builtin:ceiling";
/**
 * The model whose runs also play the evaluation views (views.md: `--views eval,id,replay`): the
 * learner, the one offline model whose experience changes its play, so the views' tables have rows
 * that move. Its runs are the matrix's (same run ids, same eval episodes: views never change them),
 * played by their own jobs.
 */
export const VIEWS_MODEL = "builtin:learner";
/**
 * The experience pathways of the default matrix: the registry's `inDefaultMatrix` ones (not `verified`,
 * which the reproduction runs for the learner only, its roles making it the costlier pathway per
 * episode; not `training`, which train-loop plays).
 */
export const PATHWAYS: readonly string[] = DEFAULT_MATRIX_PATHWAYS;

/** A schedule: the protocol numbers of the runs, and the training loop's. */
export interface Schedule {
  name: "default" | "paper" | "quick";
  exploreEpisodes: number;
  checkpointEvery: number;
  evalEpisodes: number;
  maxSteps: number;
  /** Rounds of Figure 7's offline training loop of builtin:learner (rounds + 1 checkpoints). */
  trainingRounds: number;
  /** Exploration episodes per game per round of that loop. */
  loopExploreEpisodes: number;
  /** Evaluation episodes per checkpoint of that loop. */
  trainingEvalEpisodes: number;
  /** Run seeds (0..n-1) of every MATRIX_LEARNERS cell. */
  learnerRunSeeds: number;
}

/** The paper's design (`--paper-design`): 3 evaluation episodes per checkpoint, one run seed. */
export const PAPER_SCHEDULE: Schedule = {
  name: "paper",
  exploreEpisodes: 30,
  checkpointEvery: 3,
  evalEpisodes: 3,
  maxSteps: 64,
  trainingRounds: 19,
  loopExploreEpisodes: 3,
  trainingEvalEpisodes: 3,
  learnerRunSeeds: 1,
};
/**
 * Run seeds of each learner cell in the default and quick designs: three, the fewest with which a
 * resampling of runs has more than a handful of distinct draws, so the tables can state the model's
 * expected result (the paper's design keeps its one run: its tables say "this run").
 */
export const LEARNER_RUN_SEEDS = 3;
/**
 * The default design: the paper's schedule with DESIGN_EVAL_EPISODES evaluation episodes per
 * checkpoint, so that the learner's gains can reach p < 0.05 (with 3 seeds the exact sign-flip test
 * cannot go below 0.25) and rest on enough seeds not to be indicative; chosen with `s3gym power`
 * (docs/notebooks.md). Figure 7's loop keeps the paper's 3 per checkpoint (descriptive, no test).
 */
export const DEFAULT_SCHEDULE: Schedule = { ...PAPER_SCHEDULE, name: "default", evalEpisodes: DESIGN_EVAL_EPISODES, learnerRunSeeds: LEARNER_RUN_SEEDS };
export const QUICK_SCHEDULE: Schedule = {
  name: "quick",
  exploreEpisodes: 3,
  checkpointEvery: 3,
  evalEpisodes: 2,
  maxSteps: 16,
  trainingRounds: 3,
  loopExploreEpisodes: 1,
  trainingEvalEpisodes: 2,
  learnerRunSeeds: LEARNER_RUN_SEEDS,
};

/** The model the verified pathway is reproduced with (7 runs: the learner answers every role offline). */
export const VERIFIED_MODEL = "builtin:learner";

/** The label of the training loop's runs (the `model` of its records, Figure 7's legend). */
export const TRAINING_LABEL = "builtin:learner+train-loop";
/** The model the loop trains: the learner with a fair judge. */
export const TRAINING_MODEL = "builtin:learner";
/**
 * BuildSFT's threshold in the loop: keep steps the learner scored above 0 (its fair estimates are 0
 * for most steps of every tactic, so the protocol's default 0 would keep nearly everything).
 */
export const LOOP_THRESHOLD = 0.01;

/**
 * Figure 7's loop seeds: one train-loop per seed, each its own job. Round r of a loop explores with
 * run seed (its seed + r - 1), so seeds one apart would share the boards of all but one round; a
 * stride above the rounds keeps every loop's exploration and evaluation boards its own. Three seeds:
 * measured, the d_final of one loop's snake and trust ranged -20.7..+16.3 across seeds (docs/learner.md),
 * so one loop cannot say whether a fall is the loop's or the seed's. `--quick` keeps one.
 */
export const LOOP_SEED_STRIDE = 100;
export function loopRunSeeds(schedule: Schedule): number[] {
  if (schedule.trainingRounds >= LOOP_SEED_STRIDE) throw new Error(`loop seeds ${LOOP_SEED_STRIDE} apart need fewer than ${LOOP_SEED_STRIDE} rounds, got ${schedule.trainingRounds}`);
  return Array.from({ length: schedule.name === "quick" ? 1 : 3 }, (_, i) => i * LOOP_SEED_STRIDE);
}

/**
 * The judge dial (learner.md, "What the reproduction must show"): builtin:learner at five judge
 * settings on games where it gains, every pathway a gain needs (none is the control), on a shorter
 * schedule of its own (12 exploration episodes, a checkpoint every 3, 4 evaluation episodes, 32 steps;
 * measured: about 1 CPU-s per run) and so in its own data directory, <data>/dial (report reads it).
 * DIAL_RUN_SEEDS run seeds, each its own job.
 */
export const DIAL_MODELS = ["builtin:learner?judge=0", "builtin:learner?judge=0.25", "builtin:learner?judge=0.5", "builtin:learner?judge=0.75", "builtin:learner"] as const;
export const DIAL_GAMES = ["minesweeper", "nullify", "pvz", "tetris"] as const;
const DIAL_FULL = { exploreEpisodes: 12, checkpointEvery: 3, evalEpisodes: 4, maxSteps: 32, runSeeds: 2 } as const;
/** The dial's own protocol per schedule: the default and the paper design share one (the dial is not a paper table). */
export const DIAL_SCHEDULE = { default: DIAL_FULL, paper: DIAL_FULL, quick: { exploreEpisodes: 3, checkpointEvery: 3, evalEpisodes: 2, maxSteps: 16, runSeeds: 1 } } as const;

/**
 * Shards of the matrix and of the views' runs: small enough that two slots end close together, and
 * counts that share no factor with the matrix's model x pathway x game layout. A shard takes every
 * n-th run of the sorted matrix, so 8 shards of 4 models x 3 pathways x 7 games gave each shard one
 * model (the oracle's two shards took 3-4x the random's); 11 mixes them (measured: the 11 shards'
 * run times within +-13% of their mean), 3 does for the 21 views' runs.
 */
export const MATRIX_SHARDS = 11;
/** Shards of the flat references' 21 none runs (3 models x 7 games: 2 shares no factor). */
export const REFERENCE_SHARDS = 2;
export const VIEWS_SHARDS = 3;
/** Shards of each further run seed of the learner cells (2 models x 3 pathways x 7 games: 5 shares no factor). */
export const LEARNER_SEED_SHARDS = 5;

/** Which part of the reproduction a job plays (the watched runs and the tests group by it). */
export type JobGroup = "training" | "views" | "verified" | "ceiling" | "dial" | "matrix" | "hybrid";

/** One job of the runs phase: its name (printed as is), its part, and the command's settings. */
export type ReproduceJob = Job & { group: JobGroup };

/** The protocol settings of a run job: the schedule's numbers, every other setting at its flag's default. */
function runSettings(s: Pick<ProtocolSettings, "exploreEpisodes" | "checkpointEvery" | "evalEpisodes" | "maxSteps">, extra: Partial<ProtocolSettings> = {}): ProtocolSettings {
  return { ...DEFAULT_SETTINGS, exploreEpisodes: s.exploreEpisodes, checkpointEvery: s.checkpointEvery, evalEpisodes: s.evalEpisodes, maxSteps: s.maxSteps, ...extra };
}

/** A `s3gym run` job's settings on every game of `dataDir`, whole (no shard), no training or verified part. */
function runJob(models: readonly string[], pathways: readonly string[], dataDir: string, settings: ProtocolSettings): RunJobSettings {
  return { models: [...models], games: [...GAME_NAMES], pathways: [...pathways], data: dataDir, settings, shard: null, shardSubdir: true, training: null, verified: null };
}

/** The default matrix's runs (every offline model but VIEWS_MODEL, whose runs are the views' jobs). */
/** The flat references' part of the matrix: the `none` pathway only (FLAT_REFERENCES). */
export function referenceSettings(schedule: Schedule, dataDir: string): RunJobSettings {
  return runJob(FLAT_REFERENCES, ["none"], dataDir, runSettings(schedule));
}

/** The default matrix's runs (every offline model but VIEWS_MODEL, whose runs are the views' jobs, and the flat references, whose are referenceSettings'). */
export function matrixSettings(schedule: Schedule, dataDir: string): RunJobSettings {
  return runJob(
    OFFLINE_MODELS.filter((m) => m !== VIEWS_MODEL && !(FLAT_REFERENCES as readonly string[]).includes(m)),
    PATHWAYS,
    dataDir,
    runSettings(schedule),
  );
}

/** VIEWS_MODEL's part of the matrix: the same runs, with the evaluation views (`--views eval,id,replay`). */
export function viewsSettings(schedule: Schedule, dataDir: string): RunJobSettings {
  const views = { extra: [...EXTRA_VIEWS], viewEpisodes: schedule.evalEpisodes, replayEpisodes: Math.min(DEFAULT_REPLAY_EPISODES, schedule.exploreEpisodes) };
  return runJob([VIEWS_MODEL], PATHWAYS, dataDir, runSettings(schedule, { views }));
}

/** The learner cells' runs of one further run seed (1..learnerRunSeeds-1): the matrix's schedule, no views. */
export function learnerSeedSettings(schedule: Schedule, dataDir: string, runSeed: number): RunJobSettings {
  return runJob(MATRIX_LEARNERS, PATHWAYS, dataDir, runSettings(schedule, { runSeed }));
}

/** The verified runs of one run seed: the matrix's schedule, the learner only, the pathway's default batch and roles. */
export function verifiedSettings(schedule: Schedule, dataDir: string, runSeed = 0): RunJobSettings {
  return { ...runJob([VERIFIED_MODEL], ["verified"], dataDir, runSettings(schedule, { runSeed })), verified: { broadBatch: DEFAULT_BROAD_BATCH, verifierModel: null } };
}

/** The ceiling's runs: the matrix's schedule, pathway none. */
export function ceilingSettings(schedule: Schedule, dataDir: string): RunJobSettings {
  return runJob([CEILING_MODEL], ["none"], dataDir, runSettings(schedule));
}

/**
 * The hybrid pathway's positive control (docs/memory.md): the learner on the games where Memory and
 * History differ most (docs/learner.md: chess, the context budget; minesweeper), on the matrix's
 * schedule beside the views' memory runs of the same model, so Table 7 pairs them.
 */
export const HYBRID_MODEL = "builtin:learner";
export const HYBRID_GAMES = ["chess", "minesweeper"] as const;
export function hybridJobSettings(schedule: Schedule, dataDir: string, runSeed = 0): RunJobSettings {
  return { ...runJob([HYBRID_MODEL], ["hybrid"], dataDir, runSettings(schedule, { runSeed })), games: [...HYBRID_GAMES] };
}

/** The judge dial's runs of one run seed, in <data>/dial on the dial's own schedule. */
export function dialSettings(schedule: Schedule, dataDir: string, runSeed: number): RunJobSettings {
  const d = DIAL_SCHEDULE[schedule.name];
  return {
    ...runJob(DIAL_MODELS, ["none", "history", "memory"], join(dataDir, DIAL_SUBDIR), runSettings(d, { runSeed })),
    games: [...DIAL_GAMES],
    rejudge: { judges: [...JUDGE_SWAP_JUDGES], models: [JUDGE_SWAP_MODEL] },
  };
}

/**
 * The judge swap's positive control (docs/judging.md): the dial's learner at judge 0, whose own
 * self-scores are pure noise, rejudged with the verifier, the placebo and no scores: its history and
 * memory runs of each dial job, once they are played (the job's `rejudge`), evaluation only. Not
 * judge 0.25: measured over 8 run seeds, its own judgment already picked the verifier's tactic on
 * tetris in half the runs, and on pvz its text-only estimate beat the verifier (every lenient
 * exploration episode of three tactics reached the 32-step cap, so their rewards tie), so the value of
 * judging reached p < 0.05 on 2 of 4 games per pathway; judge 0 reached 3-4 of 4 at 3-4 run seeds.
 */
export const JUDGE_SWAP_MODEL = "builtin:learner?judge=0";
export const JUDGE_SWAP_JUDGES = ["verifier", "shuffled", "none"] as const;
/**
 * Run seeds of the judge swap's model (0..n-1): the dial's own (DIAL_SCHEDULE's runSeeds) and, past
 * them, a job per seed playing JUDGE_SWAP_MODEL alone on the dial's schedule (its none, history and
 * memory runs, then their rejudges). Which tactic the self and the verifier arms pick is decided per
 * run, so the judge_swap table resamples runs (t over runs): at 4 runs the value of judging reached
 * p < 0.05 on 2 of 4 games (history) and 0 (memory) of the full reproduction, at 8 on 4 and 4, with
 * no placebo excluding 0 (docs/judging.md; about 23 CPU-s per further seed).
 */
export const JUDGE_SWAP_RUN_SEEDS = { default: 8, paper: 8, quick: 1 } as const;
/**
 * The judge swap's stochastic nulls: built-ins that ignore their experience, drawing from each call's
 * own identity (so a rejudged run plays its evaluation boards afresh), played on the dial's games and
 * schedule at JUDGE_SWAP_NULL_RUN_SEEDS run seeds (a job each) and rejudged like the swap model: their
 * contrasts are noise around a true 0, which the judge swap's null check counts. The plain random and
 * heuristic would replay the same draws in every arm: contrasts of exactly 0, a check that cannot
 * fail. Two run seeds: a contrast is then the t test over the 2 runs (df 1), whose p can fall below
 * 0.05 (one run's exact sign-flip p on 4 seeds cannot go below 0.125, so the check's p count could
 * not fail).
 */
export const JUDGE_SWAP_NULLS = STOCHASTIC_NULLS;
export const JUDGE_SWAP_NULL_RUN_SEEDS = { default: 2, paper: 2, quick: 1 } as const;

/** A judge-swap job past the dial's own: `models` on the dial's games and schedule at `runSeed`, then their history and memory runs rejudged. */
export function judgeSwapSettings(schedule: Schedule, dataDir: string, models: readonly string[], runSeed: number): RunJobSettings {
  const d = DIAL_SCHEDULE[schedule.name];
  return {
    ...runJob(models, ["none", "history", "memory"], join(dataDir, DIAL_SUBDIR), runSettings(d, { runSeed })),
    games: [...DIAL_GAMES],
    rejudge: { judges: [...JUDGE_SWAP_JUDGES], models: [...models] },
  };
}

/**
 * The memory probes (docs/memory.md), played once the runs are, evaluation episodes only,
 * on the main data directory's memory runs, run seed 0 (the probes ask about one exploration run
 * each). The learner's are the positive control: `empty`, `shuffled` (another run seed's memory,
 * where the data holds one) and a transplant of builtin:learner?judge=0.25's memory of the same
 * game. The stochastic nulls' are the
 * null check (`empty`, run seed 0): a deterministic built-in plays the same whatever it reads, with
 * the same draws, so its probe effects are exactly [0, 0] and are not probed. A probe costs about
 * a run's evaluation episodes, so the list is kept to what the two checks read.
 */
export const PROBE_SPEC: DataProbeSpec = {
  pathways: ["memory"],
  cells: [
    { model: "builtin:learner", empty: true, shuffledSeeds: [0], transplantFrom: "builtin:learner?judge=0.25", transplantSeeds: [0], runSeeds: [0] },
    { model: "builtin:random?noise=independent", empty: true, shuffledSeeds: [], runSeeds: [0] },
    { model: "builtin:heuristic?noise=independent", empty: true, shuffledSeeds: [], runSeeds: [0] },
  ],
};

/**
 * Figure 7's loop of one loop seed: builtin:learner explores, BuildSFT keeps its self-scored
 * positives, the builtin fine-tune writes a checkpoint, each checkpoint is evaluated. Each loop seed
 * (loopRunSeeds) is its own loop, in its own folder of the same data directory.
 */
export function trainingSettings(schedule: Schedule, dataDir: string, runSeed = 0): TrainLoopJobSettings {
  return {
    model: TRAINING_MODEL,
    games: [...GAME_NAMES],
    rounds: schedule.trainingRounds,
    trainer: "builtin",
    label: TRAINING_LABEL,
    data: dataDir,
    settings: { ...DEFAULT_SETTINGS, exploreEpisodes: schedule.loopExploreEpisodes, evalEpisodes: schedule.trainingEvalEpisodes, maxSteps: schedule.maxSteps, runSeed },
    sft: { threshold: LOOP_THRESHOLD, lowScore: "drop", format: "openai-chat", correctModel: null, maskEarlierAnswers: true },
  };
}

/**
 * The runs phase as a job list, longest first (the pool starts them in this order, so the long
 * training loop and the views' runs do not end up alone at the end): the training loops, the views'
 * shards, the verified runs, the ceiling's, the judge dial's, the learner cells' further run seeds' shards, the
 * matrix's shards. The jobs write
 * disjoint runs of one data directory (shards into it, not a subfolder each: one machine, so its run
 * locks keep the shards apart).
 */
export function planReproduction(schedule: Schedule, dataDir: string): ReproduceJob[] {
  const shards = (name: string, group: JobGroup, base: RunJobSettings, n: number): ReproduceJob[] =>
    Array.from({ length: n }, (_, i) => ({ name: `${name} ${i + 1}/${n}`, group, command: "run", settings: { ...base, shard: { index: i + 1, count: n }, shardSubdir: false } }));
  // Run seeds 1..learnerRunSeeds-1 of every learner cell (MATRIX_LEARNERS' matrix, the verified and the hybrid runs).
  const furtherSeeds = Array.from({ length: schedule.learnerRunSeeds - 1 }, (_, i) => i + 1);
  return [
    ...loopRunSeeds(schedule).map((seed): ReproduceJob => ({ name: `training loop, seed ${seed}`, group: "training", command: "train-loop", settings: trainingSettings(schedule, dataDir, seed) })),
    ...shards("views", "views", viewsSettings(schedule, dataDir), VIEWS_SHARDS),
    { name: "verified", group: "verified", command: "run", settings: verifiedSettings(schedule, dataDir) },
    // The verified and hybrid runs are learner cells too: their further run seeds, a job each.
    ...furtherSeeds.map((seed): ReproduceJob => ({ name: `verified, run seed ${seed}`, group: "verified", command: "run", settings: verifiedSettings(schedule, dataDir, seed) })),
    { name: "ceiling", group: "ceiling", command: "run", settings: ceilingSettings(schedule, dataDir) },
    { name: "hybrid", group: "hybrid", command: "run", settings: hybridJobSettings(schedule, dataDir) },
    ...furtherSeeds.map((seed): ReproduceJob => ({ name: `hybrid, run seed ${seed}`, group: "hybrid", command: "run", settings: hybridJobSettings(schedule, dataDir, seed) })),
    ...Array.from(
      { length: DIAL_SCHEDULE[schedule.name].runSeeds },
      (_, seed): ReproduceJob => ({ name: `judge dial, run seed ${seed}`, group: "dial", command: "run", settings: dialSettings(schedule, dataDir, seed) }),
    ),
    ...furtherSeeds.flatMap((seed) => shards(`learners, run seed ${seed},`, "matrix", learnerSeedSettings(schedule, dataDir, seed), LEARNER_SEED_SHARDS)),
    ...Array.from({ length: Math.max(0, JUDGE_SWAP_RUN_SEEDS[schedule.name] - DIAL_SCHEDULE[schedule.name].runSeeds) }, (_, i): ReproduceJob => {
      const seed = DIAL_SCHEDULE[schedule.name].runSeeds + i;
      return { name: `judge swap, run seed ${seed}`, group: "dial", command: "run", settings: judgeSwapSettings(schedule, dataDir, [JUDGE_SWAP_MODEL], seed) };
    }),
    ...Array.from(
      { length: JUDGE_SWAP_NULL_RUN_SEEDS[schedule.name] },
      (_, seed): ReproduceJob => ({ name: `judge swap nulls, run seed ${seed}`, group: "dial", command: "run", settings: judgeSwapSettings(schedule, dataDir, JUDGE_SWAP_NULLS, seed) }),
    ),
    ...shards("matrix", "matrix", matrixSettings(schedule, dataDir), MATRIX_SHARDS),
    ...shards("references", "matrix", referenceSettings(schedule, dataDir), REFERENCE_SHARDS),
  ];
}

/** A run a job plays, with the episodes it plays in all (what reproduce's progress line counts). */
export interface PlannedRun {
  runId: string;
  totalEpisodes: number;
}

/** The matrix a run job plays (the runs of its shard in `selected`), as `s3gym run` plans it from the same settings. */
export function runJobPlan(s: RunJobSettings): ReturnType<typeof planRuns> {
  return planRuns({
    models: s.models,
    games: s.games,
    pathways: s.pathways,
    runSeed: s.settings.runSeed,
    trainingLabel: s.training?.label ?? null,
    shard: s.shard,
    ...(s.settings.judge !== undefined ? { judge: s.settings.judge } : {}),
  });
}

/** The runs one job plays, in its command's order (a run job: by run id; a loop: per game, its evaluation run). */
export function jobRuns(job: Job): PlannedRun[] {
  if (job.command === "train-loop") {
    const s = job.settings;
    const label = s.label ?? defaultLoopLabel(s.model);
    return s.games.map((game) => ({ runId: runId({ game, pathway: TRAINING_PATHWAY, model: label, runSeed: s.settings.runSeed }), totalEpisodes: (s.rounds + 1) * s.settings.evalEpisodes }));
  }
  const s = job.settings;
  const plan = runJobPlan(s);
  const loop = totalEpisodes(s.settings.exploreEpisodes, s.settings.checkpointEvery, s.settings.evalEpisodes) + viewEpisodeTotal(s.settings);
  return plan.selected.map((e) => ({ runId: e.runId, totalEpisodes: playsProtocolLoop(e.pathway) ? loop : (s.training?.checkpoints.length ?? 0) * s.settings.evalEpisodes }));
}

/** The runs of one group of jobs: a group of run jobs (shards) as one matrix, by run id; a group of loops in job order. */
export function groupRuns(jobs: readonly ReproduceJob[], group: JobGroup): PlannedRun[] {
  const mine = jobs.filter((j) => j.group === group);
  const runs = mine.flatMap(jobRuns);
  return mine.every((j) => j.command === "run") ? runs.sort((a, b) => (a.runId < b.runId ? -1 : a.runId > b.runId ? 1 : 0)) : runs;
}

/**
 * The runs reproduce watches in the data directory, in the order it lists them: the matrix's, the
 * views', the verified, the ceiling's, the training loops' evaluation runs. Not the judge dial's:
 * they are written into <data>/dial, which the watcher does not read.
 */
export function watchedRuns(jobs: readonly ReproduceJob[]): PlannedRun[] {
  return (["matrix", "views", "verified", "ceiling", "hybrid", "training"] as const).flatMap((g) => groupRuns(jobs, g));
}
