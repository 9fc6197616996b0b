/**
 * Coupling tables: coupling (paper Table 6: Spearman rho of block agreement / negative error against
 * block improvement, with tertile gaps) and run_level (Pearson and Spearman of a run's Agree against
 * its NABA). Intervals: blocks resampled (coupling), runs resampled (run level).
 */
import { DEFAULT_LEVEL, bootstrapRng, describeBootstrap, estimate, type BootstrapConfig, type Estimate } from "./bootstrap.js";
import { WeightedSpearman, couplingStats, pearson, pearsonWeighted, resampleWeights, runBlocks, spearman, type Block } from "./coupling.js";
import { naba } from "./curves.js";
import { judgingStats } from "./judging.js";
import { POOLED, type JudgingInputs } from "./judgingTables.js";
import { distinct, runCurve } from "./runs.js";
import type { Table } from "./table.js";

/** A block with the identity of its run (for the scatter figure and notebooks). */
export interface BlockRow extends Block {
  run_id: string;
  model: string;
  game: string;
  pathway: string;
}

/** Every coupling block of every history/memory run, in block order (runs in data-set order, then t). */
export function allBlocks(inputs: JudgingInputs): BlockRow[] {
  const out: BlockRow[] = [];
  for (const jr of inputs.runs) {
    const { run } = jr;
    for (const b of runBlocks(runCurve(run), jr.episodes, inputs.ranges.get(run.game) ?? null)) {
      out.push({ ...b, run_id: run.run_id, model: run.model, game: run.game, pathway: run.pathway });
    }
  }
  return out;
}

/** A row of coupling. */
export interface CouplingRow {
  /** A game, or "all" (pooled over games; last). */
  game: string;
  n_blocks: number;
  rho_agree: Estimate;
  rho_neg_err: Estimate;
  tertile_gap_agree: number | null;
  tertile_gap_neg_err: number | null;
}

/** The coupling row of a list of blocks: rho with intervals from B resamples of the blocks. */
export function couplingRow(game: string, blocks: readonly Block[], cfg: BootstrapConfig): CouplingRow {
  const level = cfg.level ?? DEFAULT_LEVEL;
  const stats = couplingStats(blocks);
  const n = blocks.length;
  let repA: Float64Array | null = null;
  let repE: Float64Array | null = null;
  if (cfg.B > 0 && n > 0) {
    const rng = bootstrapRng(cfg.seed, "coupling", game);
    repA = new Float64Array(cfg.B);
    repE = new Float64Array(cfg.B);
    // Resamples as multiplicities over the original blocks: ranks come from sort orders made once.
    const rhoA = new WeightedSpearman(
      blocks.map((b) => b.A),
      blocks.map((b) => b.g),
    );
    const withE = blocks.map((b, i) => (b.E === null ? -1 : i)).filter((i) => i >= 0);
    const rhoE = new WeightedSpearman(
      withE.map((i) => -((blocks[i] as Block).E as number)),
      withE.map((i) => (blocks[i] as Block).g),
    );
    const w = new Int32Array(n);
    const wE = new Int32Array(withE.length);
    for (let b = 0; b < cfg.B; b++) {
      resampleWeights(rng, n, w);
      for (let k = 0; k < withE.length; k++) wE[k] = w[withE[k] as number] as number;
      repA[b] = rhoA.rho(w) ?? Number.NaN;
      repE[b] = rhoE.rho(wE) ?? Number.NaN;
    }
  }
  return {
    game,
    n_blocks: stats.n_blocks,
    rho_agree: estimate(stats.rho_agree, repA, level),
    rho_neg_err: estimate(stats.rho_neg_err, repE, level),
    tertile_gap_agree: stats.tertile_gap_agree,
    tertile_gap_neg_err: stats.tertile_gap_neg_err,
  };
}

/** Paper Table 6: per game, and pooled over all blocks ("all", last). */
export function couplingTable(blocks: readonly BlockRow[], cfg: BootstrapConfig): Table<CouplingRow> {
  const rows = distinct(blocks.map((b) => b.game)).map((game) => couplingRow(game, blocks.filter((b) => b.game === game), cfg));
  rows.push(couplingRow(POOLED, blocks, cfg));
  return {
    name: "coupling",
    title: "Judgment-improvement coupling over exploration blocks",
    columns: [
      { key: "game", kind: "text" },
      { key: "n_blocks", kind: "int" },
      { key: "rho_agree", kind: "estimate" },
      { key: "rho_neg_err", kind: "estimate" },
      { key: "tertile_gap_agree", kind: "num" },
      { key: "tertile_gap_neg_err", kind: "num" },
    ],
    rows,
    notes: [
      describeBootstrap(cfg, "blocks"),
      "Block t = exploration episodes (t-3, t] of a history or memory run, kept when checkpoints t-3 and t are valid and it has a scored step. rho: Spearman with average ranks, of A (Agree) and of -E (negative NMAE) against g = (y(t) - y(t-3)) / (max y - min y). Tertile gap: mean g of the top third of blocks minus the bottom third (floor(n/3) blocks each; ties by block order).",
    ],
  };
}

/** run_level.csv's single row. */
export interface RunLevelRow {
  pearson_agree_naba: Estimate;
  spearman_agree_naba: Estimate;
  n_runs: number;
}

/** Each judged run's (Agree, NABA), runs where either is missing left out. */
export function runAgreeNaba(inputs: JudgingInputs): { run_id: string; game: string; agree: number; naba: number }[] {
  const out: { run_id: string; game: string; agree: number; naba: number }[] = [];
  for (const jr of inputs.runs) {
    const agree = judgingStats(jr.total, inputs.ranges.get(jr.run.game) ?? null).agree;
    const nb = naba(runCurve(jr.run));
    if (agree !== null && nb !== null) out.push({ run_id: jr.run.run_id, game: jr.run.game, agree, naba: nb });
  }
  return out;
}

/** Run-level correlation of Agree and NABA over history and memory runs; runs resampled. */
export function runLevelTable(inputs: JudgingInputs, cfg: BootstrapConfig): Table<RunLevelRow> {
  const level = cfg.level ?? DEFAULT_LEVEL;
  const pts = runAgreeNaba(inputs);
  const x = pts.map((p) => p.agree);
  const y = pts.map((p) => p.naba);
  const pr = pearson(x, y);
  const sr = spearman(x, y);
  let repP: Float64Array | null = null;
  let repS: Float64Array | null = null;
  if (cfg.B > 0 && pts.length > 0) {
    const rng = bootstrapRng(cfg.seed, "run_level");
    const n = pts.length;
    repP = new Float64Array(cfg.B);
    repS = new Float64Array(cfg.B);
    const rho = new WeightedSpearman(x, y);
    const w = new Int32Array(n);
    for (let b = 0; b < cfg.B; b++) {
      resampleWeights(rng, n, w);
      repP[b] = pearsonWeighted(x, y, w) ?? Number.NaN;
      repS[b] = rho.rho(w) ?? Number.NaN;
    }
  }
  return {
    name: "run_level",
    title: "Run level: a run's Agree against its NABA",
    columns: [
      { key: "pearson_agree_naba", kind: "estimate_point" },
      { key: "spearman_agree_naba", kind: "estimate_point" },
      { key: "n_runs", kind: "int" },
    ],
    rows: [{ pearson_agree_naba: estimate(pr, repP, level), spearman_agree_naba: estimate(sr, repS, level), n_runs: pts.length }],
    notes: [describeBootstrap(cfg, "runs"), "History and memory runs with both an Agree (a scored exploration step) and a NABA (a valid checkpoint 0)."],
  };
}
