/**
 * A `builtin:learner` checkpoint: the parameters `s3gym finetune --backend builtin` writes (per game a
 * tactic prior, pseudo-counts of each tactic among the kept SFT examples weighted by epochs, and for
 * chess the displacement vectors its kept answers used). The file is content-addressed (its name is
 * the hash of its bytes), so a checkpoint spec `builtin:learner@<file>` names its parameters exactly.
 */
import { createHash } from "node:crypto";
import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { canonicalJson } from "../../util/canonicalJson.js";
import { writeFileAtomic } from "../../util/atomicWrite.js";
import { formatIssues } from "../../util/zodIssues.js";

export const CHECKPOINT_FORMAT = "s3gym-learner-checkpoint/1";

const VectorsSchema = z.record(z.string(), z.object({ legal: z.array(z.string()), bad: z.array(z.string()) }));

export const LearnerCheckpointSchema = z.object({
  /** Always `s3gym-learner-checkpoint/1`. */
  format: z.literal(CHECKPOINT_FORMAT),
  /** The model spec that was fine-tuned (its prior is carried over); a content-addressed checkpoint as `builtin:learner@learner-<hash>.json`, without its folder. */
  base: z.string(),
  /** Epochs of the update: each kept example counts this many times. */
  epochs: z.number().int().positive(),
  /** The SFT file's sha256 and example count (what the update read). */
  sft: z.object({ sha256: z.string(), examples: z.number().int().nonnegative() }),
  /** Per game: tactic pseudo-counts (the prior) and chess's displacement vectors. */
  games: z.record(z.string(), z.object({ prior: z.record(z.string(), z.number().nonnegative()), vectors: VectorsSchema })),
});
export type LearnerCheckpoint = z.infer<typeof LearnerCheckpointSchema>;

const loaded = new Map<string, LearnerCheckpoint>();

/** Reads and validates a checkpoint file; throws an Error naming the file and the field. */
export function loadCheckpoint(path: string): LearnerCheckpoint {
  const hit = loaded.get(path);
  if (hit) return hit;
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, "utf8"));
  } catch (e) {
    throw new Error(`learner checkpoint '${path}': cannot read it as JSON (${(e as Error).message}); write one with s3gym finetune --backend builtin`);
  }
  const r = LearnerCheckpointSchema.safeParse(raw);
  if (!r.success) throw new Error(`learner checkpoint '${path}': ${formatIssues(r.error)}`);
  loaded.set(path, r.data);
  return r.data;
}

/** Writes `ck` under `dir` as `learner-<hash>.json` (atomic; the same content gives the same file) and returns its path. */
export function writeCheckpoint(dir: string, ck: LearnerCheckpoint): string {
  const text = `${canonicalJson(ck)}\n`;
  const hash = createHash("sha256").update(text).digest("hex").slice(0, 16);
  mkdirSync(dir, { recursive: true });
  const path = join(dir, `learner-${hash}.json`);
  writeFileAtomic(path, text);
  return path;
}
