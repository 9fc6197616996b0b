/**
 * run_id: deterministic from (game, pathway, model, run seed), so that rerunning the same command
 * finds its own directory and resumes it (logs.md). It is a single path segment on every filesystem:
 * the model spec is slugged (anything outside [A-Za-z0-9._-] becomes '-') and, because slugging can
 * merge two specs (`openai:a/b` vs `openai:a_b`), a short hash of the exact spec is appended.
 */
import { fnv1a32 } from "../../util/rng.js";

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

/**
 * The run id of a run whose experience is judged by another judge than `self` (docs/judging.md): the
 * base id (the same run under `self`) with `__judge-<judge>` for a run that explored under that judge
 * (`run --judge X`), or `__rejudge-<judge>` for a rejudged run (`s3gym rejudge`: the base run's
 * exploration, judged by X). A model judge's name is slugged with a hash of the exact spec, as a
 * model's is. `self` (or none given) on a run that explored: the base id, unchanged.
 */
export function judgedRunId(base: string, judge: string | undefined, form: "explored" | "rejudged"): string {
  if ((judge === undefined || judge === "self") && form === "explored") return base;
  const name = judge ?? "self";
  const simple = /^[a-z]+$/.test(name);
  const tag = simple ? name : `${slug(name, 48)}-${fnv1a32(name).toString(16).padStart(8, "0")}`;
  return `${base}__${form === "explored" ? "judge" : "rejudge"}-${tag}`;
}
