/** `s3gym games`: the games, their configs and every config parameter. */
import { GAMES } from "../../games/registry.js";
import { CONFIG_NAMES, GAME_NAMES } from "../../games/types.js";
import { parseFlags } from "../shared/args.js";

export async function gamesCommand(argv: string[]): Promise<number> {
  const { values } = parseFlags(argv, { json: { type: "boolean" } }, "s3gym games [--json]");
  if (values.json) {
    const out = Object.fromEntries(GAME_NAMES.map((g) => [g, { summary: GAMES[g].summary, action: GAMES[g].actionGrammar, configs: GAMES[g].configs }]));
    process.stdout.write(`${JSON.stringify(out, null, 2)}\n`);
    return 0;
  }
  for (const name of GAME_NAMES) {
    const game = GAMES[name];
    process.stdout.write(`${name}: ${game.summary}\n  action: ${game.actionGrammar}\n`);
    for (const c of CONFIG_NAMES) {
      const params = Object.entries(game.configs[c] as Record<string, unknown>)
        .map(([k, v]) => `${k}=${typeof v === "object" ? JSON.stringify(v) : String(v)}`)
        .join(" ");
      process.stdout.write(`  ${c.padEnd(7)} ${params}\n`);
    }
  }
  return 0;
}
