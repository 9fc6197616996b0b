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
import { judgedRunId } from "../../src/runner/settings/runId.js";
import { settingsRecord } from "../../src/runner/settings/protocolRecord.js";
import { DEFAULT_SETTINGS } from "../../src/runner/loop/context.js";
import { sftFilterScore } from "../../src/training/buildSft.js";

function step(i: number, selfScore: number | null, reward: number): StepRecord {
  return {
    run_id: "r",
    model: "m",
    game: "g",
    pathway: "history",
    phase: "explore",
    config: "explore",
    checkpoint: null,
    episode: 1,
    seed: 7,
    step: i,
    observation: `obs ${i}`,
    response: `Answer: a${i}\nScore: ${selfScore}`,
    action: `a${i}`,
    self_score: selfScore,
    parse_error: null,
    valid: true,
    feedback: `fb ${i}`,
    reward,
    score_after: 0,
    done: false,
    tokens_in: 0,
    tokens_out: 0,
    latency_ms: 0,
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

  it("shuffled: each exploration episode carries another episode's self-scores (the run's episodes permuted), the source written out", () => {
    // Three episodes: 1 (steps 0..4 above: self-scores 1, 2, 3, 4, null), 2 (10, 11, 12), 3 (20, 21, 22).
    const e2 = [step(0, 10, 0), step(1, 11, 0), step(2, 12, 0)];
    const e3 = [step(0, 20, 0), step(1, 21, 0), step(2, 22, 0)];
    const eps = [
      { episode: 3, steps: e3 },
      { episode: 1, steps },
      { episode: 2, steps: e2 },
    ];
    const byEpisode: Record<number, StepRecord[]> = { 1: steps, 2: e2, 3: e3 };
    const ownTotal: Record<number, number> = { 1: 10, 2: 33, 3: 63 };
    // Over many keys: episode x (in number order, position x - 1) carries episode p[x - 1] + 1's scores.
    let sawLongIntoShort = false;
    let sawShortIntoLong = false;
    for (let k = 0; k < 40; k++) {
      const key = shuffleKey(k, "g__history__m__seed0");
      const p = shufflePermutation(3, key);
      const all = runShuffle(eps, key);
      for (const x of [1, 2, 3]) {
        const from = p[x - 1]! + 1;
        const got = all.get(x)!;
        expect(got.length).toBe(byEpisode[x]!.length);
        expect(got.every((g) => g.episode === from)).toBe(true);
        // Every episode's total is its source episode's total (missing scores count 0).
        expect(got.reduce((a, g) => a + (g.self_score ?? 0), 0)).toBe(ownTotal[from]);
        if (x !== 1 && from === 1) {
          // 5 source steps onto 3: steps 0, 1 carry 1, 2; the last carries 3 + 4 (+ the missing one).
          sawLongIntoShort = true;
          expect(got.map((g) => [g.step, g.self_score])).toEqual([
            [0, 1],
            [1, 2],
            [2, 7],
          ]);
        }
        if (x === 1 && from !== 1) {
          // 3 source steps onto 5: the last two carry none.
          sawShortIntoLong = true;
          expect(got.map((g) => g.self_score)).toEqual([...byEpisode[from]!.map((s) => s.self_score), null, null]);
          expect(got.slice(3).every((g) => g.step === null)).toBe(true);
        }
      }
      // The totals the run shows are its own, permuted.
      expect([1, 2, 3].map((x) => all.get(x)!.reduce((a, g) => a + (g.self_score ?? 0), 0)).sort((a, b) => a - b)).toEqual([10, 33, 63]);
    }
    expect(sawLongIntoShort && sawShortIntoLong).toBe(true);
    // judgedFields writes the source out: episode always, step where there is one.
    const key = shuffleKey(3, "g__history__m__seed3");
    const all = runShuffle(eps, key);
    const f = judgedFields("shuffled", steps, { shuffled: all.get(1)! })!;
    f.forEach((x, i) => {
      const src = all.get(1)![i]!;
      expect(x.experience_score).toBe(src.self_score);
      expect(x.experience_score_from_episode).toBe(src.episode);
      expect(x.experience_score_from).toBe(src.step === null ? undefined : src.step);
      expect(x.experience_score_source).toBe("shuffled");
    });
    expect(() => judgedFields("shuffled", e2, { shuffled: all.get(1)! })).toThrow(/5 shuffled scores for 3 steps/);
    expect(() => judgedFields("shuffled", e2, {})).toThrow(/0 shuffled scores/);
    // Recorded: the same key gives the same shuffle whatever order the episodes come in; another run seed or recorded run, another permutation.
    expect(
      runShuffle(
        [
          { episode: 1, steps },
          { episode: 2, steps: e2 },
          { episode: 3, steps: e3 },
        ],
        key,
      ),
    ).toEqual(all);
    const p20 = shufflePermutation(20, key);
    expect([shufflePermutation(20, shuffleKey(4, "g__history__m__seed3")), shufflePermutation(20, shuffleKey(3, "g__memory__m__seed3"))].every((q) => q.join() !== p20.join())).toBe(true);
  });

  it("shuffled carries no information for a reader of episode totals, its length included (a within-episode or a step-pool shuffle does)", () => {
    // 20 episodes; episode e has e + 4 steps, each self-scored 1: its total (e + 4) ranks it, and so does its length.
    const eps = Array.from({ length: 20 }, (_, i) => ({ episode: i + 1, steps: Array.from({ length: i + 5 }, (_, k) => step(k, 1, 0)) }));
    const total = (xs: readonly { self_score: number | null }[]) => xs.reduce((a, x) => a + (x.self_score ?? 0), 0);
    const rank = (v: number[]) => v.map((x) => v.filter((y) => y < x).length + (v.filter((y) => y === x).length - 1) / 2);
    const corr = (xs: number[], ys: number[]) => {
      const rx = rank(xs),
        ry = rank(ys);
      const m = (xs.length - 1) / 2;
      const num = rx.reduce((a, r, i) => a + (r - m) * (ry[i]! - m), 0);
      const den = Math.sqrt(rx.reduce((a, r) => a + (r - m) ** 2, 0) * ry.reduce((a, r) => a + (r - m) ** 2, 0));
      return num / den;
    };
    const lengths = eps.map((e) => e.steps.length);
    // Over 40 recorded runs (keys), the rank correlation of the shown totals with each episode's length averages near 0
    // (a within-episode or a step-pool shuffle gives exactly 1 here: every score is 1, so a total is the length).
    const rhos = Array.from({ length: 40 }, (_, k) => {
      const all = runShuffle(eps, shuffleKey(k, "run"));
      return corr(
        lengths,
        eps.map((e) => total(all.get(e.episode)!)),
      );
    });
    expect(Math.abs(rhos.reduce((a, r) => a + r, 0) / rhos.length)).toBeLessThan(0.1);
    // Not the identity: most episodes carry another's scores.
    const moved = runShuffle(eps, shuffleKey(0, "run"));
    expect(eps.filter((e) => moved.get(e.episode)![0]!.episode !== e.episode).length).toBeGreaterThanOrEqual(15);
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
