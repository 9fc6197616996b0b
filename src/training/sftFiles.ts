/**
 * Writes a BuildSFT result: `FILE.jsonl` (the examples), `FILE.jsonl.sources.jsonl` (one provenance
 * line per example, line-aligned: which run, episode and step, whether it is a correction),
 * `FILE.jsonl.meta.json` (settings, per-game counts, the source runs) and, when corrections were
 * asked for, `FILE.jsonl.calls.jsonl` (their model calls, in the calls.jsonl format, purpose
 * `correction`). The JSONL stays plain (only `messages` / `conversations`) so every fine-tuning API
 * accepts it; what is a correction is recorded in the sidecars. Each file is written to a temporary
 * name and renamed, so a crash never leaves half a training set under the final name; the next build
 * removes the temporaries a killed build left (those of a pid that is no longer running).
 */
import { existsSync, unlinkSync } from "node:fs";
import { basename, resolve } from "node:path";
import type { CallRecord } from "../logs/schema.js";
import { AtomicLineFile, removeDeadWritersTemps, writeFileAtomic } from "../util/atomicWrite.js";
import { getKitVersion } from "../runner/settings/manifest.js";
import { buildSft, type BuildSftOptions, type BuildSftResult } from "./buildSft.js";

export interface SftPaths {
  jsonl: string;
  meta: string;
  sources: string;
  calls: string;
}

export function sftPaths(out: string): SftPaths {
  const jsonl = resolve(out);
  return { jsonl, meta: `${jsonl}.meta.json`, sources: `${jsonl}.sources.jsonl`, calls: `${jsonl}.calls.jsonl` };
}

export interface WriteSftOptions extends BuildSftOptions {
  out: string;
  /** Filled by the caller's call log while the corrections run; written as FILE.jsonl.calls.jsonl. */
  calls?: CallRecord[];
}

export interface WriteSftResult extends BuildSftResult {
  paths: SftPaths;
  examples: number;
}

/** Builds the SFT set from the logs and writes the JSONL and its sidecars. */
export async function writeSftFiles(o: WriteSftOptions): Promise<WriteSftResult> {
  const paths = sftPaths(o.out);
  // A killed build left `.FILE.jsonl.tmp-<pid>-<n>` files that no later build would ever touch.
  removeDeadWritersTemps([paths.jsonl, paths.sources, paths.calls, paths.meta]);
  const jsonl = new AtomicLineFile(paths.jsonl);
  const sources = new AtomicLineFile(paths.sources);
  let result: BuildSftResult;
  let examples = 0;
  try {
    result = await buildSft(o, (ex) => {
      jsonl.write(ex.line);
      sources.write(JSON.stringify({ line: ++examples, ...ex.source }));
    });
  } catch (e) {
    jsonl.abort();
    sources.abort();
    throw e;
  }
  jsonl.commit();
  sources.commit();
  const calls = o.calls ?? [];
  if (calls.length > 0) writeFileAtomic(paths.calls, calls.map((c) => JSON.stringify(c)).join("\n") + "\n");
  else if (existsSync(paths.calls)) unlinkSync(paths.calls); // a stale sidecar of an earlier build
  const meta = {
    kind: "s3gym-sft",
    kit_version: getKitVersion(),
    created_at: new Date().toISOString(),
    file: basename(paths.jsonl),
    examples,
    format: o.format,
    threshold: o.threshold,
    low_score: o.lowScore,
    // null: each run's own model was asked (the model that played the step).
    correct_model: o.lowScore === "correct" ? (o.correctModel ?? null) : null,
    mask_earlier_answers: o.format === "openai-chat" ? (o.maskEarlierAnswers ?? true) : false,
    filters: { games: o.games ?? null, models: o.models ?? null, pathways: o.pathways ?? null },
    data: o.data.map((d) => resolve(d)),
    counts: result.counts,
    total: result.total,
    runs: result.sources,
    skipped: result.skipped,
    corrections:
      o.lowScore === "correct"
        ? {
            calls: calls.length,
            failed_calls: calls.filter((c) => c.error !== null).length,
            tokens_in: calls.reduce((n, c) => n + c.tokens_in, 0),
            tokens_out: calls.reduce((n, c) => n + c.tokens_out, 0),
            calls_file: calls.length > 0 ? basename(paths.calls) : null,
          }
        : null,
    sources_file: basename(paths.sources),
  };
  writeFileAtomic(paths.meta, `${JSON.stringify(meta, null, 2)}\n`);
  return { ...result, paths, examples };
}
