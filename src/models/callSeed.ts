/**
 * The `seed` the runner sends with every request: a hash of the call's identity (run, purpose,
 * phase, checkpoint, episode, step, sample), so two episodes whose opening observations are the same
 * (every trust game starts alike) still get different seeds, while a rerun of the same call gets the
 * same one. Built-in models draw from it in process and over HTTP alike (games.md, built-in policies).
 */
import { canonicalJson } from "../util/canonicalJson.js";
import { fnv1a32 } from "../util/rng.js";
import type { CallIdentity } from "./types.js";

/** A non-negative 31-bit integer (some endpoints reject seeds beyond a signed 32-bit int). */
export function callSeed(identity: CallIdentity): number {
  return fnv1a32(`s3gym/call-seed|${canonicalJson(identity)}`) >>> 1;
}
