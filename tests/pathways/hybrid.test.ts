/**
 * The hybrid pathway's retrieval, budget split and rebuild, on hand-made steps whose ranking is
 * clear by hand; and builtin:learner's reading of the retrieved steps (chess: a move and its
 * feedback give a displacement known legal).
 */
import { describe, expect, it } from "vitest";
import { parseFlags } from "../../src/cli/shared/args.js";
import { protocolFlags, settingsFromFlags } from "../../src/cli/shared/sharedFlags.js";
import { settingsFromRecord, settingsRecord } from "../../src/runner/settings/protocolRecord.js";
import { readExperience } from "../../src/builtin/learner/learner.js";
import { splitRetrieved } from "../../src/builtin/learner/experienceText.js";
import { TACTIC_SETS } from "../../src/games/tacticSets.js";
import type { EpisodeRecord, StepRecord } from "../../src/logs/schema.js";
import { TokenCounter } from "../../src/models/tokenCounter.js";
import { STOP_TERM_SHARE, chooseSnippets, hybridOf, hybridPathway, hybridSettings, retrievalTerms, stopTerms, type HybridState, type IndexedStep } from "../../src/pathways/hybrid.js";
import type { PathwayLogs, PathwaySettings, StepView } from "../../src/pathways/types.js";

const counter = new TokenCounter("o200k");
const settings: PathwaySettings = { contextTokens: 100_000, maxNewTokens: 1000, tokenizer: "o200k" };
const ctx = { settings, counter };
const view = (observation: string): StepView => ({ rules: "Game: toy", turns: [], observation, rewardVisibility: "hidden" });

function step(episode: number, stepNo: number, observation: string, action = "go"): IndexedStep {
  return { episode, step: stepNo, observation, tactic: "flat", action, score: 1, scoresShown: true, feedback: "ok" };
}

const memory = { afterEpisode: 2, triple: { retain: "- keep left", avoid: "- the wall", next: "- try right" } };

function refsOf(state: HybridState, observation: string, s: PathwaySettings = settings) {
  const r = hybridPathway.snapshot(state, { settings: s, counter }).forStep(view(observation));
  return { text: r.text, refs: (r.fields as { retrieved_steps: { episode: number; step: number }[] }).retrieved_steps };
}

describe("hybrid retrieval", () => {
  const state: HybridState = {
    memory,
    steps: [step(1, 0, "row . . X\nrow . . ."), step(1, 1, "apple far away"), step(2, 0, "row . . X\nrow . O ."), step(2, 1, "row . . X\nrow . . .")],
  };

  it("ranks the most similar observation first, equal scores going to the earlier episode", () => {
    // Stop terms (in more than 2 of the 4 steps): `row`, `.`, `x` and the first line `0|row . . x`.
    // The query's one other term, its second line `1|row . . .`, is in episode 1 step 0 and episode 2
    // step 1 (equal scores: the earlier episode first). Episode 2 step 0 shares only stop terms with
    // it and "apple far away" nothing: neither is retrieved.
    const { refs } = refsOf(state, "row . . X\nrow . . .");
    expect(refs).toEqual([
      { episode: 1, step: 0 },
      { episode: 2, step: 1 },
    ]);
    // Episode 2 step 0's own second line ranks it first; the others share only stop terms with it.
    expect(refsOf(state, "row . . X\nrow . O .").refs).toEqual([{ episode: 2, step: 0 }]);
  });

  it("stop terms: the terms in more than half of the indexed steps, lower-cased", () => {
    const observations = state.steps.map((s) => s.observation);
    // `1|row . . .` is in exactly half (2 of 4): not a stop term.
    expect([...stopTerms(observations)].sort()).toEqual([".", "0|row . . x", "row", "x"]);
    expect(STOP_TERM_SHARE).toBe(0.5);
    // One indexed step has nothing to be separated from: no stop terms, and it is retrieved.
    expect(stopTerms(["row . . X"]).size).toBe(0);
    expect(refsOf({ memory, steps: [step(1, 0, "row . . X")] }, "row . . X").refs).toEqual([{ episode: 1, step: 0 }]);
  });

  it("a query that shares only stop terms with the steps retrieves nothing", () => {
    const { text, refs } = refsOf(state, "row . . X");
    expect(refs).toEqual([]);
    expect(text).not.toContain("Retrieved");
    expect(text).toContain("- keep left");
  });

  it("keeps at most k snippets, shown after the whole summary", () => {
    const { text, refs } = refsOf(state, "row . . X\nrow . . .", { ...settings, hybridK: 1 });
    expect(refs).toEqual([{ episode: 1, step: 0 }]);
    expect(text.startsWith("## What worked (retain)") || text.indexOf("- keep left") < text.indexOf("--- Retrieved step")).toBe(true);
    expect(text).toContain("--- Retrieved step: exploration episode 1, step 1 ---\nObservation:\nrow . . X\nrow . . .\nTactic: flat\nAction: go\nSelf-score: 1\nFeedback: ok");
    expect(text).toContain("- try right");
  });

  it("k = 0 gives the summary alone (Summary Memory's text)", () => {
    const { text, refs } = refsOf(state, "row . . X", { ...settings, hybridK: 0 });
    expect(refs).toEqual([]);
    expect(text).not.toContain("Retrieved");
    expect(text).toContain("- keep left");
  });

  it("stops at the first snippet that does not fit the snippets' budget", () => {
    const ranked = [0, 2, 3];
    const one = counter.count("=== Retrieved earlier exploration steps (most similar to the current observation first) ===") + 3 * counter.count("\n");
    const steps = state.steps;
    const sizeOf = (i: number) =>
      counter.count(
        `--- Retrieved step: exploration episode ${steps[i]!.episode}, step ${steps[i]!.step + 1} ---\nObservation:\n${steps[i]!.observation}\nTactic: flat\nAction: go\nSelf-score: 1\nFeedback: ok`,
      );
    expect(chooseSnippets(ranked, (i) => steps[i]!, 4, one + sizeOf(0), counter).map((s) => s.step)).toEqual([0]);
    expect(chooseSnippets(ranked, (i) => steps[i]!, 4, one + sizeOf(0) - 1, counter)).toEqual([]);
    expect(chooseSnippets(ranked, (i) => steps[i]!, 4, 1_000_000, counter)).toHaveLength(3);
  });

  it("a context the step's own messages fill leaves the snippets out and the summary whole", () => {
    const { text, refs } = refsOf(state, "row . . X\nrow . . .", { ...settings, contextTokens: 1001, maxNewTokens: 1000 });
    expect(refs).toEqual([]);
    expect(text).toContain("- keep left");
  });

  it("terms are words and numbered whole lines", () => {
    expect(retrievalTerms("a b\n\nc")).toEqual(["0|a b", "a", "b", "2|c", "c"]);
  });
});

describe("hybrid rebuild from the logs", () => {
  const base = { run_id: "r", model: "m", game: "toy", pathway: "hybrid", config: "explore", checkpoint: null, seed: 1 };
  const steps = [1, 2, 3].map(
    (x) =>
      ({
        ...base,
        phase: "explore",
        episode: x,
        step: 0,
        observation: `board ${x}`,
        response: "Answer: go",
        action: "go",
        self_score: x,
        feedback: "ok",
        reward: 0,
        score_after: 0,
        done: true,
      }) as unknown as StepRecord,
  );
  const episodes = [1, 2, 3].map((x) => ({ ...base, phase: "explore", episode: x, status: "ok", end_observation: "end" }) as unknown as EpisodeRecord);
  const mem = [0, 1, 2, 3].map((x) => ({ after_episode: x, retain: x ? `- r${x}` : "", avoid: x ? "- a" : "", next: x ? "- n" : "" }));
  const logs: PathwayLogs = { steps, episodes, records: ((file: string) => (file === "memory" ? mem : [])) as PathwayLogs["records"] };

  it("Z_k indexes exploration episodes 1..k only and carries memory version k", () => {
    const z2 = hybridPathway.rebuild(logs, 2, ctx);
    expect(z2.memory.afterEpisode).toBe(2);
    expect(z2.steps.map((s) => s.episode)).toEqual([1, 2]);
    // Episode 3's board is not retrievable at checkpoint 2, though it matches best (`board` is a stop
    // term of both indexes; `2` and `3` are not).
    const query = "board 3\nboard 2";
    const { refs, text } = refsOf(z2, query);
    expect(refs).toEqual([{ episode: 2, step: 0 }]);
    expect(refsOf(hybridPathway.rebuild(logs, 3, ctx), query).refs).toEqual([
      { episode: 3, step: 0 },
      { episode: 2, step: 0 },
    ]);
    expect(text).toContain("- r2");
    expect(text).not.toContain("board 3");
    expect(hybridPathway.rebuild(logs, 0, ctx).steps).toEqual([]);
  });
});

describe("builtin:learner reads the retrieved steps", () => {
  const obs = [
    "Step 1 of 32",
    "Board (8x8):",
    "  a b c d e f g h",
    "8 . . . . . . . .",
    "7 . . . t . . . .",
    "6 . . . . . . . .",
    "5 . . . . . . . .",
    "4 . . t . . . . .",
    "3 . . . A . t . B",
    "2 . . . . . . . .",
    "1 . . . . . . . .",
    "  a b c d e f g h",
    "Legend: A your piece (hidden rules), B your piece (hidden rules), t target, . empty",
    "Your pieces: A d3; B h3",
    "Targets left: 3 of 3: c4, d7, f3",
    "Reminder: A and B move by fixed rules you must discover.",
  ].join("\n");
  const text = [
    "## What worked (retain)\n- tactic flat: mean self-score 1 over 1 episode",
    "=== Retrieved earlier exploration steps (most similar to the current observation first) ===",
    "--- Retrieved step: exploration episode 1, step 1 ---",
    "Observation:",
    obs,
    "Tactic: probe-capture",
    "Action: h3 f3",
    "Self-score: 1",
    "Feedback: moved B h3 to f3 and captured the target there; 2 target(s) left",
  ].join("\n");

  it("splits the summary from the steps and reads each step's observation, action and feedback", () => {
    const r = splitRetrieved(text);
    expect(r.memory).toContain("- tactic flat");
    expect(r.memory).not.toContain("Retrieved");
    expect(r.steps).toEqual([{ observation: obs, action: "h3 f3", feedback: "moved B h3 to f3 and captured the target there; 2 target(s) left" }]);
  });

  it("a retrieved chess move that moved gives its displacement as known legal (h3 -> f3: -2,0), and adds no tactic statistics", () => {
    const read = readExperience(text, TACTIC_SETS.chess.learn);
    expect(read.knowledge.vectors.B?.legal).toEqual(["-2,0"]);
    expect([...read.stats.keys()]).toEqual(["flat"]);
    // Without the section the same summary knows no vector.
    expect(readExperience(text.slice(0, text.indexOf("===")), TACTIC_SETS.chess.learn).knowledge.vectors.B).toBeUndefined();
  });
});

describe("the hybrid settings' flags", () => {
  const parse = (argv: string[]) => settingsFromFlags(parseFlags(argv, protocolFlags("run"), "usage").values);

  it("--hybrid-k and --hybrid-summary-share set the settings, are recorded, and read back", () => {
    const s = parse(["--hybrid-k", "2", "--hybrid-summary-share", "40%"]);
    expect(s.hybridK).toBe(2);
    expect(s.hybridSummaryShare).toBe(0.4);
    const rec = settingsRecord(s) as Record<string, unknown>;
    expect(rec.hybrid_k).toBe(2);
    expect(rec.hybrid_summary_share).toBe(0.4);
    expect(settingsFromRecord(settingsRecord(s)).hybridK).toBe(2);
    expect(hybridSettings(hybridOf(s) as PathwaySettings)).toEqual({ k: 2, summaryShare: 0.4 });
  });

  it("the defaults leave the settings and the record as without the flags", () => {
    const s = parse(["--hybrid-k", "4", "--hybrid-summary-share", "0.25"]);
    expect(s).toEqual(parse([]));
    expect("hybrid_k" in (settingsRecord(s) as Record<string, unknown>)).toBe(false);
  });

  it("a bad value names the flag", () => {
    expect(() => parse(["--hybrid-k", "-1"])).toThrow(/hybrid-k/);
    expect(() => parse(["--hybrid-summary-share", "1.5"])).toThrow(/hybrid-summary-share/);
  });
});
