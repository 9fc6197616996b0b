/**
 * `s3gym serve --prefix-cache [--cache-tokens N]`: the test server reports a simulated prefix cache's
 * hits as usage.prompt_tokens_details.cached_tokens (endpoints issue item 7). Expected figures come
 * from countMessageTokens and the 16-token block rule, not from the cache's code.
 */
import { mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { startServer, type RunningServer } from "../../src/builtin/server.js";
import { runCommand } from "../../src/cli/run/run.js";
import { serveCommand } from "../../src/cli/serve/serve.js";
import { withExitCode } from "../../src/cli/main.js";

/** main.ts's mapping of a thrown --help or bad flag, its lines (newline dropped) into `out` and `err`. */
const lines = (out: string[], err: string[]) => ({ stdout: { write: (t: string) => out.push(t.replace(/\n$/, "")) }, stderr: { write: (t: string) => err.push(t.replace(/\n$/, "")) } });
import { buildStepMessages } from "../../src/agent/stepPrompt.js";
import { GAMES } from "../../src/games/registry.js";
import { countMessageTokens } from "../../src/models/tokens.js";
import type { ChatMessage } from "../../src/models/types.js";

let server: RunningServer | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
});

const game = GAMES.trust;
const state = game.reset(0, "explore");
const rules = game.rules("explore");
const obs = game.observe(state);
const first: ChatMessage[] = buildStepMessages({ rules, experience: "", turns: [], observation: obs, rewardVisibility: "hidden" });
const second: ChatMessage[] = buildStepMessages({
  rules,
  experience: "",
  turns: [{ observation: obs, response: "Answer: C\nScore: 1", feedback: "You cooperated." }],
  observation: obs,
  rewardVisibility: "hidden",
});

async function cachedTokens(url: string, messages: ChatMessage[]): Promise<{ prompt: number; cached: number }> {
  const r = await fetch(`${url}/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ model: "s3gym-heuristic", messages, max_tokens: 50 }),
  });
  const body = (await r.json()) as { usage: { prompt_tokens: number; prompt_tokens_details: { cached_tokens: number } } };
  return { prompt: body.usage.prompt_tokens, cached: body.usage.prompt_tokens_details.cached_tokens };
}

describe("serve with a simulated prefix cache", () => {
  it("serves a prompt's earlier prefix in full blocks of 16, never the last token", async () => {
    server = await startServer({ prefixCacheTokens: 1_000_000 });
    const n1 = countMessageTokens(first);
    expect(await cachedTokens(server.url, first)).toEqual({ prompt: n1, cached: 0 });
    // The next step's prompt begins with the whole first prompt: its full blocks are served.
    expect(await cachedTokens(server.url, second)).toEqual({ prompt: countMessageTokens(second), cached: Math.floor(n1 / 16) * 16 });
    // The same prompt again: all full blocks but the one holding its last token.
    expect((await cachedTokens(server.url, first)).cached).toBe(Math.floor((n1 - 1) / 16) * 16);
  });

  it("without --prefix-cache reports 0; a one-block cache keeps a prompt's first block", async () => {
    server = await startServer();
    await cachedTokens(server.url, first);
    expect((await cachedTokens(server.url, first)).cached).toBe(0);
    await server.close();
    server = await startServer({ prefixCacheTokens: 16 });
    await cachedTokens(server.url, first);
    // Capacity one block: of the prompt's blocks, the first (touched last) is the one kept.
    expect((await cachedTokens(server.url, first)).cached).toBe(16);
  });

  it("a run against it records the cached tokens per call", async () => {
    server = await startServer({ prefixCacheTokens: 1_000_000 });
    const data = mkdtempSync(join(tmpdir(), "s3pc-"));
    const code = await runCommand(
      [
        "--models",
        "openai:s3gym-heuristic",
        "--base-url",
        server.url,
        "--games",
        "trust",
        "--pathways",
        "history",
        "--data",
        data,
        "--explore-episodes",
        "2",
        "--checkpoint-every",
        "2",
        "--eval-episodes",
        "1",
        "--max-steps",
        "4",
        "--progress",
        "off",
        "--no-preflight",
      ],
      { env: { OPENAI_API_KEY: "EMPTY" }, stdout: { write: () => true }, stderr: { write: () => true } },
    );
    expect(code).toBe(0);
    const [run] = readdirSync(join(data, "runs"));
    const calls = readFileSync(join(data, "runs", run!, "calls.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(calls.length).toBe(16);
    // The first exploration call finds nothing; every later one shares at least the system prompt's blocks.
    const explore = calls.filter((c) => c.phase === "explore");
    expect(explore.filter((c) => c.tokens_cached === 0).map((c) => [c.episode, c.step])).toEqual([[1, 0]]);
    for (const c of calls) expect(c.tokens_cached).toBeLessThan(c.tokens_in);
  });

  it("serve: --cache-tokens needs --prefix-cache and at least one block", async () => {
    const run = async (argv: string[]) => {
      const out: string[] = [];
      const err: string[] = [];
      const code = await withExitCode("serve", () => serveCommand(argv, { out: (l) => out.push(l), err: (l) => err.push(l) }), lines(out, err));
      return { code, err };
    };
    expect(await run(["--cache-tokens", "1000"])).toEqual({ code: 2, err: [expect.stringMatching(/--cache-tokens .* add --prefix-cache/)] });
    expect(await run(["--prefix-cache", "--cache-tokens", "8"])).toEqual({ code: 2, err: [expect.stringMatching(/--cache-tokens must be an integer in 16\.\./)] });
    const ac = new AbortController();
    const out: string[] = [];
    const done = serveCommand(["--port", "0", "--prefix-cache", "--cache-tokens", "4096"], { out: (l) => out.push(l), err: (l) => out.push(l), signal: ac.signal });
    while (out.length === 0) await new Promise((r) => setTimeout(r, 10));
    expect(out[0]).toMatch(/prefix cache of 4096 tokens/);
    ac.abort();
    expect(await done).toBe(0);
  });
});
