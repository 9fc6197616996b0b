/**
 * Plants vs Zombies rules (games.md, "pvz"): a lawn of rows x columns, zombies entering at the right
 * edge in scheduled waves, plants bought with sun. One step is one game turn, whatever was planted.
 * Score = turns the lawn held, whatever each answer planted (games.md; see `apply`).
 */
import { z } from "zod";
import { invalidFeedback } from "../envelope.js";
import type { Rng } from "../../util/rng.js";
import { normalizeAction } from "../text.js";
import type { Transition } from "../types.js";

/** Plants that stay on the lawn; the chili never does (it burns out the turn it is planted). */
export const LAWN_PLANTS = ["X", "W", "S", "J", "H"] as const;
export type LawnPlant = (typeof LAWN_PLANTS)[number];
export const PLANT_LETTERS = ["X", "W", "S", "J", "H", "F"] as const;
export type PlantLetter = (typeof PLANT_LETTERS)[number];
export const ZOMBIE_LETTERS = ["N", "R", "B", "I"] as const;
export type ZombieLetter = (typeof ZOMBIE_LETTERS)[number];

export const PLANT_NAMES: Record<PlantLetter, string> = {
  X: "sunflower",
  W: "peashooter",
  S: "three-line shooter",
  J: "wall-nut",
  H: "torchwood",
  F: "chili",
};
export const ZOMBIE_NAMES: Record<ZombieLetter, string> = {
  N: "normal",
  R: "roadblock",
  B: "bucket",
  I: "high-attack",
};

const count = z.number().int().nonnegative();
const positive = z.number().int().min(1);
const zombieSpec = z.strictObject({
  hp: positive,
  attack: count,
  /** First turn (0-based) on which this type can be drawn for a wave. */
  fromTurn: count,
});

export const configSchema = z.strictObject({
  rows: z.number().int().min(1).max(20),
  cols: z.number().int().min(2).max(20),
  startSun: count,
  /** Sun added at the end of every turn the lawn holds. */
  sunPerTurn: count,
  /** Sun each sunflower adds in the sunflower phase. */
  sunflowerSun: count,
  /** Damage of one pea before the torchwood bonus. */
  peaDamage: positive,
  /** Extra damage of a pea that passed a torchwood (applied at most once per pea). */
  torchwoodBonus: count,
  plantCost: z.strictObject({ X: count, W: count, S: count, J: count, H: count, F: count }),
  plantHp: z.strictObject({ X: positive, W: positive, S: positive, J: positive, H: positive }),
  zombies: z.strictObject({ N: zombieSpec, R: zombieSpec, B: zombieSpec, I: zombieSpec }),
  /** A wave is due on every turn t with t % spawnEvery == 0: it enters in the spawn phase of turn t. */
  spawnEvery: positive,
  /** Zombies in a wave: waveBase + floor(t / waveGrowthEvery). */
  waveBase: count,
  waveGrowthEvery: positive,
  /** Extra HP of a zombie of the wave due on turn t: hpBonus * floor(t / hpBonusEvery). */
  hpBonus: count,
  hpBonusEvery: positive,
  /** Whether the observation shows each zombie's HP (explore) or only its type (eval). */
  showZombieHp: z.boolean(),
  maxSteps: positive,
});
export type PvzConfig = z.infer<typeof configSchema>;

const common = {
  startSun: 50,
  sunPerTurn: 25,
  sunflowerSun: 10,
  peaDamage: 1,
  torchwoodBonus: 1,
  plantCost: { X: 50, W: 100, S: 325, J: 50, H: 125, F: 300 },
  plantHp: { X: 2, W: 2, S: 2, J: 10, H: 2 },
  zombies: {
    N: { hp: 4, attack: 1, fromTurn: 0 },
    R: { hp: 8, attack: 1, fromTurn: 10 },
    B: { hp: 12, attack: 1, fromTurn: 20 },
    I: { hp: 6, attack: 3, fromTurn: 20 },
  },
  waveBase: 1,
  hpBonusEvery: 10,
  maxSteps: 64,
};

// Parsed through the schema so the key order is the schema's: a state restored from JSON then
// serialises byte for byte like the original.
export const configs: Record<"explore" | "eval", PvzConfig> = {
  explore: configSchema.parse({ ...structuredClone(common), rows: 3, cols: 7, spawnEvery: 6, waveGrowthEvery: 12, hpBonus: 0, showZombieHp: true }),
  eval: configSchema.parse({ ...structuredClone(common), rows: 5, cols: 6, spawnEvery: 5, waveGrowthEvery: 10, hpBonus: 4, showZombieHp: false }),
};

/**
 * Named explore variants (verified.md): what a curriculum may choose for an exploration episode
 * besides `explore`. Evaluation never plays them; their rules text states them (a wider lawn with
 * eval's five rows; faster waves).
 */
export const exploreVariants: Record<string, PvzConfig> = {
  "five-rows": configSchema.parse({ ...structuredClone(configs.explore), rows: 5 }),
  "fast-waves": configSchema.parse({ ...structuredClone(configs.explore), spawnEvery: 4, waveGrowthEvery: 8 }),
};

const plantSchema = z.strictObject({ type: z.enum(LAWN_PLANTS), hp: positive });
export type Plant = z.infer<typeof plantSchema>;
const zombieSchema = z.strictObject({ type: z.enum(ZOMBIE_LETTERS), row: count, col: count, hp: positive });
export type Zombie = z.infer<typeof zombieSchema>;

export const innerSchema = z.strictObject({
  /** Turns completed so far; also the 0-based number of the turn about to be played. */
  turn: count,
  sun: count,
  /** The verifier's episode score: turns the lawn held (every answered turn, whatever it planted). */
  survived: count,
  /** A zombie walked past column 0: the game is over. */
  lost: z.boolean(),
  /** lawn[row][col]: the plant in that cell, or null. */
  lawn: z.array(z.array(plantSchema.nullable())),
  /** Zombies in order of arrival (that order breaks ties between zombies in one cell). */
  zombies: z.array(zombieSchema),
});
export type PvzInner = z.infer<typeof innerSchema>;

export const actionGrammar = "<plant> <row> <col>[; <plant> <row> <col> ...] | pass";

export interface Placement {
  plant: PlantLetter;
  row: number;
  col: number;
}

/** An answer read part by part: its well-formed placements, and each part that is not one, as written. */
export interface ParsedAnswer {
  placements: Placement[];
  malformed: string[];
}

/**
 * Parses an answer: `pass` -> no placements; otherwise each `;`-separated part is a placement or is
 * listed as malformed (KORGym plays the well-formed placements of a partly malformed answer, and so
 * does this game: the malformed parts are skipped with feedback naming them). Null when no part is a
 * placement (nothing to play: the answer is unparsable).
 */
export function parseAnswer(raw: string): ParsedAnswer | null {
  const s = normalizeAction(raw);
  if (s === "pass") return { placements: [], malformed: [] };
  // One part (no `;`, the common answer) needs no split: normalizeAction already trimmed it.
  const parts = s.includes(";")
    ? s
        .split(";")
        .map((p) => p.trim())
        .filter((p) => p.length > 0)
    : s.length > 0
      ? [s]
      : [];
  const out: ParsedAnswer = { placements: [], malformed: [] };
  for (const part of parts) {
    // Signed coordinates parse, so `X -1 0` is skipped as out of range like `X 9 9`, not
    // taken as a malformed part.
    const m = /^([xwsjhf]) ?(\()? ?(-?\d+) ?(?:, ?| )(-?\d+) ?(\))?$/.exec(part);
    if (!m || Boolean(m[2]) !== Boolean(m[5])) out.malformed.push(part);
    else out.placements.push({ plant: (m[1] as string).toUpperCase() as PlantLetter, row: Number(m[3]), col: Number(m[4]) });
  }
  return out.placements.length > 0 ? out : null;
}

/** Feedback for the malformed parts of an answer: a few, each shortened (model text goes back into the prompt). */
function malformedNotes(parts: string[]): string[] {
  const shown = parts.slice(0, 3).map((p) => `'${p.length > 30 ? `${p.slice(0, 30)}...` : p}' (not a placement: ${actionGrammar})`);
  return parts.length > 3 ? [...shown, `${parts.length - 3} more malformed part${parts.length === 4 ? "" : "s"}`] : shown;
}

/** The well-formed placements of an answer (`pass` -> []), or null when it holds none (see parseAnswer). */
export function parseAction(raw: string): Placement[] | null {
  return parseAnswer(raw)?.placements ?? null;
}

/** Zombies in the wave due on turn t (0 when no wave is due). */
export function waveSize(t: number, config: PvzConfig): number {
  return t % config.spawnEvery === 0 ? config.waveBase + Math.floor(t / config.waveGrowthEvery) : 0;
}

/** HP added to a zombie of the wave due on turn t. */
export function hpBonusAt(t: number, config: PvzConfig): number {
  return config.hpBonus * Math.floor(t / config.hpBonusEvery);
}

/** Zombie types a wave of turn t draws from, in letter order N, R, B, I. */
export function availableZombies(t: number, config: PvzConfig): ZombieLetter[] {
  return ZOMBIE_LETTERS.filter((z) => config.zombies[z].fromTurn <= t);
}

export function init(config: PvzConfig, _rng: Rng): PvzInner {
  const inner: PvzInner = {
    turn: 0,
    sun: config.startSun,
    survived: 0,
    lost: false,
    lawn: Array.from({ length: config.rows }, () => Array.from({ length: config.cols }, () => null)),
    zombies: [],
  };
  // KORGym timing: the lawn starts empty (the same first observation for every seed); the wave of
  // turn t enters in the spawn phase of turn t itself, after the zombies have moved, so it is first
  // seen when turn t+1 begins. All draws happen in `apply`.
  return inner;
}

/**
 * The copy step() hands to apply (GameRules.copyInner): every plant and zombie is copied (bites and
 * peas change their HP in place), field by field in the schema's order. What copyPlain does, without
 * its generic walk: the copy was a third of pvz's step.
 */
export function copyInner(inner: PvzInner): PvzInner {
  const lawn = new Array<Array<Plant | null>>(inner.lawn.length);
  for (let r = 0; r < lawn.length; r++) {
    const line = inner.lawn[r]!;
    const out = new Array<Plant | null>(line.length);
    for (let c = 0; c < line.length; c++) {
      const p = line[c]!;
      out[c] = p === null ? null : { type: p.type, hp: p.hp };
    }
    lawn[r] = out;
  }
  const zombies = new Array<Zombie>(inner.zombies.length);
  for (let i = 0; i < zombies.length; i++) {
    const z = inner.zombies[i]!;
    zombies[i] = { type: z.type, row: z.row, col: z.col, hp: z.hp };
  }
  return { turn: inner.turn, sun: inner.sun, survived: inner.survived, lost: inner.lost, lawn, zombies };
}

export interface CombatResult {
  /** Row of the first zombie that walked past column 0, or null if the lawn held. */
  breachRow: number | null;
  /** Zombies removed by chilis. */
  burned: number;
  /** Zombies killed by peas. */
  killed: number;
  /** Plants eaten to 0 HP. */
  eaten: number;
}

/**
 * The zombie a pea flying right from column `col` in `row` hits: the nearest one at or ahead of the
 * shooter's own column (KORGym: a zombie standing in the shooter's cell is hit).
 */
function target(zombies: Zombie[], row: number, col: number): number {
  let best = -1;
  for (let i = 0; i < zombies.length; i++) {
    const z = zombies[i] as Zombie;
    // Strict `<` keeps the earliest arrival among zombies sharing the nearest cell.
    if (z.row === row && z.col >= col && (best < 0 || z.col < (zombies[best] as Zombie).col)) best = i;
  }
  return best;
}

/**
 * The turn phases after planting, in games.md order: chili, sunflowers, shooters, zombies. Mutates
 * `inner` (sun from sunflowers included). Exported so the heuristic can look ahead on the lawn it
 * parsed from the observation with the same mechanics the rules text describes.
 */
export function resolveCombat(inner: PvzInner, config: PvzConfig, chiliRows: number[]): CombatResult {
  const res: CombatResult = { breachRow: null, burned: 0, killed: 0, eaten: 0 };
  const { rows, cols } = config;
  if (chiliRows.length > 0) {
    const before = inner.zombies.length;
    inner.zombies = inner.zombies.filter((z) => !chiliRows.includes(z.row));
    res.burned = before - inner.zombies.length;
  }
  for (const line of inner.lawn) for (const p of line) if (p?.type === "X") inner.sun += config.sunflowerSun;

  // Shooters fire in row-major order; a zombie killed by one pea is gone for the next.
  for (let r = 0; r < rows; r++) {
    for (let c = 0; c < cols; c++) {
      const p = inner.lawn[r]?.[c];
      if (!p || (p.type !== "W" && p.type !== "S")) continue;
      // A peashooter fires into its own row; a three-line shooter into rows r-1, r, r+1 on the lawn,
      // top to bottom (bounds, not an array filtered per shooter per turn).
      const first = p.type === "W" || r === 0 ? r : r - 1;
      const lastLine = p.type === "W" || r + 1 >= rows ? r : r + 1;
      for (let line = first; line <= lastLine; line++) {
        const i = target(inner.zombies, line, c);
        if (i < 0) continue;
        const z = inner.zombies[i] as Zombie;
        let dmg = config.peaDamage;
        // A pea is lit when it reaches a torchwood on its way: right of the shooter, not beyond the target.
        for (let h = c + 1; h <= z.col; h++) {
          if (inner.lawn[line]?.[h]?.type === "H") {
            dmg += config.torchwoodBonus;
            break;
          }
        }
        z.hp -= dmg;
        if (z.hp <= 0) {
          inner.zombies.splice(i, 1);
          res.killed += 1;
        }
      }
    }
  }

  // KORGym's timing: zombies act one by one in arrival order, each deciding from the lawn as it is
  // at its turn, so a zombie whose plant an earlier zombie in that cell just finished walks on.
  for (let i = 0; i < inner.zombies.length; i++) {
    const z = inner.zombies[i] as Zombie;
    const line = inner.lawn[z.row] as (Plant | null)[];
    const p = line[z.col];
    if (p) {
      p.hp -= config.zombies[z.type].attack;
      if (p.hp <= 0) {
        line[z.col] = null;
        res.eaten += 1;
      }
    } else if (z.col === 0) {
      res.breachRow = z.row;
      return res;
    } else {
      z.col -= 1;
    }
  }
  return res;
}

/** Adds the wave due on turn `t` at the rightmost column, drawing row first, then type, per zombie. */
export function spawnWave(inner: PvzInner, config: PvzConfig, t: number, rng: Rng): Zombie[] {
  const n = waveSize(t, config);
  const added: Zombie[] = [];
  // Most turns have no wave: no list of kinds to build (the draws below happen only for a wave).
  if (n === 0) return added;
  const kinds = availableZombies(t, config);
  if (kinds.length === 0) return added;
  for (let k = 0; k < n; k++) {
    const row = rng.int(config.rows);
    const type = rng.pick(kinds);
    const z: Zombie = { type, row, col: config.cols - 1, hp: config.zombies[type].hp + hpBonusAt(t, config) };
    inner.zombies.push(z);
    added.push(z);
  }
  return added;
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}

export interface PlantResult {
  /** Placements that happened, as `P r c`. */
  done: string[];
  /** Placements skipped, each with its reason. */
  skipped: string[];
  /** Rows a chili was planted in this turn. */
  chiliRows: number[];
}

/** The plant phase: placements one by one, each checked on its own (range, free cell, sun). */
export function plantPhase(inner: PvzInner, placements: Placement[], config: PvzConfig): PlantResult {
  const res: PlantResult = { done: [], skipped: [], chiliRows: [] };
  // A chili occupies its cell for the rest of the plant phase, then burns out in the chili phase.
  const chiliCells: string[] = [];
  for (const { plant, row, col } of placements) {
    const at = `${plant} ${row} ${col}`;
    if (row < 0 || col < 0 || row >= config.rows || col >= config.cols) {
      res.skipped.push(`${at} (out of range: rows 0-${config.rows - 1}, columns 0-${config.cols - 1})`);
      continue;
    }
    const line = inner.lawn[row] as (Plant | null)[];
    if (line[col] != null || chiliCells.includes(`${row},${col}`)) {
      res.skipped.push(`${at} (cell occupied)`);
      continue;
    }
    const cost = config.plantCost[plant];
    if (inner.sun < cost) {
      res.skipped.push(`${at} (not enough sun: need ${cost}, have ${inner.sun})`);
      continue;
    }
    inner.sun -= cost;
    res.done.push(at);
    if (plant === "F") {
      chiliCells.push(`${row},${col}`);
      if (!res.chiliRows.includes(row)) res.chiliRows.push(row);
    } else {
      line[col] = { type: plant, hp: config.plantHp[plant] };
    }
  }
  return res;
}

/**
 * One response = one turn. Placements are checked one by one (out of range, occupied, not enough sun:
 * skipped with a reason). `valid`: the text parsed and it was `pass` or at least one placement
 * succeeded. The turn is played either way and, while the lawn holds, scores 1 (games.md: every step
 * is one game turn, r = 1 for each turn the lawn holds; rules version 3). `valid` only tells the log
 * whether the answer did what it asked.
 */
export function apply(inner: PvzInner, action: string | null, config: PvzConfig, rng: Rng): Transition {
  if (inner.lost) return { reward: 0, feedback: "The lawn is already lost: the game is over.", valid: false, done: true };
  const notes: string[] = [];
  const answer = action === null ? null : parseAnswer(action);
  const placements = answer === null ? null : answer.placements;
  let placed = 0;
  let chiliRows: number[] = [];
  if (placements === null) {
    notes.push(`${invalidFeedback(actionGrammar, action === null ? "no action found" : "invalid action")}. Nothing was planted; the turn was played.`);
  } else {
    const planted = plantPhase(inner, placements, config);
    placed = planted.done.length;
    chiliRows = planted.chiliRows;
    if (placements.length === 0) notes.push("You passed.");
    if (planted.done.length > 0) notes.push(`Planted: ${planted.done.join("; ")}.`);
    if (answer!.malformed.length > 0 || planted.skipped.length > 0) {
      notes.push(`Skipped: ${[...malformedNotes(answer!.malformed), ...planted.skipped].join("; ")}.`);
    }
    if (placements.length > 0 && placed === 0) notes.push(`${invalidFeedback(actionGrammar, "invalid action: no placement succeeded")}.`);
  }
  const valid = placements !== null && (placements.length === 0 || placed > 0);

  const res = resolveCombat(inner, config, chiliRows);
  if (res.burned > 0) notes.push(`The chili burned ${plural(res.burned, "zombie")}.`);
  if (res.killed > 0) notes.push(`Peas destroyed ${plural(res.killed, "zombie")}.`);
  if (res.eaten > 0) notes.push(`Zombies ate ${plural(res.eaten, "plant")}.`);
  if (res.breachRow !== null) {
    inner.lost = true;
    notes.push(`A zombie walked past column 0 in row ${res.breachRow}: the lawn is lost, game over.`);
    return { reward: 0, feedback: notes.join(" "), valid, done: true };
  }
  const wave = spawnWave(inner, config, inner.turn, rng);
  if (wave.length > 0) {
    const rowsHit = wave.map((z) => z.row).join(", ");
    notes.push(`${plural(wave.length, "new zombie")} entered at column ${config.cols - 1} (row${wave.length === 1 ? "" : "s"} ${rowsHit}).`);
  }
  inner.sun += config.sunPerTurn;
  inner.turn += 1;
  // Every turn the lawn holds scores 1, whatever the answer planted (games.md; KORGym's +1 per turn).
  const reward = 1;
  inner.survived += reward;
  return { reward, feedback: notes.join(" "), valid, done: false };
}

export function score(inner: PvzInner, _config: PvzConfig): number {
  return inner.survived;
}

export function legalActions(inner: PvzInner, config: PvzConfig): string[] {
  const out = ["pass"];
  if (inner.lost) return out;
  for (const plant of PLANT_LETTERS) {
    if (config.plantCost[plant] > inner.sun) continue;
    for (let r = 0; r < config.rows; r++) {
      for (let c = 0; c < config.cols; c++) if (inner.lawn[r]?.[c] == null) out.push(`${plant} ${r} ${c}`);
    }
  }
  return out;
}

export function rulesBody(config: PvzConfig): string {
  const { rows, cols, plantCost: cost, plantHp: hp } = config;
  const last = cols - 1;
  const z = config.zombies;
  const zombieLine = (k: ZombieLetter) =>
    `- ${k} ${ZOMBIE_NAMES[k]} zombie: ${z[k].hp} HP, bites for ${z[k].attack} per turn; ${z[k].fromTurn === 0 ? "can appear from turn 0" : `can appear from turn ${z[k].fromTurn}`}.`;
  const growth = `${config.waveBase} + floor(t / ${config.waveGrowthEvery})`;
  const hpRule = config.hpBonus > 0 ? `A zombie of the wave of turn t has its type's HP + ${config.hpBonus} x floor(t / ${config.hpBonusEvery}).` : "Zombies enter with exactly their type's HP.";
  const hpShown = config.showZombieHp
    ? "Each zombie is shown as its type letter followed by its current HP (N4 = a normal zombie with 4 HP)."
    : "Zombies are shown by type letter only; their HP is not shown.";
  return [
    "## Objective",
    `Defend a lawn of ${rows} rows x ${cols} columns against zombies for as many turns as you can.`,
    `Zombies enter at the right edge (column ${last}) and walk toward column 0; if a zombie walks past column 0, the lawn is lost and the game ends.`,
    "",
    "## Plants (letter: cost in sun, HP, effect)",
    `- X sunflower: ${cost.X} sun, ${hp.X} HP; gives +${config.sunflowerSun} sun every turn.`,
    `- W peashooter: ${cost.W} sun, ${hp.W} HP; every turn shoots one pea (${config.peaDamage} damage) at the nearest zombie in its row at or ahead of its own column (a zombie standing in the peashooter's own cell is hit first; zombies behind it are never hit).`,
    `- S three-line shooter: ${cost.S} sun, ${hp.S} HP; shoots like a peashooter in its own row and in each existing adjacent row (one pea per row; at the lawn edge only two rows).`,
    `- J wall-nut: ${cost.J} sun, ${hp.J} HP; does nothing but block.`,
    `- H torchwood: ${cost.H} sun, ${hp.H} HP; a pea that reaches it on the way to its target (torchwood right of the shooter, not beyond the target zombie) deals +${config.torchwoodBonus} damage (at most once per pea).`,
    `- F chili: ${cost.F} sun; on the turn it is planted it destroys every zombie in its row, then it is gone.`,
    "",
    "## Zombies (letter: HP, attack)",
    zombieLine("N"),
    zombieLine("R"),
    zombieLine("B"),
    zombieLine("I"),
    "",
    "## Waves",
    "Turns are numbered from 0; the observation shows the number of the turn you are about to play.",
    `A wave is due on every turn t that is a multiple of ${config.spawnEvery} (turns 0, ${config.spawnEvery}, ${2 * config.spawnEvery}, ...). It enters at column ${last} in the spawn phase of turn t (after the zombies have moved), so it is first on the lawn when turn t+1 begins and walks for the first time in turn t+1. The lawn starts empty.`,
    `The wave of turn t has ${growth} zombies, each in a random row with a random type among those available on turn t.`,
    hpRule,
    "",
    "## One turn, in this order",
    "1. Plant: your placements, one by one.",
    "2. Chili: each chili planted this turn clears its row.",
    `3. Sunflowers: +${config.sunflowerSun} sun each (a sunflower planted this turn already counts).`,
    "4. Shooters: every W and S fires (row by row, left to right); a zombie at 0 HP is removed at once.",
    "5. Zombies: a zombie standing in a cell with a plant bites that plant (the plant loses the zombie's attack in HP and is removed at 0 HP) and does not move; any other zombie walks one column toward column 0. Zombies walk into plant cells and start biting the next turn. Zombies act one at a time in the order they arrived, each seeing the lawn as it is at its turn: a zombie whose plant an earlier zombie in the same cell has just finished walks on at once. A zombie at column 0 that walks goes past the lawn: game over.",
    `6. Spawn: the wave of this turn, if one is due, enters at column ${last}.`,
    `7. Sun: +${config.sunPerTurn}.`,
    `You start with ${config.startSun} sun. Plants cannot share a cell; plants may be placed in a cell where zombies stand.`,
    "",
    "## Action",
    `One or more placements \`<plant> <row> <col>\` separated by \`;\`, or \`pass\`. Grammar: ${actionGrammar}`,
    `Example: \`X 1 0; W 0 1\` plants a sunflower at row 1, column 0 and a peashooter at row 0, column 1. Rows are 0-${rows - 1}, columns 0-${last}.`,
    "Each placement is checked on its own: out of range, an occupied cell or not enough sun skips it (the feedback says why) and the others still happen. Every answer plays exactly one turn, whatever was planted.",
    "",
    "## Reward",
    "+1 for every turn the lawn holds, whatever your answer planted (an answer that does not parse, or whose placements all fail, still plays its turn). 0 on the turn a zombie gets past column 0.",
    "",
    "## Observation",
    `The turn number, your sun, the lawn (row labels on the left, column labels on top) and the plant costs. A cell shows '.' when empty, otherwise its plant letter and the zombies in it joined by '+' (e.g. J+N). ${hpShown}`,
    "",
    "## End",
    `The game ends when a zombie gets past column 0, or after ${config.maxSteps} steps (the step cap; one answer = one step = one turn).`,
  ].join("\n");
}
