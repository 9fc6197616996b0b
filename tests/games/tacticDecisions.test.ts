/**
 * Every learner tactic, and the learner end to end through its step prompts, decides exactly as the
 * code before the policies' speed rewrite did: tests/fixtures/tactic-decisions.json was written by
 * tests/games/tacticSweep/record.ts on that code (3eecf72), one hash per seeded episode of its actions
 * and self-scores (see sweep.ts for what each line covers).
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { GAMES } from "../../src/games/registry.js";
import type { GameName } from "../../src/games/types.js";
import { SWEEP, sweepTacticDecisions } from "./tacticSweep/sweep.js";

const fixture = JSON.parse(readFileSync(new URL("../fixtures/tactic-decisions.json", import.meta.url), "utf8")) as { lines: Record<string, string> };

describe("tactic decisions match the recorded ones", () => {
  for (const game of Object.keys(GAMES) as GameName[]) {
    // Nullify's solver tactics are slow to sweep: its first seeds only.
    const seeds = game === "nullify" ? 2 : SWEEP.seeds;
    it(`${game}: every tactic and the learner, explore and eval configs, ${seeds} seeds`, async () => {
      const got = await sweepTacticDecisions({ ...SWEEP, seeds }, [game]);
      const want = Object.fromEntries(Object.entries(fixture.lines).filter(([k]) => k.startsWith(`${game}|`) && Number(k.split("|")[3]) < seeds));
      expect(Object.keys(want).length).toBeGreaterThan(10);
      expect(got).toEqual(want);
    }, 60_000);
  }
});
