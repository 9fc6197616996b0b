/**
 * The Summary Memory call (protocol.md, "Consolidation"): after each exploration episode the model
 * rewrites its memory from (previous memory, the new scored trajectory) into exactly three sections.
 */
import type { ChatMessage } from "../models/types.js";

export interface MemoryTriple {
  /** Strategies to retain. */
  retain: string;
  /** Mistakes to avoid. */
  avoid: string;
  /** Concrete directions for the next episode. */
  next: string;
}

export const SECTION_TITLES = {
  retain: "Strategies to retain",
  avoid: "Mistakes to avoid",
  next: "Directions for the next episode",
} as const;

export const SUMMARY_TITLE = "# S3Gym memory update";

/** The memory text the next prompts carry ("" for the empty initial memory). */
export function memoryText(m: MemoryTriple | null): string {
  if (!m) return "";
  return (Object.keys(SECTION_TITLES) as (keyof MemoryTriple)[]).map((k) => `## ${SECTION_TITLES[k]}\n${m[k]}`).join("\n\n");
}

/**
 * `scoresWithheld`: the run's judge is `none` (docs/judging.md): the trajectory carries no scores, and
 * the prompt says so instead of promising them.
 */
export function buildSummaryMessages(input: { rules: string; previous: MemoryTriple | null; trajectory: string; scoresWithheld?: boolean }): ChatMessage[] {
  const system = [
    SUMMARY_TITLE,
    "You keep a short memory that helps you play the game below better in later episodes.",
    ...(input.scoresWithheld === true
      ? [
          "Rewrite the memory from the previous memory and the new episode (your own actions, without scores:",
          "they are withheld, and the game's visible feedback). Reply with exactly three sections, each a markdown heading followed",
        ]
      : [
          "Rewrite the memory from the previous memory and the new episode (your own actions and self-scores,",
          "and the game's visible feedback). Reply with exactly three sections, each a markdown heading followed",
        ]),
    "by a few short bullet points:",
    `## ${SECTION_TITLES.retain}`,
    `## ${SECTION_TITLES.avoid}`,
    `## ${SECTION_TITLES.next}`,
    "Write nothing before the first heading or after the last section.",
  ].join("\n");
  const user = [`<rules>\n${input.rules}\n</rules>`, `<previous_memory>\n${memoryText(input.previous) || "(empty)"}\n</previous_memory>`, `<trajectory>\n${input.trajectory}\n</trajectory>`].join(
    "\n\n",
  );
  return [
    { role: "system", content: system },
    { role: "user", content: user },
  ];
}

export function isSummaryRequest(messages: readonly ChatMessage[]): boolean {
  return messages.some((m) => m.role === "system" && m.content.startsWith(SUMMARY_TITLE));
}

/**
 * A section heading, matched on the trimmed line. Linear by construction: a line longer than any
 * heading is never matched (a reply of one long line cannot reach the regex), and no two adjacent
 * quantifiers share characters (the previous `\s*[*_]*\s*:?\s*[*_]*\s*$` backtracked in
 * O(n^4): "## Strategies to retain" followed by 1,000 spaces never finished).
 */
const HEADING = /^(?:#{1,6})?[\s*_]*(strategies to retain|mistakes to avoid|directions for the next episode)[\s*_]*(?::[\s*_]*)?$/i;
const MAX_HEADING_LINE = 100;

function headingOf(line: string): string | null {
  const t = line.trim();
  if (t.length > MAX_HEADING_LINE) return null;
  return HEADING.exec(t)?.[1] ?? null;
}

/** Parses a summary reply into the triple; all three sections, in order, each non-empty. */
export function parseSummary(text: string): { ok: true; triple: MemoryTriple } | { ok: false; error: string } {
  const keyOf: Record<string, keyof MemoryTriple> = {
    "strategies to retain": "retain",
    "mistakes to avoid": "avoid",
    "directions for the next episode": "next",
  };
  const found: { key: keyof MemoryTriple; line: number }[] = [];
  const lines = text.split(/\r?\n/);
  lines.forEach((line, i) => {
    const title = headingOf(line);
    if (title !== null) found.push({ key: keyOf[title.toLowerCase()]!, line: i });
  });
  const order = found.map((f) => f.key).join(",");
  if (order !== "retain,avoid,next") {
    return { ok: false, error: `expected the three headings '${Object.values(SECTION_TITLES).join("', '")}' once each, in order; found [${order}]` };
  }
  const triple = {} as MemoryTriple;
  for (let i = 0; i < 3; i++) {
    const body = lines
      .slice(found[i]!.line + 1, i < 2 ? found[i + 1]!.line : lines.length)
      .join("\n")
      .trim();
    if (!body) return { ok: false, error: `section '${SECTION_TITLES[found[i]!.key]}' is empty` };
    triple[found[i]!.key] = body;
  }
  return { ok: true, triple };
}

function tagged(text: string, tag: string): string {
  const start = text.indexOf(`<${tag}>`);
  const end = text.lastIndexOf(`</${tag}>`);
  return start >= 0 && end > start ? text.slice(start + tag.length + 2, end).trim() : "";
}

/**
 * The built-in models' deterministic summary: tallies the trajectory's actions, self-scores and
 * feedback. Not an LLM's insight; it exists so the memory pathway runs offline end to end.
 */
export function builtinSummary(messages: readonly ChatMessage[]): string {
  const user = messages.find((m) => m.role === "user")?.content ?? "";
  const trajectory = tagged(user, "trajectory");
  const actions = [...trajectory.matchAll(/^Action: (.*)$/gm)].map((m) => m[1]!);
  const scores = [...trajectory.matchAll(/^Self-score: (.*)$/gm)].map((m) => Number(m[1]));
  const feedback = [...trajectory.matchAll(/^Feedback: (.*)$/gm)].map((m) => m[1]!);
  const good = new Map<string, number>();
  actions.forEach((a, i) => {
    if ((scores[i] ?? 0) > 0) good.set(a, (good.get(a) ?? 0) + 1);
  });
  const bad = feedback.filter((f) => /invalid|illegal|blocked|mine!|skipped/i.test(f));
  const topGood = [...good.entries()].sort((x, y) => y[1] - x[1] || x[0].localeCompare(y[0])).slice(0, 3);
  const episode = /=== Exploration episode (\d+)/.exec(trajectory)?.[1] ?? "?";
  return [
    `## ${SECTION_TITLES.retain}`,
    topGood.length
      ? topGood.map(([a, n]) => `- '${a}' was self-scored positive ${n} time(s) in episode ${episode}.`).join("\n")
      : `- No action was self-scored positive in episode ${episode}; keep probing.`,
    "",
    `## ${SECTION_TITLES.avoid}`,
    bad.length ? `- ${bad.length} of ${actions.length} steps drew negative feedback (e.g. '${bad[0]}').` : "- No step drew negative feedback.",
    "",
    `## ${SECTION_TITLES.next}`,
    `- Read the rules' action grammar before answering; episode ${episode} took ${actions.length} steps.`,
  ].join("\n");
}
