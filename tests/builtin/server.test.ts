import fc from "fast-check";
import { afterEach, describe, expect, it } from "vitest";
import { parseResponse } from "../../src/agent/parseResponse.js";
import { buildStepMessages, type EarlierTurn } from "../../src/agent/stepPrompt.js";
import { renderTrajectory, type Trajectory } from "../../src/agent/trajectoryText.js";
import { serveCommand } from "../../src/cli/serve/serve.js";
import { withExitCode } from "../../src/cli/main.js";

/** main.ts's mapping of a thrown --help or bad flag, its lines (newline dropped) into `out` and `err`. */
const lines = (out: string[], err: string[]) => ({ stdout: { write: (t: string) => out.push(t.replace(/\n$/, "")) }, stderr: { write: (t: string) => err.push(t.replace(/\n$/, "")) } });
import { GAMES } from "../../src/games/registry.js";
import { forEachCountingSegment, startServer, UsageCounter, type RunningServer, type ServerOptions } from "../../src/builtin/server.js";
import { countMessageTokens, countTokens } from "../../src/models/tokens.js";
import { SENTINEL_KEY, summaryMessages } from "../models/helpers.js";

let server: RunningServer | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
});

async function serve(o: ServerOptions = {}): Promise<string> {
  server = await startServer(o);
  return server.url;
}

async function chat(url: string, body: unknown): Promise<{ status: number; text: string; headers: Headers }> {
  const r = await fetch(`${url}/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${SENTINEL_KEY}` },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  return { status: r.status, text: await r.text(), headers: r.headers };
}

describe("startServer", () => {
  it("binds 127.0.0.1 on an ephemeral port and lists its models", async () => {
    const url = await serve();
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
    expect(server!.port).toBeGreaterThan(0);
    const r = await fetch(`${url}/models`);
    const body = (await r.json()) as { object: string; data: { id: string }[] };
    expect(body.object).toBe("list");
    expect(body.data.map((m) => m.id)).toEqual(["s3gym-random", "s3gym-heuristic", "learner"]);
  });
  it("answers a game's step prompt with its text policy, in the response contract", async () => {
    const url = await serve();
    // Games land one by one; every implemented one must be playable over HTTP.
    const playable = Object.values(GAMES).filter((g) => {
      try {
        g.rules("explore");
        return true;
      } catch {
        return false;
      }
    });
    expect(playable.length).toBeGreaterThan(0);
    for (const game of playable) {
      const state = game.reset(1, "explore");
      const messages = buildStepMessages({ rules: game.rules("explore"), experience: "", turns: [], observation: game.observe(state), rewardVisibility: "hidden" });
      for (const model of ["s3gym-heuristic", "s3gym-random"]) {
        const r = await chat(url, { model, messages });
        expect(r.status, `${game.name}: ${r.text}`).toBe(200);
        const content = (JSON.parse(r.text) as { choices: { message: { content: string } }[] }).choices[0]!.message.content;
        const parsed = parseResponse(content);
        expect(parsed.action, `${game.name} ${model}: ${content}`).not.toBeNull();
        expect(game.legalActions(state).length === 0 || parsed.action !== null).toBe(true);
      }
    }
  });
  it("answers summary prompts; anything else is a 400 with an OpenAI-style error body", async () => {
    const url = await serve();
    const ok = await chat(url, { model: "x", messages: summaryMessages() });
    expect(ok.status).toBe(200);
    const bad = await chat(url, { model: "x", messages: [{ role: "user", content: "hi" }] });
    expect(bad.status).toBe(400);
    expect(JSON.parse(bad.text)).toMatchObject({ error: { type: "invalid_request_error", message: expect.stringContaining("S3Gym") } });
    expect((await chat(url, "{not json")).status).toBe(400);
    expect((await chat(url, { messages: [{ role: "robot", content: "x" }] })).status).toBe(400);
    expect((await fetch(`${url}/embeddings`, { method: "POST" })).status).toBe(404);
  });
  it("draws faults deterministically from (seed, request counter)", async () => {
    const kinds = async (seed: number): Promise<string[]> => {
      const url = await serve({ faultRate: 0.5, faults: ["429", "500", "garbage", "empty"], seed, retryAfterS: 2 });
      const out: string[] = [];
      for (let i = 0; i < 24; i++) {
        const r = await chat(url, { model: "x", messages: summaryMessages() });
        if (r.status === 429) expect(r.headers.get("retry-after")).toBe("2");
        let content: string | null = null;
        try {
          content = (JSON.parse(r.text) as { choices?: { message: { content: string } }[] }).choices?.[0]?.message.content ?? null;
        } catch {
          content = "GARBAGE";
        }
        out.push(`${r.status}:${content === "" ? "EMPTY" : content === "GARBAGE" ? "GARBAGE" : "ok"}`);
      }
      await server!.close();
      server = null;
      return out;
    };
    const a = await kinds(3);
    expect(await kinds(3)).toEqual(a);
    expect(await kinds(4)).not.toEqual(a);
    for (const k of ["429:ok", "500:ok", "200:GARBAGE", "200:EMPTY", "200:ok"])
      expect(
        a.some((x) => x === k),
        k,
      ).toBe(true);
  });
  it("never faults at rate 0, and its log never carries the Authorization header", async () => {
    const lines: string[] = [];
    const url = await serve({ faultRate: 0, log: (l) => lines.push(l) });
    for (let i = 0; i < 10; i++) expect((await chat(url, { messages: summaryMessages() })).status).toBe(200);
    expect(lines).toHaveLength(10);
    expect(lines.join("\n")).not.toContain("SENTINEL");
  });
  it("a timeout fault holds the connection until the client gives up, and close() does not hang on it", async () => {
    const url = await serve({ faultFor: () => "timeout" });
    const ac = new AbortController();
    const pending = fetch(`${url}/chat/completions`, { method: "POST", body: JSON.stringify({ messages: summaryMessages() }), signal: ac.signal }).catch((e: Error) => e.name);
    setTimeout(() => ac.abort(), 200);
    expect(await pending).toBe("AbortError");
    const again = fetch(`${url}/chat/completions`, { method: "POST", body: JSON.stringify({ messages: summaryMessages() }) }).catch(() => "dropped");
    await new Promise((r) => setTimeout(r, 50));
    await server!.close();
    server = null;
    expect(await again).toBe("dropped");
  });
});

/** A History-style step prompt for `game`: `blocks` explored episodes (block 1 keeps `keepFirst` steps) and `turns` earlier turns. */
function historyPrompt(gameName: string, o: { blocks: number; keepFirst: number; turns: number }) {
  const game = GAMES[gameName as keyof typeof GAMES]!;
  const trajectories: Trajectory[] = Array.from({ length: o.blocks }, (_, b) => ({
    episode: b + 1,
    steps: Array.from({ length: 12 }, (_, i) => ({
      observation: game.observe(game.reset(100 * b + i, "explore")),
      action: i % 3 === 0 ? null : `MOVE ${i}`,
      selfScore: i % 4 === 0 ? null : (i % 7) - 2,
      feedback: i % 2 ? "" : `feedback ${i} / ok`,
    })),
    endObservation: game.observe(game.reset(100 * b + 99, "explore")),
  }));
  const experience = trajectories
    .map((t, b) => renderTrajectory(t, b === 0 ? o.keepFirst : t.steps.length))
    .filter((t) => t)
    .join("\n\n");
  const turns: EarlierTurn[] = Array.from({ length: o.turns }, (_, i) => ({ observation: game.observe(game.reset(7000 + i, "explore")), response: `Answer: x ${i}`, feedback: i ? "ok" : "" }));
  return buildStepMessages({ rules: game.rules("explore"), experience, turns, observation: game.observe(game.reset(9999, "explore")), rewardVisibility: "hidden" });
}

describe("usage counting", () => {
  type Usage = { prompt_tokens: number; completion_tokens: number; total_tokens: number };
  const answer = (text: string) => JSON.parse(text) as { choices: { message: { content: string } }[]; usage: Usage };

  it("reports exactly the tokenizer's counts, and repeated prompt text reaches the tokenizer once", async () => {
    let calls = 0;
    let chars = 0;
    const url = await serve({ countTokens: (t) => (calls++, (chars += t.length), countTokens(t)) });
    const total = (ms: { content: string }[]) => ms.reduce((n, m) => n + m.content.length, 0);
    for (const gameName of ["snake", "chess", "tetris"]) {
      const first = historyPrompt(gameName, { blocks: 4, keepFirst: 12, turns: 2 });
      calls = 0;
      const a = answer((await chat(url, { model: "s3gym-heuristic", messages: first })).text);
      expect(a.usage.prompt_tokens).toBe(countMessageTokens(first));
      expect(a.usage.completion_tokens).toBe(countTokens(a.choices[0]!.message.content));
      expect(a.usage.total_tokens).toBe(a.usage.prompt_tokens + a.usage.completion_tokens);
      expect(calls).toBeGreaterThan(0);

      // The same request again: every count comes from the cache.
      calls = 0;
      const again = answer((await chat(url, { model: "s3gym-heuristic", messages: first })).text);
      expect(again.usage).toEqual(a.usage);
      expect(calls).toBe(0);

      // The next step: the oldest block loses steps (the experience text changes) and the episode
      // grows by a turn. Still exact, and only the new lines reach the tokenizer: the omission
      // marker, the turns from the one that changed on, the answer.
      const next = historyPrompt(gameName, { blocks: 4, keepFirst: 9, turns: 3 });
      chars = 0;
      const b = answer((await chat(url, { model: "s3gym-heuristic", messages: next })).text);
      expect(b.usage.prompt_tokens).toBe(countMessageTokens(next));
      expect(b.usage.completion_tokens).toBe(countTokens(b.choices[0]!.message.content));
      expect(chars).toBeLessThanOrEqual(total(next.slice(first.length - 1)) + 200);
      expect(chars).toBeLessThan(total(next) / 10);
    }
  });

  it("usageCacheEntries 0 counts every prompt in full, with the same figures", async () => {
    let calls = 0;
    const url = await serve({ countTokens: (t) => (calls++, countTokens(t)), usageCacheEntries: 0 });
    const messages = historyPrompt("snake", { blocks: 3, keepFirst: 5, turns: 1 });
    for (let i = 0; i < 2; i++) {
      calls = 0;
      const a = answer((await chat(url, { model: "s3gym-heuristic", messages })).text);
      expect(a.usage.prompt_tokens).toBe(countMessageTokens(messages));
      expect(calls).toBe(messages.length + 1); // each message, then the answer
    }
  });

  it("segments add up to the whole text's count, for any text (property)", () => {
    const piece = fc.constantFrom(
      "\n",
      "\n\n",
      "\r\n",
      " ",
      "  ",
      "\t",
      "/",
      "//",
      "-",
      "--- Step",
      "=",
      "a",
      "B",
      "word",
      " the",
      "'s",
      "1",
      "123456",
      "é",
      "ß",
      "日本",
      "🙂",
      "}",
      ".",
      "x/y",
      "\u00a0",
      "\u2028",
      "<|",
      "[...",
      ":",
      "#",
      "\u0301",
    );
    const counter = new UsageCounter((t) => countTokens(t), 16); // tiny LRU: evictions on every run
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 400 }), (parts) => {
        const text = parts.join("");
        const segments: string[] = [];
        forEachCountingSegment(text, (s) => segments.push(s));
        expect(segments.join("")).toBe(text);
        const want = countTokens(text);
        expect(segments.reduce((n, s) => n + countTokens(s), 0)).toBe(want);
        expect(counter.text(text)).toBe(want);
        expect(counter.text(text.repeat(40))).toBe(countTokens(text.repeat(40)));
      }),
      { numRuns: 1000 },
    );
    expect(counter.size).toBeLessThanOrEqual(16);
  });

  it("every game's real History prompts count exactly", () => {
    const counter = new UsageCounter();
    for (const gameName of Object.keys(GAMES)) {
      for (const keepFirst of [12, 7, 0]) {
        const messages = historyPrompt(gameName, { blocks: 3, keepFirst, turns: 4 });
        expect(counter.messages(messages), gameName).toBe(countMessageTokens(messages));
      }
    }
  });
});

describe("serveCommand", () => {
  const run = async (argv: string[], signal?: AbortSignal) => {
    const out: string[] = [];
    const err: string[] = [];
    const code = await withExitCode("serve", () => serveCommand(argv, { out: (l) => out.push(l), err: (l) => err.push(l), ...(signal ? { signal } : {}) }), lines(out, err));
    return { code, out, err };
  };
  it.each([
    [["--fault-rate", "1.5"], /--fault-rate must be a number in \[0, 1\], got '1.5'/],
    [["--faults", "429,teapot"], /--faults must be a comma list of 429, 500, timeout, garbage, empty/],
    [["--policy", "oracle"], /--policy must be one of random, heuristic/],
    [["--port", "http"], /--port must be an integer in 0\.\.65535/],
    [["--latency-ms=-5"], /--latency-ms must be an integer/],
    [["--latency-ms", "-5"], /--latency-ms/],
    [["--seed", "1.5"], /--seed must be an integer/],
    [["--bogus"], /Unknown option '--bogus'.*usage: s3gym serve/],
  ])("%j -> exit 2 with one line naming the flag", async (argv, pattern) => {
    const r = await run(argv);
    expect(r.code).toBe(2);
    expect(r.err).toHaveLength(1);
    expect(r.err[0]).toMatch(pattern);
    expect(r.out).toEqual([]);
  });
  it("--help prints the usage and exits 0", async () => {
    const r = await run(["--help"]);
    expect(r.code).toBe(0);
    expect(r.out[0]).toMatch(/^usage: s3gym serve/);
  });
  it("prints the URL, serves until stopped, then exits 0", async () => {
    const ac = new AbortController();
    const out: string[] = [];
    const done = serveCommand(["--port", "0", "--policy", "random", "--latency-ms", "1", "--fault-rate", "0.1", "--faults", "500,empty", "--seed", "9"], {
      out: (l) => out.push(l),
      err: (l) => out.push(l),
      signal: ac.signal,
    });
    while (out.length === 0) await new Promise((r) => setTimeout(r, 10));
    const url = /listening on (\S+)/.exec(out[0]!)?.[1];
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
    expect(out[0]).toMatch(/policy random.*faults 500,empty at rate 0\.1 \(seed 9\)/);
    expect((await fetch(`${url}/models`)).status).toBe(200);
    ac.abort();
    expect(await done).toBe(0);
    expect(out.at(-1)).toMatch(/stopped/);
  });
});
