/**
 * The viewer's prompts are the ones the model received: a real History run (context small enough
 * that the History blocks are cut) is recorded call by call, and every step's packed-then-unpacked
 * prompt must equal the recorded request byte for byte.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { getGame } from "../../../src/games/registry.js";
import type { ChatMessage } from "../../../src/models/types.js";
import { stepView } from "../../../src/report/viewer/build.js";
import { episodePrompts, packPrompts, replayInput, TextPool, unpackPrompt, type ShownStep } from "../../../src/report/viewer/prompts.js";
import { readMergedRun } from "../../../src/logs/mergedRun.js";
import { runDir } from "../../../src/logs/runDir.js";
import { runMatrix } from "../../../src/runner/loop/runLoop.js";
import { buildMatrix } from "../../../src/runner/loop/schedule.js";
import { factory, RecordingModel, small } from "../../runner/helpers.js";

const msg = (role: ChatMessage["role"], content: string): ChatMessage => ({ role, content });
const NO_STEPS: ShownStep[] = [];

describe("packPrompts / unpackPrompt", () => {
  it("round-trips prefix-growing prompts whose first user message changes", () => {
    const perStep = [
      { step: 0, messages: [msg("system", "S"), msg("user", "E1 o0")] },
      { step: 1, messages: [msg("system", "S"), msg("user", "E1 o0"), msg("assistant", "a0"), msg("user", "f0 o1")] },
      { step: 2, messages: [msg("system", "S"), msg("user", "E2 o0"), msg("assistant", "a0"), msg("user", "f0 o1"), msg("assistant", "a1"), msg("user", "f1 o2")] },
    ];
    const pool = new TextPool();
    const p = packPrompts(perStep, pool, []);
    // Short texts are pooled whole, once each: "S", then the two first messages, then the later
    // messages (no steps to refer to here, so literal).
    expect(pool.entries).toEqual(["S", "E1 o0", "E2 o0", "a0", "f0 o1", "a1", "f1 o2"]);
    expect(p.steps.map((s) => ("first" in s ? s.first : -1))).toEqual([1, 1, 2]);
    perStep.forEach((s, i) => expect(unpackPrompt(pool.entries, p, i, NO_STEPS)).toEqual(s.messages));
  });

  it("stores a changed experience as an edit of a whole one", () => {
    const ctx = (cut: string) => `<experience>\n${cut}${"whole later block\n".repeat(500)}</experience>\n\n<observation>o0</observation>`;
    const perStep = [
      { step: 0, messages: [msg("system", "S"), msg("user", ctx("block 1 step 1\nblock 1 step 2\n"))] },
      { step: 1, messages: [msg("system", "S"), msg("user", ctx("block 1 step 1\n[... 1 later steps omitted]\n")), msg("assistant", "a0"), msg("user", "f0 o1")] },
    ];
    const pool = new TextPool();
    const p = packPrompts(perStep, pool, []);
    expect(typeof pool.entries[1]).toBe("string");
    const edit = pool.entries[2] as { k: number; p: number; s: number; m: string };
    expect(edit.k).toBe(1);
    // Kept: "<experience>\nblock 1 step 1\n" (29 chars) before, the 500 whole blocks and the observation after.
    expect(edit.p).toBe("<experience>\nblock 1 step 1\n".length);
    // Both texts have "\n" before the whole blocks, so the kept suffix takes it: only the marker is new.
    expect(edit.m).toBe("[... 1 later steps omitted]");
    perStep.forEach((s, i) => expect(unpackPrompt(pool.entries, p, i, NO_STEPS)).toEqual(s.messages));
  });

  it("shares one experience among the episodes of a run: each later episode adds only its edit", () => {
    const experience = `<experience>\n${"a block of an earlier episode\n".repeat(2000)}</experience>`;
    const pool = new TextPool();
    const eps = [0, 1, 2].map((e) => {
      const perStep = [{ step: 0, messages: [msg("system", "RULES"), msg("user", `${experience}\n\n<observation>seed ${e}</observation>`)] }];
      return { perStep, packed: packPrompts(perStep, pool, []) };
    });
    // "RULES" once, the first episode's first message whole, then two edits of it holding "1" and "2".
    expect(pool.entries.length).toBe(4);
    expect(pool.entries.slice(2)).toEqual([
      { k: 1, p: experience.length + "\n\n<observation>seed ".length, s: "</observation>".length, m: "1" },
      { k: 1, p: experience.length + "\n\n<observation>seed ".length, s: "</observation>".length, m: "2" },
    ]);
    for (const { perStep, packed } of eps) expect(unpackPrompt(pool.entries, packed, 0, NO_STEPS)).toEqual(perStep[0]!.messages);
  });

  it("stores a text whole when the edit would be over a 16th of it, and edits refer only to whole texts", () => {
    const a = "x".repeat(10_000);
    const b = `${"y".repeat(1000)}${a}`; // 1,000 new characters: over 11,000 / 16
    const c = `${b}z`; // an edit of b (the newest whole text), not of a chain
    const pool = new TextPool();
    for (const t of [a, b, c]) packPrompts([{ step: 0, messages: [msg("system", "S"), msg("user", t)] }], pool, []);
    expect(pool.entries[1]).toBe(a);
    expect(pool.entries[2]).toBe(b);
    expect(pool.entries[3]).toEqual({ k: 2, p: b.length, s: 0, m: "z" });
  });

  it("finds the edit across the 4096-character chunks of long contexts, wherever the change is", () => {
    const long = Array.from({ length: 12_000 }, (_, i) => "abcdefghij"[i % 10]).join("");
    for (const at of [0, 1, 4095, 4096, 4097, 8191, 8192, 11_999]) {
      for (const change of ["", "X", "XYZ".repeat(2000)]) {
        const edited = long.slice(0, at) + change + long.slice(at + 1);
        const perStep = [
          { step: 0, messages: [msg("system", "S"), msg("user", long)] },
          { step: 1, messages: [msg("system", "S"), msg("user", edited), msg("assistant", "a0"), msg("user", "o1")] },
        ];
        const pool = new TextPool();
        const p = packPrompts(perStep, pool, []);
        perStep.forEach((s, i) => expect(unpackPrompt(pool.entries, p, i, NO_STEPS), `at ${at}, change of ${change.length}`).toEqual(s.messages));
      }
    }
  });

  it("stores a step whole when it is not a prefix of the last step", () => {
    const perStep = [
      { step: 0, messages: [msg("system", "OTHER RULES"), msg("user", "o0")] },
      { step: 1, messages: [msg("system", "S"), msg("user", "o0"), msg("assistant", "a0"), msg("user", "o1")] },
    ];
    const pool = new TextPool();
    const p = packPrompts(perStep, pool, []);
    expect("whole" in (p.steps[0] as object)).toBe(true);
    perStep.forEach((s, i) => expect(unpackPrompt(pool.entries, p, i, NO_STEPS)).toEqual(s.messages));
  });

  it("stores the episode's turns as references to the steps the page holds, the tags between them once per run", () => {
    const shown: ShownStep[] = [
      { observation: "board A with enough text", feedback: "moved left, nothing happened", answer: "I go left.\nAnswer: left\nScore: 0" },
      { observation: "board B with enough text", feedback: "x", answer: "I go up.\nAnswer: up\nScore: 1" },
      { observation: "board C with enough text", feedback: "", answer: "" },
    ];
    const user = (o: string, f: string | null) => `${f === null ? "" : `<feedback>${f}</feedback>\n\n`}<observation>\n${o}\n</observation>\n\nREMIND`;
    const m1 = [msg("system", "S"), msg("user", user(shown[0]!.observation, null))];
    const m2 = [...m1, msg("assistant", shown[0]!.answer), msg("user", user(shown[1]!.observation, shown[0]!.feedback))];
    // Step 1's answer as the runner replayed it: with its think block dropped and a leading newline the page strips.
    const m3 = [...m2, msg("assistant", `\n${shown[1]!.answer}`), msg("user", user(shown[2]!.observation, shown[1]!.feedback))];
    const perStep = [m1, m2, m3].map((messages, step) => ({ step, messages }));
    const pool = new TextPool();
    const p = packPrompts(perStep, pool, shown);
    const at = (t: string) => pool.entries.indexOf(t);
    expect(p.rest).toEqual([
      { r: "assistant", c: [[0, "a"]] },
      { r: "user", c: [at("<feedback>"), [0, "f"], at("</feedback>\n\n<observation>\n"), [1, "o"], at("\n</observation>\n\nREMIND")] },
      { r: "assistant", c: [at("\n"), [1, "a"]] },
      // Feedback "x" is too short to refer to: it stays in the literal text.
      { r: "user", c: [at("<feedback>x</feedback>\n\n<observation>\n"), [2, "o"], at("\n</observation>\n\nREMIND")] },
    ]);
    expect(pool.entries.filter((t) => typeof t === "string" && t.includes("board"))).toEqual([user(shown[0]!.observation, null)]);
    perStep.forEach((s, i) => expect(unpackPrompt(pool.entries, p, i, shown)).toEqual(s.messages));
    // The page's episode file lacks the step a piece names: said, not shown wrong.
    expect(() => unpackPrompt(pool.entries, p, 2, shown.slice(0, 1))).toThrow(/no step at position 1/);
  });

  it("says which text is missing from a damaged prompt file instead of showing a wrong prompt", () => {
    const pool = new TextPool();
    const p = packPrompts([{ step: 0, messages: [msg("system", "S"), msg("user", "o0")] }], pool, []);
    expect(() => unpackPrompt([], p, 0, NO_STEPS)).toThrow(/has no text 0/);
  });
});

describe("rebuilt prompts equal what the model received", () => {
  it("for every step of a History run whose context is cut, and of a memory run", async () => {
    const data = mkdtempSync(join(tmpdir(), "s3view-prompt-"));
    const recorders: RecordingModel[] = [];
    const entries = buildMatrix(["builtin:heuristic"], ["minesweeper"], ["history", "memory"], 0);
    // ~2.5k tokens of context: the rules and the current episode leave room for only part of the History.
    const settings = small({ exploreEpisodes: 3, checkpointEvery: 3, contextTokens: 2600, maxNewTokens: 100 });
    await runMatrix({
      dataDir: data,
      entries,
      settings,
      game: getGame,
      createModel: factory((_n, m) => {
        const r = new RecordingModel(m);
        recorders.push(r);
        return r;
      }),
    });
    const requests = recorders.flatMap((r) => r.requests).filter((q) => q.identity.purpose === "step");
    let compared = 0;
    let cut = 0;
    let refs = 0;
    for (const e of entries) {
      const merged = await readMergedRun([runDir(data, e.runId)]);
      const input = replayInput(merged);
      expect(typeof input).not.toBe("string");
      const pool = new TextPool();
      for (const ep of merged.episodes) {
        // The page's own copy of the steps: the packed turns refer to it.
        const shown = ep.steps.map(stepView);
        const packed = episodePrompts(input, ep, pool, shown);
        if (typeof packed === "string") throw new Error(packed);
        refs += packed.rest.flatMap((m) => m.c).filter((x) => typeof x !== "number").length;
        ep.steps.forEach((s, k) => {
          const req = requests.find(
            (q) => q.identity.runId === e.runId && q.identity.phase === s.phase && q.identity.checkpoint === s.checkpoint && q.identity.episode === s.episode && q.identity.step === s.step,
          );
          expect(req, `${e.runId} ${ep.key} step ${s.step}`).toBeDefined();
          const got = unpackPrompt(pool.entries, packed, k, shown);
          expect(got).toEqual(req!.messages.map((m) => ({ role: m.role, content: m.content })));
          if (got[1]!.content.includes("later steps omitted")) cut++;
          compared++;
        });
      }
    }
    expect(compared).toBe(requests.length);
    expect(cut).toBeGreaterThan(0); // the History budget really cut blocks in some prompts
    expect(refs).toBeGreaterThan(0); // the turns really are read from the episode's steps
  }, 120_000);

  it("says why when the prompt cannot be rebuilt", () => {
    const none = replayInput({ manifest: null, checkpoints: [], episodes: [], memory: [] });
    expect(none).toMatch(/no manifest\.json/);
  });
});
