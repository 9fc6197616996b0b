/**
 * Balanced accuracy and AUROC of self-scores over weighted resampling units (episodes), for the
 * bootstrap of self_judging (judging.ts has the plain definitions). A resample gives unit u the
 * multiplicity w[u]; the statistics are those of the data set in which every step of u appears w[u]
 * times, so they are exactly the plain metrics of the resampled steps.
 *
 * AUROC is a sum over (r > 0, r <= 0) step pairs, not a sum of per-unit counts, so it cannot ride on
 * JudgingCounts. Its steps are sorted by s once (O(n log n)); each weight vector is then one linear
 * sweep over the tie groups. The bootstrap-t needs a leave-one-unit-out jackknife per replicate;
 * doing it by re-evaluating the statistic would cost (units x steps) per replicate, so `jackknife`
 * gets every leave-one-group-out value from one sweep: with K[u][v] the pair sum between the r > 0
 * steps of u and the r <= 0 steps of v, the numerator at w minus one copy of group g is
 * num - sum_{u in g} (row_u + col_u) + K_gg, where row_u = sum_v w_v K[u][v], col_u = sum_v w_v K[v][u]
 * (both from the sweep) and K_gg is the group's own pair sum (fixed by the data).
 */
import type { GroupJackknife } from "./intervals.js";

/** One resampling unit's scored steps (s finite, r the verifier reward). */
export interface UnitSteps {
  s: readonly number[];
  r: readonly number[];
}

/** The within-set AUROC numerator (pairs r > 0 above r <= 0, ties one half) of steps, and its side sizes. */
function pairSum(s: readonly number[], r: readonly number[]): number {
  const idx = Array.from(s.keys()).sort((a, b) => (s[a] as number) - (s[b] as number));
  let negBelow = 0;
  let u = 0;
  for (let i = 0; i < idx.length; ) {
    const level = s[idx[i] as number] as number;
    let p = 0;
    let q = 0;
    for (; i < idx.length && s[idx[i] as number] === level; i++) {
      if ((r[idx[i] as number] as number) > 0) p++;
      else q++;
    }
    u += p * (negBelow + q / 2);
    negBelow += q;
  }
  return u;
}

/**
 * The weighted statistics [balanced accuracy, AUROC] of `units`, with the fast group jackknife of a
 * design whose groups are `members` (Design.members: the flat units each leave-one-out removes).
 */
export class WeightedDiscrimination {
  /** Per unit: r > 0 steps, r <= 0 steps, and those of each the self-score agreed on (s > 0, s <= 0). */
  private readonly pos: Float64Array;
  private readonly neg: Float64Array;
  private readonly tp: Float64Array;
  private readonly tn: Float64Array;
  /** Tie groups of s (ascending): entries levelEnd[L-1]..levelEnd[L]-1, each (unit, r > 0 count, r <= 0 count). */
  private readonly levelEnd: Int32Array;
  private readonly entUnit: Int32Array;
  private readonly entPos: Float64Array;
  private readonly entNeg: Float64Array;
  /** Per group: its side sizes, agreements and own pair sum. */
  private readonly gPos: Float64Array;
  private readonly gNeg: Float64Array;
  private readonly gTp: Float64Array;
  private readonly gTn: Float64Array;
  private readonly gPairs: Float64Array;
  private readonly members: readonly (readonly number[])[];
  /** Scratch per level and per unit. */
  private readonly lvPos: Float64Array;
  private readonly lvNeg: Float64Array;
  private readonly rowCol: Float64Array;
  /**
   * The weights `stats` last swept, and its sides: the bootstrap-t calls `jackknife` right after
   * `stats` with the same weights, so the sweep is reused when they still match (checked unit by unit).
   */
  private readonly lastW: Int32Array;
  private lastSides: { P: number; N: number; TP: number; TN: number } | null = null;

  constructor(units: readonly UnitSteps[], members: readonly (readonly number[])[]) {
    const U = units.length;
    this.members = members;
    this.pos = new Float64Array(U);
    this.neg = new Float64Array(U);
    this.tp = new Float64Array(U);
    this.tn = new Float64Array(U);
    const steps: { s: number; u: number; p: boolean }[] = [];
    units.forEach((unit, u) => {
      for (let i = 0; i < unit.s.length; i++) {
        const s = unit.s[i] as number;
        const p = (unit.r[i] as number) > 0;
        if (p) {
          this.pos[u]++;
          if (s > 0) this.tp[u]++;
        } else {
          this.neg[u]++;
          if (s <= 0) this.tn[u]++;
        }
        steps.push({ s, u, p });
      }
    });
    steps.sort((a, b) => a.s - b.s || a.u - b.u);
    const ends: number[] = [];
    const eu: number[] = [];
    const ep: number[] = [];
    const en: number[] = [];
    for (let i = 0; i < steps.length; ) {
      const level = steps[i]!.s;
      for (; i < steps.length && steps[i]!.s === level; ) {
        const u = steps[i]!.u;
        let p = 0;
        let q = 0;
        for (; i < steps.length && steps[i]!.s === level && steps[i]!.u === u; i++) {
          if (steps[i]!.p) p++;
          else q++;
        }
        eu.push(u);
        ep.push(p);
        en.push(q);
      }
      ends.push(eu.length);
    }
    this.levelEnd = Int32Array.from(ends);
    this.entUnit = Int32Array.from(eu);
    this.entPos = Float64Array.from(ep);
    this.entNeg = Float64Array.from(en);
    const G = members.length;
    this.gPos = new Float64Array(G);
    this.gNeg = new Float64Array(G);
    this.gTp = new Float64Array(G);
    this.gTn = new Float64Array(G);
    this.gPairs = new Float64Array(G);
    members.forEach((idx, g) => {
      const s: number[] = [];
      const r: number[] = [];
      for (const u of idx) {
        this.gPos[g] += this.pos[u] as number;
        this.gNeg[g] += this.neg[u] as number;
        this.gTp[g] += this.tp[u] as number;
        this.gTn[g] += this.tn[u] as number;
        s.push(...(units[u] as UnitSteps).s);
        r.push(...(units[u] as UnitSteps).r);
      }
      this.gPairs[g] = pairSum(s, r);
    });
    this.lvPos = new Float64Array(ends.length);
    this.lvNeg = new Float64Array(ends.length);
    this.rowCol = new Float64Array(U);
    this.lastW = new Int32Array(U);
  }

  /** Sides and per-level sizes at w: the last sweep's when w is unchanged since, else a new one. */
  private sweep(w: ArrayLike<number>): { P: number; N: number; TP: number; TN: number } {
    if (this.lastSides !== null && w.length === this.lastW.length) {
      let same = true;
      for (let u = 0; u < w.length && same; u++) same = w[u] === this.lastW[u];
      if (same) return this.lastSides;
    }
    const sides = this.sides(w);
    this.levels(w);
    if (w.length === this.lastW.length) {
      for (let u = 0; u < w.length; u++) this.lastW[u] = w[u] as number;
      this.lastSides = sides;
    } else this.lastSides = null;
    return sides;
  }

  /** Weighted side sizes and agreements. */
  private sides(w: ArrayLike<number>): { P: number; N: number; TP: number; TN: number } {
    let P = 0;
    let N = 0;
    let TP = 0;
    let TN = 0;
    for (let u = 0; u < this.pos.length; u++) {
      const wu = w[u] as number;
      if (wu === 0) continue;
      P += wu * (this.pos[u] as number);
      N += wu * (this.neg[u] as number);
      TP += wu * (this.tp[u] as number);
      TN += wu * (this.tn[u] as number);
    }
    return { P, N, TP, TN };
  }

  /** Weighted per-level side sizes into the scratch arrays. */
  private levels(w: ArrayLike<number>): void {
    let e = 0;
    for (let L = 0; L < this.levelEnd.length; L++) {
      let p = 0;
      let q = 0;
      for (const end = this.levelEnd[L] as number; e < end; e++) {
        const wu = w[this.entUnit[e] as number] as number;
        p += wu * (this.entPos[e] as number);
        q += wu * (this.entNeg[e] as number);
      }
      this.lvPos[L] = p;
      this.lvNeg[L] = q;
    }
  }

  /** The weighted pair sum (AUROC's numerator) from the per-level sizes. */
  private pairs(): number {
    let below = 0;
    let u = 0;
    for (let L = 0; L < this.levelEnd.length; L++) {
      const p = this.lvPos[L] as number;
      const q = this.lvNeg[L] as number;
      u += p * (below + q / 2);
      below += q;
    }
    return u;
  }

  /** [balanced accuracy, AUROC] at weights w (NaN where a side is empty). */
  readonly stats = (w: ArrayLike<number>, out: Float64Array): void => {
    const { P, N, TP, TN } = this.sweep(w);
    out[0] = P > 0 && N > 0 ? (TP / P + TN / N) / 2 : Number.NaN;
    out[1] = P > 0 && N > 0 ? this.pairs() / (P * N) : Number.NaN;
  };

  /** Leave-one-group-out values of both statistics at w (groupJackknifeMany's groups and multiplicities). */
  readonly jackknife: GroupJackknife = (w) => {
    const { P, N, TP, TN } = this.sweep(w);
    const num = this.pairs();
    // row_u + col_u for every unit: its r > 0 steps against the weighted r <= 0 steps below (ties
    // half), and its r <= 0 steps against the weighted r > 0 steps above (ties half).
    this.rowCol.fill(0);
    let e = 0;
    let negBelow = 0;
    let posBelow = 0;
    for (let L = 0; L < this.levelEnd.length; L++) {
      const p = this.lvPos[L] as number;
      const q = this.lvNeg[L] as number;
      const posAbove = P - posBelow - p;
      for (const end = this.levelEnd[L] as number; e < end; e++) {
        const u = this.entUnit[e] as number;
        this.rowCol[u] = (this.rowCol[u] as number) + (this.entPos[e] as number) * (negBelow + q / 2) + (this.entNeg[e] as number) * (posAbove + p / 2);
      }
      negBelow += q;
      posBelow += p;
    }
    const ba: number[] = [];
    const auc: number[] = [];
    const mult: number[] = [];
    this.members.forEach((idx, g) => {
      let mn = Infinity;
      for (const i of idx) mn = Math.min(mn, w[i] as number);
      if (!(mn > 0) || idx.length === 0) return;
      let rc = 0;
      for (const i of idx) rc += this.rowCol[i] as number;
      const p = P - (this.gPos[g] as number);
      const n = N - (this.gNeg[g] as number);
      ba.push(p > 0 && n > 0 ? ((TP - (this.gTp[g] as number)) / p + (TN - (this.gTn[g] as number)) / n) / 2 : Number.NaN);
      auc.push(p > 0 && n > 0 ? (num - rc + (this.gPairs[g] as number)) / (p * n) : Number.NaN);
      mult.push(mn);
    });
    return { values: [ba, auc], mult };
  };
}
