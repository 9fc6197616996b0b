/**
 * A new pathway is one module plus one registry line: this file is that module (the `tally`
 * pathway, defined and registered here and nowhere in src/), and the tests show the runner plays
 * it, resume cleans its file and the replay rebuilds every prompt of it, with no other source file
 * knowing it exists.
 *
 * Tally: the experience is "Tally: S steps over X exploration episodes." (S = the steps of episodes
 * 1..X), one version per consolidated episode in memory.jsonl (its `retain` holds S), no model call.
 */
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { getGame } from "../../src/games/registry.js";
import type { EpisodeRecord, MemoryRecord } from "../../src/logs/schema.js";
import { runDir } from "../../src/logs/runDir.js";
import { registerPathway } from "../../src/pathways/registry.js";
import { definePathway, type PathwayHost } from "../../src/pathways/types.js";
import { loadRunLogs, rebuildStepMessages } from "../../src/runner/resume/replay.js";
import { loadForResume } from "../../src/runner/resume/resume.js";
import { runMatrix } from "../../src/runner/loop/runLoop.js";
import { buildMatrix } from "../../src/runner/loop/schedule.js";
import { implementedGames, lines, recordingFactory, runRecords, small } from "../runner/helpers.js";

interface Tally {
  after: number;
  steps: number;
}

const tallyText = (t: Tally): string => `Tally: ${t.steps} steps over ${t.after} exploration episodes.`;

function tallyRecord(host: PathwayHost, t: Tally) {
  return {
    run_id: host.runId,
    model: host.modelName,
    game: host.gameName,
    pathway: host.pathway,
    after_episode: t.after,
    text: tallyText(t),
    retain: String(t.steps),
    avoid: "",
    next: "",
    parsed: true,
    error: null,
    response: null,
  };
}

const fromRecord = (r: { after_episode: number; retain: string }): Tally => ({ after: r.after_episode, steps: Number(r.retain) });

const tally = definePathway<Tally>({
  name: "tally",
  judged: false,
  protocolLoop: true,
  inDefaultMatrix: false,
  files: ["memory"],
  // Versions 0..k in a row, each after a done exploration episode (version x counts episode x's steps).
  keep(records, explored) {
    const kept: MemoryRecord[] = [];
    for (const r of records.memory ?? []) if (r.after_episode === kept.length && (kept.length === 0 || explored(kept.length))) kept.push(r);
    return { memory: kept };
  },
  create(host) {
    const restored = host.restored("memory");
    if (restored.length > 0) return fromRecord(restored[0]!);
    const zero = { after: 0, steps: 0 };
    host.append("memory", tallyRecord(host, zero));
    return zero;
  },
  consolidated: (t) => t.after,
  async consolidate(host, t, x, trajectory) {
    const logged = host.restored("memory").find((r) => r.after_episode === x);
    if (logged) return fromRecord(logged);
    const next = { after: x, steps: t.steps + trajectory.steps.length };
    host.append("memory", tallyRecord(host, next));
    return next;
  },
  snapshot: (t) => ({ forStep: () => ({ text: tallyText(t), fields: { memory_version: t.after } }) }),
  rebuild(logs, k) {
    const r = logs.records("memory").find((m) => m.after_episode === k);
    if (!r) throw new Error(`tally version ${k} is not in memory.jsonl`);
    return fromRecord(r);
  },
});
registerPathway(tally);

const game = implementedGames()[0]!;
const settings = small({ exploreEpisodes: 3, checkpointEvery: 1 });

async function play(data: string) {
  const entries = buildMatrix(["builtin:heuristic"], [game], ["tally"], 0);
  const recording = recordingFactory();
  const outcomes = await runMatrix({ dataDir: data, entries, settings, game: getGame, createModel: recording.createModel });
  return { dir: runDir(data, entries[0]!.runId), outcome: outcomes[0]!, requests: recording.requests() };
}

describe("a pathway defined and registered in a test file", () => {
  it("is refused at registration when it declares files but no keep rule (resume could not clean them)", () => {
    const { keep: _keep, ...noKeep } = tally;
    expect(() => registerPathway({ ...noKeep, name: "tally-without-keep" })).toThrow(/'tally-without-keep' declares files \(memory\) but no keep rule: add keep\(\)/);
    expect(() => registerPathway(tally)).toThrow(/'tally' is already registered/);
  });

  it("is played by the protocol loop: its versions in its file, its text in the prompts of the steps that read them", async () => {
    const { dir, outcome, requests } = await play(mkdtempSync(join(tmpdir(), "s3toy-")));
    expect(outcome.status).toBe("complete");
    // Hand-computed from episodes.jsonl: version x counts the steps of exploration episodes 1..x.
    const explored = lines<EpisodeRecord>(dir, "episodes.jsonl")
      .filter((e) => e.phase === "explore")
      .sort((a, b) => a.episode - b.episode);
    expect(explored.map((e) => e.episode)).toEqual([1, 2, 3]);
    const sums = [0, explored[0]!.steps, explored[0]!.steps + explored[1]!.steps, explored[0]!.steps + explored[1]!.steps + explored[2]!.steps];
    const memory = lines<MemoryRecord>(dir, "memory.jsonl");
    expect(memory.map((m) => [m.after_episode, m.text])).toEqual(sums.map((s, x) => [x, `Tally: ${s} steps over ${x} exploration episodes.`]));
    // Checkpoint c's evaluation reads version c; exploration episode x reads version x-1.
    for (const r of requests) {
      const id = r.identity;
      const k = id.phase === "explore" ? id.episode! - 1 : id.checkpoint!;
      expect(JSON.stringify(r.messages)).toContain(`Tally: ${sums[k]} steps over ${k} exploration episodes.`);
    }
    expect(requests.some((r) => r.identity.phase === "eval" && r.identity.checkpoint === 3)).toBe(true);
  });

  it("is replayed: every step's messages are rebuilt from the logs exactly as the model received them", async () => {
    const { dir, requests } = await play(mkdtempSync(join(tmpdir(), "s3toy-")));
    const logs = loadRunLogs(dir);
    expect(requests.length).toBe(logs.steps.length);
    for (const r of requests) {
      const at = { phase: r.identity.phase!, checkpoint: r.identity.checkpoint, episode: r.identity.episode!, step: r.identity.step! };
      expect(rebuildStepMessages(logs, getGame(game), at)).toEqual(r.messages);
    }
  });

  it("is resumed: a version built on a lost exploration episode is dropped by its keep rule and made again, ending as an uninterrupted run", async () => {
    const fresh = mkdtempSync(join(tmpdir(), "s3toy-"));
    await play(fresh);
    const data = mkdtempSync(join(tmpdir(), "s3toy-"));
    const { dir } = await play(data);
    // As if killed after writing version 3 but before exploration episode 3's record.
    const episodes = readFileSync(join(dir, "episodes.jsonl"), "utf8").trimEnd().split("\n");
    writeFileSync(join(dir, "episodes.jsonl"), `${episodes.filter((l) => !(JSON.parse(l).phase === "explore" && JSON.parse(l).episode === 3)).join("\n")}\n`);
    const state = loadForResume(dir);
    expect(state.removed.memory).toBe(1);
    expect(state.own.memory?.map((m) => m.after_episode)).toEqual([0, 1, 2]);
    expect(lines<MemoryRecord>(dir, "memory.jsonl").map((m) => m.after_episode)).toEqual([0, 1, 2]);
    const again = await play(data);
    expect(again.outcome.status).toBe("complete");
    expect(runRecords(data)).toEqual(runRecords(fresh));
  });
});
