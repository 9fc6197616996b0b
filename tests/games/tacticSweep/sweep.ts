/**
 * A sweep of seeded episodes that records what every learner tactic decides, so a speed change to a
 * policy or to the learner's prompt reading can be checked against the code before it, decision by
 * decision. Per (game, config, tactic, seed): the SHA-256 of the episode's actions and self-scores,
 * the tactic playing with knowledge learned from an earlier episode (chess's vectors, trust's
 * opponents). Per (game, config, seed): the SHA-256 of the replies of an episode played end to end by
 * `builtin:learner` through the step prompt (buildStepMessages -> learnerStep), a History-like
 * experience block in front, so the prompt reader, the experience reader and the tactic choice
 * are covered too.
 *
 * record.ts writes the fixture from this sweep; it was run on the code before the rewrite.
 */
import { createHash } from "node:crypto";
import { buildStepMessages, earlierTurnOf, type EarlierTurn } from "../../../src/agent/stepPrompt.js";
import { renderTrajectory } from "../../../src/agent/trajectoryText.js";
import { learnerStep } from "../../../src/builtin/learner/learner.js";
import { playEpisode } from "../../../src/games/episode.js";
import { GAMES } from "../../../src/games/registry.js";
import { TACTIC_SETS } from "../../../src/games/tacticSets.js";
import type { TacticKnowledge } from "../../../src/games/tactics.js";
import type { GameName } from "../../../src/games/types.js";
import { Rng } from "../../../src/util/rng.js";

export interface SweepOptions {
  seeds: number;
  /** Steps per episode at most (the configs' own limit applies too). */
  maxSteps: number;
}

export const SWEEP: SweepOptions = { seeds: 6, maxSteps: 40 };

const hash = (parts: readonly string[]): string => createHash("sha256").update(parts.join("\n")).digest("hex").slice(0, 24);

/** One line per tactic episode and per learner episode: `key -> hash`. */
export async function sweepTacticDecisions(o: SweepOptions = SWEEP, only?: readonly GameName[]): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const game of Object.keys(GAMES) as GameName[]) {
    if (only && !only.includes(game)) continue;
    const g = GAMES[game];
    const set = TACTIC_SETS[game];
    for (const config of ["explore", "eval"] as const) {
      for (let seed = 0; seed < o.seeds; seed++) {
        // Knowledge from an earlier episode played by the set's first tactic (as the learner's History would give it).
        let knowledge: TacticKnowledge = {};
        if (set.learn) {
          const first = set.tactics[0]!;
          const earlier = await playEpisode(g, 1000 + seed, config, (ctx) =>
            ctx.history.length >= o.maxSteps ? undefined : first.policy(ctx, Rng.fromKey(`sweep|learn|${game}|${seed}|${ctx.history.length}`), {}),
          );
          knowledge = set.learn(earlier.steps.map((s) => ({ observation: s.observation, action: s.action, feedback: s.feedback })));
        }
        for (const t of set.tactics) {
          const parts: string[] = [];
          const played = await playEpisode(g, seed, config, (ctx) => {
            if (ctx.history.length >= o.maxSteps) return undefined;
            const d = t.policy(ctx, Rng.fromKey(`sweep|${game}|${t.name}|${seed}|${ctx.history.length}`), knowledge);
            parts.push(`${d.action}\t${d.selfScore}`);
            return { action: d.action, selfScore: d.selfScore };
          });
          parts.push(`score ${played.score}`);
          out[`${game}|${config}|${t.name}|${seed}`] = hash(parts);
        }
        out[`${game}|${config}|learner|${seed}`] = hash(await learnerEpisode(game, config, seed, o.maxSteps));
      }
    }
  }
  return out;
}

/** An episode played by builtin:learner from its step prompts, with an earlier episode as History experience. */
async function learnerEpisode(game: GameName, config: "explore" | "eval", seed: number, maxSteps: number): Promise<string[]> {
  const g = GAMES[game];
  const rules = g.rules(config);
  const experience = await experienceBlock(game, config, seed, maxSteps);
  const turns: EarlierTurn[] = [];
  const replies: string[] = [];
  let state = g.reset(seed, config);
  while (!state.done && turns.length < maxSteps) {
    const observation = g.observe(state);
    const messages = buildStepMessages({ rules, experience, turns, observation, rewardVisibility: "hidden" });
    const a = learnerStep(messages, { judge: 0.5, checkpoint: null }, 7919 * seed + turns.length, config === "eval" ? "eval" : "explore");
    if (a === null) throw new Error(`${game}: the learner did not answer its own step prompt`);
    replies.push(a.text);
    const action = /^Answer: (.*)$/m.exec(a.text)?.[1] ?? null;
    const res = g.step(state, action);
    turns.push(earlierTurnOf({ observation, response: a.text, action, self_score: null, feedback: res.feedback, reward: res.reward, score_after: g.score(res.state) }, false));
    state = res.state;
  }
  return replies;
}

/** A History block of one earlier episode, in the layout the learner reads (experienceText.ts). */
async function experienceBlock(game: GameName, config: "explore" | "eval", seed: number, maxSteps: number): Promise<string> {
  const set = TACTIC_SETS[game];
  const t = set.tactics[seed % set.tactics.length]!;
  const played = await playEpisode(GAMES[game], 500 + seed, config, (ctx) =>
    ctx.history.length >= Math.min(12, maxSteps) ? undefined : t.policy(ctx, Rng.fromKey(`sweep|exp|${game}|${seed}|${ctx.history.length}`), {}),
  );
  const end = GAMES[game].observe(played.state);
  return renderTrajectory({
    episode: 1,
    steps: played.steps.map((s) => ({ observation: s.observation, action: s.action, selfScore: s.self_score, feedback: s.feedback, tactic: t.name })),
    endObservation: end,
  });
}
