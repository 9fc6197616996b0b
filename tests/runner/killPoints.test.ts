/**
 * Resume at every kind of kill point, deterministically: a reference run records the order of every
 * line the writers append (steps, episodes, checkpoints, memory, calls, interleaved as the
 * concurrent episodes wrote them) and of every flush (steps.jsonl's lines reach the disk only at its
 * writer's next flush); a "kill" after the k-th line is what was on disk then (plus,
 * every other time, half of line k+1: a torn write), a stale lock of a dead process and a stale
 * manifest temp file. The rerun must give the reference's records exactly: each step once, the same
 * experience at every step (the model's answers carry a hash of their whole prompt, so a checkpoint
 * re-run with the wrong history or memory version shows up in the records), for none, history,
 * memory, verified (curriculum decisions, verdicts, fact memories, broad batches) and a training
 * checkpoint list.
 */
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { appendFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { getGame } from "../../src/games/registry.js";
import { JsonlWriter } from "../../src/logs/writer.js";
import type { CompletionRequest, Model } from "../../src/models/types.js";
import { runCheckpointList } from "../../src/runner/loop/evalList.js";
import { runMatrix, type RunOutcome } from "../../src/runner/loop/runLoop.js";
import { buildMatrix } from "../../src/runner/loop/schedule.js";
import { factory, implementedGames, runRecords, small } from "./helpers.js";

/**
 * Prefixes every answer with a hash of the whole prompt: the records then pin the exact context.
 * Evaluation calls are a little slower, as when the endpoint's limiter serves exploration first, so
 * exploration runs ahead of the checkpoints: many kill points fall where a checkpoint's episodes
 * are unfinished while later memory versions and History blocks are already on disk.
 */
class PromptHashing implements Model {
  constructor(private readonly inner: Model) {}
  get spec() {
    return this.inner.spec;
  }
  get endpointHost() {
    return this.inner.endpointHost;
  }
  async complete(r: CompletionRequest) {
    if (r.identity.phase === "eval") await new Promise((resolve) => setTimeout(resolve, 2));
    const res = await this.inner.complete(r);
    return { ...res, text: `#${createHash("sha256").update(JSON.stringify(r.messages)).digest("hex").slice(0, 12)}\n${res.text}` };
  }
}
const make = factory((_n, m) => new PromptHashing(m));

/** A pid no process has now. */
function deadPid(): number {
  return spawnSync(process.execPath, ["-e", ""]).pid!;
}

afterEach(() => {
  vi.restoreAllMocks();
});

async function everyKillPoint(play: (data: string) => Promise<RunOutcome[]>, runIds: string[], stride: number) {
  const spy = vi.spyOn(JsonlWriter.prototype, "append");
  // A turn-batched writer's lines (steps.jsonl) reach the file only at its next flush: a kill loses the held ones.
  const flushes = vi.spyOn(JsonlWriter.prototype, "flush");
  const reference = mkdtempSync(join(tmpdir(), "s3kp-ref-"));
  expect((await play(reference)).every((o) => o.status === "complete")).toBe(true);
  const flushed = flushes.mock.invocationCallOrder.map((order, i) => ({ order, path: (flushes.mock.contexts[i] as unknown as { path: string }).path }));
  const events = spy.mock.calls.map((args, i) => {
    const path = (spy.mock.contexts[i] as unknown as { path: string }).path;
    const order = spy.mock.invocationCallOrder[i]!;
    // When the line is on disk: at once, or (steps.jsonl) at the first flush of its file after it.
    const onDisk = basename(path) === "steps.jsonl" ? (flushed.find((f) => f.path === path && f.order > order)?.order ?? Infinity) : order;
    return { run: basename(dirname(path)), file: basename(path), line: JSON.stringify(args[0]), order, onDisk };
  });
  spy.mockRestore();
  flushes.mockRestore();
  const want = runRecords(reference);
  expect(events.length).toBeGreaterThan(20);
  const dead = deadPid();
  const points = [...Array.from({ length: Math.ceil(events.length / stride) }, (_, i) => i * stride), events.length - 1];
  for (const [i, k] of points.entries()) {
    const torn = i % 2 === 1;
    const data = mkdtempSync(join(tmpdir(), "s3kp-"));
    for (const id of runIds) {
      const dir = join(data, "runs", id);
      mkdirSync(dir, { recursive: true });
      const m = JSON.parse(readFileSync(join(reference, "runs", id, "manifest.json"), "utf8")) as Record<string, unknown>;
      writeFileSync(join(dir, "manifest.json"), JSON.stringify({ ...m, status: "running", ended_at: null }));
      writeFileSync(join(dir, ".manifest.json.tmp-999999"), '{"run_id": "half a manif');
      writeFileSync(join(dir, ".lock"), `${dead}\n`);
    }
    // Killed just before line k is appended: what is on disk then, in the order it reached the disk.
    const at = events[k]!.order;
    const written = events.filter((e) => e.onDisk < at).sort((a, b) => a.onDisk - b.onDisk || a.order - b.order);
    expect(written.length).toBeLessThanOrEqual(k);
    for (const e of written) appendFileSync(join(data, "runs", e.run, e.file), `${e.line}\n`);
    if (torn) appendFileSync(join(data, "runs", events[k]!.run, events[k]!.file), events[k]!.line.slice(0, events[k]!.line.length >> 1));
    const outcomes = await play(data);
    expect(
      outcomes.map((o) => [o.runId, o.status, o.error]),
      `killed after line ${k}${torn ? " (+ torn)" : ""}`,
    ).toEqual(runIds.map((id) => [id, "complete", null]));
    expect(runRecords(data), `killed after line ${k}${torn ? " (+ torn)" : ""}`).toEqual(want);
    for (const id of runIds) expect(readdirSync(join(data, "runs", id)).filter((f) => f.startsWith("."))).toEqual([]);
  }
}

describe("a kill after any line, then a rerun, gives the uninterrupted run's records", () => {
  const game = implementedGames().includes("snake") ? "snake" : implementedGames()[0]!;

  it("none, history and memory (checkpoint evaluations overlapping later exploration)", async () => {
    const settings = small({ exploreEpisodes: 3, checkpointEvery: 1, evalEpisodes: 2, maxSteps: 3 });
    const entries = buildMatrix(["builtin:heuristic"], [game], ["none", "history", "memory"], 0);
    await everyKillPoint(
      (data) => runMatrix({ dataDir: data, entries, settings, game: getGame, createModel: make }),
      entries.map((e) => e.runId),
      9,
    );
  }, 60_000);

  it("with --views: kills inside id and replay view episodes resume like kills in eval episodes", async () => {
    const settings = {
      ...small({ exploreEpisodes: 2, checkpointEvery: 1, evalEpisodes: 1, maxSteps: 3 }),
      views: { extra: ["id", "replay"] as ("id" | "replay")[], viewEpisodes: 1, replayEpisodes: 2 },
    };
    const entries = buildMatrix(["builtin:heuristic"], [game], ["history", "memory"], 0);
    await everyKillPoint(
      (data) => runMatrix({ dataDir: data, entries, settings, game: getGame, createModel: make }),
      entries.map((e) => e.runId),
      7,
    );
  }, 60_000);

  it("verified: a kill inside a broad batch, between a verdict and its memory version, or before a curriculum decision", async () => {
    const settings = small({ exploreEpisodes: 5, checkpointEvery: 2, evalEpisodes: 1, maxSteps: 3, verified: { broadBatch: 2, verifierModel: null } });
    const entries = buildMatrix(["builtin:learner"], ["chess"], ["verified"], 0);
    await everyKillPoint(
      (data) => runMatrix({ dataDir: data, entries, settings, game: getGame, createModel: make }),
      entries.map((e) => e.runId),
      5,
    );
  }, 120_000);

  it("a training checkpoint list", async () => {
    const settings = small({ evalEpisodes: 2, maxSteps: 3 });
    const checkpoints = [0, 1, 2].map((c) => ({ checkpoint: c, model: c === 0 ? "builtin:random" : "builtin:heuristic" }));
    let id = "";
    const play = async (data: string) => {
      const o = await runCheckpointList({ dataDir: data, modelName: "toy-sft", game: getGame(game), settings, checkpoints, createModel: make });
      id = o.runId;
      return [o];
    };
    await play(mkdtempSync(join(tmpdir(), "s3kp-id-")));
    await everyKillPoint(play, [id], 3);
  }, 60_000);
});
