/** The step lines' part of a run's quality (runQuality.ts), kept as the run plays: hand-counted cases. */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { StepQualityTally } from "../../src/runner/monitor/runQuality.js";
import { step as stepRecord } from "../analysis/helpers.js";

const ok = { action: "a", self_score: 1, finish_reason: "stop", valid: true, response: "Action: a", turns_dropped: undefined };

describe("StepQualityTally", () => {
  it("counts each kind of bad step once per step", () => {
    const t = new StepQualityTally();
    t.add(ok);
    t.add({ ...ok, action: null, valid: false }); // bad and invalid
    t.add({ ...ok, self_score: null, finish_reason: "length", turns_dropped: 2 }); // bad, cut, dropped
    t.add({ ...ok, response: "  \n" }); // empty
    t.add({ ...ok, response: "", answer_source: "reasoning" } as typeof ok); // answered from the reasoning: not empty
    expect({ ...t }).toEqual({ replies: 5, bad: 2, cut: 1, invalid: 1, empty: 1, dropped: 1 });
  });

  it("reads a steps file's whole lines, leaving a damaged one out", () => {
    const dir = mkdtempSync(join(tmpdir(), "s3tally-"));
    const step = (over: Record<string, unknown>) => JSON.stringify({ ...stepRecord({ run_id: "r", model: "m", game: "snake", pathway: "none" }, { episode: 1, step: 0, s: 0, r: 0 }), ...over });

    const path = join(dir, "steps.jsonl");
    writeFileSync(path, `${step({})}\n${step({ step: 1, valid: false })}\n{"run_id": 3}\n${step({ step: 2, action: null })}\n`);
    expect({ ...StepQualityTally.ofFile(path) }).toEqual({ replies: 3, bad: 1, cut: 0, invalid: 1, empty: 0, dropped: 0 });
    expect({ ...StepQualityTally.ofFile(join(dir, "absent.jsonl")) }).toEqual({ replies: 0, bad: 0, cut: 0, invalid: 0, empty: 0, dropped: 0 });
  });
});
