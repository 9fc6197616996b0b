/**
 * How much of `s3gym reproduce`'s wall time its scheduling could still win, replayed from a finished
 * reproduction's console log (it prints, it never asserts).
 *
 * 1. Idle cores per phase: from the log's summary rows (each phase's wall and CPU, user + sys,
 *    children included), slots x wall - CPU. No order of the same work can save more than the idle
 *    core-seconds / slots of wall time; a phase whose CPU fills its cores can only get shorter by
 *    spending less CPU. The report's and the notebooks' rows are also summed: a child's CPU counts in
 *    the phase it ends in, and the SQL cache warm-up, started beside the report, can end in the notebooks'.
 * 2. The runs phase and the memory probes replayed as jobs on --slots slots, by the pool's rule (a
 *    free slot takes the first job of the list that is ready): each job's duration is its
 *    "<name> done in X s" line (measured beside the other slot's job, so contention is in it); the
 *    probes' CPU (their summary row) is split over the games by the steps their probe runs played
 *    (the probe runs' episodes.jsonl under --data), with --start-s per probe process beyond the two
 *    the probes phase starts (node's start and the CLI's imports). Compared:
 *      today        the plan's order (planReproduction), then the probes phase as measured;
 *      inside       the probes as one job per game in the runs phase, each after every job that plays
 *                   a run it may read (the probed models' and the donors' memory runs of its game);
 *      inside+LPT   the same, the run jobs longest first by their measured durations (an oracle: the
 *                   best a cost model could do);
 *      bound        the sum of all jobs' durations / slots (no idle slot at all).
 *
 *   npx tsx bench/reproduceSchedule.ts --log repro.log --data data [--slots 2] [--start-s 0.5]
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { GAME_NAMES } from "../src/games/types.js";
import { readRunFile } from "../src/logs/reader.js";
import { runFile, runsDir } from "../src/logs/runDir.js";
import { EpisodeRecord } from "../src/logs/schema.js";
import { DEFAULT_SCHEDULE, planReproduction, PROBE_SPEC, runJobPlan, type ReproduceJob } from "../src/cli/reproduce/reproducePlan.js";

function flag(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] !== undefined ? process.argv[i + 1]! : fallback;
}
const logPath = flag("log", "repro.log");
const data = flag("data", "data");
const slots = Number(flag("slots", "2"));
const startS = Number(flag("start-s", "0.5"));
const show = (s: number) => `${s.toFixed(1)} s`;

const log = readFileSync(logPath, "utf8");

// 1. Idle core-seconds per phase, from the summary rows.
const rows = [...log.matchAll(/^ {16}(\S.*?) +([0-9.]+) s +(\d+) s user \+ (\d+) s sys$/gm)].map((m) => ({ name: m[1]!, wallS: Number(m[2]), cpuS: Number(m[3]) + Number(m[4]) }));
if (rows.length === 0) throw new Error(`${logPath}: no summary rows ("<phase>  <wall> s   <user> s user + <sys> s sys"): pass a finished reproduction's console log`);
console.log(`${logPath}: idle cores by phase (${slots} slots: ${slots} x wall - CPU; the most any schedule of the same work saves is idle / ${slots})`);
for (const r of rows) {
  const idle = slots * r.wallS - r.cpuS;
  console.log(
    `  ${r.name.slice(0, 44).padEnd(44)} wall ${show(r.wallS).padStart(9)}  CPU ${show(r.cpuS).padStart(9)}  idle ${show(idle).padStart(8)} (${((100 * idle) / (slots * r.wallS)).toFixed(1)}%)`,
  );
}
// A child's CPU is counted when it ends: the SQL cache warm-up starts with the report and ends during
// the notebooks, so its CPU is in the notebooks' row (one that shows more CPU than its cores could
// give): read those two rows together.
const together = rows.filter((r) => r.name.startsWith("report") || r.name.startsWith("notebooks"));
if (together.length === 2) {
  const wallS = together[0]!.wallS + together[1]!.wallS;
  const cpuS = together[0]!.cpuS + together[1]!.cpuS;
  console.log(
    `  ${"report + notebooks (read together)".padEnd(44)} wall ${show(wallS).padStart(9)}  CPU ${show(cpuS).padStart(9)}  idle ${show(slots * wallS - cpuS).padStart(8)} (${((100 * (slots * wallS - cpuS)) / (slots * wallS)).toFixed(1)}%)`,
  );
}
const row = (prefix: string) => {
  const r = rows.find((x) => x.name.startsWith(prefix));
  if (!r) throw new Error(`${logPath}: no summary row for '${prefix}'`);
  return r;
};
const runsRow = row("runs (");
const probesRow = row("memory probes");

// 2. The jobs replayed.
interface SimJob {
  name: string;
  ms: number;
  after: readonly string[];
}
/** The pool's rule on `slots` slots: the first ready job of the list takes a free slot; returns when the last job ends (ms). */
function replay(jobs: readonly SimJob[]): { endMs: number; ends: { name: string; start: number; end: number }[] } {
  const started = new Set<number>();
  const ended = new Set<string>();
  const running: { i: number; start: number; end: number }[] = [];
  const ends: { name: string; start: number; end: number }[] = [];
  let now = 0;
  while (started.size < jobs.length || running.length > 0) {
    let i: number;
    while (running.length < slots && (i = jobs.findIndex((j, k) => !started.has(k) && j.after.every((a) => ended.has(a)))) >= 0) {
      started.add(i);
      running.push({ i, start: now, end: now + jobs[i]!.ms });
    }
    if (running.length === 0) throw new Error("no job is ready and none is running: an 'after' names a job that never ends");
    running.sort((a, b) => a.end - b.end || a.i - b.i);
    const next = running.shift()!;
    now = next.end;
    ended.add(jobs[next.i]!.name);
    ends.push({ name: jobs[next.i]!.name, start: next.start, end: next.end });
  }
  return { endMs: now, ends };
}

const measured = new Map<string, number>();
for (const m of log.matchAll(/^\[reproduce\] {3}(.+) done in ([0-9.]+) s$/gm)) measured.set(m[1]!, Number(m[2]) * 1000);
const runJobs = planReproduction(DEFAULT_SCHEDULE, data);
const asSim = (j: ReproduceJob): SimJob => {
  const ms = measured.get(j.name);
  if (ms === undefined) throw new Error(`${logPath}: no "${j.name} done in" line (a default-design reproduction's log?)`);
  return { name: j.name, ms, after: [] };
};

/** Whether `job` plays a run of `game` that the probes (PROBE_SPEC) of `data` may read. */
const probedModels = new Set(PROBE_SPEC.cells.flatMap((c) => [c.model, ...(c.transplantFrom !== undefined ? [c.transplantFrom] : [])]));
function feedsProbes(job: ReproduceJob, game: string): boolean {
  if (job.command !== "run" || job.settings.data !== data) return false;
  return runJobPlan(job.settings).selected.some((e) => e.game === game && PROBE_SPEC.pathways.includes(e.pathway) && probedModels.has(e.model));
}

// The probes' CPU by game, in proportion to the steps their runs played.
const stepsByGame = new Map<string, number>();
for (const id of existsSync(runsDir(data)) ? readdirSync(runsDir(data)).filter((d) => d.includes("__probe-")) : []) {
  const f = runFile(join(runsDir(data), id), "episodes");
  if (!existsSync(f)) continue;
  const game = id.split("__")[0]!;
  stepsByGame.set(game, (stepsByGame.get(game) ?? 0) + readRunFile(f, EpisodeRecord).lines.reduce((n, l) => n + l.value.steps, 0));
}
const allSteps = [...stepsByGame.values()].reduce((a, b) => a + b, 0);
if (allSteps === 0) throw new Error(`${data}: no probe runs (<id>__probe-<kind>) with episodes: pass that reproduction's data directory`);
const probeGames = GAME_NAMES.filter((g) => stepsByGame.has(g));
const probeMs = (probesRow.cpuS + Math.max(0, probeGames.length - 2) * startS) * 1000;
const probeJobs: SimJob[] = probeGames.map((game) => ({
  name: `memory probes, ${game}`,
  ms: (probeMs * stepsByGame.get(game)!) / allSteps,
  after: runJobs.filter((j) => feedsProbes(j, game)).map((j) => j.name),
}));

const today = replay(runJobs.map(asSim));
const inside = replay([...runJobs.map(asSim), ...probeJobs]);
const lpt = replay([...runJobs.map(asSim).sort((a, b) => b.ms - a.ms), ...probeJobs]);
const sumMs = [...runJobs.map(asSim), ...probeJobs].reduce((a, j) => a + j.ms, 0);
const todayS = today.endMs / 1000 + probesRow.wallS;
console.log(`runs phase and probes replayed (${runJobs.length} run jobs; the probes as ${probeJobs.length} jobs, ${show(probeMs / 1000)} in all):`);
console.log(`  today        ${show(todayS).padStart(9)}  (runs replayed ${show(today.endMs / 1000)}, measured ${show(runsRow.wallS)}; then probes ${show(probesRow.wallS)} measured)`);
for (const [name, r] of [
  ["inside", inside],
  ["inside+LPT", lpt],
] as const)
  console.log(`  ${name.padEnd(12)} ${show(r.endMs / 1000).padStart(9)}  (saves ${show(todayS - r.endMs / 1000)})`);
console.log(`  bound        ${show(sumMs / 1000 / slots).padStart(9)}  (saves at most ${show(todayS - sumMs / 1000 / slots)})`);
console.log("  inside: the last jobs (start, end):");
for (const e of inside.ends.slice(-9)) console.log(`    ${e.name.padEnd(32)} ${show(e.start / 1000).padStart(9)} ${show(e.end / 1000).padStart(9)}`);
