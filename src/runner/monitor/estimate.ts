/**
 * `s3gym run ... --estimate` (endpoints.md, "Cost estimate"): the whole planned matrix played in
 * process by the built-in heuristic, no endpoint called, every prompt counted with the tokenizer the
 * run would use (`--tokenizer`), each run's prompts fed to a simulated prefix cache
 * (models/cache/prefixCache.ts, one per run: a provider's cache holds a run's own recent prefixes) and to
 * the physical limit of prefix caching.
 *
 * The prompts are the protocol's real prompts: the same runner, pathways and budget code, on a
 * scratch data directory that is removed afterwards. What differs from a real run is the replies:
 * the heuristic's are a few dozen tokens, a served model's are longer or shorter, and later prompts
 * quote them (History turns and blocks, Memory summaries), so the input figures are a floor-ish
 * estimate for verbose models, and the output side is given as its cap (every call x max tokens).
 *
 * Models with the same reply cap see identical prompts, so each (game, pathway, cap) is played once
 * and its figures are priced per model.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Game } from "../../games/types.js";
import { makeBuiltinModel } from "../../builtin/builtinModel.js";
import { UsageCounter } from "../../builtin/server.js";
import { ObservedModel } from "../../models/callLog.js";
import { costUsd } from "../../models/cost.js";
import { parseModelSpec } from "../../models/modelSpec.js";
import type { Price } from "../../models/modelsFile.js";
import { DEFAULT_CACHE_TOKENS, PrefixCache, PrefixLimit } from "../../models/cache/prefixCache.js";
import { countTokens } from "../../models/tokens.js";
import type { CompletionRequest, CompletionResult, Model } from "../../models/types.js";
import type { ProtocolSettings } from "../loop/context.js";
import { runMatrix } from "../loop/runLoop.js";
import { buildMatrix, type MatrixEntry } from "../loop/schedule.js";
import type { Option } from "../../util/options.js";

/** `s3gym run --estimate`: price the matrix instead of playing it. */
export const ESTIMATE_OPTION: Option<boolean> = {
  name: "estimate",
  kind: { type: "switch", on: true },
  default: false,
  help: "play the matrix in process with builtin:heuristic (no endpoint called) and print calls, tokens,\n              prefix-cache share and dollars per model x game x pathway; nothing is written to --data",
};

/** The policy that stands in for every model. */
export const ESTIMATE_POLICY = "builtin:heuristic";

export interface EstimateRow {
  model: string;
  game: string;
  pathway: string;
  /** Model calls: step calls plus summary calls (Memory's consolidations). */
  calls: number;
  summaryCalls: number;
  /** Prompt tokens over every call, counted with `tokenizer`. */
  inputTokens: number;
  /** Of which the simulated prefix cache served. */
  cachedTokens: number;
  /** Of which any prefix cache could serve at best (physical limit: 1 - new tokens / prompt tokens). */
  reusableTokens: number;
  /** Every call's reply cap (max tokens) summed: the most output tokens the run can be billed for. */
  outputCapTokens: number;
  /** Dollars of the input at the list price; null without a price. */
  inputListUsd: number | null;
  /** Dollars of the input with the cached tokens at the cached-input price (the input price when none). */
  inputCachedUsd: number | null;
  /** Dollars of the output at its cap. */
  outputCapUsd: number | null;
  /** The run did not end complete under the heuristic (its figures are partial). */
  incomplete: string | null;
}

export interface EstimateOptions {
  entries: readonly MatrixEntry[];
  /** The protocol settings of an entry (its max_new_tokens may come from the models file). */
  settingsOf: (e: MatrixEntry) => ProtocolSettings;
  game: (name: string) => Game;
  /** Price per model name (null: no price known, dollars are not shown). */
  priceOf: (model: string) => Price | null;
  /** Capacity of each run's simulated prefix cache in tokens (default DEFAULT_CACHE_TOKENS). */
  cacheTokens?: number;
}

interface Meter {
  calls: number;
  summaryCalls: number;
  inputTokens: number;
  outputCapTokens: number;
  cache: PrefixCache;
  limit: PrefixLimit;
}

/** The heuristic, with every request it gets metered on its run's meter. */
class MeteredModel implements Model {
  readonly spec: string;
  readonly endpointHost = "builtin";
  constructor(
    private readonly inner: Model,
    private readonly meterOf: (runId: string) => Meter,
    private readonly usage: UsageCounter,
  ) {
    this.spec = inner.spec;
  }
  complete(request: CompletionRequest): Promise<CompletionResult> {
    const m = this.meterOf(request.identity.runId);
    const pieces = this.usage.pieces(request.messages);
    const { promptTokens } = m.cache.lookup(pieces);
    m.limit.observe(pieces);
    m.calls++;
    if (request.identity.purpose === "summary") m.summaryCalls++;
    m.inputTokens += promptTokens;
    m.outputCapTokens += request.sampling.max_tokens ?? 0;
    return this.inner.complete(request);
  }
}

/** Plays the matrix with the heuristic and returns one row per entry (same order). */
export async function estimateMatrix(o: EstimateOptions): Promise<EstimateRow[]> {
  // One play per (game, pathway, reply cap): the prompts do not depend on the model's name.
  const groupOf = (e: MatrixEntry) => `cap${o.settingsOf(e).maxNewTokens}`;
  const groups = new Map<string, ProtocolSettings>();
  for (const e of o.entries) groups.set(groupOf(e), o.settingsOf(e));
  const played: MatrixEntry[] = [];
  const seen = new Set<string>();
  const playedOf = new Map<MatrixEntry, string>();
  for (const e of o.entries) {
    const [p] = buildMatrix([groupOf(e)], [e.game], [e.pathway], e.runSeed);
    if (!seen.has(p!.runId)) {
      seen.add(p!.runId);
      played.push(p!);
    }
    playedOf.set(e, p!.runId);
  }
  const meters = new Map<string, Meter>();
  const capacity = o.cacheTokens ?? DEFAULT_CACHE_TOKENS;
  const meterOf = (runId: string): Meter => {
    let m = meters.get(runId);
    if (!m) {
      m = { calls: 0, summaryCalls: 0, inputTokens: 0, outputCapTokens: 0, cache: new PrefixCache({ capacityTokens: capacity }), limit: new PrefixLimit() };
      meters.set(runId, m);
    }
    return m;
  };
  const tokenizer = o.entries.length > 0 ? o.settingsOf(o.entries[0]!).tokenizer : "o200k";
  const usage = new UsageCounter((t) => countTokens(t, tokenizer));
  const heuristic = makeBuiltinModel(parseModelSpec(ESTIMATE_POLICY) as Parameters<typeof makeBuiltinModel>[0]);
  const scratch = mkdtempSync(join(tmpdir(), "s3gym-estimate-"));
  let outcomes;
  try {
    outcomes = await runMatrix({
      dataDir: scratch,
      entries: played,
      settings: (e) => groups.get(e.model)!,
      game: o.game,
      createModel: (_name, onCall) => new ObservedModel(new MeteredModel(heuristic, meterOf, usage), onCall, null),
    });
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
  const statusOf = new Map(outcomes.map((x) => [x.runId, x.status === "complete" ? null : `${x.status}${x.error ? `: ${x.error}` : ""}`]));
  return o.entries.map((e) => {
    const id = playedOf.get(e)!;
    const m = meterOf(id);
    const price = o.priceOf(e.model);
    const cachedTokens = m.cache.totals.cachedTokens;
    return {
      model: e.model,
      game: e.game,
      pathway: e.pathway,
      calls: m.calls,
      summaryCalls: m.summaryCalls,
      inputTokens: m.inputTokens,
      cachedTokens,
      reusableTokens: m.limit.totals.reusableTokens,
      outputCapTokens: m.outputCapTokens,
      inputListUsd: costUsd({ tokensIn: m.inputTokens, tokensOut: 0, tokensCached: 0 }, price),
      inputCachedUsd: costUsd({ tokensIn: m.inputTokens, tokensOut: 0, tokensCached: cachedTokens }, price),
      outputCapUsd: costUsd({ tokensIn: 0, tokensOut: m.outputCapTokens, tokensCached: 0 }, price),
      incomplete: statusOf.get(id) ?? null,
    };
  });
}
