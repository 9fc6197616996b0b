/**
 * The `seed` the runner sends with every request: a hash of the call's identity (run, purpose,
 * phase, checkpoint, episode, step, sample), so two episodes whose opening observations are the same
 * (every trust game starts alike) still get different seeds, while a rerun of the same call gets the
 * same one. Built-in models draw from it in process and over HTTP alike (games.md, built-in policies).
 *
 * An EVALUATION step's seed is the exception (evalCallSeed): common random numbers. It depends on
 * what the episode is (model identity, game, run seed, evaluation seed, step, sample, view) and not on
 * the checkpoint or the pathway, so a policy whose decision ignores the experience text plays a given
 * evaluation seed identically at every checkpoint and in every pathway: a non-learner's curves are
 * flat and its gains exactly 0, and the paired contrasts of a real model (pathway P vs none,
 * checkpoint x vs 0) differ only by what the experience changed, not by fresh sampling noise.
 */
import type { ExtraView } from "../logs/schema.js";
import { canonicalJson } from "../util/canonicalJson.js";
import { fnv1a32 } from "../util/rng.js";
import type { CallIdentity } from "./types.js";

/** A non-negative 31-bit integer (some endpoints reject seeds beyond a signed 32-bit int). */
export function callSeed(identity: CallIdentity): number {
  return fnv1a32(`s3gym/call-seed|${canonicalJson(identity)}`) >>> 1;
}

/** What an evaluation step's seed depends on (and nothing else: no checkpoint, no pathway). */
export interface EvalCallKey {
  /** The model's identity (runner/settings/runId.ts modelIdentity: a content-addressed checkpoint without its folder). */
  model: string;
  game: string;
  runSeed: number;
  /** The evaluation episode's seed (the board). */
  seed: number;
  step: number;
  sample: number;
  /** `id` or `replay` for those views' episodes; absent for `eval`. */
  view?: ExtraView;
}

/** The seed of an evaluation step call: common random numbers across checkpoints and pathways. */
export function evalCallSeed(key: EvalCallKey): number {
  return fnv1a32(`s3gym/eval-call-seed|${canonicalJson(key)}`) >>> 1;
}

/**
 * evalCallSeed per step of one evaluation episode (its key but the step). The seeds are the same at
 * every checkpoint and in every pathway of a model, game and run seed, so each is hashed once and
 * looked up after (a few thousand episodes' rows are kept; the oldest row set is dropped whole).
 */
const evalSeedRows = new Map<string, number[]>();
const EVAL_SEED_ROWS = 4096;
export function evalCallSeeds(key: Omit<EvalCallKey, "step">): (step: number) => number {
  const id = canonicalJson(key);
  let row = evalSeedRows.get(id);
  if (row === undefined) {
    if (evalSeedRows.size >= EVAL_SEED_ROWS) evalSeedRows.clear();
    evalSeedRows.set(id, (row = []));
  }
  const seeds = row;
  return (step) => {
    if (!Number.isInteger(step) || step < 0 || step > 1_000_000) return evalCallSeed({ ...key, step });
    return (seeds[step] ??= evalCallSeed({ ...key, step }));
  };
}
