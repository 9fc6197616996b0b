import { formatNumber } from "../text.js";
import { UNARY_OPERATORS, type Unit, unitText } from "./arith.js";
import type { NullifyConfig, NullifyInner, Status } from "./rules.js";

/** What a player sees: the units as printed (numbers rounded to 6 decimals) and how the game stands. */
export interface NullifyFacts {
  units: Unit[];
  status: Status;
}

const STATUS_LINES: Record<Exclude<Status, "playing">, string> = {
  won: "All units are eliminated.",
  stuck: "No legal move remains.",
};

export function render(inner: NullifyInner, _config?: NullifyConfig): string {
  const lines = [`Units (${inner.units.length}):`];
  if (inner.units.length === 0) lines.push("(none)");
  inner.units.forEach((u, i) => lines.push(`[${i}] ${unitText(u)}`));
  if (inner.status !== "playing") lines.push(STATUS_LINES[inner.status]);
  return lines.join("\n");
}

export function facts(inner: NullifyInner, _config?: NullifyConfig): NullifyFacts {
  return {
    units: inner.units.map((u) => (u.kind === "num" ? { kind: "num", value: Number(formatNumber(u.value)) } : { ...u })),
    status: inner.status,
  };
}

export function parseUnit(token: string): Unit {
  if (/^[+-]?\d+(\.\d+)?$/.test(token)) {
    const value = Number(token);
    return { kind: "num", value: value === 0 ? 0 : value };
  }
  const scale = /^([*/])(-?\d+)$/.exec(token);
  if (scale) {
    const by = Number(scale[2]);
    if (by === 0) throw new Error(`nullify observation: operator '${token}' has operand 0`);
    return { kind: scale[1] === "*" ? "mul" : "div", by };
  }
  if ((UNARY_OPERATORS as readonly string[]).includes(token)) return { kind: token as (typeof UNARY_OPERATORS)[number] };
  throw new Error(`nullify observation: '${token}' is not a unit`);
}

export function parseObservation(body: string): NullifyFacts {
  const lines = body.split("\n");
  while (lines.length > 0 && lines[lines.length - 1]!.trim() === "") lines.pop();
  const head = /^Units \((\d+)\):$/.exec(lines[0] ?? "");
  if (!head) throw new Error("not a nullify observation: expected a first line 'Units (n):'");
  const n = Number(head[1]);
  let k = 1;
  if (n === 0) {
    if (lines[k] !== "(none)") throw new Error("nullify observation: expected '(none)' for an empty board");
    k++;
  }
  const units: Unit[] = [];
  for (let i = 0; i < n; i++, k++) {
    const m = /^\[(\d+)\] (\S+)$/.exec(lines[k] ?? "");
    if (!m || Number(m[1]) !== i) throw new Error(`nullify observation: expected unit line '[${i}] <unit>', got '${lines[k] ?? ""}'`);
    units.push(parseUnit(m[2]!));
  }
  let status: Status = "playing";
  if (k < lines.length) {
    const entry = Object.entries(STATUS_LINES).find(([, text]) => text === lines[k]);
    if (!entry) throw new Error(`nullify observation: unexpected line '${lines[k]}'`);
    status = entry[0] as Status;
    k++;
  }
  if (k !== lines.length) throw new Error(`nullify observation: unexpected line '${lines[k]}'`);
  return { units, status };
}
