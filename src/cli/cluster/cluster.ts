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
import { HelpRequested, intFlag, parseFlagsAndPositionals, UsageError } from "../shared/args.js";
import { k8sManifest, slurmScript, withoutUrlCredentials, type ClusterJob } from "./clusterJobs.js";
import { checkRunArgs } from "../run/run.js";

export const CLUSTER_USAGE = [
  "s3gym cluster slurm|k8s --shards N --data DIR [--out FILE] [--report-out DIR] <s3gym run flags: --models ... --games ... --pathways ...>",
  "  [--job-name s3gym] [--cpus-per-task 2] [--mem 4G] [--s3gym 's3gym'] (words split on spaces; slurm's default: this node and kit)",
  "  slurm: [--time 24:00:00] [--partition NAME]        k8s: --image IMAGE --pvc CLAIM (ReadWriteMany, mounted at DIR)",
].join("\n");

/** The job's own flags; everything else goes to `s3gym run`. */
const JOB_FLAGS = {
  shards: { type: "string" },
  data: { type: "string" },
  out: { type: "string" },
  "report-out": { type: "string" },
  "job-name": { type: "string" },
  "cpus-per-task": { type: "string" },
  mem: { type: "string" },
  time: { type: "string" },
  partition: { type: "string" },
  s3gym: { type: "string" },
  image: { type: "string" },
  pvc: { type: "string" },
} as const;

/** Flags the job sets itself on each shard's run line. */
const SET_BY_JOB = ["shard", "shard-count", "no-shard-subdir"];

/** `value` when it matches `pattern`, else a UsageError naming the flag and what it accepts. */
function matching(flag: string, value: string, pattern: RegExp, what: string): string {
  if (!pattern.test(value)) throw new UsageError(`--${flag} must be ${what}, got '${escapeControl(value)}'`);
  return value;
}

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
  const shards = intFlag("shards", v.shards, undefined, { min: 1, max: 10_000 });
  if (v.data === undefined || v.data.trim() === "") throw new UsageError("--data is required: the directory every shard writes its shard-i-of-n under (shared by the nodes)");
  if (kind === "k8s" && !isAbsolute(v.data)) throw new UsageError(`--data must be an absolute path inside the container for k8s (the claim is mounted there), got '${escapeControl(v.data)}'`);
  const data = kind === "k8s" ? v.data : resolve(v.data);
  // The run line is checked as the first task would run it (no call is made).
  try {
    checkRunArgs([...run, "--shard", `1/${shards}`, "--data", data], env);
  } catch (e) {
    if (e instanceof HelpRequested) throw e;
    throw new UsageError(`the s3gym run flags: ${(e as Error).message}`);
  }
  const s3gym = v.s3gym !== undefined ? v.s3gym.split(" ").filter(Boolean) : kind === "slurm" ? defaultS3gym() : ["s3gym"];
  if (s3gym.length === 0) throw new UsageError("--s3gym is empty: the command that starts s3gym on a node, e.g. 's3gym' or 'node /shared/s3gym/dist/cli/main.js'");
  if (kind === "k8s" && (v.image === undefined || v.pvc === undefined))
    throw new UsageError("k8s needs --image IMAGE (with s3gym installed) and --pvc CLAIM (a ReadWriteMany claim mounted at --data)");
  const credentials: string[] = [];
  const job: ClusterJob = {
    shards,
    data,
    reportOut: v["report-out"] !== undefined ? (kind === "k8s" ? v["report-out"] : resolve(v["report-out"])) : `${data.replace(/\/+$/, "")}/report`,
    // URL credentials become references the job resolves from its environment at run time (clusterJobs.ts).
    runArgs: run.map((a) => withoutUrlCredentials(a, credentials)),
    s3gym,
    name: matching("job-name", v["job-name"] ?? "s3gym", /^[a-z0-9]([a-z0-9.-]{0,50}[a-z0-9])?$/, "lower-case letters, digits, '.' and '-' (a Kubernetes name, usable by Slurm)"),
    cpus: intFlag("cpus-per-task", v["cpus-per-task"], 2, { min: 1, max: 1024 }),
    mem: matching("mem", v.mem ?? "4G", /^\d{1,7}[KMGT]?$/, "a size such as 4G or 4096M"),
    time: matching("time", v.time ?? "24:00:00", /^(\d{1,4}-)?\d{1,4}(:\d{2}){0,2}$/, "a Slurm time such as 24:00:00 or 2-00:00:00"),
    partition: v.partition === undefined ? null : matching("partition", v.partition, /^[A-Za-z0-9_.-]{1,64}$/, "a partition name (letters, digits, '_', '.', '-')"),
    image: v.image ?? "",
    pvc: v.pvc === undefined ? "" : matching("pvc", v.pvc, /^[a-z0-9]([a-z0-9.-]{0,250}[a-z0-9])?$/, "a Kubernetes claim name"),
  };
  if (kind === "slurm" && (v.image !== undefined || v.pvc !== undefined)) throw new UsageError("--image and --pvc are for k8s; slurm runs on the nodes' own file system");
  if (kind === "k8s" && (v.time !== undefined || v.partition !== undefined)) throw new UsageError("--time and --partition are for slurm");
  return { kind, job, out: v.out ?? null };
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
