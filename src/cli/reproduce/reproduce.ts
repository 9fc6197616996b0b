/**
 * `s3gym reproduce [--quick | --paper-design] [--data DIR] [--out DIR] [--jobs N] [--engine node|jupyter] [--no-notebooks]`: the README's first
 * command (`npm run reproduce` builds, then runs this).
 *
 *   1. prerequisites   what the notebook engine needs, checked before anything long: the default `node`
 *                      engine runs tslab's executor in Node (no Jupyter); `--engine jupyter` needs
 *                      nbconvert + nbclient and the tslab kernel spec, and a missing one prints the
 *                      Debian and pip install commands and exits 2.
 *   2. runs            every run, as one list of typed jobs on --jobs slots (`planReproduction` in
 *                      src/cli/reproduce/reproducePlan.ts, the plan; `jobPool.ts`), each a child process
 *                      `s3gym <command> --job FILE` (its settings as data, in a job file), longest first
 *                      so the cores end together:
 *                      - training: Figure 7, `s3gym train-loop --trainer builtin` on builtin:learner, a real
 *                        offline loop (explore, build-sft, fine-tune, evaluate) of 19 rounds (20 checkpoints);
 *                      - views: builtin:learner's 21 runs with `--views eval,id,replay` (views.md), so the
 *                        views' tables have rows offline (VIEWS_SHARDS `s3gym run --shard i/n` jobs);
 *                      - verified: the verified pathway (docs/verified.md) for builtin:learner on the seven
 *                        games (`s3gym run --pathways verified`);
 *                      - matrix: builtin:random, builtin:heuristic, builtin:perfect-judge, builtin:learner?judge=0.25,
 *                        the stochastic nulls builtin:random?noise=independent and builtin:heuristic?noise=independent
 *                        x the seven games x none, history, memory (MATRIX_SHARDS shards); the learner cells
 *                        (builtin:learner, builtin:learner?judge=0.25) also at run seeds 1 and 2 (LEARNER_SEED_SHARDS
 *                        shards each; not with --paper-design), so their intervals cover the model, not one run;
 *                      - ceiling: builtin:ceiling x the seven games x none (the top reference line);
 *                      all on the default design (`DEFAULT_SCHEDULE` in reproducePlan.ts: the paper's 30
 *                      exploration episodes, a checkpoint every 3 and 64 steps, with DESIGN_EVAL_EPISODES
 *                      = 10 evaluation episodes per checkpoint; `--paper-design`: the paper's 3). A failed
 *                      job stops new ones from starting.
 *   3. report          `s3gym report --data DIR --out DIR` (every table, figure and report.json).
 *   4. notebooks       every notebooks/*.ipynb executed headless into <out>/notebooks/; a failing cell
 *                      fails the command. They start from the report's data set and computed tables
 *                      (reportSnapshot.ts): no second load of the logs, no bootstrap redone. The
 *                      tables and figures the notebooks write are checked to be byte-identical to
 *                      the report's (one implementation).
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
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { z } from "zod";
import { mkdir } from "node:fs/promises";
import { availableParallelism, tmpdir } from "node:os";
import { basename, dirname, isAbsolute, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { formatJupyterProblems } from "../../report/notebooks/jupyter.js";
import { diffTrees, hashTree } from "../../report/compareTrees.js";
import { withRenderCache } from "../../report/figures/renderCache.js";
import { ENGINE_NAMES, listNotebooks, NOTEBOOK_ENGINES, runNotebooks, type EngineName } from "../../report/notebooks/engines.js";
import { DIAL_SUBDIR, runsDir } from "../../logs/runDir.js";
import { cpuTime, formatCpu } from "../../util/cpuTime.js";
import { folderFlag, nonNegativeInt, oneOf, parseFlags, UsageError } from "../shared/args.js";
import { runPool } from "./jobPool.js";
import { s3gymArgv } from "../childCommand.js";
import { warmSqlCache } from "./warmSqlCache.js";
import { FRAMES_SNAPSHOT_VAR } from "../../analysis/load/framesSnapshot.js";
import { startReportSnapshot } from "./reportSnapshot.js";
import { jobFileText } from "../../training/loopJob.js";
import {
  DEFAULT_SCHEDULE,
  DESIGN_EVAL_EPISODES,
  DIAL_SCHEDULE,
  loopRunSeeds,
  MATRIX_SHARDS,
  OFFLINE_MODELS,
  PAPER_SCHEDULE,
  PATHWAYS,
  planReproduction,
  PROBE_SPEC,
  QUICK_SCHEDULE,
  VERIFIED_MODEL,
  VIEWS_SHARDS,
  watchedRuns,
  type ReproduceJob,
  type Schedule,
} from "./reproducePlan.js";
import { outputLines, readWrittenReport } from "./reproduceSummary.js";
import { RunWatch, runOutputFilter, type WatchedRun } from "./reproduceProgress.js";

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
  return resolve(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");
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
 * A run job allocates short-lived strings and records at every step (prompts, replies, log lines):
 * V8's default young generation (16 MB semi-spaces) fills every few milliseconds, and garbage
 * collection was ~15% of a job's CPU. 64 MB semi-spaces collect a quarter as often (measured: a job's
 * wall time -5%, its peak memory +~100 MB). Only the children's heap: nothing they write depends on it.
 */
const JOB_HEAP_FLAG = "--max-semi-space-size=64";

/**
 * One `s3gym <command> --job FILE` child process (the runner is single-threaded: one core per job):
 * the job's settings travel as data, in its job file. `run` jobs' per-run result lines are filtered
 * (`runOutputFilter`): reproduce's watcher prints one line per finished run instead. A `train-loop`
 * job's per-round lines are held back and shown only when it fails.
 */
function runChildProcess(job: ReproduceJob, jobFile: string): Promise<number> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, [JOB_HEAP_FLAG, ...s3gymArgv(job.command, "--job", jobFile, "--progress", "off")], { stdio: ["ignore", "pipe", "pipe"] });
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

/**
 * Each job's file, written under a fresh folder of the system's temporary directory (not the data
 * directory: it holds only what the runs write, which status, report and the byte comparisons read),
 * removed when the runs phase ends. One file per job, named by its place in the list.
 */
async function withJobFiles<T>(jobs: readonly ReproduceJob[], f: (fileOf: (job: ReproduceJob) => string) => Promise<T>): Promise<T> {
  const dir = mkdtempSync(join(tmpdir(), "s3gym-reproduce-jobs-"));
  try {
    const files = new Map(
      jobs.map((job, i) => {
        const file = join(dir, `${String(i + 1).padStart(2, "0")}-${job.name.replace(/[^A-Za-z0-9]+/g, "-").replace(/^-|-$/g, "")}.json`);
        writeFileSync(file, jobFileText(job));
        return [job, file] as const;
      }),
    );
    return await f((job) => files.get(job)!);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
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
  const jobs = planReproduction(s, dataAbs);
  say(
    `running ${jobs.length} jobs, ${args.jobs} at a time: the training loop (${loopRunSeeds(s).length} loop seed(s)), ${VIEWS_SHARDS} shards of the views' runs, the verified runs, the ceiling's runs, the judge dial (${DIAL_SCHEDULE[s.name].runSeeds} run seed(s), in ${shown(join(dataAbs, DIAL_SUBDIR))}), ${MATRIX_SHARDS} shards of the matrix, the learner cells at ${s.learnerRunSeeds} run seed(s)`,
  );
  const pool = await phase(`runs (matrix, views, verified, ceiling, judge dial, training loop; ${args.jobs} at a time)`, () =>
    watched("runs", dataAbs, watchedRuns(jobs), async () =>
      withJobFiles(jobs, (fileOf) =>
        runPool(jobs, args.jobs, (job) => runChildProcess(job, fileOf(job)), {
          clock: () => Date.now(),
          onEnd: (r) => say(`  ${r.job.name} ${r.code === 0 ? "done" : `FAILED (exit ${r.code}${r.error ? `: ${r.error}` : ""})`} in ${seconds(r.ms)}`),
        }),
      ),
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

  // The memory probes (docs/memory.md): the memory runs just played, replayed with their
  // memory emptied, shuffled or transplanted; evaluation episodes only.
  // On --jobs processes (probeShards.ts), like the runs.
  const { probeOnCores } = await import("./probeShards.js");
  const probeCode = await phase(`memory probes (s3gym probe; ${args.jobs} at a time)`, () => probeOnCores(dataAbs, PROBE_SPEC, args.jobs, (t) => say(`  probes: ${t}`)));
  if (probeCode !== 0) {
    process.stderr.write("s3gym reproduce: a memory probe did not complete (see the line above; rerunning resumes)\n");
    return 1;
  }

  // 3. The report, exactly `s3gym report`; beside it, on the core the report leaves idle, the logs'
  // SQL tables go into the SQL cache that notebook 00's DuckDB cell then opens (warmSqlCache.ts).
  // From the same pass it writes the frames' columns that notebook 00's loadFrames takes (framesSnapshot.ts).
  const framesDir = args.notebooks ? mkdtempSync(join(tmpdir(), "s3gym-reproduce-frames-")) : null;
  const framesFile = framesDir === null ? undefined : join(framesDir, "frames.v8");
  const warm = args.notebooks ? warmSqlCache(dataAbs, framesFile) : null;
  const removeFrames = (): void => void (framesDir !== null && rmSync(framesDir, { recursive: true, force: true }));
  await mkdir(outAbs, { recursive: true });
  const { reportCommand } = await import("../report/report.js");
  const dataArg = relative(cwd, dataAbs).startsWith("..") ? dataAbs : relative(cwd, dataAbs) || ".";
  // The notebooks' snapshot comes from the report (reportSnapshot.ts): its data set and every table it built.
  const snapshot = args.notebooks ? startReportSnapshot(dataAbs) : null;
  const reportCode = await phase("report (s3gym report)", () => reportCommand(["--data", dataArg, "--out", outAbs], { onWritten: (r) => snapshot?.write(r) }));
  if (reportCode !== 0) {
    warm?.stop();
    snapshot?.remove();
    removeFrames();
    return 1;
  }
  const nullLine = nullCheckLine(outAbs);
  if (nullLine !== null) say(nullLine);
  const notebookDir = join(outAbs, "notebooks");
  const written = hashTree(outAbs);

  // 4. The notebooks, headless.
  let executed: string[] = [];
  if (args.notebooks) {
    const env: Record<string, string> = { S3GYM_DATA: dataAbs, S3GYM_OUT: outAbs, ...(framesFile !== undefined ? { [FRAMES_SNAPSHOT_VAR]: framesFile } : {}) };
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
          ...(snapshot?.file ? { snapshot: snapshot.file } : {}),
        });
        return true;
      } catch (e) {
        process.stderr.write(`s3gym reproduce: ${(e as Error).message}\n`);
        return false;
      } finally {
        snapshot?.remove();
      }
    });
    if (!ok) warm?.stop();
    await warm?.done;
    removeFrames();
    if (!ok) return 1;
    // The notebooks wrote their tables and figures with the report's own functions: same bytes.
    const d = diffTrees(written, hashTree(outAbs));
    if (d.changed.length > 0 || d.added.length > 0) {
      process.stderr.write(
        `s3gym reproduce: the notebooks' files differ from 's3gym report's: ${[...d.changed, ...d.added].join(", ")} ` + "(a notebook must call the report's builders and writers, never its own)\n",
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
  // A child's CPU reaches /proc's totals when it ends, so it counts in the phase it ends in: said where a child spans two phases.
  const spans = args.notebooks ? "; a child counts in the phase it ends in: the SQL warm-up, started beside the report, in the notebooks' when it outlasts the report" : "";
  lines.push(`  wall time and CPU seconds by phase${cpuEnd.withChildren ? ` (CPU: this process and its children${spans})` : " (CPU: this process only; children not measurable here)"}:`);
  for (const [name, ms, c] of timings) lines.push(`                ${name.padEnd(48)} ${seconds(ms).padStart(9)}   ${c}`);
  lines.push(`                ${"total".padEnd(48)} ${seconds(Date.now() - t0).padStart(9)}   ${formatCpu(cpu0, cpuEnd)}`);
  process.stdout.write(lines.join("\n") + "\n");
  return 0;
}
