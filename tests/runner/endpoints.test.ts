/**
 * `s3gym run` against fakes of each endpoint family (tests/helpers/fakeEndpoints.ts), as a user
 * meets them: reasoning kept and never parsed unless asked, degenerate runs stopped loudly, keys
 * that never reach the output, whatever was pasted where.
 */
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runCommand } from "../../src/cli/run.js";
import { clearSecrets } from "../../src/models/secrets.js";
import { buildMatrix } from "../../src/runner/schedule.js";
import { runDir } from "../../src/runner/runLogs.js";
import { startFake, type FakeEndpoint, type FakeOptions } from "../helpers/fakeEndpoints.js";
import { lines } from "./helpers.js";

const KEY = "sk-ENDPOINTS-SENTINEL-5e4d3c2b1a";
let fake: FakeEndpoint | null = null;
afterEach(async () => {
  await fake?.close();
  fake = null;
  clearSecrets();
});

async function run(argv: string[], env: Record<string, string | undefined> = {}) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCommand(argv, {
    env: { OPENAI_API_KEY: KEY, ...env },
    stdout: { write: (t: string) => out.push(t) },
    stderr: { write: (t: string) => err.push(t) },
    modelContext: { sleep: async () => {} },
  });
  return { code, out: out.join(""), err: err.join("") };
}

const tiny = ["--explore-episodes", "1", "--checkpoint-every", "1", "--eval-episodes", "1", "--max-steps", "16", "--progress", "off", "--max-new-tokens", "256", "--context-tokens", "16000"];

async function against(o: FakeOptions, extra: string[] = [], pathway = "none", game = "snake") {
  fake ??= await startFake(o);
  const data = mkdtempSync(join(tmpdir(), "s3ep-"));
  const r = await run(["--models", "openai:fake-model", "--base-url", fake.url, "--games", game, "--pathways", pathway, "--data", data, ...tiny, ...extra]);
  const id = buildMatrix(["openai:fake-model"], [game], [pathway], 0)[0]!.runId;
  const dir = runDir(data, id);
  return { ...r, data, dir, manifest: () => JSON.parse(readFileSync(join(dir, "manifest.json"), "utf8")) as Record<string, unknown> };
}

describe("reasoning models", () => {
  it("a reasoning-only model (answer in reasoning_content, content empty) stops as degenerate, says why, exits non-zero", async () => {
    // tetris: an unparsable action is a step like any other, so the episodes go on past the warm-up.
    const r = await against({ family: "reasoning-only" }, [], "none", "tetris");
    expect(r.code).toBe(1);
    const m = r.manifest();
    expect(m.status).toBe("degenerate");
    expect(String(m.degenerate_reason)).toMatch(/100% empty content/);
    expect(String(m.degenerate_reason)).toMatch(/reasoning present in 100%: the answer may be in the reasoning field, see --answer-from/);
    expect(r.out).toMatch(/\tdegenerate\t/);
    expect(r.out).not.toMatch(/\tcomplete\t/);
    // Stopped early: the warm-up (20 replies) plus at most the calls already in flight.
    const steps = lines<{ reasoning: string | null; reasoning_chars: number; response: string }>(r.dir, "steps.jsonl");
    expect(steps.length).toBeGreaterThanOrEqual(20);
    expect(steps.length).toBeLessThan(3 * 16);
    // The logs show why: the reasoning text is kept per step.
    expect(steps.every((s) => s.response === "" && (s.reasoning ?? "").includes("Answer:"))).toBe(true);
    expect(steps[0]!.reasoning_chars).toBe(steps[0]!.reasoning!.length);
    // A run too short to reach the warm-up (snake: 18 replies here) is judged at its end: never "complete".
    const short = await against({ family: "reasoning-only" });
    expect(lines(short.dir, "steps.jsonl").length).toBeLessThan(20);
    expect(short.manifest().status).toBe("degenerate");
    expect(short.code).toBe(1);
  });

  it("--answer-from reasoning plays the same model to completion, each step saying where its answer came from", async () => {
    const r = await against({ family: "reasoning-only" }, ["--answer-from", "reasoning"]);
    expect(r.code).toBe(0);
    expect(r.manifest().status).toBe("complete");
    const steps = lines<{ action: string | null; self_score: number | null; answer_source?: string }>(r.dir, "steps.jsonl");
    expect(steps.every((s) => s.action !== null && s.self_score !== null && s.answer_source === "reasoning")).toBe(true);
    expect((r.manifest().config as { protocol: Record<string, unknown> }).protocol.answer_from).toBe("reasoning");
  });

  it("vLLM's reasoning parser: the reasoning is stored, its decoy Answer line is never parsed", async () => {
    const r = await against({ family: "vllm", reasoningParser: true });
    expect(r.code).toBe(0);
    const steps = lines<{ action: string | null; reasoning: string | null }>(r.dir, "steps.jsonl");
    expect(steps.length).toBeGreaterThan(0);
    expect(steps.every((s) => s.reasoning?.includes("WRONG-DECOY") && s.action !== "WRONG-DECOY")).toBe(true);
  });

  it("--answer-from both reads the content first and falls back to the reasoning", async () => {
    const r = await against({ family: "vllm", reasoningParser: true }, ["--answer-from", "both"]);
    expect(r.code).toBe(0);
    const steps = lines<{ action: string | null }>(r.dir, "steps.jsonl");
    expect(steps.every((s) => s.action !== "WRONG-DECOY")).toBe(true);
  });

  it("--max-bad-replies 100% never stops a run; a bad value names the flag", async () => {
    const r = await against({ family: "reasoning-only" }, ["--max-bad-replies", "100%"]);
    expect(r.manifest().status).toBe("complete");
    const bad = await run(["--models", "builtin:random", "--games", "snake", "--pathways", "none", "--data", r.data, "--max-bad-replies", "150%"]);
    expect(bad.code).toBe(2);
    expect(bad.err).toMatch(/--max-bad-replies must be a share in 0..1/);
  });
});

describe("keys never reach the output", () => {
  const key = "gsk_PASTEDKEY0123456789abcdefXYZ";
  it("--api-key-env given a key is refused without echoing it", async () => {
    const data = mkdtempSync(join(tmpdir(), "s3ep-"));
    const r = await run(["--models", "openai:m", "--games", "snake", "--pathways", "none", "--data", data, "--api-key-env", key]);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/--api-key-env looks like a key/);
    expect(r.err + r.out).not.toContain("PASTEDKEY");
  });

  it("api_key_env given a key in the models file is refused without echoing it", async () => {
    const data = mkdtempSync(join(tmpdir(), "s3ep-"));
    const file = join(data, "models.yaml");
    writeFileSync(file, `models:\n  - alias: groq\n    spec: openai:llama\n    api_key_env: ${key}\n`);
    const r = await run(["--models-file", file, "--models", "groq", "--games", "snake", "--pathways", "none", "--data", data]);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/api_key_env: looks like a key/);
    expect(r.err + r.out).not.toContain("PASTEDKEY");
  });

  it("a key value with a newline is refused at config time, its value never printed", async () => {
    const data = mkdtempSync(join(tmpdir(), "s3ep-"));
    const r = await run(["--models", "openai:m", "--base-url", "http://127.0.0.1:9/v1", "--games", "snake", "--pathways", "none", "--data", data], { OPENAI_API_KEY: `${KEY}\nsecond-line-SECRET` });
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/the value of OPENAI_API_KEY contains a newline at position (\d+)/);
    expect(/position (\d+)/.exec(r.err)![1]).toBe(String(KEY.length + 1));
    expect(r.err + r.out).not.toContain("SENTINEL");
    expect(r.err + r.out).not.toContain("second-line");
    expect(existsSync(join(data, "runs"))).toBe(false);
  });

  it("an error body that echoes the key, with terminal escapes, reaches neither the logs nor the terminal raw", async () => {
    const hostile = `\u001b]0;owned\u0007\u001b[2J\rcomplete: bad key ${KEY}`;
    const r = await against({ family: "openai", rawReply: () => [401, JSON.stringify({ error: { message: hostile } })] }, ["--max-retries", "0"]);
    expect(r.code).toBe(1);
    const all = r.out + r.err + readFileSync(join(r.dir, "episodes.jsonl"), "utf8") + readFileSync(join(r.dir, "checkpoints.jsonl"), "utf8");
    expect(all).not.toContain("SENTINEL");
    // eslint-disable-next-line no-control-regex
    expect(r.out + r.err).not.toMatch(/[\u001b\u0007\r]/);
    expect(r.out).toContain("\\x1b]0;owned");
  });
});
