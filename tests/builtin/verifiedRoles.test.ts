/**
 * builtin:learner answers the verified pathway's three roles offline (verified.md, "Offline"), and
 * `s3gym serve` gives the same answers over HTTP for the same messages; its curriculum goes broad
 * then deep on its worst seeds, its verifier labels from its own self-scores (the judge dial), its
 * facts are its tactic outcomes and chess vectors, and reading a verified memory changes its play.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { isCurriculumRequest, type CurriculumOffer } from "../../src/agent/curriculumPrompt.js";
import { isVerifierRequest } from "../../src/agent/verifierPrompt.js";
import { buildStepMessages } from "../../src/agent/stepPrompt.js";
import { verifiedMemoryText } from "../../src/agent/verifiedMemoryText.js";
import { answerLearner, readExperience } from "../../src/builtin/learner/learner.js";
import { learnerCurriculumChoices } from "../../src/builtin/learner/roles/curriculum.js";
import { learnerVerdictOf } from "../../src/builtin/learner/roles/verifier.js";
import { startServer, type RunningServer } from "../../src/builtin/server.js";
import { getGame } from "../../src/games/registry.js";
import { TACTIC_SETS } from "../../src/games/tacticSets.js";
import { ObservedModel } from "../../src/models/callLog.js";
import type { CompletionRequest } from "../../src/models/types.js";
import { runMatrix } from "../../src/runner/loop/runLoop.js";
import { buildMatrix } from "../../src/runner/loop/schedule.js";
import { builtin, RecordingModel, small } from "../runner/helpers.js";

let server: RunningServer | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
});

async function roleRequests(model: string, game: string): Promise<{ requests: CompletionRequest[]; answers: string[] }> {
  const rec = new RecordingModel(builtin(model));
  const answers: string[] = [];
  const settings = small({ exploreEpisodes: 6, checkpointEvery: 3, evalEpisodes: 1, maxSteps: 5, verified: { broadBatch: 2, verifierModel: null } });
  await runMatrix({
    dataDir: mkdtempSync(join(tmpdir(), "s3vr-")),
    entries: buildMatrix([model], [game], ["verified"], 0),
    settings,
    game: getGame,
    createModel: (_n, onCall) =>
      new ObservedModel(
        {
          spec: rec.spec,
          endpointHost: rec.endpointHost,
          complete: async (r) => {
            const res = await rec.complete(r);
            if (isCurriculumRequest(r.messages) || isVerifierRequest(r.messages)) answers.push(res.text);
            return res;
          },
        },
        onCall,
        null,
      ),
  });
  const requests = rec.requests.filter((r) => isCurriculumRequest(r.messages) || isVerifierRequest(r.messages));
  return { requests, answers };
}

describe("the verified roles in process and over HTTP", () => {
  it.each([
    ["builtin:learner", "learner", "chess"],
    ["builtin:learner?judge=0.3", "learner?judge=0.3", "minesweeper"],
    ["builtin:heuristic", "s3gym-heuristic", "snake"],
  ])(
    "%s answers every curriculum and verifier prompt as `serve` does (%s, %s)",
    async (spec, served, game) => {
      const { requests, answers } = await roleRequests(spec, game);
      expect(requests.length).toBe(6 + 5);
      server = await startServer({});
      for (const [i, r] of requests.entries()) {
        const res = await fetch(`${server.url}/chat/completions`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ model: served, messages: r.messages, seed: r.sampling.seed, max_tokens: r.sampling.max_tokens }),
        });
        expect(res.status).toBe(200);
        const body = (await res.json()) as { choices: { message: { content: string } }[] };
        expect(body.choices[0]!.message.content, `request ${i}`).toBe(answers[i]);
      }
    },
    60_000,
  );
});

describe("builtin:learner's curriculum", () => {
  const base: CurriculumOffer = {
    phase: "broad",
    episodes: [3, 4],
    seeds: [
      { seed: 5, played: [{ episode: 1, variant: "narrow", outcome: "failure" }] },
      { seed: 6, played: [{ episode: 2, variant: "explore", outcome: "success" }] },
      { seed: 7, played: [] },
      { seed: 8, played: [] },
    ],
    variants: [
      { name: "explore", differs: "" },
      { name: "narrow", differs: "" },
      { name: "low", differs: "" },
    ],
    memory: "",
    rules: "",
  };

  it("broad: untried seeds in order, episode e on variant (e - 1) mod 3", () => {
    expect(learnerCurriculumChoices(base).choices).toEqual([
      { episode: 3, seed: 7, variant: "low" },
      { episode: 4, seed: 8, variant: "explore" },
    ]);
  });

  it("deep: its worst seed (last verdict not a success) on the variant it went wrong on, then untried seeds", () => {
    const r = learnerCurriculumChoices({ ...base, phase: "deep", episodes: [3, 4] });
    expect(r.choices).toEqual([
      { episode: 3, seed: 5, variant: "narrow" },
      { episode: 4, seed: 7, variant: "explore" },
    ]);
    expect(r.reason).toBe("deep: retry seed 5, whose last verdict was failure");
  });
});

describe("builtin:learner's verifier", () => {
  const block = (scores: number[], tactic = "flat") =>
    [
      `=== Exploration episode 1 (${scores.length} steps) ===`,
      ...scores.flatMap((s, i) => [`--- Step ${i + 1} ---`, "Observation:", "board", `Tactic: ${tactic}`, "Action: 3 0", `Self-score: ${s}`, "Feedback: ok"]),
      "End state:",
      "board",
      "=== End of exploration episode 1 ===",
    ].join("\n");
  const rules = "# S3Gym game: tetris (config: narrow)\n\nrules";

  it("success when its own self-scores sum to the stated threshold (1 + 2 = 3 >= 3), with a tactic fact over steps 1..n", () => {
    expect(learnerVerdictOf({ rules, trajectory: block([1, 2]), successCriterion: "... reaches at least 3." })).toEqual({
      outcome: "success",
      facts: [{ condition: "config narrow", action: "tactic flat", effect: "a successful episode", steps: [1, 2] }],
    });
    expect(learnerVerdictOf({ rules, trajectory: block([1, 1.5]), successCriterion: "... reaches at least 3." }).outcome).toBe("failure");
  });

  it("uncertain, without facts, for a cut trajectory", () => {
    const cut = block([1, 2]).replace("End state:\nboard", "[... 4 later steps omitted]");
    expect(learnerVerdictOf({ rules, trajectory: cut, successCriterion: "at least 3." })).toEqual({ outcome: "uncertain", facts: [] });
  });
});

describe("builtin:learner reads a verified memory", () => {
  it("its tactic facts become statistics: support as episodes, successes as return", () => {
    const memory = verifiedMemoryText([
      { id: "f1", condition: "config explore", action: "tactic flat", effect: "a successful episode", support: 3, disputed: false },
      { id: "f2", condition: "config narrow", action: "tactic flat", effect: "a failed episode", support: 1, disputed: true },
      { id: "f3", condition: "config explore", action: "tactic tall-stack", effect: "a failed episode", support: 2, disputed: false },
      { id: "f4", condition: "piece A", action: "move by 1,2", effect: "move made", support: 2, disputed: false },
    ]);
    const exp = readExperience(memory, TACTIC_SETS.tetris.learn);
    expect([...exp.stats.entries()].sort()).toEqual([
      ["flat", { n: 4, sum: 3 }],
      ["tall-stack", { n: 2, sum: 0 }],
    ]);
    expect(exp.knowledge.vectors).toEqual({ A: { legal: ["1,2"], bad: [] } });
  });

  it("in evaluation it plays the tactic with the best verified success", () => {
    const game = getGame("tetris");
    const memory = verifiedMemoryText([
      { id: "f1", condition: "config explore", action: "tactic careless", effect: "a successful episode", support: 3, disputed: false },
      { id: "f2", condition: "config explore", action: "tactic flat", effect: "a failed episode", support: 3, disputed: false },
      { id: "f3", condition: "config explore", action: "tactic tall-stack", effect: "a failed episode", support: 3, disputed: false },
      { id: "f4", condition: "config explore", action: "tactic random-drop", effect: "a failed episode", support: 1, disputed: false },
    ]);
    const state = game.reset(3, "eval");
    const messages = buildStepMessages({ rules: game.rules("eval"), experience: memory, turns: [], observation: game.observe(state), rewardVisibility: "hidden" });
    // The memory decides: careless (3 of 3 verified successes) over flat (0 of 3), whatever the seed.
    for (const seed of [1, 2, 3]) expect(answerLearner(messages, { judge: 1, checkpoint: null }, seed)).toMatch(/^Tactic: careless$/m);
    expect(
      answerLearner(
        buildStepMessages({
          rules: game.rules("eval"),
          experience: memory.replace("tactic careless | a successful", "tactic flat | a successful").replace("tactic flat | a failed", "tactic careless | a failed"),
          turns: [],
          observation: game.observe(state),
          rewardVisibility: "hidden",
        }),
        { judge: 1, checkpoint: null },
        1,
      ),
    ).toMatch(/^Tactic: flat$/m);
  });
});
