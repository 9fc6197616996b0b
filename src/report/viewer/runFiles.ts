/**
 * One run's three files (see build.ts for the site's layout): `r<i>d.js` (every episode's steps),
 * `r<i>p.js` (their packed prompts and the run's text pool) and `r<i>.js` (the run page). A run is
 * read with its text (src/logs/mergedRun.ts), written and dropped; the episode and prompt files are
 * streamed one episode at a time.
 *
 * `writeRun` takes only plain data (a RunJob: what the data set's analysis decided about the run)
 * and returns plain data, so it runs the same in the build's own thread or in a worker
 * (runWorker.ts): the output does not depend on where it ran.
 */
import { existsSync } from "node:fs";
import { open } from "node:fs/promises";
import { namedWriteError, writeFileNamed } from "../../util/atomicWrite.js";
import { join } from "node:path";
import { splitReasoning } from "../../agent/parseResponse.js";
import { compareText } from "../../analysis/load/dataset.js";
import type { StepRecord } from "../../logs/schema.js";
import { fmt3 } from "../tables.js";
import { summarizeCalls, type UsageTotals } from "../../runner/monitor/usage.js";
import { lineDiff } from "./diff.js";
import { successThreshold } from "../../games/successThreshold.js";
import { episodePrompts, replayInput, TextPool } from "./prompts.js";
import { readMergedRun, viewOf, type MergedEpisode, type MergedRun } from "../../logs/mergedRun.js";

/** The text of a chunk file: one call of the page's loader; JSON is a valid JS expression. */
export function chunkScript(key: string, data: unknown): string {
  return `S3V_CHUNK(${JSON.stringify(key)}, ${JSON.stringify(data)});\n`;
}

/** A step is over-confident when the model claimed a gain the verifier did not give: s > 0 and r <= 0. */
export function isOverConfident(s: { self_score: number | null; reward: number }): boolean {
  return s.self_score !== null && s.self_score > 0 && s.reward <= 0;
}

function episodeLabel(e: { phase: string; checkpoint: number | null; episode: number; view: string }): string {
  if (e.phase === "explore") return `explore ${e.episode}`;
  return `x=${e.checkpoint} ${e.view === "eval" ? "eval" : e.view} ${e.episode}`;
}

export interface StepView {
  step: number;
  observation: string;
  reasoning: string;
  answer: string;
  action: string | null;
  parse_error: string | null;
  self_score: number | null;
  reward: number;
  score_after: number;
  valid: boolean;
  feedback: string;
  done: boolean;
  tokens_in: number;
  tokens_out: number;
  latency_ms: number;
  cached: boolean;
  over: boolean;
  /** Hybrid runs: the retrieved earlier exploration steps this step's prompt showed (`retrieved_steps`), as text; absent elsewhere. */
  retrieved?: string;
}

/** A step as its page shows it (the episode file's step); the packed prompts refer to its observation, feedback and answer. */
export function stepView(s: StepRecord): StepView {
  const split = splitReasoning(s.response);
  // A reasoning model's separate reasoning text, when the log carries it, goes with the think block.
  const extra = typeof (s as { reasoning?: unknown }).reasoning === "string" ? ((s as { reasoning?: string }).reasoning as string) : "";
  return {
    step: s.step,
    observation: s.observation,
    reasoning: [extra, split.reasoning].filter((t) => t.length > 0).join("\n\n"),
    answer: split.visible.replace(/^\s*\n/, ""),
    action: s.action,
    parse_error: s.parse_error,
    self_score: s.self_score,
    reward: s.reward,
    score_after: s.score_after,
    valid: s.valid,
    feedback: s.feedback,
    done: s.done,
    tokens_in: s.tokens_in,
    tokens_out: s.tokens_out,
    latency_ms: s.latency_ms,
    cached: s.cached === true,
    over: isOverConfident(s),
    ...retrievedOf(s),
  };
}

/** "episode 3 step 5, episode 1 step 2" (steps 1-based, as the prompt shows them); "none" for an empty list. */
function retrievedOf(s: StepRecord): { retrieved?: string } {
  const refs = s.retrieved_steps;
  if (refs === undefined) return {};
  return { retrieved: refs.length === 0 ? "none" : refs.map((r) => `episode ${r.episode} step ${r.step + 1}`).join(", ") };
}

/** What the build decided about a run from the whole data set (plain data: it may cross to a worker). */
export interface RunJob {
  /** The run's number: its files are r<i>*.js. */
  i: number;
  run_id: string;
  model: string;
  game: string;
  pathway: string;
  training: boolean;
  /** Run directories its records come from (shards and copies). */
  sources: string[];
  status: string;
  statusNote: string;
  /** The run page's metrics, formatted as `report` formats them. */
  metrics: { name: string; text: string }[];
  /** The run page's curve (build.ts curveView). */
  curve: unknown[];
  curveNote: string;
}

/** What writing a run found (plain data), for the overview and the totals. */
export interface RunResult {
  i: number;
  /** Evaluation views the run's episodes played. */
  views: string[];
  episodes: number;
  steps: number;
  /** Files and bytes written. */
  chunks: number;
  bytes: number;
}

/**
 * The run's calls, tokens and dollars (calls.jsonl). Copies of one run in several directories hold
 * the same calls up to where each copy was taken, so adding them would count calls twice: the copy
 * with the most calls is used.
 */
export function usageOf(sources: readonly string[]): UsageTotals | null {
  let best: UsageTotals | null = null;
  for (const d of sources) {
    if (!existsSync(join(d, "calls.jsonl"))) continue;
    const u = summarizeCalls(d);
    if (best === null || u.calls > best.calls) best = u;
  }
  return best;
}

/** Writes run `job.i`'s three files into `chunkDir`. */
export async function writeRun(job: RunJob, chunkDir: string): Promise<RunResult> {
  let bytes = 0;
  let chunks = 0;
  /**
   * A chunk written piece by piece (`S3V_CHUNK(key, {"eps":[...], ...fields})`): one item in memory at
   * a time; `end` may add fields after the list (the prompt file's text pool).
   */
  const streamed = async (key: string) => {
    const path = join(chunkDir, `${key}.js`);
    const fh = await open(path, "w").catch((e: unknown) => {
      throw namedWriteError(path, e);
    });
    let first = true;
    const put = async (text: string) => {
      try {
        await fh.writeFile(text);
      } catch (e) {
        await fh.close().catch(() => undefined);
        throw namedWriteError(path, e);
      }
      bytes += Buffer.byteLength(text);
    };
    await put(`S3V_CHUNK(${JSON.stringify(key)}, {"eps":[`);
    return {
      add: async (item: unknown) => {
        await put(`${first ? "" : ",\n"}${JSON.stringify(item)}`);
        first = false;
      },
      end: async (fields: Record<string, unknown> = {}) => {
        const extra = Object.entries(fields)
          .map(([k, v]) => `,${JSON.stringify(k)}:${JSON.stringify(v)}`)
          .join("");
        await put(`]${extra}});\n`);
        await fh.close();
        chunks++;
      },
    };
  };
  const { i } = job;
  const merged: MergedRun = await readMergedRun(job.sources, {
    onWarning: () => undefined, // the build's loader (build.ts loadDataset) already reported every torn line
  });
  const replay = replayInput(merged);
  let totalSteps = 0;

  const episodeFile = await streamed(`r${i}d`);
  const promptFile = await streamed(`r${i}p`);
  const pool = new TextPool();
  const episodeRows: Record<string, unknown>[] = [];
  const byCheckpoint = new Map<number, { j: number; label: string; score: string }[]>();
  const runViews = new Set<string>();
  for (let j = 0; j < merged.episodes.length; j++) {
    const ep = merged.episodes[j] as MergedEpisode;
    const head = ep.record ?? (ep.steps[0] as StepRecord);
    const view = viewOf(head as { phase: string; view?: unknown });
    if (head.phase === "eval") runViews.add(view);
    const steps = ep.steps.map(stepView);
    let scale = 0;
    for (const st of steps) scale = Math.max(scale, Math.abs(st.reward), Math.abs(st.self_score ?? 0));
    const prompts = episodePrompts(replay, ep, pool, steps);
    const base = { phase: head.phase, checkpoint: head.checkpoint, episode: head.episode, view };
    const label = episodeLabel(base);
    const status = ep.record ? ep.record.status : "unfinished";
    const score = ep.record ? String(ep.record.score) : "";
    const episode = {
      i,
      j,
      run_id: job.run_id,
      title: `${label} (seed ${head.seed})`,
      ...base,
      config: head.config,
      seed: head.seed,
      status,
      error: ep.record?.error ?? (ep.record ? null : "no episode record: the episode did not finish"),
      score,
      started_at: ep.record?.started_at ?? null,
      ended_at: ep.record?.ended_at ?? null,
      end_observation: typeof (ep.record as { end_observation?: unknown } | null)?.end_observation === "string" ? (ep.record as unknown as { end_observation: string }).end_observation : null,
      prompt: typeof prompts === "string" ? prompts : true,
      scale,
      steps,
    };
    // Item j of the run's episode and prompt files: the episode; its packed prompts when rebuildable.
    await episodeFile.add(episode);
    await promptFile.add(typeof prompts === "string" ? null : prompts);
    episodeRows.push({
      j,
      label,
      ...base,
      seed: head.seed,
      status,
      error: ep.record?.error ?? null,
      score,
      steps: steps.length,
      over: steps.filter((s) => s.over).length,
      parseErrors: steps.filter((s) => s.parse_error !== null).length,
    });
    if (head.phase === "eval" && head.checkpoint !== null) {
      const list = byCheckpoint.get(head.checkpoint) ?? [];
      // A failed episode's score means nothing (metrics leave it out): its status stands instead.
      list.push({ j, label: view === "eval" ? `#${head.episode}` : `${view} #${head.episode}`, score: status === "ok" ? score : status });
      byCheckpoint.set(head.checkpoint, list);
    }
    totalSteps += steps.length;
  }
  await episodeFile.end();
  await promptFile.end({ texts: pool.entries });

  const memory = merged.memory.map((m, k) => ({
    after_episode: m.after_episode,
    parsed: m.parsed,
    error: m.error,
    diff: lineDiff(k > 0 ? (merged.memory[k - 1]?.text ?? "") : "", m.text),
  }));
  const usage = usageOf(job.sources);
  const page = chunkScript(`r${i}`, {
    i,
    run_id: job.run_id,
    model: job.model,
    game: job.game,
    pathway: job.pathway,
    training: job.training,
    status: job.status,
    statusNote: job.statusNote,
    /** The episode score at which the game counts an episode solved (null: not a game of the kit): the comparison page's flips. */
    successThreshold: successThreshold(job.game),
    metrics: job.metrics,
    curve: job.curve,
    curveNote: job.curveNote,
    checkpoints: merged.checkpoints.map((c) => ({
      x: c.checkpoint,
      status: c.status,
      mean: fmt3(c.mean),
      reason: c.reason,
      episodes: byCheckpoint.get(c.checkpoint) ?? [],
    })),
    memory,
    usage,
    usageNote:
      usage === null
        ? ""
        : `From calls.jsonl${job.sources.length > 1 ? ` (of the copy with the most calls, among ${job.sources.length} directories)` : ""}: every model call (steps, summaries, corrections) of every invocation; cost_usd from the price table, when one was given.`,
    manifest: merged.manifest === null ? (merged.manifestProblem ?? null) : JSON.stringify(merged.manifest, null, 2),
    sources: job.sources,
    episodes: episodeRows,
  });
  await writeFileNamed(join(chunkDir, `r${i}.js`), page);
  bytes += Buffer.byteLength(page);
  chunks++;
  return { i, views: [...runViews].sort(compareText), episodes: merged.episodes.length, steps: totalSteps, chunks, bytes };
}
