/**
 * Consolidation of the `verified` pathway (verified.md, "Consolidation"), pure:
 *
 *   - only a verdict that parsed and decided (`success` or `failure`) changes the memory: facts of an
 *     `uncertain` verdict are logged in verdicts.jsonl but not remembered (RSIAgent: an unverified
 *     outcome asks for more evidence, it is not knowledge); a rejected reply keeps the memory;
 *   - a fact is keyed by its normalised (condition, action, effect); stating it again adds the
 *     episode to its evidence (support = number of supporting episodes, with the cited steps);
 *   - a fact with the same condition and action but another effect contradicts it: the old fact is
 *     marked `disputed`, and dropped at its second contradiction since it was last supported
 *     (a supporting episode makes it `active` again and clears its open contradictions);
 *   - the memory text is the facts sorted by support (then by id), as many as fit the budget.
 */
import type { CausalFact, Verdict } from "../agent/verifierPrompt.js";
import { verifiedMemoryText } from "../agent/verifiedMemoryText.js";
import type { VerifiedFactRecord } from "../logs/schema.js";

export interface VerifiedMemory {
  /** 0 = empty; x = after exploration episode x. */
  afterEpisode: number;
  /** Active and disputed facts, in id order. */
  facts: readonly VerifiedFactRecord[];
  /** The number the next new fact's id takes (`f<n>`). */
  nextId: number;
}

export const EMPTY_VERIFIED_MEMORY: VerifiedMemory = { afterEpisode: 0, facts: [], nextId: 1 };

/** Lower case, single spaces: two wordings that differ only so are one fact. */
export function normalise(text: string): string {
  return text.toLowerCase().split(/\s+/).filter(Boolean).join(" ");
}

const pairKey = (f: Pick<CausalFact, "condition" | "action">): string => `${normalise(f.condition)}\u0000${normalise(f.action)}`;

/** Memory version x from version x-1 and episode x's verdict (null: the reply was rejected). */
export function consolidateVerdict(previous: VerifiedMemory, x: number, verdict: Verdict | null): { memory: VerifiedMemory; dropped: string[] } {
  if (!verdict || verdict.outcome === "uncertain") return { memory: { ...previous, afterEpisode: x }, dropped: [] };
  const facts = previous.facts.map((f) => ({ ...f, episodes: [...f.episodes], steps: f.steps.map((s) => ({ ...s, steps: [...s.steps] })) }));
  let nextId = previous.nextId;
  const dropped = new Set<string>();
  // One statement per (condition, action, effect) per episode.
  const seen = new Set<string>();
  for (const stated of verdict.facts) {
    const pair = pairKey(stated);
    const effect = normalise(stated.effect);
    if (seen.has(`${pair}\u0000${effect}`)) continue;
    seen.add(`${pair}\u0000${effect}`);
    let supported = false;
    for (const f of facts) {
      if (dropped.has(f.id) || pairKey(f) !== pair) continue;
      if (normalise(f.effect) === effect) {
        supported = true;
        if (!f.episodes.includes(x)) {
          f.episodes.push(x);
          f.support = f.episodes.length;
          f.steps.push({ episode: x, steps: [...stated.steps] });
        }
        f.status = "active";
        f.contradictions = 0;
      } else {
        f.contradictions += 1;
        if (f.contradictions >= 2) dropped.add(f.id);
        else f.status = "disputed";
      }
    }
    if (!supported) {
      facts.push({
        id: `f${nextId++}`,
        condition: stated.condition,
        action: stated.action,
        effect: stated.effect,
        support: 1,
        episodes: [x],
        steps: [{ episode: x, steps: [...stated.steps] }],
        contradictions: 0,
        status: "active",
      });
    }
  }
  return { memory: { afterEpisode: x, facts: facts.filter((f) => !dropped.has(f.id)), nextId }, dropped: [...dropped] };
}

/** Facts by support (most first), ties by id number. */
export function bySupport(facts: readonly VerifiedFactRecord[]): VerifiedFactRecord[] {
  const num = (id: string): number => Number(id.slice(1));
  return [...facts].sort((a, b) => b.support - a.support || num(a.id) - num(b.id));
}

/**
 * The memory text: facts by support, as many as fit `budgetTokens` (counted with `count`); a fact
 * that does not fit ends the list (a later, less supported fact never jumps ahead of it).
 */
export function memoryTextUnderBudget(memory: VerifiedMemory, budgetTokens: number, count: (text: string) => number): string {
  const sorted = bySupport(memory.facts).map((f) => ({ ...f, disputed: f.status === "disputed" }));
  let kept = sorted.length;
  // Grow while it fits: linear in the facts kept (each count is one line's text).
  let total = count(verifiedMemoryText(sorted.slice(0, 1)));
  if (sorted.length > 0 && total > budgetTokens) return "";
  for (let i = 1; i < sorted.length; i++) {
    total += count(`\n${verifiedMemoryText([sorted[i]!]).split("\n")[1]!}`);
    if (total > budgetTokens) {
      kept = i;
      break;
    }
  }
  return verifiedMemoryText(sorted.slice(0, kept));
}
