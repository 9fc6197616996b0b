/**
 * `s3gym run` against fakes of each endpoint family (tests/helpers/fakeEndpoints.ts), as a user
 * meets them: reasoning kept and never parsed unless asked, degenerate runs stopped loudly, keys
 * that never reach the output, whatever was pasted where.
 */
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { withExitCode } from "../../src/cli/main.js";
import { runCommand } from "../../src/cli/run/run.js";
import { clearSecrets } from "../../src/models/secrets.js";
import { buildMatrix } from "../../src/runner/loop/schedule.js";
import { runDir } from "../../src/logs/runDir.js";
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
  const io = { stdout: { write: (t: string) => out.push(t) }, stderr: { write: (t: string) => err.push(t) } };
  const code = await withExitCode("run", () => runCommand(argv, { env: { OPENAI_API_KEY: KEY, ...env }, ...io, modelContext: { sleep: async () => {} } }), io);
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
    // --no-preflight: the preflight's probe would meet the 401 first (and print it just as safely).
    const r = await against({ family: "openai", rawReply: () => [401, JSON.stringify({ error: { message: hostile } })] }, ["--max-retries", "0", "--no-preflight"]);
    expect(r.code).toBe(1);
    const all = r.out + r.err + readFileSync(join(r.dir, "episodes.jsonl"), "utf8") + readFileSync(join(r.dir, "checkpoints.jsonl"), "utf8");
    expect(all).not.toContain("SENTINEL");
    // biome-ignore lint/suspicious/noControlCharactersInRegex: the test asserts no control character reaches the output
    expect(r.out + r.err).not.toMatch(/[\u001b\u0007\r]/);
    expect(r.out).toContain("\\x1b]0;owned");
  });
});

describe("preflight: known before the first token", () => {
  const chatsWithCap1 = () => fake!.chats.filter((c) => c.max_tokens === 1 || c.max_completion_tokens === 1).length;

  it("vLLM's max_model_len shorter than --context-tokens: refused with the numbers and the fix, nothing runs", async () => {
    const r = await against({ family: "vllm", maxModelLen: 8192, tokenize: false }, ["--context-tokens", "16000"]);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/the server's context is 8192 tokens \(max_model_len\) but --context-tokens 16000 needs 16000/);
    expect(r.err).toMatch(/fix: --context-tokens 8192 .*--max-model-len 16000/);
    expect(existsSync(join(r.data, "runs"))).toBe(false);
    expect(fake!.chats).toHaveLength(0);
  });

  it("vLLM's /tokenize: the server's tokenizer counts more, and the context check scales by it", async () => {
    // The fake counts 1.25 tokens per o200k token (rounded up): 7000 local tokens are about 8750 of the server's.
    let r = await against({ family: "vllm", maxModelLen: 8192 }, ["--context-tokens", "7000"]);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/7000 o200k tokens are about 87\d\d of the server's/);
    r = await against({ family: "vllm", maxModelLen: 8192 }, ["--context-tokens", "6000"]);
    expect(r.code).toBe(0);
    expect(r.err).toMatch(/preflight openai:fake-model @ 127\.0\.0\.1:\d+: ok \(listed; \/tokenize: the server counts 1\.2\dx o200k/);
    const pre = (r.manifest().config as { invocation: { preflight: { max_model_len: number; token_ratio: number }[] } }).invocation.preflight[0]!;
    expect(pre.max_model_len).toBe(8192);
    expect(pre.token_ratio).toBeGreaterThan(1.2);
  });

  it("OpenAI refusing max_tokens: the probe names --max-tokens-param; with it the run completes and keeps cached tokens", async () => {
    let r = await against({ family: "openai" });
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/Unsupported parameter: 'max_tokens'.*--max-tokens-param max_completion_tokens \(in a models file: max_tokens_param: max_completion_tokens\)/);
    expect(fake!.chats).toHaveLength(1);
    r = await against({ family: "openai" }, ["--max-tokens-param", "max_completion_tokens"]);
    expect(r.code).toBe(0);
    const steps = lines<{ tokens_in: number; tokens_cached: number | null }>(r.dir, "steps.jsonl");
    expect(steps.some((s) => (s.tokens_cached ?? 0) > 0)).toBe(true);
    expect(steps.every((s) => (s.tokens_cached ?? 0) <= s.tokens_in)).toBe(true);
  });

  it("a refused seed names drop_params in the models file; with it the run completes", async () => {
    fake = await startFake({ family: "openai", rejectParams: ["seed"] });
    const data = mkdtempSync(join(tmpdir(), "s3ep-"));
    const file = join(data, "models.yaml");
    const entry = (drop: string) =>
      `models:\n  - alias: o\n    spec: openai:fake-model\n    base_url: ${fake!.url}\n    max_tokens_param: max_completion_tokens\n    sampling: { seed: 1, temperature: 0.5 }\n${drop}`;
    writeFileSync(file, entry(""));
    const argv = ["--models-file", file, "--models", "o", "--games", "snake", "--pathways", "none", "--data", data, ...tiny];
    let r = await run(argv);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/'seed' is not supported.*drop it: --drop-params seed \(models file entry 'o': drop_params: \[seed\]/);
    writeFileSync(file, entry("    drop_params: [seed]\n"));
    r = await run(argv);
    expect(r.code).toBe(0);
    expect(fake!.chats.at(-1)).not.toHaveProperty("seed");
    expect(fake!.chats.at(-1)).toHaveProperty("temperature", 0.5);
  });

  it("a model the server does not list is refused, naming what it serves (escaped)", async () => {
    const r = await against({ family: "ollama", models: ["llama3:8b", "qwen3:8b\u001b[2J"] });
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/does not list 'fake-model'; it serves: llama3:8b, qwen3:8b\\x1b\[2J/);
    // biome-ignore lint/suspicious/noControlCharactersInRegex: the test asserts no control character reaches the output
    expect(r.err).not.toMatch(/\u001b/);
  });

  it("an unreachable endpoint and a refused key are named before anything runs", async () => {
    const data = mkdtempSync(join(tmpdir(), "s3ep-"));
    let r = await run(["--models", "openai:m", "--base-url", "http://127.0.0.1:9/v1", "--games", "snake", "--pathways", "none", "--data", data, ...tiny]);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/cannot reach http:\/\/127\.0\.0\.1:9\/v1\/models \(ECONNREFUSED\)/);
    r = await against({ family: "openai", requireKey: "the-right-key-000" });
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/the endpoint refused the key in OPENAI_API_KEY \(HTTP 401: Incorrect API key provided: \[redacted\]\); set OPENAI_API_KEY to a valid key/);
    expect(r.err).not.toContain("SENTINEL");
  });

  it("a passed probe is remembered in the data directory: a rerun does not pay for it again; --no-preflight skips everything", async () => {
    const r = await against({ family: "vllm" });
    expect(r.code).toBe(0);
    expect(chatsWithCap1()).toBe(1);
    const again = await run(["--models", "openai:fake-model", "--base-url", fake!.url, "--games", "snake", "--pathways", "none", "--data", r.data, ...tiny]);
    expect(again.code).toBe(0);
    expect(again.err).toMatch(/probe passed before with these parameters/);
    expect(chatsWithCap1()).toBe(1);
    const models = fake!.paths.filter((p) => p === "GET /v1/models").length;
    const off = await run([
      "--models",
      "openai:fake-model",
      "--base-url",
      fake!.url,
      "--games",
      "snake",
      "--pathways",
      "none",
      "--data",
      mkdtempSync(join(tmpdir(), "s3ep-")),
      ...tiny,
      "--no-preflight",
    ]);
    expect(off.code).toBe(0);
    expect(fake!.paths.filter((p) => p === "GET /v1/models").length).toBe(models);
  });
});

describe("token counts say who counted them", () => {
  it("Ollama reports no usage: counts are the local tokenizer's, marked as such per step, per call and in the manifest", async () => {
    const r = await against({ family: "ollama", models: ["fake-model"] });
    expect(r.code).toBe(0);
    const steps = lines<{ tokens_in: number; tokens_counted_by?: string }>(r.dir, "steps.jsonl");
    expect(steps.length).toBeGreaterThan(0);
    expect(steps.every((s) => s.tokens_in > 0 && s.tokens_counted_by === "o200k")).toBe(true);
    const usage = r.manifest().usage as { tokens_counted_by: Record<string, number>; calls: number };
    expect(usage.tokens_counted_by).toEqual({ o200k: usage.calls });
    expect(r.out).toMatch(/estimated with o200k/);
  });

  it("vLLM reports usage: counted by the server", async () => {
    const r = await against({ family: "vllm" });
    // The end of the run: scores per run and the command that builds the tables.
    expect(r.out).toMatch(/\tcomplete\t2\/2 checkpoints ok\ty0 [\d.]+ -> x1 [\d.]+, Avg [\d.]+\t/);
    expect(r.out).toContain(`\tnext: s3gym report --data ${r.data} --out figures\n`);
    const steps = lines<{ tokens_counted_by?: string }>(r.dir, "steps.jsonl");
    expect(steps.every((s) => s.tokens_counted_by === "server")).toBe(true);
    expect(r.out).not.toMatch(/estimated/);
  });
});
