/**
 * `s3gym play`: one episode of one game, by a built-in policy, a file of actions, or a person at the
 * terminal. `--json` prints one step record per line, then `{"episode": true, "score", "steps"}`.
 */
import { readFileSync } from "node:fs";
import { playEpisode, type ActionSource } from "../../games/episode.js";
import { decide, POLICY_NAMES, resolvePolicyName } from "../../games/policies.js";
import { getGame } from "../../games/registry.js";
import { CONFIG_NAMES, GAME_NAMES } from "../../games/types.js";
import { nonNegativeInt, oneOf, parseFlags, UsageError } from "../shared/args.js";
import { callSeed } from "../../models/callSeed.js";
import { HUMAN_INTRO, humanSource, stdinLines } from "./humanPlay.js";

const USAGE = "s3gym play --game G --config explore|eval --seed N [--policy random|heuristic|perfect-judge|ceiling|human] [--actions FILE] [--json]";

export async function playCommand(argv: string[]): Promise<number> {
  const { values } = parseFlags(
    argv,
    { game: { type: "string" }, config: { type: "string" }, seed: { type: "string" }, policy: { type: "string" }, actions: { type: "string" }, json: { type: "boolean" } },
    USAGE,
  );
  const gameName = oneOf("game", values.game, GAME_NAMES);
  const config = oneOf("config", values.config, CONFIG_NAMES);
  const seed = nonNegativeInt("seed", values.seed, undefined, 4_294_967_295);
  const policies = [...POLICY_NAMES, "human"] as const;
  if (values.actions !== undefined && values.policy !== undefined) throw new UsageError("give either --policy or --actions, not both");
  // `oracle` is perfect-judge's old name: accepted, with a notice on stderr.
  const alias = values.policy === undefined ? null : resolvePolicyName(values.policy);
  if (alias?.notice) process.stderr.write(`s3gym play: note: ${values.policy}: ${alias.notice}\n`);
  const policy = alias?.notice ? alias.name : oneOf("policy", values.policy, policies, "heuristic");
  const game = getGame(gameName);
  const json = values.json === true;
  const out = (s: string) => process.stdout.write(s);

  let source: ActionSource;
  let closeInput = () => {};
  if (values.actions !== undefined) {
    let lines: string[];
    try {
      lines = readFileSync(values.actions, "utf8")
        .split(/\r?\n/)
        .filter((l) => l.trim().length > 0);
    } catch (e) {
      throw new UsageError(`cannot read --actions file '${values.actions}': ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
    }
    let i = 0;
    source = () => (i < lines.length ? { action: lines[i++]!, selfScore: null } : undefined);
  } else if (policy === "human") {
    const input = stdinLines();
    closeInput = input.close;
    source = humanSource(input.next, json ? (s) => process.stderr.write(s) : out, { prompts: !json });
  } else {
    // The seed a run would send for this episode's steps, so `play` shows the run's kind of draws
    // (two seeds with the same opening play differently) rather than the observation-only fallback.
    source = (ctx, state) =>
      decide(game, policy, state, ctx, callSeed({ runId: `play|${game.name}|${config}|${seed}`, purpose: "step", phase: null, checkpoint: null, episode: null, step: state.step, sample: 0 }));
  }

  const human = policy === "human" && values.actions === undefined;
  if (!json) out(`${game.rules(config)}\n\n${human ? HUMAN_INTRO : ""}`);
  const result = await playEpisode(game, seed, config, source, (s) => {
    if (json) out(`${JSON.stringify(s)}\n`);
    else if (human) out(`${s.feedback}${s.self_score === null ? "" : `   (your self-score ${s.self_score})`}\n\n`);
    else out(`${s.observation}\n> ${s.action ?? "(none)"}${s.self_score === null ? "" : `   (self-score ${s.self_score})`}\n${s.feedback}\n\n`);
  });
  // The game is over (or input ended): release stdin so the process exits now, not at Ctrl-D.
  closeInput();
  if (json) out(`${JSON.stringify({ episode: true, score: result.score, steps: result.steps.length })}\n`);
  else {
    // A person whose input ran out has just been shown the current screen; don't print it twice.
    const screen = human && !result.state.done ? "\n" : `${game.observe(result.state)}\n\n`;
    const why = result.state.done ? "episode over" : "stopped (no more actions)";
    const scored = result.steps.filter((s) => s.self_score !== null).length;
    const selfScores = human ? ` (you self-scored ${scored} of them)` : "";
    out(`${screen}${why}: score ${result.score} after ${result.steps.length} steps${selfScores}\n`);
  }
  return 0;
}
