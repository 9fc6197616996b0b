/** The pvz observation text, its visible facts, and the parser that reads the facts back. */
import { PLANT_LETTERS, PLANT_NAMES, type LawnPlant, type PlantLetter, type PvzConfig, type PvzInner, type ZombieLetter } from "./rules.js";

export interface PvzFacts {
  turn: number;
  sun: number;
  rows: number;
  cols: number;
  /** A zombie got past column 0 (shown as a last line). */
  lost: boolean;
  /** Plants row-major. */
  plants: Array<{ row: number; col: number; type: LawnPlant }>;
  /** Zombies row-major by cell, in order of arrival within a cell; hp null when the config hides it. */
  zombies: Array<{ row: number; col: number; type: ZombieLetter; hp: number | null }>;
  costs: Record<PlantLetter, number>;
}

export function facts(inner: PvzInner, config: PvzConfig): PvzFacts {
  const plants: PvzFacts["plants"] = [];
  const zombies: PvzFacts["zombies"] = [];
  for (let r = 0; r < config.rows; r++) {
    for (let c = 0; c < config.cols; c++) {
      const p = inner.lawn[r]?.[c];
      if (p) plants.push({ row: r, col: c, type: p.type });
      for (const z of inner.zombies) {
        if (z.row === r && z.col === c) zombies.push({ row: r, col: c, type: z.type, hp: config.showZombieHp ? z.hp : null });
      }
    }
  }
  return { turn: inner.turn, sun: inner.sun, rows: config.rows, cols: config.cols, lost: inner.lost, plants, zombies, costs: { ...config.plantCost } };
}

function cellText(f: PvzFacts, r: number, c: number): string {
  const parts: string[] = [];
  const p = f.plants.find((x) => x.row === r && x.col === c);
  if (p) parts.push(p.type);
  for (const z of f.zombies) if (z.row === r && z.col === c) parts.push(z.hp === null ? z.type : `${z.type}${z.hp}`);
  return parts.length > 0 ? parts.join("+") : ".";
}

const CELLS_LEGEND_HP = "Cells: '.' empty; otherwise the plant letter, then each zombie as its letter and HP, joined by '+'.";
const CELLS_LEGEND = "Cells: '.' empty; otherwise the plant letter, then each zombie's letter (HP hidden), joined by '+'.";
const LOST_LINE = "A zombie got past column 0: the lawn is lost.";
const costsText = (costs: Record<PlantLetter, number>): string => PLANT_LETTERS.map((k) => `${k} ${PLANT_NAMES[k]} ${costs[k]}`).join(", ");

export function renderFacts(f: PvzFacts, showZombieHp: boolean): string {
  const cells = Array.from({ length: f.rows }, (_, r) => Array.from({ length: f.cols }, (_, c) => cellText(f, r, c)));
  const labels = Array.from({ length: f.cols }, (_, c) => `col${c}`);
  const width = Math.max(...labels.map((s) => s.length), ...cells.flat().map((s) => s.length)) + 2;
  const rowLabel = Math.max(...Array.from({ length: f.rows }, (_, r) => `row${r}`.length)) + 2;
  const pad = (s: string, w: number) => s.padEnd(w);
  const lines = [
    `Turn ${f.turn}`,
    `Sun: ${f.sun}`,
    `Lawn (${f.rows} rows x ${f.cols} columns; zombies enter at column ${f.cols - 1} and walk toward column 0):`,
    (" ".repeat(rowLabel) + labels.map((s) => pad(s, width)).join("")).trimEnd(),
    ...cells.map((line, r) => (pad(`row${r}`, rowLabel) + line.map((s) => pad(s, width)).join("")).trimEnd()),
    showZombieHp ? CELLS_LEGEND_HP : CELLS_LEGEND,
    `Plant costs: ${costsText(f.costs)}`,
  ];
  if (f.lost) lines.push(LOST_LINE);
  return lines.join("\n");
}

/**
 * renderFacts(facts(...)) without the facts: one pass over the zombies instead of one per cell, and
 * string appends instead of arrays per line (the same bytes; tests compare the two). Lines are not
 * padded after their last cell, which is what renderFacts' trimEnd leaves (a cell is never blank).
 */
export function render(inner: PvzInner, config: PvzConfig): string {
  const { rows, cols, showZombieHp } = config;
  const n = rows * cols;
  if (scratch.length < n) scratch = new Array<string>(n);
  const cells = scratch;
  for (let r = 0; r < rows; r++) {
    const lawnRow = inner.lawn[r];
    for (let c = 0; c < cols; c++) {
      const p = lawnRow?.[c];
      cells[r * cols + c] = p ? p.type : "";
    }
  }
  for (const z of inner.zombies) {
    if (z.row < 0 || z.row >= rows || z.col < 0 || z.col >= cols) continue;
    const i = z.row * cols + z.col;
    const t = showZombieHp ? z.type + z.hp : z.type;
    cells[i] = cells[i] === "" ? t : `${cells[i]}+${t}`;
  }
  let width = `col${cols - 1}`.length;
  for (let i = 0; i < n; i++) {
    if (cells[i] === "") cells[i] = ".";
    else if (cells[i]!.length > width) width = cells[i]!.length;
  }
  width += 2;
  const lay = layout(rows, cols, width);
  let out = `Turn ${inner.turn}\nSun: ${inner.sun}\n${lay.head}`;
  for (let r = 0; r < rows; r++) {
    out += lay.rowLabels[r]!;
    const end = (r + 1) * cols - 1;
    for (let i = r * cols; i < end; i++) {
      const cell = cells[i]!;
      out += cell + lay.spaces.slice(cell.length);
    }
    out += cells[end]!;
  }
  out += showZombieHp ? `\n${CELLS_LEGEND_HP}` : `\n${CELLS_LEGEND}`;
  const k = config.plantCost;
  out += `\nPlant costs: X ${PLANT_NAMES.X} ${k.X}, W ${PLANT_NAMES.W} ${k.W}, S ${PLANT_NAMES.S} ${k.S}, J ${PLANT_NAMES.J} ${k.J}, H ${PLANT_NAMES.H} ${k.H}, F ${PLANT_NAMES.F} ${k.F}`;
  if (inner.lost) out += `\n${LOST_LINE}`;
  return out;
}

// The cells of the lawn being rendered, reused from call to call (render is synchronous).
let scratch: string[] = [];

/** What depends only on the lawn's size and the column width: the lawn line and header, row labels. */
interface Layout {
  rows: number;
  cols: number;
  width: number;
  /** The "Lawn (...)" line and the column header (trailing spaces trimmed). */
  head: string;
  /** "\n" and the padded row label, per row. */
  rowLabels: string[];
  /** `width` spaces: a cell is padded with the part its text leaves. */
  spaces: string;
}

// The last layout, and a few more: the width changes when a zombie's HP gets a second digit.
const layouts = new Map<string, Layout>();
let last: Layout | undefined;

function layout(rows: number, cols: number, width: number): Layout {
  if (last !== undefined && last.rows === rows && last.cols === cols && last.width === width) return last;
  const key = `${rows}|${cols}|${width}`;
  let l = layouts.get(key);
  if (!l) {
    const rowLabel = `row${rows - 1}`.length + 2;
    let header = " ".repeat(rowLabel);
    for (let c = 0; c < cols; c++) header += `col${c}`.padEnd(width);
    l = {
      rows,
      cols,
      width,
      head: `Lawn (${rows} rows x ${cols} columns; zombies enter at column ${cols - 1} and walk toward column 0):\n${header.trimEnd()}`,
      rowLabels: Array.from({ length: rows }, (_, r) => `\n${`row${r}`.padEnd(rowLabel)}`),
      spaces: " ".repeat(width),
    };
    if (layouts.size >= 64) layouts.clear();
    layouts.set(key, l);
  }
  last = l;
  return l;
}

function fail(why: string): never {
  throw new Error(`not a pvz observation: ${why}`);
}

/** Reads the facts back from an observation body (the text after the step header). */
export function parseObservation(body: string): PvzFacts {
  const lines = body.split("\n");
  let i = 0;
  const next = (): string => {
    const l = lines[i++];
    if (l === undefined) fail("text ends early");
    return l;
  };
  const turnM = /^Turn (\d+)$/.exec(next());
  if (!turnM) fail("expected 'Turn <n>' on the first line");
  const sunM = /^Sun: (\d+)$/.exec(next());
  if (!sunM) fail("expected 'Sun: <n>'");
  const lawnM = /^Lawn \((\d+) rows x (\d+) columns;/.exec(next());
  if (!lawnM) fail("expected the 'Lawn (R rows x C columns; ...' line");
  const rows = Number(lawnM[1]);
  const cols = Number(lawnM[2]);
  const header = next().trim().split(/\s+/);
  if (header.length !== cols || header.some((h, c) => h !== `col${c}`)) fail("bad column labels");
  const plants: PvzFacts["plants"] = [];
  const zombies: PvzFacts["zombies"] = [];
  for (let r = 0; r < rows; r++) {
    const tokens = next().trim().split(/\s+/);
    if (tokens[0] !== `row${r}` || tokens.length !== cols + 1) fail(`bad lawn line for row ${r}`);
    for (let c = 0; c < cols; c++) {
      const cell = tokens[c + 1] as string;
      if (cell === ".") continue;
      const parts = cell.split("+");
      parts.forEach((part, k) => {
        const pm = /^[XWSJH]$/.exec(part);
        if (pm && k === 0) {
          plants.push({ row: r, col: c, type: part as LawnPlant });
          return;
        }
        const zm = /^([NRBI])(\d+)?$/.exec(part);
        if (!zm) fail(`bad cell '${cell}' at row ${r}, column ${c}`);
        zombies.push({ row: r, col: c, type: zm[1] as ZombieLetter, hp: zm[2] === undefined ? null : Number(zm[2]) });
      });
    }
  }
  if (!/^Cells: /.test(next())) fail("expected the 'Cells:' legend line");
  const costLine = next();
  if (!costLine.startsWith("Plant costs: ")) fail("expected 'Plant costs: ...'");
  const costs = {} as Record<PlantLetter, number>;
  for (const item of costLine.slice("Plant costs: ".length).split(", ")) {
    const m = /^([XWSJHF]) [a-z -]+ (\d+)$/.exec(item);
    if (!m) fail(`bad plant cost '${item}'`);
    costs[m[1] as PlantLetter] = Number(m[2]);
  }
  if (PLANT_LETTERS.some((k) => costs[k] === undefined)) fail("plant costs incomplete");
  let lost = false;
  if (i < lines.length) {
    if (lines[i] === "A zombie got past column 0: the lawn is lost." && i === lines.length - 1) lost = true;
    else fail(`unexpected line '${lines[i]}'`);
  }
  return { turn: Number(turnM[1]), sun: Number(sunM[1]), rows, cols, lost, plants, zombies, costs };
}
