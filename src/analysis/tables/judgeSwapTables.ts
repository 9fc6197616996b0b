/**
 * The judge swap (docs/judging.md): per model x game x pathway, gain_vs_none under each judge the
 * data holds (`self`, `verifier`, `shuffled`, `none`, `model:<spec>`), and the paired contrasts on
 * the shared evaluation seeds:
 *
 *   value_of_judging = gain(verifier) - gain(self)      what a correct judge adds over the model's own
 *   placebo          = gain(shuffled) - gain(none)      what scores with their step link broken add over no scores
 *   external         = gain(model:J)  - gain(self)      what another model's judgment adds over the model's own
 *
 * Each judge's runs are paired with the `self` run of the same evidence: for a rejudged run
 * (`s3gym rejudge`) the recorded run it was rebuilt from; for a run that explored under its judge
 * (`run --judge X`, form `on-policy`) the same model, game, pathway and run seed under `self`. All
 * gains are against the same none run, so a contrast is the mean over checkpoints x >= 3 of the
 * paired difference y_A(x) - y_B(x) per evaluation seed; its interval and p come from the gain's own
 * machinery (gainTables.ts estimateGain), in both forms the same way: one run, the exact sign-flip
 * test over its evaluation seeds; two or more, the t interval over the runs' own gains. The estimand
 * is the model's expected contrast over exploration runs (and, for `shuffled`, over permutations):
 * a rejudge holds the evidence fixed between the arms of ONE run, but each recorded run brings its own
 * exploration and its own permutation, and which tactic, answer or summary they lead to differs from
 * run to run by far more than the evaluation seeds within a run show (docs/judging.md, "Which
 * estimand"), so the runs are the units that are resampled.
 */
import type { BootstrapConfig, Estimate } from "../stats/bootstrap.js";
import { describeBootstrap, gainTallyMethod, MethodTally } from "../stats/bootstrap.js";
import type { Dataset, RunData } from "../load/dataset.js";
import { concatGain, gainVsNoneData, type GainData } from "../metrics/gain.js";
import { binomialUpperTail, CONTROL_PATHWAY, estimateGain, NULL_ALPHA, NULL_EXPECTED, NULL_MIN_INTERVALS, type GainTest } from "./gainTables.js";
import { cannotLearn, canLearn } from "./learnerPool.js";
import { distinct, compareTextOf } from "../load/judgeSwapRuns.js";
import { sameSeeds, seedCurve, type SeedCurve } from "../stats/seedCurves.js";
import type { Table } from "./table.js";

export { isJudgeSwapRun, judgeOf, rejudgedFromOf } from "../load/judgeSwapRuns.js";
import { judgeOf, rejudgedFromOf } from "../load/judgeSwapRuns.js";

/** The order judges are listed in. */
const JUDGE_ORDER = ["self", "verifier", "shuffled", "none"];
const judgeRank = (j: string): number => JUDGE_ORDER.indexOf(j) + 1 || JUDGE_ORDER.length + 1;

export interface JudgeSwapRow {
  model: string;
  game: string;
  pathway: string;
  /** `rejudge` (the evidence held fixed) or `on-policy` (each judge explored on its own). */
  form: string;
  /** `gain_vs_none`, `value_of_judging`, `placebo` or `external`. */
  quantity: string;
  /** The judge of a gain; `A - B` for a contrast. */
  judge: string;
  estimate: Estimate;
  /** The p of the test the interval inverts: the sign-flip test's at one run, the t test's over two or more. */
  p_sign_flip: number | null;
  /** Runs (run seeds) the estimate pools. */
  runs: number;
  /** The test behind the interval and p (not a column: `runs` says it, 1 = sign-flip, 2+ = t over runs). */
  test?: GainTest;
}

/** One set of evidence: the `self` run and, per judge, the run judged otherwise (rejudged or explored). */
interface EvidenceSet {
  model: string;
  game: string;
  pathway: string;
  form: "rejudge" | "on-policy";
  runSeed: number;
  arms: Map<string, RunData>;
}

const runSeedOf = (r: RunData): number => r.manifest?.run_seed ?? 0;

/** The evidence sets of a data set: one per recorded run that was rejudged, one per (model, game, pathway, run seed) explored under several judges. */
function evidenceSets(runs: readonly RunData[]): EvidenceSet[] {
  const byId = new Map(runs.map((r) => [r.run_id, r]));
  const sets = new Map<string, EvidenceSet>();
  const setOf = (key: string, base: RunData, form: EvidenceSet["form"]): EvidenceSet => {
    let s = sets.get(key);
    if (!s) sets.set(key, (s = { model: base.model, game: base.game, pathway: base.pathway, form, runSeed: runSeedOf(base), arms: new Map() }));
    return s;
  };
  const explored = runs.filter((r) => rejudgedFromOf(r) === null && r.pathway !== CONTROL_PATHWAY);
  for (const r of runs) {
    const from = rejudgedFromOf(r);
    if (from !== null) {
      const source = byId.get(from);
      if (!source) continue;
      const s = setOf(`rejudge\u0000${from}`, source, "rejudge");
      s.arms.set("self", source);
      // A rejudge under `self` replays the source's own evidence: the source stands for it.
      if (judgeOf(r) !== "self") s.arms.set(judgeOf(r), r);
    }
  }
  for (const r of explored) {
    if (judgeOf(r) === "self") continue;
    const self = explored.find((b) => judgeOf(b) === "self" && b.model === r.model && b.game === r.game && b.pathway === r.pathway && runSeedOf(b) === runSeedOf(r));
    if (!self) continue;
    const s = setOf(`on-policy\u0000${self.run_id}`, self, "on-policy");
    s.arms.set("self", self);
    s.arms.set(judgeOf(r), r);
  }
  return [...sets.values()];
}

/** The none run on the same evaluation seeds as `sc` (same model, game, run seed, judge self). */
function controlOf(runs: readonly RunData[], set: EvidenceSet, sc: SeedCurve): SeedCurve | null {
  for (const r of runs) {
    if (r.pathway !== CONTROL_PATHWAY || r.model !== set.model || r.game !== set.game || judgeOf(r) !== "self" || rejudgedFromOf(r) !== null) continue;
    const c = seedCurve(r);
    if (sameSeeds(c, sc)) return c;
  }
  return null;
}

/** The contrasts, each `[quantity, A, B]`: gain(A) - gain(B). */
function contrastsOf(judges: readonly string[]): [string, string, string][] {
  const out: [string, string, string][] = [];
  if (judges.includes("verifier") && judges.includes("self")) out.push(["value_of_judging", "verifier", "self"]);
  if (judges.includes("shuffled") && judges.includes("none")) out.push(["placebo", "shuffled", "none"]);
  for (const j of judges) if (j.startsWith("model:") && judges.includes("self")) out.push(["external", j, "self"]);
  return out;
}

export interface JudgeSwapCheck {
  /**
   * The null check over the contrasts of models that cannot learn (their experience never changes
   * their play, so every contrast's truth is 0). Counted: the contrasts that can come out otherwise,
   * those of a stochastic null (e.g. `builtin:random?noise=independent`, whose draws differ between
   * the runs a contrast pairs). A deterministic null plays every evaluation seed alike under every
   * judge, so its contrasts are exactly 0 with the interval [0, 0] and p = 1: a check that cannot
   * fail; they are counted apart (`nullDegenerate`) and never in the check.
   */
  nullIntervals: number;
  /** Of those, intervals that exclude 0. */
  nullExcluding: number;
  /**
   * Of those, p-values below 0.05, over the contrasts whose p can go below 0.05 at all
   * (`nullTested`: a t test over two or more runs; a one-run sign-flip test on n >= P_TESTABLE_SEEDS
   * paired seeds, as the exact two-sided test on n seeds cannot give less than 2 / 2^n, 0.0625 at 5):
   * a sign-flip contrast on 4 seeds can never count, so counting it would be a check that cannot fail.
   */
  nullRejected: number;
  /** The null contrasts whose p can fall below 0.05. */
  nullTested: number;
  /** Null contrasts that are exactly 0 by construction (a deterministic null): not counted. */
  nullDegenerate: number;
  /** P(X >= count) for X ~ Binomial(n, 0.05): for the intervals and for the p-values (null without contrasts). */
  nullIntervalTail: number | null;
  nullRejectedTail: number | null;
  /**
   * False when either count lies above its binomial band (its upper tail below NULL_ALPHA: the
   * contrasts call noise an effect more often than 95% intervals and 5% tests may), however few the
   * contrasts; null when it did not fail but rests on fewer than NULL_MIN_INTERVALS contrasts (so
   * few cannot show a pass); else true.
   */
  nullPass: boolean | null;
  /**
   * Per learner model and pathway: games whose value of judging's interval lies above 0 (`valueAbove`)
   * and, of those, whose sign-flip p is also below 0.05 (`valueAboveBoth`: the two agree); placebo
   * intervals excluding 0 and placebo p-values below 0.05. Both are counted because at a few evaluation
   * seeds a bootstrap interval can exclude 0 where the exact test does not reject.
   */
  learners: { model: string; pathway: string; valueAbove: number; valueAboveBoth: number; valueGames: number; placeboExcluding: number; placeboRejected: number; placeboGames: number }[];
}

/** The fewest paired seeds on which the exact two-sided sign-flip p can fall below 0.05 (2 / 2^6 = 0.031). */
export const P_TESTABLE_SEEDS = 6;

/**
 * Whether a row's p can fall below 0.05 at all: a t test over two or more runs can (its p is
 * continuous); the sign-flip test over one run's seeds only from P_TESTABLE_SEEDS paired seeds on.
 */
const pTestable = (r: JudgeSwapRow): boolean => (r.test === "t over runs" ? r.runs >= 2 : (r.estimate.n ?? 0) >= P_TESTABLE_SEEDS);

const excludes = (e: Estimate): boolean | null => (e.point === null || e.lo === null || e.hi === null ? null : e.lo > 0 || e.hi < 0);

/** A contrast that is exactly 0 with no spread (every paired difference 0): what a deterministic null gives by construction. */
const degenerate = (r: JudgeSwapRow): boolean => r.estimate.point === 0 && r.estimate.lo === 0 && r.estimate.hi === 0 && (r.p_sign_flip === null || r.p_sign_flip === 1);

/** What the positive control and the null check read from the table's rows. */
export function judgeSwapCheck(rows: readonly JudgeSwapRow[]): JudgeSwapCheck {
  let nullIntervals = 0;
  let nullExcluding = 0;
  let nullRejected = 0;
  let nullTested = 0;
  let nullDegenerate = 0;
  const learners = new Map<string, JudgeSwapCheck["learners"][number]>();
  for (const r of rows) {
    if (r.quantity === "gain_vs_none") continue;
    const x = excludes(r.estimate);
    if (x === null) continue;
    const rejected = r.p_sign_flip !== null && r.p_sign_flip < 0.05;
    if (cannotLearn(r.model)) {
      if (degenerate(r)) {
        nullDegenerate++;
        continue;
      }
      nullIntervals++;
      if (x) nullExcluding++;
      if (r.p_sign_flip !== null && pTestable(r)) {
        nullTested++;
        if (rejected) nullRejected++;
      }
      continue;
    }
    if (!canLearn(r.model)) continue;
    const key = `${r.model}|${r.pathway}`;
    let l = learners.get(key);
    if (!l) learners.set(key, (l = { model: r.model, pathway: r.pathway, valueAbove: 0, valueAboveBoth: 0, valueGames: 0, placeboExcluding: 0, placeboRejected: 0, placeboGames: 0 }));
    if (r.quantity === "value_of_judging") {
      l.valueGames++;
      if ((r.estimate.lo ?? 0) > 0) l.valueAbove++;
      if ((r.estimate.lo ?? 0) > 0 && rejected) l.valueAboveBoth++;
    } else if (r.quantity === "placebo") {
      l.placeboGames++;
      if (x) l.placeboExcluding++;
      if (rejected) l.placeboRejected++;
    }
  }
  const nullIntervalTail = nullIntervals === 0 ? null : binomialUpperTail(nullExcluding, nullIntervals, NULL_EXPECTED);
  const nullRejectedTail = nullTested === 0 ? null : binomialUpperTail(nullRejected, nullTested, NULL_EXPECTED);
  const failed = (nullIntervalTail !== null && nullIntervalTail < NULL_ALPHA) || (nullRejectedTail !== null && nullRejectedTail < NULL_ALPHA);
  const nullPass = failed ? false : nullIntervals >= NULL_MIN_INTERVALS ? true : null;
  return { nullIntervals, nullExcluding, nullRejected, nullTested, nullDegenerate, nullIntervalTail, nullRejectedTail, nullPass, learners: [...learners.values()] };
}

/** The largest count of `n` that a binomial(n, 0.05) reaches with upper tail >= NULL_ALPHA: the top of the band a count may reach. */
export function nullBandTop(n: number): number {
  let k = 0;
  while (k < n && binomialUpperTail(k + 1, n, NULL_EXPECTED) >= NULL_ALPHA) k++;
  return k;
}

/** The null check's note under the table. */
export function nullCheckNote(c: JudgeSwapCheck): string {
  const apart = c.nullDegenerate > 0 ? ` (${c.nullDegenerate} contrast(s) exactly 0 on every seed, as a deterministic null's are by construction, are not counted: they cannot fail)` : "";
  if (c.nullIntervals === 0) {
    return `Null check: no contrast of a stochastic model that cannot learn (e.g. builtin:random?noise=independent) to count${apart}; a deterministic null's contrasts are exactly 0 and cannot test the intervals.`;
  }
  const untested = c.nullIntervals - c.nullTested;
  const pPart =
    c.nullTested === 0
      ? `no sign-flip p counted (every contrast rests on fewer than ${P_TESTABLE_SEEDS} paired seeds, where p cannot fall below 0.05)`
      : `${c.nullRejected} of ${c.nullTested} p < 0.05 (band: at most ${nullBandTop(c.nullTested)}, binomial p = ${(c.nullRejectedTail as number).toPrecision(2)}${untested > 0 ? `; ${untested} on fewer than ${P_TESTABLE_SEEDS} paired seeds, where p cannot fall below 0.05, not counted` : ""})`;
  const head = `${c.nullExcluding} of ${c.nullIntervals} intervals exclude 0 (band: at most ${nullBandTop(c.nullIntervals)}, binomial p = ${(c.nullIntervalTail as number).toPrecision(2)}) and ${pPart}, expected about ${Math.round(NULL_EXPECTED * 100)}% each${apart}`;
  if (c.nullPass === null) return `Null check not testable (contrasts of the stochastic models that cannot learn): ${head}; fewer than ${NULL_MIN_INTERVALS} contrasts cannot show a pass.`;
  return c.nullPass
    ? `Null check passed (contrasts of the stochastic models that cannot learn): ${head}.`
    : `NULL CHECK FAILED (contrasts of the stochastic models that cannot learn): ${head}: the judge swap calls noise an effect more often than 95% intervals and 5% tests may.`;
}

/** The judge_swap table over a data set (its judged runs and the `self` and none runs they pair with). */
export function judgeSwapTable(ds: Dataset, cfg: BootstrapConfig): Table<JudgeSwapRow> {
  const runs = ds.runs;
  const sets = evidenceSets(runs);
  const groups = new Map<string, EvidenceSet[]>();
  for (const s of sets) {
    const key = [s.model, s.game, s.pathway, s.form].join("\u0000");
    groups.set(key, [...(groups.get(key) ?? []), s]);
  }
  const rows: JudgeSwapRow[] = [];
  // The methods its intervals used: each gain inverts the test whose p it prints.
  const methods = new MethodTally();
  const keys = [...groups.keys()].sort(compareTextOf);
  for (const key of keys) {
    const g = groups.get(key)!.sort((a, b) => a.runSeed - b.runSeed);
    const { model, game, pathway, form } = g[0]!;
    const judges = distinct(g.flatMap((s) => [...s.arms.keys()])).sort((a, b) => judgeRank(a) - judgeRank(b) || (a < b ? -1 : a > b ? 1 : 0));
    const id = [model, game, pathway, form];
    for (const j of judges) {
      const parts: GainData[] = [];
      for (const s of g) {
        const run = s.arms.get(j);
        if (!run) continue;
        const sc = seedCurve(run);
        const control = controlOf(runs, s, sc);
        const d = control ? gainVsNoneData(sc, control) : null;
        if (d) parts.push(d);
      }
      const e = estimateGain(concatGain(parts), cfg, ["judge-swap", ...id, "gain", j]);
      if (e.estimate.point !== null && e.estimate.lo !== null && e.estimate.hi !== null) methods.add(gainTallyMethod(e.test));
      rows.push({ model, game, pathway, form, quantity: "gain_vs_none", judge: j, estimate: e.estimate, p_sign_flip: e.p, runs: parts.length, ...(e.test ? { test: e.test } : {}) });
    }
    for (const [quantity, a, b] of contrastsOf(judges)) {
      const parts: GainData[] = [];
      for (const s of g) {
        const ra = s.arms.get(a);
        const rb = s.arms.get(b);
        if (!ra || !rb) continue;
        const d = gainVsNoneData(seedCurve(ra), seedCurve(rb));
        if (d) parts.push(d);
      }
      const e = estimateGain(concatGain(parts), cfg, ["judge-swap", ...id, quantity, a, b]);
      if (e.estimate.point !== null && e.estimate.lo !== null && e.estimate.hi !== null) methods.add(gainTallyMethod(e.test));
      rows.push({ model, game, pathway, form, quantity, judge: `${a} - ${b}`, estimate: e.estimate, p_sign_flip: e.p, runs: parts.length, ...(e.test ? { test: e.test } : {}) });
    }
  }
  const check = judgeSwapCheck(rows);
  const notes = [
    describeBootstrap(
      cfg,
      "both forms alike: one run (runs = 1), the evaluation seeds (n = paired seeds; the exact sign-flip test); two or more runs, the runs: the t interval over the runs' own gains (n = runs; p_sign_flip is then that t test's p). Every interval is the inversion of the test whose p sits beside it, so it excludes 0 exactly when p < 0.05",
      methods,
    ),
    "gain_vs_none = mean over checkpoints x >= 3 of y_judge(x) - y_none(x), the same model's none run on the same evaluation seeds. Contrasts pair two judges' runs of the same evidence seed by seed: value_of_judging = gain(verifier) - gain(self): what a correct judge (the hidden step reward) adds over the model's own self-scores; placebo = gain(shuffled) - gain(none): what the model's own scores add once the recorded run's exploration episodes swap their self-scores (each episode carries another episode's, by a recorded permutation: their link to the episode they judged broken), over no scores at all; external = gain(model:J) - gain(self): what another model's judgment adds over the model's own.",
    "Estimand: the model's expected gain or contrast over exploration runs (and, for shuffled, over permutations), not one run's. Form rejudge: within a recorded run every judge's experience was rebuilt from the same exploration (s3gym rejudge), so a run's contrast holds nothing but the judge; across runs the exploration, and the shuffled arm's permutation, are drawn anew, and that draw (which tactic, answer or summary the judged experience leads to) moves a contrast far more than the evaluation seeds within a run do, so with two or more runs the runs are resampled. A row with runs = 1 covers that one run's expected result over new evaluation seeds only. Form on-policy: each judge's run explored under it (run --judge), so a contrast also holds the exploration's differences.",
    "shuffled permutes whole exploration episodes of the recorded run: each episode carries another episode's self-scores (a within-episode shuffle keeps every episode's total, so a model that judges whole episodes by their totals would read its own judgment again; permuting single steps across the run makes a total track the episode's length). The permutation is one draw per recorded run (from the run's seed and id), so its variance enters through the runs: the t interval over runs carries it, a one-run row's sign-flip interval does not (docs/judging.md).",
    nullCheckNote(check),
    ...check.learners.map(
      (l) =>
        `${l.model} / ${l.pathway}: value of judging above 0 on ${l.valueAbove} of ${l.valueGames} game(s) by its interval, on ${l.valueAboveBoth} by its interval and its p < 0.05 together; placebo excluding 0 on ${l.placeboExcluding} of ${l.placeboGames} by its interval, ${l.placeboRejected} by its p < 0.05.`,
    ),
  ];
  return {
    name: "judge_swap",
    title: "Judge swap: the same evidence, another judge",
    columns: [
      { key: "model", kind: "text" },
      { key: "game", kind: "text" },
      { key: "pathway", kind: "text" },
      { key: "form", kind: "text" },
      { key: "quantity", kind: "text" },
      { key: "judge", kind: "text" },
      { key: "estimate", kind: "estimate" },
      { key: "p_sign_flip", kind: "p" },
      { key: "runs", kind: "int" },
    ],
    rows,
    notes,
  };
}
