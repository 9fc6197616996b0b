/**
 * The verified pathway's tables on hand-made inputs whose every number is worked out below.
 *
 * Reliability (threshold 1): explore scores ep1 1, ep2 0.5, ep3 1, ep4 0, ep5 0, ep6 1; ep7 has no record.
 *   verdicts: ep1 success (agree), ep2 success (over), ep3 failure (under), ep4 failure (agree),
 *   ep5 uncertain, ep6 rejected, ep7 success (no hidden score: not decided)
 *   -> verdicts 7, decided 4, agree 2/4, over 1/4, under 1/4, uncertain 1/7, rejected 1/7
 * Facts (chess rules: A leaps (1,3) in every sign/order; B leaps (2,0) and (2,2) likewise; R slides):
 *   A 1,3 made (ok) | A 1,2 made (contradicted) | B 2,0 illegal (contradicted: a legal vector)
 *   B 1,1 illegal (ok) | R 0,3 made (ok) | R 1,1 made (contradicted)
 *   "a successful episode" over eps [1, 2] (solved: yes, no: not a majority against -> ok)
 *   "a successful episode" over [2] (contradicted) | "a failed episode" over [7] (no score: uncheckable)
 *   a prose fact (uncheckable)
 *   -> facts 10, checkable 8, contradicted 4, share 1/2
 * dNABA (game g, model m, checkpoints 0, 3, 6):
 *   history y = 1, 3, 2: AUC+ = 3*(0+2)/2 + 3*(2+1)/2 = 7.5, NABA 7.5
 *   memory  y = 1, 1, 2: AUC+ = 3*(0+0)/2 + 3*(0+1)/2 = 1.5, NABA 1.5
 *   verified y = 1, 4, 4: AUC+ = 3*(0+3)/2 + 3*(3+3)/2 = 13.5, NABA 13.5
 *   -> verified - memory = 12 (a win), verified - history = 6 (a win)
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadDataset } from "../../src/analysis/load/dataset.js";
import { buildReport } from "../../src/report/buildReport.js";
import { loadVerifiedInputs, type VerifiedRunInput } from "../../src/analysis/load/verifiedData.js";
import { factContradicted } from "../../src/analysis/metrics/verifiedFacts.js";
import { reliabilityRow, tokensByPathwayTable } from "../../src/analysis/tables/verifiedTables.js";
import { callRecord, curveRecords, tempDir, writeRun } from "./helpers.js";

const fact = (id: string, condition: string, action: string, effect: string, episodes: number[] = [1]) => ({
  id,
  condition,
  action,
  effect,
  support: episodes.length,
  episodes,
  steps: episodes.map((episode) => ({ episode, steps: [1] })),
  contradictions: 0,
  status: "active" as const,
});

const run: VerifiedRunInput = {
  run_id: "chess.verified.m",
  model: "m",
  game: "chess",
  explore: [1, 0.5, 1, 0, 0, 1].map((score, i) => ({ episode: i + 1, config: "explore", score })),
  verdicts: [
    { episode: 1, outcome: "success", parsed: true, facts: 0 },
    { episode: 2, outcome: "success", parsed: true, facts: 0 },
    { episode: 3, outcome: "failure", parsed: true, facts: 0 },
    { episode: 4, outcome: "failure", parsed: true, facts: 0 },
    { episode: 5, outcome: "uncertain", parsed: true, facts: 0 },
    { episode: 6, outcome: null, parsed: false, facts: 0 },
    { episode: 7, outcome: "success", parsed: true, facts: 0 },
  ],
  facts: [
    fact("f1", "piece A", "move by 1,3", "move made"),
    fact("f2", "piece A", "move by 1,2", "move made"),
    fact("f3", "piece B", "move by 2,0", "illegal move"),
    fact("f4", "piece B", "move by 1,1", "illegal move"),
    fact("f5", "piece R", "move by 0,3", "move made"),
    fact("f6", "piece R", "move by 1,1", "move made"),
    fact("f7", "config explore", "tactic probe", "a successful episode", [1, 2]),
    fact("f8", "config explore", "tactic probe", "a successful episode", [2]),
    fact("f9", "config explore", "tactic careless", "a failed episode", [7]),
    fact("f10", "the corner", "waiting", "nothing happened"),
  ],
  lastVersion: 7,
  checkpoint0: [],
};

describe("verifier reliability", () => {
  it("agreement, over- and under-claiming over decided verdicts; uncertain and rejected over all", () => {
    expect(reliabilityRow(run, 1)).toEqual({
      model: "m",
      game: "chess",
      threshold: 1,
      verdicts: 7,
      decided: 4,
      agree: 0.5,
      over_claim: 0.25,
      under_claim: 0.25,
      uncertain: 1 / 7,
      rejected: 1 / 7,
      facts: 10,
      facts_checkable: 8,
      facts_contradicted: 4,
      contradicted_share: 0.5,
    });
  });

  it("each fact check by hand", () => {
    const solved = (ep: number) => (({ 1: true, 2: false }) as Record<number, boolean>)[ep] ?? null;
    expect(run.facts.map((f) => factContradicted("chess", f, solved))).toEqual([false, true, true, false, false, true, false, true, null, null]);
    // Outside chess, a movement fact is prose.
    expect(factContradicted("trust", run.facts[1]!, solved)).toBeNull();
    // No threshold: nothing is decided, no fact checkable by outcome.
    expect(reliabilityRow(run, null)).toMatchObject({ decided: 0, agree: null, facts_checkable: 6 });
  });
});

describe("tokens by pathway", () => {
  it("sums by part, keeps only (model, game) pairs with a verified run, in game / model / pathway order", () => {
    const parts = (e: number, c: number, v: number) => ({
      explore_steps: { calls: e, tokens_in: 10 * e, tokens_out: e },
      consolidation: { calls: c, tokens_in: 100 * c, tokens_out: 5 * c },
      eval_steps: { calls: v, tokens_in: 10 * v, tokens_out: v },
    });
    const t = tokensByPathwayTable({
      verified: [run],
      usage: [
        { run_id: "a", model: "m", game: "chess", pathway: "verified", parts: parts(4, 3, 2) },
        { run_id: "b", model: "m", game: "chess", pathway: "memory", parts: parts(4, 2, 2) },
        { run_id: "c", model: "other", game: "chess", pathway: "memory", parts: parts(1, 1, 1) },
      ],
    });
    expect(t.rows).toEqual([
      { model: "m", game: "chess", pathway: "memory", explore_calls: 4, explore_tokens: 44, consolidation_calls: 2, consolidation_tokens: 210, budget_tokens: 254, eval_calls: 2, eval_tokens: 22 },
      { model: "m", game: "chess", pathway: "verified", explore_calls: 4, explore_tokens: 44, consolidation_calls: 3, consolidation_tokens: 315, budget_tokens: 359, eval_calls: 2, eval_tokens: 22 },
    ]);
  });
});

describe("the report with verified runs", () => {
  const jsonl = (rs: object[]) => rs.map((r) => JSON.stringify(r)).join("\n") + "\n";
  const ids = {
    H: { run_id: "g.history.m", model: "m", game: "g", pathway: "history" },
    M: { run_id: "g.memory.m", model: "m", game: "g", pathway: "memory" },
    V: { run_id: "g.verified.m", model: "m", game: "g", pathway: "verified" },
  };

  it("adds dNABA(verified - memory) and (verified - history), reliability and tokens; without verified runs it adds none", async () => {
    const dir = tempDir();
    const curves: Record<string, [number, number[]][]> = {
      H: [
        [0, [1, 1]],
        [3, [3, 3]],
        [6, [2, 2]],
      ],
      M: [
        [0, [1, 1]],
        [3, [1, 1]],
        [6, [2, 2]],
      ],
      V: [
        [0, [1, 1]],
        [3, [4, 4]],
        [6, [4, 4]],
      ],
    };
    for (const k of ["H", "M"] as const) writeRun(dir, ids[k], curveRecords(ids[k], curves[k]!));
    const without = buildReport(await loadDataset(dir), { B: 0 });
    expect(Object.keys(without.tables).filter((k) => k.includes("verif") || k.includes("tokens"))).toEqual([]);

    const v = curveRecords(ids.V, curves.V!);
    const vdir = writeRun(dir, ids.V, {
      checkpoints: v.checkpoints,
      episodes: [...v.episodes, { ...ids.V, phase: "explore", config: "explore", checkpoint: null, episode: 1, seed: 1, score: 1, steps: 0, status: "ok", error: null, started_at: "", ended_at: "" }],
    });
    writeFileSync(
      join(vdir, "verdicts.jsonl"),
      jsonl([
        {
          ...ids.V,
          episode: 1,
          seed: 1,
          config: "explore",
          outcome: "failure",
          facts: [],
          parsed: true,
          error: null,
          response: "Outcome: failure",
          verifier_model: "m",
          trajectory_steps_kept: 0,
          tokens_in: 7,
          tokens_out: 3,
          latency_ms: 0,
        },
      ]),
    );
    writeFileSync(join(vdir, "calls.jsonl"), jsonl([callRecord(ids.V.run_id, { purpose: "verifier", phase: "explore", episode: 1, step: null, tokens_in: 7, tokens_out: 3 })]));
    mkdirSync(vdir, { recursive: true });
    const ds = await loadDataset(dir);
    const inputs = await loadVerifiedInputs(dir);
    const report = buildReport(ds, { B: 0, verified: inputs });
    const vm = report.tables.verified_vs_memory!.rows;
    const vh = report.tables.verified_vs_history!.rows;
    expect(vm.map((r) => [r.model, r.dnaba.point, r.dnaba_wins, r.dnaba_losses, r.dnaba_ties])).toEqual([
      ["m", 12, null, null, null],
      ["mean", 12, 1, 0, 0],
    ]);
    expect(vh.map((r) => [r.model, r.dnaba.point])).toEqual([
      ["m", 6],
      ["mean", 6],
    ]);
    expect(report.tables.summary_vs_history.rows[0]!.dnaba.point).toBeCloseTo(1.5 - 7.5, 12);
    // Game g has no verifier criterion of its own: nothing is decided.
    expect(report.tables.verifier_reliability!.rows).toEqual([expect.objectContaining({ game: "g", verdicts: 1, decided: 0, threshold: null })]);
    expect(report.tables.tokens_by_pathway!.rows.map((r) => [r.pathway, r.consolidation_calls, r.consolidation_tokens])).toEqual([
      ["history", 0, 0],
      ["memory", 0, 0],
      ["verified", 1, 10],
    ]);
  });
});
