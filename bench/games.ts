/**
 * Games benchmark (prints, never asserts): steps per second per game, config and policy, and the mean
 * eval score over seeds 0..19 of random vs heuristic per game. Run: npm run bench:games
 */
import { performance } from "node:perf_hooks";
import { playEpisode } from "../src/games/episode.js";
import { textPolicyDecision, type TextPolicyName } from "../src/games/policies.js";
import { GAMES } from "../src/games/registry.js";
import { CONFIG_NAMES, GAME_NAMES, type GameName } from "../src/games/types.js";

const SEEDS = Array.from({ length: 20 }, (_, i) => i);
const POLICIES: TextPolicyName[] = ["random", "heuristic"];

async function episodes(game: GameName, config: string, policy: TextPolicyName) {
  const g = GAMES[game];
  let steps = 0;
  let score = 0;
  const t0 = performance.now();
  for (const seed of SEEDS) {
    const r = await playEpisode(g, seed, config, (ctx) => textPolicyDecision(g, policy, ctx));
    steps += r.steps.length;
    score += r.score;
  }
  const seconds = (performance.now() - t0) / 1000;
  return { stepsPerSecond: steps / seconds, meanScore: score / SEEDS.length, steps };
}

const speed: string[] = ["| game | config | policy | steps | steps/s |", "| --- | --- | --- | ---: | ---: |"];
const quality: string[] = ["| game | random (eval mean) | heuristic (eval mean) | heuristic beats random |", "| --- | ---: | ---: | --- |"];
for (const game of GAME_NAMES) {
  const evalMeans: Record<string, number> = {};
  for (const config of CONFIG_NAMES) {
    for (const policy of POLICIES) {
      const r = await episodes(game, config, policy);
      speed.push(`| ${game} | ${config} | ${policy} | ${r.steps} | ${Math.round(r.stepsPerSecond)} |`);
      if (config === "eval") evalMeans[policy] = r.meanScore;
    }
  }
  const rnd = evalMeans.random!;
  const heu = evalMeans.heuristic!;
  quality.push(`| ${game} | ${rnd.toFixed(3)} | ${heu.toFixed(3)} | ${heu > rnd ? "yes" : "NO"} |`);
}
console.log(`Steps per second (seeds 0..19, text policies decide from the observation text; node ${process.version})\n`);
console.log(speed.join("\n"));
console.log("\nMean eval score over seeds 0..19\n");
console.log(quality.join("\n"));
