/**
 * Games benchmark (prints, never asserts). First the speed in steps per CPU-second beside KORGym's,
 * measured mixed (all games in one process) and alone (each game in its own; `--no-alone` skips it)
 * (bench/gameSpeed.ts; `npm run bench:games -- --speed` prints only that). Then per game and config,
 * over seeds 0..49:
 * - reset p50 / p99 (ms) beside steps per second of each built-in policy;
 * - the mean +- sd of the episode score of random (floor), heuristic (reference), perfect-judge and
 *   ceiling, and for chess of a player that knows the hidden rules, so each config's difficulty and
 *   headroom are visible; "heuristic > random" and "ceiling >= heuristic" must hold everywhere.
 * Policies get the generator the runner would give them in-process (from the call identity).
 * Run: npm run bench:games [-- --speed | --quality] [--games nullify,trust]
 */
import { performance } from "node:perf_hooks";
import { KORGYM_STEPS_PER_CPU_S, runSpeed } from "./gameSpeed.js";
import { rulesKnowing } from "../src/games/chess/policies.js";
import { playEpisode } from "../src/games/episode.js";
import { callSeed } from "../src/models/callSeed.js";
import { decide, POLICY_NAMES, type PolicyName } from "../src/games/policies.js";
import { GAMES, parseGameList } from "../src/games/registry.js";
import { Rng } from "../src/util/rng.js";
import { CONFIG_NAMES, GAME_NAMES, type Game, type GameName, type TextPolicy } from "../src/games/types.js";

const SEEDS = Array.from({ length: 50 }, (_, i) => i);
const RESETS = 2000;

/** The player label, and how it decides. */
type Player = { name: string; play: (game: Game, seed: number) => ReturnType<typeof playEpisode> };

const builtin = (policy: PolicyName): Player => ({
  name: policy,
  play: (game, seed) =>
    playEpisode(game, seed, configNow, (ctx, state) =>
      decide(game, policy, state, ctx, callSeed({ runId: `bench|${game.name}|${configNow}`, purpose: "step", phase: "eval", checkpoint: 0, episode: seed, step: state.step, sample: 0 })),
    ),
});

const reference = (name: string, policy: TextPolicy): Player => ({
  name,
  play: (game, seed) => playEpisode(game, seed, configNow, (ctx) => policy(ctx, Rng.fromKey(`bench|${name}|${seed}|${ctx.history.length}`))),
});

let configNow = "eval";

function quantile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] as number;
}

function resetTimes(game: Game, config: string): { p50: number; p99: number } {
  for (let s = 0; s < 50; s++) game.reset(100_000 + s, config); // warm up the JIT
  const t: number[] = [];
  for (let s = 0; s < RESETS; s++) {
    const t0 = performance.now();
    game.reset(s, config);
    t.push(performance.now() - t0);
  }
  t.sort((a, b) => a - b);
  return { p50: quantile(t, 0.5), p99: quantile(t, 0.99) };
}

function meanSd(xs: number[]): { mean: number; sd: number } {
  const mean = xs.reduce((a, b) => a + b, 0) / xs.length;
  const sd = Math.sqrt(xs.reduce((a, b) => a + (b - mean) ** 2, 0) / Math.max(1, xs.length - 1));
  return { mean, sd };
}

const fmt = (x: number): string => (Math.abs(x) >= 10 ? x.toFixed(1) : x.toFixed(3));

// `--games a,b` limits both tables to those games; `--speed` prints only the speed table, `--quality`
// only the reset, policy-rate and score tables.
const gamesArg = process.argv.indexOf("--games");
const games: GameName[] = gamesArg < 0 ? [...GAME_NAMES] : parseGameList(process.argv[gamesArg + 1] ?? "");
if (!process.argv.includes("--quality")) {
  console.log(`Steps per CPU-second (observe + step, random legal actions), node ${process.version}\n`);
  console.log(runSpeed(games.filter((g) => KORGYM_STEPS_PER_CPU_S[g] !== undefined)));
}
if (process.argv.includes("--speed")) process.exit(0);

const speed: string[] = [
  "| game | config | reset p50 ms | reset p99 ms | random steps/s | heuristic steps/s | perfect-judge steps/s | ceiling steps/s |",
  "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |",
];
const quality: string[] = [
  "| game | config | random | heuristic | perfect-judge | ceiling | rules-knowing | heuristic > random | ceiling >= heuristic |",
  "| --- | --- | ---: | ---: | ---: | ---: | ---: | --- | --- |",
];

for (const name of games) {
  const game = GAMES[name];
  for (const config of CONFIG_NAMES) {
    configNow = config;
    const reset = resetTimes(game, config);
    const players: Player[] = [...POLICY_NAMES.map(builtin), ...(name === "chess" ? [reference("rules-knowing", rulesKnowing)] : [])];
    const scores: Record<string, { mean: number; sd: number }> = {};
    const rate: Record<string, number> = {};
    for (const p of players) {
      const s: number[] = [];
      let steps = 0;
      const t0 = performance.now();
      for (const seed of SEEDS) {
        const r = await p.play(game, seed);
        s.push(r.score);
        steps += r.steps.length;
      }
      rate[p.name] = steps / ((performance.now() - t0) / 1000);
      scores[p.name] = meanSd(s);
    }
    speed.push(
      `| ${name} | ${config} | ${reset.p50.toFixed(3)} | ${reset.p99.toFixed(3)} | ${Math.round(rate.random!)} | ${Math.round(rate.heuristic!)} | ${Math.round(rate["perfect-judge"]!)} | ${Math.round(rate.ceiling!)} |`,
    );
    const cell = (k: string) => (scores[k] ? `${fmt(scores[k]!.mean)} +- ${fmt(scores[k]!.sd)}` : "-");
    quality.push(
      `| ${name} | ${config} | ${cell("random")} | ${cell("heuristic")} | ${cell("perfect-judge")} | ${cell("ceiling")} | ${cell("rules-knowing")} | ${scores.heuristic!.mean > scores.random!.mean ? "yes" : "NO"} | ${scores.ceiling!.mean >= scores.heuristic!.mean ? "yes" : "NO"} |`,
    );
  }
}
console.log(`Reset time (${RESETS} seeds) and steps per second (seeds 0..49), node ${process.version}\n`);
console.log(speed.join("\n"));
console.log("\nEpisode score, mean +- sd over seeds 0..49\n");
console.log(quality.join("\n"));
