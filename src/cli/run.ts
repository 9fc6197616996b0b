/**
 * `s3gym run`: the S3Gym protocol over a matrix of models x games x pathways (protocol.md).
 * Every configuration error (a bad number, an unknown game or pathway, an unknown model scheme, a
 * missing API key, a protocol clash with existing logs) fails before any model call, naming the
 * flag, with exit code 2. Runs whose checkpoints failed on infrastructure end with exit code 1.
 */
import { mkdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { GAMES, parseGameList } from "../games/registry.js";
import type { Game } from "../games/types.js";
import { createModel, createModelContext, validateModelSpecs, type ModelContext } from "../models/createModel.js";
import { loadModelsFile } from "../models/modelsFile.js";
import { TOKENIZERS } from "../models/tokens.js";
import { RUN_PATHWAYS, DEFAULT_SETTINGS, type ProtocolSettings } from "../runner/context.js";
import { Progress, type ProgressMode, type ProgressStream } from "../runner/progress.js";
import { runMatrix, type RunOutcome } from "../runner/runLoop.js";
import { buildMatrix, parseShard, shardMatrix, type MatrixEntry, type Shard } from "../runner/schedule.js";
import { summarizeCalls } from "../runner/usage.js";
import { runDir } from "../runner/runLogs.js";
import { HelpRequested, nonNegativeInt, oneOf, parseFlags, UsageError } from "./args.js";

export const RUN_USAGE = [
  "s3gym run --models M1,M2 --games all|g1,g2 --pathways history,memory,none --data DIR",
  "  [--explore-episodes 30] [--checkpoint-every 3] [--eval-episodes 3] [--max-steps 64]",
  "  [--context-tokens 100000] [--max-new-tokens 14000] [--tokenizer o200k|cl100k] [--run-seed 0]",
  "  [--concurrency 8] [--shard i/n] [--base-url URL] [--api-key-env NAME] [--models-file F]",
  "  [--max-retries 5] [--timeout-ms 600000] [--no-cache] [--reward-visibility hidden|visible]",
  "  [--progress auto|bar|lines|off]",
].join("\n");

const FLAGS = {
  models: { type: "string" },
  games: { type: "string" },
  pathways: { type: "string" },
  data: { type: "string" },
  "explore-episodes": { type: "string" },
  "checkpoint-every": { type: "string" },
  "eval-episodes": { type: "string" },
  "max-steps": { type: "string" },
  "context-tokens": { type: "string" },
  "max-new-tokens": { type: "string" },
  tokenizer: { type: "string" },
  "run-seed": { type: "string" },
  concurrency: { type: "string" },
  shard: { type: "string" },
  "base-url": { type: "string" },
  "api-key-env": { type: "string" },
  "models-file": { type: "string" },
  "max-retries": { type: "string" },
  "timeout-ms": { type: "string" },
  "no-cache": { type: "boolean" },
  "reward-visibility": { type: "string" },
  progress: { type: "string" },
} as const;

/** Injection points for tests and embedding; the CLI uses the real process. */
export interface RunCommandDeps {
  env?: Record<string, string | undefined>;
  stdout?: { write(text: string): unknown };
  stderr?: ProgressStream;
  /** Overrides of the model context (e.g. a fast backoff sleep in tests). */
  modelContext?: Partial<ModelContext>;
  /** Progress interval for the plain-lines mode (default 30 s). */
  progressIntervalMs?: number;
}

function atLeast(flag: string, value: string | undefined, fallback: number, min: number): number {
  const n = nonNegativeInt(flag, value, fallback);
  if (n < min) throw new UsageError(`--${flag} must be at least ${min}, got ${n}`);
  return n;
}

function commaList(flag: string, value: string | undefined): string[] {
  if (value === undefined) throw new UsageError(`--${flag} is required`);
  const items = [...new Set(value.split(",").map((s) => s.trim()).filter(Boolean))];
  if (items.length === 0) throw new UsageError(`--${flag} is empty`);
  return items;
}

/** Games named on --games; a game that is still a placeholder in this build is a config error. */
function resolveGames(value: string | undefined): Game[] {
  if (value === undefined) throw new UsageError("--games is required: 'all' or a comma list");
  let names: string[];
  try {
    names = parseGameList(value);
  } catch (e) {
    throw new UsageError(`--games: ${(e as Error).message}`);
  }
  return names.map((n) => {
    const game = GAMES[n as keyof typeof GAMES];
    try {
      game.reset(0, "explore");
    } catch (e) {
      throw new UsageError(`--games: game '${n}' cannot be played in this build (${(e as Error).message})`);
    }
    return game;
  });
}

interface Parsed {
  models: string[];
  games: Game[];
  pathways: string[];
  dataDir: string;
  settings: ProtocolSettings;
  shard: Shard | null;
  cache: boolean;
  progress: ProgressMode;
  ctx: Partial<ModelContext>;
  modelsFile: string | null;
}

function parse(argv: string[], env: Record<string, string | undefined>): Parsed {
  const { values: v } = parseFlags(argv, FLAGS, RUN_USAGE);
  const models = commaList("models", v.models);
  const games = resolveGames(v.games);
  const pathways = commaList("pathways", v.pathways);
  for (const p of pathways) {
    if (p === "training") throw new UsageError("--pathways: 'training' is not run by 's3gym run' (build the SFT set, train, then evaluate the checkpoints)");
    oneOf("pathways", p, RUN_PATHWAYS);
  }
  if (v.data === undefined || v.data.trim() === "") throw new UsageError("--data is required: the data directory the logs go to");
  const settings: ProtocolSettings = {
    exploreEpisodes: nonNegativeInt("explore-episodes", v["explore-episodes"], DEFAULT_SETTINGS.exploreEpisodes),
    checkpointEvery: atLeast("checkpoint-every", v["checkpoint-every"], DEFAULT_SETTINGS.checkpointEvery, 1),
    evalEpisodes: atLeast("eval-episodes", v["eval-episodes"], DEFAULT_SETTINGS.evalEpisodes, 1),
    maxSteps: atLeast("max-steps", v["max-steps"], DEFAULT_SETTINGS.maxSteps, 1),
    contextTokens: atLeast("context-tokens", v["context-tokens"], DEFAULT_SETTINGS.contextTokens, 1),
    maxNewTokens: atLeast("max-new-tokens", v["max-new-tokens"], DEFAULT_SETTINGS.maxNewTokens, 1),
    tokenizer: oneOf("tokenizer", v.tokenizer, TOKENIZERS, DEFAULT_SETTINGS.tokenizer),
    rewardVisibility: oneOf("reward-visibility", v["reward-visibility"], ["hidden", "visible"] as const, "hidden"),
    runSeed: nonNegativeInt("run-seed", v["run-seed"], DEFAULT_SETTINGS.runSeed),
  };
  if (settings.contextTokens <= settings.maxNewTokens) {
    throw new UsageError(`--context-tokens (${settings.contextTokens}) must exceed --max-new-tokens (${settings.maxNewTokens}): the reply is reserved inside the context`);
  }
  let shard: Shard | null = null;
  if (v.shard !== undefined) {
    try {
      shard = parseShard(v.shard);
    } catch (e) {
      throw new UsageError((e as Error).message);
    }
  }
  const ctx: Partial<ModelContext> = {
    concurrency: atLeast("concurrency", v.concurrency, 8, 1),
    maxRetries: nonNegativeInt("max-retries", v["max-retries"], 5),
    timeoutMs: atLeast("timeout-ms", v["timeout-ms"], 600_000, 1),
    env,
  };
  if (v["base-url"] !== undefined) ctx.baseUrl = v["base-url"];
  if (v["api-key-env"] !== undefined) {
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(v["api-key-env"])) throw new UsageError("--api-key-env must be the NAME of an environment variable (letters, digits, _), not a key");
    ctx.apiKeyEnv = v["api-key-env"];
  }
  if (v["models-file"] !== undefined) {
    try {
      ctx.models = loadModelsFile(v["models-file"]);
    } catch (e) {
      throw new UsageError(`--models-file: ${(e as Error).message}`);
    }
  }
  return {
    models,
    games,
    pathways,
    dataDir: resolve(v.data),
    settings,
    shard,
    cache: v["no-cache"] !== true,
    progress: oneOf("progress", v.progress, ["auto", "bar", "lines", "off"] as const, "auto"),
    ctx,
    modelsFile: v["models-file"] ?? null,
  };
}

export async function runCommand(argv: string[], deps: RunCommandDeps = {}): Promise<number> {
  const env = deps.env ?? process.env;
  const stdout = deps.stdout ?? process.stdout;
  const stderr = deps.stderr ?? process.stderr;
  let p: Parsed;
  let ctx: ModelContext;
  let maxNew: Map<string, number>;
  try {
    p = parse(argv, env);
    ctx = createModelContext({ ...p.ctx, cacheDir: p.cache ? join(p.dataDir, "cache") : null, ...deps.modelContext });
    // Every model name, alias, base URL and key presence is checked before any call.
    const resolved = validateModelSpecs(p.models, ctx);
    // A models-file entry's max_tokens overrides --max-new-tokens for its calls, so the History
    // budget must reserve that instead.
    maxNew = new Map(resolved.map((r) => [r.name, r.sampling.max_tokens ?? p.settings.maxNewTokens]));
    for (const [name, n] of maxNew) {
      if (n >= p.settings.contextTokens) throw new UsageError(`model '${name}': max_tokens ${n} leaves no room in --context-tokens ${p.settings.contextTokens}`);
    }
  } catch (e) {
    if (e instanceof HelpRequested) {
      stdout.write(`${e.message}\n`);
      return 0;
    }
    stderr.write(`s3gym run: ${(e as Error).message}\n`);
    return 2;
  }

  const matrix = buildMatrix(p.models, p.games.map((g) => g.name), p.pathways, p.settings.runSeed);
  const entries = shardMatrix(matrix, p.shard);
  const games = new Map(p.games.map((g) => [g.name as string, g]));
  mkdirSync(p.dataDir, { recursive: true });
  const progress = new Progress(stderr, { mode: p.progress, ...(deps.progressIntervalMs ? { intervalMs: deps.progressIntervalMs } : {}) });
  if (p.shard) stderr.write(`s3gym run: shard ${p.shard.index}/${p.shard.count}: ${entries.length} of ${matrix.length} runs\n`);
  let outcomes: RunOutcome[];
  try {
    outcomes = await runMatrix({
      dataDir: p.dataDir,
      entries,
      settings: (e: MatrixEntry) => ({ ...p.settings, maxNewTokens: maxNew.get(e.model) ?? p.settings.maxNewTokens }),
      game: (name) => games.get(name)!,
      createModel: (name, onCall) => createModel(name, { ...ctx, onCall }),
      events: progress,
      invocation: {
        concurrency: ctx.concurrency,
        max_retries: ctx.maxRetries,
        timeout_ms: ctx.timeoutMs,
        cache: p.cache,
        shard: p.shard ? `${p.shard.index}/${p.shard.count}` : null,
        models_file: p.modelsFile,
        api_key_env: ctx.apiKeyEnv,
      },
    });
  } catch (e) {
    progress.close();
    // A protocol clash with existing logs is found before any call: a configuration error.
    stderr.write(`s3gym run: ${(e as Error).message}\n`);
    return 2;
  }
  progress.close();

  let bad = 0;
  let total = { calls: 0, tokensIn: 0, tokensOut: 0, cost: 0, priced: false };
  for (const o of outcomes) {
    const u = summarizeCalls(runDir(p.dataDir, o.runId));
    total = {
      calls: total.calls + u.calls,
      tokensIn: total.tokensIn + u.tokens_in,
      tokensOut: total.tokensOut + u.tokens_out,
      cost: total.cost + (u.cost_usd ?? 0),
      priced: total.priced || u.cost_usd !== null,
    };
    const ok = o.checkpoints.filter((c) => c.status === "ok").length;
    const failedReason = o.error ?? o.checkpoints.find((c) => c.status === "failed")?.reason ?? null;
    if (o.status !== "complete") bad++;
    const cost = u.cost_usd === null ? "" : ` $${u.cost_usd.toFixed(4)}`;
    stdout.write(
      `${o.runId}\t${o.status}\t${ok}/${o.checkpoints.length || "-"} checkpoints ok\t${u.calls} calls\t${u.tokens_in} in / ${u.tokens_out} out${cost}${failedReason ? `\t${failedReason}` : ""}\n`,
    );
  }
  stdout.write(
    `total\t${outcomes.length} runs, ${outcomes.length - bad} complete\t${total.calls} calls\t${total.tokensIn} in / ${total.tokensOut} out${total.priced ? ` $${total.cost.toFixed(4)}` : ""}\n`,
  );
  return bad === 0 ? 0 : 1;
}
