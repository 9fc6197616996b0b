/**
 * run_id: deterministic from (game, pathway, model, run seed), so that rerunning the same command
 * finds its own directory and resumes it (logs.md). It is a single path segment on every filesystem:
 * the model spec is slugged (anything outside [A-Za-z0-9._-] becomes '-') and, because slugging can
 * merge two specs (`openai:a/b` vs `openai:a_b`), a short hash of the exact spec is appended.
 */
import { fnv1a32 } from "../util/rng.js";

export interface RunKey {
  game: string;
  pathway: string;
  model: string;
  runSeed: number;
}

function slug(text: string, max: number): string {
  const s = text.replace(/[^A-Za-z0-9._-]+/g, "-").replace(/^[-.]+|-+$/g, "");
  return (s || "x").slice(0, max);
}

/**
 * `builtin:learner@<dir>/learner-<16 hex>.json[?...]`: a checkpoint written by `s3gym finetune
 * --backend builtin`, named by the hash of its content.
 */
const CONTENT_ADDRESSED_CHECKPOINT = /^(builtin:learner@)(?:.*[\\/])?(learner-[0-9a-f]{16}\.json)(\?.*)?$/;

/**
 * The model as the run's identity knows it. A content-addressed learner checkpoint is known by its
 * file name, not its folder: the run id (and so every call seed drawn from it) must not depend on
 * where the data directory lives, or two clones of the kit would train different Figure 7 curves
 * from the same checkpoints. Any other spec is itself.
 */
export function modelIdentity(model: string): string {
  const m = CONTENT_ADDRESSED_CHECKPOINT.exec(model);
  return m ? `${m[1]}${m[2]}${m[3] ?? ""}` : model;
}

export function runId(key: RunKey): string {
  const model = modelIdentity(key.model);
  const hash = fnv1a32(model).toString(16).padStart(8, "0");
  return `${slug(key.game, 32)}__${slug(key.pathway, 16)}__${slug(model, 80)}-${hash}__seed${key.runSeed}`;
}
