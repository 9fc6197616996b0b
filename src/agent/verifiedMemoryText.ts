/**
 * The text form of a verified memory (verified.md, "Consolidation"): the facts sorted by support,
 * one line each, as the actor's prompts carry them. A model reads it as prose; `builtin:learner`
 * reads it back with `parseVerifiedMemoryText` (line by line: linear).
 *
 *   ## Verified facts (in condition | action | led to effect; support = verified episodes)
 *   - f3 (support 4): piece A | move by 1,2 | move made
 *   - f7 (support 1, disputed): config explore | tactic flat | a failed episode
 */

export const VERIFIED_MEMORY_HEADER = "## Verified facts (in condition | action | led to effect; support = verified episodes)";

export interface FactLine {
  id: string;
  condition: string;
  action: string;
  effect: string;
  support: number;
  disputed: boolean;
}

export function factLine(f: FactLine): string {
  return `- ${f.id} (support ${f.support}${f.disputed ? ", disputed" : ""}): ${f.condition} | ${f.action} | ${f.effect}`;
}

/** The memory text of facts already in the order and number to show ("" when none). */
export function verifiedMemoryText(facts: readonly FactLine[]): string {
  if (facts.length === 0) return "";
  return [VERIFIED_MEMORY_HEADER, ...facts.map(factLine)].join("\n");
}

const LINE = /^- (f\d{1,9}) \(support (\d{1,9})(, disputed)?\): (.*)$/;

/** The facts a memory text shows (lines of any other form are ignored). */
export function parseVerifiedMemoryText(text: string): FactLine[] {
  if (!text.includes(VERIFIED_MEMORY_HEADER)) return [];
  const out: FactLine[] = [];
  for (const line of text.split("\n")) {
    const m = LINE.exec(line);
    if (!m) continue;
    const parts = m[4]!.split(" | ");
    if (parts.length !== 3) continue;
    out.push({ id: m[1]!, support: Number(m[2]), disputed: m[3] !== undefined, condition: parts[0]!, action: parts[1]!, effect: parts[2]! });
  }
  return out;
}
