/**
 * A small data set for the export tests, in one data directory per protocol: every pathway (none, history and
 * memory of builtin:heuristic on trust, verified of builtin:learner on chess), whose models record
 * every request they receive (so a test can compare the exported prompts with what was sent); a
 * resumed run (an invocation stopped by a crash in its model, then the same command again); and two
 * runs against a fake OpenAI-compatible server: one whose replies carry reasoning fields (vLLM's
 * reasoning parser) and one that answers only in its reasoning (stopped as degenerate, so flagged).
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { withExitCode } from "../../../src/cli/main.js";
import { runCommand } from "../../../src/cli/run/run.js";
import { getGame } from "../../../src/games/registry.js";
import { clearSecrets } from "../../../src/models/secrets.js";
import type { CompletionRequest, CompletionResult, Model } from "../../../src/models/types.js";
import { runMatrix } from "../../../src/runner/loop/runLoop.js";
import { buildMatrix } from "../../../src/runner/loop/schedule.js";
import { startFake } from "../../helpers/fakeEndpoints.js";
import { factory, RecordingModel, small } from "../../runner/helpers.js";

export interface ExportFixture {
  /** The data directories (one per protocol: a directory holds one protocol's runs). */
  dirs: string[];
  /** Every run id of the data set. */
  runIds: string[];
  /** Run ids by what they are. */
  ids: { none: string; history: string; memory: string; verified: string; resumed: string; reasoning: string; degenerate: string };
  /** Every request each built-in run's model received, by run id. */
  requests: Map<string, CompletionRequest[]>;
}

/** Throws a plain error (a crash, not an endpoint failure) on its `at`-th call, once. */
class CrashingModel implements Model {
  private n = 0;
  constructor(
    private readonly inner: Model,
    private readonly at: number,
  ) {}
  get spec() {
    return this.inner.spec;
  }
  get endpointHost() {
    return this.inner.endpointHost;
  }
  async complete(r: CompletionRequest): Promise<CompletionResult> {
    if (++this.n === this.at) throw new Error("simulated crash of the invocation");
    return this.inner.complete(r);
  }
}

const tiny = ["--explore-episodes", "1", "--checkpoint-every", "1", "--eval-episodes", "1", "--max-steps", "6", "--progress", "off", "--max-new-tokens", "256", "--context-tokens", "16000"];

async function runAgainstFake(data: string, family: "vllm" | "reasoning-only", game: string): Promise<string> {
  const fake = await startFake(family === "vllm" ? { family, reasoningParser: true } : { family });
  try {
    const io = { stdout: { write: () => undefined }, stderr: { write: () => undefined } };
    const argv = ["--models", "openai:fake-model", "--base-url", fake.url, "--games", game, "--pathways", "none", "--data", data, ...tiny];
    await withExitCode("run", () => runCommand(argv, { env: { OPENAI_API_KEY: "sk-EXPORT-TEST-0000" }, ...io, modelContext: { sleep: async () => {} } }), io);
  } finally {
    await fake.close();
    clearSecrets();
  }
  return buildMatrix(["openai:fake-model"], [game], ["none"], 0)[0]!.runId;
}

export async function makeExportFixture(): Promise<ExportFixture> {
  const root = mkdtempSync(join(tmpdir(), "s3export-"));
  const dirs = ["builtin", "verified", "resumed", "reasoning", "degenerate"].map((d) => join(root, d));
  const [builtinDir, verifiedDir, resumedDir, reasoningDir, degenerateDir] = dirs as [string, string, string, string, string];
  const requests = new Map<string, CompletionRequest[]>();
  const recording = (runIds: string[]) =>
    factory((_name, m) => {
      const r = new RecordingModel(m);
      // One model per name is shared by that name's runs: file each request under its run.
      const complete = r.complete.bind(r);
      r.complete = (req: CompletionRequest) => {
        const id = runIds.find((x) => x === req.identity.runId) ?? "?";
        requests.set(id, [...(requests.get(id) ?? []), { ...req, messages: req.messages.map((x) => ({ ...x })) }]);
        return complete(req);
      };
      return r;
    });

  const plain = buildMatrix(["builtin:heuristic"], ["trust"], ["none", "history", "memory"], 0);
  await runMatrix({
    dataDir: builtinDir,
    entries: plain,
    settings: small({ exploreEpisodes: 2, checkpointEvery: 1, evalEpisodes: 2, maxSteps: 5 }),
    game: getGame,
    createModel: recording(plain.map((e) => e.runId)),
  });

  const verified = buildMatrix(["builtin:learner"], ["chess"], ["verified"], 0);
  await runMatrix({
    dataDir: verifiedDir,
    entries: verified,
    settings: small({ exploreEpisodes: 3, checkpointEvery: 3, evalEpisodes: 1, maxSteps: 4, verified: { broadBatch: 2, verifierModel: null } }),
    game: getGame,
    createModel: recording(verified.map((e) => e.runId)),
  });

  // The resumed run: a crash in the middle of its first invocation, then the same matrix again.
  const resumed = buildMatrix(["builtin:random"], ["trust"], ["history"], 0);
  const resumedSettings = small({ exploreEpisodes: 2, checkpointEvery: 1, evalEpisodes: 2, maxSteps: 5 });
  try {
    await runMatrix({ dataDir: resumedDir, entries: resumed, settings: resumedSettings, game: getGame, createModel: factory((_n, m) => new CrashingModel(m, 12)) });
  } catch {
    // The crash may surface here or be recorded in the run's outcome: either way the rerun resumes it.
  }
  await runMatrix({ dataDir: resumedDir, entries: resumed, settings: resumedSettings, game: getGame, createModel: factory() });

  const reasoning = await runAgainstFake(reasoningDir, "vllm", "snake");
  const degenerate = await runAgainstFake(degenerateDir, "reasoning-only", "tetris");
  const of = (pathway: string): string => plain.find((e) => e.pathway === pathway)!.runId;
  const ids = { none: of("none"), history: of("history"), memory: of("memory"), verified: verified[0]!.runId, resumed: resumed[0]!.runId, reasoning, degenerate };
  return { dirs, runIds: Object.values(ids), ids, requests };
}
