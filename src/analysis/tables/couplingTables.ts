/**
 * Coupling tables: coupling (paper Table 6: Spearman rho of block agreement / negative error against
 * block improvement, with tertile gaps) and run_level (Pearson and Spearman of a run's Agree against
 * its NABA). Intervals: blocks resampled (coupling), runs resampled (run level).
 */
import { DEFAULT_LEVEL, MethodTally, bootstrapRng, describeBootstrap, estimate, methodOf, pointOnly, type BootstrapConfig, type Estimate, type Interval } from "../stats/bootstrap.js";
import { CORRELATION_RANGE, clusterDesign, tableInterval } from "../stats/intervals.js";
import { flagEstimate, smallNNote } from "../stats/coverage.js";
import { WeightedSpearman, couplingStats, pearson, pearsonWeighted, resampleWeights, runBlocks, spearman, type Block } from "../metrics/coupling.js";
import { naba } from "../metrics/curves.js";
import { MIN_SIDE_STEPS, judgingStats } from "../metrics/judging.js";
import { POOLED, type JudgingInputs } from "./judgingTables.js";
import { distinct, runCurve } from "../load/runs.js";
import { withInstrumentNote } from "./instruments.js";
import { poolNote, poolOf, type Pool } from "./learnerPool.js";
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
  /**
   * `learners`: the models that can learn (learnerPool.ts); `null`: the non-learners, apart; `all
   * models`: every model pooled, the paper's Table 6 row (printed for comparison only).
   */
  pool: Pool | typeof ALL_MODELS;
  /** A game, or "all" (pooled over games; last). */
  game: string;
  n_blocks: number;
  /** Runs the blocks come from (the resampling unit). */
  n_runs: number;
  rho_agree: Estimate;
  rho_neg_err: Estimate;
  tertile_gap_agree: number | null;
  tertile_gap_neg_err: number | null;
  /** Blocks with a balanced accuracy (10 or more scored steps on each side of r > 0). */
  n_blocks_ba: number;
  /** Spearman rho(balanced accuracy, g) over those blocks: the judgment measure a constant cannot pass. */
  rho_ba: Estimate;
  tertile_gap_ba: number | null;
  /**
   * The smallest true rho_agree this row's design detects with 80% power at the 5% level (two-sided):
   * (z_0.975 + z_0.8) times the standard error of rho_agree, read from its interval (runs resampled).
   */
  mde_rho: number | null;
}

/** The pool label of the paper's all-model row. */
export const ALL_MODELS = "all models";

/** z quantiles of the power calculation: two-sided 5% level and 80% power. */
const Z_ALPHA = 1.959963984540054;
const Z_POWER = 0.8416212335729143;

/**
 * Minimum detectable rho at 80% power and the 5% level from a 95% interval: se = width / (2 z_0.975),
 * MDE = (z_0.975 + z_0.8) se (a normal approximation to the statistic's sampling distribution, with the
 * spread measured by the bootstrap over runs, so the clustering of blocks within runs is in it).
 */
export function minimumDetectableRho(e: Estimate): number | null {
  if (e.point === null || e.lo === null || e.hi === null || !(e.hi > e.lo)) return null;
  return Math.min(1, ((Z_ALPHA + Z_POWER) * (e.hi - e.lo)) / (2 * Z_ALPHA));
}

/**
 * The same for n INDEPENDENT blocks (Fisher z with the Spearman variance 1.06 / (n - 3), Fieller et al.
 * 1957): the bound the design would reach if blocks of a run were independent; null below 4 blocks.
 */
export function independentBlocksMde(n: number): number | null {
  return n < 4 ? null : Math.tanh((Z_ALPHA + Z_POWER) * Math.sqrt(1.06 / (n - 3)));
}

/**
 * Cluster multiplicities: `clusterOf[i]` is item i's cluster index (0..k-1); each replicate draws k
 * clusters with replacement and gives every item its cluster's multiplicity.
 */
export function clusterIndex(keys: readonly string[]): { clusterOf: Int32Array; k: number } {
  const ids = new Map<string, number>();
  const clusterOf = Int32Array.from(keys, (key) => {
    let id = ids.get(key);
    if (id === undefined) {
      id = ids.size;
      ids.set(key, id);
    }
    return id;
  });
  return { clusterOf, k: ids.size };
}

/**
 * The coupling row of a list of blocks: rho with intervals from B resamples of whole RUNS (a run's
 * blocks stay together: consecutive gains of one run are negatively correlated, so blocks are not
 * independent units).
 */
export function couplingRow(
  game: string,
  blocks: readonly (Block & { run_id: string })[],
  cfg: BootstrapConfig,
  pool: Pool | typeof ALL_MODELS = "learners",
  methods: MethodTally = new MethodTally(),
): CouplingRow {
  // The learners' streams keep the names they always had; the null's and the all-model row's are their own.
  const stream = pool === "learners" ? game : `${pool}/${game}`;
  const level = cfg.level ?? DEFAULT_LEVEL;
  const stats = couplingStats(blocks);
  const n = blocks.length;
  let repA: Float64Array | null = null;
  let repE: Float64Array | null = null;
  let repBA: Float64Array | null = null;
  if (cfg.B > 0 && n > 0) {
    const rng = bootstrapRng(cfg.seed, "coupling", stream);
    repA = new Float64Array(cfg.B);
    repE = new Float64Array(cfg.B);
    repBA = new Float64Array(cfg.B);
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
    const withBA = blocks.map((b, i) => (b.BA === null ? -1 : i)).filter((i) => i >= 0);
    const rhoBA = new WeightedSpearman(
      withBA.map((i) => (blocks[i] as Block).BA as number),
      withBA.map((i) => (blocks[i] as Block).g),
    );
    const wBA = new Int32Array(withBA.length);
    const { clusterOf, k: nRuns } = clusterIndex(blocks.map((b) => b.run_id));
    const runW = new Int32Array(nRuns);
    const w = new Int32Array(n);
    const wE = new Int32Array(withE.length);
    for (let b = 0; b < cfg.B; b++) {
      resampleWeights(rng, nRuns, runW);
      for (let i = 0; i < n; i++) w[i] = runW[clusterOf[i] as number] as number;
      for (let k = 0; k < withE.length; k++) wE[k] = w[withE[k] as number] as number;
      repA[b] = rhoA.rho(w) ?? Number.NaN;
      repE[b] = rhoE.rho(wE) ?? Number.NaN;
      // The same run draws as A's and E's (no extra draws: their digits are unchanged).
      for (let k = 0; k < withBA.length; k++) wBA[k] = w[withBA[k] as number] as number;
      repBA[b] = rhoBA.rho(wBA) ?? Number.NaN;
    }
  }
  const nRuns = new Set(blocks.map((b) => b.run_id)).size;
  // The measured default method (bootstrap-t) over runs as clusters of their blocks.
  let ivA: Interval | null = null;
  let ivE: Interval | null = null;
  let ivBA: Interval | null = null;
  if (cfg.B > 0 && n > 0 && methodOf(cfg, "correlation") !== "percentile") {
    const studentA = clusteredRho(blocks, (b) => b.A, cfg, stream, level, stats.rho_agree === null ? undefined : methods);
    const studentE = clusteredRho(
      blocks.filter((b) => b.E !== null),
      (b) => -(b.E as number),
      cfg,
      stream,
      level,
      stats.rho_neg_err === null ? undefined : methods,
    );
    ivA = studentA;
    ivE = studentE;
    const withBA = blocks.filter((b) => b.BA !== null);
    ivBA = withBA.length === 0 ? null : clusteredRho(withBA, (b) => b.BA as number, cfg, stream, level, stats.rho_ba === null ? undefined : methods);
  }
  if (repA !== null && ivA === null && stats.rho_agree !== null) methods.add("percentile");
  if (repE !== null && ivE === null && stats.rho_neg_err !== null) methods.add("percentile");
  if (repBA !== null && ivBA === null && stats.rho_ba !== null) methods.add("percentile");
  const withIv = (e: Estimate, iv: Interval | null): Estimate => (iv === null || e.point === null ? e : { ...e, ...iv });
  const flag = (e: Estimate): Estimate => (e.point === null ? e : flagEstimate({ ...e, n: nRuns }, "rho_agree"));
  const rhoAgree = flag(withIv(estimate(stats.rho_agree, repA, level), ivA));
  return {
    pool,
    game,
    n_blocks: stats.n_blocks,
    n_runs: nRuns,
    rho_agree: rhoAgree,
    rho_neg_err: flag(withIv(estimate(stats.rho_neg_err, repE, level), ivE)),
    tertile_gap_agree: stats.tertile_gap_agree,
    tertile_gap_neg_err: stats.tertile_gap_neg_err,
    n_blocks_ba: stats.n_blocks_ba,
    rho_ba:
      stats.rho_ba === null
        ? pointOnly(null)
        : flagEstimate({ ...withIv(estimate(stats.rho_ba, repBA, level), ivBA), n: new Set(blocks.filter((b) => b.BA !== null).map((b) => b.run_id)).size }, "rho_agree"),
    tertile_gap_ba: stats.tertile_gap_ba,
    mde_rho: minimumDetectableRho(rhoAgree),
  };
}

/**
 * A warning for runs that give few blocks (a schedule with fewer adjacent valid checkpoint pairs than
 * the paper's ten): empty when every run has at least ten.
 */
function sparseScheduleNote(blocks: readonly BlockRow[]): string[] {
  const per = new Map<string, number>();
  for (const b of blocks) per.set(b.run_id, (per.get(b.run_id) ?? 0) + 1);
  const few = [...per.entries()].filter(([, n]) => n < 10);
  if (few.length === 0) return [];
  const list = few
    .slice(0, 5)
    .map(([id, n]) => `${id} (${n})`)
    .join(", ");
  return [`Runs with fewer than 10 blocks (failed checkpoints, unscored blocks or a short schedule): ${few.length}${few.length > 5 ? `, e.g. ${list}` : `: ${list}`}.`];
}

/**
 * Spearman rho(key, g) of blocks with runs as clusters, by tableInterval (the bootstrap-t where it
 * applies); null when the blocks of a run are not contiguous (they are in allBlocks' order) or the
 * method fell back to percentile (the caller's percentile pass then stands).
 */
function clusteredRho(blocks: readonly (Block & { run_id: string })[], key: (b: Block) => number, cfg: BootstrapConfig, game: string, level: number, methods?: MethodTally): Interval | null {
  const sizes: number[] = [];
  const seen = new Set<string>();
  for (let i = 0; i < blocks.length; i++) {
    const id = (blocks[i] as { run_id: string }).run_id;
    if (i > 0 && id === (blocks[i - 1] as { run_id: string }).run_id) sizes[sizes.length - 1]++;
    else {
      if (seen.has(id)) return null;
      seen.add(id);
      sizes.push(1);
    }
  }
  if (sizes.length === 0) return null;
  const ws = new WeightedSpearman(
    blocks.map(key),
    blocks.map((b) => b.g),
  );
  const r = tableInterval(clusterDesign(sizes), (w) => ws.rho(w) ?? Number.NaN, cfg.B, bootstrapRng(cfg.seed, "coupling", game), methodOf(cfg, "correlation"), level, CORRELATION_RANGE);
  if (r.method === "percentile" && r.fellBack !== true) return null;
  methods?.add(r.method, r.fellBack);
  return r.interval;
}

/**
 * Paper Table 6 over the models that can learn (learnerPool.ts): per game, and pooled over all their
 * blocks ("all"); then the same rows of the non-learners' blocks (pool `null`), when any.
 */
export function couplingTable(allBlocks: readonly BlockRow[], cfg: BootstrapConfig): Table<CouplingRow> {
  const methods = new MethodTally();
  const blocks = allBlocks.filter((b) => poolOf(b.model) === "learners");
  const nulls = allBlocks.filter((b) => poolOf(b.model) === "null");
  const poolRows = (list: readonly BlockRow[], pool: Pool): CouplingRow[] => [
    ...distinct(list.map((b) => b.game)).map((game) =>
      couplingRow(
        game,
        list.filter((b) => b.game === game),
        cfg,
        pool,
        methods,
      ),
    ),
    couplingRow(POOLED, list, cfg, pool, methods),
  ];
  // A data set of non-learners only has no learners' rows (not an empty "all").
  const rows: CouplingRow[] = [...(blocks.length > 0 || nulls.length === 0 ? poolRows(blocks, "learners") : []), ...(nulls.length > 0 ? poolRows(nulls, "null") : [])];
  // The paper's Table 6 row pools every model; printed beside the pools when there are both.
  if (blocks.length > 0 && nulls.length > 0) rows.push(couplingRow(POOLED, allBlocks, cfg, ALL_MODELS, methods));
  const learnersAll = rows.find((r) => r.pool === "learners" && r.game === POOLED);
  return withInstrumentNote(
    {
      name: "coupling",
      title: "Judgment-improvement coupling over exploration blocks",
      columns: [
        { key: "pool", kind: "text" },
        { key: "game", kind: "text" },
        { key: "n_blocks", kind: "int" },
        { key: "n_runs", kind: "int" },
        { key: "rho_agree", kind: "estimate" },
        { key: "rho_neg_err", kind: "estimate" },
        { key: "tertile_gap_agree", kind: "num" },
        { key: "tertile_gap_neg_err", kind: "num" },
        { key: "n_blocks_ba", kind: "int" },
        { key: "rho_ba", kind: "estimate" },
        { key: "tertile_gap_ba", kind: "num" },
        { key: "mde_rho", kind: "num" },
      ],
      rows,
      notes: [
        describeBootstrap(cfg, "runs (a run's blocks stay together)", methods),
        "Estimand: the coupling over runs like these (runs resampled), not over new blocks of these runs.",
        poolNote(allBlocks.map((b) => b.model)),
        "Block t = exploration episodes (s, t] between adjacent checkpoints s < t of a history or memory run (t-3 with the default schedule), kept when s and t are valid and it has a scored step. rho: Spearman with average ranks (values compared at 12 significant digits), of A (Agree) and of -E (negative NMAE) against g = (y(t) - y(s)) / (max y - min y). Tertile gap: mean g of the top third of blocks minus the bottom third (floor(n/3) blocks each; a group of blocks tied on the key at a third's edge fills the places left with its mean g, so the gap does not depend on the order blocks come in).",
        ...powerNote(learnersAll, blocks.length > 0 && nulls.length > 0),
        `Balanced accuracy as the judgment measure: rho_ba and tertile_gap_ba are rho_agree's and tertile_gap_agree's statistics with a block's balanced accuracy (mean agreement on its r > 0 and its r <= 0 steps: 0.5 for a constant answer) in place of A, a column beside them, over the n_blocks_ba blocks with at least ${MIN_SIDE_STEPS} scored steps on each side of r > 0 (fewer: the block's balanced accuracy is not estimable and it is left out of these two columns only); runs resampled as for rho_agree, and its n counts the runs those blocks come from.`,
        ...smallNNote(rows, [
          { key: "rho_agree", metric: "rho_agree" },
          { key: "rho_neg_err", metric: "rho_agree" },
          { key: "rho_ba", metric: "rho_agree" },
        ]),
        ...sparseScheduleNote(allBlocks),
      ],
    },
    allBlocks.map((b) => b.model),
  );
}

/** What the design can detect (the learners' pooled row), and the all-model row's meaning. */
function powerNote(row: CouplingRow | undefined, allRow: boolean): string[] {
  const lines: string[] = [];
  if (allRow)
    lines.push(
      `Pool '${ALL_MODELS}': every model's blocks pooled, the paper's Table 6 definition, printed only to compare: it mixes the null's judging (high Agree, no gain) into the learners' and is not evidence of coupling either way.`,
    );
  const mde = row?.mde_rho ?? null;
  if (row !== undefined && mde !== null) {
    const indep = independentBlocksMde(row.n_blocks);
    lines.push(
      `Power: mde_rho is the smallest true rho_agree a row's design detects with 80% power at the 5% level (two-sided): (1.960 + 0.842) x its standard error, the standard error read from its 95% interval (runs resampled, so blocks within a run count as one cluster). The learners' pooled row (${row.n_blocks} blocks of ${row.n_runs} runs, the positive control) detects rho >= ${mde.toFixed(3)}${indep === null ? "" : `; were its blocks independent, ${indep.toFixed(3)}`}. A rho near 0 therefore rules out only couplings above that size: it is not evidence of no coupling, and a reported rho ~ 0 (the paper's -0.010) says as much only at a design whose mde_rho is small.`,
    );
  }
  return lines;
}

function withInterval(e: Estimate, iv: Interval | null): Estimate {
  return iv === null || e.point === null ? e : { ...e, ...iv };
}

function cellFlag(e: Estimate, n: number): Estimate {
  return e.point === null || e.lo === null ? e : flagEstimate({ ...e, n }, "pearson_cells");
}

/** A row of run_level.csv: the learners' runs, then the non-learners' (the null) when any. */
export interface RunLevelRow {
  /** `learners` or `null` (learnerPool.ts). */
  pool: Pool;
  pearson_agree_naba: Estimate;
  spearman_agree_naba: Estimate;
  n_runs: number;
  /** (model, game) cells: the resampling unit. */
  n_cells: number;
}

/** Each judged run's (Agree, NABA), runs where either is missing left out. */
export function runAgreeNaba(inputs: JudgingInputs): { run_id: string; model: string; game: string; agree: number; naba: number }[] {
  const out: { run_id: string; model: string; game: string; agree: number; naba: number }[] = [];
  for (const jr of inputs.runs) {
    const agree = judgingStats(jr.total, inputs.ranges.get(jr.run.game) ?? null).agree;
    const nb = naba(runCurve(jr.run));
    if (agree !== null && nb !== null) out.push({ run_id: jr.run.run_id, model: jr.run.model, game: jr.run.game, agree, naba: nb });
  }
  return out;
}

/**
 * Run-level correlation of Agree and NABA over history and memory runs; (model, game) cells
 * resampled, so a cell's paired runs (history and memory, same model, same seeds) stay together.
 */
export function runLevelTable(inputs: JudgingInputs, cfg: BootstrapConfig): Table<RunLevelRow> {
  const all = runAgreeNaba(inputs);
  const learners = all.filter((p) => poolOf(p.model) === "learners");
  const nulls = all.filter((p) => poolOf(p.model) === "null");
  const methods = new MethodTally();
  const rowsOut = [...(learners.length > 0 || nulls.length === 0 ? [runLevelRow(learners, cfg, "learners", methods)] : []), ...(nulls.length > 0 ? [runLevelRow(nulls, cfg, "null", methods)] : [])];
  return withInstrumentNote(
    {
      name: "run_level",
      title: "Run level: a run's Agree against its NABA",
      columns: [
        { key: "pool", kind: "text" },
        { key: "pearson_agree_naba", kind: "estimate" },
        { key: "spearman_agree_naba", kind: "estimate" },
        { key: "n_runs", kind: "int" },
        { key: "n_cells", kind: "int" },
      ],
      rows: rowsOut,
      notes: [
        describeBootstrap(cfg, "(model, game) cells, a cell's history and memory runs together", methods),
        "Estimand: the correlation over (model, game) cells like these (cells resampled).",
        "History and memory runs with both an Agree (a scored exploration step) and a NABA (a valid checkpoint 0).",
        poolNote(inputs.runs.map((r) => r.run.model)),
        ...smallNNote(rowsOut, [
          { key: "pearson_agree_naba", metric: "pearson_cells" },
          { key: "spearman_agree_naba", metric: "pearson_cells" },
        ]),
      ],
    },
    inputs.runs.map((r) => r.run.model),
  );
}

/** One pool's run-level row; the learners' streams keep their names, the null's are its own. */
function runLevelRow(pts: ReturnType<typeof runAgreeNaba>, cfg: BootstrapConfig, pool: Pool, methods: MethodTally): RunLevelRow {
  const level = cfg.level ?? DEFAULT_LEVEL;
  const streamRng = () => (pool === "learners" ? bootstrapRng(cfg.seed, "run_level") : bootstrapRng(cfg.seed, "run_level", "null"));
  const nCells = new Set(pts.map((p) => `${p.model}\u0000${p.game}`)).size;
  const x = pts.map((p) => p.agree);
  const y = pts.map((p) => p.naba);
  const pr = pearson(x, y);
  const sr = spearman(x, y);
  let repP: Float64Array | null = null;
  let repS: Float64Array | null = null;
  let studentP: Interval | null = null;
  let studentS: Interval | null = null;
  if (cfg.B > 0 && pts.length > 0) {
    const rng = streamRng();
    const n = pts.length;
    repP = new Float64Array(cfg.B);
    repS = new Float64Array(cfg.B);
    const rho = new WeightedSpearman(x, y);
    const { clusterOf, k } = clusterIndex(pts.map((p) => `${p.model}\u0000${p.game}`));
    const cellW = new Int32Array(k);
    const w = new Int32Array(n);
    for (let b = 0; b < cfg.B; b++) {
      resampleWeights(rng, k, cellW);
      for (let i = 0; i < n; i++) w[i] = cellW[clusterOf[i] as number] as number;
      repP[b] = pearsonWeighted(x, y, w) ?? Number.NaN;
      repS[b] = rho.rho(w) ?? Number.NaN;
    }
    // The measured default method over cells (contiguous: runs come in (game, model, ...) order).
    const contiguous = Array.from(clusterOf).every((c, i) => i === 0 || c === clusterOf[i - 1] || c === (clusterOf[i - 1] as number) + 1);
    if (methodOf(cfg, "correlation") !== "percentile" && contiguous) {
      const sizes = Array.from({ length: k }, (_, c) => Array.from(clusterOf).filter((v) => v === c).length);
      const d = clusterDesign(sizes);
      const rp = tableInterval(d, (wt) => pearsonWeighted(x, y, wt) ?? Number.NaN, cfg.B, streamRng(), methodOf(cfg, "correlation"), level, CORRELATION_RANGE);
      const rs = tableInterval(d, (wt) => rho.rho(wt) ?? Number.NaN, cfg.B, streamRng(), methodOf(cfg, "correlation"), level, CORRELATION_RANGE);
      if (rp.method !== "percentile" || rp.fellBack === true) studentP = rp.interval;
      if (rs.method !== "percentile" || rs.fellBack === true) studentS = rs.interval;
      if (pr !== null) methods.add(rp.method, rp.fellBack);
      if (sr !== null) methods.add(rs.method, rs.fellBack);
    } else for (const p of [pr, sr]) if (p !== null) methods.add("percentile");
  }
  return {
    pool,
    pearson_agree_naba: cellFlag(withInterval(estimate(pr, repP, level), studentP), nCells),
    spearman_agree_naba: cellFlag(withInterval(estimate(sr, repS, level), studentS), nCells),
    n_runs: pts.length,
    n_cells: nCells,
  };
}
