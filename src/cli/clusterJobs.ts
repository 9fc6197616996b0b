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
import { shardDirName } from "../logs/runDir.js";
import { shellLine, shellQuote } from "../util/shellQuote.js";

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
    `mkdir -p ${shellQuote(logs)}`,
    `shards_job=$(sbatch --parsable --output=${shellQuote(`${logs}/shards-%A_%a.out`)} <<'S3GYM_SHARDS'`,
    "#!/bin/bash",
    ...resources(j.name),
    `#SBATCH --array=0-${j.shards - 1}`,
    "# --shard auto: this task's shard from SLURM_ARRAY_TASK_ID and SLURM_ARRAY_TASK_COUNT.",
    `exec ${shellLine([...j.s3gym, ...shardArgs(j, false)])}`,
    "S3GYM_SHARDS",
    ")",
    'shards_job=${shards_job%%;*}',
    `report_job=$(sbatch --parsable --dependency=afterok:"$shards_job" --output=${shellQuote(`${logs}/report-%j.out`)} <<'S3GYM_REPORT'`,
    "#!/bin/bash",
    ...resources(`${j.name}-report`),
    `exec ${shellLine([...j.s3gym, ...reportArgs(j)])}`,
    "S3GYM_REPORT",
    ")",
    'report_job=${report_job%%;*}',
    `echo "submitted: shards job $shards_job (${j.shards} array tasks), report job $report_job (runs after every shard succeeded)"`,
    "",
  ].join("\n");
}

const q = (s: string): string => JSON.stringify(s);

/** The Kubernetes manifests: the indexed Job of shards and the report Job, as one YAML stream. */
export function k8sManifest(j: ClusterJob): string {
  const dataMount = j.data.replace(/\/+$/, "") || "/";
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
    ...pod([...j.s3gym, ...shardArgs(j, true)]),
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
