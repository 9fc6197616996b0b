/**
 * The `hybrid` pathway (docs/memory.md): Summary Memory's triple (retain / avoid / next, written and
 * logged exactly as the memory pathway writes it, memory.jsonl) plus, at every step, the k earlier
 * exploration steps whose observations are most similar to the step's current observation, each with
 * its observation, declared tactic, action, the score the run's judge gave it (pathways/judge.ts) and
 * the feedback the agent saw. The summary keeps what compresses into rules; the raw steps keep board
 * detail the summary drops.
 *
 * Retrieval is MiniSearch's BM25+ ranking (a maintained npm full-text index) over the observations of
 * the consolidated exploration episodes' steps: the state Z_x indexes episodes 1..x only, so explore
 * episode x+1 and checkpoint x retrieve from what was explored before them, never later.
 *
 * Budget: the experience shares History's budget at the step (history.ts experienceBudget: context
 * minus the reply reserve minus the step's messages without experience). The summary is reserved
 * `summaryShare` of it and is never cut (as under `memory`); the snippets get the rest, at most
 * (1 - summaryShare) of the budget: ranked snippets are added in rank order and the list stops at
 * the first that does not fit. Token counts are additive over pieces, as History's (an upper bound).
 *
 * Terms are distinct words and numbered whole lines (retrievalTerms), so a term counts once per
 * observation; the terms in more than half of an index's steps are its stop terms, left out of the
 * index and the query (STOP_TERM_SHARE). Ranking ties (equal BM25+ scores) go to the earlier exploration episode, then the earlier step. The
 * step records of a hybrid run carry `memory_version` and `retrieved_steps` (which snippets it saw,
 * in the order shown), which pin the experience text: replay rebuilds the same snippets from the logs.
 */
import MiniSearch from "minisearch";
import { RETRIEVED_TITLE, retrievedStepText, type Trajectory } from "../agent/trajectoryText.js";
import { memoryExperience, memoryPathway, type MemoryVersion } from "./memory.js";
import type { TokenCounter } from "../models/tokenCounter.js";
import { experienceBudget } from "./history.js";
import { trajectoryFromSteps } from "./trajectory.js";
import { definePathway, type PathwayLogs, type PathwaySettings } from "./types.js";
import type { Option } from "../util/options.js";

/** Snippets retrieved per step when `--hybrid-k` is not given. */
export const DEFAULT_HYBRID_K = 4;
/** Share of the experience budget reserved for the summary when `--hybrid-summary-share` is not given. */
export const DEFAULT_HYBRID_SUMMARY_SHARE = 0.25;

/** One earlier exploration step, as the index holds it and a snippet shows it. */
export interface IndexedStep {
  episode: number;
  /** 0-based, as in steps.jsonl. */
  step: number;
  observation: string;
  tactic: string | null;
  action: string | null;
  /** The score the run's judge gave the step (null: none); `scoresShown` false under `--judge none`. */
  score: number | null;
  scoresShown: boolean;
  feedback: string;
}

export interface HybridState {
  memory: MemoryVersion;
  /** Every step of exploration episodes 1..memory.afterEpisode, episode then step order. */
  steps: readonly IndexedStep[];
}

/** A retrieved step's reference, as a step record writes it. */
export interface StepRef {
  episode: number;
  step: number;
}

/** `--hybrid-k`: an integer in 0..1000; the default reads as unset. */
function parseHybridK(v: string): number | undefined {
  const t = v.trim();
  if (!/^\d{1,4}$/.test(t) || Number(t) > 1000) throw new Error(`expected an integer in 0..1000, got '${t.slice(0, 40)}'`);
  const n = Number(t);
  return n === DEFAULT_HYBRID_K ? undefined : n;
}

/** `--hybrid-summary-share`: a share in [0, 1] or a percentage; the default reads as unset. */
function parseSummaryShare(v: string): number | undefined {
  const t = v.trim();
  const m = /^(\d{1,3}(?:\.\d{1,6})?)%$/.exec(t);
  const x = m ? Number(m[1]) / 100 : /^\d(?:\.\d{1,8})?$/.test(t) ? Number(t) : Number.NaN;
  if (!(x >= 0 && x <= 1)) throw new Error(`expected a share in 0..1 or a percentage (25%), got '${t.slice(0, 40)}'`);
  return x === DEFAULT_HYBRID_SUMMARY_SHARE ? undefined : x;
}

/** A recorded hybrid setting, read back as its flag would (the default reads as unset); throws naming `where`. */
function parseRecorded(r: unknown, where: string, key: string, parse: (v: string) => number | undefined): number | undefined {
  if (typeof r !== "number") throw new Error(`${where}.${key}: expected a number, got ${JSON.stringify(r)}`);
  try {
    return parse(String(r));
  } catch (e) {
    throw new Error(`${where}.${key}: ${(e as Error).message}`);
  }
}

/** One hybrid setting's flag (an option row without its default) and its manifest record. */
interface HybridSettingRow {
  flag: Omit<Option<number | undefined>, "default">;
  record: { key: string; compared: boolean; write(v: number | undefined): unknown; read(r: unknown, where: string): number | undefined };
}

/**
 * The hybrid pathway's own settings, as protocol rows (runner/settings/protocolSettings.ts lists them
 * by key): unset unless the flag gives another value than the default, and recorded only then, so no
 * other run's settings, protocol or data directory change; compared on resume, because the run id
 * does not name them.
 */
export const HYBRID_SETTING_ROWS: { hybridK: HybridSettingRow; hybridSummaryShare: HybridSettingRow } = {
  hybridK: {
    flag: { name: "hybrid-k", kind: { type: "text", shown: String(DEFAULT_HYBRID_K), parse: parseHybridK }, help: "hybrid pathway: earlier exploration steps retrieved per step (docs/memory.md)" },
    record: { key: "hybrid_k", compared: true, write: (v) => v, read: (r, where) => (r === undefined ? undefined : parseRecorded(r, where, "hybrid_k", parseHybridK)) },
  },
  hybridSummaryShare: {
    flag: {
      name: "hybrid-summary-share",
      kind: { type: "text", shown: `${DEFAULT_HYBRID_SUMMARY_SHARE * 100}%`, parse: parseSummaryShare },
      help: "hybrid pathway: share of the experience budget reserved for the summary, 0..1 or a percentage (docs/memory.md)",
    },
    record: { key: "hybrid_summary_share", compared: true, write: (v) => v, read: (r, where) => (r === undefined ? undefined : parseRecorded(r, where, "hybrid_summary_share", parseSummaryShare)) },
  },
};

/** The hybrid settings of a run (absent in the settings: the defaults). */
export function hybridSettings(s: PathwaySettings): { k: number; summaryShare: number } {
  return { k: s.hybridK ?? DEFAULT_HYBRID_K, summaryShare: s.hybridSummaryShare ?? DEFAULT_HYBRID_SUMMARY_SHARE };
}

/** The hybrid fields of a run's settings that are set (what the pathway settings carry from the protocol settings). */
export function hybridOf(s: { hybridK?: number; hybridSummaryShare?: number }): Pick<PathwaySettings, "hybridK" | "hybridSummaryShare"> {
  return { ...(s.hybridK !== undefined ? { hybridK: s.hybridK } : {}), ...(s.hybridSummaryShare !== undefined ? { hybridSummaryShare: s.hybridSummaryShare } : {}) };
}

function indexedSteps(t: Trajectory): IndexedStep[] {
  return t.steps.map((s, i) => ({
    episode: t.episode,
    step: i,
    observation: s.observation,
    tactic: s.tactic ?? null,
    action: s.action,
    score: s.selfScore,
    scoresShown: t.scoresShown !== false,
    feedback: s.feedback,
  }));
}

/**
 * The terms of a text for the index and the query: every distinct whitespace-separated word, and
 * every non-empty line whole with its line number (`3|. X . 1`), so that boards sharing rows at the
 * same place match more than boards sharing only symbols; each term once (in first-seen order), so a
 * board's two hundred `.` are one term, not two hundred lookups per query. Linear in the text.
 */
export function retrievalTerms(text: string): string[] {
  const out = new Set<string>();
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!.trim();
    if (line.length === 0) continue;
    out.add(`${i}|${line}`);
    for (const w of line.split(/\s+/)) if (w.length > 0) out.add(w);
  }
  return [...out];
}

/**
 * A term is a stop term of an index when it occurs in more than this share of the indexed steps. Above
 * half, the classic BM25 weight of a term (Robertson-Sparck Jones, ln((N - n + 0.5) / (n + 0.5)))
 * is negative: its presence says less about a step than its absence. MiniSearch keeps such weights
 * positive but small (ln 2 at half the steps, near 0 at all of them) and still pays a result per step
 * that holds the term, so on game boards, where a few dozen words and empty rows occur in nearly every
 * step, those terms were almost all of a query's cost and almost none of its ranking.
 */
export const STOP_TERM_SHARE = 0.5;

/** Document frequencies of lower-cased terms (each counted once per text) over texts' term lists. */
function documentFrequencies(termLists: readonly (readonly string[])[]): Map<string, number> {
  const df = new Map<string, number>();
  for (const terms of termLists) for (const t of new Set(terms.map((x) => x.toLowerCase()))) df.set(t, (df.get(t) ?? 0) + 1);
  return df;
}

/** The terms in more than STOP_TERM_SHARE of `count` texts, given their document frequencies (fewer than two texts: none). */
function stopTermsOf(df: ReadonlyMap<string, number>, count: number): Set<string> {
  const stop = new Set<string>();
  if (count < 2) return stop;
  const limit = STOP_TERM_SHARE * count;
  for (const [t, n] of df) if (n > limit) stop.add(t);
  return stop;
}

/**
 * The stop terms of an index over these observations: the lower-cased terms in more than
 * STOP_TERM_SHARE of them (an index of one step has none: there is nothing to separate it from).
 * Depends on the indexed steps only, so live, resumed and replayed runs drop the same terms.
 */
export function stopTerms(observations: readonly string[]): Set<string> {
  return stopTermsOf(documentFrequencies(observations.map(retrievalTerms)), observations.length);
}

/** The retrieval index of one state: built on first use, shared by every step and snapshot that reads the state. */
class StepIndex {
  private readonly search: MiniSearch<{ id: number; observation: string }>;
  private readonly ranked = new Map<string, number[]>();
  constructor(private readonly steps: readonly IndexedStep[]) {
    // Each distinct observation is split into terms once, for the frequencies and for the index.
    const termsOf = new Map<string, string[]>();
    for (const s of steps) if (!termsOf.has(s.observation)) termsOf.set(s.observation, retrievalTerms(s.observation));
    const df = documentFrequencies(steps.map((s) => termsOf.get(s.observation)!));
    const stop = stopTermsOf(df, steps.length);
    this.search = new MiniSearch({
      fields: ["observation"],
      idField: "id",
      tokenize: (text) => termsOf.get(text) ?? retrievalTerms(text),
      // The stop terms leave the index and every query; a step's length (MiniSearch counts the
      // tokens before this step) stays its whole observation's, so the other terms score as before.
      processTerm: (t) => {
        const l = t.toLowerCase();
        return stop.has(l) ? null : l;
      },
      // A query term in no indexed step adds nothing to any score: it is dropped before the search
      // rather than looked up (the same ranking, without the per-term work).
      searchOptions: {
        combineWith: "OR",
        prefix: false,
        fuzzy: false,
        tokenize: retrievalTerms,
        processTerm: (t) => {
          const l = t.toLowerCase();
          return stop.has(l) || !df.has(l) ? null : l;
        },
      },
    });
    this.search.addAll(steps.map((s, id) => ({ id, observation: s.observation })));
  }

  /**
   * Positions in `steps` of every step sharing a term other than a stop term with the observation:
   * BM25+ score descending, ties to the earlier episode, then the earlier step (the steps are in that
   * order, so: lower id).
   */
  rank(observation: string): number[] {
    let r = this.ranked.get(observation);
    if (r === undefined) {
      const hits = this.search.search(observation);
      r = hits.sort((a, b) => b.score - a.score || (a.id as number) - (b.id as number)).map((h) => h.id as number);
      if (this.ranked.size > 4096) this.ranked.clear();
      this.ranked.set(observation, r);
    }
    return r;
  }

  step(i: number): IndexedStep {
    return this.steps[i]!;
  }
}

/** One index per state's step list: explore episode x+1 and checkpoint x read the same state, and build it once. */
const indexes = new WeakMap<readonly IndexedStep[], StepIndex>();
function stepIndexOf(steps: readonly IndexedStep[]): StepIndex {
  let index = indexes.get(steps);
  if (!index) indexes.set(steps, (index = new StepIndex(steps)));
  return index;
}

/**
 * The snippets a step reads: at most k, in rank order, while they fit `budget` tokens. `costs`
 * (optional) memoises each ranked position's snippet cost, for one counter.
 */
export function chooseSnippets(ranked: readonly number[], stepAt: (i: number) => IndexedStep, k: number, budget: number, counter: TokenCounter, costs?: Map<number, number>): IndexedStep[] {
  const out: IndexedStep[] = [];
  if (k <= 0 || ranked.length === 0) return out;
  const nl = counter.count("\n");
  // The section's title and the line breaks around it.
  let used = counter.count(RETRIEVED_TITLE) + 2 * nl;
  if (used > budget) return out;
  for (const i of ranked) {
    if (out.length >= k) break;
    const s = stepAt(i);
    let cost = costs?.get(i);
    if (cost === undefined) {
      cost = counter.count(retrievedStepText(s)) + nl;
      costs?.set(i, cost);
    }
    if (used + cost > budget) break;
    used += cost;
    out.push(s);
  }
  return out;
}

/** The experience text of a summary and the snippets chosen for a step. */
export function hybridText(memory: MemoryVersion, snippets: readonly IndexedStep[]): string {
  const summary = memoryExperience(memory);
  if (snippets.length === 0) return summary;
  const section = [RETRIEVED_TITLE, ...snippets.map(retrievedStepText)].join("\n");
  return summary.length > 0 ? `${summary}\n\n${section}` : section;
}

/** Steps of explore episodes rebuilt from the logs, per loaded run (as History's blocks). */
const rebuiltSteps = new WeakMap<PathwayLogs, Map<number, IndexedStep[]>>();

export const hybridPathway = definePathway<HybridState>({
  name: "hybrid",
  judged: true,
  protocolLoop: true,
  // Played where it is asked for (`--pathways hybrid`; reproduce's hybrid job group), not in every model's matrix.
  inDefaultMatrix: false,
  files: ["memory"],
  keep: memoryPathway.keep!,
  create: (host) => ({ memory: memoryPathway.create(host), steps: [] }),
  consolidated: (s) => s.memory.afterEpisode,
  async consolidate(host, state, x, trajectory) {
    const memory = await memoryPathway.consolidate(host, state.memory, x, trajectory);
    return { memory, steps: [...state.steps, ...indexedSteps(trajectory)] };
  },
  snapshot(state, ctx) {
    const { k, summaryShare } = hybridSettings(ctx.settings);
    const summary = memoryExperience(state.memory);
    const summaryTokens = summary.length > 0 ? ctx.counter.count(summary) + 2 * ctx.counter.count("\n") : 0;
    let index: StepIndex | null = null;
    // A snippet's token count depends on the step alone: counted once per snapshot.
    const costs = new Map<number, number>();
    return {
      forStep(view) {
        if (state.steps.length === 0 || k === 0) return { text: summary, fields: { memory_version: state.memory.afterEpisode, retrieved_steps: [] } };
        const budget = experienceBudget(ctx.settings, view, ctx.counter);
        const snippetBudget = Math.min(Math.floor((1 - summaryShare) * budget), budget - summaryTokens);
        index ??= stepIndexOf(state.steps);
        const idx = index;
        const chosen = chooseSnippets(idx.rank(view.observation), (i) => idx.step(i), k, snippetBudget, ctx.counter, costs);
        return {
          text: hybridText(state.memory, chosen),
          fields: { memory_version: state.memory.afterEpisode, retrieved_steps: chosen.map((s) => ({ episode: s.episode, step: s.step })) },
        };
      },
    };
  },
  rebuild(logs, k, ctx) {
    const memory = memoryPathway.rebuild(logs, k, ctx);
    let memo = rebuiltSteps.get(logs);
    if (!memo) rebuiltSteps.set(logs, (memo = new Map()));
    const steps: IndexedStep[] = [];
    for (let x = 1; x <= k; x++) {
      let own = memo.get(x);
      if (!own) {
        const rec = logs.episodes.find((e) => e.phase === "explore" && e.episode === x && e.status === "ok");
        if (!rec) throw new Error(`exploration episode ${x} is not in episodes.jsonl`);
        const recorded = logs.steps.filter((s) => s.phase === "explore" && s.episode === x);
        own = indexedSteps(trajectoryFromSteps(x, recorded, String(rec.end_observation)));
        memo.set(x, own);
      }
      steps.push(...own);
    }
    return { memory, steps };
  },
});
