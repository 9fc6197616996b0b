/** The units of nullify and the arithmetic the game, its generator check and the heuristic share. */
import { formatNumber } from "../text.js";

export const UNARY_OPERATORS = ["floor", "ceil", "sqrt", "square", "reciprocal"] as const;
export type UnaryName = (typeof UNARY_OPERATORS)[number];

/** Two numbers whose sum is below this in magnitude cancel (both vanish). */
export const CANCEL_TOLERANCE = 1e-9;
/** A last remaining number at most this far from 0 wins. */
export const WIN_TOLERANCE = 1e-6;
/**
 * A move whose result would exceed this in magnitude is illegal. Keeps every state finite (JSON has
 * no Infinity) and every printed number in plain decimal notation.
 */
export const MAX_MAGNITUDE = 1e12;

export type Operator = { kind: "mul"; by: number } | { kind: "div"; by: number } | { kind: UnaryName };
export type Unit = { kind: "num"; value: number } | Operator;

export function unitText(u: Unit): string {
  switch (u.kind) {
    case "num": {
      const s = formatNumber(u.value);
      return s === "0" || s.startsWith("-") ? s : `+${s}`;
    }
    case "mul":
      return `*${u.by}`;
    case "div":
      return `/${u.by}`;
    default:
      return u.kind;
  }
}

export type OpResult = { ok: true; value: number } | { ok: false; why: string };

/**
 * Applies an operator to a number. `slack` widens the edge cases for callers that only know x to
 * within +-slack (the heuristic reads rounded numbers); the game itself always passes 0, so that
 * sqrt of a negative and reciprocal of exactly 0 are illegal and floor/ceil act on the exact value.
 */
export function applyOperator(x: number, op: Operator, slack = 0): OpResult {
  let value: number;
  switch (op.kind) {
    case "mul":
      value = x * op.by;
      break;
    case "div":
      value = x / op.by;
      break;
    case "sqrt":
      if (x < -slack) return { ok: false, why: "sqrt of a negative number is undefined" };
      value = Math.sqrt(Math.max(x, 0));
      break;
    case "square":
      value = x * x;
      break;
    case "reciprocal":
      if (Math.abs(x) <= slack) return { ok: false, why: "reciprocal of 0 is undefined" };
      value = 1 / x;
      break;
    case "floor":
    case "ceil": {
      const k = Math.round(x);
      value = Math.abs(x - k) <= slack ? k : op.kind === "floor" ? Math.floor(x) : Math.ceil(x);
      break;
    }
  }
  if (!(Math.abs(value) <= MAX_MAGNITUDE)) return { ok: false, why: "the result would exceed 10^12 in magnitude" };
  return { ok: true, value: value === 0 ? 0 : value };
}
