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

export function runId(key: RunKey): string {
  const hash = fnv1a32(key.model).toString(16).padStart(8, "0");
  return `${slug(key.game, 32)}__${slug(key.pathway, 16)}__${slug(key.model, 80)}-${hash}__seed${key.runSeed}`;
}
