/**
 * The exact context of every step is rebuilt from the logs whatever `--answer-from` and `--keep-think`
 * chose: the live episode and the replay build earlier turns with one function (agent/stepPrompt.ts
 * earlierTurnOf). The model here answers in its content on even steps and only in its reasoning field
 * on odd steps, with think blocks in the content, so each choice makes the turn text differ from the
 * raw content somewhere.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { getGame } from "../../src/games/registry.js";
import { ANSWER_FROM } from "../../src/agent/reply.js";
import { runDir } from "../../src/logs/runDir.js";
import type { CompletionRequest, CompletionResult, Model } from "../../src/models/types.js";
import { loadRunLogs, rebuildEpisodeMessages, rebuildStepMessages } from "../../src/runner/resume/replay.js";
import { runMatrix } from "../../src/runner/loop/runLoop.js";
import { buildMatrix } from "../../src/runner/loop/schedule.js";
import { factory, RecordingModel, small } from "./helpers.js";

/** Moves the answer of every odd step into the reasoning field; wraps every content in a think block. */
class SplitReasoningModel implements Model {
  constructor(private readonly inner: Model) {}
  get spec() {
    return this.inner.spec;
  }
  get endpointHost() {
    return this.inner.endpointHost;
  }
  async complete(r: CompletionRequest): Promise<CompletionResult> {
    const res = await this.inner.complete(r);
    if (r.identity.purpose !== "step") return res;
    if ((r.identity.step ?? 0) % 2 === 0) return { ...res, text: `<think>weighing the board</think>\n${res.text}`, reasoning: "pondering" };
    return { ...res, text: "<think>still weighing</think>thinking done", reasoning: `Let me think.\n${res.text}` };
  }
}

const game = "snake";

describe("earlier turns: the live episode and the replay agree", () => {
  for (const answerFrom of ANSWER_FROM) {
    for (const keepThink of [false, true]) {
      it(`--answer-from ${answerFrom}${keepThink ? " --keep-think" : ""}: every step's prompt rebuilt from the logs is the prompt sent`, async () => {
        const data = mkdtempSync(join(tmpdir(), "s3turns-"));
        const recorders: RecordingModel[] = [];
        const entries = buildMatrix(["builtin:heuristic"], [game], ["none", "history"], 0);
        const settings = small({ exploreEpisodes: 2, checkpointEvery: 2, evalEpisodes: 1, maxSteps: 6, answerFrom, keepThink, maxBadReplies: 1 });
        const outcomes = await runMatrix({
          dataDir: data,
          entries,
          settings,
          game: getGame,
          createModel: factory((_n, m) => {
            const rec = new RecordingModel(new SplitReasoningModel(m));
            recorders.push(rec);
            return rec;
          }),
        });
        expect(outcomes.map((o) => o.status)).toEqual(entries.map(() => "complete"));
        const requests = recorders.flatMap((r) => r.requests).filter((r) => r.identity.purpose === "step");
        let laterTurns = 0;
        for (const e of entries) {
          const logs = loadRunLogs(runDir(data, e.runId));
          const mine = requests.filter((r) => r.identity.runId === e.runId);
          expect(mine).toHaveLength(logs.steps.length);
          for (const r of mine) {
            const at = { phase: r.identity.phase!, checkpoint: r.identity.checkpoint, episode: r.identity.episode!, step: r.identity.step! };
            expect(rebuildStepMessages(logs, getGame(game), at)).toEqual(r.messages);
            if (at.step >= 2) laterTurns++;
          }
          // The episode-at-once rebuild (the viewer's and BuildSFT's) agrees too.
          const first = mine.find((r) => r.identity.phase === "explore" && r.identity.episode === 1 && r.identity.step === 0)!;
          const whole = rebuildEpisodeMessages(logs, getGame(game), { phase: "explore", checkpoint: first.identity.checkpoint, episode: 1 });
          for (const { step, messages } of whole) {
            expect(messages).toEqual(mine.find((r) => r.identity.phase === "explore" && r.identity.episode === 1 && r.identity.step === step)!.messages);
          }
        }
        expect(laterTurns).toBeGreaterThan(0);
        // What the earlier turns show, by choice: the odd steps' answer only where the reasoning is read.
        const late = requests.find((r) => r.identity.phase === "explore" && (r.identity.step ?? 0) >= 2)!;
        const assistant = late.messages.filter((m) => m.role === "assistant").map((m) => m.content);
        expect(assistant[0]).toContain(keepThink ? "<think>weighing the board</think>" : "Answer:");
        if (!keepThink) expect(assistant.join("\n")).not.toContain("<think>");
        if (answerFrom === "content") expect(assistant[1]).toMatch(/thinking done$/);
        else expect(assistant[1]).toMatch(/^Answer: \S.*\nScore: /);
      }, 60_000);
    }
  }
});
