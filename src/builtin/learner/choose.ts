/**
 * How `builtin:learner` picks a tactic for a new episode (learner.md): exploration by a deterministic
 * optimistic rule on its self-judged returns (untried tactics first, then an upper confidence bound),
 * evaluation by the best mean self-judged return; with no experience at all it draws from its prior
 * (uniform, or a checkpoint's). Ties and draws come from the call's seeded generator.
 */
import type { Rng } from "../../util/rng.js";
import type { TacticStats } from "./experienceText.js";

/** A weighted draw; weights need not sum to 1 (all zero: uniform). */
export function drawWeighted(names: readonly string[], weights: readonly number[], rng: Rng): string {
  const total = weights.reduce((a, b) => a + Math.max(0, b), 0);
  if (!(total > 0)) return rng.pick(names);
  let x = rng.float() * total;
  for (let i = 0; i < names.length; i++) {
    x -= Math.max(0, weights[i]!);
    if (x < 0) return names[i]!;
  }
  return names[names.length - 1]!;
}

function argmaxTies(names: readonly string[], value: (n: string) => number, rng: Rng): string {
  let best: string[] = [];
  let top = -Infinity;
  for (const n of names) {
    const v = value(n);
    if (v > top + 1e-12) {
      top = v;
      best = [n];
    } else if (Math.abs(v - top) <= 1e-12) best.push(n);
  }
  return rng.pick(best.length ? best : names);
}

/** Share of an exploring draw from a checkpoint prior that stays uniform, so exploration never stops. */
export const PRIOR_EXPLORE_FLOOR = 0.2;

export function chooseTactic(names: readonly string[], stats: TacticStats, phase: "explore" | "eval", prior: Record<string, number> | null, rng: Rng): { tactic: string; why: string } {
  const tried = names.filter((n) => (stats.get(n)?.n ?? 0) > 0);
  const mean = (n: string): number => stats.get(n)!.sum / stats.get(n)!.n;
  if (tried.length === 0) {
    if (!prior) return { tactic: rng.pick(names), why: "no experience: a uniform draw" };
    const w = names.map((n) => prior[n] ?? 0);
    const total = w.reduce((a, b) => a + b, 0) || 1;
    const mixedW = phase === "explore" ? w.map((x) => (1 - PRIOR_EXPLORE_FLOOR) * (x / total) + PRIOR_EXPLORE_FLOOR / names.length) : w;
    return { tactic: drawWeighted(names, mixedW, rng), why: "no experience: a draw from the checkpoint's prior" };
  }
  if (phase === "eval") return { tactic: argmaxTies(tried, mean, rng), why: "evaluation: the best mean self-judged return" };
  const untried = names.filter((n) => !tried.includes(n));
  if (untried.length > 0) return { tactic: rng.pick(untried), why: "exploration: untried first" };
  const means = tried.map(mean);
  const spread = Math.max(...means) - Math.min(...means);
  const c = spread > 0 ? spread : 1;
  const total = tried.reduce((a, n) => a + stats.get(n)!.n, 0);
  const ucb = (n: string): number => mean(n) + 0.5 * c * Math.sqrt((2 * Math.log(total)) / stats.get(n)!.n);
  return { tactic: argmaxTies(tried, ucb, rng), why: "exploration: upper confidence bound" };
}
