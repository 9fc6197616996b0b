/**
 * Exit codes come from the error's type, never from its message, and the flags two commands share
 * are declared once: build-sft and train-loop read BuildSFT's flags through the same parser, so the
 * same bad flag gets the same message and the same exit code from both.
 */
import { describe, expect, it } from "vitest";
import { exitCodeOf, UsageError } from "../../src/cli/shared/args.js";
import { main } from "../../src/cli/main.js";
import { SFT_FLAGS, sftFromFlags } from "../../src/cli/shared/sharedFlags.js";
import { getGame } from "../../src/games/registry.js";
import { UnknownPathwayError } from "../../src/pathways/registry.js";
import { TrainLoopConfigError } from "../../src/training/trainLoop.js";
import { ConfigError } from "../../src/util/errors.js";
import { run } from "./capture.js";

function caught(f: () => unknown): unknown {
  try {
    f();
  } catch (e) {
    return e;
  }
  return null;
}

describe("exit codes by error type", () => {
  it("input a person can fix exits 2, anything else 1, whatever the message says", () => {
    expect(exitCodeOf(new UsageError("--x is bad"))).toBe(2);
    expect(exitCodeOf(new ConfigError("a clash"))).toBe(2);
    expect(exitCodeOf(new UnknownPathwayError("unknown pathway 'p'"))).toBe(2);
    expect(exitCodeOf(new TrainLoopConfigError("other settings"))).toBe(2);
    expect(exitCodeOf(caught(() => getGame("go")))).toBe(2);
    expect(exitCodeOf(caught(() => getGame("snake").reset(0, "nope")))).toBe(2);
    // The old rule matched messages starting with "unknown"/"invalid"; a bug saying so is still a bug.
    expect(exitCodeOf(new Error("unknown failure inside the runner"))).toBe(1);
    expect(exitCodeOf(new TypeError("invalid thing"))).toBe(1);
    expect(exitCodeOf("a string")).toBe(1);
  });
});

describe("BuildSFT's flags, declared once", () => {
  it("parse to the same options, and refuse alike", () => {
    expect(Object.keys(SFT_FLAGS)).toEqual(["threshold", "low-score", "correct-model", "format", "train-all-turns"]);
    expect(sftFromFlags({})).toEqual({ threshold: 0, lowScore: "drop", format: "openai-chat", correctModel: null, maskEarlierAnswers: true });
    expect(sftFromFlags({ threshold: "-0.5", "low-score": "correct", "correct-model": "builtin:oracle", "train-all-turns": true })).toEqual({
      threshold: -0.5,
      lowScore: "correct",
      format: "openai-chat",
      correctModel: "builtin:oracle",
      maskEarlierAnswers: false,
    });
    expect(() => sftFromFlags({ format: "sharegpt", "train-all-turns": true })).toThrow(UsageError);
  });

  it("build-sft and train-loop give the same message and exit 2 for the same bad flag", async () => {
    // Through the dispatcher, which alone maps a bad flag to its line on stderr and exit 2.
    const bad = ["--threshold", "high"];
    const a = await run(main, ["build-sft", "--data", "/nonexistent", "--out", "/tmp/x.jsonl", ...bad]);
    const b = await run(main, ["train-loop", "--model", "builtin:random", "--games", "snake", "--rounds", "1", "--trainer-cmd", "true", "--data", "/tmp/nowhere", ...bad]);
    const outputs = [a.err, b.err];
    expect([a.rc, b.rc]).toEqual([2, 2]);
    expect([a.out, b.out]).toEqual(["", ""]);
    const message = (s: string) => s.replace(/^s3gym [a-z-]+: /, "");
    expect(message(outputs[0]!)).toBe("--threshold must be a number, got 'high'\n");
    expect(message(outputs[1]!)).toBe(message(outputs[0]!));
  });
});

describe("the seven commands that used to map their own errors throw them to main", () => {
  it.each([
    ["run", ["--no-such-flag"], /^s3gym run: Unknown option '--no-such-flag'/],
    ["build-sft", ["--no-such-flag"], /^s3gym build-sft: Unknown option '--no-such-flag'/],
    ["status", ["--no-such-flag"], /^s3gym status: Unknown option '--no-such-flag'/],
    ["cluster", ["pbs"], /^s3gym cluster: expected the scheduler first: .*, got 'pbs'\nusage: s3gym cluster /],
    ["train-loop", ["--no-such-flag"], /^s3gym train-loop: Unknown option '--no-such-flag'/],
    ["report", ["--no-such-flag"], /^s3gym report: unknown option '--no-such-flag': valid options are /],
    ["serve", ["--port", "http"], /^s3gym serve: --port must be an integer in 0\.\.65535, got 'http'\n$/],
  ])("s3gym %s: --help on stdout exit 0, a bad argument one line on stderr exit 2", async (name, argv, message) => {
    const help = await run(main, [name, "--help"]);
    expect(help).toMatchObject({ rc: 0, err: "" });
    expect(help.out).toMatch(new RegExp(`^usage: s3gym ${name} `));
    expect(help.out.endsWith("\n")).toBe(true);
    const bad = await run(main, [name, ...argv]);
    expect(bad).toMatchObject({ rc: 2, out: "" });
    expect(bad.err).toMatch(message);
  });
});
