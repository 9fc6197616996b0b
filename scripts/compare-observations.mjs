#!/usr/bin/env node
/**
 * Hashes everything a player or the verifier sees over many seeded episodes of every game and config
 * (explore variants included): the rules text, every observation, its facts, the legal actions, and
 * every step's feedback, reward, validity, done flag, score and next state (as JSON). Run it on two
 * commits (after `npm run build`) and compare the lines: a speed change must not move one byte.
 *
 *   node scripts/compare-observations.mjs [--seeds 300] [--dist dist] [game ...] > /tmp/x/hashes.txt
 *
 * The actions are mostly uniform over legalActions, with a share of unparsable, empty and garbled
 * answers so the invalid-action paths are hashed too; they come from a seeded generator, so two runs
 * play the same actions wherever the legal actions agree. It also checks that step() leaves its input
 * state unchanged (the runner relies on it) and exits 1 if not.
 */
import { createHash } from "node:crypto";
import { pathToFileURL } from "node:url";
import path from "node:path";

const args = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = args.indexOf(name);
  if (i < 0) return dflt;
  const v = args[i + 1];
  args.splice(i, 2);
  return v;
};
const seeds = Number(opt("--seeds", "300"));
const dist = path.resolve(opt("--dist", "dist"));
if (!Number.isSafeInteger(seeds) || seeds <= 0) {
  console.error("--seeds must be a positive integer");
  process.exit(2);
}
const { GAMES } = await import(pathToFileURL(path.join(dist, "games/registry.js")).href);
const { Rng } = await import(pathToFileURL(path.join(dist, "util/rng.js")).href);
const only = args.filter((a) => !a.startsWith("--"));
for (const g of only) {
  if (!GAMES[g]) {
    console.error(`unknown game '${g}': expected one of ${Object.keys(GAMES).join(", ")}`);
    process.exit(2);
  }
}

// Garbled answers: grammar-looking text with wrong numbers, noise, and empty text.
const garble = (a, rng) => {
  const k = rng.int(4);
  if (k === 0) return a.replace(/\d/g, "9");
  if (k === 1) return `${a}, ${a}`;
  if (k === 2) return "";
  return "hello world";
};

let impure = 0;
let total = 0;
for (const name of only.length ? only : Object.keys(GAMES)) {
  const game = GAMES[name];
  const configs = [["explore", "explore"], ["eval", "eval"], ...Object.entries(game.exploreVariants).map(([n, c]) => [c, n])];
  for (const [config, label] of configs) {
    const h = createHash("sha256");
    let steps = 0;
    h.update(game.rules(config, label));
    for (let seed = 0; seed < seeds; seed++) {
      const rng = Rng.fromKey(`compare-observations|${name}|${label}|${seed}`);
      let state = game.reset(seed, config, label);
      h.update(`\0seed ${seed}\0${JSON.stringify(state)}`);
      while (!state.done) {
        const legal = game.legalActions(state);
        const roll = rng.float();
        let action;
        if (roll < 0.04) action = null;
        else if (roll < 0.12 || legal.length === 0) action = garble(legal.length ? rng.pick(legal) : "pass", rng);
        else action = rng.pick(legal);
        const before = JSON.stringify(state);
        const res = game.step(state, action);
        if (JSON.stringify(state) !== before) impure++;
        h.update(`\0${game.observe(state)}\0${JSON.stringify(game.facts(state))}\0${legal.join("\n")}`);
        h.update(`\0${action}\0${res.feedback}\0${res.reward}\0${res.valid}\0${res.done}\0${game.score(res.state)}\0${JSON.stringify(res.state)}`);
        state = res.state;
        steps++;
      }
      h.update(`\0end\0${game.observe(state)}\0${game.score(state)}`);
    }
    total += steps;
    console.log(`${name}\t${label}\t${steps} steps\t${h.digest("hex").slice(0, 24)}`);
  }
}
console.error(`${total} steps hashed; ${impure} step() calls changed their input`);
if (impure > 0) process.exit(1);
