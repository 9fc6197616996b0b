/**
 * Writes the tactic-decision fixture from the code it runs on (sweep.ts). Run it on the code BEFORE a
 * policy change, never on the code under test:
 *
 *   npx tsx tests/games/tacticSweep/record.ts > tests/fixtures/tactic-decisions.json
 */
import { sweepTacticDecisions } from "./sweep.js";

const lines = await sweepTacticDecisions();
process.stdout.write(`${JSON.stringify({ note: "Decisions of the learner's tactics before their speed rewrite (tests/games/tacticSweep/record.ts on 3eecf72)", lines }, null, 1)}\n`);
