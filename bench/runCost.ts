/**
 * What `s3gym run` costs per step, in CPU seconds (process.cpuUsage of each child, user + system:
 * the machine is shared, and load stretches wall time but not the CPU a step costs), per game x
 * pathway, and the default reproduction's matrix extrapolated from it (issue 24 item 5: the whole
 * reproduction must fit 10 minutes on an idle 2-core machine).
 *
 *   npm run bench:run-cost [-- --quick] [--games a,b] [--pathways p,q] [--models m1,m2]
 *                          [--eval-episodes K] [--baseline OLD/dist/cli/main.js]
 *
 * Each (game, pathway) is one child `node dist/cli/main.js run` (build first: npm run build) on the
 * default schedule's protocol (30 exploration episodes, a checkpoint every 3, 64 steps) with K
 * evaluation episodes per checkpoint (default 2: the per-step cost depends on the checkpoint, through
 * the experience it carries, not on how many evaluations it plays), models builtin:learner and
 * builtin:heuristic by default. `--quick`: 9 exploration episodes and 1 evaluation episode.
 * `--baseline` plays the same cells with another build (e.g. a copy of an older commit's dist/) in
 * turn with this one and prints both and the ratio.
 *
 * The extrapolation: the default reproduction's matrix plays OFFLINE_MODELS (5) x the seven games x
 * the pathways none/history/memory, each run totalEpisodes(30, 3, DESIGN_EVAL_EPISODES) episodes; a
 * cell's steps per episode and CPU per step are the measured ones (the views, verified, ceiling, dial
 * and training jobs are not in this figure: they add about a fifth).
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { DEFAULT_SCHEDULE, OFFLINE_MODELS } from "../src/cli/reproduce/reproducePlan.js";
import { GAME_NAMES } from "../src/games/types.js";
import { totalEpisodes } from "../src/runner/loop/schedule.js";

function flag(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
}
const QUICK = process.argv.includes("--quick");
const GAMES = (flag("games") ?? GAME_NAMES.join(",")).split(",");
const PATHWAYS = (flag("pathways") ?? "none,history,memory").split(",");
const MODELS = flag("models") ?? "builtin:learner,builtin:heuristic";
const EXPLORE = QUICK ? 9 : DEFAULT_SCHEDULE.exploreEpisodes;
const EVAL = Number(flag("eval-episodes") ?? (QUICK ? 1 : 2));
const CURRENT = resolve("dist/cli/main.js");
const BASELINE = flag("baseline");

for (const main of [CURRENT, ...(BASELINE ? [BASELINE] : [])]) {
  if (!existsSync(main)) {
    console.error(`bench:run-cost: ${main} does not exist (run npm run build first)`);
    process.exit(2);
  }
}

/** A preload that writes the child's own CPU time when it exits. */
const work = mkdtempSync(join(tmpdir(), "s3gym-run-cost-"));
const preload = join(work, "cpuAtExit.mjs");
writeFileSync(
  preload,
  `import { writeFileSync } from "node:fs";\nprocess.on("exit", () => { const u = process.cpuUsage(); writeFileSync(process.env.RUN_COST_CPU_FILE, String((u.user + u.system) / 1e6)); });\n`,
);

interface Measured {
  cpuS: number;
  steps: number;
  episodes: number;
}

function countLines(path: string): number {
  if (!existsSync(path)) return 0;
  const text = readFileSync(path, "utf8");
  let n = 0;
  for (let i = text.indexOf("\n"); i >= 0; i = text.indexOf("\n", i + 1)) n++;
  return n;
}

function play(main: string, game: string, pathway: string, schedule = { explore: EXPLORE, evalEpisodes: EVAL, maxSteps: DEFAULT_SCHEDULE.maxSteps }): Measured {
  const data = mkdtempSync(join(work, "data-"));
  const cpuFile = join(work, "cpu.txt");
  const args = ["--import", preload, main, "run", "--models", MODELS, "--games", game, "--pathways", pathway, "--data", data, "--progress", "off"];
  args.push("--explore-episodes", String(schedule.explore), "--checkpoint-every", "3", "--eval-episodes", String(schedule.evalEpisodes), "--max-steps", String(schedule.maxSteps));
  const r = spawnSync(process.execPath, args, { env: { ...process.env, RUN_COST_CPU_FILE: cpuFile }, stdio: ["ignore", "ignore", "pipe"] });
  if (r.status !== 0) throw new Error(`${game} ${pathway}: s3gym run exited ${r.status}: ${String(r.stderr).slice(-500)}`);
  let steps = 0;
  let episodes = 0;
  for (const id of readdirSync(join(data, "runs"))) {
    steps += countLines(join(data, "runs", id, "steps.jsonl"));
    episodes += countLines(join(data, "runs", id, "episodes.jsonl"));
  }
  const cpuS = Number(readFileSync(cpuFile, "utf8"));
  rmSync(data, { recursive: true, force: true });
  return { cpuS, steps, episodes };
}

/**
 * A process's fixed cost (loading the kit, opening the logs): a run of one step per episode. It is
 * taken off every cell's CPU, so the figures are per step; the reproduction pays it once per job,
 * not per run.
 */
function startup(main: string): number {
  const m = play(main, "tetris", "none", { explore: 3, evalEpisodes: 1, maxSteps: 1 });
  return m.cpuS;
}

const perThousand = (m: Measured) => (1000 * m.cpuS) / Math.max(1, m.steps);
const runEpisodes = totalEpisodes(DEFAULT_SCHEDULE.exploreEpisodes, DEFAULT_SCHEDULE.checkpointEvery, DEFAULT_SCHEDULE.evalEpisodes);
/** CPU-s of one cell of the default matrix (all offline models), from a measured cell. */
const extrapolate = (m: Measured) => OFFLINE_MODELS.length * runEpisodes * (m.steps / Math.max(1, m.episodes)) * (m.cpuS / Math.max(1, m.steps));

console.log(`s3gym run CPU per step: models ${MODELS}; ${EXPLORE} exploration episodes, a checkpoint every 3, ${EVAL} evaluation episodes, ${DEFAULT_SCHEDULE.maxSteps} steps`);
console.log(`(CPU-s = user + system of each child, less the fixed cost of a process; extrapolated: ${OFFLINE_MODELS.length} models x ${runEpisodes} episodes per run of the default design)`);
const header = ["game", "pathway", "steps", "cpu_s", "cpu_s_per_1k_steps", ...(BASELINE ? ["baseline_per_1k", "ratio"] : []), "default_cell_cpu_s", ...(BASELINE ? ["baseline_cell_cpu_s"] : [])];
console.log(header.join("\t"));
const total = { now: { cpuS: 0, steps: 0, episodes: 0 }, base: { cpuS: 0, steps: 0, episodes: 0 }, cellNow: 0, cellBase: 0 };
const fixed = { now: startup(CURRENT), base: BASELINE ? startup(BASELINE) : 0 };
console.log(`fixed cost per process (taken off each cell): ${fixed.now.toFixed(2)} CPU-s${BASELINE ? `, baseline ${fixed.base.toFixed(2)}` : ""}`);
const perStep = (m: Measured, fixedS: number): Measured => ({ ...m, cpuS: Math.max(0, m.cpuS - fixedS) });
for (const game of GAMES)
  for (const pathway of PATHWAYS) {
    // Baseline first, then this build: a drift in the machine's speed hits both of a pair alike.
    const base = BASELINE ? perStep(play(BASELINE, game, pathway), fixed.base) : null;
    const now = perStep(play(CURRENT, game, pathway), fixed.now);
    for (const k of ["cpuS", "steps", "episodes"] as const) {
      total.now[k] += now[k];
      if (base) total.base[k] += base[k];
    }
    total.cellNow += extrapolate(now);
    if (base) total.cellBase += extrapolate(base);
    const row = [game, pathway, String(now.steps), now.cpuS.toFixed(2), perThousand(now).toFixed(3)];
    if (base) row.push(perThousand(base).toFixed(3), (perThousand(base) / perThousand(now)).toFixed(2));
    row.push(extrapolate(now).toFixed(0));
    if (base) row.push(extrapolate(base).toFixed(0));
    console.log(row.join("\t"));
  }
const row = ["total", "", String(total.now.steps), total.now.cpuS.toFixed(2), perThousand(total.now).toFixed(3)];
if (BASELINE) row.push(perThousand(total.base).toFixed(3), (perThousand(total.base) / perThousand(total.now)).toFixed(2));
row.push(total.cellNow.toFixed(0));
if (BASELINE) row.push(total.cellBase.toFixed(0));
console.log(row.join("\t"));
console.log(
  `default reproduction, matrix runs (${OFFLINE_MODELS.length} models x ${GAMES.length} games x ${PATHWAYS.join("/")}): ~${total.cellNow.toFixed(0)} CPU-s${BASELINE ? ` (baseline ~${total.cellBase.toFixed(0)})` : ""}`,
);
rmSync(work, { recursive: true, force: true });
