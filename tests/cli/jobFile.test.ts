/**
 * `--job FILE` (src/cli/run/jobFile.ts): a job of the reproduction's plan, written to a file and read back
 * by `s3gym run --job` / `s3gym train-loop --job`, gives exactly the settings the flags give for the
 * same job (the argv reproduce passed its children before job files, kept here as the reference);
 * a bad file is refused naming the field, and --job mixed with another flag is refused.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { main } from "../../src/cli/main.js";
import { runSettingsFromArgv } from "../../src/cli/run/run.js";
import { trainLoopSettingsFromArgv } from "../../src/cli/train-loop/trainLoop.js";
import { jobFileText } from "../../src/training/loopJob.js";
import { DEFAULT_SCHEDULE, PAPER_SCHEDULE, planReproduction, QUICK_SCHEDULE, type ReproduceJob, type Schedule } from "../../src/cli/reproduce/reproducePlan.js";

/**
 * The argv each job of `s3gym reproduce` was started with at 1c0a324 (before job files), rebuilt here
 * from the job's name: the reference the typed jobs must equal.
 */
function argvBefore(schedule: Schedule, data: string, job: ReproduceJob): string[] {
  const sched = [
    "--explore-episodes",
    String(schedule.exploreEpisodes),
    "--checkpoint-every",
    String(schedule.checkpointEvery),
    "--eval-episodes",
    String(schedule.evalEpisodes),
    "--max-steps",
    String(schedule.maxSteps),
  ];
  const matrix = (models: string, pathways = "none,history,memory") => ["--models", models, "--games", "all", "--pathways", pathways, "--data", data, ...sched];
  const shard = /(\d+)\/(\d+)$/.exec(job.name);
  if (job.name.startsWith("training loop")) {
    const seed = /seed (\d+)/.exec(job.name)![1]!;
    return [
      "--model",
      "builtin:learner",
      "--trainer",
      "builtin",
      "--rounds",
      String(schedule.trainingRounds),
      "--label",
      "builtin:learner+train-loop",
      "--games",
      "all",
      "--data",
      data,
      "--explore-episodes",
      String(schedule.loopExploreEpisodes),
      "--eval-episodes",
      String(schedule.trainingEvalEpisodes),
      "--max-steps",
      String(schedule.maxSteps),
      "--threshold",
      "0.01",
      "--run-seed",
      seed,
    ];
  }
  if (job.name.startsWith("views")) return [...matrix("builtin:learner"), "--views", "eval,id,replay", "--shard", `${shard![1]}/${shard![2]}`, "--no-shard-subdir"];
  if (job.name.startsWith("matrix"))
    return [...matrix("builtin:learner?judge=0.25,builtin:random?noise=independent,builtin:heuristic?noise=independent"), "--shard", `${shard![1]}/${shard![2]}`, "--no-shard-subdir"];
  if (job.name.startsWith("references")) return [...matrix("builtin:random,builtin:heuristic,builtin:perfect-judge", "none"), "--shard", `${shard![1]}/${shard![2]}`, "--no-shard-subdir"];
  if (job.name.startsWith("learners"))
    return [...matrix("builtin:learner,builtin:learner?judge=0.25"), "--run-seed", /run seed (\d+)/.exec(job.name)![1]!, "--shard", `${shard![1]}/${shard![2]}`, "--no-shard-subdir"];
  if (job.name === "verified") return matrix("builtin:learner", "verified");
  if (job.name.startsWith("verified, run seed")) return [...matrix("builtin:learner", "verified"), "--run-seed", /run seed (\d+)/.exec(job.name)![1]!];
  if (job.name === "ceiling") return matrix("builtin:ceiling", "none");
  if (job.name === "hybrid") return ["--models", "builtin:learner", "--games", "chess,minesweeper", "--pathways", "hybrid", "--data", data, ...sched];
  if (job.name.startsWith("hybrid, run seed"))
    return ["--models", "builtin:learner", "--games", "chess,minesweeper", "--pathways", "hybrid", "--data", data, ...sched, "--run-seed", /run seed (\d+)/.exec(job.name)![1]!];
  const seed = /run seed (\d+)/.exec(job.name)![1]!;
  const d = schedule.name === "quick" ? ["3", "3", "2", "16"] : ["12", "3", "4", "32"];
  const dial = (models: string, rejudged: string) => [
    "--models",
    models,
    "--games",
    "minesweeper,nullify,pvz,tetris",
    "--pathways",
    "none,history,memory",
    "--data",
    join(data, "dial"),
    "--explore-episodes",
    d[0]!,
    "--checkpoint-every",
    d[1]!,
    "--eval-episodes",
    d[2]!,
    "--max-steps",
    d[3]!,
    "--run-seed",
    seed,
    "--rejudge",
    "verifier,shuffled,none",
    "--rejudge-models",
    rejudged,
  ];
  if (job.name.startsWith("judge swap nulls"))
    return dial("builtin:random?noise=independent,builtin:heuristic?noise=independent", "builtin:random?noise=independent,builtin:heuristic?noise=independent");
  if (job.name.startsWith("judge swap")) return dial("builtin:learner?judge=0", "builtin:learner?judge=0");
  return dial("builtin:learner?judge=0,builtin:learner?judge=0.25,builtin:learner?judge=0.5,builtin:learner?judge=0.75,builtin:learner", "builtin:learner?judge=0");
}

function fileOf(text: string): string {
  const f = join(mkdtempSync(join(tmpdir(), "s3gym-jobfile-")), "job.json");
  writeFileSync(f, text);
  return f;
}

describe("a job file round-trips", () => {
  it("plan -> file -> settings equal what the flags give for the same job, for every job of every schedule", () => {
    const data = mkdtempSync(join(tmpdir(), "s3gym-jobfile-data-"));
    for (const schedule of [QUICK_SCHEDULE, PAPER_SCHEDULE, DEFAULT_SCHEDULE]) {
      for (const job of planReproduction(schedule, data)) {
        const file = fileOf(jobFileText(job));
        const argv = argvBefore(schedule, data, job);
        if (job.command === "run") {
          const fromFile = runSettingsFromArgv(["--job", file, "--progress", "off"]);
          expect(fromFile, job.name).toStrictEqual(runSettingsFromArgv([...argv, "--progress", "off"]));
          expect(fromFile, job.name).toStrictEqual(job.settings);
        } else {
          const fromFile = trainLoopSettingsFromArgv(["--job", file, "--progress", "off"]);
          expect(fromFile, job.name).toStrictEqual(trainLoopSettingsFromArgv([...argv, "--progress", "off"]));
          expect(fromFile, job.name).toStrictEqual(job.settings);
        }
      }
    }
  });

  it("a protocol setting left out of the file is its flag left out: the default", () => {
    const job = planReproduction(QUICK_SCHEDULE, "/tmp/x").find((j) => j.name === "ceiling")!;
    const text = JSON.parse(jobFileText(job)) as { settings: { settings: Record<string, unknown> } };
    delete text.settings.settings.maxNewTokens;
    delete text.settings.settings.tokenizer;
    expect(runSettingsFromArgv(["--job", fileOf(JSON.stringify(text))])).toStrictEqual(job.settings);
  });
});

describe("a bad job file", () => {
  afterEach(() => vi.restoreAllMocks());

  async function refused(argv: string[]): Promise<string> {
    let err = "";
    vi.spyOn(process.stderr, "write").mockImplementation((s) => ((err += String(s)), true));
    vi.spyOn(process.stdout, "write").mockImplementation(() => true);
    expect(await main(argv)).toBe(2);
    return err;
  }

  const job = planReproduction(QUICK_SCHEDULE, "/tmp/x").find((j) => j.name === "verified")!;
  const edited = (f: (o: { settings: Record<string, unknown> & { settings: Record<string, unknown> } }) => void): string => {
    const o = JSON.parse(jobFileText(job)) as { settings: Record<string, unknown> & { settings: Record<string, unknown> } };
    f(o);
    return fileOf(JSON.stringify(o));
  };

  it("names the field and what it expected", async () => {
    const f = edited((o) => (o.settings.models = "builtin:learner"));
    const err = await refused(["run", "--job", f]);
    expect(err).toContain(`s3gym run: --job ${f}: settings.models: `);
    expect(err).toContain("expected array");
    expect(await refused(["run", "--job", edited((o) => (o.settings.settings.maxSteps = 0))])).toMatch(/settings\.settings\.maxSteps: .*>=1/);
    expect(await refused(["run", "--job", edited((o) => (o.settings.games = ["chess", "go"]))])).toContain("settings.games[1]: ");
    expect(await refused(["run", "--job", edited((o) => (o.settings.shards = 2))])).toMatch(/settings: Unrecognized key: "shards"/);
    expect(await refused(["run", "--job", edited((o) => (o.settings.verified = null))])).toContain("settings.verified is null but the pathways include verified");
  });

  it("applies the rules between fields the flags have (a train-loop job's builtin trainer needs builtin:learner)", async () => {
    const loop = JSON.parse(jobFileText(planReproduction(QUICK_SCHEDULE, "/tmp/x")[0]!)) as { settings: { model: string } };
    loop.settings.model = "builtin:random";
    const f = fileOf(JSON.stringify(loop));
    expect(await refused(["train-loop", "--job", f])).toContain(
      `s3gym train-loop: --job ${f}: settings.trainer 'builtin' fine-tunes builtin:learner[@ckpt][?judge=x]; settings.model is 'builtin:random'`,
    );
  });

  it("says which command a job is for, and when the file is not there or not JSON", async () => {
    const loop = fileOf(jobFileText(planReproduction(QUICK_SCHEDULE, "/tmp/x")[0]!));
    expect(await refused(["run", "--job", loop])).toContain(`--job ${loop} is a 'train-loop' job: run it with 's3gym train-loop --job ${loop}'`);
    expect(await refused(["train-loop", "--job", "/nonexistent/job.json"])).toContain("--job: cannot read '/nonexistent/job.json': ENOENT");
    expect(await refused(["run", "--job", fileOf("{")])).toMatch(/--job .*: not JSON/);
  });

  it("refuses --job beside any flag but --progress", async () => {
    const f = fileOf(jobFileText(job));
    expect(await refused(["run", "--job", f, "--models", "builtin:random", "--progress", "off"])).toContain(
      "--job FILE holds every setting of the job: it cannot be mixed with --models (only --progress may be given beside it)",
    );
    expect(await refused(["train-loop", "--job", f, "--rounds", "2", "--no-cache"])).toContain("cannot be mixed with --rounds, --no-cache");
  });
});
