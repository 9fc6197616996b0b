/**
 * Hand-made logs for tests: small builders of valid records and a writer of run directories. The
 * tests compute their expected numbers by hand from the values written here, never by calling the
 * code under test.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { CallRecord } from "../../src/logs/schema.js";

export interface Identity {
  run_id: string;
  model: string;
  game: string;
  pathway: string;
}

export function tempDir(prefix = "s3gym-analysis-"): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

/** A valid step record; `s` null = unscored. */
export function step(id: Identity, o: { phase?: "explore" | "eval"; checkpoint?: number | null; episode: number; step: number; s: number | null; r: number }): Record<string, unknown> {
  const phase = o.phase ?? "explore";
  return {
    ...id,
    phase,
    config: phase,
    checkpoint: o.checkpoint ?? null,
    episode: o.episode,
    seed: 100 + o.episode,
    step: o.step,
    observation: "board",
    response: "Answer: x\nScore: 1",
    action: "x",
    self_score: o.s,
    parse_error: o.s === null ? "no Score line" : null,
    valid: true,
    feedback: "ok",
    reward: o.r,
    score_after: o.r,
    done: false,
    tokens_in: 10,
    tokens_out: 2,
    latency_ms: 5,
  };
}

/** A valid episode record. */
/** A calls.jsonl line of `run_id`: a step call that used nothing and failed nothing, with `o` over it. */
export function callRecord(run_id: string, o: Record<string, unknown> = {}): CallRecord {
  return {
    run_id,
    purpose: "step",
    phase: null,
    checkpoint: null,
    episode: null,
    step: 0,
    tokens_in: 0,
    tokens_out: 0,
    tokens_cached: null,
    latency_ms: 0,
    retries: 0,
    cached: false,
    error: null,
    cost_usd: null,
    ...o,
  } as CallRecord;
}

export function episode(id: Identity, o: { phase: "explore" | "eval"; checkpoint?: number | null; episode: number; score?: number; status?: "ok" | "failed" }): Record<string, unknown> {
  const status = o.status ?? "ok";
  return {
    ...id,
    phase: o.phase,
    config: o.phase,
    checkpoint: o.checkpoint ?? null,
    episode: o.episode,
    seed: o.episode,
    score: o.score ?? 0,
    steps: 1,
    status,
    error: status === "failed" ? "retries exhausted" : null,
    started_at: "2025-01-01T00:00:00.000Z",
    ended_at: "2025-01-01T00:01:00.000Z",
  };
}

/** A checkpoint record; `scores` null means failed. */
export function checkpoint(id: Identity, x: number, scores: number[] | null): Record<string, unknown> {
  const ok = scores !== null;
  const s = scores ?? [];
  return {
    ...id,
    checkpoint: x,
    scores: s,
    mean: ok && s.length ? s.reduce((a, b) => a + b, 0) / s.length : null,
    status: ok ? "ok" : "failed",
    reason: ok ? null : "endpoint kept failing",
  };
}

/**
 * A curve as records: for each checkpoint x, its eval scores (null = failed). Returns the checkpoint
 * records and the eval episode records.
 */
export function curveRecords(id: Identity, curve: [number, number[] | null][]): { checkpoints: object[]; episodes: object[] } {
  const checkpoints: object[] = [];
  const episodes: object[] = [];
  for (const [x, scores] of curve) {
    checkpoints.push(checkpoint(id, x, scores));
    if (scores === null) episodes.push(episode(id, { phase: "eval", checkpoint: x, episode: 0, score: 0, status: "failed" }));
    else scores.forEach((score, e) => episodes.push(episode(id, { phase: "eval", checkpoint: x, episode: e, score })));
  }
  return { checkpoints, episodes };
}

/** Explore steps given per episode as [s, r] pairs; returns step and (ok) episode records. */
export function exploreRecords(id: Identity, eps: Record<number, [number | null, number][]>): { steps: object[]; episodes: object[] } {
  const steps: object[] = [];
  const episodes: object[] = [];
  for (const [e, list] of Object.entries(eps)) {
    const ep = Number(e);
    list.forEach(([s, r], k) => steps.push(step(id, { episode: ep, step: k, s, r })));
    episodes.push(episode(id, { phase: "explore", episode: ep, score: list.reduce((a, [, r]) => a + r, 0) }));
  }
  return { steps, episodes };
}

function jsonl(records: readonly object[]): string {
  return records.map((r) => JSON.stringify(r)).join("\n") + (records.length ? "\n" : "");
}

/** Writes `<dataDir>/runs/<run_id>/` with the three required files (and extra raw text if given). */
export function writeRun(dataDir: string, id: Identity, files: { steps?: object[]; episodes?: object[]; checkpoints?: object[]; stepsRaw?: string; dirName?: string }): string {
  const dir = join(dataDir, "runs", files.dirName ?? id.run_id);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "steps.jsonl"), files.stepsRaw ?? jsonl(files.steps ?? []));
  writeFileSync(join(dir, "episodes.jsonl"), jsonl(files.episodes ?? []));
  writeFileSync(join(dir, "checkpoints.jsonl"), jsonl(files.checkpoints ?? []));
  return dir;
}

/**
 * The CSV columns of `report`, copied from issue 4 (not from the code), with issue 11's unit counts
 * (`<key>_n`, n_seeds, n_runs, n_cells, n_models), issue 24's gains and issue 25's loop seeds; the
 * report and audit tests both check them.
 */
export const REPORT_CSV_COLUMNS: Record<string, string> = {
  // naba with its interval (Markdown prints it), the none-calibrated AUC+ and Max, Holm and BH beside every p.
  main_results:
    "model,game,pathway,n_checkpoints,n_seeds,avg,avg_lo,avg_hi,avg_n,avg_indicative,max,max_lo,max_hi,max_n,max_indicative,auc_plus,auc_plus_lo,auc_plus_hi,auc_plus_n,auc_plus_indicative,naba,naba_lo,naba_hi,naba_n,naba_indicative,gain_vs_none,gain_vs_none_lo,gain_vs_none_hi,gain_vs_none_n,gain_vs_none_indicative,gain_vs_none_p,gain_vs_none_p_holm,gain_vs_none_p_bh,auc_plus_vs_none,auc_plus_vs_none_lo,auc_plus_vs_none_hi,auc_plus_vs_none_n,auc_plus_vs_none_indicative,auc_plus_vs_none_p,auc_plus_vs_none_p_holm,auc_plus_vs_none_p_bh,max_vs_none,max_vs_none_lo,max_vs_none_hi,max_vs_none_n,max_vs_none_indicative,max_vs_none_p,max_vs_none_p_holm,max_vs_none_p_bh,gain_vs_y0,gain_vs_y0_lo,gain_vs_y0_hi,gain_vs_y0_n,gain_vs_y0_indicative,gain_vs_y0_p,gain_vs_y0_p_holm,gain_vs_y0_p_bh",
  // over and under keep the CSV columns of the interval Markdown prints; balanced accuracy
  // and AUROC with intervals, and the r > 0 / r <= 0 step counts they rest on.
  self_judging:
    "game,model,n_steps,n_unscored,agree,agree_lo,agree_hi,agree_n,agree_indicative,nmae,nmae_lo,nmae_hi,nmae_n,nmae_indicative,over,over_lo,over_hi,over_n,over_indicative,under,under_lo,under_hi,under_n,under_indicative,balanced_accuracy,balanced_accuracy_lo,balanced_accuracy_hi,balanced_accuracy_n,balanced_accuracy_indicative,auroc,auroc_lo,auroc_hi,auroc_n,auroc_indicative,n_pos,n_neg",
  coupling:
    "pool,game,n_blocks,n_runs,rho_agree,rho_agree_lo,rho_agree_hi,rho_agree_n,rho_agree_indicative,rho_neg_err,rho_neg_err_lo,rho_neg_err_hi,rho_neg_err_n,rho_neg_err_indicative,tertile_gap_agree,tertile_gap_neg_err,n_blocks_ba,rho_ba,rho_ba_lo,rho_ba_hi,rho_ba_n,rho_ba_indicative,tertile_gap_ba,mde_rho",
  run_level:
    "pool,pearson_agree_naba,pearson_agree_naba_lo,pearson_agree_naba_hi,pearson_agree_naba_n,pearson_agree_naba_indicative,spearman_agree_naba,spearman_agree_naba_lo,spearman_agree_naba_hi,spearman_agree_naba_n,spearman_agree_naba_indicative,n_runs,n_cells",
  summary_vs_history:
    "game,pathway,versus,pool,model,dnaba,dnaba_lo,dnaba_hi,dnaba_n,dnaba_indicative,gain,gain_lo,gain_hi,gain_n,gain_indicative,gain_p,gain_p_holm,gain_p_bh,sign,n_models,wins,losses,undecided,dnaba_wins,dnaba_losses,dnaba_ties",
  training:
    "model,game,n_seeds,run_seeds,y0,y0_lo,y0_hi,y0_n,y0_indicative,y_final,y_final_lo,y_final_hi,y_final_n,y_final_indicative,d_final,d_final_lo,d_final_hi,d_final_n,d_final_indicative,avg,avg_lo,avg_hi,avg_n,avg_indicative,max,max_lo,max_hi,max_n,max_indicative,auc_plus,auc_plus_lo,auc_plus_hi,auc_plus_n,auc_plus_indicative,n_above,n_above_lo,n_above_hi,n_above_n,n_above_indicative,n_updated",
  training_epochs: "model,game,epoch,score,score_lo,score_hi,score_n,score_indicative,n_seeds,n_episodes",
};
