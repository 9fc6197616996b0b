/**
 * Game speed in steps per CPU-second, beside KORGym's figures (issue 28). CPU time
 * (process.cpuUsage, user + system), not wall time: the machine is shared, and a loaded machine
 * stretches wall time but not the CPU a step costs.
 *
 * What one step costs here is what a rollout pays per model response: `observe` (the text the model
 * reads) plus `step` (rules, copy of the state). The states and actions are recorded first (actions
 * uniform over `legalActions`, from a seeded generator), so choosing them is not timed; the timed loop
 * observes and steps each recorded state (step() never changes its input). `reset` is timed apart,
 * per episode (KORGym's figure is per step, generation aside).
 *
 * Measurement: every game and config is recorded and warmed (1 CPU-second each) before any is
 * measured, then the measurements are interleaved (one round over every game and config per repeat:
 * 2 CPU-seconds of observe + step, a quarter of that for each part alone) and each figure is the
 * median over 3 repeats. Measuring the first game right after start-up put JIT warm-up into its
 * figure (the same config measured later ran up to 3x faster); interleaving spreads the load of a
 * shared machine over every row alike. The split between observe and step comes from timing each
 * alone over the same recorded steps.
 */
import { cpus, loadavg } from "node:os";
import { GAMES } from "../src/games/registry.js";
import { Rng } from "../src/util/rng.js";
import type { EpisodeState, Game, GameName } from "../src/games/types.js";

/** KORGym's Python game logic, steps per CPU-second, measured on main (issue 28). */
export const KORGYM_STEPS_PER_CPU_S: Partial<Record<GameName, number>> = {
  minesweeper: 32_100,
  pvz: 28_000,
  snake: 19_000,
  tetris: 29_900,
  trust: 56_000,
  nullify: 39_000,
};

// `--quick` (or S3GYM_BENCH_QUICK=1): a tenth of the budgets, for a loaded machine; `--repeats N`
// overrides the number of interleaved rounds (3, or 1 with --quick).
const QUICK = process.argv.includes("--quick") || process.env.S3GYM_BENCH_QUICK === "1";
const WARMUP_CPU_S = QUICK ? 0.1 : 1;
const MEASURE_CPU_S = QUICK ? 0.2 : 2;
const REPEATS = repeatsArg() ?? (QUICK ? 1 : 3);
const EPISODES = QUICK ? 60 : 200;

function repeatsArg(): number | undefined {
  const i = process.argv.indexOf("--repeats");
  if (i < 0) return undefined;
  const n = Number(process.argv[i + 1]);
  if (!Number.isInteger(n) || n < 1) throw new Error(`--repeats must be a positive integer, got '${process.argv[i + 1] ?? ""}'`);
  return n;
}

interface Recorded {
  seed: number;
  actions: string[];
  /** The state before each action (observe's input). */
  states: EpisodeState[];
}

function record(game: Game, config: string): Recorded[] {
  const out: Recorded[] = [];
  for (let seed = 0; seed < EPISODES; seed++) {
    const rng = Rng.fromKey(`bench-speed|${game.name}|${config}|${seed}`);
    let state = game.reset(seed, config);
    const rec: Recorded = { seed, actions: [], states: [] };
    while (!state.done) {
      const legal = game.legalActions(state);
      const action = legal.length ? rng.pick(legal) : "pass";
      rec.states.push(state);
      rec.actions.push(action);
      state = game.step(state, action).state;
    }
    out.push(rec);
  }
  return out;
}

const cpuSeconds = (): number => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
};

/** Runs `pass` (which returns the number of steps it covered) until `budget` CPU-seconds are spent. */
function rate(pass: () => number, budget: number): number {
  const t0 = cpuSeconds();
  let steps = 0;
  let t = t0;
  while (t - t0 < budget) {
    steps += pass();
    t = cpuSeconds();
  }
  return steps / (t - t0);
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] as number;
}

export interface SpeedRow {
  game: GameName;
  config: string;
  stepsPerCpuS: number;
  observeUs: number;
  stepUs: number;
  resetUs: number;
  /** Mean episode length of the recorded random play. */
  meanSteps: number;
  korgym?: number;
}

// A sink the JIT cannot prove unused, so observe() is not optimised away.
let sink = 0;

/** The timed passes over one game and config's recorded steps; each returns the steps it covered. */
interface Passes {
  game: Game;
  config: string;
  recs: Recorded[];
  full: () => number;
  observeOnly: () => number;
  stepOnly: () => number;
  resetOnly: () => number;
}

function passes(game: Game, config: string): Passes {
  const recs = record(game, config);
  return {
    game,
    config,
    recs,
    full: () => {
      let n = 0;
      for (const r of recs) {
        for (let i = 0; i < r.actions.length; i++) {
          const state = r.states[i]!;
          sink += game.observe(state).length;
          sink += game.step(state, r.actions[i]!).reward;
          n++;
        }
      }
      return n;
    },
    observeOnly: () => {
      let n = 0;
      for (const r of recs) for (const s of r.states) { sink += game.observe(s).length; n++; }
      return n;
    },
    stepOnly: () => {
      let n = 0;
      for (const r of recs) for (let i = 0; i < r.actions.length; i++) { sink += game.step(r.states[i]!, r.actions[i]!).reward; n++; }
      return n;
    },
    resetOnly: () => {
      for (const r of recs) sink += game.reset(r.seed, config).step;
      return recs.length;
    },
  };
}

/**
 * Measures every game and config: all recorded and warmed first, then REPEATS interleaved rounds,
 * medians per row (see the header comment for why).
 */
export function measureAll(pairs: Array<{ game: Game; config: string }>): SpeedRow[] {
  const all = pairs.map(({ game, config }) => passes(game, config));
  for (const p of all) {
    rate(p.full, WARMUP_CPU_S);
    rate(p.observeOnly, WARMUP_CPU_S / 4);
    rate(p.stepOnly, WARMUP_CPU_S / 4);
    rate(p.resetOnly, WARMUP_CPU_S / 4);
  }
  const samples = all.map(() => ({ full: [] as number[], observe: [] as number[], step: [] as number[], reset: [] as number[] }));
  for (let i = 0; i < REPEATS; i++) {
    all.forEach((p, k) => {
      const s = samples[k]!;
      s.full.push(rate(p.full, MEASURE_CPU_S));
      s.observe.push(rate(p.observeOnly, MEASURE_CPU_S / 4));
      s.step.push(rate(p.stepOnly, MEASURE_CPU_S / 4));
      s.reset.push(rate(p.resetOnly, MEASURE_CPU_S / 4));
    });
  }
  return all.map((p, k) => {
    const s = samples[k]!;
    return {
      game: p.game.name,
      config: p.config,
      stepsPerCpuS: median(s.full),
      observeUs: 1e6 / median(s.observe),
      stepUs: 1e6 / median(s.step),
      resetUs: 1e6 / median(s.reset),
      meanSteps: p.recs.reduce((a, r) => a + r.actions.length, 0) / p.recs.length,
      korgym: KORGYM_STEPS_PER_CPU_S[p.game.name],
    };
  });
}

export function speedTable(rows: SpeedRow[]): string {
  const lines = [
    "| game | config | steps per CPU-s | KORGym | ratio | observe us | step us | reset us (per episode, mean steps) |",
    "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |",
  ];
  for (const r of rows) {
    const ratio = r.korgym ? `${(r.stepsPerCpuS / r.korgym).toFixed(2)}x${r.stepsPerCpuS >= 3 * r.korgym ? "" : " (< 3x)"}` : "-";
    lines.push(`| ${r.game} | ${r.config} | ${Math.round(r.stepsPerCpuS)} | ${r.korgym ?? "-"} | ${ratio} | ${r.observeUs.toFixed(2)} | ${r.stepUs.toFixed(2)} | ${r.resetUs.toFixed(1)} (${r.meanSteps.toFixed(1)}) |`);
  }
  return lines.join("\n");
}

/** Every game with a KORGym reference (chess is the kit's own), eval then explore. */
export function runSpeed(games: GameName[] = Object.keys(KORGYM_STEPS_PER_CPU_S) as GameName[]): string {
  const loadBefore = loadavg()[0]!;
  const rows = measureAll(games.flatMap((name) => ["eval", "explore"].map((config) => ({ game: GAMES[name], config }))));
  if (sink < 0) console.log(sink);
  const budgets = `warm-up ${WARMUP_CPU_S} CPU-s, measured ${MEASURE_CPU_S} CPU-s, ${REPEATS} interleaved repeat(s), median`;
  return `${speedTable(rows)}\n\n${budgets}; load average (1 min) ${loadBefore.toFixed(1)} at the start, ${loadavg()[0]!.toFixed(1)} at the end, ${cpus().length} CPUs`;
}

if (process.argv[1]?.endsWith("gameSpeed.ts")) {
  const args = process.argv.slice(2);
  const only = args.filter((a, i) => !a.startsWith("--") && args[i - 1] !== "--repeats") as GameName[];
  console.log(`Steps per CPU-second (observe + step, random legal actions), node ${process.version}\n`);
  console.log(runSpeed(only.length ? only : undefined));
}
