/**
 * `s3gym run --estimate` (endpoints issue item 5), on a schedule small enough to count by hand:
 * 3 exploration episodes, a checkpoint every 3 (checkpoints 0 and 3), 1 evaluation episode, 4 steps
 * (trust's episodes always last that long). Calls = (3 + 2 x 1) episodes x 4 steps = 20, plus one
 * summary per exploration episode for Memory (23). Prompt tokens are checked against the same
 * matrix played with a recording model and counted independently; dollars by hand from the prices.
 */
import { existsSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { startServer, type RunningServer } from "../../src/builtin/server.js";
import { withExitCode } from "../../src/cli/main.js";
import { runCommand } from "../../src/cli/run/run.js";
import { ObservedModel } from "../../src/models/callLog.js";
import { countMessageTokens } from "../../src/models/tokens.js";
import { getGame } from "../../src/games/registry.js";
import { estimateMatrix } from "../../src/runner/monitor/estimate.js";
import { runMatrix } from "../../src/runner/loop/runLoop.js";
import { buildMatrix } from "../../src/runner/loop/schedule.js";
import { builtin, RecordingModel, small } from "./helpers.js";

const settings = small({ exploreEpisodes: 3, checkpointEvery: 3, evalEpisodes: 1, maxSteps: 4 });
const servers: RunningServer[] = [];
afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
});

describe("estimateMatrix", () => {
  it("counts calls by the schedule and every prompt with the run's tokenizer", async () => {
    for (const tokenizer of ["o200k", "cl100k"] as const) {
      const s = { ...settings, tokenizer };
      const entries = buildMatrix(["some-model"], ["trust"], ["none", "memory"], 0);
      const rows = await estimateMatrix({ entries, settingsOf: () => s, game: getGame, priceOf: () => null });
      const byPathway = new Map(rows.map((r) => [r.pathway, r]));
      expect(byPathway.get("none")!.calls).toBe(20);
      expect(byPathway.get("memory")!.calls).toBe(23);
      expect(byPathway.get("memory")!.summaryCalls).toBe(3);
      // Reply caps: every call is sent max_tokens = maxNewTokens.
      expect(byPathway.get("none")!.outputCapTokens).toBe(20 * s.maxNewTokens);

      // The same matrix played by the heuristic behind a recorder, its prompts counted here.
      const recorders = new Map<string, RecordingModel>();
      const data = mkdtempSync(join(tmpdir(), "s3est-ref-"));
      await runMatrix({
        dataDir: data,
        entries: buildMatrix(["builtin:heuristic"], ["trust"], ["none", "memory"], 0),
        settings: s,
        game: getGame,
        createModel: (name, onCall) => {
          const r = new RecordingModel(builtin(name));
          recorders.set(name, r);
          return new ObservedModel(r, onCall, null);
        },
      });
      const requests = [...recorders.values()].flatMap((r) => r.requests);
      for (const pathway of ["none", "memory"]) {
        const mine = requests.filter((q) => q.identity.runId.includes(`__${pathway}__`));
        expect(mine.length).toBe(byPathway.get(pathway)!.calls);
        const tokens = mine.reduce((n, q) => n + countMessageTokens(q.messages, tokenizer), 0);
        expect(byPathway.get(pathway)!.inputTokens, `${pathway} ${tokenizer}`).toBe(tokens);
      }
      for (const r of rows) {
        expect(r.cachedTokens).toBeGreaterThan(0);
        expect(r.cachedTokens).toBeLessThanOrEqual(r.reusableTokens);
        expect(r.reusableTokens).toBeLessThan(r.inputTokens);
        expect(r.incomplete).toBeNull();
      }
    }
  });

  it("prices input at list and cached prices and output at its cap", async () => {
    const entries = buildMatrix(["priced", "unpriced"], ["trust"], ["none"], 0);
    const price = { input: 2, cached_input: 0.5, output: 8 };
    const rows = await estimateMatrix({ entries, settingsOf: () => settings, game: getGame, priceOf: (m) => (m === "priced" ? price : null) });
    const [priced, unpriced] = [rows.find((r) => r.model === "priced")!, rows.find((r) => r.model === "unpriced")!];
    // Same prompts for both models (one play), priced or not.
    expect(unpriced.inputTokens).toBe(priced.inputTokens);
    expect(unpriced.inputListUsd).toBeNull();
    expect(priced.inputListUsd).toBeCloseTo((priced.inputTokens * 2) / 1e6, 12);
    expect(priced.inputCachedUsd).toBeCloseTo(((priced.inputTokens - priced.cachedTokens) * 2 + priced.cachedTokens * 0.5) / 1e6, 12);
    // 20 calls x 14,000 tokens x $8 per million = $2.24.
    expect(priced.outputCapUsd).toBeCloseTo(2.24, 12);
  });
});

describe("s3gym run --estimate", () => {
  it("calls no endpoint, needs no key, writes nothing to --data, and says it is an estimate", async () => {
    let requests = 0;
    const server = await startServer({ onRequest: () => requests++ });
    servers.push(server);
    const dir = mkdtempSync(join(tmpdir(), "s3est-"));
    const modelsFile = join(dir, "models.json");
    writeFileSync(modelsFile, JSON.stringify({ models: [{ alias: "m", spec: "openai:s3gym-heuristic", base_url: server.url, price: { input: 1, output: 4 } }] }));
    const data = join(dir, "data");
    const out: string[] = [];
    const err: string[] = [];
    const code = await runCommand(
      [
        "--models",
        "m",
        "--models-file",
        modelsFile,
        "--games",
        "trust",
        "--pathways",
        "history,memory",
        "--data",
        data,
        "--explore-episodes",
        "3",
        "--checkpoint-every",
        "3",
        "--eval-episodes",
        "1",
        "--max-steps",
        "4",
        "--estimate",
      ],
      { env: {}, stdout: { write: (t: string) => out.push(t) }, stderr: { write: (t: string) => err.push(t) } },
    );
    expect(err.join("")).toBe("");
    expect(code).toBe(0);
    expect(requests).toBe(0);
    expect(existsSync(data)).toBe(false);
    const text = out.join("");
    const line = (pathway: string) => text.split("\n").find((l) => l.startsWith("m ") && l.includes(` ${pathway} `))!;
    // calls, and output cap 20 x 14,000 = 280.0k tokens = $1.12 at $4 per million.
    expect(line("history").split(/\s+/).slice(0, 4)).toEqual(["m", "trust", "history", "20"]);
    expect(line("history")).toMatch(/280\.0k .* \$1\.12$/);
    expect(line("memory").split(/\s+/)[3]).toBe("23");
    expect(text).toMatch(/^total\s+43\s/m);
    expect(text).toMatch(/history\s+cached\s+\d+\.\d% of [\d.k]+ input tokens, limit \d+\.\d%/);
    expect(text).toMatch(/This is an estimate\. Real replies differ/);
  });

  it("refuses a schedule the data directory would refuse, before playing anything", async () => {
    const data = mkdtempSync(join(tmpdir(), "s3est-clash-"));
    const base = ["--games", "trust", "--pathways", "none", "--data", data, "--explore-episodes", "0", "--eval-episodes", "1", "--progress", "off"];
    const io = { env: {}, stdout: { write: () => true }, stderr: { write: () => true } };
    expect(await runCommand(["--models", "builtin:random", ...base, "--max-steps", "2"], io)).toBe(0);
    const err: string[] = [];
    const errIo = { ...io, stderr: { write: (t: string) => err.push(t) } };
    expect(await withExitCode("run", () => runCommand(["--models", "builtin:heuristic", ...base, "--max-steps", "3", "--estimate"], errIo), errIo)).toBe(2);
    expect(err.join("")).toContain("max_steps: 2 -> 3");
  });
});
