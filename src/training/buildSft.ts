/**
 * BuildSFT (protocol.md, "Consolidation: training"): exploration trajectories and their self-scores
 * become supervised chat examples.
 *
 * - Only EXPLORATION steps enter, and only those of exploration episodes that finished (`ok` record in
 *   episodes.jsonl). Evaluation steps are never read into an example: the step loop below walks the
 *   exploration episodes alone (phase `explore`, checkpoint null), so a held-out evaluation can never
 *   leak into a training set.
 * - An example is the exact messages the model saw at that step (`rebuildStepMessages`: rules, the
 *   run's experience block, the episode's earlier turns, the observation) plus the assistant's answer.
 *   The answer is the raw response when its last two non-empty lines are exactly
 *   `Answer: <action>` and `Score: <number>` (with no `</think>` reasoning block); otherwise it is
 *   normalised to `Answer: <action>\nScore: <self-score>`. A correction is always normalised (its own
 *   reasoning answered the correction prompt, not the step).
 * - Kept: steps with self-score >= threshold. Dropped: unparsable steps (no action), unscored steps
 *   (action without score), and steps below the threshold (`drop`), or, with `correct`, low steps
 *   whose correction failed (see correction.ts). The verifier reward and validity are never read:
 *   the selection is the model's own judgment.
 * - Identical examples (same serialized line) are written once; the first occurrence wins.
 *
 * The examples are streamed to a sink in a stable order (runs by run_id, then episode, then step), so
 * a history run's long contexts never sit in memory all at once.
 */
import { experienceScore } from "../pathways/judge.js";
import { createHash } from "node:crypto";
import { existsSync, readdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { getGame, isGameName } from "../games/registry.js";
import type { StepRecord } from "../logs/schema.js";
import type { ChatMessage, Model } from "../models/types.js";
import { loadRunLogs, rebuildStepMessages, type RunLogData } from "../runner/resume/replay.js";
import { CORRECTION_FAILURES, correctStep, type CorrectionFailure, type CorrectionOutcome } from "./correction.js";
import { SFT_FORMATS, toSftExample, type SftFormat } from "./sftFormat.js";
import { numberFlag, type OptionTable } from "../util/options.js";
import { isRunDir, manifestPath, runsDir } from "../logs/runDir.js";

export const LOW_SCORE_MODES = ["drop", "correct"] as const;
export type LowScoreMode = (typeof LOW_SCORE_MODES)[number];

/** BuildSFT's selection and format, as `build-sft` and each round of `train-loop` take them from their flags. */
export interface SftSelection {
  threshold: number;
  lowScore: LowScoreMode;
  correctModel: string | null;
  format: SftFormat;
  /** Weight only the last assistant turn (default); `--train-all-turns` trains on every turn. */
  maskEarlierAnswers: boolean;
}

/** BuildSFT's option rows (`build-sft`, `train-loop`): the flags, their usage, values and defaults. */
export const SFT_OPTIONS: OptionTable<SftSelection> = {
  threshold: { name: "threshold", kind: { type: "text", shown: "0", parse: (v) => numberFlag("threshold", v, 0) }, default: 0, about: "the lowest self-score a kept step may have" },
  lowScore: { name: "low-score", kind: { type: "choice", choices: LOW_SCORE_MODES }, default: "drop", about: "what happens to a step below the threshold" },
  correctModel: { name: "correct-model", kind: { type: "text", shown: "M", parse: (v) => v }, default: null, about: "the model that corrects low-scored steps (--low-score correct)" },
  format: { name: "format", kind: { type: "choice", choices: SFT_FORMATS }, default: "openai-chat", about: "the SFT file's format" },
  maskEarlierAnswers: { name: "train-all-turns", kind: { type: "switch", on: false }, default: true, about: "train on every assistant turn, not only the last" },
};

export interface BuildSftOptions {
  /** Data directories (each holding runs/<run_id>/), or single run directories. */
  data: readonly string[];
  /** Only runs of these games / models (as logged) / pathways; null or absent = all. */
  games?: readonly string[] | null;
  models?: readonly string[] | null;
  pathways?: readonly string[] | null;
  /** Keep steps whose self-score is >= threshold (default 0). */
  threshold: number;
  lowScore: LowScoreMode;
  format: SftFormat;
  /** openai-chat: give earlier assistant turns `weight: 0` (default true). */
  maskEarlierAnswers?: boolean;
  /** `correct`: the model spec asked for corrections; null = each run's own model (the `model` it logged). */
  correctModel?: string | null;
  /** `correct`: builds (once per spec) the correction model, with the caller's context and call log. */
  createModel?: (spec: string) => Model;
  /** `correct`: corrections in flight at once (default 8; the model layer's limiter also applies). */
  concurrency?: number;
  onWarning?: (message: string) => void;
}

/** Per-game counts (every considered step ends in exactly one of kept / the dropped reasons). */
export interface SftCounts {
  /** Exploration steps of finished exploration episodes. */
  steps: number;
  /** Examples written (positives + corrections), after deduplication. */
  kept: number;
  /** Of `kept`: corrections of low self-scored steps. */
  corrected: number;
  /** steps - kept. */
  dropped: number;
  /** Dropped: no parsable action. */
  unparsable: number;
  /** Dropped: an action but no parsable self-score. */
  unscored: number;
  /** Steps with self-score < threshold (all dropped with `drop`; with `correct` only the failed corrections are). */
  low_scored: number;
  /** `correct`: low steps dropped because the correction failed, by reason. */
  correction_failed: Record<CorrectionFailure, number>;
  /** Dropped: an identical example was already written. */
  duplicate: number;
  /** Of `kept`: positives whose raw response was normalised to the two contract lines. */
  normalized: number;
}

export interface SftSourceRun {
  run_id: string;
  model: string;
  game: string;
  pathway: string;
  dir: string;
  /** Exploration steps considered. */
  steps: number;
  /** Examples written from this run. */
  kept: number;
  /** Evaluation steps present in the run (never used). */
  eval_steps_ignored: number;
  /** Exploration steps of episodes without an `ok` record (unfinished or failed; never used). */
  unfinished_steps: number;
}

/** Where one example came from (the `.sources.jsonl` sidecar, line-aligned with the JSONL). */
export interface SftProvenance {
  run_id: string;
  model: string;
  game: string;
  pathway: string;
  episode: number;
  seed: number;
  step: number;
  /** The action and self-score of the example's answer. */
  action: string;
  self_score: number;
  /** A correction of a low self-scored step. */
  corrected: boolean;
  /** Corrections: the original (low) action and self-score, and the correcting model. */
  original_action?: string;
  original_self_score?: number;
  correct_model?: string;
  /** Positives: the raw response was normalised to the two contract lines. */
  normalized: boolean;
}

export interface SftExample {
  /** The serialized JSONL line (no newline). */
  line: string;
  example: Record<string, unknown>;
  source: SftProvenance;
}

export interface BuildSftResult {
  counts: Record<string, SftCounts>;
  total: SftCounts;
  sources: SftSourceRun[];
  /** Runs that could not be used (no manifest, unknown game ...), with the reason. */
  skipped: Array<{ dir: string; reason: string }>;
}

export function emptyCounts(): SftCounts {
  return {
    steps: 0,
    kept: 0,
    corrected: 0,
    dropped: 0,
    unparsable: 0,
    unscored: 0,
    low_scored: 0,
    correction_failed: Object.fromEntries(CORRECTION_FAILURES.map((k) => [k, 0])) as Record<CorrectionFailure, number>,
    duplicate: 0,
    normalized: 0,
  };
}

function addCounts(into: SftCounts, c: SftCounts): void {
  for (const k of ["steps", "kept", "corrected", "dropped", "unparsable", "unscored", "low_scored", "duplicate", "normalized"] as const) into[k] += c[k];
  for (const k of CORRECTION_FAILURES) into.correction_failed[k] += c.correction_failed[k];
}

/**
 * The assistant answer of a positive example: the raw response when it already ends with exactly the
 * two contract lines for this action and score (and holds no `</think>` block), else the two lines.
 */
export function answerText(response: string, action: string, selfScore: number): { text: string; normalized: boolean } {
  const lines = response
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l.length > 0);
  const score = /^Score: (\S+)$/.exec(lines.at(-1) ?? "");
  const raw = !/<\/think>/i.test(response) && lines.at(-2) === `Answer: ${action}` && score !== null && Number(score[1]) === selfScore;
  return raw ? { text: response, normalized: false } : { text: contractLines(action, selfScore), normalized: true };
}

export function contractLines(action: string, selfScore: number): string {
  return `Answer: ${action}\nScore: ${selfScore}`;
}

/** The run directories under the given data directories (or the directories themselves), sorted by run_id. */
export function findRunDirs(data: readonly string[]): string[] {
  const out: string[] = [];
  for (const d of data) {
    const dir = resolve(d);
    if (isRunDir(dir)) {
      out.push(dir);
      continue;
    }
    const runs = runsDir(dir);
    if (!existsSync(runs)) throw new Error(`${d}: no runs/ directory (expected a data directory holding runs/<run_id>/, or a run directory)`);
    for (const name of readdirSync(runs, { withFileTypes: true })) if (name.isDirectory()) out.push(join(runs, name.name));
  }
  const byId = new Map<string, string>();
  for (const dir of out) {
    const id = dir.split(/[\\/]/).at(-1)!;
    if (!byId.has(id)) byId.set(id, dir);
  }
  return [...byId.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, d]) => d);
}

/** Maps `items` through `fn` with at most `limit` in flight, keeping the order. */
async function mapPool<T, R>(items: readonly T[], limit: number, fn: (t: T) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}

/** The run's logs with reward visibility forced to `hidden` (what a correction prompt is built from). */
function hiddenView(data: RunLogData): RunLogData {
  const config = data.manifest.config;
  if (config.protocol?.reward_visibility !== "visible") return data;
  return { ...data, manifest: { ...data.manifest, config: { ...config, protocol: { ...config.protocol, reward_visibility: "hidden" } } } };
}

/**
 * Builds the SFT examples of every matching run and hands each kept example to `sink`, in order.
 * Throws on an infrastructure failure of a correction call (rerun: the response cache makes the
 * corrections already made free).
 */
export async function buildSft(o: BuildSftOptions, sink: (ex: SftExample) => void): Promise<BuildSftResult> {
  if (!Number.isFinite(o.threshold)) throw new Error(`threshold must be a finite number, got ${o.threshold}`);
  if (o.lowScore === "correct" && !o.createModel) throw new Error("buildSft: low-score 'correct' needs createModel");
  const warn = o.onWarning ?? (() => {});
  const counts: Record<string, SftCounts> = {};
  const sources: SftSourceRun[] = [];
  const skipped: BuildSftResult["skipped"] = [];
  const seen = new Set<string>();
  const models = new Map<string, Model>();
  const modelFor = (spec: string): Model => {
    let m = models.get(spec);
    if (!m) models.set(spec, (m = o.createModel!(spec)));
    return m;
  };
  const mask = o.maskEarlierAnswers ?? true;

  for (const dir of findRunDirs(o.data)) {
    if (!existsSync(manifestPath(dir))) {
      skipped.push({ dir, reason: "no manifest.json: the prompts cannot be rebuilt without the run's protocol and game configs" });
      warn(`${dir}: skipped (no manifest.json)`);
      continue;
    }
    let data: RunLogData;
    try {
      data = loadRunLogs(dir);
    } catch (e) {
      skipped.push({ dir, reason: (e as Error).message });
      warn(`${dir}: skipped (${(e as Error).message})`);
      continue;
    }
    const m = data.manifest;
    if (o.games && !o.games.includes(m.game)) continue;
    if (o.models && !o.models.includes(m.model)) continue;
    if (o.pathways && !o.pathways.includes(m.pathway)) continue;
    if (!isGameName(m.game)) {
      skipped.push({ dir, reason: `unknown game '${m.game}'` });
      warn(`${dir}: skipped (unknown game '${m.game}')`);
      continue;
    }
    const game = getGame(m.game);
    const protocol = m.config.protocol;
    const exploreConfig = protocol?.game_configs.explore;
    if (!exploreConfig) {
      skipped.push({ dir, reason: "manifest.json has no config.protocol.game_configs.explore" });
      warn(`${dir}: skipped (manifest.json has no config.protocol.game_configs)`);
      continue;
    }
    const c = (counts[m.game] ??= emptyCounts());
    const runCounts = emptyCounts();
    const source: SftSourceRun = { run_id: m.run_id, model: m.model, game: m.game, pathway: m.pathway, dir, steps: 0, kept: 0, eval_steps_ignored: 0, unfinished_steps: 0 };

    // The exploration episodes that finished, and their steps in order (first line of a step wins,
    // as in rebuildStepMessages). Evaluation steps are only counted.
    const done = new Set(data.episodes.filter((e) => e.phase === "explore" && e.status === "ok").map((e) => e.episode));
    const byEpisode = new Map<number, StepRecord[]>();
    for (const s of data.steps) {
      if (s.phase !== "explore" || s.checkpoint !== null) {
        source.eval_steps_ignored++;
        continue;
      }
      if (!done.has(s.episode)) {
        source.unfinished_steps++;
        continue;
      }
      let list = byEpisode.get(s.episode);
      if (!list) byEpisode.set(s.episode, (list = []));
      if (!list.some((x) => x.step === s.step)) list.push(s);
    }
    const explore = [...byEpisode.entries()].sort(([a], [b]) => a - b).map(([, steps]) => steps.sort((a, b) => a.step - b.step));

    // Classify every step; corrections are asked for concurrently, then everything is emitted in step order.
    type Item = { step: StepRecord; episode: StepRecord[]; kind: "positive" | "low" };
    const items: Item[] = [];
    for (const episode of explore) {
      for (const s of episode) {
        runCounts.steps++;
        if (s.action === null) runCounts.unparsable++;
        else if (s.self_score === null) runCounts.unscored++;
        // The run's judge decides (docs/judging.md): the score its experience carried; under `none`
        // there is no judgment, and every step with an action and its own score is kept.
        else if (sftFilterScore(s) >= o.threshold) items.push({ step: s, episode, kind: "positive" });
        else {
          runCounts.low_scored++;
          if (o.lowScore === "correct") items.push({ step: s, episode, kind: "low" });
        }
      }
    }
    const corrections = new Map<StepRecord, CorrectionOutcome>();
    const low = items.filter((i) => i.kind === "low");
    if (low.length > 0) {
      const spec = o.correctModel ?? m.model;
      const model = modelFor(spec);
      const hidden = hiddenView(data);
      const maxTokens = protocol.max_new_tokens;
      const results = await mapPool(low, o.concurrency ?? 8, async (it) => {
        const at = { phase: "explore" as const, checkpoint: null, episode: it.step.episode, step: it.step.step };
        try {
          return await correctStep({
            model,
            game,
            runId: m.run_id,
            step: it.step,
            earlier: it.episode.filter((x) => x.step < it.step.step),
            episodeConfig: exploreConfig,
            stepMessages: rebuildStepMessages(hidden, game, at),
            threshold: o.threshold,
            maxTokens,
          });
        } catch (e) {
          throw new Error(`correction of ${m.run_id} episode ${it.step.episode} step ${it.step.step} with ${spec} failed: ${(e as Error).message}`);
        }
      });
      low.forEach((it, i) => corrections.set(it.step, results[i]!));
    }

    const emit = (s: StepRecord, messages: ChatMessage[], answer: string, prov: Omit<SftProvenance, "run_id" | "model" | "game" | "pathway" | "episode" | "seed" | "step">) => {
      const example = toSftExample([...messages, { role: "assistant", content: answer }], o.format, { maskEarlierAnswers: mask });
      const line = JSON.stringify(example);
      const key = createHash("sha256").update(line).digest("hex");
      if (seen.has(key)) {
        runCounts.duplicate++;
        return;
      }
      seen.add(key);
      runCounts.kept++;
      if (prov.corrected) runCounts.corrected++;
      if (prov.normalized) runCounts.normalized++;
      sink({ line, example, source: { run_id: m.run_id, model: m.model, game: m.game, pathway: m.pathway, episode: s.episode, seed: s.seed, step: s.step, ...prov } });
    };

    for (const it of items) {
      const s = it.step;
      const at = { phase: "explore" as const, checkpoint: null, episode: s.episode, step: s.step };
      if (it.kind === "positive") {
        const a = answerText(s.response, s.action!, s.self_score!);
        emit(s, rebuildStepMessages(data, game, at), a.text, { action: s.action!, self_score: s.self_score!, corrected: false, normalized: a.normalized });
        continue;
      }
      const r = corrections.get(s)!;
      if (!r.ok) {
        runCounts.correction_failed[r.why]++;
        continue;
      }
      emit(s, rebuildStepMessages(data, game, at), contractLines(r.action, r.selfScore), {
        action: r.action,
        self_score: r.selfScore,
        corrected: true,
        original_action: s.action!,
        original_self_score: s.self_score!,
        correct_model: o.correctModel ?? m.model,
        normalized: false,
      });
    }
    runCounts.dropped = runCounts.steps - runCounts.kept;
    source.steps = runCounts.steps;
    source.kept = runCounts.kept;
    addCounts(c, runCounts);
    sources.push(source);
  }
  const total = emptyCounts();
  for (const c of Object.values(counts)) addCounts(total, c);
  return { counts, total, sources, skipped };
}

/** One line per game (and a total) for the terminal: kept / corrected / dropped and why. */
export function formatCounts(r: Pick<BuildSftResult, "counts" | "total">, lowScore: LowScoreMode): string[] {
  const row = (name: string, c: SftCounts) => {
    const failed = CORRECTION_FAILURES.filter((k) => c.correction_failed[k] > 0).map((k) => `${k} ${c.correction_failed[k]}`);
    const why = [
      `unparsable ${c.unparsable}`,
      `unscored ${c.unscored}`,
      lowScore === "drop" ? `below threshold ${c.low_scored}` : `correction failed ${failed.length ? failed.join(", ") : 0} of ${c.low_scored} below threshold`,
      `duplicate ${c.duplicate}`,
    ];
    return `${name}\t${c.steps} steps\tkept ${c.kept}\tcorrected ${c.corrected}\tdropped ${c.dropped} (${why.join("; ")})`;
  };
  return [
    ...Object.keys(r.counts)
      .sort()
      .map((g) => row(g, r.counts[g]!)),
    row("total", r.total),
  ];
}

/**
 * The score BuildSFT's filter compares with the threshold: the judged score of the step
 * (pathways/judge.ts experienceScore: its own self-score under `self`); +Infinity under `none` (no
 * judgment: kept); -Infinity when the judge gave this step none (an unparsable external judge reply).
 */
export function sftFilterScore(s: StepRecord): number {
  const e = experienceScore(s);
  if (!e.shown) return Number.POSITIVE_INFINITY;
  return e.score ?? Number.NEGATIVE_INFINITY;
}
