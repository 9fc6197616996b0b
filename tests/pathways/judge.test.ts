/**
 * The judge axis' pure parts (docs/judging.md): which score each judge gives a step, the shuffle as
 * a seeded permutation written out per step, `none` taking the scores out of the experience text and
 * saying so in the prompts, and `self` leaving every text as it was.
 */
import { describe, expect, it } from "vitest";
import { buildSummaryMessages } from "../../src/agent/summaryPrompt.js";
import { buildVerifierMessages } from "../../src/agent/verifierPrompt.js";
import { renderTrajectory } from "../../src/agent/trajectoryText.js";
import { parseJudgeReply } from "../../src/agent/judgePrompt.js";
import type { StepRecord } from "../../src/logs/schema.js";
import { experienceScore, judgedFields, parseJudge, shufflePermutation, withJudgedFields } from "../../src/pathways/judge.js";
import { trajectoryFromSteps } from "../../src/pathways/trajectory.js";
import { judgedRunId } from "../../src/runner/runId.js";
import { settingsRecord } from "../../src/runner/protocolRecord.js";
import { DEFAULT_SETTINGS } from "../../src/runner/context.js";
import { sftFilterScore } from "../../src/training/buildSft.js";

function step(i: number, selfScore: number | null, reward: number): StepRecord {
  return {
    run_id: "r", model: "m", game: "g", pathway: "history", phase: "explore", config: "explore", checkpoint: null, episode: 1, seed: 7, step: i,
    observation: `obs ${i}`, response: `Answer: a${i}\nScore: ${selfScore}`, action: `a${i}`, self_score: selfScore, parse_error: null, valid: true,
    feedback: `fb ${i}`, reward, score_after: 0, done: false, tokens_in: 0, tokens_out: 0, latency_ms: 0,
  } as StepRecord;
}

const steps = [step(0, 1, 0), step(1, 2, 5), step(2, 3, 0), step(3, 4, -1), step(4, null, 2)];

describe("parseJudge", () => {
  it("reads the built-in judges and model:<spec>, and refuses anything else naming what it expects", () => {
    expect(parseJudge(" verifier ")).toBe("verifier");
    expect(parseJudge("model:builtin:heuristic")).toBe("model:builtin:heuristic");
    expect(() => parseJudge("model:")).toThrow(/names no model/);
    expect(() => parseJudge("oracle")).toThrow(/expected self\|verifier\|shuffled\|none\|model:<spec>/);
  });
});

describe("judgedFields", () => {
  it("self: no fields, the steps unchanged", () => {
    expect(judgedFields("self", steps, { runSeed: 0, episode: 1 })).toBeNull();
    expect(withJudgedFields(steps, null)).toEqual(steps);
  });

  it("verifier: each step carries its own hidden reward", () => {
    const f = judgedFields("verifier", steps, { runSeed: 0, episode: 1 })!;
    expect(f.map((x) => x.experience_score)).toEqual([0, 5, 0, -1, 2]);
    expect(f.every((x) => x.experience_score_source === "verifier")).toBe(true);
  });

  it("none: no score, source none", () => {
    const f = judgedFields("none", steps, { runSeed: 0, episode: 1 })!;
    expect(f.map((x) => x.experience_score)).toEqual([null, null, null, null, null]);
  });

  it("shuffled: a permutation of the episode's own self-scores, the source step written out, from the run seed and episode", () => {
    const f = judgedFields("shuffled", steps, { runSeed: 3, episode: 1 })!;
    const p = shufflePermutation(steps.length, 3, 1);
    // A permutation of 0..n-1.
    expect([...p].sort()).toEqual([0, 1, 2, 3, 4]);
    // Step i carries the self-score of step p[i], and says so.
    f.forEach((x, i) => {
      expect(x.experience_score_from).toBe(p[i]);
      expect(x.experience_score).toBe(steps[p[i]!]!.self_score);
    });
    // The multiset of scores is the episode's own.
    const sorted = (xs: (number | null)[]) => xs.map(String).sort();
    expect(sorted(f.map((x) => x.experience_score))).toEqual(sorted(steps.map((s) => s.self_score)));
    // The same seed gives the same permutation; another episode or run seed, (here) another one.
    expect(judgedFields("shuffled", steps, { runSeed: 3, episode: 1 })).toEqual(f);
    const others = [shufflePermutation(5, 3, 2), shufflePermutation(5, 4, 1)];
    expect(others.some((o) => o.join() !== p.join())).toBe(true);
    // Over many episodes it is not the identity (a shuffle that shuffles).
    const moved = Array.from({ length: 50 }, (_, e) => shufflePermutation(5, 0, e + 1)).filter((q) => q.join() !== "0,1,2,3,4").length;
    expect(moved).toBeGreaterThan(40);
  });

  it("an external judge's scores are taken as given, one per step", () => {
    const f = judgedFields("model:builtin:heuristic", steps, { runSeed: 0, episode: 1, scores: [0.5, null, 1, 0, 0] })!;
    expect(f.map((x) => x.experience_score)).toEqual([0.5, null, 1, 0, 0]);
    expect(f[0]!.experience_score_source).toBe("model:builtin:heuristic");
    expect(() => judgedFields("model:x", steps, { runSeed: 0, episode: 1, scores: [1] })).toThrow(/1 scores for 5 steps/);
  });
});

describe("the experience text under each judge", () => {
  it("self: the trajectory shows the self-scores, as before the axis", () => {
    const t = renderTrajectory(trajectoryFromSteps(1, steps, "end"));
    expect(t.match(/^Self-score: .*$/gm)).toEqual(["Self-score: 1", "Self-score: 2", "Self-score: 3", "Self-score: 4", "Self-score: (none)"]);
  });

  it("verifier: the same lines carry the rewards", () => {
    const judged = withJudgedFields(steps, judgedFields("verifier", steps, { runSeed: 0, episode: 1 }));
    const t = renderTrajectory(trajectoryFromSteps(1, judged, "end"));
    expect(t.match(/^Self-score: .*$/gm)).toEqual(["Self-score: 0", "Self-score: 5", "Self-score: 0", "Self-score: -1", "Self-score: 2"]);
    // The step record keeps the acting model's own self-score.
    expect(judged.map((s) => s.self_score)).toEqual([1, 2, 3, 4, null]);
  });

  it("none: no score line at all, and the summary and verifier prompts say the scores are withheld", () => {
    const judged = withJudgedFields(steps, judgedFields("none", steps, { runSeed: 0, episode: 1 }));
    const traj = trajectoryFromSteps(1, judged, "end");
    const t = renderTrajectory(traj);
    expect(t).not.toMatch(/Self-score/);
    expect(t).toMatch(/^Action: a3$/m);
    expect(traj.scoresShown).toBe(false);
    const summary = buildSummaryMessages({ rules: "R", previous: null, trajectory: t, scoresWithheld: true })[0]!.content;
    expect(summary).toMatch(/without scores:\nthey are withheld/);
    expect(summary).not.toMatch(/self-scores/);
    const verifier = buildVerifierMessages({ rules: "R", trajectory: t, steps: 5, successCriterion: "x", scoresWithheld: true })[0]!.content;
    expect(verifier).toMatch(/self-scores are withheld/);
    // Without the flag the prompts read as they always did.
    expect(buildSummaryMessages({ rules: "R", previous: null, trajectory: t })[0]!.content).toMatch(/your own actions and self-scores,\nand the game's visible feedback/);
  });

  it("experienceScore: the recorded judged score wins over the self-score; none is not shown", () => {
    expect(experienceScore({ self_score: 3 })).toEqual({ score: 3, shown: true });
    expect(experienceScore({ self_score: 3, experience_score: 9, experience_score_source: "verifier" })).toEqual({ score: 9, shown: true });
    expect(experienceScore({ self_score: 3, experience_score: null, experience_score_source: "none" })).toEqual({ score: null, shown: false });
  });
});

describe("self leaves the recorded protocol and the run ids as they were", () => {
  it("no judge key in the protocol record, the base run id", () => {
    expect("judge" in settingsRecord(DEFAULT_SETTINGS)).toBe(false);
    expect(settingsRecord({ ...DEFAULT_SETTINGS, judge: "verifier" }).judge).toBe("verifier");
    expect(judgedRunId("g__history__m__seed0", undefined, "explored")).toBe("g__history__m__seed0");
    expect(judgedRunId("g__history__m__seed0", "verifier", "explored")).toBe("g__history__m__seed0__judge-verifier");
    expect(judgedRunId("g__history__m__seed0", "none", "rejudged")).toBe("g__history__m__seed0__rejudge-none");
    expect(judgedRunId("b", "model:openai:gpt/4", "rejudged")).toMatch(/^b__rejudge-model-openai-gpt-4-[0-9a-f]{8}$/);
  });
});

describe("parseJudgeReply", () => {
  it("takes the last Score line; a reply without one is an error", () => {
    expect(parseJudgeReply("thinking\nScore: 0.5\n**Score:** -2")).toEqual({ ok: true, score: -2 });
    expect(parseJudgeReply("I think it is good")).toMatchObject({ ok: false });
    // Linear: a long line of spaces is skipped, not backtracked over.
    expect(parseJudgeReply(`Score:${" ".repeat(100_000)}x`)).toMatchObject({ ok: false });
  });
});

describe("BuildSFT's filter reads the judged score", () => {
  it("self: the own self-score; verifier: the reward; none: every step kept; a judge's missing score: dropped", () => {
    expect(sftFilterScore(steps[1]!)).toBe(2);
    const v = withJudgedFields(steps, judgedFields("verifier", steps, { runSeed: 0, episode: 1 }));
    expect(v.map(sftFilterScore)).toEqual([0, 5, 0, -1, 2]);
    const n = withJudgedFields(steps, judgedFields("none", steps, { runSeed: 0, episode: 1 }));
    expect(n.every((s) => sftFilterScore(s) === Number.POSITIVE_INFINITY)).toBe(true);
    const m = withJudgedFields(steps, judgedFields("model:x", steps, { runSeed: 0, episode: 1, scores: [null, 1, 1, 1, 1] }));
    expect(sftFilterScore(m[0]!)).toBe(Number.NEGATIVE_INFINITY);
  });
});
