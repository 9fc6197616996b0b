import { join } from "node:path";
import { getGame } from "../../games/registry.js";
import { createModelContext, validateModelSpecs, type ModelContext } from "../../models/assembleModel.js";
import { terminalSafe } from "../../models/secrets.js";
import { createModel } from "../../runner/createModel.js";
import { planDataProbes, planProbes, PROBES_OPTION, readProbeSource, runProbes, type DataProbeSpec, type PlannedProbe } from "../../runner/probe/memoryProbe.js";
import { Progress, type ProgressStream } from "../../runner/monitor/progress.js";
import { dataDirOf } from "../../runner/resume/rejudge.js";
import { parseFlags } from "../shared/args.js";
import { newRunsDataDir, recordedRunDir, recordedRunOptions, recordedRunRows, recordedRunUsage } from "../shared/recordedRunFlags.js";
import { optionFlags, readOptions, usageLines, type Option } from "../../util/options.js";
import { formatRunSummary, formatTotals, summarizeRun } from "../run/runSummary.js";
import { ENDPOINT_FLAGS, modelContextFromFlags, noCacheFlag } from "../shared/sharedFlags.js";
import { ConfigError } from "../../util/errors.js";
import { refuseFlagsBesideJob } from "../run/jobFile.js";
import { readProbeJob } from "./probeJob.js";

/** `probe` on the recorded-run table: its own row is `--probe` (runner/probe/memoryProbe.ts). */
const PROBE_COMMAND = {
  command: "probe",
  what: PROBES_OPTION,
  subject: "memory is probed",
  from: "the probed run: a run directory (<data>/runs/<run_id>), or a run id of --data (a history or memory run)",
  data: "where the probe runs go and shuffled's donor is looked for (default: the probed run's data directory; needed with a run id)",
};

/** `--job FILE`: one shard of a data directory's probes, what `s3gym reproduce` hands each probe process. */
const JOB_OPTION: Option<string | undefined> = {
  name: "job",
  kind: { type: "text", shown: "FILE", parse: (v: string) => v },
  default: undefined,
  help: "one shard of a data directory's probes (what `s3gym reproduce` hands each of its probe processes); only --progress beside it",
};

export const PROBE_COMMAND_USAGE = [recordedRunUsage(PROBE_COMMAND), ...usageLines([JOB_OPTION])].join("\n");

const FLAGS = { ...optionFlags(recordedRunRows(PROBE_COMMAND)), ...optionFlags([JOB_OPTION]), ...ENDPOINT_FLAGS };

export interface ProbeDeps {
  env?: Record<string, string | undefined>;
  stdout?: { write(text: string): unknown };
  stderr?: ProgressStream;
  modelContext?: Partial<ModelContext>;
}

export async function probeCommand(argv: string[], deps: ProbeDeps = {}): Promise<number> {
  const env = deps.env ?? process.env;
  const stdout = deps.stdout ?? process.stdout;
  const stderr = deps.stderr ?? process.stderr;
  const { values: v } = parseFlags(argv, FLAGS, PROBE_COMMAND_USAGE);
  if (v.job !== undefined) {
    refuseFlagsBesideJob(v);
    const job = readProbeJob(String(v.job));
    return probeDataDir(job.settings.data, job.settings.spec, stdout, job.settings.shard);
  }
  const o = readOptions(recordedRunOptions(PROBE_COMMAND), v);
  const probes = o.what;
  const progressMode = o.progress;
  const sourceDir = recordedRunDir(o);
  const source = readProbeSource(sourceDir);
  const dataDir = newRunsDataDir(o, sourceDir);
  // shuffled's donor: in the data directory the probes go to, and in the probed run's own.
  const planned = planProbes(source, probes, dataDir, [...new Set([dataDir, dataDirOf(sourceDir)])]);
  if (planned.length === 0) throw new ConfigError("nothing to probe");
  const ctx = createModelContext({ ...modelContextFromFlags(v, env), cacheDir: noCacheFlag(v) ? null : join(dataDir, "cache"), ...deps.modelContext });
  validateModelSpecs([source.manifest.model], ctx);
  const progress = new Progress(stderr, { mode: progressMode });
  let outcomes;
  try {
    outcomes = await runProbes({
      dataDir,
      planned,
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

/**
 * Every probe `spec` plans over a data directory's runs (`reproduce`'s probes phase), offline models
 * only, no progress display; the totals line to `stdout`. Exit code: 0 when every probe run is
 * complete. `shard` i of n: only the probe runs whose place in the run-id order is i modulo n (each
 * run is a run of its own: the shards' processes write the same files the whole list writes).
 */
export async function probeDataDir(dataDir: string, spec: DataProbeSpec, stdout: { write(text: string): unknown } = process.stdout, shard?: { index: number; count: number }): Promise<number> {
  const planned = shardOf(planDataProbes(dataDir, spec), shard);
  if (planned.length === 0) return 0;
  const ctx = createModelContext({ cacheDir: null });
  validateModelSpecs([...new Set(planned.map((p) => p.source.manifest.model))], ctx);
  // Built-in models only, which no limiter bounds: one probe run at a time holds one run's episodes
  // in memory instead of every run's (less garbage collection), and writes the same logs.
  const outcomes = await runProbes({ dataDir, planned, game: (name) => getGame(name), createModel: (name, onCall) => createModel(name, { ...ctx, onCall }), runsAtOnce: 1 });
  const summaries = outcomes.map((o) => summarizeRun(dataDir, o));
  stdout.write(`${terminalSafe(formatTotals(summaries))}\n`);
  return summaries.every((s) => s.status === "complete") ? 0 : 1;
}

/** Shard `index` of `count` of the planned probe runs (by run id, so every process of the phase cuts the same list); all without one. */
export function shardOf(planned: readonly PlannedProbe[], shard?: { index: number; count: number }): PlannedProbe[] {
  if (shard === undefined) return [...planned];
  const ids = planned.map((p) => p.entry.runId).sort();
  return planned.filter((p) => ids.indexOf(p.entry.runId) % shard.count === shard.index);
}
