/**
 * bench/power (`npm run bench:power [-- --quick]`): does `s3gym power`'s MDD deliver the 80% power it
 * promises? Known population, by simulation:
 * - an evaluation seed has a level u ~ N(0, 1) shared by both sides and every checkpoint (easy or
 *   hard boards); a score is u + N(0, 0.7) per checkpoint and side; side A adds the effect delta at
 *   every checkpoint (11 checkpoints, x = 0, 3, ..., 30). Metric: Avg (the mean curve's mean).
 * - a pilot of K seeds (K = 3, 12, 30), with effect 0 or 0.5 (a centred null must not care), gives
 *   the MDD at N = 10 seeds through the kit's own pilotPair, nullDistribution and mddFromNull;
 * - 400 fresh experiments of N = 10 seeds with delta = that MDD, each tested with the exact sign-flip
 *   test compare uses (signFlipTest): the share with p < 0.05 is the power actually achieved.
 * Per (K, pilot effect): the median MDD against the true MDD (the delta at which the exact test
 * rejects 80%, found by the same simulation on a grid), and the median achieved power over 40 pilots.
 */
import { mddFromNull, nullDistribution, pilotPair } from "../src/analysis/stats/power.js";
import type { SeedCurve } from "../src/analysis/stats/seedCurves.js";
import { signFlipTest } from "../src/analysis/stats/signFlip.js";
import { Rng } from "../src/util/rng.js";

const quick = process.argv.includes("--quick");
const XS = Array.from({ length: 11 }, (_, i) => 3 * i);
const N = 10;
const PILOTS = quick ? 12 : 40;
const EXPERIMENTS = quick ? 150 : 400;

function normal(rng: Rng): number {
  const u = Math.max(rng.float(), 1e-12);
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * rng.float());
}

/** K seeds' curves on both sides: scores[c * K + k]. */
function draw(rng: Rng, K: number, delta: number): { a: SeedCurve; b: SeedCurve } {
  const keys = Array.from({ length: K }, (_, i) => i);
  const A = new Float64Array(XS.length * K);
  const B = new Float64Array(XS.length * K);
  for (let k = 0; k < K; k++) {
    const u = normal(rng);
    XS.forEach((_, c) => {
      A[c * K + k] = u + delta + 0.7 * normal(rng);
      B[c * K + k] = u + 0.7 * normal(rng);
    });
  }
  const sc = (run_id: string, scores: Float64Array): SeedCurve => ({ run_id, game: "g", xs: XS, keys, pairedBy: "seed", scores });
  return { a: sc("a", A), b: sc("b", B) };
}

/** Share of experiments of N fresh seeds with effect delta that the exact sign-flip test rejects at 0.05. */
function achievedPower(rng: Rng, delta: number): number {
  let hits = 0;
  for (let e = 0; e < EXPERIMENTS; e++) {
    const { a, b } = draw(rng, N, delta);
    // Per-seed Avg difference: the Avg of the mean curve is the mean of these (no missing scores).
    const d = new Float64Array(N);
    for (let k = 0; k < N; k++) {
      let s = 0;
      for (let c = 0; c < XS.length; c++) s += (a.scores[c * N + k] as number) - (b.scores[c * N + k] as number);
      d[k] = s / XS.length;
    }
    const p = signFlipTest(N, 0, rng, (flip) => {
      let t = 0;
      for (let k = 0; k < N; k++) t += flip[k] ? -(d[k] as number) : (d[k] as number);
      return t / N;
    }).p;
    if (p !== null && p < 0.05) hits++;
  }
  return hits / EXPERIMENTS;
}

function median(v: number[]): number {
  const s = [...v].sort((x, y) => x - y);
  return s[Math.floor(s.length / 2)] as number;
}

const rng = Rng.fromKey("bench/power");
// The true MDD: the smallest delta on a grid whose achieved power reaches 80%.
let truth = 0;
for (let d = 0.05; d < 3; d += 0.025) {
  if (achievedPower(rng, d) >= 0.8) {
    truth = d;
    break;
  }
}
console.log(`population: seed level N(0,1), checkpoint noise N(0,0.7), 11 checkpoints; Avg; N = ${N} seeds, exact sign-flip test at 0.05`);
console.log(`true MDD (80% power, grid 0.025): ${truth.toFixed(3)}`);
console.log("pilot seeds | pilot effect | median MDD | MDD / true | median achieved power | pilots");
for (const K of [3, 12, 30]) {
  for (const effect of [0, 0.5]) {
    const mdds: number[] = [];
    const powers: number[] = [];
    for (let p = 0; p < PILOTS; p++) {
      const { a, b } = draw(rng, K, effect);
      const dist = nullDistribution([pilotPair(a, b)], N, 2000, p, "g");
      const mdd = mddFromNull(dist.avg, 0.05, 0.8, N);
      if (mdd === null) continue;
      mdds.push(mdd);
      powers.push(achievedPower(rng, mdd));
    }
    console.log(
      `${String(K).padStart(11)} | ${effect.toFixed(1).padStart(12)} | ${median(mdds).toFixed(3).padStart(10)} | ${(median(mdds) / truth).toFixed(2).padStart(10)} | ${(100 * median(powers)).toFixed(1).padStart(20)}% | ${mdds.length}`,
    );
  }
}
