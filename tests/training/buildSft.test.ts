/**
 * BuildSFT on hand-built logs: the exact JSONL (threshold edges, unscored and unparsable steps,
 * evaluation and unfinished episodes excluded, normalisation, dedupe), the sidecars, and the
 * correction path with a built-in model (legal, recorded, and never shown the verifier reward).
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { buildSftCommand } from "../../src/cli/build-sft/buildSft.js";
import { withExitCode } from "../../src/cli/main.js";
import { getGame } from "../../src/games/registry.js";
import { CONTRACT_REMINDER } from "../../src/games/responseContract.js";
import { BuiltinModel } from "../../src/builtin/builtinModel.js";
import type { Model } from "../../src/models/types.js";
import { answerText, buildSft, type SftExample } from "../../src/training/buildSft.js";
import { replayToStep } from "../../src/training/correction.js";
import { validateSftFile } from "../../src/training/sftFormat.js";
import { resolveConfig } from "../../src/runner/loop/context.js";
import { playChosen, writeHandRun, type HandStep } from "../helpers/handLogs.js";
import { RecordingModel } from "../runner/helpers.js";

const tmp = (p: string) => mkdtempSync(join(tmpdir(), p));

async function cli(argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const io = { stdout: { write: (t: string) => out.push(t) }, stderr: { write: (t: string) => err.push(t) } };
  const code = await withExitCode("build-sft", () => buildSftCommand(argv, { env: {}, ...io }), io);
  return { code, out: out.join(""), err: err.join("") };
}

const step = (observation: string, response: string, action: string | null, self_score: number | null, feedback = ""): HandStep => ({
  observation,
  response,
  action,
  self_score,
  feedback,
  reward: 7.25,
});
const user = (obs: string, feedback: string | null) => [...(feedback === null ? [] : [`<feedback>${feedback}</feedback>`]), `<observation>\n${obs}\n</observation>`, CONTRACT_REMINDER].join("\n\n");

/** One `none` run of snake, every record written by hand. */
function handData(): string {
  const data = tmp("s3sft-");
  writeHandRun(data, {
    game: "snake",
    pathway: "none",
    model: "openai:toy",
    episodes: [
      {
        phase: "explore",
        checkpoint: null,
        episode: 1,
        seed: 100,
        steps: [
          step("OBS-1-0", "I go up.\nAnswer: UP\nScore: 1", "UP", 1, "moved"),
          step("OBS-1-1", "Answer: LEFT\nScore: 0", "LEFT", 0, "ate an apple"), // == threshold: kept
          step("OBS-1-2", "Answer: DOWN\nScore: -0.5", "DOWN", -0.5), // below: dropped
          step("OBS-1-3", "Answer: RIGHT", "RIGHT", null), // unscored: dropped
          step("OBS-1-4", "no idea", null, null), // unparsable: dropped
          step("OBS-1-5", "**Answer:** UP\n**Score:** 2", "UP", 2), // kept, normalised
        ],
      },
      // Episode 2's first step shows the same prompt and answer as episode 1's: a duplicate.
      { phase: "explore", checkpoint: null, episode: 2, seed: 102, steps: [step("OBS-1-0", "I go up.\nAnswer: UP\nScore: 1", "UP", 1)] },
      // Unfinished (no episode record): never used.
      { phase: "explore", checkpoint: null, episode: 3, seed: 104, status: null, steps: [step("UNFINISHED-OBS", "Answer: UP\nScore: 9", "UP", 9)] },
      // Evaluation steps, highly self-scored: never used.
      { phase: "eval", checkpoint: 0, episode: 0, seed: 101, steps: [step("EVAL-OBS", "Answer: UP\nScore: 9", "UP", 9)] },
      { phase: "eval", checkpoint: 3, episode: 1, seed: 103, steps: [step("EVAL-OBS-2", "Answer: LEFT\nScore: 5", "LEFT", 5)] },
    ],
  });
  return data;
}

describe("build-sft on hand-built logs", () => {
  it("writes exactly the expected JSONL, counts and sidecars", async () => {
    const data = handData();
    const out = join(tmp("s3sftout-"), "sft.jsonl");
    const r = await cli(["--data", data, "--out", out]);
    expect(r.err).toBe("");
    expect(r.code).toBe(0);

    const game = getGame("snake");
    const system = { role: "system", content: game.rules(resolveConfig(game, "explore", 8).config, "explore") };
    const expected = [
      { messages: [system, { role: "user", content: user("OBS-1-0", null) }, { role: "assistant", content: "I go up.\nAnswer: UP\nScore: 1" }] },
      {
        messages: [
          system,
          { role: "user", content: user("OBS-1-0", null) },
          { role: "assistant", content: "I go up.\nAnswer: UP\nScore: 1", weight: 0 },
          { role: "user", content: user("OBS-1-1", "moved") },
          { role: "assistant", content: "Answer: LEFT\nScore: 0" },
        ],
      },
      {
        messages: [
          system,
          { role: "user", content: user("OBS-1-0", null) },
          { role: "assistant", content: "I go up.\nAnswer: UP\nScore: 1", weight: 0 },
          { role: "user", content: user("OBS-1-1", "moved") },
          { role: "assistant", content: "Answer: LEFT\nScore: 0", weight: 0 },
          { role: "user", content: user("OBS-1-2", "ate an apple") },
          { role: "assistant", content: "Answer: DOWN\nScore: -0.5", weight: 0 },
          { role: "user", content: user("OBS-1-3", "(none)") },
          { role: "assistant", content: "Answer: RIGHT", weight: 0 },
          { role: "user", content: user("OBS-1-4", "(none)") },
          { role: "assistant", content: "no idea", weight: 0 },
          { role: "user", content: user("OBS-1-5", "(none)") },
          { role: "assistant", content: "Answer: UP\nScore: 2" },
        ],
      },
    ];
    expect(readFileSync(out, "utf8")).toBe(expected.map((e) => `${JSON.stringify(e)}\n`).join(""));
    const text = readFileSync(out, "utf8");
    for (const never of ["EVAL-OBS", "UNFINISHED-OBS", "7.25", "verifier"]) expect(text).not.toContain(never);

    const meta = JSON.parse(readFileSync(`${out}.meta.json`, "utf8"));
    expect(meta.counts.snake).toEqual({
      steps: 7,
      kept: 3,
      corrected: 0,
      dropped: 4,
      unparsable: 1,
      unscored: 1,
      low_scored: 1,
      correction_failed: { unparsable: 0, same_action: 0, illegal: 0, replay_mismatch: 0 },
      duplicate: 1,
      normalized: 1,
    });
    expect(meta.runs).toHaveLength(1);
    expect(meta.runs[0]).toMatchObject({ model: "openai:toy", game: "snake", pathway: "none", steps: 7, kept: 3, eval_steps_ignored: 2, unfinished_steps: 1 });
    expect(meta).toMatchObject({ examples: 3, threshold: 0, low_score: "drop", format: "openai-chat" });
    const sources = readFileSync(`${out}.sources.jsonl`, "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(sources.map((s) => [s.line, s.episode, s.step, s.corrected, s.normalized])).toEqual([
      [1, 1, 0, false, false],
      [2, 1, 1, false, false],
      [3, 1, 5, false, true],
    ]);
    expect(r.out).toMatch(/^snake\t7 steps\tkept 3\tcorrected 0\tdropped 4 \(unparsable 1; unscored 1; below threshold 1; duplicate 1\)$/m);
    expect(existsSync(`${out}.calls.jsonl`)).toBe(false);
    // The file is what `s3gym finetune --dry-run` accepts.
    expect((await validateSftFile(out)).errors).toEqual([]);
  });

  it("the threshold is inclusive; --format sharegpt; no evaluation step can enter at any threshold", async () => {
    const data = handData();
    const collect = async (threshold: number) => {
      const got: SftExample[] = [];
      const r = await buildSft({ data: [data], threshold, lowScore: "drop", format: "sharegpt" }, (e) => got.push(e));
      return { got, r };
    };
    const one = await collect(1);
    expect(one.got.map((e) => [e.source.step, e.source.self_score])).toEqual([
      [0, 1],
      [5, 2],
    ]);
    expect(one.r.counts.snake!.low_scored).toBe(2);
    const conv = one.got[0]!.example as { conversations: Array<{ from: string; value: string }> };
    expect(conv.conversations.map((c) => c.from)).toEqual(["system", "human", "gpt"]);
    // Even with every step passing the threshold, evaluation and unfinished episodes stay out.
    const all = await collect(-1e9);
    expect(all.got.every((e) => !e.line.includes("EVAL-OBS") && !e.line.includes("UNFINISHED-OBS"))).toBe(true);
    expect(all.got.map((e) => e.source.episode)).toEqual([1, 1, 1, 1]);
    expect(all.r.total.duplicate).toBe(1);
  });

  it("answers: the raw reply when it ends with the two contract lines, else the two lines", () => {
    expect(answerText("why\nAnswer: UP\nScore: 1", "UP", 1)).toEqual({ text: "why\nAnswer: UP\nScore: 1", normalized: false });
    expect(answerText("Answer: UP, Score: 1", "UP", 1)).toEqual({ text: "Answer: UP\nScore: 1", normalized: true });
    expect(answerText("<think>x</think>\nAnswer: UP\nScore: 1", "UP", 1).normalized).toBe(true);
    expect(answerText("Answer: up\nScore: 1.0", "up", 1).normalized).toBe(false);
  });

  it("argument errors name the flag (exit 2)", async () => {
    const data = handData();
    const out = join(tmp("s3sftout-"), "x.jsonl");
    expect((await cli(["--out", out])).err).toMatch(/--data is required/);
    expect((await cli(["--data", data])).err).toMatch(/--out is required/);
    expect((await cli(["--data", data, "--out", out, "--threshold", "high"])).err).toMatch(/--threshold must be a number/);
    expect((await cli(["--data", data, "--out", out, "--low-score", "fix"])).err).toMatch(/unknown --low-score 'fix'/);
    expect((await cli(["--data", data, "--out", out, "--correct-model", "builtin:heuristic"])).err).toMatch(/--correct-model is only used with --low-score correct/);
    expect((await cli(["--data", data, "--out", out, "--low-score", "correct", "--correct-model", "anthropic:x"])).err).toMatch(/--correct-model: .*anthropic/);
    expect((await cli(["--data", data, "--out", out, "--games", "go"])).code).toBe(2);
    expect(existsSync(out)).toBe(false);
  });
});

/** Always answers `text`. */
const fixed = (text: string): Model => ({
  spec: "fake:fixed",
  endpointHost: "builtin",
  complete: async () => ({ text, reasoning: null, finishReason: "stop", usage: { tokensIn: 0, tokensOut: 0, tokensCached: null }, latencyMs: 0, cached: false, retries: 0 }),
});

describe("build-sft --low-score correct", () => {
  const SEED = 7;
  /** A minesweeper episode played for real: flag (7, 7) self-scored 1, then uncover (0, 0) (already uncovered: illegal) self-scored -1. */
  function lowData(visible: boolean) {
    const data = tmp("s3corr-");
    const { steps, end } = playChosen("minesweeper", SEED, 8, [
      { action: "flag (7, 7)", self_score: 1 },
      { action: "uncover (0, 0)", self_score: -1 },
    ]);
    writeHandRun(data, {
      game: "minesweeper",
      pathway: "none",
      model: "builtin:random",
      rewardVisibility: visible ? "visible" : "hidden",
      episodes: [
        { phase: "explore", checkpoint: null, episode: 1, seed: SEED, steps, end_observation: end },
        { phase: "eval", checkpoint: 0, episode: 0, seed: SEED + 1, steps: [{ ...steps[1]!, self_score: -5 }] },
      ],
    });
    return { data, steps };
  }

  it("asks the correction model with its own action and self-score, never the reward; keeps a legal correction and records it", async () => {
    const { data, steps } = lowData(true);
    expect(steps[1]!.feedback).not.toBe(steps[0]!.feedback);
    const rec = new RecordingModel(new BuiltinModel("heuristic"));
    const got: SftExample[] = [];
    const r = await buildSft({ data: [data], threshold: 0, lowScore: "correct", correctModel: "builtin:heuristic", format: "openai-chat", createModel: () => rec }, (e) => got.push(e));

    // One call, for the low exploration step only (the low evaluation step is never considered).
    expect(rec.requests).toHaveLength(1);
    const q = rec.requests[0]!;
    expect(q.identity).toMatchObject({ purpose: "correction", phase: "explore", episode: 1, step: 1 });
    const prompt = q.messages.map((m) => m.content).join("\n");
    expect(q.messages.at(-1)!.content).toContain("Your answer above was `Answer: uncover (0, 0)` and you judged it `Score: -1`");
    expect(q.messages.at(-2)).toEqual({ role: "assistant", content: steps[1]!.response });
    // The run showed rewards (the visible ablation); the correction prompt never does, nor the low step's own feedback.
    expect(prompt).not.toMatch(/verifier reward|episode total so far/);
    expect(prompt).not.toContain(steps[1]!.feedback);

    expect(r.counts.minesweeper).toMatchObject({ steps: 2, kept: 2, corrected: 1, dropped: 0, low_scored: 1 });
    const fix = got[1]!;
    expect(fix.source).toMatchObject({ step: 1, corrected: true, original_action: "uncover (0, 0)", original_self_score: -1, correct_model: "builtin:heuristic" });
    // The correction is legal from that step's state (replayed here independently).
    const game = getGame("minesweeper");
    const cfg = resolveConfig(game, "explore", 8);
    const before = game.step(game.reset(SEED, cfg.config, cfg.name), "flag (7, 7)").state;
    expect(game.step(before, fix.source.action).valid).toBe(true);
    expect(fix.source.action).not.toBe("uncover (0, 0)");
    // The example is the exact step prompt (with the rewards the run showed) + the corrected answer.
    const msgs = (fix.example as { messages: Array<{ role: string; content: string }> }).messages;
    expect(msgs.at(-1)).toEqual({ role: "assistant", content: `Answer: ${fix.source.action}\nScore: ${fix.source.self_score}` });
    expect(msgs.map((m) => m.content).join("\n")).toContain("verifier reward");
    expect(msgs.map((m) => m.content).join("\n")).not.toContain("<correction>");
  });

  it("drops corrections that are illegal, unparsable or the same action", async () => {
    const { data } = lowData(false);
    for (const [text, why] of [
      ["Answer: uncover (99, 99)\nScore: 1", "illegal"],
      ["I would rather not.", "unparsable"],
      ["Answer: uncover (0, 0)\nScore: 2", "same_action"],
    ] as const) {
      const got: SftExample[] = [];
      const r = await buildSft({ data: [data], threshold: 0, lowScore: "correct", format: "openai-chat", createModel: () => fixed(text) }, (e) => got.push(e));
      expect(got.map((e) => e.source.corrected)).toEqual([false]);
      expect(r.counts.minesweeper!.correction_failed[why]).toBe(1);
      expect(r.counts.minesweeper).toMatchObject({ kept: 1, corrected: 0, dropped: 1 });
    }
  });

  it("a replay that does not reproduce the logged observations drops the step", () => {
    const { steps } = lowData(false);
    const game = getGame("minesweeper");
    const cfg = resolveConfig(game, "explore", 8);
    const ok = replayToStep(game, { seed: SEED, config: cfg.config, configName: "explore" }, [{ ...steps[0]!, step: 0 }], { step: 1, observation: steps[1]!.observation });
    expect(ok.ok).toBe(true);
    const bad = replayToStep(game, { seed: SEED + 2, config: cfg.config, configName: "explore" }, [{ ...steps[0]!, step: 0 }], { step: 1, observation: steps[1]!.observation });
    expect(bad).toMatchObject({ ok: false });
  });

  it("through the CLI with builtin:heuristic: the corrections are marked in the sidecars and their calls logged", async () => {
    const { data } = lowData(false);
    const out = join(tmp("s3corrout-"), "sft.jsonl");
    const r = await cli(["--data", data, "--out", out, "--low-score", "correct", "--correct-model", "builtin:heuristic"]);
    expect(r.err).toBe("");
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^minesweeper\t2 steps\tkept 2\tcorrected 1\tdropped 0 /m);
    expect(readFileSync(out, "utf8").trim().split("\n")).toHaveLength(2);
    const sources = readFileSync(`${out}.sources.jsonl`, "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(sources.map((s) => s.corrected)).toEqual([false, true]);
    const calls = readFileSync(`${out}.calls.jsonl`, "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatchObject({ purpose: "correction", phase: "explore", episode: 1, step: 1, error: null });
    const meta = JSON.parse(readFileSync(`${out}.meta.json`, "utf8"));
    expect(meta).toMatchObject({ low_score: "correct", correct_model: "builtin:heuristic", corrections: { calls: 1 } });
  });
});

describe("build-sft's temporaries", () => {
  it("a killed build's .tmp-<pid> files go at the next build; a live writer's and other files' stay", async () => {
    const dir = tmp("s3sfttmp-");
    const out = join(dir, "sft.jsonl");
    const dead = spawnSync(process.execPath, ["-e", ""]).pid!;
    const live = process.ppid;
    const stale = [`.sft.jsonl.tmp-${dead}-1`, `.sft.jsonl.sources.jsonl.tmp-${dead}-2`, `.sft.jsonl.meta.json.tmp-${dead}`];
    const kept = [`.sft.jsonl.tmp-${live}-1`, `.other.jsonl.tmp-${dead}-1`, `sft.jsonl.tmp-${dead}-1`];
    for (const f of [...stale, ...kept]) writeFileSync(join(dir, f), "partial");
    const r = await cli(["--data", handData(), "--out", out]);
    expect(r.code).toBe(0);
    expect(readdirSync(dir).sort()).toEqual([...kept, "sft.jsonl", "sft.jsonl.meta.json", "sft.jsonl.sources.jsonl"].sort());
  });
});
