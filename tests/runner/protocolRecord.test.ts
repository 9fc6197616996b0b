import { describe, expect, it } from "vitest";
import { SettingsRecord } from "../../src/logs/schema.js";
import { DEFAULT_SETTINGS, type ProtocolSettings } from "../../src/runner/loop/context.js";
import { settingsFromRecord, settingsRecord } from "../../src/runner/settings/protocolRecord.js";

describe("the protocol settings <-> recorded form mapping", () => {
  const s: ProtocolSettings = {
    ...DEFAULT_SETTINGS,
    exploreEpisodes: 7,
    checkpointEvery: 2,
    evalEpisodes: 4,
    maxSteps: 9,
    contextTokens: 5000,
    maxNewTokens: 300,
    tokenizer: "cl100k",
    rewardVisibility: "visible",
    runSeed: 3,
  };

  it("writes snake_case fields the schema accepts, and reads them back to the same settings", () => {
    const r = settingsRecord(s);
    expect(r).toEqual({
      explore_episodes: 7,
      checkpoint_every: 2,
      eval_episodes: 4,
      max_steps: 9,
      context_tokens: 5000,
      max_new_tokens: 300,
      tokenizer: "cl100k",
      reward_visibility: "visible",
      parse_rule: "last-answer",
      run_seed: 3,
      history_cut: "anchored",
    });
    expect(SettingsRecord.parse(r)).toEqual(r);
    expect(settingsFromRecord(r)).toEqual(s);
    expect(settingsFromRecord(settingsRecord(DEFAULT_SETTINGS))).toEqual(DEFAULT_SETTINGS);
  });

  it("reads a record from before parse_rule was recorded as the literal contract it was played under", () => {
    const { parse_rule: _, ...old } = settingsRecord(s);
    expect(settingsFromRecord(old).parseRule).toBe("strict-contract");
  });

  it("reads a record from before history_cut was recorded as the per-step cut it was played under", () => {
    const { history_cut: _, ...old } = settingsRecord(s);
    expect(settingsFromRecord(old).historyCut).toBe("per-step");
  });

  it("names the field when a recorded tokenizer is not one of the kit's", () => {
    expect(() => settingsFromRecord({ ...settingsRecord(s), tokenizer: "p50k" })).toThrow("config.protocol.tokenizer: 'p50k' is not a tokenizer of this kit (expected o200k or cl100k)");
  });
});
