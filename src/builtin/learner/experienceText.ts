/**
 * What `builtin:learner` reads from its prompt's experience text: the History ICL blocks (per earlier
 * exploration episode: its declared tactic, the sum of its OWN self-scores over the steps still
 * visible, and the steps themselves for rule knowledge) and the memory text its own summaries wrote
 * (tactic statistics and chess vectors in compressed form). Linear in the text; never the verifier.
 */
import { RETRIEVED_TITLE } from "../../agent/trajectoryText.js";
import type { OpponentRecord, SeenStep, TacticKnowledge } from "../../games/tactics.js";
import { isOpponentType, mergeOpponents } from "../../games/trust/opponentModel.js";

/** Per tactic: episodes seen and the sum of their self-judged returns. */
export type TacticStats = Map<string, { n: number; sum: number }>;

export interface SeenEpisode {
  episode: number;
  /** The tactic its replies declared (the first `Tactic:` line), or null. */
  tactic: string | null;
  /** Sum of the visible steps' self-scores (a missing score counts 0). */
  selfReturn: number;
  steps: SeenStep[];
  /** True when the block lost its tail to the context budget. */
  truncated: boolean;
}

/** The `<experience>` text of a step prompt's first user message ("" when there is none). */
export function experienceOf(firstUser: string): string {
  const open = firstUser.indexOf("<experience>\n");
  const close = firstUser.lastIndexOf("\n</experience>");
  return open >= 0 && close > open ? firstUser.slice(open + "<experience>\n".length, close) : "";
}

const HEADER = /^=== Exploration episode (\d+) \(\d+ steps\) ===$/;

/** The History blocks of an experience (or trajectory) text, in order. */
export function parseEpisodeBlocks(text: string): SeenEpisode[] {
  const out: SeenEpisode[] = [];
  let cur: SeenEpisode | null = null;
  let step: (SeenStep & { obs: string[] }) | null = null;
  let mode: "none" | "obs" = "none";
  const closeStep = (): void => {
    if (cur && step) cur.steps.push({ observation: step.obs.join("\n"), action: step.action, feedback: step.feedback });
    step = null;
    mode = "none";
  };
  for (const line of text.split("\n")) {
    const h = HEADER.exec(line);
    if (h) {
      closeStep();
      cur = { episode: Number(h[1]), tactic: null, selfReturn: 0, steps: [], truncated: false };
      out.push(cur);
      continue;
    }
    if (!cur) continue;
    if (line.startsWith("--- Step ") && line.endsWith(" ---")) {
      closeStep();
      step = { observation: "", action: null, feedback: "", obs: [] };
      continue;
    }
    if (line.startsWith("=== End of exploration episode") || line === "End state:" || /^\[\.\.\. \d+ later steps omitted\]$/.test(line)) {
      if (line.startsWith("[...")) cur.truncated = true;
      closeStep();
      if (line.startsWith("=== End")) cur = null;
      continue;
    }
    if (!step) continue;
    if (line === "Observation:" && step.obs.length === 0 && mode === "none") {
      mode = "obs";
      continue;
    }
    if (line.startsWith("Tactic: ")) {
      mode = "none";
      cur.tactic ??= line.slice("Tactic: ".length).trim();
    } else if (line.startsWith("Action: ")) {
      mode = "none";
      const a = line.slice("Action: ".length);
      step.action = a === "(unparsable reply)" ? null : a;
    } else if (line.startsWith("Self-score: ")) {
      const x = Number(line.slice("Self-score: ".length));
      if (Number.isFinite(x)) cur.selfReturn += x;
    } else if (line.startsWith("Feedback: ")) {
      const f = line.slice("Feedback: ".length);
      step.feedback = f === "(none)" ? "" : f;
    } else if (mode === "obs") {
      step.obs.push(line);
    }
  }
  closeStep();
  return out;
}

/** Adds each block with a known tactic to the statistics. */
export function statsFromEpisodes(episodes: readonly SeenEpisode[], into: TacticStats = new Map()): TacticStats {
  for (const e of episodes) {
    if (!e.tactic) continue;
    const s = into.get(e.tactic) ?? { n: 0, sum: 0 };
    s.n += 1;
    s.sum += e.selfReturn;
    into.set(e.tactic, s);
  }
  return into;
}

// ----- the hybrid pathway's retrieved steps -----

const RETRIEVED_HEADER = /^--- Retrieved step: exploration episode \d+, step \d+ ---$/;

/**
 * Splits a non-History experience text at the hybrid pathway's retrieved-steps section: the memory
 * text before it, and each retrieved step (observation, action, feedback) read line by line as a
 * History block's steps are read. No section: the whole text is memory, no steps.
 */
export function splitRetrieved(text: string): { memory: string; steps: SeenStep[] } {
  const at = text.indexOf(RETRIEVED_TITLE);
  if (at < 0) return { memory: text, steps: [] };
  const steps: SeenStep[] = [];
  let cur: { obs: string[]; action: string | null; feedback: string; inObs: boolean } | null = null;
  const close = (): void => {
    if (cur) steps.push({ observation: cur.obs.join("\n"), action: cur.action, feedback: cur.feedback });
    cur = null;
  };
  for (const line of text.slice(at + RETRIEVED_TITLE.length).split("\n")) {
    if (RETRIEVED_HEADER.test(line)) {
      close();
      cur = { obs: [], action: null, feedback: "", inObs: false };
      continue;
    }
    if (!cur) continue;
    const c: { obs: string[]; action: string | null; feedback: string; inObs: boolean } = cur;
    if (line === "Observation:" && c.obs.length === 0 && !c.inObs) c.inObs = true;
    else if (line.startsWith("Tactic: ")) c.inObs = false;
    else if (line.startsWith("Action: ")) {
      c.inObs = false;
      const a = line.slice("Action: ".length);
      c.action = a === "(unparsable reply)" ? null : a;
    } else if (line.startsWith("Self-score: ")) c.inObs = false;
    else if (line.startsWith("Feedback: ")) {
      c.inObs = false;
      const f = line.slice("Feedback: ".length);
      c.feedback = f === "(none)" ? "" : f;
    } else if (c.inObs) c.obs.push(line);
  }
  close();
  return { memory: text.slice(0, at), steps };
}

// ----- the memory form: what learnerSummary writes and reads back -----

const STAT_LINE = /^- tactic ([a-z0-9][a-z0-9-]*): mean self-score (-?[0-9.]+(?:e-?\d+)?) over (\d+) episodes?$/;
const VECTOR_LINE = /^- vectors of ([A-Z]) known (legal|illegal): ?(.*)$/;
const OPPONENT_LINE = /^- opponent met in (\d+) episodes?: (.*)$/;

export type Vectors = Record<string, { legal: string[]; bad: string[] }>;

/** Rounds a figure as the memory writes it (3 decimals). */
export const round3 = (x: number): number => Math.round(x * 1000) / 1000;

export function statLine(name: string, s: { n: number; sum: number }): string {
  return `- tactic ${name}: mean self-score ${round3(s.sum / s.n)} over ${s.n} episode${s.n === 1 ? "" : "s"}`;
}

export function vectorLines(v: Vectors): { legal: string[]; bad: string[] } {
  const legal: string[] = [];
  const bad: string[] = [];
  for (const t of Object.keys(v).sort()) {
    if (v[t]!.legal.length) legal.push(`- vectors of ${t} known legal: ${v[t]!.legal.join(" ")}`);
    if (v[t]!.bad.length) bad.push(`- vectors of ${t} known illegal: ${v[t]!.bad.join(" ")}`);
  }
  return { legal, bad };
}

/** Trust's opponents as memory lines: `- opponent met in 2 episodes: copycat or grudger`. */
export function opponentLines(opponents: readonly OpponentRecord[]): string[] {
  return opponents.map((o) => `- opponent met in ${o.n} episode${o.n === 1 ? "" : "s"}: ${o.types.join(" or ")}`);
}

/** The statistics and knowledge a memory text holds (what the summary kept, nothing more). */
export function parseMemoryText(text: string): { stats: TacticStats; vectors: Vectors; opponents: OpponentRecord[] } {
  const stats: TacticStats = new Map();
  const vectors: Vectors = {};
  const opponents: OpponentRecord[] = [];
  for (const line of text.split("\n")) {
    const s = STAT_LINE.exec(line.trim());
    if (s) {
      const n = Number(s[3]);
      if (n > 0 && !stats.has(s[1]!)) stats.set(s[1]!, { n, sum: Number(s[2]) * n });
      continue;
    }
    const o = OPPONENT_LINE.exec(line.trim());
    if (o) {
      const types = o[2]!
        .split(" or ")
        .map((t) => t.trim())
        .filter(isOpponentType);
      if (Number(o[1]) > 0 && types.length) opponents.push({ n: Number(o[1]), types: [...new Set(types)].sort() });
      continue;
    }
    const v = VECTOR_LINE.exec(line.trim());
    if (v) {
      const e = (vectors[v[1]!] ??= { legal: [], bad: [] });
      const list = v[3]!.split(/\s+/).filter((x) => /^-?\d+,-?\d+$/.test(x));
      if (v[2] === "legal") e.legal.push(...list);
      else e.bad.push(...list);
    }
  }
  return { stats, vectors, opponents: mergeOpponents(opponents) };
}

/** Union of vector sets; a vector known legal anywhere is not illegal. */
export function mergeVectors(...all: (Vectors | undefined)[]): Vectors {
  const out: Vectors = {};
  for (const v of all) {
    if (!v) continue;
    for (const [t, k] of Object.entries(v)) {
      const e = (out[t] ??= { legal: [], bad: [] });
      e.legal = [...new Set([...e.legal, ...k.legal])].sort();
      e.bad = [...new Set([...e.bad, ...k.bad])].sort();
    }
  }
  for (const e of Object.values(out)) e.bad = e.bad.filter((x) => !e.legal.includes(x));
  return out;
}

/** Knowledge from several sources merged: vectors united, identical opponents counted together. */
export function mergeKnowledge(...all: (TacticKnowledge | undefined)[]): Required<TacticKnowledge> {
  return { vectors: mergeVectors(...all.map((k) => k?.vectors)), opponents: mergeOpponents(...all.map((k) => k?.opponents)) };
}
