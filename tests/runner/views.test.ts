/**
 * Evaluation views (views.md): the id seed list is disjoint from exploration and evaluation by
 * construction; `--views` plays id and replay at every checkpoint with the checkpoint's frozen
 * experience, never feeding experience and never changing what the eval view and exploration did;
 * without `--views` a run is byte for byte what it was before views existed (a golden written by main).
 */
import { createHash } from "node:crypto";
import { mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { withExitCode } from "../../src/cli/main.js";
import { runCommand } from "../../src/cli/run/run.js";
import { loadDataset } from "../../src/analysis/load/dataset.js";
import { getGame } from "../../src/games/registry.js";
import { GAME_NAMES } from "../../src/games/types.js";
import { RunManifest } from "../../src/logs/schema.js";
import { cacheKey } from "../../src/models/cache/responseCache.js";
import type { CallIdentity, Model } from "../../src/models/types.js";
import { callSeed } from "../../src/models/callSeed.js";
import { loadRunLogs, rebuildStepMessages } from "../../src/runner/resume/replay.js";
import { runMatrix } from "../../src/runner/loop/runLoop.js";
import { buildMatrix } from "../../src/runner/loop/schedule.js";
import { evalSeeds, exploreSeeds, ID_SEED_OFFSET, idSeeds, MAX_LIST_LENGTH, runSeeds } from "../../src/runner/loop/seeds.js";
import { viewEpisodes, viewEpisodeTotal } from "../../src/runner/loop/views.js";
import { playNoViews } from "./fixtures/noViewsRun.js";
import { factory, lines, RecordingModel, RewritingModel, small } from "./helpers.js";

describe("the id seed list", () => {
  it("is disjoint from the exploration and evaluation lists for every game and many run seeds", () => {
    for (const game of GAME_NAMES)
      for (let runSeed = 0; runSeed < 50; runSeed++) {
        const ex = new Set(exploreSeeds(runSeed, game, 30));
        const ev = new Set(evalSeeds(runSeed, game, 30));
        const id = idSeeds(runSeed, game, 30);
        expect(new Set(id).size).toBe(30);
        for (const s of id) {
          expect(ex.has(s) || ev.has(s)).toBe(false);
          expect(Number.isSafeInteger(s) && s >= ID_SEED_OFFSET).toBe(true);
        }
      }
  });
  it("by construction: the longest exploration and evaluation lists stay below the id range", () => {
    // The largest base is 2 * (2^29 - 1); the last seed of the longest lists must stay under 2^31.
    const maxBase = 2 * (2 ** 29 - 1);
    expect(maxBase + 2 * (MAX_LIST_LENGTH - 1) + 1).toBeLessThan(ID_SEED_OFFSET);
    expect(() => exploreSeeds(0, "snake", MAX_LIST_LENGTH + 1)).toThrow(/exploration seed list length/);
    expect(() => evalSeeds(0, "snake", MAX_LIST_LENGTH + 1)).toThrow(/evaluation seed list length/);
  });
  it("depends only on (run seed, game) and is prefix-stable", () => {
    expect(idSeeds(2, "chess", 3)).toEqual(idSeeds(2, "chess", 9).slice(0, 3));
    expect(idSeeds(2, "chess", 3)).not.toEqual(idSeeds(3, "chess", 3));
    expect(idSeeds(2, "chess", 3)).not.toEqual(idSeeds(2, "tetris", 3));
  });
});

describe("the episodes of a view at a checkpoint", () => {
  const s = { ...small({ exploreEpisodes: 6, checkpointEvery: 3 }), views: { extra: ["id", "replay"] as ("id" | "replay")[], viewEpisodes: 2, replayEpisodes: 4 } };
  it("replay plays exploration seed j only from checkpoint j+1 on, at most K of them; id plays its list whole", () => {
    const ex = exploreSeeds(0, "snake", 6);
    const run = { settings: s, ...runSeeds(s, "snake") };
    expect(run.idSeeds).toEqual(idSeeds(0, "snake", 2));
    expect(runSeeds({ ...s, views: { ...s.views, extra: ["replay"] } }, "snake").idSeeds).toBeUndefined();
    expect(viewEpisodes(run, "replay", 0)).toEqual([]);
    expect(viewEpisodes(run, "replay", 3)).toEqual([0, 1, 2].map((j) => ({ episode: j, seed: ex[j] })));
    expect(viewEpisodes(run, "replay", 6)).toEqual([0, 1, 2, 3].map((j) => ({ episode: j, seed: ex[j] })));
    for (const c of [0, 3, 6]) expect(viewEpisodes(run, "id", c).map((e) => e.seed)).toEqual(idSeeds(0, "snake", 2));
    // checkpoints 0, 3, 6: id 2 + 2 + 2, replay 0 + 3 + 4.
    expect(viewEpisodeTotal(s)).toBe(13);
    expect(viewEpisodeTotal(small())).toBe(0);
  });
});

describe("call identity of a view", () => {
  const base: CallIdentity = { runId: "r", purpose: "step", phase: "eval", checkpoint: 3, episode: 0, step: 2, sample: 0 };
  it("an eval call's seed and cache key are what they were; a view's differ from the eval episode with the same index", () => {
    const key = (identity: CallIdentity) => cacheKey({ endpoint: "e", model: "m", messages: [{ role: "user", content: "x" }], sampling: {}, identity });
    // The formula before views: the hash of the identity's canonical JSON (no view member).
    expect(callSeed(base)).toBe(callSeed({ ...base, view: undefined }));
    expect(key(base)).toBe(key({ ...base, view: undefined }));
    expect(callSeed({ ...base, view: "id" })).not.toBe(callSeed(base));
    expect(key({ ...base, view: "id" })).not.toBe(key(base));
    expect(key({ ...base, view: "id" })).not.toBe(key({ ...base, view: "replay" }));
  });
});

/** Prefixes every answer with a hash of its prompt, so a record pins the exact context it was played in. */
const promptHashing = (m: Model): Model => new RewritingModel(m, (text, r) => `#${createHash("sha256").update(JSON.stringify(r.messages)).digest("hex").slice(0, 12)}\n${text}`);

const VOLATILE = ["latency_ms", "cached", "started_at", "ended_at"];
function recordsOf(dir: string, file: string, keep: (r: Record<string, unknown>) => boolean = () => true): string[] {
  return lines(dir, file)
    .filter(keep)
    .map((r) => {
      const o = { ...r };
      for (const k of VOLATILE) delete o[k];
      return JSON.stringify(o);
    })
    .sort();
}

describe("a run with --views", () => {
  const settings = small({ exploreEpisodes: 4, checkpointEvery: 2, evalEpisodes: 2, maxSteps: 4 });
  const withViews = { ...settings, views: { extra: ["id", "replay"] as ("id" | "replay")[], viewEpisodes: 2, replayEpisodes: 3 } };
  const entries = buildMatrix(["builtin:learner"], ["snake"], ["history", "memory"], 0);
  const recorded: RecordingModel[] = [];
  const make = factory((_n, m) => {
    const r = new RecordingModel(promptHashing(m));
    recorded.push(r);
    return r;
  });

  it("plays id and replay at every checkpoint with the frozen experience, and leaves exploration and eval exactly as without views", async () => {
    const plain = mkdtempSync(join(tmpdir(), "s3v-plain-"));
    const viewed = mkdtempSync(join(tmpdir(), "s3v-views-"));
    expect((await runMatrix({ dataDir: plain, entries, settings, game: getGame, createModel: factory((_n, m) => promptHashing(m)) })).map((o) => o.status)).toEqual(["complete", "complete"]);
    const outcomes = await runMatrix({ dataDir: viewed, entries, settings: withViews, game: getGame, createModel: make });
    expect(outcomes.map((o) => o.status)).toEqual(["complete", "complete"]);
    for (const e of entries) {
      const a = join(plain, "runs", e.runId);
      const b = join(viewed, "runs", e.runId);
      const noView = (r: Record<string, unknown>) => r.view === undefined;
      // View episodes never feed experience: exploration (whose answers hash their prompts) and the
      // eval view are identical to the run without views.
      for (const f of ["steps.jsonl", "episodes.jsonl", "checkpoints.jsonl", "memory.jsonl"]) expect(recordsOf(b, f, noView), `${e.runId}/${f}`).toEqual(recordsOf(a, f));
      for (const f of ["steps.jsonl", "episodes.jsonl", "checkpoints.jsonl", "calls.jsonl"]) expect(readFileSync(join(a, f), "utf8")).not.toContain('"view"');

      const m = RunManifest.parse(JSON.parse(readFileSync(join(b, "manifest.json"), "utf8")));
      expect(m.config.protocol?.views).toEqual({ names: ["eval", "id", "replay"], view_episodes: 2, replay_episodes: 3 });
      expect(m.id_seeds).toEqual(idSeeds(0, "snake", 2));
      const mPlain = RunManifest.parse(JSON.parse(readFileSync(join(a, "manifest.json"), "utf8")));
      expect(mPlain.config.protocol?.views).toBeUndefined();
      expect(mPlain.id_seeds).toBeUndefined();

      const eps = lines<{ view?: string; phase: string; config: string; checkpoint: number; episode: number; seed: number }>(b, "episodes.jsonl").filter((r) => r.view !== undefined);
      const slots = (v: string) =>
        eps
          .filter((r) => r.view === v)
          .map((r) => `${r.checkpoint}:${r.episode}:${r.seed}`)
          .sort();
      const ex = m.explore_seeds;
      expect(slots("id")).toEqual([0, 2, 4].flatMap((c) => [0, 1].map((i) => `${c}:${i}:${m.id_seeds![i]}`)).sort());
      // replay: nothing at 0; exploration episodes 1..2 at checkpoint 2; 1..3 (K = 3) at checkpoint 4.
      expect(slots("replay")).toEqual(["2:0:" + ex[0], "2:1:" + ex[1], "4:0:" + ex[0], "4:1:" + ex[1], "4:2:" + ex[2]].sort());
      for (const r of eps) expect([r.phase, r.config]).toEqual(["eval", "explore"]);
      // A replayed seed with the explore config is the exploration episode's board: the same first observation.
      const steps = lines<{ view?: string; phase: string; episode: number; checkpoint: number | null; step: number; observation: string; memory_version?: number; history_keep?: number[] }>(
        b,
        "steps.jsonl",
      );
      const first = (p: (s: (typeof steps)[number]) => boolean) => steps.find((s) => p(s) && s.step === 0)!.observation;
      expect(first((s) => s.view === "replay" && s.checkpoint === 4 && s.episode === 2)).toBe(first((s) => s.phase === "explore" && s.episode === 3));

      // Checkpoint records per view; replay has none at checkpoint 0 (missing, not 0).
      const cps = lines<{ view?: string; checkpoint: number; scores: number[]; status: string }>(b, "checkpoints.jsonl");
      expect(cps.map((c) => `${c.view ?? "eval"}@${c.checkpoint}:${c.scores.length}`).sort()).toEqual(
        ["eval@0:2", "eval@2:2", "eval@4:2", "id@0:2", "id@2:2", "id@4:2", "replay@2:2", "replay@4:3"].sort(),
      );

      // The same frozen experience as eval: each view step carries checkpoint c's experience, and its
      // exact messages are rebuilt from the logs (explore config rules, Z_c).
      for (const s of steps.filter((x) => x.view !== undefined)) {
        if (e.pathway === "memory") expect(s.memory_version).toBe(s.checkpoint);
        else expect(s.history_keep?.length).toBe(s.checkpoint);
      }
      const logs = loadRunLogs(b);
      const sent = recorded.flatMap((r) => r.requests).filter((q) => q.identity.runId === e.runId && q.identity.view !== undefined);
      expect(sent.length).toBe(steps.filter((x) => x.view !== undefined).length);
      for (const q of sent) {
        const at = { phase: "eval" as const, view: q.identity.view!, checkpoint: q.identity.checkpoint, episode: q.identity.episode!, step: q.identity.step! };
        expect(rebuildStepMessages(logs, getGame("snake"), at)).toEqual(q.messages);
      }
      // Calls of view episodes say so in calls.jsonl.
      const calls = lines<{ view?: string; phase: string | null }>(b, "calls.jsonl");
      expect(calls.filter((c) => c.view !== undefined).length).toBe(sent.length);
    }
    // The analysis reads the eval view as the curve: the same checkpoints as the run without views.
    const [dsPlain, dsViewed] = [await loadDataset(plain), await loadDataset(viewed)];
    expect(dsViewed.runs.map((r) => r.checkpoints)).toEqual(dsPlain.runs.map((r) => r.checkpoints));
    expect(dsViewed.warnings).toEqual([]);
  }, 60_000);

  it("without --views, a run's files are byte for byte those main wrote before views existed (measured timings aside)", async () => {
    const golden = fileURLToPath(new URL("./fixtures/no-views", import.meta.url));
    const got = await playNoViews(fileURLToPath(new URL("../..", import.meta.url)));
    const want: Record<string, string> = {};
    for (const run of readdirSync(golden).sort()) for (const f of readdirSync(join(golden, run)).sort()) want[`${run}/${f}`] = readFileSync(join(golden, run, f), "utf8");
    expect(Object.keys(got)).toEqual(Object.keys(want));
    // JSONL lines of concurrent episodes may interleave in another order; each line is byte for byte.
    const sorted = (t: string) => t.split("\n").sort().join("\n");
    const why = "a run without --views changed; if deliberate, regenerate: npx tsx tests/runner/fixtures/noViewsRun.ts . tests/runner/fixtures/no-views";
    for (const k of Object.keys(want)) expect(sorted(got[k]!), `${k}: ${why}`).toBe(sorted(want[k]!));
  }, 30_000);
});

describe("s3gym run --views flags", () => {
  const quiet = () => {
    const err: string[] = [];
    return { err, deps: { stdout: { write: () => true }, stderr: { write: (t: string) => err.push(t) } } };
  };
  const base = [
    "--models",
    "builtin:heuristic",
    "--games",
    "snake",
    "--pathways",
    "none",
    "--explore-episodes",
    "2",
    "--checkpoint-every",
    "2",
    "--eval-episodes",
    "1",
    "--max-steps",
    "2",
    "--progress",
    "off",
  ];
  it.each([
    [["--views", "eval,ood"], /--views.*ood/],
    [["--view-episodes", "2"], /--view-episodes is only used with --views/],
    [["--views", "eval,replay", "--view-episodes", "2"], /add 'id' to --views/],
    [["--views", "eval,id", "--replay-episodes", "2"], /add 'replay' to --views/],
    [["--views", "replay", "--replay-episodes", "3"], /exceeds --explore-episodes 2/],
    [["--views", "id", "--view-episodes", "0"], /--view-episodes must be at least 1/],
  ])("%j is refused before any call, naming the flag", async (extra, message) => {
    const data = mkdtempSync(join(tmpdir(), "s3v-flags-"));
    const q = quiet();
    expect(await withExitCode("run", () => runCommand([...base, "--data", data, ...extra], q.deps), q.deps)).toBe(2);
    expect(q.err.join("")).toMatch(message);
    expect(readdirSync(data)).toEqual([]);
  });
  it("views may be added to a finished run (only the view episodes are played); other or fewer views are a clash naming `views`", async () => {
    const data = mkdtempSync(join(tmpdir(), "s3v-clash-"));
    const q = quiet();
    expect(await runCommand([...base, "--data", data], q.deps)).toBe(0);
    const run = join(data, "runs", readdirSync(join(data, "runs"))[0]!);
    const before = recordsOf(run, "episodes.jsonl");
    expect(await runCommand([...base, "--data", data, "--views", "eval,id,replay", "--replay-episodes", "2"], q.deps)).toBe(0);
    const eps = lines<{ view?: string; checkpoint: number }>(run, "episodes.jsonl");
    // The old episodes untouched; id at checkpoints 0 and 2 (1 episode each), replay at 2 (2 episodes).
    expect(recordsOf(run, "episodes.jsonl", (r) => r.view === undefined)).toEqual(before);
    expect(
      eps
        .filter((e) => e.view !== undefined)
        .map((e) => `${e.view}@${e.checkpoint}`)
        .sort(),
    ).toEqual(["id@0", "id@2", "replay@2", "replay@2"]);
    expect(await runCommand([...base, "--data", data, "--views", "eval,id,replay", "--replay-episodes", "2"], q.deps)).toBe(0);
    expect(lines(run, "episodes.jsonl")).toHaveLength(eps.length); // the same views resume: nothing new
    expect(await withExitCode("run", () => runCommand([...base, "--data", data, "--views", "eval,id"], q.deps), q.deps)).toBe(2);
    expect(await withExitCode("run", () => runCommand([...base, "--data", data], q.deps), q.deps)).toBe(2);
    expect(q.err.join("")).toMatch(/different protocol \(views:/);
  });
});
