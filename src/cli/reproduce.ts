/**
 * `s3gym reproduce [--quick] [--data DIR] [--out DIR] [--jobs N] [--no-notebooks]`: the README's first
 * command (`npm run reproduce` builds, then runs this).
 *
 *   1. prerequisites   Jupyter (nbconvert + nbclient) and the tslab kernel spec, checked before anything
 *                      long; a missing one prints the Debian and pip install commands and exits 2.
 *   2. runs            every run, as one list of jobs on --jobs slots (`runsJobs`, `jobPool.ts`), each a
 *                      child process, longest first so the cores end together:
 *                      - training: Figure 7, `s3gym train-loop --trainer builtin` on builtin:learner, a real
 *                        offline loop (explore, build-sft, fine-tune, evaluate) of 19 rounds (20 checkpoints);
 *                      - views: builtin:learner's 21 runs with `--views eval,id,replay` (views.md), so the
 *                        views' tables have rows offline (VIEWS_SHARDS `s3gym run --shard i/n` jobs);
 *                      - verified: the verified pathway (docs/verified.md) for builtin:learner on the seven
 *                        games (`s3gym run --pathways verified`);
 *                      - matrix: builtin:random, builtin:heuristic, builtin:perfect-judge, builtin:learner?judge=0.25
 *                        x the seven games x none, history, memory (MATRIX_SHARDS shards);
 *                      - ceiling: builtin:ceiling x the seven games x none (the top reference line);
 *                      all on the paper's schedule (30 exploration episodes, a checkpoint every 3, 3
 *                      evaluation episodes, 64 steps). A failed job stops new ones from starting.
 *   3. report          `s3gym report --data DIR --out DIR` (every table, figure and report.json).
 *   4. notebooks       every notebooks/*.ipynb executed headless into <out>/notebooks/; a failing cell
 *                      fails the command. The tables and figures the notebooks write are checked to be
 *                      byte-identical to the report's (one implementation).
 *   5. summary         where every table and figure is, and the wall time and CPU seconds (user + sys,
 *                      children included) of each phase.
 *
 * Rerunning reuses the logs (the runner resumes: done episodes are skipped) and ends with the same
 * tables byte for byte: nothing under <out>/tables or in a figure depends on the time or the paths.
 * `--quick` is the reduced schedule CI uses (3 exploration episodes, checkpoint every 3, 2 evaluation
 * episodes, 16 steps); it defaults to its own directories (data/quick, figures/quick) because a data
 * directory never mixes two protocols (the runner refuses).
 *
 * Exit codes: 0 done; 1 a phase failed (a run, the report, a notebook cell); 2 bad arguments or a
 * missing prerequisite (nothing was run).
 */
import { spawn } from "node:child_process";
import { existsSync, readFileSync, readdirSync, statSync } from "node:fs";
import { z } from "zod";
import { mkdir } from "node:fs/promises";
import { availableParallelism } from "node:os";
import { basename, dirname, isAbsolute, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { formatJupyterProblems } from "../report/notebooks/jupyter.js";
import { diffTrees, hashTree } from "../report/compareTrees.js";
import { withRenderCache } from "../report/figures/renderCache.js";
import { ENGINE_NAMES, listNotebooks, NOTEBOOK_ENGINES, runNotebooks, type EngineName } from "../report/notebooks/engines.js";
import { GAME_NAMES } from "../games/types.js";
import { DIAL_SUBDIR, runsDir } from "../logs/runDir.js";
import { DEFAULT_MATRIX_PATHWAYS } from "../pathways/registry.js";
import { runId } from "../runner/runId.js";
import { cpuTime, formatCpu } from "../util/cpuTime.js";
import { buildMatrix, totalEpisodes } from "../runner/schedule.js";
import { DEFAULT_REPLAY_EPISODES, viewEpisodeTotal } from "../runner/views.js";
import { EXTRA_VIEWS } from "../logs/schema.js";
import { folderFlag, nonNegativeInt, oneOf, parseFlags, UsageError } from "./args.js";
import { runPool, type PoolJob } from "./jobPool.js";
import { warmSqlCache } from "./warmSqlCache.js";
import { outputLines, readWrittenReport } from "./reproduceSummary.js";
import { RunWatch, runOutputFilter, type WatchedRun } from "./reproduceProgress.js";

/** Evaluation episodes per checkpoint of the default design (DEFAULT_SCHEDULE). */
export const DESIGN_EVAL_EPISODES = 10;

export const REPRODUCE_USAGE = [
  "s3gym reproduce [--quick | --paper-design] [--data DIR] [--out DIR] [--jobs N] [--engine node|jupyter] [--no-notebooks]",
  "",
  `  (default)        the paper's schedule with ${DESIGN_EVAL_EPISODES} evaluation episodes per checkpoint, so gains can be tested`,
  "  --paper-design   the paper's own design: 3 evaluation episodes per checkpoint (tables say n=3);",
  "                   defaults to --data data/paper --out figures/paper",
  "  --quick          the reduced schedule (CI): 3 exploration episodes, a checkpoint every 3,",
  "                   2 evaluation episodes, 16 steps; defaults to --data data/quick --out figures/quick",
  "  --data DIR       where the step logs go (default data/); rerunning resumes from them",
  "  --out DIR        where tables, figures and executed notebooks go (default figures/)",
  "  --jobs N         jobs of the runs phase and notebooks at a time (default: cores, at most 2)",
  "  --engine E       how the notebooks run: node (default; Node alone) or jupyter (nbclient + the tslab kernel)",
  "  --no-notebooks   skip the notebooks: runs, tables and figures only",
].join("\n");

const FLAGS = {
  quick: { type: "boolean" },
  "paper-design": { type: "boolean" },
  data: { type: "string" },
  out: { type: "string" },
  jobs: { type: "string" },
  "no-notebooks": { type: "boolean" },
  engine: { type: "string" },
} as const;

/** The offline models of the default matrix: floor, reference and perfect-judge lines (not LLMs). */
export const OFFLINE_MODELS = ["builtin:random", "builtin:heuristic", "builtin:perfect-judge", "builtin:learner", "builtin:learner?judge=0.25"] as const;
/**
 * The ceiling line (games/ceiling.ts): an instrument that reads the hidden state, so no experience
 * pathway can change its play; it runs the `none` pathway only, as its own job (7 runs).
 */
export const CEILING_MODEL = "builtin:ceiling";

/** The `s3gym run` arguments of the ceiling's runs: the matrix's schedule, pathway none. */
export function ceilingArgs(schedule: Schedule, dataDir: string): string[] {
  return matrixArgs(schedule, dataDir).map((a, i, all) => (all[i - 1] === "--models" ? CEILING_MODEL : all[i - 1] === "--pathways" ? "none" : a));
}
/**
 * The model whose runs also play the evaluation views (views.md: `--views eval,id,replay`): the
 * learner, the one offline model whose experience changes its play, so the views' tables have rows
 * that move. Its runs are the matrix's (same run ids, same eval episodes: views never change them),
 * played by their own `s3gym run --views` invocation.
 */
export const VIEWS_MODEL = "builtin:learner";
/** The views played for VIEWS_MODEL (the replay view re-plays the first 3 exploration seeds, the default). */
export const REPRODUCE_VIEWS = "eval,id,replay";
/**
 * The experience pathways of the default matrix: the registry's `inDefaultMatrix` ones (not `verified`,
 * which the reproduction runs for the learner only, its roles making it the costlier pathway per
 * episode; not `training`, which train-loop plays).
 */
export const PATHWAYS: readonly string[] = DEFAULT_MATRIX_PATHWAYS;

/** A schedule: the protocol numbers passed to `s3gym run`, and the training ladder's length. */
export interface Schedule {
  name: "default" | "paper" | "quick";
  exploreEpisodes: number;
  checkpointEvery: number;
  evalEpisodes: number;
  maxSteps: number;
  /** Training epochs evaluated: epoch 0 = builtin:random, 1..epochs-1 = builtin:heuristic. */
  /** Rounds of Figure 7's offline training loop of builtin:learner (rounds + 1 checkpoints). */
  trainingRounds: number;
  /** Exploration episodes per game per round of that loop. */
  loopExploreEpisodes: number;
  /** Evaluation episodes per checkpoint of that loop. */
  trainingEvalEpisodes: number;
}

/** The paper's design (`--paper-design`): 3 evaluation episodes per checkpoint, one run seed. */
export const PAPER_SCHEDULE: Schedule = { name: "paper", exploreEpisodes: 30, checkpointEvery: 3, evalEpisodes: 3, maxSteps: 64, trainingRounds: 19, loopExploreEpisodes: 3, trainingEvalEpisodes: 3 };
/**
 * The default design: the paper's schedule with DESIGN_EVAL_EPISODES evaluation episodes per
 * checkpoint, so that the learner's gains can reach p < 0.05 (with 3 seeds the exact sign-flip test
 * cannot go below 0.25) and rest on enough seeds not to be indicative; chosen with `s3gym power`
 * (docs/notebooks.md). Figure 7's loop keeps the paper's 3 per checkpoint (descriptive, no test).
 */
export const DEFAULT_SCHEDULE: Schedule = { ...PAPER_SCHEDULE, name: "default", evalEpisodes: DESIGN_EVAL_EPISODES };
export const QUICK_SCHEDULE: Schedule = { name: "quick", exploreEpisodes: 3, checkpointEvery: 3, evalEpisodes: 2, maxSteps: 16, trainingRounds: 3, loopExploreEpisodes: 1, trainingEvalEpisodes: 2 };

/** The model the verified pathway is reproduced with (7 runs: the learner answers every role offline). */
export const VERIFIED_MODEL = "builtin:learner";

/** The `s3gym run` arguments of the verified runs: the matrix's schedule, the learner only. */
export function verifiedArgs(schedule: Schedule, dataDir: string): string[] {
  return [
    "--models", VERIFIED_MODEL,
    "--games", "all",
    "--pathways", "verified",
    "--data", dataDir,
    "--explore-episodes", String(schedule.exploreEpisodes),
    "--checkpoint-every", String(schedule.checkpointEvery),
    "--eval-episodes", String(schedule.evalEpisodes),
    "--max-steps", String(schedule.maxSteps),
  ];
}

/** The label of the training loop's runs (the `model` of its records, Figure 7's legend). */
export const TRAINING_LABEL = "builtin:learner+train-loop";
/** The model the loop trains: the learner with a fair judge. */
export const TRAINING_MODEL = "builtin:learner";
/**
 * BuildSFT's threshold in the loop: keep steps the learner scored above 0 (its fair estimates are 0
 * for most steps of every tactic, so the protocol's default 0 would keep nearly everything).
 */
export const LOOP_THRESHOLD = 0.01;

/** The `s3gym run` arguments of the default matrix (without --shard): every offline model but VIEWS_MODEL (viewsArgs). */
export function matrixArgs(schedule: Schedule, dataDir: string): string[] {
  return [
    "--models", OFFLINE_MODELS.filter((m) => m !== VIEWS_MODEL).join(","),
    "--games", "all",
    "--pathways", PATHWAYS.join(","),
    "--data", dataDir,
    "--explore-episodes", String(schedule.exploreEpisodes),
    "--checkpoint-every", String(schedule.checkpointEvery),
    "--eval-episodes", String(schedule.evalEpisodes),
    "--max-steps", String(schedule.maxSteps),
  ];
}

/** The `s3gym run` arguments of VIEWS_MODEL's part of the matrix: the same runs, with the evaluation views. */
export function viewsArgs(schedule: Schedule, dataDir: string): string[] {
  const m = matrixArgs(schedule, dataDir);
  m[m.indexOf("--models") + 1] = VIEWS_MODEL;
  return [...m, "--views", REPRODUCE_VIEWS];
}

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
 * The `s3gym train-loop` arguments of Figure 7: builtin:learner explores, BuildSFT keeps its
 * self-scored positives, the builtin fine-tune writes a checkpoint, each checkpoint is evaluated.
 * Each loop seed (loopRunSeeds) is its own loop, in its own folder of the same data directory.
 */
export function trainingArgs(schedule: Schedule, dataDir: string, runSeed = 0): string[] {
  return [
    "--model", TRAINING_MODEL,
    "--trainer", "builtin",
    "--rounds", String(schedule.trainingRounds),
    "--label", TRAINING_LABEL,
    "--games", "all",
    "--data", dataDir,
    "--explore-episodes", String(schedule.loopExploreEpisodes),
    "--eval-episodes", String(schedule.trainingEvalEpisodes),
    "--max-steps", String(schedule.maxSteps),
    "--threshold", String(LOOP_THRESHOLD),
    "--run-seed", String(runSeed),
  ];
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

/** The `s3gym run` arguments of the judge dial's runs of one run seed. */
export function dialArgs(schedule: Schedule, dataDir: string, runSeed: number): string[] {
  const d = DIAL_SCHEDULE[schedule.name];
  return [
    "--models", DIAL_MODELS.join(","),
    "--games", DIAL_GAMES.join(","),
    "--pathways", "none,history,memory",
    "--data", join(dataDir, DIAL_SUBDIR),
    "--explore-episodes", String(d.exploreEpisodes),
    "--checkpoint-every", String(d.checkpointEvery),
    "--eval-episodes", String(d.evalEpisodes),
    "--max-steps", String(d.maxSteps),
    "--run-seed", String(runSeed),
  ];
}

interface Args {
  schedule: Schedule;
  data: string;
  out: string;
  jobs: number;
  notebooks: boolean;
  engine: EngineName;
}

function parse(argv: string[]): Args {
  const { values: v } = parseFlags(argv, FLAGS, REPRODUCE_USAGE);
  const quick = v.quick === true;
  const paper = v["paper-design"] === true;
  if (quick && paper) throw new UsageError("--quick and --paper-design are two schedules: pass one");
  const jobs = nonNegativeInt("jobs", v.jobs, Math.max(1, Math.min(2, availableParallelism())), 256);
  if (jobs < 1) throw new UsageError("--jobs must be at least 1");
  for (const flag of ["data", "out"] as const) {
    if (v[flag] !== undefined && v[flag]!.trim() === "") throw new UsageError(`--${flag} is empty: expected a directory`);
  }
  return {
    schedule: quick ? QUICK_SCHEDULE : paper ? PAPER_SCHEDULE : DEFAULT_SCHEDULE,
    data: folderFlag("data", v.data ?? (quick ? join("data", "quick") : paper ? join("data", "paper") : "data")),
    out: folderFlag("out", v.out ?? (quick ? join("figures", "quick") : paper ? join("figures", "paper") : "figures")),
    jobs,
    notebooks: v["no-notebooks"] !== true,
    engine: oneOf("engine", v.engine, ENGINE_NAMES, "node"),
  };
}

/** report.json's null-check line (gainTables.ts), or null when the report has none. */
function nullCheckLine(outDir: string): string | null {
  try {
    const parsed = NullCheckJson.safeParse(JSON.parse(readFileSync(join(outDir, "report.json"), "utf8")));
    return parsed.success ? parsed.data.null_check.line : null;
  } catch {
    return null;
  }
}

const NullCheckJson = z.object({ null_check: z.object({ line: z.string() }) });

/** The kit's root: `<root>/dist/cli/reproduce.js` (or `<root>/src/cli/reproduce.ts` under tsx). */
export function kitRootFromCli(): string {
  return resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}

/** A sink that passes whole lines through `keep` to `to` (partial lines wait for their newline). */
function lineSink(keep: (line: string) => boolean, to: NodeJS.WritableStream): { write(s: string | Buffer): boolean; flush(): void } {
  let pending = "";
  return {
    write(chunk) {
      pending += chunk.toString();
      const lines = pending.split("\n");
      pending = lines.pop() ?? "";
      for (const l of lines) if (keep(l)) to.write(`${l}\n`);
      return true;
    },
    flush() {
      if (pending !== "" && keep(pending)) to.write(`${pending}\n`);
      pending = "";
    },
  };
}

/**
 * One `s3gym <command> ...argv` child process (the runner is single-threaded: one core per job).
 * `run` jobs' per-run result lines are filtered (`runOutputFilter`): reproduce's watcher prints one
 * line per finished run instead. A `train-loop` job's per-round lines are held back and shown only
 * when it fails.
 */
function runChildProcess(job: RunsJob): Promise<number> {
  const here = fileURLToPath(import.meta.url);
  // dist/cli/main.js when built; src/cli/main.ts under tsx (tests), with the same loader flags.
  const main = join(dirname(here), here.endsWith(".ts") ? "main.ts" : "main.js");
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, [...process.execArgv, main, job.command, ...job.argv], { stdio: ["ignore", "pipe", "pipe"] });
    const held: string[] = [];
    const hold = { write: (t: string) => (held.push(t), true) };
    const out = job.command === "run" ? lineSink(runOutputFilter("stdout"), process.stdout) : lineSink(() => true, hold as never);
    const err = job.command === "run" ? lineSink(runOutputFilter("stderr"), process.stderr) : lineSink(() => true, hold as never);
    child.stdout.on("data", (d: Buffer) => out.write(d));
    child.stderr.on("data", (d: Buffer) => err.write(d));
    child.on("error", reject);
    child.on("close", (code, signal) => {
      out.flush();
      err.flush();
      const rc = code ?? (signal ? 1 : 0);
      if (rc !== 0 && held.length > 0) process.stderr.write(held.join(""));
      resolvePromise(rc);
    });
  });
}

/** One job of the runs phase: an `s3gym run` shard, the verified runs, or the training loop. */
export interface RunsJob extends PoolJob {
  command: "run" | "train-loop";
  argv: string[];
}

/**
 * Shards of the matrix and of the views' runs: small enough that two slots end close together, and
 * counts that share no factor with the matrix's model x pathway x game layout. A shard takes every
 * n-th run of the sorted matrix, so 8 shards of 4 models x 3 pathways x 7 games gave each shard one
 * model (the oracle's two shards took 3-4x the random's); 11 mixes them (measured: the 11 shards'
 * run times within +-13% of their mean), 3 does for the 21 views' runs.
 */
export const MATRIX_SHARDS = 11;
export const VIEWS_SHARDS = 3;

/**
 * The runs phase as a job list, longest first (the pool starts them in this order, so the long
 * training loop and the views' runs do not end up alone at the end): the training loop, the views'
 * shards, the verified runs, the matrix's shards. The jobs write disjoint runs of one data directory
 * (`--no-shard-subdir`: one machine, so its run locks keep the shards apart).
 */
export function runsJobs(schedule: Schedule, dataDir: string): RunsJob[] {
  const off = ["--progress", "off"];
  const shards = (name: string, base: string[], n: number): RunsJob[] =>
    Array.from({ length: n }, (_, i) => ({ name: `${name} ${i + 1}/${n}`, command: "run", argv: [...base, ...off, "--shard", `${i + 1}/${n}`, "--no-shard-subdir"] }));
  return [
    ...loopRunSeeds(schedule).map((seed): RunsJob => ({ name: `training loop, seed ${seed}`, command: "train-loop", argv: [...trainingArgs(schedule, dataDir, seed), ...off] })),
    ...shards("views", viewsArgs(schedule, dataDir), VIEWS_SHARDS),
    { name: "verified", command: "run", argv: [...verifiedArgs(schedule, dataDir), ...off] },
    { name: "ceiling", command: "run", argv: [...ceilingArgs(schedule, dataDir), ...off] },
    ...Array.from({ length: DIAL_SCHEDULE[schedule.name].runSeeds }, (_, seed): RunsJob => ({ name: `judge dial, run seed ${seed}`, command: "run", argv: [...dialArgs(schedule, dataDir, seed), ...off] })),
    ...shards("matrix", matrixArgs(schedule, dataDir), MATRIX_SHARDS),
  ];
}

/** The runs of the default matrix, with the episodes each plays (what the progress line counts). */
export function matrixRuns(schedule: Schedule): WatchedRun[] {
  const total = totalEpisodes(schedule.exploreEpisodes, schedule.checkpointEvery, schedule.evalEpisodes);
  return buildMatrix(OFFLINE_MODELS.filter((m) => m !== VIEWS_MODEL), GAME_NAMES, PATHWAYS, 0).map((e) => ({ runId: e.runId, totalEpisodes: total }));
}

/** VIEWS_MODEL's runs, each with its view episodes. */
export function viewRuns(schedule: Schedule): WatchedRun[] {
  const s = { exploreEpisodes: schedule.exploreEpisodes, checkpointEvery: schedule.checkpointEvery, views: { extra: [...EXTRA_VIEWS], viewEpisodes: schedule.evalEpisodes, replayEpisodes: Math.min(DEFAULT_REPLAY_EPISODES, schedule.exploreEpisodes) } };
  const total = totalEpisodes(schedule.exploreEpisodes, schedule.checkpointEvery, schedule.evalEpisodes) + viewEpisodeTotal(s);
  return buildMatrix([VIEWS_MODEL], GAME_NAMES, PATHWAYS, 0).map((e) => ({ runId: e.runId, totalEpisodes: total }));
}

/** The verified runs (one per game). */
export function verifiedRuns(schedule: Schedule): WatchedRun[] {
  const total = totalEpisodes(schedule.exploreEpisodes, schedule.checkpointEvery, schedule.evalEpisodes);
  return buildMatrix([VERIFIED_MODEL], GAME_NAMES, ["verified"], 0).map((e) => ({ runId: e.runId, totalEpisodes: total }));
}

/** The ceiling's runs (one per game, pathway none). */
export function ceilingRuns(schedule: Schedule): WatchedRun[] {
  const total = totalEpisodes(schedule.exploreEpisodes, schedule.checkpointEvery, schedule.evalEpisodes);
  return buildMatrix([CEILING_MODEL], GAME_NAMES, ["none"], 0).map((e) => ({ runId: e.runId, totalEpisodes: total }));
}

/** The training loops' evaluation runs (one per game and loop seed), each evaluating every epoch. */
export function trainingRuns(schedule: Schedule): WatchedRun[] {
  return loopRunSeeds(schedule).flatMap((runSeed) =>
    GAME_NAMES.map((game) => ({
      runId: runId({ game, pathway: "training", model: TRAINING_LABEL, runSeed }),
      totalEpisodes: (schedule.trainingRounds + 1) * schedule.trainingEvalEpisodes,
    })),
  );
}

/** Runs `f` while a watcher prints a line per finished run and the phase's progress line. */
async function watched<T>(label: string, dataAbs: string, runs: readonly WatchedRun[], f: () => Promise<T>): Promise<T> {
  const watch = new RunWatch(dataAbs, runs, process.stdout, { label });
  watch.start();
  try {
    return await f();
  } finally {
    watch.stop();
  }
}

export async function reproduceCommand(argv: string[]): Promise<number> {
  // The report and then each notebook draw the same figures: one render cache for all (renderCache.ts).
  return withRenderCache(() => reproduce(argv));
}

async function reproduce(argv: string[]): Promise<number> {
  const t0 = Date.now();
  const cpu0 = cpuTime();
  // A bad flag or --help is thrown: src/cli/main.ts alone maps them to output and exit codes.
  const args = parse(argv);
  const say = (s: string): void => {
    process.stdout.write(`[reproduce] ${s}\n`);
  };
  const root = kitRootFromCli();
  const cwd = process.cwd();
  const dataAbs = isAbsolute(args.data) ? args.data : resolve(cwd, args.data);
  const outAbs = isAbsolute(args.out) ? args.out : resolve(cwd, args.out);
  const shown = (p: string): string => (relative(cwd, p).startsWith("..") ? p : relative(cwd, p) || ".");
  const timings: [string, number, string][] = [];
  const phase = async <T>(name: string, f: () => Promise<T>): Promise<T> => {
    const t = Date.now();
    const c = cpuTime();
    say(`${name} ...`);
    const r = await f();
    timings.push([name, Date.now() - t, formatCpu(c, cpuTime())]);
    say(`${name}: ${seconds(Date.now() - t)}`);
    return r;
  };

  // 1. Prerequisites, before anything long.
  const notebooks = listNotebooks(root);
  if (args.notebooks) {
    if (notebooks.length === 0) {
      process.stderr.write(`s3gym reproduce: no notebooks found in ${join(root, "notebooks")} (run it from a clone of the repository, or pass --no-notebooks)\n`);
      return 2;
    }
    const problems = NOTEBOOK_ENGINES[args.engine].check(root);
    if (problems.length > 0) {
      process.stderr.write(
        args.engine === "jupyter"
          ? formatJupyterProblems(problems)
          : `s3gym reproduce: the notebooks cannot run:\n${problems.map((p) => `- ${p}`).join("\n")}\n(Or run without the notebooks: 's3gym reproduce --no-notebooks' still writes every table and figure.)\n`,
      );
      return 2;
    }
    say(`prerequisites ok: the notebooks run with the ${args.engine} engine${args.engine === "node" ? " (tslab's executor in Node; no Jupyter needed)" : " (nbclient + the tslab kernel)"}`);
  }
  const s = args.schedule;
  say(
    `schedule ${s.name}: ${s.exploreEpisodes} exploration episodes, checkpoint every ${s.checkpointEvery}, ` +
      `${s.evalEpisodes} evaluation episodes, ${s.maxSteps} steps; models ${OFFLINE_MODELS.join(", ")}; ` +
      `pathways ${PATHWAYS.join(", ")} (and verified for ${VERIFIED_MODEL}); all games; data ${shown(dataAbs)}, out ${shown(outAbs)}`,
  );
  if (existsSync(runsDir(dataAbs))) say(`${shown(dataAbs)} already holds runs: done episodes are reused (resume)`);

  // 2-3. The runs: the matrix, the views' runs, the verified runs and Figure 7's training loop, as
  // one list of jobs on --jobs slots (each a child process).
  const jobs = runsJobs(s, dataAbs);
  say(`running ${jobs.length} jobs, ${args.jobs} at a time: the training loop (${loopRunSeeds(s).length} loop seed(s)), ${VIEWS_SHARDS} shards of the views' runs, the verified runs, the ceiling's runs, the judge dial (${DIAL_SCHEDULE[s.name].runSeeds} run seed(s), in ${shown(join(dataAbs, DIAL_SUBDIR))}), ${MATRIX_SHARDS} shards of the matrix`);
  const pool = await phase(`runs (matrix, views, verified, ceiling, judge dial, training loop; ${args.jobs} at a time)`, () =>
    watched("runs", dataAbs, [...matrixRuns(s), ...viewRuns(s), ...verifiedRuns(s), ...ceilingRuns(s), ...trainingRuns(s)], async () =>
      runPool(jobs, args.jobs, runChildProcess, {
        clock: () => Date.now(),
        onEnd: (r) => say(`  ${r.job.name} ${r.code === 0 ? "done" : `FAILED (exit ${r.code}${r.error ? `: ${r.error}` : ""})`} in ${seconds(r.ms)}`),
      }),
    ),
  );
  const failures = pool.done.filter((r) => r.code !== 0);
  if (failures.length > 0) {
    const config = failures.some((r) => r.code === 2);
    process.stderr.write(
      `s3gym reproduce: ${failures.map((r) => `${r.job.name} ('s3gym ${r.job.command}') exited with ${r.code}`).join("; ")}` +
        (pool.skipped.length > 0 ? `; not started: ${pool.skipped.map((j) => j.name).join(", ")}` : "") +
        (config
          ? ` (a configuration problem: if ${shown(dataAbs)} holds runs written with other protocol numbers, pass another --data or remove it)\n`
          : " (see the lines above; rerunning resumes)\n"),
    );
    return config ? 2 : 1;
  }

  // 3. The report, exactly `s3gym report`; beside it, on the core the report leaves idle, the logs'
  // SQL tables go into the SQL cache that notebook 00's DuckDB cell then opens (warmSqlCache.ts).
  const warm = args.notebooks ? warmSqlCache(dataAbs) : null;
  await mkdir(outAbs, { recursive: true });
  const { reportCommand } = await import("./report.js");
  const dataArg = relative(cwd, dataAbs).startsWith("..") ? dataAbs : relative(cwd, dataAbs) || ".";
  const reportCode = await phase("report (s3gym report)", () => reportCommand(["--data", dataArg, "--out", outAbs]));
  if (reportCode !== 0) {
    warm?.stop();
    return 1;
  }
  const nullLine = nullCheckLine(outAbs);
  if (nullLine !== null) say(nullLine);
  const notebookDir = join(outAbs, "notebooks");
  const written = hashTree(outAbs);

  // 4. The notebooks, headless.
  let executed: string[] = [];
  if (args.notebooks) {
    const env = { S3GYM_DATA: dataAbs, S3GYM_OUT: outAbs };
    const jobs = Math.min(args.jobs, notebooks.length);
    const ok = await phase(`notebooks (${notebooks.length}, ${jobs} at a time, ${args.engine} engine)`, async () => {
      try {
        executed = await runNotebooks({
          engine: args.engine,
          root,
          notebooks,
          outDir: notebookDir,
          env,
          jobs,
          onDone: (nb, ms) => say(`  executed ${basename(nb)} in ${seconds(ms)}`),
        });
        return true;
      } catch (e) {
        process.stderr.write(`s3gym reproduce: ${(e as Error).message}\n`);
        return false;
      }
    });
    if (!ok) warm?.stop();
    await warm?.done;
    if (!ok) return 1;
    // The notebooks wrote their tables and figures with the report's own functions: same bytes.
    const d = diffTrees(written, hashTree(outAbs));
    if (d.changed.length > 0 || d.added.length > 0) {
      process.stderr.write(
        `s3gym reproduce: the notebooks' files differ from 's3gym report's: ${[...d.changed, ...d.added].join(", ")} ` +
          "(a notebook must call the report's builders and writers, never its own)\n",
      );
      return 1;
    }
  }

  // 5. Where everything is.
  const runs = existsSync(runsDir(dataAbs)) ? readdirSync(runsDir(dataAbs)).filter((d) => statSync(join(runsDir(dataAbs), d)).isDirectory()).length : 0;
  const lines: string[] = [
    "",
    `S3Gym reproduction (${s.name} schedule) done in ${seconds(Date.now() - t0)}`,
    `  step logs   ${shown(dataAbs)}/runs/<run_id>/  (${runs} runs: manifest.json, steps/episodes/checkpoints/memory/calls .jsonl)`,
    ...outputLines(readWrittenReport(outAbs), { tables: shown(join(outAbs, "tables")), figures: shown(outAbs) }),
    `  report      ${shown(join(outAbs, "report.json"))}  (interval method per table, B, seed, inputs, counts, warnings, files)`,
  ];
  if (executed.length > 0) {
    lines.push(`  notebooks   ${shown(notebookDir)}/ (executed copies; the committed ones in notebooks/ have no outputs):`);
    for (const f of executed.sort()) lines.push(`                ${basename(f)}`);
  } else lines.push("  notebooks   not executed (--no-notebooks)");
  if (nullLine !== null) lines.push(`  null check  ${nullLine}`);
  // CPU beside wall: on a loaded machine the wall time grows, the CPU seconds do not.
  const cpuEnd = cpuTime();
  lines.push(`  wall time and CPU seconds by phase${cpuEnd.withChildren ? " (CPU: this process and its children)" : " (CPU: this process only; children not measurable here)"}:`);
  for (const [name, ms, c] of timings) lines.push(`                ${name.padEnd(48)} ${seconds(ms).padStart(9)}   ${c}`);
  lines.push(`                ${"total".padEnd(48)} ${seconds(Date.now() - t0).padStart(9)}   ${formatCpu(cpu0, cpuEnd)}`);
  process.stdout.write(lines.join("\n") + "\n");
  return 0;
}
