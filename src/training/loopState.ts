/**
 * The train-loop's state file (`DIR/train-loop/<label>/state.json`): what each round has produced, so a
 * rerun skips finished work. It is read back from disk, so it is validated like every other file the
 * kit reads: a hand-edited or truncated state names the file and the field instead of resuming from
 * half a record.
 */
import { existsSync, readFileSync } from "node:fs";
import { z } from "zod";
import { formatIssues } from "../util/zodIssues.js";

const count = z.number().int().nonnegative();

const SftCountsSchema = z.object({
  steps: count,
  kept: count,
  corrected: count,
  dropped: count,
  unparsable: count,
  unscored: count,
  low_scored: count,
  correction_failed: z.record(z.string(), count),
  duplicate: count,
  normalized: count,
});

export const RoundStateSchema = z.object({
  round: z.number().int().positive(),
  /** M_{r-1}, the model that explored. */
  explore_model: z.string().min(1),
  /** The run seed of the round's exploration (run seed + r - 1). */
  explore_run_seed: z.number().int(),
  /** Whether every game's exploration run of the round finished. */
  explored: z.boolean(),
  /** The round's SFT set, once built. */
  sft: z.object({ file: z.string().min(1), examples: count, total: SftCountsSchema }).nullable(),
  /** The trainer's result, once it printed a usable model spec. */
  trainer: z.object({ command: z.string(), model: z.string().min(1), finished_at: z.string(), wall_s: z.number().nonnegative() }).nullable(),
});

export const LoopStateSchema = z.object({
  version: z.literal(1),
  /** The loop's identity (a rerun must match it): label, base model M0, games, protocol numbers, BuildSFT settings. */
  label: z.string(),
  base_model: z.string().min(1),
  games: z.array(z.string()),
  protocol: z.record(z.string(), z.unknown()),
  sft: z.record(z.string(), z.unknown()),
  /** Epoch -> model: epoch 0 = M0, epoch r = what round r's trainer printed. */
  checkpoints: z.array(z.object({ checkpoint: count, model: z.string().min(1) })),
  /** The highest epoch whose evaluation completed on every game (-1: none). */
  evaluated: z.number().int().min(-1),
  rounds: z.array(RoundStateSchema),
  /** The trainer command of the latest invocation (it may change between reruns). */
  trainer_cmd: z.string(),
  /** When the state was last written (ISO 8601). */
  updated_at: z.string(),
});

export type RoundState = z.infer<typeof RoundStateSchema>;
export type LoopState = z.infer<typeof LoopStateSchema>;

/** A state file that is not valid JSON or not a loop state; the message names the file and the fields. */
export class LoopStateFileError extends Error {
  override name = "LoopStateFileError";
}

/** Reads and validates a state file; null when there is none. */
export function readLoopStateFile(path: string): LoopState | null {
  if (!existsSync(path)) return null;
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, "utf8"));
  } catch (e) {
    throw new LoopStateFileError(`${path} is not valid JSON (${(e as Error).message}); restore it, or move the loop's directory away to start the loop again`);
  }
  const parsed = LoopStateSchema.safeParse(raw);
  if (!parsed.success) {
    throw new LoopStateFileError(`${path} is not a train-loop state: ${formatIssues(parsed.error)}; restore it, or move the loop's directory away to start the loop again`);
  }
  return parsed.data;
}
