/**
 * `s3gym play`: one episode of one game, by a built-in policy, a file of actions, or a person at the
 * terminal. `--json` prints one step record per line, then `{"episode": true, "score", "steps"}`.
 */
import { readFileSync } from "node:fs";
import { playEpisode, type ActionSource } from "../../games/episode.js";
import { decide, POLICY_NAMES, resolvePolicyName } from "../../games/policies.js";
import { getGame } from "../../games/registry.js";
import { CONFIG_NAMES, GAME_NAMES } from "../../games/types.js";
import { intFlag, intRange, oneOf, optionFlags, optionRows, readOption, usageLines, usageToken, type Option, type OptionTable } from "../../util/options.js";
import { parseFlags, UsageError } from "../shared/args.js";
import { callSeed } from "../../models/callSeed.js";
import { HUMAN_INTRO, humanSource, stdinLines } from "./humanPlay.js";

const POLICIES = [...POLICY_NAMES, "human"] as const;

/** play's rows: each value is read by its row (the game, config and seed must be given). */
const PLAY_OPTIONS = {
  game: { name: "game", kind: { type: "choice", choices: GAME_NAMES }, default: undefined, arg: "G", help: `the game (required): ${GAME_NAMES.join(", ")}` },
  config: { name: "config", kind: { type: "choice", choices: CONFIG_NAMES }, default: undefined, help: "the exploration or the evaluation configuration (required)" },
  seed: { name: "seed", kind: { type: "int", range: { min: 0, max: 4_294_967_295 } }, default: undefined, arg: "N", help: "the episode's seed (required)" },
  policy: { name: "policy", kind: { type: "choice", choices: POLICIES }, default: "heuristic", help: "who plays (default heuristic; human: you, at the terminal)" },
  actions: { name: "actions", kind: { type: "text", shown: "FILE", parse: (v: string) => v }, default: undefined, help: "play the actions of FILE, one a line (instead of --policy)" },
  json: { name: "json", kind: { type: "switch", on: true }, default: false, help: 'print one step record per line, then {"episode": true, "score", "steps"}' },
} as const satisfies OptionTable<{ game: string | undefined; config: string | undefined; seed: number | undefined; policy: string; actions: string | undefined; json: boolean }>;

const ROWS: Option<unknown>[] = optionRows(PLAY_OPTIONS);

const USAGE = [`s3gym play --game G ${usageToken(PLAY_OPTIONS.config).slice(1, -1)} --seed N [flags]`, ...usageLines(ROWS)].join("\n");

const FLAGS = optionFlags(ROWS);

export async function playCommand(argv: string[]): Promise<number> {
  const { values } = parseFlags(argv, FLAGS, USAGE);
  const o = PLAY_OPTIONS;
  const str = (row: Option<unknown>): string | undefined => values[row.name] as string | undefined;
  // Required rows without a default: absent, oneOf and intFlag say what to give.
  const gameName = oneOf(o.game.name, str(o.game), o.game.kind.choices);
  const config = oneOf(o.config.name, str(o.config), o.config.kind.choices);
  const seed = intFlag(o.seed.name, str(o.seed), undefined, intRange(o.seed));
  const actions = readOption(o.actions, values[o.actions.name]) as string | undefined;
  const given = str(o.policy);
  if (actions !== undefined && given !== undefined) throw new UsageError("give either --policy or --actions, not both");
  // `oracle` is perfect-judge's old name: accepted, with a notice on stderr.
  const alias = given === undefined ? null : resolvePolicyName(given);
  if (alias?.notice) process.stderr.write(`s3gym play: note: ${given}: ${alias.notice}\n`);
  const policy = alias?.notice ? alias.name : (readOption(o.policy, given) as (typeof POLICIES)[number]);
  const game = getGame(gameName);
  const json = readOption(o.json, values[o.json.name]) === true;
  const out = (s: string) => process.stdout.write(s);

  let source: ActionSource;
  let closeInput = () => {};
  if (actions !== undefined) {
    let lines: string[];
    try {
      lines = readFileSync(actions, "utf8")
        .split(/\r?\n/)
        .filter((l) => l.trim().length > 0);
    } catch (e) {
      throw new UsageError(`cannot read --actions file '${actions}': ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
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

  const human = policy === "human" && actions === undefined;
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
