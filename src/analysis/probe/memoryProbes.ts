/**
 * The memory probes (docs/memory.md): does the model read its memory? Per model x game x
 * pathway, the gain_vs_none of the intact run and of each probe of it, and each probe's paired
 * contrast with the intact memory on the shared evaluation seeds:
 *
 *   gain_vs_none   (arm: intact, empty, shuffled, transplant:<donor model>)
 *                  mean over x >= 3 of y_arm(x) - y_none(x), the same model's none run on the same seeds
 *   probe_effect   gain(probe) - gain(intact) = mean over x >= 3 of y_probe(x) - y_intact(x)
 *
 * A probe run (`s3gym probe`) names its intact run (`rejudged_from`) and its probe (`probe`). Every
 * arm replays ONE recorded exploration per intact run, so the interval covers the evaluation seeds
 * given these exploration runs (and these donors): the runs are kept and only their seeds drawn
 * (estimateGain's `runsFixed`), as the exact sign-flip p flips seeds, never runs.
 */
import type { BootstrapConfig, Estimate } from "../stats/bootstrap.js";
import { describeBootstrap, gainTallyMethod, MethodTally } from "../stats/bootstrap.js";
import type { RunData } from "../load/dataset.js";
import { concatGain, gainVsNoneData, type GainData } from "../metrics/gain.js";
import { binomialUpperTail, CONTROL_PATHWAY, estimateGain, NULL_ALPHA, NULL_EXPECTED } from "../tables/gainTables.js";
import { judgeOf, rejudgedFromOf } from "../load/judgeSwapRuns.js";
import { cannotLearn, canLearn } from "../tables/learnerPool.js";
import { compareText } from "../load/dataset.js";
import { sameSeeds, seedCurve, type SeedCurve } from "../stats/seedCurves.js";
import type { Table } from "../tables/table.js";

/** A run's probe, as its manifest records it (null: not a probe run). */
export interface ProbeOfRun {
  kind: string;
  donorModel: string | null;
}

/** The probe a run's manifest records, or null. */
export function probeOf(run: RunData): ProbeOfRun | null {
  const p = (run.manifest as { probe?: { kind?: unknown; donor?: { model?: unknown } } } | null)?.probe;
  if (!p || typeof p.kind !== "string") return null;
  return { kind: p.kind, donorModel: typeof p.donor?.model === "string" ? p.donor.model : null };
}

/** Whether the run is a memory probe (its table alone reads it). */
export function isProbeRun(run: RunData): boolean {
  return probeOf(run) !== null;
}

/** The arm a probe run stands for: `empty`, `shuffled`, `transplant:<donor model>`. */
function armOf(p: ProbeOfRun): string {
  return p.kind === "transplant" ? `transplant:${p.donorModel ?? "?"}` : p.kind;
}

const ARM_ORDER = ["intact", "empty", "shuffled"];
const armRank = (a: string): number => ARM_ORDER.indexOf(a) + 1 || ARM_ORDER.length + 1;

export interface MemoryProbeRow {
  model: string;
  game: string;
  pathway: string;
  /** `gain_vs_none` or `probe_effect`. */
  quantity: string;
  /** `intact`, `empty`, `shuffled`, `transplant:<donor model>`; a contrast: `<probe> - intact`. */
  arm: string;
  estimate: Estimate;
  p_sign_flip: number | null;
  /** Intact runs (run seeds) the estimate pools. */
  runs: number;
}

/** One intact run and its probes by arm. */
interface ProbeSet {
  intact: RunData;
  arms: Map<string, RunData>;
}

const runSeedOf = (r: RunData): number => r.manifest?.run_seed ?? 0;

function probeSets(runs: readonly RunData[]): ProbeSet[] {
  const byId = new Map(runs.map((r) => [r.run_id, r]));
  const sets = new Map<string, ProbeSet>();
  for (const r of runs) {
    const p = probeOf(r);
    const from = rejudgedFromOf(r);
    if (p === null || from === null) continue;
    const intact = byId.get(from);
    if (!intact) continue;
    let s = sets.get(from);
    if (!s) sets.set(from, (s = { intact, arms: new Map() }));
    s.arms.set(armOf(p), r);
  }
  return [...sets.values()];
}

/** The none run on the same evaluation seeds as `sc` (same model and game, self-judged, not a replay). */
function controlOf(runs: readonly RunData[], intact: RunData, sc: SeedCurve): SeedCurve | null {
  for (const r of runs) {
    if (r.pathway !== CONTROL_PATHWAY || r.model !== intact.model || r.game !== intact.game || judgeOf(r) !== "self" || rejudgedFromOf(r) !== null) continue;
    const c = seedCurve(r);
    if (sameSeeds(c, sc)) return c;
  }
  return null;
}

/** Whether an interval is the single point 0 (a policy that plays the same whatever it reads: nothing to count). */
const degenerateZero = (e: Estimate): boolean => e.point === 0 && e.lo === 0 && e.hi === 0;
const hasInterval = (e: Estimate): boolean => e.point !== null && e.lo !== null && e.hi !== null;
const excludes0 = (e: Estimate): boolean => hasInterval(e) && ((e.lo as number) > 0 || (e.hi as number) < 0);

export interface MemoryProbeCheck {
  /** Probe-effect intervals of the models that cannot learn (degenerate [0, 0] ones left out), and how many exclude 0. */
  nullIntervals: number;
  nullExcluding: number;
  /** Degenerate [0, 0] intervals of those models, not counted. */
  nullDegenerate: number;
  nullPass: boolean;
  /**
   * Per learner and pathway: games whose intact gain excludes 0, whose empty probe's gain_vs_none
   * covers 0 (empty matches none), and whose empty probe's effect excludes 0.
   */
  learners: { model: string; pathway: string; games: number; intactExcludes: number; emptyGames: number; emptyCovers: number; emptyEffectExcludes: number }[];
}

/** What the positive control and the null check read from the table's rows. */
export function memoryProbeCheck(rows: readonly MemoryProbeRow[]): MemoryProbeCheck {
  let nullIntervals = 0;
  let nullExcluding = 0;
  let nullDegenerate = 0;
  const learners = new Map<string, MemoryProbeCheck["learners"][number]>();
  for (const r of rows) {
    if (cannotLearn(r.model)) {
      if (r.quantity !== "probe_effect" || !hasInterval(r.estimate)) continue;
      if (degenerateZero(r.estimate)) {
        nullDegenerate++;
        continue;
      }
      nullIntervals++;
      if (excludes0(r.estimate)) nullExcluding++;
      continue;
    }
    if (!canLearn(r.model) || !hasInterval(r.estimate)) continue;
    const key = `${r.model}\u0000${r.pathway}`;
    let l = learners.get(key);
    if (!l) learners.set(key, (l = { model: r.model, pathway: r.pathway, games: 0, intactExcludes: 0, emptyGames: 0, emptyCovers: 0, emptyEffectExcludes: 0 }));
    if (r.quantity === "gain_vs_none" && r.arm === "intact") {
      l.games++;
      if (excludes0(r.estimate)) l.intactExcludes++;
    } else if (r.quantity === "gain_vs_none" && r.arm === "empty") {
      l.emptyGames++;
      if (!excludes0(r.estimate)) l.emptyCovers++;
    } else if (r.quantity === "probe_effect" && r.arm === "empty - intact" && excludes0(r.estimate)) {
      l.emptyEffectExcludes++;
    }
  }
  const p = nullIntervals === 0 ? null : binomialUpperTail(nullExcluding, nullIntervals, NULL_EXPECTED);
  return { nullIntervals, nullExcluding, nullDegenerate, nullPass: p === null || p >= NULL_ALPHA, learners: [...learners.values()] };
}

/** The memory_probes table over the runs (probe runs, their intact runs and the none runs they pair with). */
export function memoryProbesTable(runs: readonly RunData[], cfg: BootstrapConfig): Table<MemoryProbeRow> {
  const sets = probeSets(runs);
  const groups = new Map<string, ProbeSet[]>();
  for (const s of sets) {
    const key = [s.intact.model, s.intact.game, s.intact.pathway].join("\u0000");
    groups.set(key, [...(groups.get(key) ?? []), s]);
  }
  const rows: MemoryProbeRow[] = [];
  // The methods its intervals used: each gain inverts the test whose p it prints.
  const methods = new MethodTally();
  for (const key of [...groups.keys()].sort(compareText)) {
    const g = groups.get(key)!.sort((a, b) => runSeedOf(a.intact) - runSeedOf(b.intact));
    const { model, game, pathway } = g[0]!.intact;
    const probes = [...new Set(g.flatMap((s) => [...s.arms.keys()]))].sort((a, b) => armRank(a) - armRank(b) || compareText(a, b));
    const id = [model, game, pathway];
    for (const arm of ["intact", ...probes]) {
      const parts: GainData[] = [];
      for (const s of g) {
        const run = arm === "intact" ? s.intact : s.arms.get(arm);
        if (!run) continue;
        const sc = seedCurve(run);
        const control = controlOf(runs, s.intact, sc);
        const d = control ? gainVsNoneData(sc, control) : null;
        if (d) parts.push(d);
      }
      const e = estimateGain(concatGain(parts), cfg, ["memory-probes", ...id, "gain", arm], { runsFixed: true });
      if (e.estimate.point !== null && e.estimate.lo !== null && e.estimate.hi !== null) methods.add(gainTallyMethod(e.test));
      rows.push({ model, game, pathway, quantity: "gain_vs_none", arm, estimate: e.estimate, p_sign_flip: e.p, runs: parts.length });
    }
    for (const arm of probes) {
      const parts: GainData[] = [];
      for (const s of g) {
        const run = s.arms.get(arm);
        const d = run ? gainVsNoneData(seedCurve(run), seedCurve(s.intact)) : null;
        if (d) parts.push(d);
      }
      const e = estimateGain(concatGain(parts), cfg, ["memory-probes", ...id, "effect", arm], { runsFixed: true });
      if (e.estimate.point !== null && e.estimate.lo !== null && e.estimate.hi !== null) methods.add(gainTallyMethod(e.test));
      rows.push({ model, game, pathway, quantity: "probe_effect", arm: `${arm} - intact`, estimate: e.estimate, p_sign_flip: e.p, runs: parts.length });
    }
  }
  const check = memoryProbeCheck(rows);
  const notes = [
    describeBootstrap(
      cfg,
      "evaluation seeds within each intact run (the runs and donors kept, as every arm replays the same recorded exploration; n = paired seeds); each interval inverts the exact sign-flip test whose p sits beside it",
      methods,
    ),
    "gain_vs_none = mean over checkpoints x >= 3 of y_arm(x) - y_none(x), the same model's none run on the same evaluation seeds; arm intact is the recorded run, each other arm a probe of it (s3gym probe): its exploration replayed, its evaluation episodes played on the same seeds with the same model, its checkpoints reading no experience (empty), the same model's experience from another run seed (shuffled: the same kind of memory about other boards) or another model's (transplant:<donor model>: the same game and checkpoint, in another model's words).",
    "probe_effect = gain(probe) - gain(intact), paired seed by seed. What each tells: empty near 0 (and empty's gain_vs_none near 0) = the gain comes from the memory, and without it the model plays as with no pathway; empty - intact near 0 where intact's gain is not = the model does not use its memory (its gain comes from elsewhere); shuffled - intact below 0 = the memory's content about these boards matters, near 0 = any memory of the game does as well; a transplant that helps (transplant - intact above 0, or its gain above 0) = the memory's content, not the model's own wording, carries the gain.",
    "Estimand: the interval covers the evaluation seeds given THESE exploration runs and donors, not what another exploration run or another donor would give (every arm replays one recorded exploration).",
    check.nullIntervals + check.nullDegenerate === 0
      ? "Null check: no probe-effect interval of a model that cannot learn (random, heuristic, perfect-judge, ceiling) to count."
      : `Null check (probe effects of the models that cannot learn): ${check.nullExcluding} of ${check.nullIntervals} intervals exclude 0 (expected about ${Math.round(NULL_EXPECTED * 100)}%): ${check.nullPass ? "passed" : "FAILED"}; ${check.nullDegenerate} interval(s) are exactly [0, 0] (a policy that plays the same whatever it reads, with the same draws) and are not counted.`,
    ...check.learners.map(
      (l) =>
        `${l.model} / ${l.pathway}: intact gain excludes 0 on ${l.intactExcludes} of ${l.games} game(s); the empty probe's gain_vs_none covers 0 (it plays as with no pathway) on ${l.emptyCovers} of ${l.emptyGames}; empty - intact excludes 0 on ${l.emptyEffectExcludes}.`,
    ),
  ];
  return {
    name: "memory_probes",
    title: "Memory probes: the intact memory, emptied, shuffled, transplanted",
    columns: [
      { key: "model", kind: "text" },
      { key: "game", kind: "text" },
      { key: "pathway", kind: "text" },
      { key: "quantity", kind: "text" },
      { key: "arm", kind: "text" },
      { key: "estimate", kind: "estimate" },
      { key: "p_sign_flip", kind: "p" },
      { key: "runs", kind: "int" },
    ],
    rows,
    notes,
  };
}
