/**
 * What a run's logs say about its protocol, for a run directory whose manifest.json is gone (issue
 * 32: a deleted manifest let a rerun with `--max-steps 16` mark a run of 12-step episodes
 * "complete"). The logs carry enough to refuse the plain cases: every step's observation opens with
 * "Step k of N" (N: the config's step cap), and the episodes' indices bound the evaluation episodes
 * per checkpoint and the exploration episodes. A run with no manifest and no such lines has nothing
 * to compare and is resumed as before.
 *
 * Read lines that are damaged are skipped here (resume quarantines them afterwards); the files are
 * read once, line by line.
 */
import { existsSync } from "node:fs";
import { runFile } from "../logs/runDir.js";
import { readJsonlLines } from "../util/jsonl.js";
import { ConfigError } from "../util/errors.js";
import type { ResolvedConfig } from "./context.js";

const STEP_OF = /^Step \d+ of (\d+)\b/;

interface Seen {
  /** The step cap each config's observations show (`explore`, `eval`, a variant), first seen. */
  caps: Map<string, { cap: number; line: number }>;
  maxEval: number;
  maxExplore: number;
}

function read(dir: string): Seen {
  const seen: Seen = { caps: new Map(), maxEval: -1, maxExplore: 0 };
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
    for (const { json } of readJsonlLines(episodes, { onDamaged: () => undefined })) {
      const r = json as { phase?: unknown; episode?: unknown };
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
  plan: { configs: Record<"explore" | "eval", ResolvedConfig>; evalEpisodes: number; exploreEpisodes: number },
): void {
  const seen = read(dir);
  const differ: string[] = [];
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
