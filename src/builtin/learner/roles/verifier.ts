/**
 * `builtin:learner` as the verified pathway's verifier (verified.md, "Offline"): it labels the
 * episode from its own text-only estimate, the sum of the self-scores it wrote while playing (so the
 * same `judge` dial that made those scores makes the verdict), against the success threshold the
 * prompt states; a cut trajectory or one mostly unscored is `uncertain`. Its facts are its tactic
 * statistics and, for chess, the displacement vectors the episode's moves and feedback showed:
 *
 *   config <name> | tactic <t> | a successful episode | steps 1,n
 *   piece <T> | move by <dx,dy> | move made (or: illegal move) | steps <where seen>
 */
import { outcomeFromEstimate, selfScoreSum, statedThreshold } from "../../../agent/builtinRoles.js";
import { formatVerdict, FACTS_MAX, type CausalFact, type Outcome } from "../../../agent/verifierPrompt.js";
import { parseRulesTitle } from "../../../games/responseContract.js";
import { isGameName } from "../../../games/registry.js";
import { TACTIC_SETS } from "../../../games/tacticSets.js";
import { parseEpisodeBlocks } from "../experienceText.js";

export const SUCCESS_EFFECT = "a successful episode";
export const FAILURE_EFFECT = "a failed episode";

export function learnerVerdictOf(input: { rules: string; trajectory: string; successCriterion: string }): { outcome: Outcome; facts: CausalFact[] } {
  const title = parseRulesTitle(input.rules);
  const episode = parseEpisodeBlocks(input.trajectory)[0];
  const truncated = episode?.truncated ?? true;
  const outcome = outcomeFromEstimate(selfScoreSum(input.trajectory), statedThreshold(input.successCriterion), truncated);
  const facts: CausalFact[] = [];
  const n = episode?.steps.length ?? 0;
  if (episode?.tactic && outcome !== "uncertain" && n > 0) {
    facts.push({
      condition: `config ${title?.configName ?? "explore"}`,
      action: `tactic ${episode.tactic}`,
      effect: outcome === "success" ? SUCCESS_EFFECT : FAILURE_EFFECT,
      steps: n > 1 ? [1, n] : [1],
    });
  }
  const set = title && isGameName(title.game) ? TACTIC_SETS[title.game] : null;
  if (set?.learn && episode) {
    // Per vector, the steps whose move showed it (one step at a time: which step taught what).
    const seen = new Map<string, CausalFact>();
    episode.steps.forEach((step, i) => {
      const k = set.learn!([step]).vectors ?? {};
      for (const [piece, v] of Object.entries(k)) {
        for (const [list, effect] of [
          [v.legal, "move made"],
          [v.bad, "illegal move"],
        ] as const) {
          for (const vec of list) {
            const key = `${piece}|${vec}|${effect}`;
            const f = seen.get(key) ?? { condition: `piece ${piece}`, action: `move by ${vec}`, effect, steps: [] };
            f.steps.push(i + 1);
            seen.set(key, f);
          }
        }
      }
    });
    for (const f of seen.values()) if (facts.length < FACTS_MAX) facts.push(f);
  }
  return { outcome, facts };
}

export function learnerVerdict(input: { rules: string; trajectory: string; successCriterion: string }): string {
  return formatVerdict(learnerVerdictOf(input));
}
