/**
 * Infrastructure failures vs bad answers, in-process: a ModelCallError fails its episode and
 * checkpoint (others intact); a malformed answer is a step; a rerun evaluates failed work again.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { getGame } from "../../src/games/registry.js";
import { readRunRecords } from "../../src/logs/reader.js";
import type { CompletionRequest, Model } from "../../src/models/types.js";
import { runDir } from "../../src/logs/runDir.js";
import { runMatrix } from "../../src/runner/loop/runLoop.js";
import { buildMatrix } from "../../src/runner/loop/schedule.js";
import { factory, FaultyModel, implementedGames, lines, readCompleteRun, RewritingModel, small } from "./helpers.js";

const game = implementedGames().includes("minesweeper") ? "minesweeper" : implementedGames()[0]!;
const settings = small({ exploreEpisodes: 6, checkpointEvery: 3, evalEpisodes: 2 });

async function run(data: string, pathway: string, wrap?: (m: Model) => Model, over: Partial<typeof settings> = {}) {
  const entries = buildMatrix(["builtin:heuristic"], [game], [pathway], 0);
  const [o] = await runMatrix({ dataDir: data, entries, settings: { ...settings, ...over }, game: getGame, createModel: factory(wrap ? (_n, m) => wrap(m) : undefined) });
  return { outcome: o!, dir: runDir(data, entries[0]!.runId) };
}

describe("infrastructure failures", () => {
  it("an evaluation call failing after retries fails that checkpoint only; the rerun evaluates it again", async () => {
    const data = mkdtempSync(join(tmpdir(), "s3fault-"));
    const failing = (r: CompletionRequest) => r.identity.phase === "eval" && r.identity.checkpoint === 3 && r.identity.episode === 1 && r.identity.step === 1;
    const first = await run(data, "history", (m) => new FaultyModel(m, failing));
    expect(first.outcome.status).toBe("failed");
    const cps = first.outcome.checkpoints;
    expect(cps.map((c) => [c.checkpoint, c.status])).toEqual([
      [0, "ok"],
      [3, "failed"],
      [6, "ok"],
    ]);
    expect(cps[1]!.reason).toMatch(/evaluation episode 1 failed: http_5xx after 2 retries/);
    expect(cps[1]!.mean).toBeNull();
    expect(cps[0]!.scores).toHaveLength(2);
    const r = await readRunRecords(first.dir);
    expect(r.manifest!.status).toBe("failed");
    const failedEp = r.episodes.find((e) => e.status === "failed")!;
    expect(failedEp).toMatchObject({ phase: "eval", checkpoint: 3, episode: 1, steps: 1 });
    // The failed call is in calls.jsonl with its class, never in steps.jsonl as an answer.
    expect(r.calls.filter((c) => c.error !== null)).toMatchObject([{ error: "http_5xx", checkpoint: 3, episode: 1, step: 1, retries: 2 }]);
    expect(r.steps.filter((s) => s.phase === "eval" && s.checkpoint === 3 && s.episode === 1).map((s) => s.step)).toEqual([0]);

    // Same command, healthy endpoint: only the failed checkpoint's failed episode is played again.
    const second = await run(data, "history");
    expect(second.outcome.status).toBe("complete");
    await readCompleteRun(second.dir, settings, { resumed: true });
    const calls2 = lines<{ checkpoint: number | null; phase: string; error: string | null }>(second.dir, "calls.jsonl");
    const replayed = calls2.slice(r.calls.length);
    expect(replayed.length).toBeGreaterThan(0);
    expect(replayed.every((c) => c.phase === "eval" && c.checkpoint === 3)).toBe(true);
  });

  it("an exploration failure stops exploration: later checkpoints fail with its reason, earlier ones are intact", async () => {
    const data = mkdtempSync(join(tmpdir(), "s3fault-"));
    const failing = (r: CompletionRequest) => r.identity.phase === "explore" && r.identity.episode === 5 && r.identity.step === 0;
    const first = await run(data, "memory", (m) => new FaultyModel(m, failing));
    expect(first.outcome.checkpoints.map((c) => [c.checkpoint, c.status])).toEqual([
      [0, "ok"],
      [3, "ok"],
      [6, "failed"],
    ]);
    expect(first.outcome.checkpoints[2]!.reason).toMatch(/^exploration episode 5 failed: http_5xx/);
    const mem = lines<{ after_episode: number }>(first.dir, "memory.jsonl");
    expect(mem.map((m) => m.after_episode)).toEqual([0, 1, 2, 3, 4]);
    const second = await run(data, "memory");
    expect(second.outcome.status).toBe("complete");
    await readCompleteRun(second.dir, settings, { resumed: true });
  });

  it("a failing summary call is an infrastructure failure of the consolidation, retried on rerun", async () => {
    const data = mkdtempSync(join(tmpdir(), "s3fault-"));
    const first = await run(data, "memory", (m) => new FaultyModel(m, (r) => r.identity.purpose === "summary" && r.identity.episode === 2));
    expect(first.outcome.checkpoints.map((c) => c.status)).toEqual(["ok", "failed", "failed"]);
    expect(first.outcome.checkpoints[1]!.reason).toMatch(/consolidation after exploration episode 2 failed/);
    const second = await run(data, "memory");
    expect(second.outcome.status).toBe("complete");
    const r = await readCompleteRun(second.dir, settings, { resumed: true });
    // Episode 2 was not played again: its steps were kept, only its summary was made.
    expect(r.episodes.filter((e) => e.phase === "explore" && e.episode === 2)).toHaveLength(1);
  });
});

/** Answers garbage on some steps: a model's bad answer, not an infrastructure failure. */
/** Bad replies: summaries without sections, empty and evasive odd steps, an unparsable step 2. */
const babbling = (m: Model): Model =>
  new RewritingModel(m, (text, r) => {
    if (r.identity.purpose === "summary") return "no sections at all";
    if ((r.identity.step ?? 0) % 2 === 1) return r.identity.step === 1 ? "" : "I would rather not say.";
    if (r.identity.step === 2) return "Answer: nonsense move\nScore: high";
    return text;
  });

describe("bad answers are data", () => {
  it("unparsable replies are steps with parse_error, never retried, never failures; a malformed summary keeps the memory", async () => {
    const data = mkdtempSync(join(tmpdir(), "s3babble-"));
    // Over half of these replies are bad: the degenerate-run stop (tested in endpoints.test.ts) is
    // switched off so that every bad reply can be checked as a step.
    const { outcome, dir } = await run(data, "memory", babbling, { maxBadReplies: 1 });
    expect(outcome.status).toBe("complete");
    const r = await readCompleteRun(dir, settings);
    const odd = r.steps.filter((s) => s.step % 2 === 1);
    expect(odd.length).toBeGreaterThan(0);
    for (const s of odd) {
      expect(s.action).toBeNull();
      expect(s.parse_error).toBeTruthy();
    }
    const two = r.steps.filter((s) => s.step === 2);
    for (const s of two) expect(s).toMatchObject({ action: "nonsense move", self_score: null, valid: false });
    expect(r.calls.every((c) => c.retries === 0 && c.error === null)).toBe(true);
    expect(r.memory.slice(1).every((m) => m.parsed === false && m.text === "" && m.error !== null)).toBe(true);
  });
});
