/** Shared fixtures for the model-layer tests. */
import { buildSummaryMessages } from "../../src/agent/summaryPrompt.js";
import { renderTrajectory } from "../../src/agent/trajectoryText.js";
import type { CallIdentity, ChatMessage, CompletionRequest } from "../../src/models/types.js";

/** Looks like a real key; must never appear in any output. */
export const SENTINEL_KEY = "sk-SENTINEL-9f8e7d6c5b4a3210-do-not-leak";

export function identity(over: Partial<CallIdentity> = {}): CallIdentity {
  return { runId: "run-test", purpose: "step", phase: "explore", checkpoint: null, episode: 1, step: 0, sample: 0, ...over };
}

/** A summary prompt: every built-in answers it without needing any game module. */
export function summaryMessages(episode = 1): ChatMessage[] {
  const trajectory = renderTrajectory({
    episode,
    steps: [
      { observation: "o1", action: "UP", selfScore: 1, feedback: "ate an apple" },
      { observation: "o2", action: "LEFT", selfScore: 0, feedback: "blocked" },
    ],
    endObservation: "end",
  });
  return buildSummaryMessages({ rules: "# S3Gym game: snake (config: explore)\nrules", previous: null, trajectory });
}

export function request(over: Partial<CompletionRequest> = {}): CompletionRequest {
  return { messages: summaryMessages(), sampling: {}, identity: identity({ purpose: "summary" }), ...over };
}

/** A sleep that records what it was asked and returns at once. */
export function recordingSleep(): { sleep: (ms: number) => Promise<void>; waits: number[] } {
  const waits: number[] = [];
  return { waits, sleep: async (ms: number) => void waits.push(ms) };
}
