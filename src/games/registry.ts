/** The list of games. The CLI, the runner and `s3gym serve` read this registry, never a switch. */
import { game as chess } from "./chess/index.js";
import { game as minesweeper } from "./minesweeper/index.js";
import { game as nullify } from "./nullify/index.js";
import { game as pvz } from "./pvz/index.js";
import { game as snake } from "./snake/index.js";
import { game as tetris } from "./tetris/index.js";
import { game as trust } from "./trust/index.js";
import { GAME_NAMES, type Game, type GameName } from "./types.js";
import { ConfigError } from "../util/errors.js";

export const GAMES: Record<GameName, Game> = { chess, minesweeper, nullify, tetris, snake, pvz, trust };

export function isGameName(name: string): name is GameName {
  return (GAME_NAMES as readonly string[]).includes(name);
}

/** The game called `name`; throws an error that lists the valid names. */
export function getGame(name: string): Game {
  if (!isGameName(name)) throw new ConfigError(`unknown game '${name}': expected one of ${GAME_NAMES.join(", ")}`);
  return GAMES[name];
}

/** Parses `all` or a comma list of game names. */
export function parseGameList(list: string): GameName[] {
  if (list.trim() === "all") return [...GAME_NAMES];
  const names = list
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
  if (names.length === 0) throw new ConfigError(`--games is empty: expected 'all' or a comma list of ${GAME_NAMES.join(", ")}`);
  for (const n of names) getGame(n);
  return names as GameName[];
}
