/**
 * Diagnoses that name the true cause (issue 26, item 5): hand-built reply sequences through the reply
 * monitor, and the text helpers it leans on (think blocks, repetition loops).
 */
import { describe, expect, it } from "vitest";
import { isRepetitionLoop, ReplyMonitor, type ReplyInfo } from "../../src/runner/monitor/replyMonitor.js";
import { dropThinkBlocks, hasThinkTag } from "../../src/agent/replyText.js";
import { hasReasoning, type ReplyKind } from "../../src/agent/reply.js";
import { isServerTruncated, qualityFlags } from "../../src/logs/qualityThresholds.js";

function feed(m: ReplyMonitor, n: number, kind: ReplyKind, info: ReplyInfo): void {
  for (let i = 0; i < n; i++) m.record(kind, info);
}

describe("the reply monitor's diagnoses", () => {
  it("replies cut at the cap are named with the fix", () => {
    const m = new ReplyMonitor(0.5, 20);
    feed(m, 20, "empty", { reasoning: true, finishReason: "length", loop: false, reasoningAnswer: false });
    const why = m.tripped!;
    expect(why).toMatch(/100% of replies cut at max tokens \(finish_reason length\): raise --max-new-tokens or lower the reasoning effort/);
    // The reasoning was cut too (no answer in it): no hint to read the reasoning field.
    expect(why).not.toMatch(/answer may be in the reasoning field/);
  });

  it("the reasoning-field hint only when the reasoning holds a complete answer", () => {
    const m = new ReplyMonitor(0.5, 20);
    feed(m, 20, "empty", { reasoning: true, finishReason: "stop", reasoningAnswer: true });
    expect(m.tripped).toMatch(/reasoning present in 100%: the answer may be in the reasoning field/);
  });

  it("a repetition loop is named as such, not told to raise the cap", () => {
    const m = new ReplyMonitor(0.5, 20);
    feed(m, 20, "no_answer", { reasoning: false, finishReason: "length", loop: true });
    expect(m.tripped).toMatch(/100% of them a repetition loop .*a larger --max-new-tokens will not help/);
    expect(m.tripped).not.toMatch(/raise --max-new-tokens/);
  });

  it("100% invalid actions make a run degenerate, like 100% unparsable ones; 99% does not; an instrument never", () => {
    const all = new ReplyMonitor(0.5, 20);
    feed(all, 99, "ok", { reasoning: true, finishReason: "stop", valid: false });
    expect(all.tripped).toBeNull(); // fewer than 100 actions: not judged yet
    all.record("ok", { reasoning: true, finishReason: "stop", valid: false });
    expect(all.tripped).toMatch(/^100% of 100 actions invalid: the game refused every action/);
    const most = new ReplyMonitor(0.5, 20);
    feed(most, 1, "ok", { reasoning: false, finishReason: "stop", valid: true });
    feed(most, 134, "ok", { reasoning: false, finishReason: "stop", valid: false });
    expect(most.tripped).toBeNull();
    expect(most.verdict()).toBeNull();
    const instrument = new ReplyMonitor(0.5, 20, "content", false);
    feed(instrument, 135, "ok", { reasoning: false, finishReason: "stop", valid: false });
    expect(instrument.verdict()).toBeNull();
  });

  it("server-truncated calls stop the run past the threshold, naming Ollama's num_ctx", () => {
    const m = new ReplyMonitor(0.5, 20);
    feed(m, 3, "ok", { reasoning: false, finishReason: "stop", serverTruncated: true, valid: true });
    expect(m.tripped).toBeNull();
    m.record("ok", { reasoning: false, finishReason: "stop", serverTruncated: true, valid: true });
    expect(m.tripped).toMatch(/^server_truncated: on 4 step calls .*num_ctx.*OLLAMA_CONTEXT_LENGTH/);
  });
});

describe("think blocks", () => {
  it("an unclosed <think> (cut at the cap) counts as reasoning", () => {
    expect(hasReasoning({ text: "<think>let me see, the snake is", reasoning: null })).toBe(true);
    expect(hasReasoning({ text: "Answer: UP\nScore: 1", reasoning: null })).toBe(false);
    expect(hasThinkTag("plain")).toBe(false);
  });

  it("dropped from replayed turns: closed, unclosed, opened by the template, none", () => {
    expect(dropThinkBlocks("<think>a\nb</think>\nAnswer: UP\nScore: 1")).toBe("Answer: UP\nScore: 1");
    expect(dropThinkBlocks("Answer: UP <THINK>x</Think> Score: 1")).toBe("Answer: UP  Score: 1");
    expect(dropThinkBlocks("Answer: UP\n<think>cut mid-thou")).toBe("Answer: UP");
    expect(dropThinkBlocks("reasoning first</think>\nAnswer: DOWN")).toBe("Answer: DOWN");
    const plain = "Answer: LEFT\nScore: 0";
    expect(dropThinkBlocks(plain)).toBe(plain);
  });

  it("linear on a hostile text (100k opening tags, no close)", () => {
    const text = "<think>".repeat(100_000);
    const t0 = performance.now();
    expect(dropThinkBlocks(text)).toBe("");
    expect(performance.now() - t0).toBeLessThan(2000);
  });
});

describe("repetition loops", () => {
  it("finds a short unit repeated to the end, not ordinary prose", () => {
    expect(isRepetitionLoop("Let me think. " + "I will move up. ".repeat(60))).toBe(true);
    expect(isRepetitionLoop("a".repeat(500))).toBe(true);
    const prose = Array.from({ length: 80 }, (_, i) => `step ${i}: the snake moves ${i % 3 === 0 ? "up" : "left"} toward ${i * 7}`).join(". ");
    expect(isRepetitionLoop(prose)).toBe(false);
    expect(isRepetitionLoop("short")).toBe(false);
  });
});

describe("the thresholds (logs/qualityThresholds.ts)", () => {
  it("server truncation needs both margins: 10% and 256 tokens", () => {
    expect(isServerTruncated(13_323, 6_000)).toBe(true);
    expect(isServerTruncated(6_085, 6_000)).toBe(false); // 85 short: within 256
    expect(isServerTruncated(2_000, 1_700)).toBe(true); // 300 short: over 256 and over 10% (200)
    expect(isServerTruncated(3_000, 2_700)).toBe(false); // 300 short: over 256, but exactly 10%, not more
    expect(isServerTruncated(1_000, 800)).toBe(false); // 20% short, but only 200 tokens
  });

  it("flags: status, shares over the thresholds, any truncated call or over-context step", () => {
    const clean = { status: "complete", step_replies: 135, bad_reply_share: 0.1, cut_at_cap_share: 0.2, invalid_action_share: 0.96, server_truncated_calls: 0, over_context_steps: 0 };
    expect(qualityFlags(clean)).toEqual([]);
    // Invalid moves are a game's difficulty: only a run with no valid one is flagged.
    expect(qualityFlags({ ...clean, invalid_action_share: 1 })).toEqual(["100% invalid actions"]);
    expect(qualityFlags({ ...clean, invalid_action_share: 1, step_replies: 99 })).toEqual([]);
    expect(qualityFlags({ ...clean, invalid_action_share: 1 }, { judgeInvalid: false })).toEqual([]);
    expect(qualityFlags({ ...clean, status: "degenerate" })).toEqual(["status degenerate"]);
    expect(qualityFlags({ ...clean, cut_at_cap_share: 0.31, server_truncated_calls: 65 })).toEqual(["31% cut at max tokens", "65 calls truncated by the server"]);
  });
});
