/**
 * `s3gym cluster slurm|k8s --shards N --data DIR [job flags] <s3gym run flags>`: prints (or, with
 * --out, writes) a job file that runs the matrix as N shards on the cluster's own scheduler and then
 * builds the report (clusterJobs.ts, docs/scale.md). Every flag that is not the job's own is an
 * `s3gym run` flag, checked here as a run would check it, so a typo fails now and not on the cluster.
 */
import { writeFileSync } from "node:fs";
import { isAbsolute, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { escapeControl } from "../../util/outsideText.js";
import { intRange, optionFlags, optionRows, readOption, usageLines, usageToken, type Option } from "../../util/options.js";
import { HelpRequested, intFlag, parseFlagsAndPositionals, UsageError } from "../shared/args.js";
import { CLUSTER_JOB_OPTIONS, k8sManifest, slurmScript, withoutUrlCredentials, type ClusterJob } from "./clusterJobs.js";
import { checkRunArgs } from "../run/run.js";

/** The job's own rows, in the order `--help` lists them; everything else goes to `s3gym run`. */
const JOB_ROWS: Option<unknown>[] = optionRows(CLUSTER_JOB_OPTIONS);

export const CLUSTER_USAGE = [
  `s3gym cluster slurm|k8s ${usageToken(CLUSTER_JOB_OPTIONS.shards).slice(1, -1)} ${usageToken(CLUSTER_JOB_OPTIONS.data)} [flags] <s3gym run flags: --models ... --games ... --pathways ...>`,
  ...usageLines(JOB_ROWS),
].join("\n");

/** The job's own flags (from its rows); everything else goes to `s3gym run`. */
const JOB_FLAGS = optionFlags(JOB_ROWS);

/** Flags the job sets itself on each shard's run line. */
const SET_BY_JOB = ["shard", "shard-count", "no-shard-subdir"];

/** Splits argv into the job's flags and the run's (kept in order, as given). */
function splitArgs(argv: readonly string[]): { job: string[]; run: string[] } {
  const job: string[] = [];
  const run: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    const name = a.startsWith("--") ? a.slice(2).split("=")[0]! : null;
    if (name !== null && name in JOB_FLAGS) {
      job.push(a);
      if (!a.includes("=") && i + 1 < argv.length) job.push(argv[++i]!);
    } else if (name === "help" || a === "-h" || (!a.startsWith("-") && job.length === 0 && run.length === 0)) job.push(a);
    else run.push(a);
  }
  return { job, run };
}

/** The default way a node starts s3gym: this Node and this kit's CLI (a shared file system). */
function defaultS3gym(): string[] {
  return [process.execPath, fileURLToPath(new URL("../main.js", import.meta.url))];
}

/** Parses the command line into the job description and the scheduler; throws UsageError naming the flag. */
export function parseClusterArgs(argv: readonly string[], env: Record<string, string | undefined> = {}): { kind: "slurm" | "k8s"; job: ClusterJob; out: string | null } {
  const { job: jobArgv, run } = splitArgs(argv);
  const { values: v, positionals } = parseFlagsAndPositionals(jobArgv, JOB_FLAGS, CLUSTER_USAGE);
  const kind = positionals[0];
  if (kind !== "slurm" && kind !== "k8s")
    throw new UsageError(`expected the scheduler first: s3gym cluster slurm ... or s3gym cluster k8s ...${kind === undefined ? "" : `, got '${escapeControl(kind)}'`}\nusage: ${CLUSTER_USAGE}`);
  if (positionals.length > 1) throw new UsageError(`unexpected argument '${escapeControl(positionals[1]!)}'\nusage: ${CLUSTER_USAGE}`);
  for (const name of SET_BY_JOB) {
    if (run.some((a) => a === `--${name}` || a.startsWith(`--${name}=`))) throw new UsageError(`--${name} is set by the job file (each task runs --shard auto into --data/shard-i-of-n): drop it`);
  }
  // A control character (a newline above all) could end a heredoc or a #SBATCH line early: refused.
  for (const a of [...argv]) {
    // biome-ignore lint/suspicious/noControlCharactersInRegex: an argument with a control character is refused, so the pattern must name them
    if (/[\u0000-\u001f\u007f]/.test(a)) throw new UsageError(`an argument holds a control character ('${escapeControl(a)}'): a job file cannot carry it safely; remove it`);
  }
  const o = CLUSTER_JOB_OPTIONS;
  const read = <T>(row: Option<T>): T => readOption(row, v[row.name]) as T;
  const shards = intFlag(o.shards.name, v.shards as string | undefined, undefined, intRange(o.shards));
  const given = read(o.data) as string;
  if (kind === "k8s" && !isAbsolute(given)) throw new UsageError(`--data must be an absolute path inside the container for k8s (the claim is mounted there), got '${escapeControl(given)}'`);
  const data = kind === "k8s" ? given : resolve(given);
  // The run line is checked as the first task would run it (no call is made).
  try {
    checkRunArgs([...run, "--shard", `1/${shards}`, "--data", data], env);
  } catch (e) {
    if (e instanceof HelpRequested) throw e;
    throw new UsageError(`the s3gym run flags: ${(e as Error).message}`);
  }
  const s3gym = read(o.s3gym) ?? (kind === "slurm" ? defaultS3gym() : ["s3gym"]);
  if (s3gym.length === 0) throw new UsageError("--s3gym is empty: the command that starts s3gym on a node, e.g. 's3gym' or 'node /shared/s3gym/dist/cli/main.js'");
  if (kind === "k8s" && (v.image === undefined || v.pvc === undefined))
    throw new UsageError("k8s needs --image IMAGE (with s3gym installed) and --pvc CLAIM (a ReadWriteMany claim mounted at --data)");
  const reportOut = read(o.reportOut);
  const credentials: string[] = [];
  const job: ClusterJob = {
    shards,
    data,
    reportOut: reportOut !== undefined ? (kind === "k8s" ? reportOut : resolve(reportOut)) : `${data.replace(/\/+$/, "")}/report`,
    // URL credentials become references the job resolves from its environment at run time (clusterJobs.ts).
    runArgs: run.map((a) => withoutUrlCredentials(a, credentials)),
    s3gym,
    name: read(o.jobName),
    cpus: read(o.cpusPerTask),
    mem: read(o.mem),
    time: read(o.time),
    partition: read(o.partition) ?? null,
    image: read(o.image) ?? "",
    pvc: read(o.pvc) ?? "",
  };
  if (kind === "slurm" && (v.image !== undefined || v.pvc !== undefined)) throw new UsageError("--image and --pvc are for k8s; slurm runs on the nodes' own file system");
  if (kind === "k8s" && (v.time !== undefined || v.partition !== undefined)) throw new UsageError("--time and --partition are for slurm");
  return { kind, job, out: read(o.out) ?? null };
}

export interface ClusterIo {
  stdout?: { write(text: string): unknown };
  stderr?: { write(text: string): unknown };
  env?: Record<string, string | undefined>;
}

export async function clusterCommand(argv: string[], io: ClusterIo = {}): Promise<number> {
  const stdout = io.stdout ?? process.stdout;
  const stderr = io.stderr ?? process.stderr;
  const { kind, job, out } = parseClusterArgs(argv, io.env ?? process.env);
  const text = kind === "slurm" ? slurmScript(job) : k8sManifest(job);
  if (out === null) stdout.write(text);
  else {
    writeFileSync(out, text, { mode: kind === "slurm" ? 0o755 : 0o644 });
    stderr.write(`s3gym cluster: wrote ${escapeControl(out)}; ${kind === "slurm" ? `submit with: bash ${escapeControl(out)}` : `apply with: kubectl apply -f ${escapeControl(out)}`}\n`);
  }
  return 0;
}
