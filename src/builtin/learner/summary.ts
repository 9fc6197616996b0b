/**
 * `builtin:learner`'s Summary Memory reply (learner.md): the triple with tactic names and figures.
 * It merges the statistics of its previous memory with the new episode's (tactic, sum of its own
 * self-scores) and its knowledge (chess: the displacement vectors; trust: the opponents met, as the
 * rounds each was seen to play); reading the memory back gives the learner
 * the same statistics in compressed form. What the summary leaves out is gone.
 */
import { SECTION_TITLES } from "../../agent/summaryPrompt.js";
import { parseRulesTitle } from "../../games/responseContract.js";
import { isGameName } from "../../games/registry.js";
import { tacticNames } from "../../games/tactics.js";
import { TACTIC_SETS } from "../../games/tacticSets.js";
import type { ChatMessage } from "../../models/types.js";
import { mergeKnowledge, opponentLines, parseEpisodeBlocks, parseMemoryText, statLine, statsFromEpisodes, vectorLines } from "./experienceText.js";

function tagged(text: string, tag: string): string {
  const start = text.indexOf(`<${tag}>`);
  const end = text.lastIndexOf(`</${tag}>`);
  return start >= 0 && end > start ? text.slice(start + tag.length + 2, end).trim() : "";
}

export function learnerSummary(messages: readonly ChatMessage[]): string {
  const user = messages.find((m) => m.role === "user")?.content ?? "";
  const rules = tagged(user, "rules");
  const previous = parseMemoryText(tagged(user, "previous_memory"));
  const episodes = parseEpisodeBlocks(tagged(user, "trajectory"));
  const title = parseRulesTitle(rules);
  const set = title && isGameName(title.game) ? TACTIC_SETS[title.game] : null;
  const stats = statsFromEpisodes(episodes, previous.stats);
  const learn = set?.learn;
  const known = mergeKnowledge(previous, ...(learn ? episodes.map((e) => learn(e.steps)) : []));
  const ranked = [...stats.entries()].sort((a, b) => b[1].sum / b[1].n - a[1].sum / a[1].n || a[0].localeCompare(b[0]));
  const [best, ...rest] = ranked;
  const untried = set ? tacticNames(set).filter((n) => !stats.has(n)) : [];
  const v = vectorLines(known.vectors);
  const retain = [...(best ? [statLine(best[0], best[1])] : []), ...v.legal, ...opponentLines(known.opponents)];
  const avoid = [...rest.map(([n, s]) => statLine(n, s)), ...v.bad];
  const next = untried.length ? `- next: try ${untried[0]} (untried)` : best ? `- next: play ${best[0]}` : "- next: try any tactic";
  return [
    `## ${SECTION_TITLES.retain}`,
    retain.length ? retain.join("\n") : "- nothing yet",
    "",
    `## ${SECTION_TITLES.avoid}`,
    avoid.length ? avoid.join("\n") : "- nothing yet",
    "",
    `## ${SECTION_TITLES.next}`,
    next,
  ].join("\n");
}
