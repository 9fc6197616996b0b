/**
 * The kit's library entry (`dist/index.js`): what notebooks and scripts import. Notebooks run under
 * tslab's Node10 resolution, so they import this built file (or `dist/analysis/index.js`) directly.
 */
export * from "./analysis/index.js";
export * from "./logs/schema.js";
export { GAMES, getGame, parseGameList } from "./games/registry.js";
export { GAME_NAMES, CONFIG_NAMES } from "./games/types.js";
export type { Game, GameName, EpisodeState, PolicyContext, PolicyDecision } from "./games/types.js";
export { parseResponse } from "./agent/parseResponse.js";
