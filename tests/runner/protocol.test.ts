/**
 * The protocol end to end with built-in models, in-process: every implemented game x {none, history,
 * memory}; logs complete and schema-valid; seeds disjoint and paired; rewards never in prompts;
 * the History context reproducible from the logs and truncated earliest-tail first.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { getGame } from "../../src/games/registry.js";
import type { Game } from "../../src/games/types.js";
import type { RunRecords } from "../../src/logs/reader.js";
import { countMessageTokens } from "../../src/models/tokens.js";
import type { Model } from "../../src/models/types.js";
import { loadRunLogs, rebuildStepMessages } from "../../src/runner/resume/replay.js";
import { runDir } from "../../src/logs/runDir.js";
import { runMatrix, type RunOutcome } from "../../src/runner/loop/runLoop.js";
import { buildMatrix } from "../../src/runner/loop/schedule.js";
import { factory, historyBlocksOf, implementedGames, readCompleteRun, RecordingModel, small } from "./helpers.js";

const settings = small();
const games = implementedGames();

describe("every implemented game x {none, history, memory}", () => {
  const data = mkdtempSync(join(tmpdir(), "s3run-"));
  const entries = [
    ...buildMatrix(["builtin:heuristic"], games, ["none", "history", "memory"], 0),
    // A second model on two games: seeds must be paired across models too.
    ...buildMatrix(["builtin:random"], games.slice(0, 2), ["none", "history"], 0),
  ];
  let outcomes: RunOutcome[];
  const runs = new Map<string, RunRecords>();

  beforeAll(async () => {
    outcomes = await runMatrix({ dataDir: data, entries, settings, game: getGame, createModel: factory() });
    for (const e of entries) runs.set(e.runId, await readCompleteRun(runDir(data, e.runId), settings));
  }, 240_000);

  it("every run completes with complete, schema-valid logs", () => {
    expect(games.length).toBeGreaterThan(0);
    expect(outcomes.map((o) => [o.runId, o.status, o.error])).toEqual(entries.map((e) => [e.runId, "complete", null]));
    expect(runs.size).toBe(entries.length);
  });

  it("explore and eval seeds are disjoint, the eval list is the same at every checkpoint, and both are paired across pathways and models", () => {
    for (const game of games) {
      const ofGame = [...runs.values()].filter((r) => r.manifest!.game === game);
      const exploreLists = ofGame.map((r) =>
        r.episodes
          .filter((e) => e.phase === "explore")
          .sort((a, b) => a.episode - b.episode)
          .map((e) => e.seed),
      );
      const evalLists = ofGame.flatMap((r) =>
        [...new Set(r.episodes.filter((e) => e.phase === "eval").map((e) => e.checkpoint))].map((c) =>
          r.episodes
            .filter((e) => e.phase === "eval" && e.checkpoint === c)
            .sort((a, b) => a.episode - b.episode)
            .map((e) => e.seed),
        ),
      );
      for (const l of exploreLists) expect(l).toEqual(exploreLists[0]);
      for (const l of evalLists) expect(l).toEqual(evalLists[0]);
      expect(exploreLists[0]!.filter((s) => evalLists[0]!.includes(s))).toEqual([]);
      for (const r of ofGame) {
        expect(r.manifest!.explore_seeds).toEqual(exploreLists[0]);
        expect(r.manifest!.eval_seeds).toEqual(evalLists[0]);
        // Steps carry their episode's seed and config.
        for (const s of r.steps) expect(s.config).toBe(s.phase);
      }
    }
  });

  it("non-learners play an evaluation seed identically at every checkpoint and in every pathway (common random numbers: flat curves, history = none point for point)", () => {
    for (const model of ["builtin:heuristic", "builtin:random"]) {
      for (const game of games) {
        const ofModel = [...runs.values()].filter((r) => r.manifest!.game === game && r.manifest!.model === model);
        if (ofModel.length === 0) continue;
        // Per evaluation seed, every play of it (checkpoint x pathway): its actions and its score.
        const plays = new Map<number, string[]>();
        for (const r of ofModel) {
          for (const e of r.episodes.filter((x) => x.phase === "eval")) {
            const actions = r.steps.filter((s) => s.phase === "eval" && s.checkpoint === e.checkpoint && s.episode === e.episode).map((s) => s.action);
            const list = plays.get(e.seed) ?? [];
            list.push(JSON.stringify({ score: e.score, actions }));
            plays.set(e.seed, list);
          }
        }
        expect(plays.size, `${model} ${game}`).toBeGreaterThan(0);
        for (const [seed, list] of plays) {
          // 2 checkpoints x every pathway the model ran.
          expect(list.length, `${model} ${game} seed ${seed}`).toBe(2 * ofModel.length);
          expect(new Set(list).size, `${model} ${game} seed ${seed}: ${list.join(" | ")}`).toBe(1);
        }
      }
    }
  });

  it("memory versions 0..N are saved and parse; history steps say which blocks they kept", () => {
    for (const r of runs.values()) {
      if (r.manifest!.pathway === "memory") {
        expect(r.memory[0]).toMatchObject({ after_episode: 0, text: "", parsed: true, response: null });
        for (const m of r.memory.slice(1)) expect(m.parsed).toBe(true);
        const explore3 = r.steps.filter((s) => s.phase === "explore" && s.episode === 3);
        expect(explore3.every((s) => s.memory_version === 2)).toBe(true);
        const cp3 = r.steps.filter((s) => s.phase === "eval" && s.checkpoint === 3);
        expect(cp3.every((s) => s.memory_version === 3)).toBe(true);
      }
      if (r.manifest!.pathway === "history") {
        const cp0 = r.steps.filter((s) => s.phase === "eval" && s.checkpoint === 0);
        expect(cp0.every((s) => Array.isArray(s.history_keep) && (s.history_keep as number[]).length === 0)).toBe(true);
        const cp3 = r.steps.filter((s) => s.phase === "eval" && s.checkpoint === 3);
        expect(cp3.every((s) => (s.history_keep as number[]).length === 3)).toBe(true);
      }
    }
  });
});

/** A game whose verifier reward and score are sentinel numbers no honest prompt contains. */
function sentinelGame(g: Game): Game {
  return { ...g, step: (s, a) => ({ ...g.step(s, a), reward: 7777.25 }), score: () => 4444.5 };
}

describe("what the model is shown", () => {
  const game = games.includes("snake") ? "snake" : games[0]!;

  async function recorded(pathways: string[], over: Parameters<typeof small>[0] = {}) {
    const data = mkdtempSync(join(tmpdir(), "s3prompt-"));
    const recorders = new Map<string, RecordingModel>();
    const entries = buildMatrix(["builtin:heuristic"], [game], pathways, 0);
    const s = small({ exploreEpisodes: 4, checkpointEvery: 2, ...over });
    const outcomes = await runMatrix({
      dataDir: data,
      entries,
      settings: s,
      game: (n) => sentinelGame(getGame(n)),
      createModel: factory((name: string, m: Model) => {
        const r = new RecordingModel(m);
        recorders.set(name, r);
        return r;
      }),
    });
    expect(outcomes.every((o) => o.status === "complete")).toBe(true);
    return { data, entries, requests: [...recorders.values()].flatMap((r) => r.requests), settings: s };
  }

  it("hidden (the main setting): no prompt of any kind contains the verifier reward or score", async () => {
    const { requests } = await recorded(["none", "history", "memory"]);
    expect(requests.some((r) => r.identity.purpose === "summary")).toBe(true);
    const text = JSON.stringify(requests.map((r) => r.messages));
    expect(text).not.toContain("7777.25");
    expect(text).not.toContain("4444.5");
    expect(text).not.toContain("verifier reward");
  });

  it("visible (the ablation): the reward does reach the prompt, so the hidden test can fail", async () => {
    const { requests } = await recorded(["none"], { rewardVisibility: "visible" });
    expect(JSON.stringify(requests.map((r) => r.messages))).toContain("7777.25");
  });

  it("the exact context of every step is rebuilt from the logs; a tiny budget cuts earlier episodes' tails first", async () => {
    // Budget for the rules, the current episode and about two of the four blocks.
    const { data, entries, requests, settings: s } = await recorded(["history", "memory", "none", "hybrid"], { contextTokens: 5200, maxNewTokens: 100 });
    let truncated = 0;
    let retrieved = 0;
    for (const e of entries) {
      const logs = loadRunLogs(runDir(data, e.runId));
      const mine = requests.filter((r) => r.identity.runId === e.runId && r.identity.purpose === "step");
      expect(mine).toHaveLength(logs.steps.length);
      for (const r of mine) {
        const at = { phase: r.identity.phase!, checkpoint: r.identity.checkpoint, episode: r.identity.episode!, step: r.identity.step! };
        expect(rebuildStepMessages(logs, getGame(game), at)).toEqual(r.messages);
        expect(countMessageTokens(r.messages)).toBeLessThanOrEqual(s.contextTokens - s.maxNewTokens);
        if (e.pathway === "hybrid") {
          // The step record names the snippets its prompt showed, in order; each is an exploration
          // step of an episode before this step's experience (never a later one), shown as logged.
          const k = at.phase === "explore" ? at.episode - 1 : at.checkpoint!;
          const rec = logs.steps.find((x) => x.phase === at.phase && x.checkpoint === at.checkpoint && x.episode === at.episode && x.step === at.step)!;
          const refs = (rec as { retrieved_steps?: { episode: number; step: number }[] }).retrieved_steps ?? [];
          const first = r.messages.find((m) => m.role === "user")!.content;
          const shown = [...first.matchAll(/^--- Retrieved step: exploration episode (\d+), step (\d+) ---$/gm)].map((m) => ({ episode: Number(m[1]), step: Number(m[2]) - 1 }));
          expect(shown).toEqual(refs);
          for (const ref of refs) {
            expect(ref.episode).toBeLessThanOrEqual(k);
            const src = logs.steps.find((x) => x.phase === "explore" && x.episode === ref.episode && x.step === ref.step)!;
            expect(first).toContain(src.observation);
          }
          if (refs.length > 0) retrieved++;
          continue;
        }
        if (e.pathway !== "history") continue;
        const blocks = historyBlocksOf(r.messages);
        const k = at.phase === "explore" ? at.episode - 1 : at.checkpoint!;
        const numbers = blocks.map(([n]) => n);
        // The blocks present are the LAST ones (earlier dropped first), in order ...
        expect(numbers).toEqual(Array.from({ length: numbers.length }, (_, i) => k - numbers.length + 1 + i));
        // ... and only the earliest present may be cut.
        expect(blocks.slice(1).every(([, complete]) => complete)).toBe(true);
        if (numbers.length < k || blocks.some(([, complete]) => !complete)) truncated++;
        // Evaluation episodes never feed experience: only exploration blocks, never beyond Z_k.
        expect(Math.max(0, ...numbers)).toBeLessThanOrEqual(k);
      }
    }
    expect(truncated).toBeGreaterThan(5);
    expect(retrieved).toBeGreaterThan(5);
  });
});

/** Answers after a short real delay, like an endpoint. */
class SlowModel implements Model {
  constructor(private readonly inner: Model) {}
  get spec() {
    return this.inner.spec;
  }
  get endpointHost() {
    return this.inner.endpointHost;
  }
  async complete(r: Parameters<Model["complete"]>[0]) {
    await new Promise((res) => setTimeout(res, 3));
    return this.inner.complete(r);
  }
}

describe("scheduling", () => {
  it("checkpoint evaluations overlap later exploration, which stays sequential", async () => {
    const data = mkdtempSync(join(tmpdir(), "s3overlap-"));
    const entries = buildMatrix(["builtin:heuristic"], [games[0]!], ["history"], 0);
    const s = small({ exploreEpisodes: 4, checkpointEvery: 1, evalEpisodes: 2 });
    await runMatrix({ dataDir: data, entries, settings: s, game: getGame, createModel: factory((_n, m) => new SlowModel(m)) });
    const r = await readCompleteRun(runDir(data, entries[0]!.runId), s);
    const t = (x: string) => Date.parse(x);
    const explore = r.episodes.filter((e) => e.phase === "explore").sort((a, b) => a.episode - b.episode);
    for (let i = 1; i < explore.length; i++) expect(t(explore[i]!.started_at)).toBeGreaterThanOrEqual(t(explore[i - 1]!.ended_at));
    let overlaps = 0;
    for (const c of [1, 2, 3]) {
      const next = explore[c]!; // exploration episode c + 1
      const evals = r.episodes.filter((e) => e.phase === "eval" && e.checkpoint === c);
      if (evals.some((e) => t(e.started_at) < t(next.ended_at) && t(e.ended_at) > t(next.started_at))) overlaps++;
      // Both evaluation episodes of a checkpoint run at the same time.
      expect(t(evals[0]!.started_at)).toBeLessThan(t(evals[1]!.ended_at));
    }
    expect(overlaps).toBe(3);
  });
});
