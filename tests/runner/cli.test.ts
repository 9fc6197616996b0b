/**
 * `s3gym run` as a user meets it: flags and fail-fast config errors, shards, and the protocol end to
 * end over HTTP against the OpenAI-compatible test server (all games x {history, memory}), with
 * faults, retries exhausted, and a sentinel API key that must never reach the disk or the output.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { withExitCode } from "../../src/cli/main.js";
import { runCommand } from "../../src/cli/run/run.js";
import { startServer, type RunningServer, type ServerOptions } from "../../src/builtin/server.js";
import { buildMatrix } from "../../src/runner/loop/schedule.js";
import { historyBlocksOf, implementedGames, lines, readCompleteRun, small } from "./helpers.js";

const SENTINEL = "SENTINEL-KEY-7f3a9c0e5d1b";
const games = implementedGames();
const servers: RunningServer[] = [];
afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
});

async function serve(o: ServerOptions = {}) {
  const bodies: { messages: { role: string; content: string }[] }[] = [];
  const s = await startServer({ ...o, onRequest: (b) => bodies.push(b as (typeof bodies)[number]) });
  servers.push(s);
  return { url: s.url, bodies };
}

/** Runs the command, capturing its output. */
async function run(argv: string[], env: Record<string, string | undefined> = {}, deps: Parameters<typeof runCommand>[1] = {}) {
  const out: string[] = [];
  const err: string[] = [];
  const io = { stdout: { write: (t: string) => out.push(t) }, stderr: { write: (t: string) => err.push(t) } };
  // Through main.ts's mapping: --help and a bad flag print and exit as they do for the user.
  const code = await withExitCode("run", () => runCommand(argv, { env: { OPENAI_API_KEY: SENTINEL, ...env }, ...io, ...deps }), io);
  return { code, out: out.join(""), err: err.join("") };
}

/** Every file under `dir`, as text (binary-safe enough for a substring search). */
function allText(dir: string): string {
  if (!existsSync(dir)) return "";
  return readdirSync(dir, { recursive: true, encoding: "utf8" })
    .map((f) => join(dir, f))
    .filter((p) => statSync(p).isFile())
    .map((p) => readFileSync(p, "latin1"))
    .join("\n");
}

const collected: string[] = []; // every output and data dir text of the HTTP tests, for the secrets check
const dataDirs: string[] = [];
function tmp(prefix: string) {
  const d = mkdtempSync(join(tmpdir(), prefix));
  dataDirs.push(d);
  return d;
}

describe("flags and configuration errors (exit 2, before any call)", () => {
  const base = (data: string) => ["--models", "builtin:random", "--games", games[0]!, "--pathways", "none", "--data", data];
  it.each([
    [["--max-steps", "abc"], /--max-steps must be an integer in 1\.\.100000/],
    [["--checkpoint-every", "0"], /--checkpoint-every must be at least 1/],
    [["--pathways", "none,dreams"], /unknown --pathways 'dreams'/],
    [["--pathways", "training"], /--pathways training needs --checkpoints/],
    [["--games", "go"], /--games: unknown game 'go'/],
    [["--models", "anthropic:claude"], /unknown scheme 'anthropic'/],
    [["--context-tokens", "1000", "--max-new-tokens", "1000"], /--context-tokens \(1000\) must exceed --max-new-tokens/],
    [["--shard", "3/2"], /--shard 3\/2/],
    [["--shard", "auto"], /--shard auto: no scheduler task index in the environment: expected SLURM_ARRAY_TASK_ID/],
    [["--shard", "1/2", "--shard-count", "2"], /--shard-count is only used with --shard auto/],
    [["--no-shard-subdir"], /--no-shard-subdir is only used with --shard/],
    [["--reward-visibility", "shown"], /unknown --reward-visibility 'shown'/],
    [["--api-key-env", "sk-abc123"], /--api-key-env must be the NAME/],
    [["--bogus"], /Unknown option '--bogus'/],
  ])("%j", async (extra, message) => {
    const data = mkdtempSync(join(tmpdir(), "s3cli-"));
    const argv = [...base(data)];
    // A later flag overrides an earlier one in parseArgs; --bogus is just appended.
    const r = await run([...argv, ...extra]);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(message);
    expect(existsSync(join(data, "runs"))).toBe(false);
  });
  it("an openai model without its key names the variable, and nothing runs", async () => {
    const data = mkdtempSync(join(tmpdir(), "s3cli-"));
    const r = await run(["--models", "openai:gpt-4o-mini", "--games", games[0]!, "--pathways", "none", "--data", data, "--api-key-env", "MY_KEY_VAR"], { OPENAI_API_KEY: undefined });
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/MY_KEY_VAR/);
    expect(existsSync(join(data, "runs"))).toBe(false);
  });
  it("--help prints the usage and exits 0", async () => {
    const r = await run(["--help"]);
    expect(r.code).toBe(0);
    expect(r.out).toContain("s3gym run --models");
  });
  it("--shard i/n splits the matrix into disjoint parts that cover it", async () => {
    const flags = ["--models", "builtin:random,builtin:heuristic", "--games", games.slice(0, 2).join(","), "--pathways", "none,history"];
    const tiny = ["--explore-episodes", "1", "--checkpoint-every", "1", "--eval-episodes", "1", "--max-steps", "2", "--progress", "off"];
    const parts = [];
    for (const i of [1, 2, 3]) {
      const data = mkdtempSync(join(tmpdir(), "s3shard-"));
      expect((await run([...flags, ...tiny, "--data", data, "--shard", `${i}/3`])).code).toBe(0);
      // Each shard in its own directory under --data (locks are machine-local), with the whole plan.
      parts.push(readdirSync(join(data, `shard-${i}-of-3`, "runs")));
      expect(existsSync(join(data, "runs"))).toBe(false);
      expect(JSON.parse(readFileSync(join(data, `shard-${i}-of-3`, "plan.json"), "utf8")).runs).toHaveLength(8);
    }
    const all = parts.flat();
    expect(new Set(all).size).toBe(all.length);
    expect(all.sort()).toEqual(
      buildMatrix(["builtin:random", "builtin:heuristic"], games.slice(0, 2), ["none", "history"], 0)
        .map((e) => e.runId)
        .sort(),
    );
  });
});

describe("over HTTP against the test server", () => {
  const schedule = ["--explore-episodes", "4", "--checkpoint-every", "2", "--eval-episodes", "2", "--max-steps", "8"];
  const settings = small({ exploreEpisodes: 4, checkpointEvery: 2, evalEpisodes: 2, maxSteps: 8 });

  it(`all ${games.length} games x {history, memory}: complete logs, paired seeds, no reward in any prompt, earliest tails cut first`, async () => {
    const server = await serve({ latencyMs: 2 });
    const data = tmp("s3http-");
    const r = await run([
      "--models",
      "openai:s3gym-heuristic",
      "--games",
      games.join(","),
      "--pathways",
      "history,memory",
      "--data",
      data,
      ...schedule,
      "--context-tokens",
      "6000",
      "--max-new-tokens",
      "400",
      "--base-url",
      server.url,
      "--progress",
      "lines",
      "--concurrency",
      "8",
    ]);
    collected.push(r.out, r.err);
    expect(r.err).not.toMatch(/error/i);
    expect(r.code).toBe(0);
    const entries = buildMatrix(["openai:s3gym-heuristic"], games, ["history", "memory"], 0);
    expect(r.out.trim().split("\n")).toHaveLength(entries.length + 1);
    const seeds = new Map<string, string>();
    const feedbacks = new Set<string>(["(none)"]);
    for (const e of entries) {
      const rec = await readCompleteRun(join(data, "runs", e.runId), settings);
      expect(rec.manifest!.endpoint_host).toMatch(/^127\.0\.0\.1:\d+$/);
      const s = JSON.stringify([rec.manifest!.explore_seeds, rec.manifest!.eval_seeds]);
      if (seeds.has(e.game)) expect(s).toBe(seeds.get(e.game));
      seeds.set(e.game, s);
      for (const st of rec.steps) feedbacks.add(st.feedback || "(none)");
      if (e.pathway === "memory") expect(rec.memory.filter((m) => m.parsed)).toHaveLength(5);
    }
    // What the server received: the exact feedback the game showed, never a reward or a score.
    const steps = server.bodies.filter((b) => b.messages[0]!.content.startsWith("# S3Gym game:"));
    expect(steps.length).toBeGreaterThan(100);
    let truncated = 0;
    for (const b of steps) {
      const text = b.messages.map((m) => m.content).join("\n");
      expect(text).not.toContain("verifier reward");
      for (const m of text.matchAll(/<feedback>([\s\S]*?)<\/feedback>/g)) expect(feedbacks.has(m[1]!)).toBe(true);
      const blocks = historyBlocksOf(b.messages);
      const numbers = blocks.map(([n]) => n);
      for (let i = 1; i < numbers.length; i++) expect(numbers[i]).toBe(numbers[i - 1]! + 1);
      expect(blocks.slice(1).every(([, complete]) => complete)).toBe(true);
      if ((numbers[0] ?? 1) > 1 || (blocks[0] && !blocks[0][1])) truncated++;
    }
    expect(truncated).toBeGreaterThan(0);
  }, 240_000);

  it("30% mixed faults: the run completes and no fault is recorded as a model answer", async () => {
    // The timeout fault holds its answer far past --timeout-ms, and --timeout-ms leaves an ordinary call
    // room on a loaded 2-core machine: with 300 ms, ordinary calls timed out 11 times in a row under load.
    const server = await serve({ faultRate: 0.3, seed: 7, retryAfterS: 0, timeoutHoldMs: 6000 });
    const data = tmp("s3faults-");
    const g = games.filter((x) => ["snake", "trust"].includes(x));
    const r = await run(
      [
        "--models",
        "openai:s3gym-heuristic",
        "--games",
        g.join(","),
        "--pathways",
        "history,memory",
        "--data",
        data,
        ...schedule,
        "--base-url",
        server.url,
        "--max-retries",
        "10",
        "--timeout-ms",
        "2000",
        "--progress",
        "off",
      ],
      {},
      { modelContext: { sleep: () => Promise.resolve() } },
    );
    collected.push(r.out, r.err);
    expect(r.code).toBe(0);
    let retries = 0;
    let empty = 0;
    for (const e of buildMatrix(["openai:s3gym-heuristic"], g, ["history", "memory"], 0)) {
      const rec = await readCompleteRun(join(data, "runs", e.runId), settings);
      retries += rec.calls.reduce((n, c) => n + c.retries, 0);
      for (const s of rec.steps) {
        // A step's response is the policy's answer, or "" for the `empty` fault (a model answer by design).
        if (s.response === "") {
          empty++;
          expect(s.parse_error).toBe("empty response");
        } else expect(s.response).toMatch(/^\(heuristic policy\)\nAnswer: .+\nScore: .+$/);
      }
    }
    expect(retries).toBeGreaterThan(10);
    expect(empty).toBeGreaterThan(0);
  }, 240_000);

  it("retries exhausted: that checkpoint is failed with its reason, the others intact; a rerun completes it", async () => {
    let failing = true;
    const server = await serve({ faultFor: (n) => (failing && n >= 40 && n < 52 ? "500" : null) });
    const data = tmp("s3exhaust-");
    const g = games.includes("snake") ? "snake" : games[0]!;
    const argv = [
      "--models",
      "openai:s3gym-heuristic",
      "--games",
      g,
      "--pathways",
      "history",
      "--data",
      data,
      ...schedule,
      "--base-url",
      server.url,
      "--max-retries",
      "1",
      "--progress",
      "off",
      "--concurrency",
      "1",
    ];
    const first = await run(argv, {}, { modelContext: { sleep: () => Promise.resolve() } });
    collected.push(first.out, first.err);
    expect(first.code).toBe(1);
    const dir = join(data, "runs", buildMatrix(["openai:s3gym-heuristic"], [g], ["history"], 0)[0]!.runId);
    const cps = lines<{ checkpoint: number; status: string; reason: string | null; scores: number[] }>(dir, "checkpoints.jsonl");
    expect(cps).toHaveLength(3);
    const failed = cps.filter((c) => c.status === "failed");
    expect(failed.length).toBeGreaterThan(0);
    for (const c of failed) expect(c.reason).toMatch(/http_5xx after 1 retries/);
    for (const c of cps.filter((x) => x.status === "ok")) expect(c.scores).toHaveLength(2);
    expect(first.out).toMatch(/\tfailed\t/);
    failing = false;
    const second = await run(argv);
    collected.push(second.out, second.err);
    expect(second.code).toBe(0);
    await readCompleteRun(dir, settings, { resumed: true });
  }, 120_000);

  it("the response cache replays a run exactly, marked cached everywhere; --no-cache bypasses it", async () => {
    const server = await serve();
    const data = tmp("s3cache-");
    const g = games.includes("snake") ? "snake" : games[0]!;
    const argv = [
      "--models",
      "openai:s3gym-heuristic",
      "--games",
      g,
      "--pathways",
      "memory",
      "--data",
      data,
      "--explore-episodes",
      "2",
      "--checkpoint-every",
      "2",
      "--eval-episodes",
      "1",
      "--max-steps",
      "3",
      "--base-url",
      server.url,
      "--progress",
      "off",
    ];
    const dir = join(data, "runs", buildMatrix(["openai:s3gym-heuristic"], [g], ["memory"], 0)[0]!.runId);
    const read = (f: string) => lines<Record<string, unknown>>(dir, f);
    const strip = (r: Record<string, unknown>) => {
      const { latency_ms: _l, cached: _c, ...rest } = r;
      return JSON.stringify(rest);
    };
    const first = await run(argv);
    collected.push(first.out, first.err);
    expect(first.code).toBe(0);
    const calls = server.bodies.length;
    const [steps, memory] = [read("steps.jsonl"), read("memory.jsonl")];
    expect(steps.every((s) => s.cached === false)).toBe(true);
    rmSync(join(data, "runs"), { recursive: true });
    const second = await run(argv);
    expect(second.code).toBe(0);
    expect(server.bodies.length).toBe(calls); // every answer replayed: no request reached the server
    expect(read("steps.jsonl").map(strip).sort()).toEqual(steps.map(strip).sort());
    expect(read("steps.jsonl").every((s) => s.cached === true && s.latency_ms === 0)).toBe(true);
    expect(read("calls.jsonl").every((c) => c.cached === true && c.error === null)).toBe(true);
    expect(read("memory.jsonl").map(strip)).toEqual(memory.map(strip));
    expect(
      read("memory.jsonl")
        .slice(1)
        .every((m) => m.cached === true && m.latency_ms === 0),
    ).toBe(true);
    rmSync(join(data, "runs"), { recursive: true });
    expect((await run([...argv, "--no-cache"])).code).toBe(0);
    expect(server.bodies.length).toBe(2 * calls);
    expect(read("calls.jsonl").every((c) => c.cached === false)).toBe(true);
  });

  it("an unreachable endpoint fails the run's checkpoints with transport errors (exit 1)", async () => {
    const data = tmp("s3down-");
    const r = await run([
      "--models",
      "openai:s3gym-heuristic",
      "--games",
      games[0]!,
      "--pathways",
      "none",
      "--data",
      data,
      "--explore-episodes",
      "0",
      "--eval-episodes",
      "1",
      "--base-url",
      "http://127.0.0.1:9/v1",
      "--max-retries",
      "0",
      "--progress",
      "off",
      // The preflight would refuse this endpoint before any run (endpoints.test.ts); this test is
      // about an endpoint failing while a run plays.
      "--no-preflight",
    ]);
    collected.push(r.out, r.err);
    expect(r.code).toBe(1);
    expect(r.out).toMatch(/transport/);
  });

  it("secrets: the sentinel API key appears nowhere under the data directories or in any output", () => {
    expect(dataDirs.length).toBeGreaterThan(2);
    for (const d of dataDirs) expect(allText(d)).not.toContain(SENTINEL);
    for (const t of collected) expect(t).not.toContain(SENTINEL);
    // The key did reach the server as the Authorization header, so the check is not vacuous.
    expect(collected.join("").length).toBeGreaterThan(0);
  });
});
