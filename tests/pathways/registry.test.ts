/**
 * The pathway registry and the contract every registered pathway keeps: states are values (a
 * snapshot taken before a consolidation does not change), the live path and the rebuild from the
 * logs give the same experience, and the pathway's own records go only to the files it declares.
 */
import { describe, expect, it } from "vitest";
import { builtinSummary } from "../../src/agent/summaryPrompt.js";
import { isVerifierRequest } from "../../src/agent/verifierPrompt.js";
import type { Trajectory } from "../../src/agent/trajectoryText.js";
import type { EpisodeRecord, StepRecord } from "../../src/logs/schema.js";
import type { CompletionRequest, Model } from "../../src/models/types.js";
import { TokenCounter } from "../../src/models/tokenCounter.js";
import { DEFAULT_MATRIX_PATHWAYS, getPathway, JUDGED_PATHWAYS, openExperience, PATHWAY_NAMES, PATHWAYS, RECORDED_PATHWAY_NAMES, UnknownPathwayError } from "../../src/pathways/registry.js";
import type { PathwayHost, PathwayLogs } from "../../src/pathways/types.js";

const settings = { contextTokens: 100_000, maxNewTokens: 1000, tokenizer: "o200k" as const };
const identity = { run_id: "r", model: "m", game: "snake", pathway: "p" };

/** Step and episode records of exploration episode x, and the trajectory the runner would build from them. */
function episode(x: number): { steps: StepRecord[]; record: EpisodeRecord } {
  const steps = [0, 1].map(
    (i): StepRecord =>
      ({
        ...identity,
        phase: "explore",
        config: "explore",
        checkpoint: null,
        episode: x,
        seed: x,
        step: i,
        observation: `Step ${i + 1} of 8\nboard ${x}.${i}`,
        response: "Answer: up\nScore: 1",
        action: "up",
        self_score: 1,
        parse_error: null,
        valid: true,
        feedback: `moved ${x}`,
        reward: 1,
        score_after: i + 1,
        done: i === 1,
        tokens_in: 0,
        tokens_out: 0,
        latency_ms: 0,
        cached: false,
      }) as unknown as StepRecord,
  );
  const record = {
    ...identity,
    phase: "explore",
    config: "explore",
    checkpoint: null,
    episode: x,
    seed: x,
    score: 2,
    steps: 2,
    status: "ok",
    error: null,
    started_at: "",
    ended_at: "",
    end_observation: `Step 3 of 8\nend ${x}`,
  } as unknown as EpisodeRecord;
  return { steps, record };
}

/** A verdict stating one fact per episode (its feedback), so every verified memory version differs. */
function fakeVerdict(r: CompletionRequest): string {
  const user = r.messages.find((m) => m.role === "user")?.content ?? "";
  const episode = /=== Exploration episode (\d+)/.exec(user)?.[1];
  const feedback = /^Feedback: (.*)$/m.exec(user)?.[1];
  return `Outcome: success\nFact: episode ${episode} | up | ${feedback} | steps 1,2`;
}

const summaryModel: Model = {
  spec: "fake",
  endpointHost: "fake",
  complete: async (r: CompletionRequest) => ({
    text: isVerifierRequest(r.messages) ? fakeVerdict(r) : builtinSummary(r.messages),
    usage: { tokensIn: 1, tokensOut: 1, tokensCached: null },
    latencyMs: 0,
    cached: false,
    finishReason: "stop",
  }),
} as unknown as Model;

function host(pathway: string, written: { file: string; record: unknown }[]): PathwayHost {
  return {
    runId: "r",
    modelName: "m",
    gameName: "snake",
    pathway,
    settings,
    exploreRules: "# Snake rules",
    counter: new TokenCounter("o200k"),
    model: summaryModel,
    restored: () => [],
    append: (file, record) => written.push({ file, record }),
    onUsage: () => {},
  };
}

const view = { rules: "# Snake rules", turns: [], observation: "Step 1 of 8\nnow", rewardVisibility: "hidden" as const };

describe("the pathway registry", () => {
  it("lists none, history, memory, verified and hybrid once each; history, memory and hybrid are judged; training is registered but not played by the protocol loop", () => {
    expect(PATHWAY_NAMES).toEqual(["none", "history", "memory", "verified", "hybrid"]);
    expect(new Set(RECORDED_PATHWAY_NAMES).size).toBe(PATHWAYS.length);
    expect(DEFAULT_MATRIX_PATHWAYS).toEqual(["none", "history", "memory"]);
    expect(JUDGED_PATHWAYS).toEqual(["history", "memory", "hybrid"]);
    expect(RECORDED_PATHWAY_NAMES).toEqual(["none", "history", "memory", "verified", "training", "hybrid"]);
  });

  it("names the registered pathways when asked for another", () => {
    expect(() => getPathway("verified-typo")).toThrow(UnknownPathwayError);
    expect(() => getPathway("verified-typo")).toThrow("unknown pathway 'verified-typo': expected none, history, memory, verified");
  });
});

describe.each(PATHWAY_NAMES)("pathway %s keeps the contract", (name) => {
  const def = getPathway(name);
  const episodes = [1, 2, 3].map(episode);
  const trajectories: Trajectory[] = episodes.map((e, i) => ({
    episode: i + 1,
    steps: e.steps.map((s) => ({ observation: s.observation, action: s.action, selfScore: s.self_score, feedback: s.feedback })),
    endObservation: `end ${i + 1}`,
  }));

  it("consolidates in order, leaves earlier snapshots unchanged, and rebuilds the same experience from its logs", async () => {
    const written: { file: string; record: unknown }[] = [];
    const h = host(name, written);
    const live = openExperience(def, h);
    const texts: string[] = [live.snapshot().forStep(view).text];
    const snaps = [live.snapshot()];
    for (const [i, t] of trajectories.entries()) {
      await live.consolidate(i + 1, t);
      expect(live.consolidated()).toBe(i + 1);
      snaps.push(live.snapshot());
      texts.push(live.snapshot().forStep(view).text);
    }
    // A snapshot is frozen: it still gives what it gave when it was taken.
    expect(snaps.map((s) => s.forStep(view).text)).toEqual(texts);
    if (name === "none") expect(new Set(texts)).toEqual(new Set([""]));
    else expect(new Set(texts).size).toBe(4);

    // Only declared files are written.
    expect([...new Set(written.map((w) => w.file))].every((f) => def.files.includes(f as never))).toBe(true);
    const own = (file: string) => written.filter((w) => w.file === file).map((w) => w.record);
    const logs: PathwayLogs = {
      steps: episodes.flatMap((e) => e.steps),
      episodes: episodes.map((e) => e.record),
      records: (file) => own(file) as never,
    };
    const ctx = { settings, counter: new TokenCounter("o200k") };
    for (let k = 0; k <= 3; k++) expect(def.snapshot(def.rebuild(logs, k, ctx), ctx).forStep(view).text).toBe(texts[k]);
  });

  it("refuses to consolidate out of order where order matters", async () => {
    const live = openExperience(def, host(name, []));
    if (name === "none") return;
    await expect(live.consolidate(2, trajectories[1]!)).rejects.toThrow(/consolidating episode 2/);
  });
});
