/**
 * Game speed in steps per CPU-second, beside KORGym's figures (issue 28). CPU time
 * (process.cpuUsage, user + system), not wall time: the machine is shared, and a loaded machine
 * stretches wall time but not the CPU a step costs.
 *
 * What one step costs here is what a rollout pays per model response: `observe` (the text the model
 * reads) plus `step` (rules, copy of the state). The actions are recorded first (uniform over
 * `legalActions`, from a seeded generator), so choosing them is not timed; the timed loop replays each
 * episode from its first state, observing and stepping as a rollout does, and lets every state go
 * once the next one exists. It does NOT keep the recorded states: holding tens of thousands of
 * them alive (the previous bench did) taught V8 that what step() allocates lives long (allocation-
 * site pretenuring), so every later state went straight to the old generation and garbage collection
 * took 40% of the CPU: the same code ran up to 3x faster with `--no-allocation-site-pretenuring`
 * (docs/games/speed.md). A rollout keeps observations, not states, so that was a cost of the bench.
 * `reset` is timed apart, per episode (KORGym's figure is per step, generation aside).
 *
 * Measurement: every game and config is recorded and warmed (1 CPU-second each) before any is
 * measured, then the measurements are interleaved (one round over every game and config per repeat:
 * 2 CPU-seconds of observe + step, a quarter of that for step alone and for reset) and each figure is
 * the median over 3 repeats. Measuring the first game right after start-up put JIT warm-up into its
 * figure (the same config measured later ran up to 3x faster); interleaving spreads the load of a
 * shared machine over every row alike, and has the shared code (the envelope, the text helpers) see
 * every game, as a runner that plays several games does. Step is timed alone over the same replay;
 * observe is the difference (full minus step). A second column measures each game alone in its own
 * process (as a rollout worker that plays one game runs it; `--no-alone` skips it).
 */
import { spawnSync } from "node:child_process";
import { cpus, loadavg } from "node:os";
import { fileURLToPath } from "node:url";
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
  /** The episode's first state (reset's); the timed loop replays the episode from it. */
  first: EpisodeState;
  actions: string[];
}

function record(game: Game, config: string): Recorded[] {
  const out: Recorded[] = [];
  for (let seed = 0; seed < EPISODES; seed++) {
    const rng = Rng.fromKey(`bench-speed|${game.name}|${config}|${seed}`);
    const first = game.reset(seed, config);
    const rec: Recorded = { seed, first, actions: [] };
    let state = first;
    while (!state.done) {
      const legal = game.legalActions(state);
      const action = legal.length ? rng.pick(legal) : "pass";
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
  /** full minus step, per step (each measured over the same replay). */
  observeUs: number;
  stepUs: number;
  resetUs: number;
  /** Mean episode length of the recorded random play. */
  meanSteps: number;
  korgym?: number;
  /** The same game and config measured in a process of its own (undefined with --no-alone). */
  aloneStepsPerCpuS?: number;
}

// A sink the JIT cannot prove unused, so observe() is not optimised away.
let sink = 0;

/** The timed passes over one game and config's recorded episodes; each returns the steps it covered. */
interface Passes {
  game: Game;
  config: string;
  recs: Recorded[];
  full: () => number;
  stepOnly: () => number;
  resetOnly: () => number;
}

function passes(game: Game, config: string): Passes {
  const recs = record(game, config);
  // One replay, with or without observe: each state lives until its successor exists, as in a rollout.
  const replay = (observe: boolean): number => {
    let n = 0;
    for (const r of recs) {
      let state = r.first;
      const actions = r.actions;
      for (let i = 0; i < actions.length; i++) {
        if (observe) sink += game.observe(state).length;
        const res = game.step(state, actions[i]!);
        sink += res.reward;
        state = res.state;
      }
      n += actions.length;
    }
    return n;
  };
  return {
    game,
    config,
    recs,
    full: () => replay(true),
    stepOnly: () => replay(false),
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
    rate(p.stepOnly, WARMUP_CPU_S / 4);
    rate(p.resetOnly, WARMUP_CPU_S / 4);
  }
  const samples = all.map(() => ({ full: [] as number[], step: [] as number[], reset: [] as number[] }));
  for (let i = 0; i < REPEATS; i++) {
    all.forEach((p, k) => {
      const s = samples[k]!;
      s.full.push(rate(p.full, MEASURE_CPU_S));
      s.step.push(rate(p.stepOnly, MEASURE_CPU_S / 4));
      s.reset.push(rate(p.resetOnly, MEASURE_CPU_S / 4));
    });
  }
  return all.map((p, k) => {
    const s = samples[k]!;
    const full = median(s.full);
    const stepUs = 1e6 / median(s.step);
    return {
      game: p.game.name,
      config: p.config,
      stepsPerCpuS: full,
      // Noise can make the difference negative on a loaded machine; it is printed as 0 then.
      observeUs: Math.max(0, 1e6 / full - stepUs),
      stepUs,
      resetUs: 1e6 / median(s.reset),
      meanSteps: p.recs.reduce((a, r) => a + r.actions.length, 0) / p.recs.length,
      korgym: KORGYM_STEPS_PER_CPU_S[p.game.name],
    };
  });
}

const ratioText = (steps: number, korgym: number | undefined): string => (korgym ? `${(steps / korgym).toFixed(2)}x${steps >= 3 * korgym ? "" : " (< 3x)"}` : "-");

export function speedTable(rows: SpeedRow[]): string {
  const alone = rows.some((r) => r.aloneStepsPerCpuS !== undefined);
  const aloneHead = alone ? " alone: steps per CPU-s | alone: ratio |" : "";
  const lines = [
    `| game | config | steps per CPU-s (mixed) | KORGym | ratio (mixed) |${aloneHead} observe us | step us | reset us (per episode, mean steps) |`,
    `| --- | --- | ---: | ---: | ---: |${alone ? " ---: | ---: |" : ""} ---: | ---: | ---: |`,
  ];
  for (const r of rows) {
    const a = r.aloneStepsPerCpuS;
    const aloneCells = alone ? ` ${a === undefined ? "-" : Math.round(a)} | ${a === undefined ? "-" : ratioText(a, r.korgym)} |` : "";
    lines.push(
      `| ${r.game} | ${r.config} | ${Math.round(r.stepsPerCpuS)} | ${r.korgym ?? "-"} | ${ratioText(r.stepsPerCpuS, r.korgym)} |${aloneCells} ${r.observeUs.toFixed(2)} | ${r.stepUs.toFixed(2)} | ${r.resetUs.toFixed(1)} (${r.meanSteps.toFixed(1)}) |`,
    );
  }
  return lines.join("\n");
}

const pairsOf = (games: GameName[]) => games.flatMap((name) => ["eval", "explore"].map((config) => ({ game: GAMES[name], config })));

/**
 * Each game measured in a process of its own (this script with `--child`, the same loader and
 * budgets): the figure a rollout worker that plays one game sees, without the other games' code in
 * the same JIT. Returns steps per CPU-second by "game/config".
 */
function measureAlone(games: GameName[]): Map<string, number> {
  const out = new Map<string, number>();
  const script = fileURLToPath(import.meta.url);
  const passOn = process.argv.slice(2).filter((a, i, all) => a === "--quick" || a === "--repeats" || all[i - 1] === "--repeats");
  for (const game of games) {
    const child = spawnSync(process.execPath, [...process.execArgv, script, "--child", game, ...passOn], { encoding: "utf8" });
    const line = child.stdout.split("\n").find((l) => l.startsWith(CHILD_PREFIX));
    if (child.status !== 0 || !line) throw new Error(`the alone measurement of ${game} failed (exit ${child.status}): ${child.stderr.slice(-500)}`);
    for (const r of JSON.parse(line.slice(CHILD_PREFIX.length)) as SpeedRow[]) out.set(`${r.game}/${r.config}`, r.stepsPerCpuS);
  }
  return out;
}

const CHILD_PREFIX = "speed-rows ";

/** Every game with a KORGym reference (chess is the kit's own), eval then explore. */
export function runSpeed(games: GameName[] = Object.keys(KORGYM_STEPS_PER_CPU_S) as GameName[]): string {
  const loadBefore = loadavg()[0]!;
  const rows = measureAll(pairsOf(games));
  if (sink < 0) console.log(sink);
  if (!process.argv.includes("--no-alone")) {
    const alone = measureAlone(games);
    for (const r of rows) r.aloneStepsPerCpuS = alone.get(`${r.game}/${r.config}`);
  }
  const budgets = `warm-up ${WARMUP_CPU_S} CPU-s, measured ${MEASURE_CPU_S} CPU-s, ${REPEATS} interleaved repeat(s), median, ${EPISODES} episodes per row`;
  return `${speedTable(rows)}\n\n${budgets}; load average (1 min) ${loadBefore.toFixed(1)} at the start, ${loadavg()[0]!.toFixed(1)} at the end, ${cpus().length} CPUs`;
}

const childAt = process.argv.indexOf("--child");
if (childAt >= 0) {
  const game = process.argv[childAt + 1] as GameName;
  if (!GAMES[game]) throw new Error(`--child needs a game name, got '${process.argv[childAt + 1] ?? ""}'`);
  console.log(CHILD_PREFIX + JSON.stringify(measureAll(pairsOf([game]))));
  if (sink < 0) console.log(sink);
} else if (process.argv[1]?.endsWith("gameSpeed.ts")) {
  const args = process.argv.slice(2);
  const only = args.filter((a, i) => !a.startsWith("--") && args[i - 1] !== "--repeats") as GameName[];
  console.log(`Steps per CPU-second (observe + step, random legal actions), node ${process.version}\n`);
  console.log(runSpeed(only.length ? only : undefined));
}
