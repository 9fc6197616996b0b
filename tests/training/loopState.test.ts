import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { LoopStateFileError, readLoopStateFile, type LoopState } from "../../src/training/loopState.js";

const counts = { steps: 10, kept: 4, corrected: 0, dropped: 6, unparsable: 1, unscored: 0, low_scored: 5, correction_failed: {}, duplicate: 0, normalized: 2 };
const state: LoopState = {
  version: 1,
  label: "loop",
  base_model: "builtin:learner",
  games: ["tetris"],
  protocol: { explore_episodes: 3 },
  sft: { threshold: 0.01 },
  checkpoints: [
    { checkpoint: 0, model: "builtin:learner" },
    { checkpoint: 1, model: "builtin:learner@ck.json" },
  ],
  evaluated: 0,
  rounds: [
    {
      round: 1,
      explore_model: "builtin:learner",
      explore_run_seed: 0,
      explored: true,
      sft: { file: "round-1/sft.jsonl", examples: 4, total: counts },
      trainer: { command: "x", model: "builtin:learner@ck.json", finished_at: "2026-12-01T00:00:00Z", wall_s: 0.5 },
    },
  ],
  trainer_cmd: "x",
  updated_at: "2026-12-01T00:00:00Z",
};

function write(text: string): string {
  const path = join(mkdtempSync(join(tmpdir(), "loopstate-")), "state.json");
  writeFileSync(path, text);
  return path;
}

describe("readLoopStateFile", () => {
  it("returns null when there is no state yet", () => {
    expect(readLoopStateFile(join(mkdtempSync(join(tmpdir(), "loopstate-")), "state.json"))).toBeNull();
  });

  it("reads back a state it would write", () => {
    expect(readLoopStateFile(write(JSON.stringify(state)))).toEqual(state);
  });

  it("names the file when the state was cut short", () => {
    const path = write(JSON.stringify(state).slice(0, 80));
    expect(() => readLoopStateFile(path)).toThrow(LoopStateFileError);
    expect(() => readLoopStateFile(path)).toThrow(`${path} is not valid JSON`);
  });

  it("names the field a hand edit broke", () => {
    const broken = { ...state, rounds: [{ ...state.rounds[0], explored: "yes" }] };
    expect(() => readLoopStateFile(write(JSON.stringify(broken)))).toThrow(/rounds\.0\.explored/);
    const noModel = { ...state, checkpoints: [{ checkpoint: 0 }] };
    expect(() => readLoopStateFile(write(JSON.stringify(noModel)))).toThrow(/checkpoints\.0\.model/);
  });
});
