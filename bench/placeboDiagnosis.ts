/**
 * The judge swap's placebo, per recorded run (docs/judging.md, "The placebo, diagnosed"): is a
 * placebo away from 0 a systematic difference between how a model plays with permuted scores and
 * with none, or the one permutation drawn per run?
 *
 *   npx tsx bench/placeboDiagnosis.ts [--data DIR] [--model SPEC] [--permutations N]
 *
 * DIR is a judge dial's directory (default data/dial, what `npm run reproduce` writes), SPEC the
 * rejudged model (default builtin:learner?judge=0, the positive control). For every recorded history
 * and memory run of SPEC rejudged under `shuffled`, `none` and `verifier`, it prints:
 * - the run's placebo (shuffled - none) and value of judging (verifier - self): per evaluation seed
 *   the mean over checkpoints x >= 3 of the paired difference, then the mean over the run's seeds;
 * - the placebo expected over permutations GIVEN the run, for a reader that plays the tactic with the
 *   best mean episode total (builtin:learner's evaluation rule) under `shuffled` and draws uniformly
 *   among the tactics shown under `none`: N permutations (default 4000, a generator keyed by the run
 *   id) of the run's exploration-episode totals over its episodes, at each checkpoint the share of
 *   permutations in which each tried tactic tops the means, weighed by the tactic's value (the mean
 *   score of every evaluation episode of SPEC on that game that played it, over all the directory's
 *   runs of SPEC);
 * - at the last checkpoint, each tried tactic's episode count and that share.
 * A placebo that flips sign from run to run while its expectation given each run stays near 0 is the
 * permutation's draw (an interval must resample runs); one that keeps its sign with the expectation
 * beside it is the reader's rule.
 */
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { declaredTactic } from "../src/agent/trajectoryText.js";
import { readRunRecords, type RunRecords } from "../src/logs/reader.js";
import { Rng } from "../src/util/rng.js";

function flag(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] !== undefined ? process.argv[i + 1]! : fallback;
}
const DIR = flag("data", "data/dial");
const MODEL = flag("model", "builtin:learner?judge=0");
const PERMUTATIONS = Number(flag("permutations", "4000"));
const FROM_X = 3;

const mean = (xs: readonly number[]): number => xs.reduce((a, b) => a + b, 0) / xs.length;
const fmt = (x: number): string => (Math.abs(x) >= 1 ? x.toFixed(2) : x.toFixed(3));

/** Per checkpoint x >= FROM_X, the evaluation scores in episode order. */
function curve(r: RunRecords): Map<number, number[]> {
  const out = new Map<number, number[]>();
  for (const c of r.checkpoints) if (c.checkpoint >= FROM_X) out.set(c.checkpoint, c.scores);
  return out;
}

/** Mean over the run's evaluation seeds of the mean over shared checkpoints of a - b. */
function contrast(a: RunRecords, b: RunRecords): number {
  const ca = curve(a);
  const cb = curve(b);
  const xs = [...ca.keys()].filter((x) => cb.has(x));
  const K = ca.get(xs[0]!)!.length;
  return mean(Array.from({ length: K }, (_, k) => mean(xs.map((x) => ca.get(x)![k]! - cb.get(x)![k]!))));
}

/** The exploration episodes of a recorded run in order: declared tactic and self-score total. */
function explorationEpisodes(r: RunRecords): { tactic: string; total: number }[] {
  const by = new Map<number, { tactic: string | null; total: number }>();
  for (const s of r.steps) {
    if (s.phase !== "explore") continue;
    const e = by.get(s.episode) ?? { tactic: null, total: 0 };
    if (s.step === 0) e.tactic = declaredTactic(s.response ?? "");
    e.total += s.self_score ?? 0;
    by.set(s.episode, e);
  }
  return [...by.entries()].sort((a, b) => a[0] - b[0]).map(([, e]) => ({ tactic: e.tactic ?? "(none)", total: e.total }));
}

/** Each evaluation episode's tactic and score, for the tactics' values. */
function evaluationPlays(r: RunRecords): { tactic: string; score: number }[] {
  const tactic = new Map<string, string>();
  for (const s of r.steps) if (s.phase === "eval" && s.step === 0) tactic.set(`${s.checkpoint}|${s.episode}`, declaredTactic(s.response ?? "") ?? "(none)");
  return r.episodes.filter((e) => e.phase === "eval").map((e) => ({ tactic: tactic.get(`${e.checkpoint}|${e.episode}`) ?? "(none)", score: e.score }));
}

async function main(): Promise<void> {
  const runs = new Map<string, RunRecords>();
  for (const id of readdirSync(join(DIR, "runs")).sort()) {
    const r = await readRunRecords(join(DIR, "runs", id));
    if (r.manifest?.model === MODEL) runs.set(id, r);
  }
  if (runs.size === 0) throw new Error(`no run of ${MODEL} under ${DIR}/runs (--data names a judge dial's directory, --model the rejudged model)`);
  const values = new Map<string, Map<string, number[]>>();
  for (const r of runs.values()) {
    const g = values.get(r.manifest!.game) ?? new Map<string, number[]>();
    for (const p of evaluationPlays(r)) g.set(p.tactic, [...(g.get(p.tactic) ?? []), p.score]);
    values.set(r.manifest!.game, g);
  }
  const judged = (id: string, judge: string): RunRecords | undefined => runs.get(`${id}__rejudge-${judge}`);
  console.log(`${MODEL} in ${DIR}: ${PERMUTATIONS} permutations per run; tactic values from its evaluation episodes`);
  for (const [game, g] of [...values].sort())
    console.log(
      `  ${game}: ${[...g]
        .sort()
        .map(([t, s]) => `${t} ${fmt(mean(s))} (${s.length})`)
        .join(", ")}`,
    );
  console.log("\nrun | placebo | expected placebo given the run | value of judging | last checkpoint: tactic n=episodes p=share topping the permuted means");
  for (const [id, self] of runs) {
    if (self.manifest?.rejudged_from || (self.manifest?.pathway !== "history" && self.manifest?.pathway !== "memory")) continue;
    const shuffled = judged(id, "shuffled");
    const none = judged(id, "none");
    const verifier = judged(id, "verifier");
    if (!shuffled || !none) continue;
    const eps = explorationEpisodes(self);
    const totals = eps.map((e) => e.total);
    const value = values.get(self.manifest.game)!;
    const v = (t: string): number => mean(value.get(t) ?? [0]);
    const rng = Rng.fromKey(`placebo-diagnosis|${id}`);
    const xs = [...curve(shuffled).keys()].sort((a, b) => a - b);
    const expected: number[] = [];
    let last = "";
    for (const x of xs) {
      const seen = eps.slice(0, x);
      const tried = [...new Set(seen.map((e) => e.tactic))];
      const tops = new Map<string, number>();
      for (let m = 0; m < PERMUTATIONS; m++) {
        const p = rng.shuffled(totals);
        const sums = new Map<string, { n: number; s: number }>();
        seen.forEach((e, i) => {
          const a = sums.get(e.tactic) ?? { n: 0, s: 0 };
          a.n++;
          a.s += p[i]!;
          sums.set(e.tactic, a);
        });
        let best = tried[0]!;
        for (const t of tried) if (sums.get(t)!.s / sums.get(t)!.n > sums.get(best)!.s / sums.get(best)!.n) best = t;
        tops.set(best, (tops.get(best) ?? 0) + 1);
      }
      const share = (t: string): number => (tops.get(t) ?? 0) / PERMUTATIONS;
      expected.push(tried.reduce((a, t) => a + share(t) * v(t), 0) - mean(tried.map(v)));
      last = tried.map((t) => `${t} n=${seen.filter((e) => e.tactic === t).length} p=${share(t).toFixed(2)}`).join("; ");
    }
    console.log(`${id} | ${fmt(contrast(shuffled, none))} | ${fmt(mean(expected))} | ${verifier ? fmt(contrast(verifier, self)) : "-"} | ${last}`);
  }
}

main().catch((e: unknown) => {
  console.error((e as Error).message);
  process.exit(1);
});
