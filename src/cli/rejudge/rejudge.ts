/**
 * `s3gym rejudge --from <run dir | run id> --judge X[,Y...] [--data D]`: the same evidence, another
 * judge (docs/judging.md, "Rejudge"). For each judge, a new run `<id>__rejudge-<judge>` in the data
 * directory (default: the recorded run's own), whose experience at every checkpoint is rebuilt from
 * the recorded run's exploration steps judged by X and whose evaluation episodes are played on the
 * same evaluation seeds with the recorded run's model: exploration is paid once. A normal run
 * directory (resume by rerunning the command; status, view, report and sql read it).
 */
import { existsSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { getGame } from "../../games/registry.js";
import { runDir } from "../../logs/runDir.js";
import { createModelContext, validateModelSpecs, type ModelContext } from "../../models/assembleModel.js";
import { terminalSafe } from "../../models/secrets.js";
import { judgeModel, JUDGE_USAGE, parseJudge } from "../../pathways/judge.js";
import { createModel } from "../../runner/createModel.js";
import { Progress, type ProgressStream } from "../../runner/monitor/progress.js";
import { dataDirOf, readRejudgeSource, rejudgeRuns } from "../../runner/resume/rejudge.js";
import { listItems } from "../../util/options.js";
import { folderFlag, oneOf, parseFlags, UsageError } from "../shared/args.js";
import { formatRunSummary, formatTotals, summarizeRun } from "../run/runSummary.js";
import { ENDPOINT_FLAGS, endpointUsage, modelContextFromFlags, noCacheFlag } from "../shared/sharedFlags.js";

export const REJUDGE_USAGE = [
  `s3gym rejudge --from RUN_DIR|RUN_ID --judge ${JUDGE_USAGE}[,...] [--data DIR]`,
  "  --from: a run directory (<data>/runs/<run_id>), or a run id of --data",
  "  --judge: one judge or several (comma list): one rejudged run each",
  "  --data: where the rejudged runs go (default: the recorded run's data directory; needed with a run id)",
  ...endpointUsage(),
  "  [--progress auto|bar|lines|off]",
].join("\n");

const FLAGS = {
  from: { type: "string" },
  judge: { type: "string" },
  data: { type: "string" },
  progress: { type: "string" },
  ...ENDPOINT_FLAGS,
} as const;

export interface RejudgeDeps {
  env?: Record<string, string | undefined>;
  stdout?: { write(text: string): unknown };
  stderr?: ProgressStream;
  modelContext?: Partial<ModelContext>;
}

export async function rejudgeCommand(argv: string[], deps: RejudgeDeps = {}): Promise<number> {
  const env = deps.env ?? process.env;
  const stdout = deps.stdout ?? process.stdout;
  const stderr = deps.stderr ?? process.stderr;
  const { values: v } = parseFlags(argv, FLAGS, REJUDGE_USAGE);
  if (v.from === undefined || v.from.trim() === "") throw new UsageError("--from is required: the run directory (or, with --data, the run id) whose exploration is rejudged");
  if (v.judge === undefined || v.judge.trim() === "") throw new UsageError(`--judge is required: ${JUDGE_USAGE} (a comma list for several)`);
  const judges = listItems(v.judge).map((j) => {
    try {
      return parseJudge(j);
    } catch (e) {
      throw new UsageError(`--judge: ${(e as Error).message}`);
    }
  });
  const progressMode = oneOf("progress", v.progress, ["auto", "bar", "lines", "off"] as const, "auto");
  const asDir = resolve(v.from);
  let sourceDir: string;
  if (existsSync(asDir) && statSync(asDir).isDirectory()) sourceDir = asDir;
  else {
    if (v.data === undefined) throw new UsageError(`--from ${v.from}: no such directory; a run id needs --data (the data directory that holds it)`);
    sourceDir = runDir(resolve(folderFlag("data", v.data)), v.from.trim());
    if (!existsSync(sourceDir)) throw new UsageError(`--from ${v.from}: no run of that id in --data ${v.data} (expected ${sourceDir})`);
  }
  const source = readRejudgeSource(sourceDir);
  const dataDir = v.data !== undefined ? resolve(folderFlag("data", v.data)) : dataDirOf(sourceDir);
  const ctx = createModelContext({ ...modelContextFromFlags(v, env), cacheDir: noCacheFlag(v) ? null : join(dataDir, "cache"), ...deps.modelContext });
  // The actor (it plays the evaluation episodes) and every external judge, checked before any call.
  const judgeModels = judges.map(judgeModel).filter((m): m is string => m !== null);
  validateModelSpecs([...new Set([source.manifest.model, ...judgeModels])], ctx);
  const progress = new Progress(stderr, { mode: progressMode });
  let outcomes;
  try {
    outcomes = await rejudgeRuns({
      dataDir,
      sources: [source],
      judges,
      game: (name) => getGame(name),
      createModel: (name, onCall) => createModel(name, { ...ctx, onCall }),
      events: progress,
      invocation: { concurrency: ctx.concurrency, cache: ctx.cacheDir !== null },
    });
  } finally {
    progress.close();
  }
  const summaries = outcomes.map((o) => summarizeRun(dataDir, o));
  for (const s of summaries) stdout.write(`${terminalSafe(formatRunSummary(s))}\n`);
  stdout.write(`${terminalSafe(formatTotals(summaries))}\n`);
  return summaries.every((s) => s.status === "complete") ? 0 : 1;
}
