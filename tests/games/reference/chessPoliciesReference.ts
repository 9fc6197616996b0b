/**
 * Frozen reference: the chess policies as they were before the view cache (every earlier observation
 * parsed again at each step). tests/games/chessHeuristic.test.ts checks the fast policies decide exactly
 * like them. Do not "fix" this file: it is the spec of the decisions. The rules functions it calls are
 * the game's own.
 *
 * Text-only chess policies. They read the observation and this episode's history; told rules (the
 * rook, in custom configs) are known because the rules text states them. A and B are unknown: the
 * heuristic learns their move vectors from its own accepted and rejected moves within the episode
 * (it carries nothing over). `rulesKnowing` is the reference player that knows PIECE_RULES.
 */
import { splitObservation } from "../../../src/games/envelope.js";
import type { Rng } from "../../../src/util/rng.js";
import type { PolicyContext, TextPolicy } from "../../../src/games/types.js";
import { parseObservation, type ChessFacts } from "../../../src/games/chess/render.js";
import { PIECE_RULES, PIECE_TYPES, destinations, occupancy, onBoard, parseAction, parseSquare, squareName, type PieceRule, type PieceType } from "../../../src/games/chess/rules.js";

interface Sq {
  x: number;
  y: number;
}

interface View {
  facts: ChessFacts;
  size: number;
  grid: string[];
  pieces: Array<{ type: PieceType; x: number; y: number }>;
  targets: Sq[];
}

function view(observation: string): View {
  const facts = parseObservation(splitObservation(observation).body);
  const sq = (s: string): Sq => parseSquare(s) as Sq;
  const pieces = facts.pieces.map((p) => ({ type: p.type, ...sq(p.square) }));
  const targets = facts.targets.map(sq);
  return { facts, size: facts.size, grid: occupancy(facts.size, pieces, targets), pieces, targets };
}

const at = (v: View, x: number, y: number): string => v.grid[y * v.size + x] as string;
const move = (from: Sq, to: Sq): string => `${squareName(from.x, from.y)} ${squareName(to.x, to.y)}`;

/** Squares a hidden-rule piece might be sent to: anything on the board but its own side's pieces. */
function lookingLegal(v: View, p: Sq): Sq[] {
  const out: Sq[] = [];
  for (let y = 0; y < v.size; y++) for (let x = 0; x < v.size; x++) if (at(v, x, y) === "." || at(v, x, y) === "t") out.push({ x, y });
  return out.filter((d) => d.x !== p.x || d.y !== p.y);
}

/** Uniform over legal-looking moves: real rook moves, any free square or target for hidden pieces. */
export const random: TextPolicy = (ctx, rng) => {
  const v = view(ctx.observation);
  const actions: string[] = [];
  for (const p of v.pieces) {
    const dests = v.facts.hidden.includes(p.type) ? lookingLegal(v, p) : destinations(PIECE_RULES[p.type], v.size, v.grid, p.x, p.y);
    for (const d of dests) actions.push(move(p, d));
  }
  // END is left out: it can never earn anything, and a random stop would only shorten the baseline.
  return { action: actions.length ? rng.pick(actions) : "END", selfScore: 0 };
};

// ---------------------------------------------------------------------------------------------
// Heuristic

/**
 * Probes try vectors up to this Chebyshev length, each one on its own: the heuristic assumes nothing
 * about a rule's shape (no mirror-image inference), so finding a type's moves costs real probes and
 * its eval score stays well below a rules-knowing player's (bench/games prints both).
 */
const PROBE_RADIUS = 4;
/** Spare steps kept beyond the estimated rook clean-up before probing stops. */
const SLACK = 2;

const key = (dx: number, dy: number): string => `${dx},${dy}`;

interface Knowledge {
  legal: Set<string>;
  bad: Set<string>;
  /** Rejected while something stood in between: not ruled out, but not worth the same probe again. */
  inconclusive: Set<string>;
}

/**
 * What the history teaches about each hidden type: a move that was accepted proves its vector legal;
 * one rejected with the bare "illegal move" rules the vector out unless something stood between the
 * squares on a straight line (then a blocked path could explain it, and the move proves nothing).
 */
function learn(history: PolicyContext["history"], hidden: PieceType[], prior: VectorPrior = {}): Map<PieceType, Knowledge> {
  const k = new Map<PieceType, Knowledge>(hidden.map((t) => [t, { legal: new Set<string>(prior[t]?.legal ?? []), bad: new Set<string>(prior[t]?.bad ?? []), inconclusive: new Set<string>() }]));
  for (const h of history) {
    if (h.action === null) continue;
    const a = parseAction(h.action);
    if (!a || a.kind !== "move") continue;
    let v: View;
    try {
      v = view(h.observation);
    } catch {
      continue;
    }
    const piece = v.pieces.find((p) => p.x === a.from.x && p.y === a.from.y);
    const know = piece && k.get(piece.type);
    if (!piece || !know) continue;
    if (!onBoard(v.size, a.to.x, a.to.y) || (a.to.x === a.from.x && a.to.y === a.from.y)) continue;
    if (at(v, a.to.x, a.to.y) !== "." && at(v, a.to.x, a.to.y) !== "t") continue;
    const dx = a.to.x - a.from.x;
    const dy = a.to.y - a.from.y;
    if (h.feedback.startsWith("moved")) {
      know.legal.add(key(dx, dy));
    } else if (h.feedback.startsWith("illegal move")) {
      if (know.legal.has(key(dx, dy))) continue;
      if (lineBlocked(v, a.from, a.to)) know.inconclusive.add(key(dx, dy));
      else know.bad.add(key(dx, dy));
    }
  }
  return k;
}

/**
 * Displacements known legal and known illegal per hidden type, as "dx,dy", learned elsewhere (the
 * learner's earlier episodes, its memory or its checkpoint): the heuristic starts from them.
 */
export type VectorPrior = Partial<Record<string, { legal: readonly string[]; bad: readonly string[] }>>;

/** What `steps` (any episode's observations, actions and feedback) prove about the hidden types. */
export function learnVectors(steps: readonly PolicyContext["history"][number][]): Record<string, { legal: string[]; bad: string[] }> {
  const hidden = PIECE_TYPES.filter((t) => PIECE_RULES[t].hidden);
  const out: Record<string, { legal: string[]; bad: string[] }> = {};
  for (const [t, k] of learn([...steps], [...hidden])) out[t] = { legal: [...k.legal].sort(), bad: [...k.bad].filter((v) => !k.legal.has(v)).sort() };
  return out;
}

/** Whether a straight-line move (rank, file or diagonal) would pass over something. */
function lineBlocked(v: View, from: Sq, to: Sq): boolean {
  const dx = to.x - from.x;
  const dy = to.y - from.y;
  if (!(dx === 0 || dy === 0 || Math.abs(dx) === Math.abs(dy))) return false;
  const len = Math.max(Math.abs(dx), Math.abs(dy));
  for (let i = 1; i < len; i++) if (at(v, from.x + (i * dx) / len, from.y + (i * dy) / len) !== ".") return true;
  return false;
}

function knownRule(know: Knowledge): PieceRule {
  const vectors = [...know.legal].map((s) => s.split(",").map(Number) as [number, number]);
  return { kind: "leaper", vectors, hidden: true, label: "" };
}

/** Moves needed from `start` to capture the nearest target with `rule` (Infinity if none); the piece is assumed lifted off the grid. */
function distToTarget(rule: Pick<PieceRule, "kind" | "vectors">, size: number, grid: readonly string[], start: Sq, cap = Infinity): number {
  if (grid[start.y * size + start.x] === "t") return 0;
  const dist = new Map<number, number>([[start.y * size + start.x, 0]]);
  const queue: Sq[] = [start];
  while (queue.length) {
    const cur = queue.shift() as Sq;
    const d = dist.get(cur.y * size + cur.x) as number;
    if (d + 1 > cap) break;
    for (const n of destinations(rule, size, grid, cur.x, cur.y)) {
      const idx = n.y * size + n.x;
      if (grid[idx] === "t") return d + 1;
      if (!dist.has(idx)) {
        dist.set(idx, d + 1);
        queue.push(n);
      }
    }
  }
  return Infinity;
}

function lifted(v: View, p: Sq): string[] {
  const g = v.grid.slice();
  g[p.y * v.size + p.x] = ".";
  return g;
}

/**
 * Steps the known moves would need to clear the board: per target, the fewest moves any piece needs
 * by what is known of its rule (3 when nothing known reaches it). The budget probing must leave.
 */
function cleanupEstimate(v: View, ruleOf: (t: PieceType) => Pick<PieceRule, "kind" | "vectors">): number {
  let total = 0;
  for (const t of v.targets) {
    let d = Infinity;
    const g = v.grid.map((c, i) => (c === "t" && i !== t.y * v.size + t.x ? "." : c));
    for (const p of v.pieces) d = Math.min(d, distToTarget(ruleOf(p.type), v.size, lifted({ ...v, grid: g }, p), p, d));
    total += d === Infinity ? 3 : d;
  }
  return total;
}

interface Candidate {
  action: string;
  rank: number[];
}

/** Highest lexicographic rank wins; exact ties are broken with the policy's generator. */
function best(cands: Candidate[], rng: Rng): Candidate | null {
  if (!cands.length) return null;
  let top: Candidate[] = [];
  for (const c of cands) {
    const cmp = top.length ? compare(c.rank, (top[0] as Candidate).rank) : 1;
    if (cmp > 0) top = [c];
    else if (cmp === 0) top.push(c);
  }
  return rng.pick(top);
}

function compare(a: number[], b: number[]): number {
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const d = (a[i] ?? 0) - (b[i] ?? 0);
    if (d !== 0) return d;
  }
  return 0;
}

function nearestTarget(v: View, s: Sq): number {
  let d = Infinity;
  for (const t of v.targets) d = Math.min(d, Math.max(Math.abs(t.x - s.x), Math.abs(t.y - s.y)));
  return d;
}

/**
 * Moves by `ruleOf`'s rules ranked by how soon they lead to a capture (shortest path by the rule,
 * searched up to `cap` moves), then by how many targets the landing square lines up.
 */
function planned(v: View, ruleOf: (t: PieceType) => Pick<PieceRule, "kind" | "vectors">, cap: number): { cands: Candidate[]; bestDist: number } {
  const cands: Candidate[] = [];
  let bestDist = Infinity;
  for (const p of v.pieces) {
    const rule = ruleOf(p.type);
    const grid = lifted(v, p);
    for (const d of destinations(rule, v.size, v.grid, p.x, p.y)) {
      const dist = 1 + distToTarget(rule, v.size, grid, d, cap);
      if (dist === Infinity) continue;
      bestDist = Math.min(bestDist, dist);
      const after = grid.slice();
      after[d.y * v.size + d.x] = p.type;
      const lined = at(v, d.x, d.y) === "t" ? 0 : destinations(rule, v.size, after, d.x, d.y).filter((n) => at(v, n.x, n.y) === "t").length;
      cands.push({ action: move(p, d), rank: [-dist, lined] });
    }
  }
  return { cands, bestDist };
}

/**
 * Greedy captures, then probing while the step budget allows, then the shortest known plan:
 * 1. capture now with a proven vector (or a told rule; self-estimate 1/targets);
 * 2. if more steps remain than the known moves need to clear the board (+2): try an untested vector
 *    that would land on a target, else one that brings a hidden piece closer to a target;
 * 3. otherwise take the first move of the shortest capture plan by known moves;
 * 4. with no plan left, probe anyway; END only when no untested vector remains either.
 */
export const heuristic: TextPolicy = (ctx, rng) => heuristicKnowing({})(ctx, rng);

/** The heuristic starting from vectors known beforehand (`builtin:learner`'s chess knowledge). */
export const heuristicKnowing =
  (prior: VectorPrior): TextPolicy =>
  (ctx, rng) => {
    const { step, maxSteps } = splitObservation(ctx.observation);
    const v = view(ctx.observation);
    const perCapture = 1 / Math.max(1, v.facts.targetsTotal);
    const know = learn(ctx.history, v.facts.hidden, prior);
    const ruleOf = (t: PieceType): Pick<PieceRule, "kind" | "vectors"> => {
      const k = know.get(t);
      return k ? knownRule(k) : PIECE_RULES[t];
    };

    // 1 and 3: moves by known rules, ranked by how soon they lead to a capture.
    const { cands: plan, bestDist } = planned(v, ruleOf, 8);
    if (bestDist === 1) return { action: (best(plan, rng) as Candidate).action, selfScore: perCapture };

    // 2: probes of untested vectors.
    const probes: Candidate[] = [];
    for (const p of v.pieces) {
      const k = know.get(p.type);
      if (!k) continue;
      for (let dy = -PROBE_RADIUS; dy <= PROBE_RADIUS; dy++) {
        for (let dx = -PROBE_RADIUS; dx <= PROBE_RADIUS; dx++) {
          const kk = key(dx, dy);
          if ((dx === 0 && dy === 0) || k.legal.has(kk) || k.bad.has(kk)) continue;
          const to = { x: p.x + dx, y: p.y + dy };
          if (!onBoard(v.size, to.x, to.y)) continue;
          const c = at(v, to.x, to.y);
          if (c !== "." && c !== "t") continue;
          if (k.inconclusive.has(kk) && lineBlocked(v, p, to)) continue;
          const gain = nearestTarget(v, p) - nearestTarget(v, to);
          probes.push({ action: move(p, to), rank: [c === "t" ? 1 : 0, gain] });
        }
      }
    }
    const stepsLeft = maxSteps - step;
    const spare = stepsLeft > cleanupEstimate(v, ruleOf) + SLACK;
    if (spare && probes.length) return { action: (best(probes, rng) as Candidate).action, selfScore: 0 };
    if (plan.length) return { action: (best(plan, rng) as Candidate).action, selfScore: 0 };
    if (probes.length) return { action: (best(probes, rng) as Candidate).action, selfScore: 0 };
    return { action: "END", selfScore: 0 };
  };

/**
 * A player that knows the hidden rules (PIECE_RULES) and plays the shortest capture greedily: the
 * reference line for "what knowing the rules is worth". Not a built-in model; bench and tests use it.
 */
export const rulesKnowing: TextPolicy = (ctx, rng) => {
  const v = view(ctx.observation);
  const { cands, bestDist } = planned(v, (t) => PIECE_RULES[t], Infinity);
  if (!cands.length) return { action: "END", selfScore: 0 };
  return { action: (best(cands, rng) as Candidate).action, selfScore: bestDist === 1 ? 1 / Math.max(1, v.facts.targetsTotal) : 0 };
};
