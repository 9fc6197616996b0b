/**
 * `s3gym probe --job FILE`: one shard of a data directory's probes (`s3gym reproduce`'s probes phase
 * runs one child process per core, each with its file). The file is data: its zod schema names a bad
 * field; shard i of n plays the planned probe runs whose place in the run-id order is i modulo n, so
 * the shards together play each probe run exactly once, and a rerun resumes each where it stopped.
 */
import { readFileSync } from "node:fs";
import { z } from "zod";
import type { DataProbeSpec } from "../../runner/probe/memoryProbe.js";
import { escapeControl } from "../../util/outsideText.js";
import { formatIssues } from "../../util/zodIssues.js";
import { UsageError } from "../shared/args.js";

const DataProbeCellSchema = z.strictObject({
  model: z.string().min(1),
  empty: z.boolean(),
  shuffledSeeds: z.array(z.number().int().nonnegative()),
  transplantFrom: z.string().min(1).optional(),
  transplantSeeds: z.array(z.number().int().nonnegative()).optional(),
  runSeeds: z.array(z.number().int().nonnegative()).nullable(),
});

export const ProbeJobSchema = z
  .strictObject({
    name: z.string(),
    command: z.literal("probe"),
    settings: z.strictObject({
      /** The data directory whose runs are probed (an absolute path). */
      data: z.string().min(1),
      spec: z.strictObject({ pathways: z.array(z.string().min(1)), cells: z.array(DataProbeCellSchema) }),
      shard: z.strictObject({ index: z.number().int().nonnegative(), count: z.number().int().positive() }),
    }),
  })
  .refine((j) => j.settings.shard.index < j.settings.shard.count, { message: "settings.shard.index must be below settings.shard.count", path: ["settings", "shard", "index"] });

export type ProbeJob = z.infer<typeof ProbeJobSchema>;

/** The job of shard `index` of `count` over `data`'s probes under `spec`. */
export function probeJob(data: string, spec: DataProbeSpec, index: number, count: number): ProbeJob {
  return { name: `probes ${index + 1}/${count}`, command: "probe", settings: { data, spec: structuredClone(spec) as ProbeJob["settings"]["spec"], shard: { index, count } } };
}

export function probeJobText(job: ProbeJob): string {
  return `${JSON.stringify(job, null, 2)}\n`;
}

/** The probe job at `path` (a UsageError names what is wrong with it). */
export function readProbeJob(path: string): ProbeJob {
  const shown = escapeControl(path);
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, "utf8"));
  } catch (e) {
    throw new UsageError(`--job: cannot read '${shown}' as JSON: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
  const parsed = ProbeJobSchema.safeParse(raw);
  if (!parsed.success) throw new UsageError(`--job ${shown}: ${formatIssues(parsed.error, { max: 3, style: "brackets" })}`);
  return parsed.data;
}
