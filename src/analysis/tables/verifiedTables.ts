/**
 * The verified pathway's tables (verified.md, "Logs and metrics"), pure:
 *
 *   verifier_reliability   per verified run: the verifier's episode outcomes against the hidden score
 *                          (success = score >= the game's threshold): agreement, over-claiming
 *                          (success said, score below) and under-claiming (failure said, score at or
 *                          above), each a share of the decided verdicts; uncertain and rejected
 *                          shares of all verdicts; and the share of the frozen memory's checkable
 *                          facts that the hidden state contradicts (verifiedFacts.ts)
 *   verified_vs_memory     Table 7's comparison, dNABA = NABA(verified) - NABA(memory) (curveTables)
 *   verified_vs_history    dNABA = NABA(verified) - NABA(history)
 *   tokens_by_pathway      per (model, game) with a verified run, every pathway's calls and tokens
 *                          for exploration steps, consolidation (summaries; curriculum + verifier)
 *                          and evaluation: "same budget" checked in tokens, not only in episodes
 */
import type { BootstrapConfig } from "../stats/bootstrap.js";
import { pathwayDeltaTable, type CurveAnalysis, type CurveTableOptions, type SummaryRow } from "./curveTables.js";
import { withInstrumentNote } from "./instruments.js";
import type { Table } from "./table.js";
import { factContradicted } from "../metrics/verifiedFacts.js";
import type { RunUsageInput, VerifiedInputs, VerifiedRunInput } from "../load/verifiedData.js";
import { successThreshold } from "../../games/successThreshold.js";

export interface ReliabilityRow {
  model: string;
  game: string;
  /** The success threshold the hidden scores were compared with. */
  threshold: number | null;
  /** Verdict records (one per verified exploration episode). */
  verdicts: number;
  /** Verdicts saying success or failure, with a known hidden score. */
  decided: number;
  agree: number | null;
  over_claim: number | null;
  under_claim: number | null;
  uncertain: number | null;
  rejected: number | null;
  /** Facts of the frozen memory. */
  facts: number;
  /** Of those, the ones the game can check. */
  facts_checkable: number;
  facts_contradicted: number;
  contradicted_share: number | null;
}

/** The threshold of a run (default: the game's success threshold, the one the verifier prompt states). */
export type ThresholdOf = (run: VerifiedRunInput) => number | null;
export const criterionThreshold: ThresholdOf = (run) => successThreshold(run.game);

const share = (k: number, n: number): number | null => (n > 0 ? k / n : null);

/** One run's reliability row (hand-checkable counts). */
export function reliabilityRow(run: VerifiedRunInput, threshold: number | null): ReliabilityRow {
  const score = new Map(run.explore.map((e) => [e.episode, e.score]));
  const solved = (ep: number): boolean | null => {
    const s = score.get(ep);
    return s === undefined || threshold === null ? null : s >= threshold;
  };
  let decided = 0;
  let agree = 0;
  let over = 0;
  let under = 0;
  for (const v of run.verdicts) {
    if (v.outcome !== "success" && v.outcome !== "failure") continue;
    const truth = solved(v.episode);
    if (truth === null) continue;
    decided++;
    const claim = v.outcome === "success";
    if (claim === truth) agree++;
    else if (claim) over++;
    else under++;
  }
  const checks = run.facts.map((f) => factContradicted(run.game, f, solved)).filter((c): c is boolean => c !== null);
  const contradicted = checks.filter(Boolean).length;
  const n = run.verdicts.length;
  return {
    model: run.model,
    game: run.game,
    threshold,
    verdicts: n,
    decided,
    agree: share(agree, decided),
    over_claim: share(over, decided),
    under_claim: share(under, decided),
    uncertain: share(run.verdicts.filter((v) => v.outcome === "uncertain").length, n),
    rejected: share(run.verdicts.filter((v) => !v.parsed).length, n),
    facts: run.facts.length,
    facts_checkable: checks.length,
    facts_contradicted: contradicted,
    contradicted_share: share(contradicted, checks.length),
  };
}

export function verifierReliabilityTable(inputs: VerifiedInputs, thresholdOf: ThresholdOf = criterionThreshold): Table<ReliabilityRow> {
  const rows = inputs.verified.map((r) => reliabilityRow(r, thresholdOf(r)));
  return withInstrumentNote(
    {
      name: "verifier_reliability",
      title: "Verifier reliability (verified pathway): the verifier's episode outcomes vs the hidden score",
      columns: [
        { key: "game", kind: "text" },
        { key: "model", kind: "text" },
        { key: "threshold", kind: "num" },
        { key: "verdicts", kind: "int" },
        { key: "decided", kind: "int" },
        { key: "agree", kind: "num" },
        { key: "over_claim", kind: "num" },
        { key: "under_claim", kind: "num" },
        { key: "uncertain", kind: "num" },
        { key: "rejected", kind: "num" },
        { key: "facts", kind: "int" },
        { key: "facts_checkable", kind: "int" },
        { key: "facts_contradicted", kind: "int" },
        { key: "contradicted_share", kind: "num" },
      ],
      rows,
      notes: [
        "Success = the exploration episode's hidden score >= threshold. agree / over_claim (success said, score below) / under_claim (failure said, score at or above) are shares of the decided verdicts; uncertain and rejected (reply not parsed) are shares of all verdicts.",
        "Facts: the frozen memory's. Checkable: chess movement facts (against the hidden piece rules) and outcome facts of any game (against their supporting episodes' hidden scores, e.g. trust's hidden opponents); contradicted_share = contradicted / checkable.",
      ],
    },
    [],
  );
}

export function verifiedVsTables(ca: CurveAnalysis, cfg: BootstrapConfig, opts: CurveTableOptions = {}): { verified_vs_memory: Table<SummaryRow>; verified_vs_history: Table<SummaryRow> } {
  return {
    verified_vs_memory: pathwayDeltaTable(ca, cfg, opts, { a: "verified", b: "memory", name: "verified_vs_memory", title: "Verified memory vs Summary Memory: dNABA = NABA(verified) - NABA(memory)" }),
    verified_vs_history: pathwayDeltaTable(ca, cfg, opts, {
      a: "verified",
      b: "history",
      name: "verified_vs_history",
      title: "Verified memory vs History ICL: dNABA = NABA(verified) - NABA(history)",
    }),
  };
}

export interface TokensRow {
  model: string;
  game: string;
  pathway: string;
  explore_calls: number;
  explore_tokens: number;
  consolidation_calls: number;
  consolidation_tokens: number;
  /** Exploration steps + consolidation: what building the experience cost. */
  budget_tokens: number;
  eval_calls: number;
  eval_tokens: number;
}

/** Per (model, game) that has a verified run, every pathway's usage, in tokens (in + out) and calls. */
export function tokensByPathwayTable(inputs: VerifiedInputs): Table<TokensRow> {
  const withVerified = new Set(inputs.verified.map((r) => `${r.model}\u0000${r.game}`));
  const tok = (u: RunUsageInput["parts"][keyof RunUsageInput["parts"]]) => u.tokens_in + u.tokens_out;
  const rows = inputs.usage
    .filter((u) => withVerified.has(`${u.model}\u0000${u.game}`))
    .map((u) => ({
      model: u.model,
      game: u.game,
      pathway: u.pathway,
      explore_calls: u.parts.explore_steps.calls,
      explore_tokens: tok(u.parts.explore_steps),
      consolidation_calls: u.parts.consolidation.calls,
      consolidation_tokens: tok(u.parts.consolidation),
      budget_tokens: tok(u.parts.explore_steps) + tok(u.parts.consolidation),
      eval_calls: u.parts.eval_steps.calls,
      eval_tokens: tok(u.parts.eval_steps),
    }))
    .sort((a, b) => (a.game !== b.game ? (a.game < b.game ? -1 : 1) : a.model !== b.model ? (a.model < b.model ? -1 : 1) : a.pathway < b.pathway ? -1 : a.pathway > b.pathway ? 1 : 0));
  return withInstrumentNote(
    {
      name: "tokens_by_pathway",
      title: "Tokens per pathway: exploration steps, consolidation (summaries; curriculum + verifier) and evaluation",
      columns: [
        { key: "game", kind: "text" },
        { key: "model", kind: "text" },
        { key: "pathway", kind: "text" },
        { key: "explore_calls", kind: "int" },
        { key: "explore_tokens", kind: "int" },
        { key: "consolidation_calls", kind: "int" },
        { key: "consolidation_tokens", kind: "int" },
        { key: "budget_tokens", kind: "int" },
        { key: "eval_calls", kind: "int" },
        { key: "eval_tokens", kind: "int" },
      ],
      rows,
      notes: ["From calls.jsonl (every call made, retried and discarded attempts included). Tokens = prompt + completion; built-in models report 0 tokens, so offline data compares calls only."],
    },
    [],
  );
}
