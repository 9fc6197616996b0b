/**
 * Text-only chess policies. They read the observation and this episode's history, and know the
 * rook's rules because the rules text states them; A and B are treated as unknown: the heuristic
 * learns their move vectors from its own accepted and rejected moves (in-episode probing).
 */
import { splitObservation } from "../envelope.js";
import type { Rng } from "../../util/rng.js";
import type { PolicyContext, TextPolicy } from "../types.js";
import { parseObservation, type ChessFacts } from "./render.js";
import { PIECE_RULES, destinations, occupancy, onBoard, parseAction, parseSquare, squareName, type PieceRule, type PieceType } from "./rules.js";

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

/** Probes try vectors up to this Chebyshev length: chess-like pieces move short distances. */
const PROBE_RADIUS = 3;
/** Spare steps kept beyond the estimated rook clean-up before probing stops. */
const SLACK = 2;

const key = (dx: number, dy: number): string => `${dx},${dy}`;

interface Knowledge {
  legal: Set<string>;
  bad: Set<string>;
  /** Rejected while something stood in between: not ruled out, but not worth the same probe again. */
  inconclusive: Set<string>;
}

/** The 8 images of a vector under the board's symmetries (reflections and the diagonal swap). */
function images(dx: number, dy: number): string[] {
  const out = new Set<string>();
  for (const [a, b] of [
    [dx, dy],
    [dy, dx],
  ] as const) {
    for (const sa of [1, -1]) for (const sb of [1, -1]) out.add(key(sa * a, sb * b));
  }
  out.delete(key(dx, dy));
  return [...out];
}

/**
 * What the history teaches about each hidden type: a move that was accepted proves its vector legal;
 * one rejected with the bare "illegal move" rules the vector out unless something stood between the
 * squares on a straight line (then a blocked path could explain it, and the move proves nothing).
 */
function learn(history: PolicyContext["history"], hidden: PieceType[]): Map<PieceType, Knowledge> {
  const k = new Map<PieceType, Knowledge>(hidden.map((t) => [t, { legal: new Set<string>(), bad: new Set<string>(), inconclusive: new Set<string>() }]));
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
 * Steps the rook(s) alone would need to clear the board, greedily taking the nearest target each
 * time: the budget probing must leave untouched. Unreachable targets are charged 3 steps each.
 */
function cleanupEstimate(v: View): number {
  const rook = v.pieces.find((p) => !v.facts.hidden.includes(p.type) && p.type === "R");
  if (!rook) return 3 * v.targets.length;
  const grid = lifted(v, rook);
  let pos: Sq = { x: rook.x, y: rook.y };
  let left = v.targets.length;
  let total = 0;
  while (left > 0) {
    let best: { d: number; t: Sq } | null = null;
    for (let y = 0; y < v.size; y++) {
      for (let x = 0; x < v.size; x++) {
        if (grid[y * v.size + x] !== "t") continue;
        // Distance to this specific target: the others stay as obstacles.
        const g = grid.map((c, i) => (c === "t" && i !== y * v.size + x ? "#" : c));
        const d = distToTarget(PIECE_RULES.R, v.size, g, pos, best ? best.d : Infinity);
        if (d < (best?.d ?? Infinity)) best = { d, t: { x, y } };
      }
    }
    if (!best) return total + 3 * left;
    total += best.d;
    grid[best.t.y * v.size + best.t.x] = ".";
    pos = best.t;
    left -= 1;
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
 * Greedy captures, then probing while the step budget allows, then the shortest known plan:
 * 1. capture now with the rook or a hidden piece's proven vector (self-estimate 1/targets);
 * 2. if more steps remain than the rook needs to clear the board (+2): try an untested vector that
 *    would land on a target, else one that brings a hidden piece closer to a target; vectors whose
 *    mirror images proved legal go first, those whose images failed go last;
 * 3. otherwise take the first move of the shortest capture plan by known moves (usually lining the
 *    rook up with a target);
 * 4. with no plan left, probe anyway; END only when no untested vector remains either.
 */
export const heuristic: TextPolicy = (ctx, rng) => {
  const { step, maxSteps } = splitObservation(ctx.observation);
  const v = view(ctx.observation);
  const perCapture = 1 / Math.max(1, v.facts.targetsTotal);
  const know = learn(ctx.history, v.facts.hidden);
  const ruleOf = (t: PieceType): Pick<PieceRule, "kind" | "vectors"> => {
    const k = know.get(t);
    return k ? knownRule(k) : PIECE_RULES[t];
  };

  // 1 and 3: moves by known rules, ranked by how soon they lead to a capture.
  const planned: Candidate[] = [];
  let bestDist = Infinity;
  for (const p of v.pieces) {
    const rule = ruleOf(p.type);
    const grid = lifted(v, p);
    for (const d of destinations(rule, v.size, v.grid, p.x, p.y)) {
      const dist = 1 + distToTarget(rule, v.size, grid, d, 8);
      if (dist === Infinity) continue;
      bestDist = Math.min(bestDist, dist);
      const after = grid.slice();
      after[d.y * v.size + d.x] = p.type;
      const lined = at(v, d.x, d.y) === "t" ? 0 : destinations(rule, v.size, after, d.x, d.y).filter((n) => at(v, n.x, n.y) === "t").length;
      planned.push({ action: move(p, d), rank: [-dist, lined, p.type === "R" ? 1 : 0] });
    }
  }
  if (bestDist === 1) return { action: (best(planned, rng) as Candidate).action, selfScore: perCapture };

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
        const imgs = images(dx, dy);
        const prior = imgs.some((i) => k.legal.has(i)) ? 2 : imgs.some((i) => k.bad.has(i)) ? 0 : 1;
        const gain = nearestTarget(v, p) - nearestTarget(v, to);
        probes.push({ action: move(p, to), rank: [prior, c === "t" ? 1 : 0, gain] });
      }
    }
  }
  const stepsLeft = maxSteps - step;
  const spare = stepsLeft > cleanupEstimate(v) + SLACK;
  if (spare && probes.length) return { action: (best(probes, rng) as Candidate).action, selfScore: 0 };
  if (planned.length) return { action: (best(planned, rng) as Candidate).action, selfScore: 0 };
  if (probes.length) return { action: (best(probes, rng) as Candidate).action, selfScore: 0 };
  return { action: "END", selfScore: 0 };
};
