/**
 * A new protocol setting is one row: this file adds a toy row to PROTOCOL_SETTINGS (by mocking the
 * table module, no source file changed) and shows that the flag parses with its range, shows in both
 * commands' usage, takes its default, round-trips through a manifest file, and that a resume and the
 * data-directory check both refuse a change of it, naming its key.
 */
import { createHash } from "node:crypto";
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it, vi } from "vitest";
import type { SettingRow } from "../../src/runner/settings/protocolSettings.js";

vi.mock("../../src/runner/settings/protocolSettings.js", async (importOriginal) => {
  const real = await importOriginal<typeof import("../../src/runner/settings/protocolSettings.js")>();
  const toy = {
    key: "toyKnob",
    flag: { name: "toy-knob", kind: { type: "int", range: { min: 0, max: 9 } } },
    default: 4,
    inDefaults: true,
    record: { key: "toy_knob", compared: true, absent: 0 },
  } as unknown as SettingRow;
  return { ...real, PROTOCOL_SETTINGS: [...real.PROTOCOL_SETTINGS, toy] };
});

const { settingsFromFlags, protocolFlags } = await import("../../src/cli/shared/sharedFlags.js");
const { parseFlags } = await import("../../src/cli/shared/args.js");
const { RUN_USAGE } = await import("../../src/cli/run/run.js");
const { TRAIN_LOOP_USAGE } = await import("../../src/cli/train-loop/trainLoop.js");
const { DEFAULT_SETTINGS } = await import("../../src/runner/loop/context.js");
const { absentRecordDefaults, protocolRecord, settingsFromRecord, settingsRecord } = await import("../../src/runner/settings/protocolRecord.js");
const { checkResumable } = await import("../../src/runner/settings/manifest.js");
const { checkDataDirProtocol } = await import("../../src/runner/shards/dataDirProtocol.js");
const { RULES_VERSION } = await import("../../src/games/version.js");
const { COMPARED, protocolFingerprint } = await import("../../src/runner/settings/protocolFingerprint.js");

type Toy = { toyKnob?: number };
const toyOf = (s: object): number | undefined => (s as Toy).toyKnob;
const configs = { explore: { name: "explore", config: { maxSteps: 2 }, rules: "" }, eval: { name: "eval", config: { maxSteps: 2 }, rules: "" } };

describe("a toy protocol setting added as one row", () => {
  it("is a flag of run and train-loop, parsed within its range, with its default", () => {
    expect(protocolFlags("run")["toy-knob"]).toEqual({ type: "string" });
    expect(protocolFlags("train-loop")["toy-knob"]).toEqual({ type: "string" });
    const { values } = parseFlags(["--toy-knob", "7"], protocolFlags("run"), "usage");
    expect(toyOf(settingsFromFlags(values))).toBe(7);
    expect(toyOf(settingsFromFlags({}))).toBe(4);
    expect(toyOf(DEFAULT_SETTINGS)).toBe(4);
    expect(() => settingsFromFlags({ "toy-knob": "10" })).toThrow("--toy-knob must be at most 9 (range 0..9), got 10");
  });

  it("shows in both commands' usage", () => {
    expect(RUN_USAGE).toContain("[--toy-knob 4]");
    expect(TRAIN_LOOP_USAGE).toContain("[--toy-knob 4]");
  });

  it("round-trips through a manifest file and reads as its absent value from an older one", () => {
    const s = { ...DEFAULT_SETTINGS, toyKnob: 7 };
    const file = join(mkdtempSync(join(tmpdir(), "s3gym-toy-")), "manifest.json");
    writeFileSync(file, JSON.stringify({ config: { protocol: settingsRecord(s) } }));
    const read = JSON.parse(readFileSync(file, "utf8")) as { config: { protocol: Record<string, unknown> } };
    expect(read.config.protocol.toy_knob).toBe(7);
    expect(toyOf(settingsFromRecord(read.config.protocol as never))).toBe(7);
    const { toy_knob: _, ...older } = read.config.protocol;
    expect(toyOf(settingsFromRecord(older as never))).toBe(0);
    expect(absentRecordDefaults()).toEqual({ parse_rule: "strict-contract", history_cut: "per-step", toy_knob: 0 });
  });

  it("is compared on resume and across the data directory", () => {
    const before = { runId: "r", settings: { ...DEFAULT_SETTINGS, toyKnob: 4 }, configs };
    const previous = { run_id: "r", rules_version: RULES_VERSION, config: { protocol: protocolRecord(before) } } as never;
    expect(() => checkResumable(previous, before)).not.toThrow();
    expect(() => checkResumable(previous, { ...before, settings: { ...before.settings, toyKnob: 7 } as never })).toThrow(/toy_knob: 4 -> 7/);

    const data = mkdtempSync(join(tmpdir(), "s3gym-toy-data-"));
    mkdirSync(join(data, "runs", "old-run"), { recursive: true });
    writeFileSync(join(data, "runs", "old-run", "manifest.json"), JSON.stringify({ pathway: "none", config: { protocol: protocolRecord(before) } }));
    expect(() => checkDataDirProtocol(data, before.settings)).not.toThrow();
    expect(() => checkDataDirProtocol(data, { ...before.settings, toyKnob: 7 } as never)).toThrow(/differ: toy_knob: 4 -> 7/);
  });

  it("joins the protocol fingerprint of the episode lines; at its absent value it leaves the fingerprint of older logs as it was", () => {
    expect(COMPARED).toContain("toy_knob");
    const at = (v: number) => protocolFingerprint({ ...DEFAULT_SETTINGS, toyKnob: v } as never);
    expect(at(7)).not.toBe(at(4));
    // 0 is the row's `absent` (what runs did before it existed): the fingerprint a kit without the row
    // wrote for the default protocol, by hand: the compared fields not at their `absent` value
    // (answer_from `content` and think_replay `drop` are), canonical JSON (keys sorted), SHA-256.
    const before = {
      checkpoint_every: 3,
      context_tokens: 100000,
      eval_episodes: 3,
      explore_episodes: 30,
      history_cut: "anchored",
      max_steps: 64,
      parse_rule: "last-answer",
      reward_visibility: "hidden",
      tokenizer: "o200k",
    };
    const byHand = createHash("sha256").update(JSON.stringify(before)).digest("hex").slice(0, 16);
    expect(at(0)).toBe(byHand);
  });
});
