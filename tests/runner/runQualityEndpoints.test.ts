/**
 * Issue 26 against fakes of the endpoint families (tests/helpers/fakeEndpoints.ts): a run that went
 * wrong never ends "complete" unflagged, and the report leaves it out of the paper tables unless
 * --include-flagged; the context is a hard bound checked from the server's side; DeepSeek's usage is
 * read; a spend cap stops the matrix and a rerun resumes it without losing or repeating a step.
 */
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { withExitCode } from "../../src/cli/main.js";
import { runCommand } from "../../src/cli/run/run.js";
import { clearSecrets } from "../../src/models/secrets.js";
import { buildMatrix } from "../../src/runner/loop/schedule.js";
import { runDir } from "../../src/logs/runDir.js";
import { loadDataset } from "../../src/analysis/load/dataset.js";
import { buildReport } from "../../src/report/buildReport.js";
import { FLAG_MARK } from "../../src/analysis/tables/runQuality.js";
import { startFake, type FakeEndpoint, type FakeOptions } from "../helpers/fakeEndpoints.js";
import { lines } from "./helpers.js";

const KEY = "sk-QUALITY-SENTINEL-0a1b2c3d";
let fake: FakeEndpoint | null = null;
afterEach(async () => {
  await fake?.close();
  fake = null;
  clearSecrets();
});

interface Played {
  code: number;
  out: string;
  err: string;
  data: string;
  dir: string;
  manifest: () => Record<string, unknown> & { quality?: Record<string, unknown>; status: string };
}

/** `s3gym run` of one model x game x pathway against the fake, into `data` (a new directory by default). */
async function play(o: FakeOptions, pathway: string, game: string, flags: string[], data = mkdtempSync(join(tmpdir(), "s3q-"))): Promise<Played> {
  fake ??= await startFake(o);
  const out: string[] = [];
  const err: string[] = [];
  const argv = ["--models", "openai:fake-model", "--base-url", fake.url, "--games", game, "--pathways", pathway, "--data", data, "--progress", "off", ...flags];
  const io = { stdout: { write: (t: string) => out.push(t) }, stderr: { write: (t: string) => err.push(t) } };
  const code = await withExitCode("run", () => runCommand(argv, { env: { OPENAI_API_KEY: KEY }, ...io, modelContext: { sleep: async () => {} } }), io);
  const dir = runDir(data, buildMatrix(["openai:fake-model"], [game], [pathway], 0)[0]!.runId);
  return { code, out: out.join(""), err: err.join(""), data, dir, manifest: () => JSON.parse(readFileSync(join(dir, "manifest.json"), "utf8")) };
}

const small = (explore: number, steps: number, extra: string[] = []) => [
  "--explore-episodes",
  String(explore),
  "--checkpoint-every",
  String(explore),
  "--eval-episodes",
  "1",
  "--max-steps",
  String(steps),
  ...extra,
];

describe("server-side truncation (Ollama's num_ctx)", () => {
  it("a server that cuts prompts to 6,000 tokens: the run stops named, flagged, and the report leaves it out", async () => {
    const r = await play({ family: "ollama", numCtx: 6000 }, "history", "snake", small(4, 40, ["--max-new-tokens", "256", "--context-tokens", "32000", "--no-preflight"]));
    const m = r.manifest();
    expect(r.code).toBe(1);
    expect(m.status).toBe("degenerate");
    expect(String(m.degenerate_reason)).toMatch(/^server_truncated: .*num_ctx/);
    expect(m.quality).toMatchObject({ flagged: true });
    expect(Number(m.quality!.server_truncated_calls)).toBeGreaterThan(3);
    // Every call the server cut is marked in calls.jsonl beside the kit's own count.
    const calls = lines<{ tokens_in: number; tokens_in_local?: number; server_truncated?: boolean }>(r.dir, "calls.jsonl");
    const cut = calls.filter((c) => c.server_truncated === true);
    expect(cut.length).toBe(m.quality!.server_truncated_calls);
    expect(cut.every((c) => c.tokens_in === 6000 && c.tokens_in_local! > 6256)).toBe(true);
    // The report: out of main_results by default, named in its note; back in, marked, with --include-flagged.
    const ds = await loadDataset(r.data);
    const report = buildReport(ds, { B: 50 });
    expect(report.tables.main_results.rows).toHaveLength(0);
    expect(report.tables.main_results.notes.join(" ")).toMatch(/Left out 1 flagged run .*server/);
    expect(report.tables.run_quality.rows[0]).toMatchObject({ status: "degenerate", flagged: FLAG_MARK });
    const marked = buildReport(ds, { B: 50, includeFlagged: true });
    expect(marked.tables.main_results.rows.length).toBeGreaterThan(0);
    expect(marked.tables.main_results.rows.every((row) => row.model.endsWith(FLAG_MARK))).toBe(true);
  });
});

describe("the preflight's window probe (a server that states no window)", () => {
  const bigChats = () => fake!.seen.filter((c) => c.maxNew === 1 && c.promptTokens > 5000);

  it("Ollama cutting prompts to 6,000 tokens: refused before anything runs, naming num_ctx and the fix", async () => {
    const r = await play({ family: "ollama", numCtx: 6000 }, "history", "snake", small(1, 3, ["--max-new-tokens", "256", "--context-tokens", "8000"]));
    expect(r.code).toBe(2);
    // The probe is the run's largest prompt: 8,000 - 256 = 7,744 tokens, within a few.
    const m = /the server cut the window probe: a prompt of (\d+) o200k tokens, the run's largest \(--context-tokens 8000 minus --max-new-tokens 256\) was counted as 6000 prompt tokens/.exec(r.err);
    expect(m, r.err).not.toBeNull();
    expect(Math.abs(Number(m![1]) - 7744)).toBeLessThanOrEqual(16);
    expect(r.err).toMatch(
      /likely Ollama's num_ctx: start the server with OLLAMA_CONTEXT_LENGTH=8000, or set PARAMETER num_ctx 8000 in a Modelfile\), or lower --context-tokens to about 6000; --no-probe-window skips this check/,
    );
    expect(r.err).toMatch(/preflight refused 1 problem; nothing was run/);
    expect(bigChats()).toHaveLength(1);
    // Only the two probes were sent: no step.
    expect(fake!.chats).toHaveLength(2);
  });

  it("a window that holds the prompt: one more call, said in the line; a rerun does not pay for it again; --no-probe-window skips it and says so", async () => {
    const r = await play({ family: "ollama", numCtx: 9000 }, "none", "snake", small(1, 2, ["--max-new-tokens", "256", "--context-tokens", "8000"]));
    expect(r.code, r.err).toBe(0);
    expect(r.err).toMatch(/window probe \(one more call\): \d+ tokens sent, \d+ counted by the server, not cut/);
    expect(bigChats()).toHaveLength(1);
    const again = await play({ family: "ollama" }, "none", "snake", small(1, 2, ["--max-new-tokens", "256", "--context-tokens", "8000"]), r.data);
    expect(again.err).toMatch(/window probe passed before at \d+ tokens/);
    expect(bigChats()).toHaveLength(1);
    const off = await play({ family: "ollama" }, "none", "snake", small(1, 2, ["--max-new-tokens", "256", "--context-tokens", "8000", "--no-probe-window"]));
    expect(off.err).toMatch(/context NOT checked: the server states no window and --no-probe-window skips the window probe/);
    expect(bigChats()).toHaveLength(1);
  });

  it("a server that reports no usage: the line says plainly that the window could not be checked", async () => {
    const r = await play({ family: "ollama" }, "none", "snake", small(1, 2, ["--max-new-tokens", "256", "--context-tokens", "8000"]));
    expect(r.code, r.err).toBe(0);
    expect(r.err).toMatch(/context NOT checked: the server states no window and the window probe \(one call\) could not tell: the server reports no usage/);
    expect(bigChats()).toHaveLength(1);
  });
});

describe("the context is a hard bound", () => {
  it("History with replies that grow long: no request's prompt + max new tokens exceeds --context-tokens, seen from the server", async () => {
    const filler = "The board shows the snake near the wall and I consider every option in turn. ".repeat(40);
    const r = await play(
      {
        family: "vllm",
        // The fake's /tokenize counts 1.25 server tokens per o200k token: 7,600 passes the preflight.
        maxModelLen: 7600,
        answer: (msgs) => {
          const last = String(msgs.at(-1)!.content);
          const dir = /UP|DOWN|LEFT|RIGHT/.exec(last.slice(last.lastIndexOf("<observation>")))?.[0] ?? "UP";
          return `${filler}\nAnswer: ${dir}\nScore: 0`;
        },
      },
      "history",
      "snake",
      small(2, 30, ["--max-new-tokens", "512", "--context-tokens", "6000"]),
    );
    expect(fake!.seen.length).toBeGreaterThan(20);
    const worst = Math.max(...fake!.seen.map((s) => s.promptTokens + s.maxNew));
    expect(worst).toBeLessThanOrEqual(6000);
    // The server never had to refuse a request (a 400 would have failed an episode).
    const episodes = lines<{ status: string; error: string | null }>(r.dir, "episodes.jsonl");
    expect(episodes.filter((e) => e.status !== "ok" && !String(e.error).startsWith("context_overflow"))).toEqual([]);
    // Some steps were sent without their episode's earliest turns, and say so.
    const steps = lines<{ turns_dropped?: number }>(r.dir, "steps.jsonl");
    expect(steps.some((s) => (s.turns_dropped ?? 0) > 0)).toBe(true);
  });

  it("a step that cannot fit even alone ends its episode with a named outcome, not a 400", async () => {
    const r = await play({ family: "vllm", maxModelLen: 100_000 }, "none", "snake", small(1, 5, ["--max-new-tokens", "256", "--context-tokens", "300", "--no-preflight"]));
    const episodes = lines<{ status: string; error: string | null }>(r.dir, "episodes.jsonl");
    expect(episodes.length).toBeGreaterThan(0);
    expect(episodes.every((e) => e.status === "failed" && /^context_overflow: step 0's prompt needs \d+ tokens/.test(String(e.error)))).toBe(true);
    expect(fake!.seen).toHaveLength(0);
    expect(r.manifest().quality).toMatchObject({ flagged: true });
  });
});

describe("usage and diagnoses through a run", () => {
  it("DeepSeek-shaped usage: the cached tokens recorded, the dollars within 1% of the truth", async () => {
    const dir = mkdtempSync(join(tmpdir(), "s3q-"));
    const file = join(dir, "models.yaml");
    fake = await startFake({ family: "vllm", deepseekHitShare: 0.9 });
    writeFileSync(file, `models:\n  - alias: ds\n    spec: openai:fake-model\n    base_url: ${fake.url}\n    price: { input: 0.56, cached_input: 0.07, output: 1.68 }\n`);
    const out: string[] = [];
    const code = await runCommand(
      [
        "--models-file",
        file,
        "--models",
        "ds",
        "--games",
        "snake",
        "--pathways",
        "none",
        "--data",
        dir,
        "--progress",
        "off",
        "--no-cache",
        ...small(1, 8, ["--max-new-tokens", "256", "--context-tokens", "16000"]),
      ],
      {
        env: { OPENAI_API_KEY: KEY },
        stdout: { write: (t: string) => out.push(t) },
        stderr: { write: (t: string) => out.push(t) },
        modelContext: { sleep: async () => {} },
      },
    );
    expect(code).toBe(0);
    const calls = lines<{ tokens_in: number; tokens_out: number; tokens_cached: number | null; cost_usd: number }>(runDir(dir, buildMatrix(["ds"], ["snake"], ["none"], 0)[0]!.runId), "calls.jsonl");
    expect(calls.length).toBeGreaterThan(0);
    let truth = 0;
    for (const c of calls) {
      expect(c.tokens_cached).toBe(Math.floor(c.tokens_in * 0.9));
      truth += ((c.tokens_in - c.tokens_cached!) * 0.56 + c.tokens_cached! * 0.07 + c.tokens_out * 1.68) / 1e6;
    }
    const spent = calls.reduce((n, c) => n + c.cost_usd, 0);
    expect(Math.abs(spent - truth) / truth).toBeLessThan(0.01);
  });

  it("a reasoning reply cut at the cap: degenerate, named as cut at max tokens, no reasoning-field hint", async () => {
    const r = await play(
      { family: "reasoning-only", finishReason: () => "length", answer: () => "Thinking about the board, the snake could go up or maybe" },
      "none",
      "tetris",
      small(1, 16, ["--max-new-tokens", "64"]),
    );
    expect(r.code).toBe(1);
    const why = String(r.manifest().degenerate_reason);
    expect(why).toMatch(/100% of replies cut at max tokens \(finish_reason length\): raise --max-new-tokens or lower the reasoning effort/);
    expect(why).not.toMatch(/answer may be in the reasoning field/);
    expect(r.manifest().quality).toMatchObject({ cut_at_cap_share: 1, flagged: true });
  });
});

describe("the spend cap", () => {
  it("--max-usd below the estimate stops at the cap, and a higher cap resumes to completion, no step lost or repeated", async () => {
    const data = mkdtempSync(join(tmpdir(), "s3q-"));
    const file = join(data, "models.yaml");
    fake = await startFake({ family: "vllm", fingerprint: () => "fp_fake_1" });
    writeFileSync(file, `models:\n  - alias: paid\n    spec: openai:fake-model\n    base_url: ${fake.url}\n    price: { input: 1000, output: 1000 }\n`);
    const go = async (cap: string, into: string) => {
      const out: string[] = [];
      const code = await runCommand(
        [
          "--models-file",
          file,
          "--models",
          "paid",
          "--games",
          "snake",
          "--pathways",
          "history",
          "--data",
          into,
          "--progress",
          "off",
          "--no-cache",
          ...small(3, 10, ["--max-new-tokens", "256", "--context-tokens", "16000", "--max-usd", cap]),
        ],
        {
          env: { OPENAI_API_KEY: KEY },
          stdout: { write: (t: string) => out.push(t) },
          stderr: { write: (t: string) => out.push(t) },
          modelContext: { sleep: async () => {} },
        },
      );
      return { code, out: out.join("") };
    };
    const dir = runDir(data, buildMatrix(["paid"], ["snake"], ["history"], 0)[0]!.runId);
    const first = await go("5", data);
    expect(first.code).toBe(1);
    expect(first.out).toMatch(/spend cap: spend cap reached: \$\d+\.\d+ spent of --max-usd \$5\.0000.*episodes? left to play; rerun the same command with a higher cap/);
    const m1 = JSON.parse(readFileSync(join(dir, "manifest.json"), "utf8")) as { status: string; usage: { spent_usd: number } };
    expect(m1.status).toBe("partial");
    // At most one episode's calls past the cap: the largest episode's spend bounds the overshoot.
    const calls1 = lines<{ episode: number | null; phase: string | null; checkpoint: number | null; cost_usd: number }>(dir, "calls.jsonl");
    const perEpisode = new Map<string, number>();
    for (const c of calls1) perEpisode.set(`${c.phase}|${c.checkpoint}|${c.episode}`, (perEpisode.get(`${c.phase}|${c.checkpoint}|${c.episode}`) ?? 0) + c.cost_usd);
    expect(m1.usage.spent_usd).toBeLessThanOrEqual(5 + Math.max(...perEpisode.values()));
    const second = await go("1000", data);
    expect(second.code).toBe(0);
    expect((JSON.parse(readFileSync(join(dir, "manifest.json"), "utf8")) as { status: string }).status).toBe("complete");
    // The same steps as one uncapped run: none lost, none repeated.
    const key = (s: { phase: string; checkpoint: number | null; episode: number; step: number }) => `${s.phase}|${s.checkpoint}|${s.episode}|${s.step}`;
    const resumed = lines<{ phase: string; checkpoint: number | null; episode: number; step: number }>(dir, "steps.jsonl").map(key);
    const other = mkdtempSync(join(tmpdir(), "s3q-"));
    await go("1000", other);
    const once = lines<{ phase: string; checkpoint: number | null; episode: number; step: number }>(runDir(other, buildMatrix(["paid"], ["snake"], ["history"], 0)[0]!.runId), "steps.jsonl").map(key);
    expect(new Set(resumed).size).toBe(resumed.length);
    expect([...resumed].sort()).toEqual([...once].sort());
    // The fingerprint is recorded beside the seed on every call.
    const fp = lines<{ seed?: number; system_fingerprint?: string }>(dir, "calls.jsonl");
    expect(fp.every((c) => c.system_fingerprint === "fp_fake_1" && typeof c.seed === "number")).toBe(true);
  });
});
