/**
 * What a table's intervals cover (metrics.md, "Estimand"), read from the rows themselves: a row that
 * rests on one exploration run covers THIS RUN (its expected score over new evaluation seeds: how the
 * model did with the exploration it happened to have); a row that pools runs of two or more run seeds
 * gets the t interval over its runs' own results (intervals.ts) and covers the model's expected
 * result over run seeds. The notes and report.json say which, per table, from the data: never a blanket claim.
 */
import { compareText } from "../load/dataset.js";

/** A row as the estimand reads it: its model and the run ids behind it. */
export interface EstimandRow {
  model: string;
  runs: readonly string[];
}

/** What a table's rows cover. */
export interface Estimand {
  /** `this run`: every row one run; `over run seeds`: every row >= 2 runs; `mixed`: some of each; `none`: no rows. */
  scope: "this run" | "over run seeds" | "mixed" | "none";
  rows: number;
  /** Rows that rest on one run. */
  one_run_rows: number;
  /** Rows that pool runs of two or more run seeds. */
  pooled_rows: number;
  /** The distinct numbers of runs per pooled row (e.g. [3]). */
  runs_per_pooled_row: number[];
  /** The models with a pooled row, sorted. */
  pooled_models: string[];
  /** The models with a one-run row, sorted. */
  one_run_models: string[];
}

/** The rows' estimand (runs counted as distinct run ids). */
export function estimandOf(rows: readonly EstimandRow[]): Estimand {
  let one = 0;
  let pooled = 0;
  const sizes = new Set<number>();
  const pooledModels = new Set<string>();
  const oneModels = new Set<string>();
  for (const r of rows) {
    const n = new Set(r.runs).size;
    if (n === 0) continue;
    if (n === 1) {
      one++;
      oneModels.add(r.model);
    } else {
      pooled++;
      sizes.add(n);
      pooledModels.add(r.model);
    }
  }
  const scope = one + pooled === 0 ? "none" : pooled === 0 ? "this run" : one === 0 ? "over run seeds" : "mixed";
  const sorted = (s: Set<string>) => [...s].sort(compareText);
  return {
    scope,
    rows: one + pooled,
    one_run_rows: one,
    pooled_rows: pooled,
    runs_per_pooled_row: [...sizes].sort((a, b) => a - b),
    pooled_models: sorted(pooledModels),
    one_run_models: sorted(oneModels),
  };
}

const THIS_RUN =
  "this run: its expected score over new evaluation seeds, i.e. how the model did with the exploration it happened to have; not the model's expected result over run seeds (another run of the same model, with other exploration, may score outside it)";
const OVER_SEEDS =
  "the model's expected result over run seeds: the interval is the t interval over the runs' own results (for AUC+ its hull with the two-stage percentile interval, runs then evaluation seeds; NABA and dNABA print the point alone there), so it speaks of exploration runs like these and new evaluation seeds, not of one run";

function runsText(sizes: readonly number[]): string {
  return sizes.length === 1 ? `${sizes[0]} runs` : `${sizes[0]}-${sizes[sizes.length - 1]} runs`;
}

/** The table note that says what the intervals cover, from the rows' run counts. */
export function estimandNote(e: Estimand): string {
  const more = "To cover the model, play two or more run seeds per cell (`s3gym run --run-seed`, a study's `runSeeds`).";
  switch (e.scope) {
    case "none":
      return "Estimand: no row rests on a run.";
    case "this run":
      return `Estimand: this run. Every row rests on one exploration run (one run seed), so its interval covers ${THIS_RUN}. ${more}`;
    case "over run seeds":
      return `Estimand: the model's expected result over run seeds. Every row pools ${runsText(e.runs_per_pooled_row)} (run seeds) of its model, game and pathway, so its interval covers ${OVER_SEEDS}.`;
    case "mixed":
      return (
        `Estimand, per row: the ${e.pooled_rows} row${e.pooled_rows === 1 ? " that pools" : "s that pool"} ${runsText(e.runs_per_pooled_row)} (run seeds; models ${e.pooled_models.join(", ")}) ${e.pooled_rows === 1 ? "has an interval that covers" : "have intervals that cover"} ${OVER_SEEDS}; ` +
        `the ${e.one_run_rows} row${e.one_run_rows === 1 ? "" : "s"} with one run (models ${e.one_run_models.join(", ")}) ${e.one_run_rows === 1 ? "has an interval that covers" : "have intervals that cover"} ${THIS_RUN}.`
      );
  }
}

/** The note of a table whose rows are single runs by construction (one row per run): this run. */
export const ESTIMAND_ONE_RUN_PER_ROW = `Estimand: this run. Every row is one run, so its interval covers ${THIS_RUN}. Rows of the same model, game and pathway at other run seeds are separate rows, not pooled here.`;
