import { z } from "zod";
import { invalidFeedback } from "../envelope.js";
import type { Rng } from "../../util/rng.js";
import { normalizeAction } from "../text.js";
import type { BaseConfig, Transition } from "../types.js";
import { applyOperator, CANCEL_TOLERANCE, MAX_MAGNITUDE, type Operator, UNARY_OPERATORS, type UnaryName, type Unit, unitText, WIN_TOLERANCE } from "./arith.js";
import { solve } from "./solver.js";

export { UNARY_OPERATORS, unitText, type Operator, type UnaryName, type Unit };

/**
 * Generated boards keep every number in this magnitude band, so no starting number prints as 0 or as
 * an unreadable giant.
 */
export const MIN_START_MAGNITUDE = 1e-4;
export const MAX_START_MAGNITUDE = 1e6;
/** Node budget of `solveExact` (the tests' independent check of generated boards). */
export const GENERATOR_SEARCH_NODES = 20000;
/** Redraws before the generator falls back to a fixed cancelling pair (never reached for seeds 0..199). */
export const GENERATOR_MAX_DRAWS = 400;

export interface NullifyConfig extends BaseConfig {
  /** Backward generation steps, drawn uniformly in [minGenSteps, maxGenSteps]. */
  minGenSteps: number;
  maxGenSteps: number;
  /** Added numbers and the v of `*v`, `/v` are non-zero integers in [-maxOperand, maxOperand]. */
  maxOperand: number;
  /** Unary operators the generator may use (none in explore). */
  unaryOperators: UnaryName[];
}

export const configSchema = z
  .object({
    minGenSteps: z.number().int().min(1).max(30),
    maxGenSteps: z.number().int().min(1).max(30),
    maxOperand: z.number().int().min(1).max(100),
    unaryOperators: z.array(z.enum(UNARY_OPERATORS)),
    maxSteps: z.number().int().min(1).max(10000),
  })
  .refine((c) => c.minGenSteps <= c.maxGenSteps, { message: "minGenSteps must not exceed maxGenSteps", path: ["minGenSteps"] });

export const configs: Record<"explore" | "eval", NullifyConfig> = {
  explore: { minGenSteps: 3, maxGenSteps: 5, maxOperand: 10, unaryOperators: [], maxSteps: 64 },
  eval: { minGenSteps: 6, maxGenSteps: 10, maxOperand: 10, unaryOperators: [...UNARY_OPERATORS], maxSteps: 64 },
};

/**
 * Named explore variants (verified.md): what a curriculum may choose for an exploration episode
 * besides `explore`. Evaluation never plays them; their rules text states them (longer puzzles;
 * the unary operators of eval).
 */
export const exploreVariants: Record<string, NullifyConfig> = {
  longer: { ...configs.explore, unaryOperators: [...configs.explore.unaryOperators], minGenSteps: 5, maxGenSteps: 7 },
  unary: { ...configs.explore, unaryOperators: [...UNARY_OPERATORS] },
};

const finite = z.number().finite();
const nonZeroInt = z
  .number()
  .int()
  .refine((v) => v !== 0, { message: "operand must be non-zero" });
export const unitSchema: z.ZodType<Unit> = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("num"), value: finite }),
  z.object({ kind: z.literal("mul"), by: nonZeroInt }),
  z.object({ kind: z.literal("div"), by: nonZeroInt }),
  z.object({ kind: z.enum(UNARY_OPERATORS) }),
]);

export type Status = "playing" | "won" | "stuck";

export interface NullifyInner {
  /** The units in display order; a combination removes its two units and appends its result. */
  units: Unit[];
  /** playing, won (board cleared), or stuck (no legal move left: lost). */
  status: Status;
}

export const innerSchema: z.ZodType<NullifyInner> = z.object({
  units: z.array(unitSchema),
  status: z.enum(["playing", "won", "stuck"]),
});

export const actionGrammar = "<i> <j>";

/** The outcome of combining two units: illegal, both vanish, or one new number. */
export type CombineResult = { ok: false; why: string } | { ok: true; result: number | null };

export function combine(a: Unit, b: Unit): CombineResult {
  if (a.kind === "num" && b.kind === "num") {
    const s = a.value + b.value;
    if (Math.abs(s) < CANCEL_TOLERANCE) return { ok: true, result: null };
    if (Math.abs(s) > MAX_MAGNITUDE) return { ok: false, why: "the result would exceed 10^12 in magnitude" };
    return { ok: true, result: s };
  }
  if (a.kind !== "num" && b.kind !== "num") return { ok: false, why: "both are operators" };
  const num = (a.kind === "num" ? a : b) as { kind: "num"; value: number };
  const op = (a.kind === "num" ? b : a) as Operator;
  const r = applyOperator(num.value, op);
  return r.ok ? { ok: true, result: r.value } : r;
}

export function isWon(units: Unit[]): boolean {
  if (units.length === 0) return true;
  const only = units[0];
  return units.length === 1 && only !== undefined && only.kind === "num" && Math.abs(only.value) <= WIN_TOLERANCE;
}

/** All legal moves as index pairs i < j, in display order. */
export function legalPairs(units: Unit[]): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  for (let i = 0; i < units.length; i++) {
    for (let j = i + 1; j < units.length; j++) {
      if (combine(units[i]!, units[j]!).ok) out.push([i, j]);
    }
  }
  return out;
}

export function hasLegalMove(units: Unit[]): boolean {
  for (let i = 0; i < units.length; i++) {
    for (let j = i + 1; j < units.length; j++) {
      if (combine(units[i]!, units[j]!).ok) return true;
    }
  }
  return false;
}

/** Removes units i and j and appends the result, if any (the game's board update). */
export function combineAt(units: Unit[], i: number, j: number, result: number | null): Unit[] {
  const next = units.filter((_, k) => k !== i && k !== j);
  if (result !== null) next.push({ kind: "num", value: result });
  return next;
}

function nonZeroOperand(rng: Rng, max: number): number {
  const v = rng.intBetween(1, max);
  return rng.int(2) === 0 ? v : -v;
}

/**
 * One backward draw, as KORGym builds its boards: start from 0 and undo one operation per step, so
 * the last number replayed through the units in reverse order returns to 0. Fixes over KORGym: no
 * 4-decimal rounding of the units (the state keeps exact doubles), `square` is only undone from a
 * positive value (KORGym undoes it from negatives too, which square can never reach), floor/ceil
 * redraw the pre-image as k +- a two-decimal fraction in [0.01, 0.99] (never on an integer boundary),
 * and a final value of 0 adds no `0` unit. The units come in the order they were made (the board
 * is this list shuffled): replaying them from the end is the intended winning line.
 */
export function drawChain(config: NullifyConfig, rng: Rng): Unit[] {
  const kinds = config.unaryOperators.length > 0 ? (["add", "scale", "unary"] as const) : (["add", "scale"] as const);
  let steps = rng.intBetween(config.minGenSteps, config.maxGenSteps);
  let cur = 0;
  const units: Unit[] = [];
  while (steps > 0) {
    const kind = rng.pick(kinds);
    if (kind === "add") {
      const n = nonZeroOperand(rng, config.maxOperand);
      cur -= n;
      if (Math.abs(cur) < CANCEL_TOLERANCE) cur = 0;
      units.push({ kind: "num", value: n });
      steps--;
      continue;
    }
    if (cur === 0) continue; // scaling or a unary step cannot move away from 0
    if (kind === "scale") {
      const v = nonZeroOperand(rng, config.maxOperand);
      if (rng.int(2) === 0) {
        cur /= v;
        units.push({ kind: "mul", by: v });
      } else {
        cur *= v;
        units.push({ kind: "div", by: v });
      }
      steps--;
      continue;
    }
    const op = rng.pick(config.unaryOperators);
    switch (op) {
      case "sqrt":
        if (cur < 0) continue;
        cur = cur * cur;
        break;
      case "square":
        if (cur <= 0) continue;
        cur = Math.sqrt(cur);
        break;
      case "reciprocal":
        cur = 1 / cur;
        break;
      case "floor": {
        const k = Math.floor(cur);
        if (cur - k !== 0) units.push({ kind: "num", value: cur - k });
        cur = k + rng.intBetween(1, 99) / 100;
        break;
      }
      case "ceil": {
        const k = Math.ceil(cur);
        if (cur - k !== 0) units.push({ kind: "num", value: cur - k });
        cur = k - rng.intBetween(1, 99) / 100;
        break;
      }
    }
    units.push({ kind: op });
    steps--;
  }
  if (cur !== 0) units.push({ kind: "num", value: cur });
  return units;
}

/**
 * The intended line of a backward draw as moves on `board` (the draw shuffled), or null when it does
 * not win under the game's own rules. Replaying the units from the last made to the first, each one
 * combines with the running number (or starts a new one after a cancellation), with the game's
 * `combine` on the true doubles, stopping as `apply` would (a win, or no legal move left). A line that
 * wins is the certificate that the board is solvable; floating error can spoil it (e.g. a sum that
 * should cancel misses the 1e-9 tolerance), and such draws are redrawn. Linear in the units times
 * the board scan: this replaces the exact search that made reset slow (p99 73 ms).
 */
export function intendedLine(chain: readonly Unit[], board: readonly Unit[]): Array<[number, number]> | null {
  let units = board.slice();
  let running: Unit | null = null;
  const line: Array<[number, number]> = [];
  for (let k = chain.length - 1; k >= 0; k--) {
    const u = chain[k]!;
    if (running === null) {
      if (u.kind !== "num") return null;
      running = u;
      continue;
    }
    const i = units.indexOf(running);
    const j = units.indexOf(u);
    const c = combine(running, u);
    if (i < 0 || j < 0 || !c.ok) return null;
    line.push([Math.min(i, j), Math.max(i, j)]);
    units = combineAt(units, i, j, c.result);
    if (isWon(units)) return line;
    if (!hasLegalMove(units)) return null;
    running = c.result === null ? null : (units[units.length - 1] as Unit);
  }
  return null;
}

/** A generated board with the winning line it was built along (moves as `apply` reads them). */
export interface Generated {
  units: Unit[];
  line: Array<[number, number]>;
}

function startsReadable(units: Unit[]): boolean {
  if (units.length < 2) return false;
  return units.every((u) => u.kind !== "num" || (Math.abs(u.value) >= MIN_START_MAGNITUDE && Math.abs(u.value) <= MAX_START_MAGNITUDE));
}

/** Exact search on the true doubles: the move list of a winning line, or null within the budget. */
export function solveExact(units: Unit[], maxNodes = GENERATOR_SEARCH_NODES): Array<[number, number]> | null {
  const res = solve(
    units.map((u) => (u.kind === "num" ? { kind: "num" as const, v: u.value, e: 0 } : u)),
    { maxNodes, tolerant: false },
  );
  return res.status === "solved" ? res.moves : null;
}

/**
 * Backward draws, each shuffled with the same generator, until one is readable and its intended line
 * wins on the shuffled board (`intendedLine`: the certificate of solvability, returned with it).
 */
export function generate(config: NullifyConfig, rng: Rng): Generated {
  for (let draw = 0; draw < GENERATOR_MAX_DRAWS; draw++) {
    const chain = drawChain(config, rng);
    const units = rng.shuffled(chain);
    if (!startsReadable(units)) continue;
    const line = intendedLine(chain, units);
    if (line) return { units, line };
  }
  const n = nonZeroOperand(rng, config.maxOperand);
  return {
    units: [
      { kind: "num", value: n },
      { kind: "num", value: -n },
    ],
    line: [[0, 1]],
  };
}

export function init(config: NullifyConfig, rng: Rng): NullifyInner {
  return { units: generate(config, rng).units, status: "playing" };
}

export function score(inner: NullifyInner): number {
  return inner.status === "won" ? 1 : 0;
}

function illegal(why: string): Transition {
  return { reward: 0, feedback: invalidFeedback(actionGrammar, why), valid: false, done: false };
}

/** Reads `<i> <j>` (two unit indices as typed); null if the answer is not that. */
export function parseAction(raw: string): [number, number] | null {
  const m = /^(\d+) (\d+)$/.exec(normalizeAction(raw));
  return m ? [Number(m[1]), Number(m[2])] : null;
}

/**
 * The copy step() hands to apply (GameRules.copyInner): the units are shared with the previous state,
 * since apply replaces the list (combineAt) and never changes a unit.
 */
export function copyInner(inner: NullifyInner): NullifyInner {
  return { units: inner.units, status: inner.status };
}

export function apply(inner: NullifyInner, action: string | null): Transition {
  if (inner.status !== "playing") {
    return { reward: 0, feedback: invalidFeedback(actionGrammar, "the game is already over"), valid: false, done: true };
  }
  if (action === null) return illegal("no action found");
  const parsed = parseAction(action);
  if (!parsed) return illegal("could not read two unit indices");
  const [i, j] = parsed;
  const n = inner.units.length;
  if (i >= n || j >= n) return illegal(`index out of range (units are numbered 0 to ${n - 1})`);
  if (i === j) return illegal("a unit cannot combine with itself");
  const a = inner.units[i]!;
  const b = inner.units[j]!;
  const c = combine(a, b);
  if (!c.ok) return illegal(`${unitText(a)} and ${unitText(b)} cannot combine (${c.why})`);
  inner.units = combineAt(inner.units, i, j, c.result);
  let feedback =
    c.result === null ? `${unitText(a)} and ${unitText(b)} cancel out.` : `${unitText(a)} and ${unitText(b)} give ${unitText({ kind: "num", value: c.result })}, now unit ${inner.units.length - 1}.`;
  if (isWon(inner.units)) {
    inner.status = "won";
    return { reward: 1, feedback: `${feedback} All units are eliminated: you win.`, valid: true, done: true };
  }
  if (!hasLegalMove(inner.units)) {
    inner.status = "stuck";
    feedback += " No legal move remains: the game is over and lost.";
    return { reward: 0, feedback, valid: true, done: true };
  }
  return { reward: 0, feedback, valid: true, done: false };
}

export function legalActions(inner: NullifyInner): string[] {
  if (inner.status !== "playing") return [];
  return legalPairs(inner.units).map(([i, j]) => `${i} ${j}`);
}

export function rulesBody(config: NullifyConfig): string {
  const unary = config.unaryOperators;
  const legend = [
    "- `+x` / `-x`: a signed number (shown with at most 6 decimals; the game keeps the exact value).",
    "- `*v` / `/v`: multiply / divide a number by v (v a non-zero integer).",
    ...(unary.includes("floor") ? ["- `floor`: round a number down to an integer."] : []),
    ...(unary.includes("ceil") ? ["- `ceil`: round a number up to an integer."] : []),
    ...(unary.includes("sqrt") ? ["- `sqrt`: square root of a number (illegal on a negative number)."] : []),
    ...(unary.includes("square") ? ["- `square`: a number times itself."] : []),
    ...(unary.includes("reciprocal") ? ["- `reciprocal`: 1 divided by a number (illegal on 0)."] : []),
  ];
  const gen = unary.length > 0 ? `operators \`*v\`, \`/v\` and ${unary.map((u) => `\`${u}\``).join(", ")}` : "operators `*v` and `/v` only (no floor, ceil, sqrt, square or reciprocal)";
  return [
    "Nullify: combine units until none is left.",
    "",
    "The board is a numbered list of units (indices start at 0). Each step you combine two of them:",
    "- number + number: they are added. If the sum is 0 both vanish; otherwise both are removed and the sum is appended at the end of the list as a new number.",
    "- number + operator: the operator is applied to the number; both are removed and the result is appended at the end.",
    "- Anything else (two operators, a unit with itself, an index that does not exist, sqrt of a negative number, reciprocal of 0, a result beyond 10^12 in magnitude) is an illegal move: nothing changes and the step is used up.",
    "The order of the two indices does not matter. After every move the remaining units are renumbered 0, 1, 2, ... in list order.",
    "",
    "Units:",
    ...legend,
    "",
    `This board: built backwards from 0 in ${config.minGenSteps} to ${config.maxGenSteps} steps, with added numbers and operands v between -${config.maxOperand} and ${config.maxOperand} (never 0), and ${gen}. Every board can be cleared.`,
    "",
    `Objective: eliminate every unit. You win when the last two numbers cancel, or when the last remaining unit is a number within ${WIN_TOLERANCE} of 0.`,
    "The game ends at once (a loss) when no legal move is left: a single non-zero number, only operators, or only pairs that cannot combine.",
    `You have at most ${config.maxSteps} steps; every reply counts as one, legal or not.`,
    "Reward: 1 for the move that wins, 0 for every other step (illegal moves included).",
    "",
    `Action: \`${actionGrammar}\`, the indices of the two units to combine, e.g. \`0 3\`.`,
  ].join("\n");
}
