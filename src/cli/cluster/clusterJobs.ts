/**
 * The job files of `s3gym cluster` (docs/scale.md): pure text from a description, no I/O.
 *
 * Slurm: one bash script to run (not to sbatch): it submits an array job of N tasks, each running
 * `s3gym run --shard auto ...` (the task's shard from SLURM_ARRAY_TASK_ID), then a report job with
 * `--dependency=afterok:<array>`, so the report runs once every shard succeeded. Each job's script
 * is a quoted heredoc fed to sbatch: its #SBATCH lines carry only validated values (numbers, a
 * name, a partition), and every user string (paths, models, flags) is a single-quoted shell word
 * (shellQuote), in the outer script (sbatch's --output) or in the job's exec line.
 *
 * Kubernetes: an indexed Job (completionMode: Indexed, completions = parallelism = N) whose pods run
 * `s3gym run --shard auto --shard-count N` (JOB_COMPLETION_INDEX), and a report Job that waits until
 * `s3gym status` says the matrix is complete, then builds the report. Every string is a JSON string
 * (valid YAML); the report's shell line is quoted with shellQuote first.
 */
import { shardDirName } from "../../logs/runDir.js";
import { UsageError } from "../../util/errors.js";
import { asGiven, type OptionTable } from "../../util/options.js";
import { escapeControl } from "../../util/outsideText.js";
import { shellLine, shellQuote } from "../../util/shellQuote.js";

/** A text row's reader: `value` when it matches `pattern`, else a UsageError naming the flag and what it accepts. */
function matching(flag: string, pattern: RegExp, what: string): (value: string) => string {
  return (value) => {
    if (!pattern.test(value)) throw new UsageError(`--${flag} must be ${what}, got '${escapeControl(value)}'`);
    return value;
  };
}

/**
 * The job's own rows (`s3gym cluster`): what each sets in the job file. Every other flag of the
 * command line is an `s3gym run` flag. `--data` and `--report-out` are resolved by the command (k8s
 * keeps them as written: they are paths inside the container).
 */
export const CLUSTER_JOB_OPTIONS: OptionTable<{
  shards: number | undefined;
  data: string | undefined;
  out: string | undefined;
  reportOut: string | undefined;
  jobName: string;
  cpusPerTask: number;
  mem: string;
  s3gym: string[] | undefined;
  time: string;
  partition: string | undefined;
  image: string | undefined;
  pvc: string | undefined;
}> = {
  shards: { name: "shards", kind: { type: "int", range: { min: 1, max: 10_000 } }, default: undefined, arg: "N", help: "tasks of the array, each running --shard i/N of the matrix (required)" },
  data: {
    name: "data",
    kind: { type: "text", shown: "DIR", parse: asGiven },
    default: undefined,
    required: "the directory every shard writes its shard-i-of-n under (shared by the nodes)",
    help: "the directory every shard writes its shard-i-of-n under (shared by the nodes; k8s: an absolute path, the claim's mount)",
  },
  out: { name: "out", kind: { type: "text", shown: "FILE", parse: asGiven }, default: undefined, help: "write the job file there (default: print it)" },
  reportOut: { name: "report-out", kind: { type: "text", shown: "DIR", parse: asGiven }, default: undefined, help: "where the report job writes (default DIR/report)" },
  jobName: {
    name: "job-name",
    kind: { type: "text", shown: "s3gym", parse: matching("job-name", /^[a-z0-9]([a-z0-9.-]{0,50}[a-z0-9])?$/, "lower-case letters, digits, '.' and '-' (a Kubernetes name, usable by Slurm)") },
    default: "s3gym",
  },
  cpusPerTask: { name: "cpus-per-task", kind: { type: "int", range: { min: 1, max: 1024 } }, default: 2 },
  mem: { name: "mem", kind: { type: "text", shown: "4G", parse: matching("mem", /^\d{1,7}[KMGT]?$/, "a size such as 4G or 4096M") }, default: "4G" },
  s3gym: {
    name: "s3gym",
    kind: { type: "text", shown: "'s3gym'", parse: (v: string) => v.split(" ").filter(Boolean) },
    default: undefined,
    help: "the command that starts s3gym on a node, words split on spaces (slurm's default: this node and kit)",
  },
  time: {
    name: "time",
    kind: { type: "text", shown: "24:00:00", parse: matching("time", /^(\d{1,4}-)?\d{1,4}(:\d{2}){0,2}$/, "a Slurm time such as 24:00:00 or 2-00:00:00") },
    default: "24:00:00",
    help: "slurm only: the time limit of each task",
  },
  partition: {
    name: "partition",
    kind: { type: "text", shown: "NAME", parse: matching("partition", /^[A-Za-z0-9_.-]{1,64}$/, "a partition name (letters, digits, '_', '.', '-')") },
    default: undefined,
    help: "slurm only: the partition to submit to",
  },
  image: { name: "image", kind: { type: "text", shown: "IMAGE", parse: asGiven }, default: undefined, help: "k8s only (required there): the container image, with s3gym installed" },
  pvc: {
    name: "pvc",
    kind: { type: "text", shown: "CLAIM", parse: matching("pvc", /^[a-z0-9]([a-z0-9.-]{0,250}[a-z0-9])?$/, "a Kubernetes claim name") },
    default: undefined,
    help: "k8s only (required there): a ReadWriteMany claim, mounted at DIR",
  },
};

/**
 * URL credentials (`http://user:KEY@host/v1` in --base-url, a models file path aside) never go into a
 * job file: `s3gym cluster` replaces each URL's userinfo in the run flags by a reference to an
 * environment variable (URL_CREDENTIAL_ENV + its number), which the job reads at run time: Slurm from
 * the environment sbatch carries (export it before running the script, which checks it is set), a
 * Kubernetes pod from a Secret (`<name>-endpoint`, key `url-credentials-<n>`). In `runArgs` a
 * reference is written `\u0001<n>\u0001` (arguments holding control characters are refused, so it
 * cannot clash with a user's text) and each renderer spells it as its scheduler expands it.
 */
export const URL_CREDENTIAL_ENV = "S3GYM_URL_CREDENTIALS_";
// biome-ignore lint/suspicious/noControlCharactersInRegex: U+0001 brackets a credential reference, a character no argument can hold (arguments with control characters are refused)
const CREDENTIAL_REF = /\u0001(\d+)\u0001/g;

/** The argument with each URL's userinfo replaced by a credential reference; `found` gets the userinfo in order. */
export function withoutUrlCredentials(arg: string, found: string[]): string {
  return arg.replace(/\b([a-zA-Z][a-zA-Z0-9+.-]*:\/\/)([^/?#@\s,]+)@/g, (_m, scheme: string, userinfo: string) => {
    let n = found.indexOf(userinfo);
    if (n < 0) n = found.push(userinfo) - 1;
    return `${scheme}\u0001${n + 1}\u0001@`;
  });
}

/** A shell word whose credential references expand at run time (`"${S3GYM_URL_CREDENTIALS_1}"`), the rest single-quoted. */
function shellWordWithRefs(word: string): string {
  if (!word.includes("\u0001")) return shellQuote(word);
  // biome-ignore lint/suspicious/noControlCharactersInRegex: the U+0001 brackets of a credential reference (see CREDENTIAL_REF)
  const parts = word.split(/\u0001(\d+)\u0001/);
  return parts.map((p, i) => (i % 2 === 1 ? `"\${${URL_CREDENTIAL_ENV}${p}}"` : p === "" ? "" : shellQuote(p))).join("");
}

/** The distinct credential numbers a job's run flags refer to. */
function credentialRefs(j: ClusterJob): number[] {
  const out = new Set<number>();
  for (const a of j.runArgs) for (const m of a.matchAll(CREDENTIAL_REF)) out.add(Number(m[1]));
  return [...out].sort((a, b) => a - b);
}

export interface ClusterJob {
  /** Shards (array tasks, or indexed completions). */
  shards: number;
  /** The parent data directory: shard i writes `<data>/shard-i-of-n`. Absolute. */
  data: string;
  /** Where the report job writes the tables and figures. */
  reportOut: string;
  /** The `s3gym run` arguments besides --shard, --shard-count and --data. */
  runArgs: readonly string[];
  /** The words that start s3gym on a node (e.g. ["s3gym"], or [node, /path/dist/cli/main.js]). */
  s3gym: readonly string[];
  /** Job name (the report job's is `<name>-report`). */
  name: string;
  cpus: number;
  /** Memory per task, as the scheduler reads it (`4G`). */
  mem: string;
  /** Slurm: time limit (`24:00:00`) and partition (null: the default). */
  time: string;
  partition: string | null;
  /** Kubernetes: the image, and the ReadWriteMany volume claim mounted at `data`. */
  image: string;
  pvc: string;
}

/** The shard directories the report reads, in shard order. */
export function shardDirs(data: string, shards: number): string[] {
  return Array.from({ length: shards }, (_, i) => `${data.replace(/\/+$/, "")}/${shardDirName({ index: i + 1, count: shards })}`);
}

function reportArgs(j: ClusterJob): string[] {
  return ["report", ...shardDirs(j.data, j.shards).flatMap((d) => ["--data", d]), "--out", j.reportOut];
}

function shardArgs(j: ClusterJob, k8s: boolean): string[] {
  return ["run", "--shard", "auto", ...(k8s ? ["--shard-count", String(j.shards)] : []), ...j.runArgs, "--data", j.data];
}

/** The Slurm submission script (run it with bash). */
export function slurmScript(j: ClusterJob): string {
  const logs = `${j.data.replace(/\/+$/, "")}/slurm`;
  const resources = (name: string) => [
    `#SBATCH --job-name=${name}`,
    `#SBATCH --cpus-per-task=${j.cpus}`,
    `#SBATCH --mem=${j.mem}`,
    `#SBATCH --time=${j.time}`,
    ...(j.partition !== null ? [`#SBATCH --partition=${j.partition}`] : []),
  ];
  return [
    "#!/usr/bin/env bash",
    `# Written by s3gym cluster slurm: ${j.shards} shards of the matrix as one Slurm array job, then the`,
    "# report once every shard has succeeded. Run it with bash (it calls sbatch twice), not with sbatch.",
    `# Each task's output: ${logs}/shards-<job>_<task>.out (task t plays shard t+1, into shard-<t+1>-of-${j.shards}).`,
    "# Progress and the command that resumes a failed shard: s3gym status --data <the data directory>.",
    "set -euo pipefail",
    // URL credentials are read from the environment at run time, never written here: checked before submitting.
    ...credentialRefs(j).map(
      (n) => `: "\${${URL_CREDENTIAL_ENV}${n}:?export ${URL_CREDENTIAL_ENV}${n}=USER:KEY (the credentials of URL ${n} of the run flags, not written into this script) before running it}"`,
    ),
    `mkdir -p ${shellQuote(logs)}`,
    `shards_job=$(sbatch --parsable --output=${shellQuote(`${logs}/shards-%A_%a.out`)} <<'S3GYM_SHARDS'`,
    "#!/bin/bash",
    ...resources(j.name),
    `#SBATCH --array=0-${j.shards - 1}`,
    "# --shard auto: this task's shard from SLURM_ARRAY_TASK_ID and SLURM_ARRAY_TASK_COUNT.",
    `exec ${[...j.s3gym, ...shardArgs(j, false)].map(shellWordWithRefs).join(" ")}`,
    "S3GYM_SHARDS",
    ")",
    "shards_job=${shards_job%%;*}",
    `report_job=$(sbatch --parsable --dependency=afterok:"$shards_job" --output=${shellQuote(`${logs}/report-%j.out`)} <<'S3GYM_REPORT'`,
    "#!/bin/bash",
    ...resources(`${j.name}-report`),
    `exec ${shellLine([...j.s3gym, ...reportArgs(j)])}`,
    "S3GYM_REPORT",
    ")",
    "report_job=${report_job%%;*}",
    `echo "submitted: shards job $shards_job (${j.shards} array tasks), report job $report_job (runs after every shard succeeded)"`,
    "",
  ].join("\n");
}

const q = (s: string): string => JSON.stringify(s);

/** The Kubernetes manifests: the indexed Job of shards and the report Job, as one YAML stream. */
export function k8sManifest(j: ClusterJob): string {
  const dataMount = j.data.replace(/\/+$/, "") || "/";
  const refs = credentialRefs(j);
  const secret = `${j.name}-endpoint`;
  // Kubernetes expands $(NAME) in a container's command from its env, which the Secret fills.
  const k8sWord = (w: string): string => w.replace(CREDENTIAL_REF, (_m, n: string) => `$(${URL_CREDENTIAL_ENV}${n})`);
  const credentialEnv =
    refs.length === 0
      ? []
      : [
          "          env:",
          ...refs.flatMap((n) => [`            - name: ${URL_CREDENTIAL_ENV}${n}`, `              valueFrom: {secretKeyRef: {name: ${q(secret)}, key: ${q(`url-credentials-${n}`)}}}`]),
        ];
  const pod = (command: readonly string[], extra: string[] = []) => [
    "  template:",
    "    spec:",
    "      restartPolicy: Never",
    "      containers:",
    "        - name: s3gym",
    `          image: ${q(j.image)}`,
    `          command: [${command.map(q).join(", ")}]`,
    "          resources:",
    `            requests: {cpu: ${q(String(j.cpus))}, memory: ${q(j.mem)}}`,
    `          volumeMounts: [{name: data, mountPath: ${q(dataMount)}}]`,
    ...extra,
    `      volumes: [{name: data, persistentVolumeClaim: {claimName: ${q(j.pvc)}}}]`,
  ];
  // The report waits for the matrix: status exits 0 only when every planned run is done.
  const wait = `until ${shellLine([...j.s3gym, "status", "--data", j.data])} >/dev/null; do sleep 60; done; exec ${shellLine([...j.s3gym, ...reportArgs(j)])}`;
  return [
    `# Written by s3gym cluster k8s: ${j.shards} shards of the matrix as one indexed Job, then the report.`,
    `# kubectl apply -f <this file>: the report Job waits until s3gym status says every planned run is done.`,
    `# The claim ${j.pvc} must be ReadWriteMany (every pod writes its own shard-<i>-of-${j.shards} under ${dataMount}).`,
    "# Endpoint keys: add env (valueFrom: secretKeyRef) to the shards' container.",
    ...(refs.length > 0
      ? [
          `# URL credentials are not in this file: the shards read them from the Secret ${secret}, made with`,
          `#   kubectl create secret generic ${secret} ${refs.map((n) => `--from-literal=url-credentials-${n}=USER:KEY`).join(" ")}`,
        ]
      : []),
    "apiVersion: batch/v1",
    "kind: Job",
    "metadata:",
    `  name: ${q(j.name)}`,
    "spec:",
    "  completionMode: Indexed",
    `  completions: ${j.shards}`,
    `  parallelism: ${j.shards}`,
    // A shard that fails is retried as a whole pod: the run resumes where it stopped.
    `  backoffLimit: ${j.shards * 2}`,
    ...pod([...j.s3gym, ...shardArgs(j, true)].map(k8sWord), credentialEnv),
    "---",
    "apiVersion: batch/v1",
    "kind: Job",
    "metadata:",
    `  name: ${q(`${j.name}-report`)}`,
    "spec:",
    "  backoffLimit: 2",
    ...pod(["/bin/sh", "-c", wait]),
    "",
  ].join("\n");
}
