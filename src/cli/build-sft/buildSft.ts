/**
 * `s3gym build-sft`: turns the exploration steps of logged runs into a supervised fine-tuning set
 * (BuildSFT, src/training/buildSft.ts). Prints kept / corrected / dropped per game on stdout;
 * writes FILE.jsonl and its sidecars (.meta.json, .sources.jsonl, .calls.jsonl). Exit codes: 0 written;
 * 1 nothing kept, or a correction call failed on infrastructure; 2 bad arguments (nothing called).
 */
import { existsSync, mkdirSync } from "node:fs";
import { readJsonFile } from "../../logs/reader.js";
import { RunManifest } from "../../logs/schema.js";
import { dirname, join, resolve } from "node:path";
import { GAME_NAMES } from "../../games/types.js";
import { toCallRecord } from "../../models/callLog.js";
import { createModelContext, validateModelSpecs, type ModelContext } from "../../models/assembleModel.js";
import { createModel } from "../../runner/createModel.js";
import type { CallRecord } from "../../logs/schema.js";
import { RECORDED_PATHWAY_NAMES } from "../../pathways/registry.js";
import { findRunDirs, formatCounts } from "../../training/buildSft.js";
import { writeSftFiles } from "../../training/sftFiles.js";
import { listItems, repeatedList } from "../../util/options.js";
import { parseFlags, UsageError } from "../shared/args.js";
import { concurrencyFlag, ENDPOINT_FLAGS, endpointUsage, modelContextFromFlags, noCacheFlag, SFT_FLAGS, sftFromFlags, sftUsage } from "../shared/sharedFlags.js";
import { manifestPath } from "../../logs/runDir.js";

export const BUILD_SFT_USAGE = ["s3gym build-sft --data DIR [--data DIR ...] --out FILE.jsonl [--games all|g1,g2] [--models a,b] [--pathways p1,p2]", ...sftUsage(), ...endpointUsage()].join("\n");

const FLAGS = {
  data: { type: "string", multiple: true },
  out: { type: "string" },
  games: { type: "string" },
  models: { type: "string" },
  pathways: { type: "string" },
  ...SFT_FLAGS,
  ...ENDPOINT_FLAGS,
} as const;

export interface BuildSftDeps {
  env?: Record<string, string | undefined>;
  stdout?: { write(text: string): unknown };
  stderr?: { write(text: string): unknown };
  /** Overrides of the correction models' context (tests). */
  modelContext?: Partial<ModelContext>;
}

function list(flag: string, value: string | undefined, valid?: readonly string[]): string[] | null {
  if (value === undefined) return null;
  const items = listItems(value);
  if (items.length === 0) throw new UsageError(`--${flag} is empty`);
  if (valid) for (const i of items) if (!valid.includes(i)) throw new UsageError(`unknown --${flag} '${i}': expected one of ${valid.join(", ")}`);
  return items;
}

/** The models a `correct` build will ask: the given spec, or every matching run's own model. */
function correctionSpecs(data: string[], filter: { games: string[] | null; models: string[] | null; pathways: string[] | null }, given: string | null): string[] {
  if (given !== null) return [given];
  const specs = new Set<string>();
  for (const dir of findRunDirs(data)) {
    const path = manifestPath(dir);
    if (!existsSync(path)) continue;
    const m = readJsonFile(path, RunManifest);
    if ((filter.games && !filter.games.includes(m.game)) || (filter.models && !filter.models.includes(m.model)) || (filter.pathways && !filter.pathways.includes(m.pathway))) continue;
    specs.add(m.model);
  }
  return [...specs];
}

export async function buildSftCommand(argv: string[], deps: BuildSftDeps = {}): Promise<number> {
  const env = deps.env ?? process.env;
  const stdout = deps.stdout ?? process.stdout;
  const stderr = deps.stderr ?? process.stderr;
  const { values: v } = parseFlags(argv, FLAGS, BUILD_SFT_USAGE);
  const data = repeatedList(v.data);
  if (data.length === 0) throw new UsageError("--data is required: a data directory holding runs/<run_id>/ (repeat it for several)");
  if (v.out === undefined || v.out.trim() === "") throw new UsageError("--out is required: the JSONL file to write (e.g. sft.jsonl)");
  const games = v.games === undefined || v.games.trim() === "all" ? null : list("games", v.games, GAME_NAMES);
  const models = list("models", v.models);
  const pathways = list("pathways", v.pathways, RECORDED_PATHWAY_NAMES);
  const { threshold, lowScore, format, correctModel, maskEarlierAnswers } = sftFromFlags(v);
  for (const d of data) if (!existsSync(d)) throw new UsageError(`--data: '${d}' does not exist`);
  let runDirs: string[];
  try {
    runDirs = findRunDirs(data);
  } catch (e) {
    throw new UsageError(`--data: ${(e as Error).message}`);
  }
  if (runDirs.length === 0) throw new UsageError(`--data: no runs found in ${data.join(", ")}`);

  const calls: CallRecord[] = [];
  let make: ((spec: string) => import("../../models/types.js").Model) | undefined;
  if (lowScore === "correct") {
    const ctxIn: Partial<ModelContext> = { ...modelContextFromFlags(v, env), cacheDir: noCacheFlag(v) ? null : join(resolve(data[0]!), "cache") };
    const ctx = createModelContext({ ...ctxIn, ...deps.modelContext, onCall: (e) => calls.push(toCallRecord(e)) });
    const specs = correctionSpecs(data, { games, models, pathways }, correctModel);
    try {
      if (specs.length > 0) validateModelSpecs(specs, ctx);
    } catch (e) {
      throw new UsageError(`--correct-model: ${(e as Error).message}`);
    }
    make = (spec) => createModel(spec, ctx);
  }

  const out = resolve(v.out);
  mkdirSync(dirname(out), { recursive: true });
  const result = await writeSftFiles({
    data,
    out,
    games,
    models,
    pathways,
    threshold,
    lowScore,
    format,
    maskEarlierAnswers,
    correctModel,
    ...(make ? { createModel: make } : {}),
    concurrency: concurrencyFlag(v),
    calls,
    onWarning: (w) => stderr.write(`warning: ${w}\n`),
  });
  for (const line of formatCounts(result, lowScore)) stdout.write(`${line}\n`);
  stdout.write(`wrote ${result.examples} examples (${format}) to ${result.paths.jsonl}; counts and sources in ${result.paths.meta}\n`);
  if (result.examples === 0) {
    stderr.write(`s3gym build-sft: no example was kept (threshold ${threshold}); see the counts above\n`);
    return 1;
  }
  return 0;
}
