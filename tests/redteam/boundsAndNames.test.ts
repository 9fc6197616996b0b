/**
 * Red team, issue 32 cases 7, 8, 10, 12 and 13: bounded reply bodies, system folders, printable
 * names, a preflight cache that cannot be written, long waits and the planned episode total.
 *
 * Before: a body that streamed forever took a run from 0.6 to 14.9 GB; `--data /proc/self` spun in
 * an endless mkdir loop; control characters in a model name were logged raw and crashed `report`'s
 * SVG; a failed preflight-cache write aborted the run after the probe was paid; a 429 with a huge
 * Retry-After waited 10 minutes per retry without a word; 10000 x 10000 episodes were accepted.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { mkdtempSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { folderFlag, UsageError } from "../../src/cli/shared/args.js";
import { withExitCode } from "../../src/cli/main.js";
import { runCommand } from "../../src/cli/run/run.js";
import { settingsFromFlags } from "../../src/cli/shared/sharedFlags.js";
import { runDir } from "../../src/logs/runDir.js";
import { MAX_REPLY_BYTES } from "../../src/models/httpFetch.js";
import { parseModelSpec } from "../../src/models/modelSpec.js";
import { loadModelsFile } from "../../src/models/modelsFile.js";
import { OpenAIModel } from "../../src/models/openaiModel.js";
import { OVERSIZE, ReplyGuard } from "../../src/models/replyGuard.js";
import { AttemptError, withRetry } from "../../src/models/retry.js";
import { buildMatrix } from "../../src/runner/loop/schedule.js";
import { Rng } from "../../src/util/rng.js";
import { startFake, type FakeEndpoint } from "../helpers/fakeEndpoints.js";
import { request } from "../models/helpers.js";

let server: Server | null = null;
let fake: FakeEndpoint | null = null;
afterEach(async () => {
  await new Promise<void>((r) => (server ? server.close(() => r()) : r()));
  server?.closeAllConnections();
  server = null;
  await fake?.close();
  fake = null;
});

async function cli(argv: string[], env: Record<string, string> = { OPENAI_API_KEY: "EMPTY" }) {
  const out: string[] = [];
  const io = { stdout: { write: (t: string) => out.push(t) }, stderr: { write: (t: string) => out.push(t) } };
  const code = await withExitCode("run", () => runCommand(argv, { env, ...io }), io);
  return { code, text: out.join("") };
}

describe("reply bodies are bounded while they stream", () => {
  it("a 200 that streams content forever ends as an 'oversize' reply after the cap, with memory bounded", async () => {
    let sent = 0;
    server = createServer((req, res) => {
      req.resume();
      res.writeHead(200, { "content-type": "application/json" });
      res.write('{"choices":[{"message":{"role":"assistant","content":"');
      const chunk = "x".repeat(64 * 1024);
      const pump = () => {
        while (!res.destroyed && res.write(chunk)) sent += chunk.length;
        if (!res.destroyed) res.once("drain", pump);
      };
      pump();
    });
    await new Promise<void>((r) => server!.listen(0, "127.0.0.1", () => r()));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
    const model = new ReplyGuard(new OpenAIModel({ spec: "openai:m", model: "m", baseUrl: base, apiKey: "EMPTY", timeoutMs: 60_000 }));
    const before = process.memoryUsage().rss;
    const res = await model.complete(request());
    expect(res.finishReason).toBe(OVERSIZE);
    expect(res.text).toBe("");
    // The server got to send about the cap (plus socket buffers), not gigabytes.
    expect(sent).toBeLessThan(MAX_REPLY_BYTES * 8);
    expect(process.memoryUsage().rss - before).toBeLessThan(200 * 1024 * 1024);
  }, 30_000);

  it("in a run, the oversize reply is a step with a parse error, not a retried failure", async () => {
    const huge = JSON.stringify({ choices: [{ message: { role: "assistant", content: "y".repeat(MAX_REPLY_BYTES + 10) }, finish_reason: "stop" }] });
    fake = await startFake({ family: "vllm", rawReply: (n) => (n === 2 ? [200, huge, "application/json"] : null) });
    const data = mkdtempSync(join(tmpdir(), "s3bounds-"));
    const r = await cli([
      "--models",
      "openai:fake-model",
      "--base-url",
      fake.url,
      "--games",
      "snake",
      "--pathways",
      "none",
      "--explore-episodes",
      "0",
      "--eval-episodes",
      "1",
      "--max-steps",
      "4",
      "--context-tokens",
      "8000",
      "--max-new-tokens",
      "500",
      "--progress",
      "off",
      "--no-preflight",
      "--data",
      data,
    ]);
    expect(r.code, r.text).not.toBe(2);
    const id = buildMatrix(["openai:fake-model"], ["snake"], ["none"], 0)[0]!.runId;
    const steps = readFileSync(join(runDir(data, id), "steps.jsonl"), "utf8")
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { finish_reason: string; parse_error: string | null; response: string });
    const oversize = steps.filter((s) => s.finish_reason === OVERSIZE);
    expect(oversize).toHaveLength(1);
    expect(oversize[0]!.parse_error).not.toBeNull();
    expect(oversize[0]!.response).toBe("");
  }, 60_000);
});

describe("data directories under kernel and device folders", () => {
  it("are refused with the folder named, directly or through a link", () => {
    for (const p of ["/proc/self", "/proc/1/x", "/sys", "/dev/shm/../null/d"]) expect(() => folderFlag("data", p), p).toThrow(/kernel or device folder/);
    const link = join(mkdtempSync(join(tmpdir(), "s3bounds-link-")), "proc");
    symlinkSync("/proc/self", link);
    expect(() => folderFlag("data", join(link, "data"))).toThrow(UsageError);
    expect(folderFlag("data", join(tmpdir(), "fine", "here"))).toBe(join(tmpdir(), "fine", "here"));
  });

  it("`run --data /proc/self` exits 2 at once", async () => {
    const r = await cli(["--models", "builtin:random", "--games", "snake", "--pathways", "none", "--data", "/proc/self"]);
    expect(r.code).toBe(2);
    expect(r.text).toContain("/proc");
  });
});

describe("model names and aliases hold printable characters only", () => {
  it("a spec or an alias with terminal escapes is refused, shown escaped", async () => {
    const bad = "openai:m\u001b]0;owned\u0007";
    expect(() => parseModelSpec(bad)).toThrow(/control or invisible character \(\\x1b at position 9\)/);
    const r = await cli(["--models", bad, "--games", "snake", "--pathways", "none", "--data", mkdtempSync(join(tmpdir(), "s3bounds-name-"))]);
    expect(r.code).toBe(2);
    // biome-ignore lint/suspicious/noControlCharactersInRegex: the test asserts no control character reaches the output
    expect(r.text).not.toMatch(/[\u0000-\u0008\u000b-\u001f]/);
    const file = join(mkdtempSync(join(tmpdir(), "s3bounds-mf-")), "models.json");
    writeFileSync(file, JSON.stringify({ models: [{ alias: "m\u001b[2J", spec: "openai:x", base_url: "http://127.0.0.1:1/v1" }] }));
    expect(() => loadModelsFile(file)).toThrow(/printable characters only/);
  });
});

describe("a preflight cache that cannot be written", () => {
  it("costs one warning naming the file; the run goes on", async () => {
    fake = await startFake({ family: "vllm" });
    const data = mkdtempSync(join(tmpdir(), "s3bounds-pc-"));
    writeFileSync(join(data, "cache"), "x"); // a file where the cache folder goes
    const r = await cli([
      "--models",
      "openai:fake-model",
      "--base-url",
      fake.url,
      "--games",
      "snake",
      "--pathways",
      "none",
      "--explore-episodes",
      "0",
      "--eval-episodes",
      "1",
      "--max-steps",
      "3",
      "--context-tokens",
      "8000",
      "--max-new-tokens",
      "500",
      "--progress",
      "off",
      "--data",
      data,
    ]);
    expect(r.code, r.text).toBe(0);
    expect(r.text.match(/preflight cache not written/g)).toHaveLength(1);
    expect(r.text).toContain(join(data, "cache", "preflight"));
  }, 60_000);
});

describe("long waits and planned totals", () => {
  it("a Retry-After over 30 s is announced before the wait, with the cap and its flag", async () => {
    const said: string[] = [];
    const waits: number[] = [];
    let n = 0;
    const attempt = async () => {
      if (n++ < 2) throw new AttemptError("HTTP 429: slow down", "http_429", 3_600_000);
      return "ok";
    };
    await withRetry(attempt, {
      maxRetries: 3,
      maxRetryAfterMs: 40_000,
      baseDelayMs: 1,
      rng: Rng.fromKey("long-wait"),
      label: "openai:m @ h",
      sleep: async (ms) => void waits.push(ms),
      onLongWait: (m) => said.push(m),
    });
    expect(waits.every((w) => w >= 40_000 && w < 40_001)).toBe(true);
    expect(said).toHaveLength(2);
    expect(said[0]).toMatch(/openai:m @ h: http_429 .*waiting 40 s before retry 1 of 3 .*capped at 40 s: --max-retry-after S/);
  });

  it("the episode bound is checked against the planned total, not flag by flag", () => {
    const v = { "explore-episodes": "10000", "checkpoint-every": "1", "eval-episodes": "10000" };
    expect(() => settingsFromFlags(v)).toThrow(/plan 100020000 episodes per run, more than 100000/);
    expect(() => settingsFromFlags({ ...v, "checkpoint-every": "2000" })).not.toThrow();
  });
});
