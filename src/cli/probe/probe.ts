/**
 * `s3gym probe --from <run dir | run id> --probe empty,shuffled,transplant:<run> [--data D]`: does
 * the model read its memory? (docs/memory.md). For each probe, a new run
 * `<id>__probe-<kind>` in the data directory (default: the probed run's own) that replays the probed
 * run's exploration (no exploration call) and plays every checkpoint's evaluation episodes on the
 * same evaluation seeds with the same model, reading no experience (`empty`), the same model's
 * experience from another run seed (`shuffled`) or another model's (`transplant`). A normal run
 * directory: rerunning the command resumes it; status, view, report and sql read it.
 *
 * A command beside `rejudge` rather than a flag of it: a probe changes which experience the
 * checkpoints read, a rejudge which score the experience is built from; they do not combine, and
 * their runs feed different tables (memory_probes, judge_swap).
 */
import { existsSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { getGame } from "../../games/registry.js";
import { runDir } from "../../logs/runDir.js";
import { createModelContext, validateModelSpecs, type ModelContext } from "../../models/assembleModel.js";
import { terminalSafe } from "../../models/secrets.js";
import { createModel } from "../../runner/createModel.js";
import { parseProbe, planDataProbes, planProbes, PROBE_USAGE, readProbeSource, runProbes, type DataProbeSpec, type PlannedProbe } from "../../runner/probe/memoryProbe.js";
import { Progress, type ProgressStream } from "../../runner/monitor/progress.js";
import { dataDirOf } from "../../runner/resume/rejudge.js";
import { folderFlag, oneOf, parseFlags, UsageError } from "../shared/args.js";
import { formatRunSummary, formatTotals, summarizeRun } from "../run/runSummary.js";
import { ENDPOINT_FLAGS, endpointUsage, modelContextFromFlags, noCacheFlag } from "../shared/sharedFlags.js";
import { ConfigError } from "../../util/errors.js";
import { refuseFlagsBesideJob } from "../run/jobFile.js";
import { readProbeJob } from "./probeJob.js";

export const PROBE_COMMAND_USAGE = [
  `s3gym probe --from RUN_DIR|RUN_ID --probe ${PROBE_USAGE}[,...] [--data DIR]`,
  "  --from: the probed run: a run directory (<data>/runs/<run_id>), or a run id of --data (a history or memory run)",
  "  --probe: one probe or several (comma list): one probe run each, evaluation only",
  "     empty: no experience; shuffled: the same model's run of another run seed; transplant:<run dir or id>: another model's run",
  "  --data: where the probe runs go and shuffled's donor is looked for (default: the probed run's data directory; needed with a run id)",
  ...endpointUsage(),
  "  [--progress auto|bar|lines|off]",
  "  --job FILE: one shard of a data directory's probes (what `s3gym reproduce` hands each of its probe processes); only --progress beside it",
].join("\n");

const FLAGS = {
  from: { type: "string" },
  probe: { type: "string" },
  data: { type: "string" },
  progress: { type: "string" },
  job: { type: "string" },
  ...ENDPOINT_FLAGS,
} as const;

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
    const job = readProbeJob(v.job);
    return probeDataDir(job.settings.data, job.settings.spec, stdout, job.settings.shard);
  }
  if (v.from === undefined || v.from.trim() === "") throw new UsageError("--from is required: the run directory (or, with --data, the run id) whose memory is probed");
  if (v.probe === undefined || v.probe.trim() === "") throw new UsageError(`--probe is required: ${PROBE_USAGE} (a comma list for several)`);
  const probes = [
    ...new Set(
      v.probe
        .split(",")
        .map((s) => s.trim())
        .filter(Boolean),
    ),
  ].map((p) => {
    try {
      return parseProbe(p);
    } catch (e) {
      throw new UsageError(`--probe: ${(e as Error).message}`);
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
  const source = readProbeSource(sourceDir);
  const dataDir = v.data !== undefined ? resolve(folderFlag("data", v.data)) : dataDirOf(sourceDir);
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
  const outcomes = await runProbes({ dataDir, planned, game: (name) => getGame(name), createModel: (name, onCall) => createModel(name, { ...ctx, onCall }) });
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
