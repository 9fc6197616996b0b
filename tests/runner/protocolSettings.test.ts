/**
 * The protocol-settings table (src/runner/settings/protocolSettings.ts) and what is derived from it: the
 * recorded manifest bytes (key order included), the absent-key defaults, the data directory's
 * compared fields, settings -> flags, and the agreement with the documented SettingsRecord schema.
 */
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseFlags } from "../../src/cli/shared/args.js";
import { protocolFlags, protocolUsage, settingsFromFlags } from "../../src/cli/shared/sharedFlags.js";
import { SettingsRecord } from "../../src/logs/schema.js";
import { DEFAULT_SETTINGS, type ProtocolSettings } from "../../src/runner/loop/context.js";
import { claimDataDirProtocol } from "../../src/runner/shards/dataDirProtocol.js";
import { absentRecordDefaults, settingsFromRecord, settingsRecord } from "../../src/runner/settings/protocolRecord.js";
import { PROTOCOL_SETTINGS } from "../../src/runner/settings/protocolSettings.js";

describe("the protocol settings table", () => {
  it("records exactly the fields SettingsRecord documents (a new recorded row needs its schema field, and no field lacks a row)", () => {
    const recorded = PROTOCOL_SETTINGS.flatMap((r) => (r.record ? [r.record.key] : [])).sort();
    expect(recorded).toEqual(Object.keys(SettingsRecord.shape).sort());
  });

  it("writes the default settings' record byte for byte as manifests always had them", () => {
    expect(JSON.stringify(settingsRecord(DEFAULT_SETTINGS))).toBe(
      '{"explore_episodes":30,"checkpoint_every":3,"eval_episodes":3,"max_steps":64,"context_tokens":100000,"max_new_tokens":14000,"tokenizer":"o200k","reward_visibility":"hidden","parse_rule":"last-answer","run_seed":0,"history_cut":"anchored"}',
    );
  });

  it("writes every optional field in its place, and reads it all back", () => {
    const s: ProtocolSettings = {
      ...DEFAULT_SETTINGS,
      runSeed: 5,
      verified: { broadBatch: 2, verifierModel: null },
      answerFrom: "both",
      maxBadReplies: 0.25,
      keepThink: true,
      views: { extra: ["id", "replay"], viewEpisodes: 4, replayEpisodes: 2 },
    };
    const r = settingsRecord(s);
    expect(JSON.stringify(r)).toBe(
      '{"explore_episodes":30,"checkpoint_every":3,"eval_episodes":3,"max_steps":64,"context_tokens":100000,"max_new_tokens":14000,"tokenizer":"o200k","reward_visibility":"hidden","parse_rule":"last-answer","run_seed":5,' +
        '"verified":{"broad_batch":2,"verifier_model":null},"answer_from":"both","history_cut":"anchored","think_replay":"keep","views":{"names":["eval","id","replay"],"view_episodes":4,"replay_episodes":2}}',
    );
    // --max-bad-replies is not recorded: it decides when a run stops, not what its episodes are.
    const { maxBadReplies: _, ...recordedPart } = s;
    expect(settingsFromRecord(r)).toEqual(recordedPart);
  });

  it("reads a key every run now records, missing from an old manifest, as what it meant then", () => {
    expect(absentRecordDefaults()).toEqual({ parse_rule: "strict-contract", history_cut: "per-step" });
  });

  it("claims a data directory with the compared fields, absent ones as their defaults of that time", () => {
    const data = mkdtempSync(join(tmpdir(), "s3gym-claim-"));
    claimDataDirProtocol(data, { ...DEFAULT_SETTINGS, runSeed: 9, maxNewTokens: 100 });
    const file = JSON.parse(readFileSync(join(data, "protocol.json"), "utf8")) as { protocol: unknown };
    expect(JSON.stringify(file.protocol)).toBe(
      '{"explore_episodes":30,"checkpoint_every":3,"eval_episodes":3,"max_steps":64,"context_tokens":100000,"tokenizer":"o200k","reward_visibility":"hidden","parse_rule":"last-answer","answer_from":"content","history_cut":"anchored","think_replay":"drop"}',
    );
  });
});

describe("the parser reads every kind of protocol flag", () => {
  it("ints, choices, a share and switches, back to the settings they give", () => {
    const s: ProtocolSettings = {
      ...DEFAULT_SETTINGS,
      exploreEpisodes: 7,
      checkpointEvery: 7,
      tokenizer: "cl100k",
      parseRule: "strict-contract",
      answerFrom: "reasoning",
      maxBadReplies: 0.3,
      historyCut: "per-step",
      keepThink: true,
    };
    const argv = [
      "--explore-episodes",
      "7",
      "--checkpoint-every",
      "7",
      "--eval-episodes",
      "3",
      "--max-steps",
      "64",
      "--context-tokens",
      "100000",
      "--max-new-tokens",
      "14000",
      "--tokenizer",
      "cl100k",
      "--reward-visibility",
      "hidden",
      "--strict-contract",
      "--run-seed",
      "0",
      "--answer-from",
      "reasoning",
      "--max-bad-replies",
      "0.3",
      "--history-cut",
      "per-step",
      "--keep-think",
    ];
    const { values } = parseFlags(argv, protocolFlags("run"), "usage");
    expect(settingsFromFlags(values)).toEqual(s);
  });
});

describe("the protocol's usage lines", () => {
  it("name every flag of the command once, --checkpoint-every on run only", () => {
    const run = protocolUsage("run").join("\n");
    const loop = protocolUsage("train-loop").join("\n");
    for (const flag of ["explore-episodes 30", "max-new-tokens 14000", "tokenizer o200k|cl100k", "strict-contract", "max-bad-replies 50%", "history-cut anchored|per-step"]) {
      expect(run).toContain(`[--${flag}]`);
      expect(loop).toContain(`[--${flag}]`);
    }
    expect(run).toContain("[--checkpoint-every 3]");
    expect(loop).not.toContain("checkpoint-every");
    expect(loop).toContain("  [--keep-think]: replay earlier turns' <think> blocks (default: dropped from later prompts)");
    expect(run.match(/--run-seed/g)).toHaveLength(1);
  });
});
