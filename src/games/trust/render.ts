/** Trust observation text, its visible facts, and the parser that reads the text back. */
import { isOver, MOVES, position, type Move, type TrustConfig, type TrustInner } from "./rules.js";

/** What a player sees, as data. `round`/`move` are 1-based and null once the game is over. */
export interface TrustFacts {
  rounds: number;
  movesPerRound: number;
  round: number | null;
  move: number | null;
  over: boolean;
  /** Started rounds, oldest first. */
  history: Array<{ you: Move[]; them: Move[] }>;
}

export function facts(inner: TrustInner, config: TrustConfig): TrustFacts {
  const over = isOver(inner, config);
  const pos = position(inner, config);
  return {
    rounds: config.rounds,
    movesPerRound: config.movesPerRound,
    round: over ? null : pos.round + 1,
    move: over ? null : pos.move + 1,
    over,
    history: inner.history.map((r) => ({ you: r.you.slice(), them: r.them.slice() })),
  };
}

export function renderFacts(f: TrustFacts): string {
  const lines: string[] = [];
  if (f.over) {
    lines.push(`All ${f.rounds} rounds of ${f.movesPerRound} moves are over.`);
  } else {
    const overall = (f.round! - 1) * f.movesPerRound + f.move!;
    lines.push(`Round ${f.round} of ${f.rounds}, move ${f.move} of ${f.movesPerRound} (move ${overall} of ${f.rounds * f.movesPerRound} overall)`);
  }
  if (f.history.length === 0) {
    lines.push("History: no moves yet.");
  } else {
    lines.push("History (your move / opponent's move):");
    f.history.forEach((r, i) => {
      lines.push(`Round ${i + 1}:`);
      r.you.forEach((y, k) => lines.push(`  ${k + 1}. ${y} / ${r.them[k]}`));
    });
  }
  return lines.join("\n");
}

/** renderFacts(facts(...)) by string appends, without copying the history (the same bytes; tests compare the two). */
export function render(inner: TrustInner, config: TrustConfig): string {
  const { rounds, movesPerRound } = config;
  let out: string;
  if (isOver(inner, config)) {
    out = `All ${rounds} rounds of ${movesPerRound} moves are over.`;
  } else {
    const pos = position(inner, config);
    out = `Round ${pos.round + 1} of ${rounds}, move ${pos.move + 1} of ${movesPerRound} (move ${pos.round * movesPerRound + pos.move + 1} of ${rounds * movesPerRound} overall)`;
  }
  if (inner.history.length === 0) return `${out}\nHistory: no moves yet.`;
  out += "\nHistory (your move / opponent's move):";
  for (let i = 0; i < inner.history.length; i++) {
    const r = inner.history[i]!;
    out += `\nRound ${i + 1}:`;
    for (let k = 0; k < r.you.length; k++) out += `\n  ${k + 1}. ${r.you[k]} / ${r.them[k]}`;
  }
  return out;
}

function fail(why: string): never {
  throw new Error(`not a trust observation: ${why}`);
}

function asMove(s: string | undefined): Move {
  if (!(MOVES as readonly string[]).includes(s ?? "")) fail(`'${s}' is not a move`);
  return s as Move;
}

/** Reads an observation body (without the step header) back into its facts. */
export function parseObservation(body: string): TrustFacts {
  const lines = body.split("\n");
  const status = lines[0] ?? "";
  let rounds: number;
  let movesPerRound: number;
  let round: number | null = null;
  let move: number | null = null;
  const overM = /^All (\d+) rounds of (\d+) moves are over\.$/.exec(status);
  const posM = /^Round (\d+) of (\d+), move (\d+) of (\d+) \(move \d+ of \d+ overall\)$/.exec(status);
  if (overM) {
    rounds = Number(overM[1]);
    movesPerRound = Number(overM[2]);
  } else if (posM) {
    round = Number(posM[1]);
    rounds = Number(posM[2]);
    move = Number(posM[3]);
    movesPerRound = Number(posM[4]);
  } else {
    fail("missing round/move line");
  }
  const history: TrustFacts["history"] = [];
  if (lines[1] === "History: no moves yet.") {
    if (lines.length > 2) fail("unexpected text after the history");
  } else if (lines[1] === "History (your move / opponent's move):") {
    for (let i = 2; i < lines.length; i++) {
      const line = lines[i]!;
      const rm = /^Round (\d+):$/.exec(line);
      if (rm) {
        if (Number(rm[1]) !== history.length + 1) fail(`rounds out of order at '${line}'`);
        history.push({ you: [], them: [] });
        continue;
      }
      const mm = /^ {2}(\d+)\. ([a-z]+) \/ ([a-z]+)$/.exec(line);
      const cur = history[history.length - 1];
      if (!mm || !cur || Number(mm[1]) !== cur.you.length + 1) fail(`bad history line '${line}'`);
      cur.you.push(asMove(mm[2]));
      cur.them.push(asMove(mm[3]));
    }
  } else {
    fail("missing history");
  }
  return { rounds, movesPerRound, round, move, over: overM !== null, history };
}
