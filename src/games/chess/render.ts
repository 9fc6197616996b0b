/** The chess observation text, the facts it shows, and the parser that reads them back. */
import { FILES, MAX_SIZE, PIECE_RULES, PIECE_TYPES, hiddenTypes, listTypes, occupancy, parseSquare, squareName, type ChessConfig, type ChessInner, type PieceType } from "./rules.js";

/** What a player sees, as data. Lists are in a canonical order so text and state compare equal. */
export interface ChessFacts {
  size: number;
  /** Sorted by type (R, A, B), then file, then rank. */
  pieces: Array<{ type: PieceType; square: string }>;
  /** Sorted by file, then rank. */
  targets: string[];
  targetsLeft: number;
  targetsTotal: number;
  /** Types whose movement the player must discover, in PIECE_TYPES order. */
  hidden: PieceType[];
}

function byFileRank(a: { x: number; y: number }, b: { x: number; y: number }): number {
  return a.x - b.x || a.y - b.y;
}

function canonicalPieces(pieces: ReadonlyArray<{ type: PieceType; x: number; y: number }>): ChessFacts["pieces"] {
  return pieces
    .slice()
    .sort((a, b) => PIECE_TYPES.indexOf(a.type) - PIECE_TYPES.indexOf(b.type) || byFileRank(a, b))
    .map((p) => ({ type: p.type, square: squareName(p.x, p.y) }));
}

function canonicalTargets(targets: ReadonlyArray<{ x: number; y: number }>): string[] {
  return targets
    .slice()
    .sort(byFileRank)
    .map((t) => squareName(t.x, t.y));
}

export function facts(inner: ChessInner, config: ChessConfig): ChessFacts {
  return {
    size: config.size,
    pieces: canonicalPieces(inner.pieces),
    targets: canonicalTargets(inner.targets),
    targetsLeft: inner.targets.length,
    targetsTotal: config.targets,
    hidden: hiddenTypes(config),
  };
}

function fileHeader(size: number, w: number): string {
  return `${" ".repeat(w)} ${FILES.slice(0, size).split("").join(" ")}`;
}

function hiddenLine(hidden: PieceType[]): string {
  return `Reminder: ${listTypes(hidden)} ${hidden.length === 1 ? "moves" : "move"} by fixed rules you must discover.`;
}

function legendLine(types: PieceType[]): string {
  const parts = types.map((t) => (PIECE_RULES[t].hidden ? `${t} your piece (hidden rules)` : `${t} your ${PIECE_RULES[t].label}`));
  return `Legend: ${[...parts, "t target", ". empty"].join(", ")}`;
}

function piecesLine(pieces: ChessFacts["pieces"]): string {
  const groups: string[] = [];
  for (const t of PIECE_TYPES) {
    const squares = pieces.filter((p) => p.type === t).map((p) => p.square);
    if (squares.length) groups.push(`${t} ${squares.join(", ")}`);
  }
  return `Your pieces: ${groups.join("; ")}`;
}

function targetsLine(f: Pick<ChessFacts, "targets" | "targetsLeft" | "targetsTotal">): string {
  return `Targets left: ${f.targetsLeft} of ${f.targetsTotal}${f.targets.length ? `: ${f.targets.join(", ")}` : ""}`;
}

export function render(inner: ChessInner, config: ChessConfig): string {
  const n = config.size;
  const w = String(n).length;
  const grid = occupancy(n, inner.pieces, inner.targets);
  const f = facts(inner, config);
  const lines = [`Board (${n}x${n}):`, fileHeader(n, w)];
  for (let y = n - 1; y >= 0; y--) lines.push(`${String(y + 1).padStart(w)} ${grid.slice(y * n, y * n + n).join(" ")}`);
  lines.push(fileHeader(n, w));
  lines.push(legendLine(PIECE_TYPES.filter((t) => config.pieces[t] > 0)));
  lines.push(piecesLine(f.pieces));
  lines.push(targetsLine(f));
  if (f.hidden.length) lines.push(hiddenLine(f.hidden));
  return lines.join("\n");
}

function fail(why: string): never {
  throw new Error(`not a chess observation: ${why}`);
}

/** Reads the facts back from an observation body (the text after the step header). */
export function parseObservation(body: string): ChessFacts {
  const lines = body.replace(/\r\n/g, "\n").trimEnd().split("\n");
  const head = /^Board \((\d+)x(\d+)\):$/.exec(lines[0] ?? "");
  if (!head || head[1] !== head[2]) fail("missing 'Board (NxN):' line");
  const n = Number(head[1]);
  if (n < 1 || n > MAX_SIZE) fail(`board size ${n} out of range`);
  const w = String(n).length;
  if (lines[1] !== fileHeader(n, w) || lines[n + 2] !== fileHeader(n, w)) fail("file labels do not match the board size");
  const pieces: Array<{ type: PieceType; x: number; y: number }> = [];
  const targets: Array<{ x: number; y: number }> = [];
  for (let i = 0; i < n; i++) {
    const y = n - 1 - i;
    const row = lines[2 + i] ?? "";
    const prefix = `${String(y + 1).padStart(w)} `;
    if (!row.startsWith(prefix)) fail(`rank ${y + 1} line missing`);
    const cells = row.slice(prefix.length).split(" ");
    if (cells.length !== n) fail(`rank ${y + 1} has ${cells.length} squares, expected ${n}`);
    cells.forEach((c, x) => {
      if (c === "t") targets.push({ x, y });
      else if ((PIECE_TYPES as readonly string[]).includes(c)) pieces.push({ type: c as PieceType, x, y });
      else if (c !== ".") fail(`unknown square content '${c}' on ${squareName(x, y)}`);
    });
  }
  const rest = lines.slice(n + 3);
  const legend = rest.find((l) => l.startsWith("Legend: "));
  if (!legend) fail("missing legend line");
  const piecesText = rest.find((l) => l.startsWith("Your pieces: "));
  const tl = /^Targets left: (\d+) of (\d+)(?:: (.*))?$/.exec(rest.find((l) => l.startsWith("Targets left: ")) ?? "");
  if (!piecesText || !tl) fail("missing 'Your pieces' or 'Targets left' line");
  const f: ChessFacts = {
    size: n,
    pieces: canonicalPieces(pieces),
    targets: canonicalTargets(targets),
    targetsLeft: Number(tl[1]),
    targetsTotal: Number(tl[2]),
    hidden: [],
  };
  if (f.targetsLeft !== targets.length) fail(`'Targets left: ${f.targetsLeft}' but the board shows ${targets.length}`);
  if (targetsLine(f) !== `Targets left: ${tl[1]} of ${tl[2]}${tl[3] !== undefined ? `: ${tl[3]}` : ""}`) fail("the target list does not match the board");
  if (piecesLine(f.pieces) !== piecesText) fail("the piece list does not match the board");
  for (const sq of f.targets) if (!parseSquare(sq)) fail(`bad square ${sq}`);
  const reminder = /^Reminder: (.+) moves? by fixed rules you must discover\.$/.exec(rest.find((l) => l.startsWith("Reminder: ")) ?? "");
  if (reminder) {
    const names = (reminder[1] as string).split(/, | and /);
    for (const t of names) if (!(PIECE_TYPES as readonly string[]).includes(t) || !PIECE_RULES[t as PieceType].hidden) fail(`'${t}' is not a hidden piece type`);
    f.hidden = PIECE_TYPES.filter((t) => names.includes(t));
  }
  return f;
}
