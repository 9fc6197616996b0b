/**
 * What a run's logs say about its protocol, for a run directory whose manifest.json is gone (without
 * this, a rerun with `--max-steps 16` would mark a run of 12-step episodes "complete"). The logs carry enough to refuse the plain cases: every step's observation opens with
 * "Step k of N" (N: the config's step cap), and the episodes' indices bound the evaluation episodes
 * per checkpoint and the exploration episodes. A run with no manifest and no such lines has nothing
 * to compare and is resumed as before.
 *
 * Every episode line also carries `protocol_fingerprint` (protocolFingerprint.ts): a hash of every
 * compared protocol setting (reward visibility, context budget, tokenizer, history cut, parse rule,
 * ...), so a rerun whose flags change any of them is refused too. Lines of older kits carry none.
 *
 * Read lines that are damaged are skipped here (resume quarantines them afterwards); the files are
 * read once, line by line.
 */
import { existsSync } from "node:fs";
import { runFile } from "../../logs/runDir.js";
import { readJsonlLines } from "../../util/jsonl.js";
import { ConfigError } from "../../util/errors.js";
import type { ResolvedConfig } from "../loop/context.js";
import { playsProtocolLoop } from "../../pathways/registry.js";
import { COMPARED } from "../settings/protocolFingerprint.js";

const STEP_OF = /^Step \d+ of (\d+)\b/;

interface Seen {
  /** The step cap each config's observations show (`explore`, `eval`, a variant), first seen. */
  caps: Map<string, { cap: number; line: number }>;
  maxEval: number;
  maxExplore: number;
  /** The first episode line's `protocol_fingerprint` that is not `expect` (null: none differ or none carried). */
  fingerprint: { fingerprint: string; line: number } | null;
}

function read(dir: string, expect: string | null): Seen {
  const seen: Seen = { caps: new Map(), maxEval: -1, maxExplore: 0, fingerprint: null };
  const steps = runFile(dir, "steps");
  if (existsSync(steps)) {
    for (const { json, line } of readJsonlLines(steps, { onDamaged: () => undefined })) {
      const r = json as { config?: unknown; observation?: unknown };
      if (typeof r?.config !== "string" || typeof r.observation !== "string" || seen.caps.has(r.config)) continue;
      const m = STEP_OF.exec(r.observation);
      if (m) seen.caps.set(r.config, { cap: Number(m[1]), line });
    }
  }
  const episodes = runFile(dir, "episodes");
  if (existsSync(episodes)) {
    for (const { json, line } of readJsonlLines(episodes, { onDamaged: () => undefined })) {
      const r = json as { phase?: unknown; episode?: unknown; protocol_fingerprint?: unknown };
      if (seen.fingerprint === null && typeof r?.protocol_fingerprint === "string" && r.protocol_fingerprint !== expect) seen.fingerprint = { fingerprint: r.protocol_fingerprint, line };
      if (typeof r?.episode !== "number") continue;
      if (r.phase === "eval") seen.maxEval = Math.max(seen.maxEval, r.episode);
      if (r.phase === "explore") seen.maxExplore = Math.max(seen.maxExplore, r.episode);
    }
  }
  return seen;
}

/**
 * Throws a ConfigError when the logs of `dir` (a run without a manifest) were written under another
 * step cap, more evaluation episodes or more exploration episodes than this invocation plans.
 */
export function checkLogsAgainstPlan(
  dir: string,
  runId: string,
  plan: { configs: Record<"explore" | "eval", ResolvedConfig>; evalEpisodes: number; exploreEpisodes: number; fingerprint?: string },
): void {
  const seen = read(dir, plan.fingerprint ?? null);
  const differ: string[] = [];
  if (plan.fingerprint !== undefined && seen.fingerprint !== null) {
    differ.push(`protocol_fingerprint: ${seen.fingerprint.fingerprint} (episodes.jsonl:${seen.fingerprint.line}) -> ${plan.fingerprint} (one of ${COMPARED.join(", ")} differs)`);
  }
  for (const name of ["explore", "eval"] as const) {
    const logged = seen.caps.get(name);
    const planned = plan.configs[name].config.maxSteps;
    if (logged && logged.cap !== planned) differ.push(`${name} step cap: ${logged.cap} (steps.jsonl:${logged.line}: "Step k of ${logged.cap}") -> ${planned}`);
  }
  if (seen.maxEval + 1 > plan.evalEpisodes) differ.push(`eval_episodes: at least ${seen.maxEval + 1} (episodes.jsonl) -> ${plan.evalEpisodes}`);
  if (seen.maxExplore > plan.exploreEpisodes) differ.push(`explore_episodes: at least ${seen.maxExplore} (episodes.jsonl) -> ${plan.exploreEpisodes}`);
  if (differ.length === 0) return;
  throw new ConfigError(
    `run ${runId} has no manifest.json, and its logs were written under a different protocol (${differ.join("; ")}); rerun with the original flags to resume, or use another --data directory`,
  );
}

/**
 * The protocol fingerprint a run's episode lines carry, for the data directory's check of a run
 * whose manifest is gone: the first one found, when the run is a protocol-loop run (its lines'
 * `pathway`) with evaluation episodes (an exploration-only run's schedule is its own). Null when the
 * logs carry none (older kits), or the run is not one the check compares.
 */
export function loggedFingerprint(dir: string): { fingerprint: string; line: number } | null {
  const episodes = runFile(dir, "episodes");
  if (!existsSync(episodes)) return null;
  let found: { fingerprint: string; line: number } | null = null;
  let evaluated = false;
  for (const { json, line } of readJsonlLines(episodes, { onDamaged: () => undefined })) {
    const r = json as { phase?: unknown; pathway?: unknown; protocol_fingerprint?: unknown };
    if (typeof r?.pathway === "string" && !playsProtocolLoop(r.pathway)) return null;
    if (r?.phase === "eval") evaluated = true;
    if (found === null && typeof r?.protocol_fingerprint === "string") found = { fingerprint: r.protocol_fingerprint, line };
    if (found !== null && evaluated) return found;
  }
  return null;
}
