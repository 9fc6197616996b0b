/**
 * The verified pathway's role replies are read strictly (src/agent/curriculumPrompt.ts,
 * verifierPrompt.ts): every malformed shape is a recorded rejection with its reason, never a throw,
 * and parsing stays linear on hostile input.
 */
import { describe, expect, it } from "vitest";
import { buildCurriculumMessages, formatCurriculum, parseCurriculum, readCurriculumPrompt, type CurriculumOffer } from "../../src/agent/curriculumPrompt.js";
import { dropThinkBlocks } from "../../src/agent/replyText.js";
import { builtinRoleAnswer } from "../../src/agent/builtinRoles.js";
import { buildVerifierMessages, formatVerdict, parseVerdict, readVerifierPrompt } from "../../src/agent/verifierPrompt.js";
import { parseVerifiedMemoryText, verifiedMemoryText } from "../../src/agent/verifiedMemoryText.js";

describe("parseVerdict", () => {
  it("reads the outcome and the facts with their steps (markdown, think blocks and prose before it tolerated)", () => {
    const reply =
      "<think>Outcome: failure</think>Looking at the steps...\n**Outcome: success**\nFact: board corner | uncover a1 | opened a region | steps 3, 1,3\n- Fact: after a flag | uncover b2 | a mine | step 4\n";
    const p = parseVerdict(reply, 4);
    expect(p).toEqual({
      ok: true,
      verdict: {
        outcome: "success",
        facts: [
          { condition: "board corner", action: "uncover a1", effect: "opened a region", steps: [1, 3] },
          { condition: "after a flag", action: "uncover b2", effect: "a mine", steps: [4] },
        ],
      },
    });
  });

  it("rejects, naming the line and the fix, every malformed shape", () => {
    const cases: [string, RegExp][] = [
      ["I think it went well.", /no `Outcome:` line/],
      ["Outcome: great", /outcome must be success, failure or uncertain/],
      ["Outcome: success\nThe agent did fine.", /line 2: expected a `Fact:/],
      ["Outcome: success\nFact: a | b | steps 1", /4 fields/],
      ["Outcome: success\nFact: a | b | c | 1,2", /must be `steps <n>/],
      ["Outcome: success\nFact: a | b | c | steps 9", /step 9 is not a step of this episode \(1\.\.4\)/],
      ["Outcome: success\nFact: a | b | c | steps 0", /step 0 is not a step/],
      ["Outcome: success\nFact:  | b | c | steps 1", /condition is empty/],
      [`Outcome: success\nFact: ${"x".repeat(201)} | b | c | steps 1`, /longer than 200/],
      [`Outcome: success\n${Array.from({ length: 25 }, () => "Fact: a | b | c | steps 1").join("\n")}`, /more than 24 facts/],
    ];
    for (const [reply, why] of cases) {
      const p = parseVerdict(reply, 4);
      expect(p.ok, reply).toBe(false);
      if (!p.ok) expect(p.error, reply).toMatch(why);
    }
  });

  it("round-trips what a built-in verifier writes", () => {
    const v = { outcome: "failure" as const, facts: [{ condition: "piece A", action: "move by 1,2", effect: "illegal move", steps: [2, 5] }] };
    expect(parseVerdict(formatVerdict(v), 5)).toEqual({ ok: true, verdict: v });
  });

  it("is linear: a megabyte of hostile text parses (or is rejected) in well under a second", () => {
    for (const reply of [
      "Outcome: success\nFact: " + "|".repeat(1_000_000),
      "*".repeat(1_000_000) + "x",
      "Outcome: success\n" + "Fact: a | b | c | steps 1,".repeat(40_000),
      "<think>".repeat(100_000),
    ]) {
      const t0 = performance.now();
      parseVerdict(reply, 10);
      expect(performance.now() - t0).toBeLessThan(1500);
    }
  });
});

const offer: CurriculumOffer = {
  phase: "broad",
  episodes: [4, 5],
  seeds: [
    { seed: 11, played: [{ episode: 1, variant: "explore", outcome: "failure" }] },
    { seed: 12, played: [] },
    { seed: 13, played: [] },
  ],
  variants: [
    { name: "explore", differs: "the explore config" },
    { name: "more-mines", differs: "mines 14 (explore 10)" },
  ],
  memory: "",
  rules: "# S3Gym game: minesweeper (config: explore)\n\nrules",
};

describe("parseCurriculum", () => {
  it("reads one choice per episode of the batch, and the reason", () => {
    const p = parseCurriculum("Reason: cover both configs\n**Episode 5: seed 12, variant more-mines**\nEpisode 4: seed 13, variant explore", offer);
    expect(p).toEqual({
      ok: true,
      reason: "cover both configs",
      choices: [
        { episode: 4, seed: 13, variant: "explore" },
        { episode: 5, seed: 12, variant: "more-mines" },
      ],
    });
  });

  it("rejects a choice outside the offer, a repeated episode or seed, a missing episode, a malformed line", () => {
    const cases: [string, RegExp][] = [
      ["Episode 4: seed 99, variant explore\nEpisode 5: seed 12, variant explore", /seed 99 is not in the exploration list/],
      ["Episode 4: seed 13, variant eval\nEpisode 5: seed 12, variant explore", /variant 'eval' is not offered/],
      ["Episode 6: seed 13, variant explore", /episode 6 is not in this batch/],
      ["Episode 4: seed 13, variant explore\nEpisode 4: seed 12, variant explore", /episode 4 is chosen twice/],
      ["Episode 4: seed 13, variant explore\nEpisode 5: seed 13, variant more-mines", /seed 13 is chosen twice/],
      ["Episode 4: seed 13, variant explore", /no choice for episode 5/],
      ["Episode 4 -> seed 13", /line 1: expected 'Episode <n>: seed <seed>, variant <name>'/],
      ["", /no choice for episodes 4,5/],
    ];
    for (const [reply, why] of cases) {
      const p = parseCurriculum(reply, offer);
      expect(p.ok, reply).toBe(false);
      if (!p.ok) expect(p.error, reply).toMatch(why);
    }
  });

  it("the prompt lists every seed with its history and every variant, and reads back as the offer", () => {
    const messages = buildCurriculumMessages(offer);
    expect(messages[1]!.content).toContain("seed 11: episode 1 (variant explore): failure");
    expect(messages[1]!.content).toContain("seed 12: untried");
    expect(messages[1]!.content).toContain("more-mines: mines 14 (explore 10)");
    expect(readCurriculumPrompt(messages)).toEqual(offer);
    expect(
      parseCurriculum(
        formatCurriculum(
          [
            { episode: 4, seed: 12, variant: "explore" },
            { episode: 5, seed: 13, variant: "explore" },
          ],
          "r",
        ),
        offer,
      ).ok,
    ).toBe(true);
  });

  it("the plain built-ins answer with the next untried seeds on explore", () => {
    const reply = builtinRoleAnswer(buildCurriculumMessages(offer))!;
    expect(parseCurriculum(reply, offer)).toMatchObject({
      ok: true,
      choices: [
        { episode: 4, seed: 12, variant: "explore" },
        { episode: 5, seed: 13, variant: "explore" },
      ],
    });
  });

  it("is linear: a megabyte of hostile text is rejected in well under a second", () => {
    for (const reply of [
      "Episode 4: seed " + "1".repeat(1_000_000),
      "*".repeat(1_000_000) + "Episode",
      "Episode 4: seed 13, variant explore\n".repeat(30_000),
      "Reason: " + " ".repeat(1_000_000) + "x",
    ]) {
      const t0 = performance.now();
      expect(parseCurriculum(reply, offer).ok).toBe(false);
      expect(performance.now() - t0).toBeLessThan(1500);
    }
  });

  it("strips think blocks linearly, an unclosed one to the end", () => {
    expect(dropThinkBlocks("a<think>b</think>c<think>d")).toBe("ac");
  });

  it("reads past think blocks as the step parser does: any case, and a close tag whose open was in the template", () => {
    const choices = "Episode 4: seed 13, variant explore\nEpisode 5: seed 12, variant explore";
    const decoy = "Episode 4: seed 11, variant more-mines\nEpisode 5: seed 11, variant explore";
    for (const reply of [`<THINK>${decoy}</Think>\n${choices}`, `${decoy}\n</think>\n${choices}`]) {
      expect(parseCurriculum(reply, offer), reply).toMatchObject({
        ok: true,
        choices: [
          { episode: 4, seed: 13 },
          { episode: 5, seed: 12 },
        ],
      });
    }
  });
});

describe("the verifier prompt and the plain built-in verifier", () => {
  const trajectory =
    "=== Exploration episode 2 (2 steps) ===\n--- Step 1 ---\nObservation:\nx\nAction: up\nSelf-score: 2\nFeedback: ok\n--- Step 2 ---\nObservation:\ny\nAction: up\nSelf-score: 1.5\nFeedback: ok\nEnd state:\nz\n=== End of exploration episode 2 ===";
  const messages = buildVerifierMessages({
    rules: "# S3Gym game: snake (config: explore)\n\nrules",
    trajectory,
    steps: 2,
    successCriterion: "the episode's final score under the rules reaches at least 3.",
  });

  it("reads back what it was given", () => {
    expect(readVerifierPrompt(messages)).toEqual({
      rules: "# S3Gym game: snake (config: explore)\n\nrules",
      trajectory,
      steps: 2,
      successCriterion: "the episode's final score under the rules reaches at least 3.",
    });
  });

  it("judges success from the self-score sum against the stated threshold (3.5 >= 3), uncertain for a cut trajectory", () => {
    expect(builtinRoleAnswer(messages)).toBe("Outcome: success");
    const cut = buildVerifierMessages({ rules: "r", trajectory: trajectory.replace("End state:\nz", "[... 3 later steps omitted]"), steps: 5, successCriterion: "reaches at least 3." });
    expect(builtinRoleAnswer(cut)).toBe("Outcome: uncertain");
    const low = buildVerifierMessages({ rules: "r", trajectory, steps: 2, successCriterion: "reaches at least 4." });
    expect(builtinRoleAnswer(low)).toBe("Outcome: failure");
  });
});

describe("the verified memory text", () => {
  it("reads back the facts it shows, disputed flag included", () => {
    const facts = [
      { id: "f3", condition: "piece A", action: "move by 1,2", effect: "move made", support: 4, disputed: false },
      { id: "f7", condition: "config explore", action: "tactic flat", effect: "a failed episode", support: 1, disputed: true },
    ];
    const text = verifiedMemoryText(facts);
    expect(text.split("\n")[1]).toBe("- f3 (support 4): piece A | move by 1,2 | move made");
    expect(text.split("\n")[2]).toBe("- f7 (support 1, disputed): config explore | tactic flat | a failed episode");
    expect(parseVerifiedMemoryText(text)).toEqual(facts);
    expect(verifiedMemoryText([])).toBe("");
  });
});
