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
 * paired difference y_A(x) - y_B(x) per evaluation seed; its interval and exact sign-flip p come from
 * the gain's own machinery (gainTables.ts estimateGain). With a rejudge the evidence is held fixed: the
 * interval covers the evaluation seeds given THESE exploration runs, not a new exploration, so every
 * recorded run is kept and only its evaluation seeds are drawn (`runsFixed`), as the sign-flip p
 * flips seeds and never runs; on-policy rows draw runs, then their seeds.
 */
import type { BootstrapConfig, Estimate } from "./bootstrap.js";
import { describeBootstrap } from "./bootstrap.js";
import type { Dataset, RunData } from "./dataset.js";
import { concatGain, gainVsNoneData, type GainData } from "./gain.js";
import { binomialUpperTail, CONTROL_PATHWAY, estimateGain, NULL_ALPHA, NULL_EXPECTED } from "./gainTables.js";
import { cannotLearn, canLearn } from "./learnerPool.js";
import { distinct, compareTextOf } from "./judgeSwapRuns.js";
import { sameSeeds, seedCurve, type SeedCurve } from "./seedCurves.js";
import type { Table } from "./table.js";

export { isJudgeSwapRun, judgeOf, rejudgedFromOf } from "./judgeSwapRuns.js";
import { judgeOf, rejudgedFromOf } from "./judgeSwapRuns.js";

/** The order judges are listed in. */
const JUDGE_ORDER = ["self", "verifier", "shuffled", "none"];
const judgeRank = (j: string): number => (JUDGE_ORDER.indexOf(j) + 1 || JUDGE_ORDER.length + 1);

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
  p_sign_flip: number | null;
  /** Runs (run seeds) the estimate pools. */
  runs: number;
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
  /** Contrast intervals of models that cannot learn, and how many exclude 0. */
  nullIntervals: number;
  nullExcluding: number;
  nullPass: boolean;
  /**
   * Per learner model and pathway: games whose value of judging's interval lies above 0 (`valueAbove`)
   * and, of those, whose sign-flip p is also below 0.05 (`valueAboveBoth`: the two agree); placebo
   * intervals excluding 0 and placebo p-values below 0.05. Both are counted because at a few evaluation
   * seeds a bootstrap interval can exclude 0 where the exact test does not reject.
   */
  learners: { model: string; pathway: string; valueAbove: number; valueAboveBoth: number; valueGames: number; placeboExcluding: number; placeboRejected: number; placeboGames: number }[];
}

const excludes = (e: Estimate): boolean | null => (e.point === null || e.lo === null || e.hi === null ? null : e.lo > 0 || e.hi < 0);

/** What the positive control and the null check read from the table's rows. */
export function judgeSwapCheck(rows: readonly JudgeSwapRow[]): JudgeSwapCheck {
  let nullIntervals = 0;
  let nullExcluding = 0;
  const learners = new Map<string, JudgeSwapCheck["learners"][number]>();
  for (const r of rows) {
    if (r.quantity === "gain_vs_none") continue;
    const x = excludes(r.estimate);
    if (x === null) continue;
    if (cannotLearn(r.model)) {
      nullIntervals++;
      if (x) nullExcluding++;
      continue;
    }
    if (!canLearn(r.model)) continue;
    const key = `${r.model}|${r.pathway}`;
    let l = learners.get(key);
    if (!l) learners.set(key, (l = { model: r.model, pathway: r.pathway, valueAbove: 0, valueAboveBoth: 0, valueGames: 0, placeboExcluding: 0, placeboRejected: 0, placeboGames: 0 }));
    const rejected = r.p_sign_flip !== null && r.p_sign_flip < 0.05;
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
  const p = nullIntervals === 0 ? null : binomialUpperTail(nullExcluding, nullIntervals, NULL_EXPECTED);
  return { nullIntervals, nullExcluding, nullPass: p === null || p >= NULL_ALPHA, learners: [...learners.values()] };
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
      const e = estimateGain(concatGain(parts), cfg, ["judge-swap", ...id, "gain", j], { runsFixed: form === "rejudge" });
      rows.push({ model, game, pathway, form, quantity: "gain_vs_none", judge: j, estimate: e.estimate, p_sign_flip: e.p, runs: parts.length });
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
      const e = estimateGain(concatGain(parts), cfg, ["judge-swap", ...id, quantity, a, b], { runsFixed: form === "rejudge" });
      rows.push({ model, game, pathway, form, quantity, judge: `${a} - ${b}`, estimate: e.estimate, p_sign_flip: e.p, runs: parts.length });
    }
  }
  const check = judgeSwapCheck(rows);
  const notes = [
    describeBootstrap(cfg, "form rejudge: evaluation seeds within each recorded run (the runs kept, as the estimand is given these explorations; n = paired seeds); form on-policy: one run seed, evaluation seeds; several run seeds, the t interval over the runs' gains (the model's runs; p_sign_flip is then that t test's p). Every interval is the inversion of the test whose p sits beside it (one run or form rejudge: the sign-flip test over evaluation seeds), so it excludes 0 exactly when p < 0.05"),
    "gain_vs_none = mean over checkpoints x >= 3 of y_judge(x) - y_none(x), the same model's none run on the same evaluation seeds. Contrasts pair two judges' runs of the same evidence seed by seed: value_of_judging = gain(verifier) - gain(self): what a correct judge (the hidden step reward) adds over the model's own self-scores; placebo = gain(shuffled) - gain(none): what the model's own scores add once permuted within each episode (their link to the step they judged broken), over no scores at all; external = gain(model:J) - gain(self): what another model's judgment adds over the model's own.",
    "Form rejudge: every judge's experience was rebuilt from ONE recorded exploration (s3gym rejudge), so the interval covers the evaluation seeds given this exploration run, not what another exploration run would give; form on-policy: each judge's run explored under it (run --judge), so a contrast also holds the exploration's differences.",
    "shuffled permutes the scores within each episode: it breaks the link of a score to its step, not to its episode (an episode's total is kept), so a model that judges whole episodes by their totals reads the same evidence under shuffled as under self.",
    check.nullIntervals === 0
      ? "Null check: no contrast interval of a model that cannot learn (random, heuristic, perfect-judge, ceiling) to count."
      : `Null check (contrasts of the models that cannot learn): ${check.nullExcluding} of ${check.nullIntervals} intervals exclude 0 (expected about ${Math.round(NULL_EXPECTED * 100)}%): ${check.nullPass ? "passed" : "FAILED"}.`,
    ...check.learners.map((l) => `${l.model} / ${l.pathway}: value of judging above 0 on ${l.valueAbove} of ${l.valueGames} game(s) by its interval, on ${l.valueAboveBoth} by its interval and its sign-flip p < 0.05 together; placebo excluding 0 on ${l.placeboExcluding} of ${l.placeboGames} by its interval, ${l.placeboRejected} by its p < 0.05.`),
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
