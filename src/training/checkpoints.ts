/**
 * The checkpoint list of a training run (protocol.md, "Training runs"): model specs in epoch order,
 * epoch 0 = the base model. From `--checkpoints m0,m1,...` or `--checkpoints-file F` (one spec per
 * line; blank lines and `#` comments skipped).
 */
import { existsSync } from "node:fs";
import { readJsonFile } from "../logs/reader.js";
import { RunManifest } from "../logs/schema.js";
import { manifestPath, runDir } from "../logs/runDir.js";
import { ConfigError } from "../util/errors.js";
import { asGiven, type OptionTable } from "../util/options.js";

/** `s3gym run --pathways training`: the checkpoint list (inline or a file, one of them) and the run's label. */
export const CHECKPOINT_OPTIONS: OptionTable<{ checkpoints: string | undefined; checkpointsFile: string | undefined; label: string | undefined }> = {
  checkpoints: { name: "checkpoints", kind: { type: "text", shown: "M0,M1,...", parse: asGiven }, default: undefined, about: "model checkpoint specs in epoch order (epoch 0 = the base model)" },
  checkpointsFile: { name: "checkpoints-file", kind: { type: "text", shown: "F", parse: asGiven }, default: undefined, about: "a file listing the checkpoint specs" },
  label: { name: "label", kind: { type: "text", shown: "NAME", parse: asGiven }, default: undefined, about: "the training run's name (default: the base model's spec)" },
};

export interface CheckpointSpec {
  checkpoint: number;
  model: string;
}

/** Specs in order -> epochs 0..K-1. */
export function checkpointsFromSpecs(specs: readonly string[]): CheckpointSpec[] {
  return specs.map((model, checkpoint) => ({ checkpoint, model }));
}

/** Parses `m0,m1,...` (whitespace around items ignored; an empty item is an error). */
export function parseCheckpointList(text: string): string[] {
  const items = text.split(",").map((s) => s.trim());
  if (items.length === 0 || items.every((s) => s === "")) throw new ConfigError("the checkpoint list is empty");
  const empty = items.findIndex((s) => s === "");
  if (empty >= 0) throw new ConfigError(`checkpoint ${empty} is empty (two commas in a row, or a trailing comma?)`);
  return items;
}

/** Parses a checkpoints file: one model spec per line, `#` comments and blank lines skipped. */
export function parseCheckpointsFile(text: string): string[] {
  const specs = text
    .split(/\r?\n/)
    .map((l) => l.replace(/#.*$/, "").trim())
    .filter((l) => l.length > 0);
  if (specs.length === 0) throw new ConfigError("the file lists no checkpoint (one model spec per line)");
  return specs;
}

/**
 * Refuses to continue a training run whose recorded checkpoint models differ from the new list at
 * the same epoch: resume would reuse the old model's evaluation episodes under the new spec. Reads the
 * manifest's `config.invocation.checkpoint_models` (what the last invocation evaluated).
 */
export function checkCheckpointModels(dataDir: string, runId: string, checkpoints: readonly CheckpointSpec[]): void {
  const path = manifestPath(runDir(dataDir, runId));
  if (!existsSync(path)) return;
  let recorded: Array<{ checkpoint: number; model: string }> = [];
  try {
    recorded = readJsonFile(path, RunManifest).config.invocation?.checkpoint_models ?? [];
  } catch {
    return;
  }
  const clashes = checkpoints.flatMap((c) => {
    const before = recorded.find((r) => r.checkpoint === c.checkpoint);
    return before && before.model !== c.model ? [`epoch ${c.checkpoint}: ${before.model} -> ${c.model}`] : [];
  });
  if (clashes.length > 0) {
    throw new ConfigError(`training run ${runId} already evaluated other models at the same epochs (${clashes.join("; ")}); give this checkpoint list its own --label (or --data directory)`);
  }
}
