/**
 * The compact, analysis-ready view of a data set: per run, the checkpoint curve's raw material (each
 * valid checkpoint's evaluation episode scores) and, for the judged pathways, three numbers per
 * exploration step (self-score, reward, episode). Observation and response text are dropped as each
 * line streams past, so memory grows by ~24 bytes per judged step instead of the full record.
 *
 * Merging: records are grouped by their own run_id (not by directory), and duplicates are resolved
 * by natural key with the LAST record winning: checkpoint x; episode (phase, checkpoint, episode);
 * step (episode, step). That makes a resumed run (an interrupted episode re-run from its start) and
 * the same run present in several data directories both count once. Two rules keep the merge of
 * copies of one run taken at different times independent of the order of the directories:
 * - an `ok` checkpoint or episode record is never replaced by a `failed` one (the runner re-plays
 *   what failed and never what succeeded, so the ok record is the later truth);
 * - an exploration episode's steps are those of the run directory its winning (ok) record came from:
 *   the runner writes the record only after the steps it claims, so that directory holds them all,
 *   while another copy may hold an interrupted attempt of the same episode.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { DIAL_SUBDIR, runsDir } from "../../logs/runDir.js";
import { LogFormatError, discoverRuns, readRunDir, type ReadWarning, type RunVisitor } from "../../logs/reader.js";
import { viewOf, type RunManifest, type ViewName } from "../../logs/schema.js";
import { NewerSchemaError, refuseNewerSchema } from "../../logs/schemaVersion.js";
import { CONTEXT_OVERFLOW } from "../../runner/monitor/runQuality.js";
import { accumulateCall, emptyRunCost, type RunCost } from "../metrics/cost.js";
import { checkShardSet } from "../../runner/shards/shardSet.js";

/** The views besides `eval` (views.md). */
export type ExtraViewName = Exclude<ViewName, "eval">;

import { JUDGED_PATHWAYS, TRAINING_PATHWAY } from "../../pathways/registry.js";
// The judged set and the training runs' name come from the pathway registry (one list of pathways).
export { JUDGED_PATHWAYS, TRAINING_PATHWAY };

/** One checkpoint of a run, as the metrics see it. */
export interface CheckpointData {
  /** Checkpoint x (exploration episodes seen), or the epoch in a training run. */
  x: number;
  /** The status written in checkpoints.jsonl. */
  status: "ok" | "failed";
  /** Status ok AND at least one score: only valid checkpoints have a value y(x). */
  valid: boolean;
  /** The scores of the checkpoint's `ok` evaluation episodes in episode order (empty when invalid). */
  scores: number[];
  /**
   * The evaluation seed of each score (parallel to `scores`), from episodes.jsonl; null when the scores
   * came from the checkpoint record alone (hand-written or converted logs), so only the episode order
   * can pair them. The bootstrap draws these seeds, not episodes (metrics.md, "Uncertainty").
   */
  seeds: number[] | null;
  /** Why it failed (from the record), or null. */
  reason: string | null;
}

/** Exploration steps of a judged run in (episode, step) order; parallel typed arrays. */
export interface ExploreSteps {
  /** Self-score s; NaN where the step was unscored (s = null in the log). */
  s: Float64Array;
  /** Verifier reward r. */
  r: Float64Array;
  /** Exploration episode index (1..N_explore). */
  episode: Int32Array;
  length: number;
}

/** One run, compact. */
export interface RunData {
  run_id: string;
  model: string;
  game: string;
  pathway: string;
  /** Run directories its records came from (more than one when shards or copies overlap). */
  sources: string[];
  /**
   * The manifest's fields that validated (null without manifest.json): a manifest is optional
   * (logs.md), and one written by another tool may lack the kit's fields (named in a warning).
   */
  manifest: Partial<RunManifest> | null;
  /** Checkpoints of the `eval` view recorded in checkpoints.jsonl, sorted by x. */
  checkpoints: CheckpointData[];
  /**
   * The other evaluation views' checkpoints (views.md: `id`, `replay`), like `checkpoints`; a view
   * the run did not play is absent. A replay checkpoint's seeds are the exploration seeds it re-played.
   */
  views: Partial<Record<ExtraViewName, CheckpointData[]>>;
  /**
   * calls.jsonl folded by what each call served (cost.ts), for cost per checkpoint; null when no
   * source has calls.jsonl. With several copies of the run, the copy holding the most calls (the
   * audit log only grows) is used, so a shard's duplicate never counts twice.
   */
  cost: RunCost | null;
  /** Exploration steps of `ok` exploration episodes; null for pathways outside JUDGED_PATHWAYS. */
  explore: ExploreSteps | null;
  /**
   * Step replies by kind, counted over every step line read (what the run loop's quality counts,
   * runner/monitor/runQuality.ts): the report judges a run whose manifest recorded no `quality` (missing,
   * or written by another tool) from these. Optional: a RunData built by hand has none.
   */
  replies?: StepReplyCounts;
  /** Counts for the report: judged exploration steps after deduplication; eval steps and other
   * pathways' exploration steps as lines read; episodes after deduplication. */
  counts: {
    steps: number;
    exploreSteps: number;
    evalSteps: number;
    episodes: number;
    /** Exploration steps left out because their episode failed or never got a record (judged runs). */
    leftOutSteps: number;
  };
}

/** Step replies of a run by kind (RunData.replies). */
export interface StepReplyCounts {
  replies: number;
  /** No parsable action or no self-score. */
  bad: number;
  /** finish_reason `length`. */
  cut: number;
  /** The game refused the action. */
  invalid: number;
  /** No answer text. */
  empty: number;
  /** Sent with earliest turns left out (`turns_dropped`). */
  dropped: number;
  /** Episodes ended by `context_overflow`. */
  overContext: number;
}

/** A loaded data set: runs sorted by (game, model, pathway, run_id), plus what was tolerated. */
export interface Dataset {
  dataDirs: string[];
  runs: RunData[];
  /** Human-readable warnings: torn lines, duplicates, inconsistencies. */
  warnings: string[];
}

export interface LoadOptions {
  /** Keep only runs of these models (exact model strings). */
  models?: readonly string[];
  /** Called for each warning as it happens (they are also collected in Dataset.warnings). */
  onWarning?: (message: string) => void;
  /**
   * Also handed every validated checkpoint, episode and step record (of every model, in reading
   * order) and every problem the reader tolerated (a torn last line), as they are read: one pass for
   * a caller that keeps more than the metrics do (loadColumns' frames).
   *
   * `asWritten: true`: the hooks take each record as its line parsed (reader.ts, `asWritten`: unknown
   * keys of nested objects kept, keys in the line's order) instead of zod's copy; for hooks that read
   * fields by name or shape every value by the schema (sqlSchema.ts `conform`), which see the same
   * values either way. zod's copy of every line was about a third of such a load's CPU.
   */
  also?: Pick<RunVisitor, "checkpoint" | "episode" | "step"> & { readWarning?: (w: ReadWarning) => void; asWritten?: boolean };
}

/** A growable Float64Array (JS arrays of numbers would cost more and may box). */
class F64 {
  data = new Float64Array(256);
  length = 0;
  push(v: number): void {
    if (this.length === this.data.length) {
      const next = new Float64Array(this.data.length * 2);
      next.set(this.data);
      this.data = next;
    }
    this.data[this.length++] = v;
  }
  /** Drops the spare capacity (called when a run directory is done, so idle runs hold no slack). */
  trim(): void {
    if (this.data.length !== this.length) this.data = this.data.slice(0, Math.max(this.length, 1));
  }
}
class I32 {
  data = new Int32Array(256);
  length = 0;
  push(v: number): void {
    if (this.length === this.data.length) {
      const next = new Int32Array(this.data.length * 2);
      next.set(this.data);
      this.data = next;
    }
    this.data[this.length++] = v;
  }
  trim(): void {
    if (this.data.length !== this.length) this.data = this.data.slice(0, Math.max(this.length, 1));
  }
}

interface CheckpointLite {
  status: "ok" | "failed";
  reason: string | null;
  scores: number[];
  mean: number | null;
}

/** An eval episode as the curve needs it. */
interface EvalEpisodeLite {
  x: number;
  episode: number;
  seed: number;
  score: number;
  ok: boolean;
  steps: number;
}

/**
 * The checkpoints of one view of a run from its checkpoint records and its ok eval episodes (episode
 * scores win over the record's; see the module comment). `label` prefixes the warnings ("" for eval).
 */
function checkpointsOf(id: string, label: string, records: ReadonlyMap<number, CheckpointLite>, episodes: ReadonlyMap<string, EvalEpisodeLite>, warn: (m: string) => void): CheckpointData[] {
  // Per-episode scores from episodes.jsonl (phase eval, status ok), grouped by checkpoint.
  const byX = new Map<number, { episode: number; seed: number; score: number }[]>();
  const orphan = new Set<number>();
  for (const e of episodes.values()) {
    if (!records.has(e.x)) orphan.add(e.x);
    if (!e.ok) continue;
    const list = byX.get(e.x) ?? [];
    list.push({ episode: e.episode, seed: e.seed, score: e.score });
    byX.set(e.x, list);
  }
  if (orphan.size > 0) {
    warn(`run ${id}: ${label}evaluation episodes for checkpoint(s) ${[...orphan].sort((a, b) => a - b).join(", ")} have no checkpoint record; ignored`);
  }
  return [...records.entries()]
    .sort((a, b) => a[0] - b[0])
    .map(([x, c]) => {
      const eps = (byX.get(x) ?? []).sort((a, b) => a.episode - b.episode);
      let scores = eps.map((e) => e.score);
      let seeds: number[] | null = eps.map((e) => e.seed);
      // A record that outlived its episodes (a damaged or emptied episodes.jsonl) is said out loud:
      // its numbers are no longer backed by the episodes they claim (a rerun plays them again).
      if (c.status === "ok" && scores.length < c.scores.length) {
        warn(
          `run ${id}: ${label}checkpoint ${x} lists ${c.scores.length} evaluation score(s) but only ${scores.length} of its evaluation episodes are in episodes.jsonl` +
            (scores.length === 0
              ? "; the record's scores are used (rerun the same command to play the missing episodes)"
              : "; the episodes on disk are used (rerun the same command to play the missing ones)"),
        );
      }
      // Hand-written or converted logs may carry the scores only in the checkpoint record.
      if (scores.length === 0 && c.status === "ok") {
        scores = c.scores.slice();
        seeds = null;
      }
      const valid = c.status === "ok" && scores.length > 0;
      if (c.status === "ok" && !valid) warn(`run ${id}: ${label}checkpoint ${x} is ok but has no evaluation scores; treated as having no value`);
      if (valid && c.mean !== null) {
        const m = scores.reduce((a, b) => a + b, 0) / scores.length;
        if (Math.abs(m - c.mean) > 1e-9 * Math.max(1, Math.abs(m))) {
          warn(`run ${id}: ${label}checkpoint ${x} record mean ${c.mean} differs from its episodes' mean ${m}; the episodes are used`);
        }
      }
      return { x, status: c.status, valid, scores: valid ? scores : [], seeds: valid ? seeds : [], reason: c.reason };
    });
}

/** Accumulates one run_id's records from any number of files; `finish` resolves duplicates. */
class RunBuilder {
  readonly sources = new Set<string>();
  manifest: Partial<RunManifest> | null = null;
  readonly checkpoints = new Map<number, CheckpointLite>();
  /** key `${checkpoint}|${episode}` -> eval episode. */
  readonly evalEpisodes = new Map<string, EvalEpisodeLite>();
  /** Calls folded per source directory (index in read order); finish keeps the largest. */
  readonly costBySrc = new Map<number, RunCost>();
  /** The other evaluation views' records (id, replay: views.md), kept apart from the eval curve. */
  readonly viewData = new Map<ExtraViewName, { checkpoints: Map<number, CheckpointLite>; evalEpisodes: Map<string, EvalEpisodeLite> }>();
  viewAcc(view: ExtraViewName): { checkpoints: Map<number, CheckpointLite>; evalEpisodes: Map<string, EvalEpisodeLite> } {
    let v = this.viewData.get(view);
    if (v === undefined) this.viewData.set(view, (v = { checkpoints: new Map(), evalEpisodes: new Map() }));
    return v;
  }
  /** exploration episode -> ok?, and the run directory (index in read order) of the winning record. */
  readonly exploreEpisodes = new Map<number, { ok: boolean; src: number; steps: number }>();
  /** Step indices seen per episode (`eval|x|e` or `explore|e`), to find gaps against the records. */
  readonly stepIndices = new Map<string, number[]>();
  /** Step arrays are filled one run directory at a time: segment k starts at `start` and came from `src`. */
  readonly stepSegments: { start: number; src: number }[] = [];
  readonly judged: boolean;
  readonly s = new F64();
  readonly r = new F64();
  readonly ep = new I32();
  readonly st = new I32();
  /** Lines read (duplicates included) of eval steps and of non-judged exploration steps. */
  evalStepLines = 0;
  exploreStepLines = 0;
  readonly replies: StepReplyCounts = { replies: 0, bad: 0, cut: 0, invalid: 0, empty: 0, dropped: 0, overContext: 0 };
  dupCheckpoints = 0;
  dupEpisodes = 0;

  constructor(
    readonly run_id: string,
    readonly model: string,
    readonly game: string,
    readonly pathway: string,
  ) {
    this.judged = JUDGED_PATHWAYS.includes(pathway);
  }

  trim(): void {
    this.s.trim();
    this.r.trim();
    this.ep.trim();
    this.st.trim();
  }

  /** Ok episodes whose steps on disk are not exactly 0..steps-1 (a cut or edited steps.jsonl). */
  private warnStepGaps(warn: (m: string) => void): void {
    const bad: string[] = [];
    const check = (key: string, steps: number, label: string): void => {
      const seen = [...new Set(this.stepIndices.get(key) ?? [])].sort((a, b) => a - b);
      const exact = seen.length === steps && seen.every((v, i) => v === i);
      if (exact) return;
      const missing: number[] = [];
      const have = new Set(seen);
      for (let i = 0; i < steps && missing.length < 4; i++) if (!have.has(i)) missing.push(i);
      bad.push(`${label} (record: ${steps} steps; on disk: ${seen.length}${missing.length > 0 ? `; missing step ${missing.join(", ")}${missing.length === 4 ? ", ..." : ""}` : ""})`);
    };
    for (const e of this.evalEpisodes.values()) if (e.ok) check(`eval|${e.x}|${e.episode}`, e.steps, `eval episode ${e.episode} of checkpoint ${e.x}`);
    for (const [episode, e] of this.exploreEpisodes) if (e.ok) check(`explore|${episode}`, e.steps, `exploration episode ${episode}`);
    this.stepIndices.clear();
    if (bad.length > 0) warn(`run ${this.run_id}: ${bad.length} episode(s) with gaps in their step indices: ${bad.slice(0, 3).join("; ")}${bad.length > 3 ? `; and ${bad.length - 3} more` : ""}`);
  }

  private largestCost(): RunCost | null {
    let best: RunCost | null = null;
    let bestN = -1;
    const count = (c: RunCost) => c.other.calls + [...c.explore.values(), ...c.eval.values()].reduce((a, u) => a + u.calls, 0);
    for (const src of [...this.costBySrc.keys()].sort((a, b) => a - b)) {
      const c = this.costBySrc.get(src) as RunCost;
      const n = count(c);
      if (n > bestN) [best, bestN] = [c, n];
    }
    return best;
  }

  finish(warn: (m: string) => void): RunData {
    const id = this.run_id;
    if (this.dupCheckpoints > 0) warn(`run ${id}: ${this.dupCheckpoints} duplicate checkpoint record(s); the last of each is used (an ok one is never replaced by a failed one)`);
    if (this.dupEpisodes > 0) warn(`run ${id}: ${this.dupEpisodes} duplicate episode record(s); the last of each is used (an ok one is never replaced by a failed one)`);

    this.warnStepGaps(warn);
    const checkpoints = checkpointsOf(id, "", this.checkpoints, this.evalEpisodes, warn);
    const views: RunData["views"] = {};
    for (const [view, v] of [...this.viewData].sort((a, b) => compareText(a[0], b[0]))) views[view] = checkpointsOf(id, `${view} view `, v.checkpoints, v.evalEpisodes, warn);

    let explore: ExploreSteps | null = null;
    let exploreSteps = 0;
    let leftOutSteps = 0;
    if (this.judged) {
      // Keep steps of ok exploration episodes, from the run directory of the episode's record; for a
      // repeated (episode, step) the last line wins.
      const n = this.s.length;
      const order: number[] = [];
      let dropped = 0;
      let otherCopy = 0;
      let seg = 0;
      for (let i = 0; i < n; i++) {
        while (seg + 1 < this.stepSegments.length && (this.stepSegments[seg + 1] as { start: number }).start <= i) seg++;
        const src = (this.stepSegments[seg] as { src: number }).src;
        const rec = this.exploreEpisodes.get(this.ep.data[i] as number);
        if (rec === undefined || !rec.ok) dropped++;
        else if (rec.src !== src) otherCopy++;
        else order.push(i);
      }
      if (dropped > 0) warn(`run ${id}: ${dropped} exploration step(s) without an ok episode record left out`);
      leftOutSteps = dropped;
      if (otherCopy > 0) warn(`run ${id}: ${otherCopy} exploration step(s) of another copy of the run left out (an episode's steps come from the directory of its ok record)`);
      const ep = this.ep.data;
      const st = this.st.data;
      order.sort((a, b) => (ep[a] as number) - (ep[b] as number) || (st[a] as number) - (st[b] as number) || a - b);
      const keep: number[] = [];
      for (let k = 0; k < order.length; k++) {
        const i = order[k] as number;
        const next = order[k + 1];
        if (next !== undefined && ep[next] === ep[i] && st[next] === st[i]) continue; // superseded
        keep.push(i);
      }
      const m = keep.length;
      explore = { s: new Float64Array(m), r: new Float64Array(m), episode: new Int32Array(m), length: m };
      for (let k = 0; k < m; k++) {
        const i = keep[k] as number;
        explore.s[k] = this.s.data[i] as number;
        explore.r[k] = this.r.data[i] as number;
        explore.episode[k] = ep[i] as number;
      }
      exploreSteps = m;
    } else {
      exploreSteps = this.exploreStepLines;
    }
    return {
      run_id: id,
      model: this.model,
      game: this.game,
      pathway: this.pathway,
      sources: [...this.sources],
      manifest: this.manifest,
      checkpoints,
      views,
      cost: this.largestCost(),
      explore,
      replies: { ...this.replies },
      counts: {
        steps: exploreSteps + this.evalStepLines,
        exploreSteps,
        evalSteps: this.evalStepLines,
        episodes: this.evalEpisodes.size + this.exploreEpisodes.size,
        leftOutSteps,
      },
    };
  }
}

/**
 * The order of names (games, models, pathways, run_ids) everywhere in the analysis: UTF-16 code-unit
 * order, never `localeCompare`. Collation depends on the process locale (in Czech "ch" sorts after
 * "h", so `deepseek-chat` would follow `deepseek-coder`), and the order fixes the rows, the block order
 * that breaks tertile ties and the pooled bootstraps' draws: the same seed must give the same digits on
 * every machine.
 */
export function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * A view of a data set with only the runs of the given models (exact strings). The game-level facts
 * (each game's NMAE reward range, the games the completeness rule requires) belong to the whole data
 * set: pass the unfiltered one as `reference` to buildReport so that a model's numbers do not depend on
 * which other models were selected (`s3gym report --models` does).
 */
export function filterModels(ds: Dataset, models: readonly string[]): Dataset {
  const keep = new Set(models);
  return { ...ds, runs: ds.runs.filter((r) => keep.has(r.model)) };
}

/** Compares two runs for the canonical order (game, model, pathway, run_id). */
export function compareRuns(a: RunData, b: RunData): number {
  return compareText(a.game, b.game) || compareText(a.model, b.model) || compareText(a.pathway, b.pathway) || compareText(a.run_id, b.run_id);
}

/**
 * The judge dial's runs (reproduce plays them with their own protocol under `<data>/dial`), for
 * buildReport's `dial` option: the same data set in `s3gym report` and in the notebooks; undefined
 * when no given directory has one.
 */
export async function loadDialDataset(dataDirs: readonly string[]): Promise<Dataset | undefined> {
  const dirs = dataDirs.map((d) => join(d, DIAL_SUBDIR)).filter((d) => existsSync(runsDir(d)));
  return dirs.length > 0 ? loadDataset(dirs) : undefined;
}

/**
 * Loads one or more data directories into a compact Dataset, streaming every file.
 * Contract: every line is validated (LogFormatError names file, line, field); torn last lines and
 * duplicates become warnings; a run_id whose records disagree on model/game/pathway is an error.
 * Only the fields the metrics need are kept (see the module comment).
 */
export async function loadDataset(dataDirs: string | readonly string[], opts: LoadOptions = {}): Promise<Dataset> {
  const dirs = typeof dataDirs === "string" ? [dataDirs] : [...dataDirs];
  // Shards of one plan are one data set, or refused before a line is read (runner/shards/shardSet.ts).
  checkShardSet(dirs);
  const warnings: string[] = [];
  const warn = (m: string): void => {
    warnings.push(m);
    opts.onWarning?.(m);
  };
  const also: NonNullable<LoadOptions["also"]> = opts.also ?? {};
  const onWarning = (w: ReadWarning): void => {
    also.readWarning?.(w);
    warn(`${w.file}:${w.line}: ${w.message}`);
  };
  const wanted = opts.models ? new Set(opts.models) : null;
  const builders = new Map<string, RunBuilder>();

  const builderFor = (rec: { run_id: string; model: string; game: string; pathway: string }, file: string, line: number): RunBuilder | null => {
    if (wanted && !wanted.has(rec.model)) return null;
    let b = builders.get(rec.run_id);
    if (b === undefined) {
      b = new RunBuilder(rec.run_id, rec.model, rec.game, rec.pathway);
      builders.set(rec.run_id, b);
    } else if (b.model !== rec.model || b.game !== rec.game || b.pathway !== rec.pathway) {
      const field = b.model !== rec.model ? "model" : b.game !== rec.game ? "game" : "pathway";
      throw new LogFormatError(file, line, field, `run ${rec.run_id} was seen as (${b.model}, ${b.game}, ${b.pathway}); this line says (${rec.model}, ${rec.game}, ${rec.pathway})`);
    }
    return b;
  };

  const locations = discoverRuns(dirs, warn);
  for (let src = 0; src < locations.length; src++) {
    const loc = locations[src] as (typeof locations)[number];
    const before = new Set(builders.keys());
    let pendingManifest: { m: Partial<RunManifest>; file: string } | null = null;
    // One run whose files cannot be read is left out, named, and the others are computed: one bad
    // line must not make report and view refuse the whole data directory.
    const read = readRunDir(
      loc.runDir,
      {
        manifestLenient: (m, file) => {
          refuseNewerSchema(m.fields, file);
          if (m.problems.length > 0) {
            warn(
              `${file}: ${m.problems.length} field(s) not used: ${m.problems.slice(0, 8).join(", ")}${m.problems.length > 8 ? ", ..." : ""} (a manifest is optional: the three JSONL files are what the analysis requires; the fields that validate are used)`,
            );
          }
          pendingManifest = { m: m.fields, file };
        },
        checkpoint: (r, file, line) => {
          also.checkpoint?.(r, file, line);
          const b = builderFor(r, file, line);
          if (!b) return;
          b.sources.add(loc.runDir);
          // The curve tables are the protocol's `eval` view; the id and replay views (views.md) are kept apart.
          const view = viewOf(r);
          const cps = view === "eval" ? b.checkpoints : b.viewAcc(view).checkpoints;
          const prev = cps.get(r.checkpoint);
          if (prev !== undefined) b.dupCheckpoints++;
          if (prev?.status === "ok" && r.status !== "ok") return; // an ok record is never undone
          cps.set(r.checkpoint, { status: r.status, reason: r.reason, scores: r.scores, mean: r.mean });
        },
        episode: (r, file, line) => {
          also.episode?.(r, file, line);
          const b = builderFor(r, file, line);
          if (!b) return;
          b.sources.add(loc.runDir);
          if (r.error?.startsWith(CONTEXT_OVERFLOW) === true) b.replies.overContext++;
          if (r.phase === "eval") {
            if (r.checkpoint === null) throw new LogFormatError(file, line, "checkpoint", "an eval episode needs a checkpoint");
            const view = viewOf(r);
            const eps = view === "eval" ? b.evalEpisodes : b.viewAcc(view).evalEpisodes;
            const key = `${r.checkpoint}|${r.episode}`;
            const prev = eps.get(key);
            if (prev !== undefined) b.dupEpisodes++;
            if (prev?.ok === true && r.status !== "ok") return;
            eps.set(key, { x: r.checkpoint, episode: r.episode, seed: r.seed, score: r.score, ok: r.status === "ok", steps: r.steps });
          } else {
            const prev = b.exploreEpisodes.get(r.episode);
            if (prev !== undefined) b.dupEpisodes++;
            if (prev?.ok === true && r.status !== "ok") return;
            b.exploreEpisodes.set(r.episode, { ok: r.status === "ok", src, steps: r.steps });
          }
        },
        call: (r) => {
          // A call record carries only run_id: it joins a run seen in this directory's other files.
          const b = builders.get(r.run_id);
          if (!b || (wanted && !wanted.has(b.model))) return;
          let acc = b.costBySrc.get(src);
          if (acc === undefined) b.costBySrc.set(src, (acc = emptyRunCost()));
          accumulateCall(acc, r);
        },
        step: (r, file, line) => {
          also.step?.(r, file, line);
          const b = builderFor(r, file, line);
          if (!b) return;
          b.sources.add(loc.runDir);
          const q = b.replies;
          q.replies++;
          if (r.action === null || r.self_score === null) q.bad++;
          if (r.finish_reason === "length") q.cut++;
          if (!r.valid) q.invalid++;
          if (r.response.trim() === "" && r.answer_source === undefined) q.empty++;
          if ((r.turns_dropped ?? 0) > 0) q.dropped++;
          // View steps are not needed by any metric (the views' tables read episode scores).
          if (r.phase === "eval" && viewOf(r) !== "eval") return;
          const stepsKey = r.phase === "eval" ? `eval|${r.checkpoint}|${r.episode}` : `explore|${r.episode}`;
          const seen = b.stepIndices.get(stepsKey);
          if (seen) seen.push(r.step);
          else b.stepIndices.set(stepsKey, [r.step]);
          if (r.phase === "eval") {
            b.evalStepLines++;
          } else if (b.judged) {
            // The only per-step data kept: s, r and the (episode, step) key (and, per run directory, where
            // its steps start in these arrays).
            const last = b.stepSegments[b.stepSegments.length - 1];
            if (last === undefined || last.src !== src) b.stepSegments.push({ start: b.s.length, src });
            b.s.push(r.self_score === null ? Number.NaN : r.self_score);
            b.r.push(r.reward);
            b.ep.push(r.episode);
            b.st.push(r.step);
          } else {
            b.exploreStepLines++;
          }
        },
      },
      // The loader reads fields by name, so zod's copy of each record is not needed; a caller's own
      // hooks (also) get zod's copy unless they say they read the records as written.
      { onWarning, asWritten: also.asWritten === true || (also.checkpoint === undefined && also.episode === undefined && also.step === undefined) },
    ).then(
      () => true,
      (e: unknown) => {
        if (!(e instanceof LogFormatError) && !(e instanceof NewerSchemaError)) throw e;
        for (const id of [...builders.keys()]) if (!before.has(id)) builders.delete(id);
        if (e instanceof NewerSchemaError) {
          warn(`left out run ${loc.name}: ${e.message}`);
          return false;
        }
        const fix =
          e.field === "(file)" && e.line === 0
            ? "replace that file with the run's own log, or remove the run"
            : "fix or remove that line, or rerun the run's command: resume moves a damaged line to <file>.damaged";
        warn(`left out run ${loc.name}: ${e.message} (${fix})`);
        return false;
      },
    );
    if (!(await read)) continue;
    // The manifest belongs to the run its records name; the records decide (a manifest's own identity
    // fields may be missing, and one that contradicts the records is not used).
    const pm = pendingManifest as { m: Partial<RunManifest>; file: string } | null;
    if (pm !== null) {
      const touched = [...builders.values()].filter((b) => b.sources.has(loc.runDir));
      const target = pm.m.run_id !== undefined ? touched.find((b) => b.run_id === pm.m.run_id) : touched.length === 1 ? touched[0] : undefined;
      const clash = target && (["model", "game", "pathway"] as const).find((k) => pm.m[k] !== undefined && pm.m[k] !== target[k]);
      if (target === undefined) {
        if (touched.length > 0)
          warn(
            `${pm.file}: names ${pm.m.run_id === undefined ? "no run_id" : `run ${pm.m.run_id}`}, which does not match the run(s) of its directory (${touched.map((b) => b.run_id).join(", ") || "none"}); not used`,
          );
      } else if (clash) {
        warn(`${pm.file}: field '${clash}' says ${String(pm.m[clash])} but the run's records say ${target[clash]}; manifest not used`);
      } else {
        target.manifest = pm.m;
      }
    }
    // Runs touched by this directory give back their buffers' spare capacity.
    for (const [id, b] of builders) if (!before.has(id) || b.sources.has(loc.runDir)) b.trim();
  }
  const runs = [...builders.values()].map((b) => b.finish(warn)).sort(compareRuns);
  return { dataDirs: dirs, runs, warnings };
}
