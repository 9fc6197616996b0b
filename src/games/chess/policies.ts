/**
 * Text-only chess policies. They read the observation and this episode's history; told rules (the
 * rook, in custom configs) are known because the rules text states them. A and B are unknown: the
 * heuristic learns their move vectors from its own accepted and rejected moves within the episode
 * (it carries nothing over). `rulesKnowing` is the reference player that knows PIECE_RULES.
 */
import { splitObservation } from "../envelope.js";
import type { Rng } from "../../util/rng.js";
import type { PolicyContext, TextPolicy } from "../types.js";
import { BoundedCache } from "../../util/boundedCache.js";
import { parseObservation, type ChessFacts } from "./render.js";
import { PIECE_RULES, PIECE_TYPES, destinations, occupancy, onBoard, parseAction, parseSquare, squareName, type PieceRule, type PieceType } from "./rules.js";

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

/**
 * Views by observation text: the heuristic reads every earlier observation of the episode again at
 * each step (what its moves taught), so each is parsed once. Views are shared: nothing may mutate one.
 */
const viewCache = new BoundedCache<string, View>(1024);

function view(observation: string): View {
  return viewCache.getOrSet(observation, () => parseView(observation));
}

function parseView(observation: string): View {
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
/** key(dx, dy) of every probe vector, row by row from (-PROBE_RADIUS, -PROBE_RADIUS): built once, not per probe per step. */
const PROBE_KEYS: readonly string[] = Array.from({ length: (2 * PROBE_RADIUS + 1) ** 2 }, (_, i) =>
  key((i % (2 * PROBE_RADIUS + 1)) - PROBE_RADIUS, Math.floor(i / (2 * PROBE_RADIUS + 1)) - PROBE_RADIUS),
);

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
    const l = lessonOf(h);
    if (l === null) continue;
    const know = k.get(l.type);
    if (!know) continue;
    if (l.outcome === "legal") know.legal.add(l.vector);
    else {
      if (know.legal.has(l.vector)) continue;
      if (l.outcome === "inconclusive") know.inconclusive.add(l.vector);
      else know.bad.add(l.vector);
    }
  }
  return k;
}

/** What one history step says about its piece's vector, whatever is known already (null: nothing). */
interface Lesson {
  type: PieceType;
  vector: string;
  outcome: "legal" | "bad" | "inconclusive";
}

/**
 * Lessons by history entry: every later step of the episode learns from the same entries again, and
 * the step prompt's reader hands the same frozen entry objects to every step (agent/stepPrompt.ts).
 * An entry is read by its fields, so the memo is checked against them.
 */
const lessons = new WeakMap<object, { observation: string; action: string | null; feedback: string; lesson: Lesson | null }>();

function lessonOf(h: PolicyContext["history"][number]): Lesson | null {
  const hit = lessons.get(h);
  if (hit !== undefined && hit.observation === h.observation && hit.action === h.action && hit.feedback === h.feedback) return hit.lesson;
  const lesson = readLesson(h);
  lessons.set(h, { observation: h.observation, action: h.action, feedback: h.feedback, lesson });
  return lesson;
}

function readLesson(h: PolicyContext["history"][number]): Lesson | null {
  if (h.action === null) return null;
  const a = parseAction(h.action);
  if (!a || a.kind !== "move") return null;
  let v: View;
  try {
    v = view(h.observation);
  } catch {
    return null;
  }
  const piece = v.pieces.find((p) => p.x === a.from.x && p.y === a.from.y);
  if (!piece) return null;
  if (!onBoard(v.size, a.to.x, a.to.y) || (a.to.x === a.from.x && a.to.y === a.from.y)) return null;
  if (at(v, a.to.x, a.to.y) !== "." && at(v, a.to.x, a.to.y) !== "t") return null;
  const vector = key(a.to.x - a.from.x, a.to.y - a.from.y);
  if (h.feedback.startsWith("moved")) return { type: piece.type, vector, outcome: "legal" };
  if (h.feedback.startsWith("illegal move")) return { type: piece.type, vector, outcome: lineBlocked(v, a.from, a.to) ? "inconclusive" : "bad" };
  return null;
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

/**
 * Breadth-first search scratch, reused by every search: a step runs hundreds of searches (every
 * candidate move of every piece), so fresh Maps and queues per search cost more than the search.
 * `seen` holds the search's stamp, so it needs no clearing. Two sets: the forward searches run one at
 * a time, while a leaper's backward distances stay read during the forward searches of its moves.
 */
interface Scratch {
  seen: Int32Array;
  queue: Int32Array;
  depth: Int32Array;
  stamp: number;
}
const forward: Scratch = { seen: new Int32Array(0), queue: new Int32Array(0), depth: new Int32Array(0), stamp: 0 };
const back: Scratch = { seen: new Int32Array(0), queue: new Int32Array(0), depth: new Int32Array(0), stamp: 0 };

/** Readies `s` for a search over `n` squares: the arrays at least `n` long, and a new stamp (returned). */
function nextSearch(s: Scratch, n: number): number {
  if (s.seen.length < n) {
    s.seen = new Int32Array(n);
    s.queue = new Int32Array(n);
    s.depth = new Int32Array(n);
    s.stamp = 0;
  }
  if (++s.stamp > 0x7ffffff0) {
    s.seen.fill(0);
    s.stamp = 1;
  }
  return s.stamp;
}

/**
 * Moves needed from `start` to capture the nearest target with `rule` (Infinity if none, or none
 * within `cap` moves). The square `lift` (the moving piece's own, -1: none) counts as empty.
 */
function distToTarget(rule: Pick<PieceRule, "kind" | "vectors">, size: number, grid: readonly string[], start: Sq, cap = Infinity, lift = -1): number {
  const cellAt = (i: number): string => (i === lift ? "." : (grid[i] as string));
  const s0 = start.y * size + start.x;
  if (cellAt(s0) === "t") return 0;
  const stamp = nextSearch(forward, size * size);
  const { seen, queue, depth } = forward;
  const slides = rule.kind !== "leaper";
  const vectors = rule.vectors;
  seen[s0] = stamp;
  depth[s0] = 0;
  queue[0] = s0;
  let head = 0;
  let tail = 1;
  while (head < tail) {
    const cur = queue[head++] as number;
    const d = depth[cur] as number;
    if (d + 1 > cap) break;
    const cx = cur % size;
    const cy = (cur - cx) / size;
    for (let k = 0; k < vectors.length; k++) {
      const [dx, dy] = vectors[k] as readonly [number, number];
      let nx = cx + dx;
      let ny = cy + dy;
      while (nx >= 0 && ny >= 0 && nx < size && ny < size) {
        const idx = ny * size + nx;
        const c = cellAt(idx);
        if (c === ".") {
          if (seen[idx] !== stamp) {
            seen[idx] = stamp;
            depth[idx] = d + 1;
            queue[tail++] = idx;
          }
        } else {
          if (c === "t") return d + 1;
          break;
        }
        if (!slides) break;
        nx += dx;
        ny += dy;
      }
    }
  }
  return Infinity;
}

/**
 * A leaper's distances to the nearest target from every square, searched backwards from the targets
 * in one breadth-first pass (the square `lift` counting as empty), up to `cap` moves: what
 * distToTarget would say from each start, for one search instead of one per start. A square from
 * which a capture is at most `cap` moves away has back.seen === back.stamp and its distance in
 * back.depth (0 on a target). Only for leapers: one jump per vector, so a square's predecessors are
 * the squares one reversed vector away that the forward search may pass through (the empty ones).
 */
function leaperDistances(vectors: readonly (readonly [number, number])[], size: number, grid: readonly string[], cap: number, lift: number): void {
  const n = size * size;
  const st = nextSearch(back, n);
  const { seen: bs, queue: bq, depth: bd } = back;
  let tail = 0;
  for (let i = 0; i < n; i++) {
    if (i !== lift && grid[i] === "t") {
      bs[i] = st;
      bd[i] = 0;
      bq[tail++] = i;
    }
  }
  let head = 0;
  while (head < tail) {
    const cur = bq[head++] as number;
    const d = bd[cur] as number;
    if (d + 1 > cap) break;
    const cx = cur % size;
    const cy = (cur - cx) / size;
    for (let k = 0; k < vectors.length; k++) {
      const [dx, dy] = vectors[k] as readonly [number, number];
      const px = cx - dx;
      const py = cy - dy;
      if (px < 0 || py < 0 || px >= size || py >= size) continue;
      const idx = py * size + px;
      if (bs[idx] === st || (idx !== lift && grid[idx] !== ".")) continue;
      bs[idx] = st;
      bd[idx] = d + 1;
      bq[tail++] = idx;
    }
  }
}

/**
 * Moves from `start` (the square `lift` counting as empty) to every square, every target counting as
 * empty too: depthOut[i] for each square reached, -1 otherwise. A target's depth is the fewest moves
 * that capture it with the other targets counting as empty (its own cell matters only once it is
 * met), so one search gives every target's distance.
 */
function distancesThroughTargets(rule: Pick<PieceRule, "kind" | "vectors">, size: number, grid: readonly string[], start: number, lift: number, depthOut: Int32Array): void {
  depthOut.fill(-1);
  nextSearch(forward, size * size);
  const q = forward.queue;
  const slides = rule.kind !== "leaper";
  const vectors = rule.vectors;
  depthOut[start] = 0;
  q[0] = start;
  let head = 0;
  let tail = 1;
  while (head < tail) {
    const cur = q[head++] as number;
    const d = depthOut[cur] as number;
    const cx = cur % size;
    const cy = (cur - cx) / size;
    for (let k = 0; k < vectors.length; k++) {
      const [dx, dy] = vectors[k] as readonly [number, number];
      let nx = cx + dx;
      let ny = cy + dy;
      while (nx >= 0 && ny >= 0 && nx < size && ny < size) {
        const idx = ny * size + nx;
        const c = idx === lift ? "." : (grid[idx] as string);
        if (c !== "." && c !== "t") break;
        if (depthOut[idx] === -1) {
          depthOut[idx] = d + 1;
          q[tail++] = idx;
        }
        if (!slides) break;
        nx += dx;
        ny += dy;
      }
    }
  }
}

/** How many targets (on `v`'s grid) `rule` reaches in one move from `from`, the moving piece lifted off `lift`. */
function linedUp(rule: Pick<PieceRule, "kind" | "vectors">, v: View, from: Sq, lift: number): number {
  const size = v.size;
  let count = 0;
  for (const [dx, dy] of rule.vectors) {
    let nx = from.x + dx;
    let ny = from.y + dy;
    while (nx >= 0 && ny >= 0 && nx < size && ny < size) {
      const idx = ny * size + nx;
      const c = idx === lift ? "." : v.grid[idx];
      if (c !== ".") {
        if (c === "t") count++;
        break;
      }
      if (rule.kind === "leaper") break;
      nx += dx;
      ny += dy;
    }
  }
  return count;
}

/**
 * Steps the known moves would need to clear the board: per target, the fewest moves any piece needs
 * by what is known of its rule (3 when nothing known reaches it). The budget probing must leave.
 */
function cleanupEstimate(v: View, ruleOf: (t: PieceType) => Pick<PieceRule, "kind" | "vectors">): number {
  // Per target, the fewest moves of any piece, the other targets counting as empty and the piece as
  // lifted off its square: one search per piece (distancesThroughTargets) instead of one per piece
  // and target.
  const nearest = v.targets.map(() => Infinity);
  const depths = new Int32Array(v.size * v.size);
  for (const p of v.pieces) {
    const own = p.y * v.size + p.x;
    distancesThroughTargets(ruleOf(p.type), v.size, v.grid, own, own, depths);
    v.targets.forEach((t, i) => {
      const d = depths[t.y * v.size + t.x] as number;
      if (d >= 0 && d < (nearest[i] as number)) nearest[i] = d;
    });
  }
  let total = 0;
  for (const d of nearest) total += d === Infinity ? 3 : d;
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
    const lift = p.y * v.size + p.x;
    // A leaper's distances from every landing square come from one backward search.
    const leaper = rule.kind === "leaper";
    if (leaper) leaperDistances(rule.vectors, v.size, v.grid, cap, lift);
    for (const d of destinations(rule, v.size, v.grid, p.x, p.y)) {
      const i = d.y * v.size + d.x;
      const c = at(v, d.x, d.y);
      const known = leaper && (c === "." || c === "t") && i !== lift;
      const dist = 1 + (known ? (back.seen[i] === back.stamp ? (back.depth[i] as number) : Infinity) : distToTarget(rule, v.size, v.grid, d, cap, lift));
      if (dist === Infinity) continue;
      bestDist = Math.min(bestDist, dist);
      // From the landing square (the piece's own square now empty); its one moves that reach a target.
      const lined = at(v, d.x, d.y) === "t" ? 0 : linedUp(rule, v, d, lift);
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
    // Each type's rule is built once per step (the searches ask for it per piece and per target).
    const rules = new Map<PieceType, Pick<PieceRule, "kind" | "vectors">>();
    const ruleOf = (t: PieceType): Pick<PieceRule, "kind" | "vectors"> => {
      let r = rules.get(t);
      if (r === undefined) {
        const k = know.get(t);
        r = k ? knownRule(k) : PIECE_RULES[t];
        rules.set(t, r);
      }
      return r;
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
          const kk = PROBE_KEYS[(dy + PROBE_RADIUS) * (2 * PROBE_RADIUS + 1) + dx + PROBE_RADIUS] as string;
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
