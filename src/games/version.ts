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
 */
export const RULES_VERSION = 2;

/** What a manifest written before versions were recorded played. */
export const UNRECORDED_RULES_VERSION = 1;
