/**
 * What the verified pathway's tables read beyond the Dataset (verified.md, "Logs and metrics"): per
 * verified run its ok exploration episodes (config, hidden score), its verdicts, the facts of its last
 * memory version and its checkpoint-0 scores; and, for every protocol-loop run, its calls folded by
 * purpose (tokens per pathway). Streams each run directory once; the tables themselves are pure
 * (verifiedTables.ts).
 */
import type { Outcome } from "../../agent/verifierPrompt.js";
import { discoverRuns, readRunDir } from "../../logs/reader.js";
import type { VerifiedFactRecord } from "../../logs/schema.js";
import { TRAINING_PATHWAY } from "../../pathways/registry.js";

export interface VerifiedRunInput {
  run_id: string;
  model: string;
  game: string;
  /** Ok exploration episodes, by episode: the config played and the hidden (verifier) score. */
  explore: { episode: number; config: string; score: number }[];
  /** One per judged episode (the last line of an episode wins). */
  verdicts: { episode: number; outcome: Outcome | null; parsed: boolean; facts: number }[];
  /** The facts of the highest memory version (the frozen memory once the run is complete). */
  facts: VerifiedFactRecord[];
  /** The highest memory version (after_episode). */
  lastVersion: number;
  /** Checkpoint 0's evaluation scores (a median success threshold is taken from them). */
  checkpoint0: number[];
}

/** What a run's calls spent, by what they served. */
export interface UsageTotals {
  calls: number;
  tokens_in: number;
  tokens_out: number;
}

export const USAGE_PARTS = ["explore_steps", "consolidation", "eval_steps"] as const;
export type UsagePart = (typeof USAGE_PARTS)[number];

export interface RunUsageInput {
  run_id: string;
  model: string;
  game: string;
  pathway: string;
  /** Exploration step calls; consolidation = summary (memory) or curriculum + verifier (verified); evaluation step calls. */
  parts: Record<UsagePart, UsageTotals>;
}

export interface VerifiedInputs {
  verified: VerifiedRunInput[];
  usage: RunUsageInput[];
}

const zero = (): UsageTotals => ({ calls: 0, tokens_in: 0, tokens_out: 0 });

/** The part of a run's budget a call belongs to. */
export function usagePart(c: { purpose: string; phase: string | null }): UsagePart | null {
  if (c.purpose === "step") return c.phase === "explore" ? "explore_steps" : c.phase === "eval" ? "eval_steps" : null;
  if (c.purpose === "summary" || c.purpose === "curriculum" || c.purpose === "verifier") return "consolidation";
  return null;
}

/** Loads the verified tables' inputs from data directories (runs of other tools without these files give empty inputs). */
export async function loadVerifiedInputs(dataDirs: string | readonly string[]): Promise<VerifiedInputs> {
  const dirs = typeof dataDirs === "string" ? [dataDirs] : [...dataDirs];
  const verified = new Map<string, VerifiedRunInput>();
  const usage = new Map<string, RunUsageInput>();
  for (const loc of discoverRuns(dirs)) {
    let identity: { run_id: string; model: string; game: string; pathway: string } | null = null;
    const explore = new Map<number, { episode: number; config: string; score: number }>();
    const verdicts = new Map<number, VerifiedRunInput["verdicts"][number]>();
    let last: { after_episode: number; facts: VerifiedFactRecord[] } | null = null;
    let checkpoint0: number[] = [];
    const parts = { explore_steps: zero(), consolidation: zero(), eval_steps: zero() };
    await readRunDir(
      loc.runDir,
      {
        checkpoint: (r) => {
          identity ??= r;
          if (r.checkpoint === 0 && r.status === "ok") checkpoint0 = r.scores;
        },
        episode: (r) => {
          identity ??= r;
          if (r.phase === "explore" && r.status === "ok") explore.set(r.episode, { episode: r.episode, config: r.config, score: r.score });
        },
        memory: (r) => {
          if (r.facts !== undefined && (last === null || r.after_episode >= last.after_episode)) last = { after_episode: r.after_episode, facts: r.facts };
        },
        verdict: (r) => {
          verdicts.set(r.episode, { episode: r.episode, outcome: r.outcome, parsed: r.parsed, facts: r.facts.length });
        },
        call: (c) => {
          const part = usagePart(c);
          if (part === null) return;
          const u = parts[part];
          u.calls++;
          u.tokens_in += c.tokens_in;
          u.tokens_out += c.tokens_out;
        },
      },
      // Fields are read by name: the records as parsed, without zod's copy (reader.ts, asWritten).
      { asWritten: true },
    );
    const id = identity as { run_id: string; model: string; game: string; pathway: string } | null;
    if (id === null || id.pathway === TRAINING_PATHWAY) continue;
    const prev = usage.get(id.run_id);
    if (prev)
      for (const k of USAGE_PARTS)
        prev.parts[k] = { calls: prev.parts[k].calls + parts[k].calls, tokens_in: prev.parts[k].tokens_in + parts[k].tokens_in, tokens_out: prev.parts[k].tokens_out + parts[k].tokens_out };
    else usage.set(id.run_id, { run_id: id.run_id, model: id.model, game: id.game, pathway: id.pathway, parts });
    if (id.pathway !== "verified") continue;
    const lastV = last as { after_episode: number; facts: VerifiedFactRecord[] } | null;
    verified.set(id.run_id, {
      run_id: id.run_id,
      model: id.model,
      game: id.game,
      explore: [...explore.values()].sort((a, b) => a.episode - b.episode),
      verdicts: [...verdicts.values()].sort((a, b) => a.episode - b.episode),
      facts: lastV?.facts ?? [],
      lastVersion: lastV?.after_episode ?? 0,
      checkpoint0,
    });
  }
  const byKey = <T extends { game: string; model: string; run_id: string }>(a: T, b: T) =>
    a.game < b.game ? -1 : a.game > b.game ? 1 : a.model < b.model ? -1 : a.model > b.model ? 1 : a.run_id < b.run_id ? -1 : a.run_id > b.run_id ? 1 : 0;
  return { verified: [...verified.values()].sort(byKey), usage: [...usage.values()].sort(byKey) };
}
