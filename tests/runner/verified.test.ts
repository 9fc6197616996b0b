/**
 * The verified pathway through the real runner (verified.md): curriculum per batch, broad batches
 * played concurrently from one memory, a verdict per episode on the visible trajectory only, memory
 * versions with facts, checkpoints after the batch holding x, variants only in exploration,
 * malformed role replies handled (fallback seeds, memory kept), `--verifier-model` answering the
 * roles, and the run's records complete and schema-valid.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { isCurriculumRequest } from "../../src/agent/curriculumPrompt.js";
import { isVerifierRequest } from "../../src/agent/verifierPrompt.js";
import { renderTrajectory } from "../../src/agent/trajectoryText.js";
import { trajectoryFromSteps } from "../../src/pathways/trajectory.js";
import { getGame } from "../../src/games/registry.js";
import type { CurriculumRecord, EpisodeRecord, MemoryRecord, StepRecord, VerdictRecord } from "../../src/logs/schema.js";
import { ObservedModel } from "../../src/models/callLog.js";
import type { CompletionRequest, Model } from "../../src/models/types.js";
import { runMatrix } from "../../src/runner/loop/runLoop.js";
import { loadRunLogs, rebuildStepMessages } from "../../src/runner/resume/replay.js";
import { buildMatrix } from "../../src/runner/loop/schedule.js";
import { exploreSeeds } from "../../src/runner/loop/seeds.js";
import { builtin, lines, readCompleteRun, RecordingModel, RewritingModel, small } from "./helpers.js";

const settings = small({ exploreEpisodes: 8, checkpointEvery: 2, evalEpisodes: 1, maxSteps: 6, verified: { broadBatch: 2, verifierModel: null } });

async function play(game: string, wrap: (name: string, m: Model) => Model = (_n, m) => m, s = settings, model = "builtin:learner") {
  const data = mkdtempSync(join(tmpdir(), "s3v-"));
  const entries = buildMatrix([model], [game], ["verified"], 0);
  const recorders = new Map<string, RecordingModel>();
  const outcomes = await runMatrix({
    dataDir: data,
    entries,
    settings: s,
    game: getGame,
    createModel: (name, onCall) => {
      const r = new RecordingModel(wrap(name, builtin(name)));
      recorders.set(name, r);
      return new ObservedModel(r, onCall, null);
    },
  });
  const dir = join(data, "runs", entries[0]!.runId);
  return { data, dir, outcomes, recorders };
}

describe("a verified run of builtin:learner", () => {
  it("plans each batch, plays broad batches from one memory, verifies each episode and writes every memory version with facts", async () => {
    const { dir, outcomes, recorders } = await play("chess");
    expect(outcomes[0]!.status).toBe("complete");
    const r = await readCompleteRun(dir, settings);
    const cur = lines<CurriculumRecord>(dir, "curriculum.jsonl");
    // 8 episodes, batches of 2: broad 1..4 as [1,2] [3,4], then deep 5, 6, 7, 8.
    expect(cur.map((c) => [c.batch, c.phase, c.memory_version, c.choices.map((x) => x.episode)])).toEqual([
      [1, "broad", 0, [1, 2]],
      [2, "broad", 2, [3, 4]],
      [3, "deep", 4, [5]],
      [4, "deep", 5, [6]],
      [5, "deep", 6, [7]],
      [6, "deep", 7, [8]],
    ]);
    expect(cur.every((c) => c.parsed && c.error === null)).toBe(true);
    // The broad batches spread over explore and the variants; the episodes play what was chosen.
    const explore = r.episodes.filter((e) => e.phase === "explore") as EpisodeRecord[];
    for (const c of cur) for (const ch of c.choices) expect(explore.find((e) => e.episode === ch.episode)).toMatchObject({ seed: ch.seed, config: ch.variant });
    expect(new Set(cur.slice(0, 2).flatMap((c) => c.choices.map((x) => x.variant)))).toEqual(new Set(["explore", "more-targets", "wide-board"]));
    expect(cur.flatMap((c) => c.choices).every((ch) => exploreSeeds(0, "chess", 8).includes(ch.seed))).toBe(true);
    // Episodes of one broad batch read the memory as it was before the batch.
    const versionOf = (x: number) => new Set((r.steps as StepRecord[]).filter((s) => s.phase === "explore" && s.episode === x).map((s) => s.memory_version));
    expect([1, 2, 3, 4, 5, 6].map((x) => [...versionOf(x)])).toEqual([[0], [0], [2], [2], [4], [5]]);
    // Checkpoint x reads memory version x; evaluation never plays a variant.
    for (const s of r.steps as StepRecord[]) if (s.phase === "eval") expect([s.config, s.memory_version]).toEqual(["eval", s.checkpoint]);
    // One verdict per exploration episode, and memory versions 0..8 with facts (chess: vectors).
    const verdicts = lines<VerdictRecord>(dir, "verdicts.jsonl");
    expect(verdicts.map((v) => v.episode)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(verdicts.every((v) => v.parsed && v.outcome !== null && v.verifier_model === "builtin:learner")).toBe(true);
    const memory = lines<MemoryRecord>(dir, "memory.jsonl");
    expect(memory.map((m) => m.after_episode)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8]);
    const last = memory.at(-1)!;
    expect(last.facts!.length).toBeGreaterThan(3);
    expect(last.text.split("\n")[0]).toMatch(/^## Verified facts/);
    // Support is the number of supporting episodes, each listed with the steps it cited.
    for (const f of last.facts!) expect([f.support, f.steps.map((s) => s.episode)]).toEqual([f.episodes.length, f.episodes]);
    // Every fact a verdict stated from a decided episode is in memory (or was dropped by a contradiction).
    const dropped = new Set(memory.flatMap((m) => m.dropped_fact_ids ?? []));
    expect(last.facts!.every((f) => !dropped.has(f.id))).toBe(true);
    // The verifier saw the visible trajectory only: no reward, no score, no verifier field.
    const calls = recorders.get("builtin:learner")!.requests;
    const verifierCalls = calls.filter((c) => isVerifierRequest(c.messages));
    expect(verifierCalls).toHaveLength(8);
    for (const c of verifierCalls) {
      // The trajectory part: per step observation, tactic, action, self-score, feedback; nothing else.
      const user = c.messages.find((m) => m.role === "user")!.content;
      const trajectory = user.slice(user.indexOf("<trajectory>"));
      expect(trajectory).not.toMatch(/reward|score_after|running score|^Score/im);
      // ... and it is exactly the History block of the logged steps (observation, tactic, action, self-score, feedback).
      const x = c.identity.episode!;
      const end = explore.find((e) => e.episode === x)!.end_observation!;
      const block = renderTrajectory(
        trajectoryFromSteps(
          x,
          (r.steps as StepRecord[]).filter((s) => s.phase === "explore" && s.episode === x),
          end,
        ),
      );
      expect(trajectory).toBe(`<trajectory>\n${block}\n</trajectory>`);
      expect(c.identity).toMatchObject({ purpose: "verifier", phase: "explore", step: null });
    }
    expect(calls.filter((c) => isCurriculumRequest(c.messages))).toHaveLength(6);
    // The replay rebuilds every step's prompt from the logs alone (variant rules and fact memory included).
    const logs = loadRunLogs(dir);
    for (const c of calls.filter((q) => q.identity.purpose === "step")) {
      const at = { phase: c.identity.phase!, checkpoint: c.identity.checkpoint, episode: c.identity.episode!, step: c.identity.step! };
      expect(rebuildStepMessages(logs, getGame("chess"), at), JSON.stringify(at)).toEqual(c.messages);
    }
  }, 60_000);

  it("a malformed curriculum or verifier reply is logged and handled: the next untried seeds on explore, the memory kept", async () => {
    const garble = (_n: string, m: Model) =>
      new RewritingModel(m, (text: string, req: CompletionRequest) =>
        isCurriculumRequest(req.messages) ? "Episode one: the first seed" : isVerifierRequest(req.messages) ? "Looks fine to me." : text,
      );
    const { dir, outcomes } = await play("minesweeper", garble);
    expect(outcomes[0]!.status).toBe("complete");
    await readCompleteRun(dir, settings);
    const cur = lines<CurriculumRecord>(dir, "curriculum.jsonl");
    expect(cur.every((c) => !c.parsed && /expected 'Episode <n>: seed <seed>, variant <name>'/.test(c.error ?? "") && c.response === "Episode one: the first seed")).toBe(true);
    // The fallback walks the exploration list in order, on explore.
    expect(cur.flatMap((c) => c.choices.map((ch) => [ch.episode, ch.seed, ch.variant]))).toEqual(exploreSeeds(0, "minesweeper", 8).map((seed, i) => [i + 1, seed, "explore"]));
    const verdicts = lines<VerdictRecord>(dir, "verdicts.jsonl");
    expect(verdicts.every((v) => !v.parsed && v.outcome === null && v.error === "no `Outcome:` line" && v.facts.length === 0)).toBe(true);
    const memory = lines<MemoryRecord>(dir, "memory.jsonl");
    expect(memory.map((m) => [m.after_episode, m.facts, m.text])).toEqual(Array.from({ length: 9 }, (_, i) => [i, [], ""]));
    expect(memory.slice(1).every((m) => m.parsed === false)).toBe(true);
  }, 60_000);

  it("--verifier-model: another model answers the curriculum and verifier calls, the run's model only the steps", async () => {
    const s = { ...settings, exploreEpisodes: 4, verified: { broadBatch: 2, verifierModel: "builtin:heuristic" } };
    const { dir, outcomes, recorders } = await play("snake", undefined, s);
    expect(outcomes[0]!.status).toBe("complete");
    const roles = recorders.get("builtin:heuristic")!.requests;
    expect(roles.length).toBe(4 + 3);
    expect(roles.every((c) => isCurriculumRequest(c.messages) || isVerifierRequest(c.messages))).toBe(true);
    expect(recorders.get("builtin:learner")!.requests.every((c) => c.identity.purpose === "step")).toBe(true);
    expect(lines<VerdictRecord>(dir, "verdicts.jsonl").every((v) => v.verifier_model === "builtin:heuristic")).toBe(true);
    const manifest = JSON.parse((await import("node:fs")).readFileSync(join(dir, "manifest.json"), "utf8"));
    expect(manifest.config.protocol.verified).toEqual({ broad_batch: 2, verifier_model: "builtin:heuristic" });
  }, 60_000);

  it("is deterministic: the same run twice gives the same records", async () => {
    const s = { ...settings, exploreEpisodes: 4 };
    const strip = (dir: string, f: string) => lines(dir, f).map((o) => JSON.stringify({ ...o, latency_ms: 0, started_at: "", ended_at: "" }));
    const a = await play("trust", undefined, s);
    const b = await play("trust", undefined, s);
    for (const f of ["steps.jsonl", "curriculum.jsonl", "verdicts.jsonl", "memory.jsonl"]) expect(strip(b.dir, f).sort()).toEqual(strip(a.dir, f).sort());
  }, 60_000);
});
