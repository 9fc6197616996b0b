import { join } from "node:path";
import { getGame } from "../../games/registry.js";
import { createModelContext, validateModelSpecs, type ModelContext } from "../../models/assembleModel.js";
import { terminalSafe } from "../../models/secrets.js";
import { judgeModel, JUDGES_OPTION } from "../../pathways/judge.js";
import { createModel } from "../../runner/createModel.js";
import { Progress, type ProgressStream } from "../../runner/monitor/progress.js";
import { readRejudgeSource, rejudgeRuns } from "../../runner/resume/rejudge.js";
import { parseFlags } from "../shared/args.js";
import { newRunsDataDir, recordedRunDir, recordedRunOptions, recordedRunRows, recordedRunUsage } from "../shared/recordedRunFlags.js";
import { optionFlags, readOptions } from "../../util/options.js";
import { formatRunSummary, formatTotals, summarizeRun } from "../run/runSummary.js";
import { ENDPOINT_FLAGS, modelContextFromFlags, noCacheFlag } from "../shared/sharedFlags.js";

/** `rejudge` on the recorded-run table: its own row is `--judge` (pathways/judge.ts). */
const REJUDGE_COMMAND = {
  command: "rejudge",
  what: JUDGES_OPTION,
  subject: "exploration is rejudged",
  from: "a run directory (<data>/runs/<run_id>), or a run id of --data",
  data: "where the rejudged runs go (default: the recorded run's data directory; needed with a run id)",
};

export const REJUDGE_USAGE = recordedRunUsage(REJUDGE_COMMAND);

const FLAGS = { ...optionFlags(recordedRunRows(REJUDGE_COMMAND)), ...ENDPOINT_FLAGS };

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
  const o = readOptions(recordedRunOptions(REJUDGE_COMMAND), v);
  const judges = o.what;
  const progressMode = o.progress;
  const sourceDir = recordedRunDir(o);
  const source = readRejudgeSource(sourceDir);
  const dataDir = newRunsDataDir(o, sourceDir);
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
