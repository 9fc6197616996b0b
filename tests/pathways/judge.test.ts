/**
 * The judge axis' pure parts (docs/judging.md): which score each judge gives a step, the shuffle as
 * a seeded permutation of the whole run written out per step, `none` taking the scores out of the experience text and
 * saying so in the prompts, and `self` leaving every text as it was.
 */
import { describe, expect, it } from "vitest";
import { buildSummaryMessages } from "../../src/agent/summaryPrompt.js";
import { buildVerifierMessages } from "../../src/agent/verifierPrompt.js";
import { renderTrajectory } from "../../src/agent/trajectoryText.js";
import { parseJudgeReply } from "../../src/agent/judgePrompt.js";
import type { StepRecord } from "../../src/logs/schema.js";
import { experienceScore, judgedFields, parseJudge, runShuffle, shuffleKey, shufflePermutation, withJudgedFields } from "../../src/pathways/judge.js";
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
    expect(judgedFields("self", steps, {})).toBeNull();
    expect(withJudgedFields(steps, null)).toEqual(steps);
  });

  it("verifier: each step carries its own hidden reward", () => {
    const f = judgedFields("verifier", steps, {})!;
    expect(f.map((x) => x.experience_score)).toEqual([0, 5, 0, -1, 2]);
    expect(f.every((x) => x.experience_score_source === "verifier")).toBe(true);
  });

  it("none: no score, source none", () => {
    const f = judgedFields("none", steps, {})!;
    expect(f.map((x) => x.experience_score)).toEqual([null, null, null, null, null]);
  });

  it("shuffled: the run's self-scores permuted across every exploration step of the run, the source episode and step written out", () => {
    // Three episodes: 1 (steps 0..4 above), 2 and 3 (three steps each), self-scores 1..4/null, 10..12, 20..22.
    const e2 = [step(0, 10, 0), step(1, 11, 0), step(2, 12, 0)];
    const e3 = [step(0, 20, 0), step(1, 21, 0), step(2, 22, 0)];
    const key = shuffleKey(3, "g__history__m__seed3");
    const all = runShuffle([{ episode: 3, steps: e3 }, { episode: 1, steps }, { episode: 2, steps: e2 }], key);
    // The pool in (episode, step) order, and the permutation of its 11 positions that assigns it.
    const pool = [...steps.map((s) => [1, s.step, s.self_score]), ...e2.map((s) => [2, s.step, s.self_score]), ...e3.map((s) => [3, s.step, s.self_score])];
    const p = shufflePermutation(11, key);
    expect([...p].sort((x, y) => x - y)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    const flat = [1, 2, 3].flatMap((e) => all.get(e)!);
    flat.forEach((src, i) => expect([src.episode, src.step, src.self_score]).toEqual(pool[p[i]!]));
    // Each episode receives as many scores as it has steps; the multiset of the run's scores is kept.
    expect([1, 2, 3].map((e) => all.get(e)!.length)).toEqual([5, 3, 3]);
    const sorted = (xs: (number | null)[]) => xs.map(String).sort();
    expect(sorted(flat.map((x) => x.self_score))).toEqual(sorted(pool.map((x) => x[2] as number | null)));
    // judgedFields writes the source out, step and episode.
    const f = judgedFields("shuffled", e2, { shuffled: all.get(2)! })!;
    f.forEach((x, i) => {
      expect(x.experience_score).toBe(all.get(2)![i]!.self_score);
      expect(x.experience_score_from).toBe(all.get(2)![i]!.step);
      expect(x.experience_score_from_episode).toBe(all.get(2)![i]!.episode);
      expect(x.experience_score_source).toBe("shuffled");
    });
    expect(() => judgedFields("shuffled", e2, { shuffled: all.get(1)! })).toThrow(/5 shuffled scores for 3 steps/);
    expect(() => judgedFields("shuffled", e2, {})).toThrow(/0 shuffled scores/);
    // Recorded: the same key gives the same shuffle; another run seed or recorded run, another one.
    expect(runShuffle([{ episode: 1, steps }, { episode: 2, steps: e2 }, { episode: 3, steps: e3 }], key)).toEqual(all);
    const p2 = [shufflePermutation(11, shuffleKey(4, "g__history__m__seed3")), shufflePermutation(11, shuffleKey(3, "g__memory__m__seed3"))];
    expect(p2.every((q) => q.join() !== p.join())).toBe(true);
  });

  it("shuffled carries no information for a reader of episode totals (a within-episode shuffle kept them all)", () => {
    // 20 episodes of 8 steps; episode e's self-scores all equal e, so its total (8e) ranks it exactly.
    const eps = Array.from({ length: 20 }, (_, i) => ({ episode: i + 1, steps: Array.from({ length: 8 }, (_, k) => step(k, i + 1, 0)) }));
    const total = (xs: readonly { self_score: number | null }[]) => xs.reduce((a, x) => a + (x.self_score ?? 0), 0);
    const own = eps.map((e) => total(e.steps));
    const spearmanish = (xs: number[], ys: number[]) => {
      const rank = (v: number[]) => v.map((x) => v.filter((y) => y < x).length + (v.filter((y) => y === x).length - 1) / 2);
      const rx = rank(xs), ry = rank(ys);
      const m = (xs.length - 1) / 2;
      const num = rx.reduce((a, r, i) => a + (r - m) * (ry[i]! - m), 0);
      const den = Math.sqrt(rx.reduce((a, r) => a + (r - m) ** 2, 0) * ry.reduce((a, r) => a + (r - m) ** 2, 0));
      return num / den;
    };
    // Over 30 recorded runs (keys), the rank correlation of the shuffled totals with the own totals averages near 0.
    const rhos = Array.from({ length: 30 }, (_, k) => {
      const all = runShuffle(eps, shuffleKey(k, "run"));
      return spearmanish(own, eps.map((e) => total(all.get(e.episode)!)));
    });
    const mean = rhos.reduce((a, r) => a + r, 0) / rhos.length;
    expect(Math.abs(mean)).toBeLessThan(0.15);
    // Not the identity: most steps carry another episode's score.
    const moved = runShuffle(eps, shuffleKey(0, "run"));
    const elsewhere = eps.flatMap((e) => moved.get(e.episode)!.map((src) => src.episode !== e.episode)).filter(Boolean).length;
    expect(elsewhere).toBeGreaterThan(0.8 * 160);
  });

  it("an external judge's scores are taken as given, one per step", () => {
    const f = judgedFields("model:builtin:heuristic", steps, { scores: [0.5, null, 1, 0, 0] })!;
    expect(f.map((x) => x.experience_score)).toEqual([0.5, null, 1, 0, 0]);
    expect(f[0]!.experience_score_source).toBe("model:builtin:heuristic");
    expect(() => judgedFields("model:x", steps, { scores: [1] })).toThrow(/1 scores for 5 steps/);
  });
});

describe("the experience text under each judge", () => {
  it("self: the trajectory shows the self-scores, as before the axis", () => {
    const t = renderTrajectory(trajectoryFromSteps(1, steps, "end"));
    expect(t.match(/^Self-score: .*$/gm)).toEqual(["Self-score: 1", "Self-score: 2", "Self-score: 3", "Self-score: 4", "Self-score: (none)"]);
  });

  it("verifier: the same lines carry the rewards", () => {
    const judged = withJudgedFields(steps, judgedFields("verifier", steps, {}));
    const t = renderTrajectory(trajectoryFromSteps(1, judged, "end"));
    expect(t.match(/^Self-score: .*$/gm)).toEqual(["Self-score: 0", "Self-score: 5", "Self-score: 0", "Self-score: -1", "Self-score: 2"]);
    // The step record keeps the acting model's own self-score.
    expect(judged.map((s) => s.self_score)).toEqual([1, 2, 3, 4, null]);
  });

  it("none: no score line at all, and the summary and verifier prompts say the scores are withheld", () => {
    const judged = withJudgedFields(steps, judgedFields("none", steps, {}));
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
    const v = withJudgedFields(steps, judgedFields("verifier", steps, {}));
    expect(v.map(sftFilterScore)).toEqual([0, 5, 0, -1, 2]);
    const n = withJudgedFields(steps, judgedFields("none", steps, {}));
    expect(n.every((s) => sftFilterScore(s) === Number.POSITIVE_INFINITY)).toBe(true);
    const m = withJudgedFields(steps, judgedFields("model:x", steps, { scores: [null, 1, 1, 1, 1] }));
    expect(sftFilterScore(m[0]!)).toBe(Number.NEGATIVE_INFINITY);
  });
});
