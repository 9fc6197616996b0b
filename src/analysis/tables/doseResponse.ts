/**
 * The judge dial's dose-response (learner.md, "What the reproduction must show"): builtin:learner
 * played at several `judge` settings; per setting and pathway its Agree, NMAE and signed gains
 * (gain.ts), and over the runs the correlation of Agree with gain. The dial sets judging quality by
 * construction, so the gain must follow it: the instrument's check that the kit can see a coupling.
 *
 * Gains are divided by the game's score spread (max - min of every checkpoint mean of that game's dial
 * runs), so games whose scores differ by orders of magnitude (pvz's points, minesweeper's fraction)
 * average and correlate on one scale. The correlation is within games: Agree and normalised gain are
 * each centred on their game's mean over the runs, because Agree also differs by game for reasons
 * unrelated to learning (what a game's fair estimate gets right), which would otherwise dominate.
 */
import * as ss from "simple-statistics";
import { bootstrapRng, describeBootstrap, DEFAULT_LEVEL, estimate, type BootstrapConfig, type Estimate } from "../stats/bootstrap.js";
import { pearson } from "../metrics/coupling.js";
import { flagEstimate, smallNNote } from "../stats/coverage.js";
import type { Dataset, RunData } from "../load/dataset.js";
import { gainPoint, gainVsNoneData, gainVsY0Data } from "../metrics/gain.js";
import { judgingStats } from "../metrics/judging.js";
import type { JudgingInputs } from "./judgingTables.js";
import { learnerJudge } from "./learnerPool.js";
import { distinct, isTraining, runCurve } from "../load/runs.js";
import { seedCurve } from "../stats/seedCurves.js";
import { withInstrumentNote } from "./instruments.js";
import type { Table } from "./table.js";

/** One dial run with a context pathway: what the table and the correlation read. */
export interface DialRun {
  run_id: string;
  judge: number;
  game: string;
  pathway: string;
  run_seed: number;
  agree: number | null;
  nmae: number | null;
  /** gain_vs_y0 and gain_vs_none divided by the game's score spread; null where undefined. */
  gain_vs_y0: number | null;
  gain_vs_none: number | null;
}

const runSeedOf = (r: RunData): number => r.manifest?.run_seed ?? 0;

/** The game's score spread over its dial runs: max - min of every valid checkpoint mean (null: flat or none). */
function spreads(runs: readonly RunData[]): Map<string, number | null> {
  const out = new Map<string, number | null>();
  for (const game of distinct(runs.map((r) => r.game))) {
    const ys = runs
      .filter((r) => r.game === game)
      .flatMap((r) =>
        runCurve(r)
          .map((p) => p.y)
          .filter((y): y is number => y !== null),
      );
    const spread = ys.length > 0 ? Math.max(...ys) - Math.min(...ys) : 0;
    out.set(game, spread > 0 ? spread : null);
  }
  return out;
}

/**
 * Every learner run of the data set with its judge, Agree, NMAE and normalised gains; `none` runs give
 * gain_vs_y0 only (their Agree is null: a none run is not judged). Other models are left out.
 */
export function dialRuns(ds: Dataset, inputs: JudgingInputs): DialRun[] {
  const learners = ds.runs.filter((r) => learnerJudge(r.model) !== null && !isTraining(r));
  const scale = spreads(learners);
  const judged = new Map(inputs.runs.map((jr) => [jr.run.run_id, jr]));
  const noneOf = new Map(learners.filter((r) => r.pathway === "none").map((r) => [`${r.model}\u0000${r.game}\u0000${runSeedOf(r)}`, r]));
  const out: DialRun[] = [];
  for (const r of learners) {
    const s = scale.get(r.game) ?? null;
    const norm = (v: number | null): number | null => (v === null || s === null ? null : v / s);
    const sc = seedCurve(r);
    const y0 = gainVsY0Data(sc);
    const none = r.pathway === "none" ? undefined : noneOf.get(`${r.model}\u0000${r.game}\u0000${runSeedOf(r)}`);
    const vsNone = none ? gainVsNoneData(sc, seedCurve(none)) : null;
    const jr = judged.get(r.run_id);
    const js = jr ? judgingStats(jr.total, inputs.ranges.get(r.game) ?? null) : null;
    out.push({
      run_id: r.run_id,
      judge: learnerJudge(r.model) as number,
      game: r.game,
      pathway: r.pathway,
      run_seed: runSeedOf(r),
      agree: js?.agree ?? null,
      nmae: js?.nmae ?? null,
      gain_vs_y0: norm(y0 ? gainPoint(y0) : null),
      gain_vs_none: norm(vsNone ? gainPoint(vsNone) : null),
    });
  }
  return out;
}

/** A row of judge_dose_response: one judge setting and pathway, over its games and run seeds. */
export interface DoseRow {
  judge: number;
  pathway: string;
  n_runs: number;
  agree: Estimate;
  nmae: Estimate;
  gain_vs_y0: Estimate;
  gain_vs_none: Estimate;
}

/** The mean of a field over runs with a percentile interval from resampling the runs. */
function meanOver(runs: readonly DialRun[], field: "agree" | "nmae" | "gain_vs_y0" | "gain_vs_none", cfg: BootstrapConfig, key: string): Estimate {
  const v = runs.map((r) => r[field]).filter((x): x is number => x !== null);
  if (v.length === 0) return estimate(null, null);
  const reps = new Float64Array(cfg.B);
  const rng = bootstrapRng(cfg.seed, "judge_dose_response", key, field);
  for (let b = 0; b < cfg.B; b++) {
    let sum = 0;
    for (let i = 0; i < v.length; i++) sum += v[rng.int(v.length)] as number;
    reps[b] = sum / v.length;
  }
  // A mean over runs by percentile bootstrap: marked indicative below the runs Avg's measured coverage needs.
  return flagEstimate({ ...estimate(ss.mean(v), cfg.B > 0 ? reps : null, cfg.level ?? DEFAULT_LEVEL), n: v.length }, "avg");
}

/** The dose-response table: per judge (ascending) and pathway (none, history, memory, others). */
export function doseResponseTable(runs: readonly DialRun[], cfg: BootstrapConfig): Table<DoseRow> {
  const judges = [...new Set(runs.map((r) => r.judge))].sort((a, b) => a - b);
  const order = ["none", "history", "memory"];
  const pathways = [...new Set(runs.map((r) => r.pathway))].sort((a, b) => (order.indexOf(a) + 1 || 99) - (order.indexOf(b) + 1 || 99) || a.localeCompare(b));
  const rows: DoseRow[] = [];
  for (const judge of judges)
    for (const pathway of pathways) {
      const these = runs.filter((r) => r.judge === judge && r.pathway === pathway);
      if (these.length === 0) continue;
      const key = `${judge}/${pathway}`;
      rows.push({
        judge,
        pathway,
        n_runs: these.length,
        agree: meanOver(these, "agree", cfg, key),
        nmae: meanOver(these, "nmae", cfg, key),
        gain_vs_y0: meanOver(these, "gain_vs_y0", cfg, key),
        gain_vs_none: meanOver(these, "gain_vs_none", cfg, key),
      });
    }
  const games = distinct(runs.map((r) => r.game));
  return withInstrumentNote(
    {
      name: "judge_dose_response",
      title: "The judge dial's dose-response (builtin:learner, an instrument)",
      columns: [
        { key: "judge", kind: "num" },
        { key: "pathway", kind: "text" },
        { key: "n_runs", kind: "int" },
        { key: "agree", kind: "estimate" },
        { key: "nmae", kind: "estimate" },
        { key: "gain_vs_y0", kind: "estimate" },
        { key: "gain_vs_none", kind: "estimate" },
      ],
      rows,
      notes: [
        describeBootstrap({ ...cfg, method: "percentile" }, "runs (games x run seeds) of the row"),
        `builtin:learner at judge ${judges.join(", ")} on ${games.join(", ")}: with probability 'judge' a self-score is the fair estimate, else an uninformed draw (docs/learner.md). Agree and NMAE over each run's scored exploration steps (none runs are not judged).`,
        "gain_vs_y0 = mean over checkpoints x >= 3 of y(x) - y(0); gain_vs_none = mean over x >= 3 of y_P(x) - y_none(x) (the same model's none run, same evaluation seeds); both divided by the game's score spread over its dial runs (max - min checkpoint mean), so games share one scale. The r(Agree, gain) over these runs is in judge_dose_response_r.",
        ...smallNNote(rows, [
          { key: "agree", metric: "avg" },
          { key: "nmae", metric: "avg" },
          { key: "gain_vs_y0", metric: "avg" },
          { key: "gain_vs_none", metric: "avg" },
        ]),
      ],
    },
    ["builtin:learner"],
  );
}

/** A row of judge_dose_response_r: the within-game correlation of Agree and a gain over the dial runs. */
export interface DoseCorrelationRow {
  gain: string;
  /** `all`, or `judge > 0` (the dial without its uninformed setting, on which an r can rest alone). */
  judges: string;
  pathways: string;
  r: Estimate;
  n_runs: number;
  /** (judge, game, run seed) cells, the resampling unit. */
  n_cells: number;
}

/** Pearson r of within-game centred (Agree, gain) pairs; null below 3 pairs. */
function withinGameR(pts: readonly { game: string; agree: number; gain: number }[]): number | null {
  if (pts.length < 3) return null;
  const mean = new Map<string, { a: number; g: number }>();
  for (const game of new Set(pts.map((p) => p.game))) {
    const of = pts.filter((p) => p.game === game);
    mean.set(game, { a: ss.mean(of.map((p) => p.agree)), g: ss.mean(of.map((p) => p.gain)) });
  }
  const x = pts.map((p) => p.agree - (mean.get(p.game) as { a: number }).a);
  const y = pts.map((p) => p.gain - (mean.get(p.game) as { g: number }).g);
  return pearson(x, y);
}

/**
 * r(Agree, gain) within games over the history and memory dial runs, per gain; the interval
 * resamples (judge, game, run seed) cells, a cell's history and memory runs together.
 */
export function doseCorrelationTable(runs: readonly DialRun[], cfg: BootstrapConfig): Table<DoseCorrelationRow> {
  const level = cfg.level ?? DEFAULT_LEVEL;
  const rows: DoseCorrelationRow[] = [];
  for (const [gain, judges] of [
    ["gain_vs_y0", "all"],
    ["gain_vs_none", "all"],
    ["gain_vs_y0", "judge > 0"],
    ["gain_vs_none", "judge > 0"],
  ] as const) {
    const pts = runs
      .filter((r) => r.pathway !== "none" && r.agree !== null && r[gain] !== null && (judges === "all" || r.judge > 0))
      .map((r) => ({ cell: `${r.judge}\u0000${r.game}\u0000${r.run_seed}`, game: r.game, agree: r.agree as number, gain: r[gain] as number }));
    const cells = [...new Set(pts.map((p) => p.cell))];
    const byCell = cells.map((c) => pts.filter((p) => p.cell === c));
    const point = withinGameR(pts);
    let reps: Float64Array | null = null;
    if (cfg.B > 0 && point !== null) {
      reps = new Float64Array(cfg.B);
      const rng = judges === "all" ? bootstrapRng(cfg.seed, "judge_dose_response_r", gain) : bootstrapRng(cfg.seed, "judge_dose_response_r", gain, judges);
      for (let b = 0; b < cfg.B; b++) {
        const sample: typeof pts = [];
        for (let i = 0; i < cells.length; i++) sample.push(...(byCell[rng.int(cells.length)] as typeof pts));
        reps[b] = withinGameR(sample) ?? Number.NaN;
      }
    }
    rows.push({ gain, judges, pathways: "history, memory", r: { ...estimate(point, reps, level), n: cells.length }, n_runs: pts.length, n_cells: cells.length });
  }
  return withInstrumentNote(
    {
      name: "judge_dose_response_r",
      title: "Run level over the judge dial: r(Agree, gain) within games",
      columns: [
        { key: "gain", kind: "text" },
        { key: "judges", kind: "text" },
        { key: "pathways", kind: "text" },
        { key: "r", kind: "estimate" },
        { key: "n_runs", kind: "int" },
        { key: "n_cells", kind: "int" },
      ],
      rows,
      notes: [
        describeBootstrap({ ...cfg, method: "percentile" }, "(judge, game, run seed) cells, a cell's history and memory runs together"),
        "Pearson r over the learner's history and memory dial runs of Agree against the normalised gain, both centred on their game's mean (Agree differs by game for reasons unrelated to learning). The dial sets judging quality by construction, so r > 0 is what the instrument must show. Rows 'judge > 0' leave out the judge-0 setting (uninformed self-scores): an r that holds only with it rests on one extreme setting, not on a dose-response along the dial.",
      ],
    },
    ["builtin:learner"],
  );
}
