/** The registry of tactic sets (one per game), read by `builtin:learner`. */
import { tactics as chess } from "./chess/tactics.js";
import { tactics as minesweeper } from "./minesweeper/tactics.js";
import { tactics as nullify } from "./nullify/tactics.js";
import { tactics as pvz } from "./pvz/tactics.js";
import { tactics as snake } from "./snake/tactics.js";
import type { TacticSet } from "./tactics.js";
import { tactics as tetris } from "./tetris/tactics.js";
import { tactics as trust } from "./trust/tactics.js";
import type { GameName } from "./types.js";

export const TACTIC_SETS: Record<GameName, TacticSet> = { chess, minesweeper, nullify, tetris, snake, pvz, trust };
