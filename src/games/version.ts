/**
 * The games' rules version. It enters every episode's generator key (`episodeKey`) and every run
 * manifest (`rules_version`), so one seed means one board per version, and a run is never resumed
 * under other rules (the runner refuses, saying why). Bump it whenever a change alters what a score
 * means: a rule, a generator, a config, a rules text.
 *
 * 1: the kit's first rules (manifests without `rules_version`).
 * 2: chess without told pieces (A and B only, targets within reach of a hidden piece); trust's rules
 *    text names no opponent type; pvz own-cell hits and KORGym bite order; tetris spawns at row 0
 *    with KORGym's end rule; minesweeper's first-click mine moves to a drawn cell; nullify boards
 *    certified by their intended line.
 * 3: pvz scores every turn the lawn holds, whatever the answer planted (an answer whose placements
 *    all fail, or that does not parse, used to score 0 for its turn; games.md says r = 1 per turn held).
 *    Also: tetris's rules text states the forms it already read (`3, 90`, `3 90°`). No generator
 *    changed, so the boards stay those of version 2 (BOARDS_VERSION).
 */
export const RULES_VERSION = 3;

/**
 * The version that enters the episode generator's key (`episodeKey`). It follows RULES_VERSION
 * whenever a generator or a config changes; a change of scoring alone (version 3) keeps it, so a
 * seed keeps its board and the recorded episodes, fixtures and golden logs of the boards stay valid.
 */
export const BOARDS_VERSION = 2;

/** What a manifest written before versions were recorded played. */
export const UNRECORDED_RULES_VERSION = 1;
