/**
 * reproduce's ETA against the truth, replayed from a finished reproduction's logs (issue 31, item 2).
 *
 * The runs phase is rebuilt as reproduce runs it: the job list of the default design (`planReproduction`),
 * each job's duration taken from its runs' episodes.jsonl timestamps (first start to last end, the
 * training loop's round directories and the judge dial's runs included), and the jobs replayed in
 * list order on `--slots` slots (longest first, as the pool starts them). Every episode end of a
 * watched run (the runs the progress line counts) is then counted at its replayed time, and the ETA
 * the progress line shows (`paceEta`: episodes left x mean time per episode) is compared with the
 * time that really remained. Prints the per-job durations, then shown vs true at 10%, 25% and 50% of
 * the jobs done (and of the episodes). `--timeline recorded` replays the times the logs hold instead
 * of the pool replay (the recorded run may have had other load beside it).
 *
 *   npx tsx bench/reproduceEta.ts --data DIR [--slots 2] [--timeline pool|recorded]
 */
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { readRunFile } from "../src/logs/reader.js";
import { runFile, runsDir } from "../src/logs/runDir.js";
import { EpisodeRecord } from "../src/logs/schema.js";
import { DEFAULT_SCHEDULE, jobRuns, planReproduction, watchedRuns as plannedWatchedRuns, type ReproduceJob } from "../src/cli/reproduce/reproducePlan.js";
import { paceEta } from "../src/cli/reproduce/reproduceProgress.js";

function flag(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] !== undefined ? process.argv[i + 1]! : fallback;
}
const data = flag("data", "data");
const slots = Number(flag("slots", "2"));
/** `pool`: the jobs replayed on the slots from their durations; `recorded`: the times the logs hold. */
const timeline = flag("timeline", "pool");

function episodesOf(dir: string): EpisodeRecord[] {
  if (!existsSync(runFile(dir, "episodes"))) return [];
  return readRunFile(runFile(dir, "episodes"), EpisodeRecord).lines.map((l) => l.value);
}

/** Every run directory under `root` (a data directory's runs/, or nested round directories). */
function runDirsUnder(root: string): string[] {
  if (!existsSync(root)) return [];
  const out: string[] = [];
  for (const d of readdirSync(root, { withFileTypes: true })) {
    if (!d.isDirectory()) continue;
    const p = join(root, d.name);
    if (existsSync(join(p, "manifest.json"))) out.push(p);
    else out.push(...runDirsUnder(p));
  }
  return out;
}

interface JobTrace {
  job: ReproduceJob;
  durationMs: number;
  /** Recorded start (ms since the epoch). */
  start: number;
  /** Episode ends of watched runs: ms after the job's start, run id. */
  ends: { at: number; runId: string }[];
}

const jobs = planReproduction(DEFAULT_SCHEDULE, data);
const watchedRuns = plannedWatchedRuns(jobs);
const watched = new Set(watchedRuns.map((r) => r.runId));
const traces: JobTrace[] = jobs.map((job) => {
  // The run ids a job writes: a run job's (its shard of the matrix), a train-loop job's evaluation runs.
  const ids = jobRuns(job).map((r) => r.runId);
  const dataDir = job.settings.data;
  const dirs = ids.map((id) => join(runsDir(dataDir), id));
  // The training loop's exploration runs live in its round directories.
  if (job.command === "train-loop") dirs.push(...runDirsUnder(join(data, "train-loop")));
  const eps = dirs.flatMap((d) => episodesOf(d));
  if (eps.length === 0) throw new Error(`job ${job.name}: no episodes under ${dataDir} (is --data a full default reproduction?)`);
  const start = Math.min(...eps.map((e) => Date.parse(e.started_at)));
  const end = Math.max(...eps.map((e) => Date.parse(e.ended_at)));
  // Watched: the runs of the data directory's runs/ (the judge dial's share run ids with the matrix but live in dial/).
  const ends = (dataDir === data ? ids : []).filter((id) => watched.has(id)).flatMap((id) => episodesOf(join(runsDir(data), id)).map((e) => ({ at: Date.parse(e.ended_at) - start, runId: e.run_id })));
  return { job, durationMs: end - start, start, ends };
});

// The pool: each job starts on the first free slot, in list order.
const free = new Array<number>(slots).fill(0);
const t0 = Math.min(...traces.map((t) => t.start));
const placed = traces.map((t) => {
  if (timeline === "recorded") return { ...t, start: t.start - t0, end: t.start - t0 + t.durationMs };
  const s = free.indexOf(Math.min(...free));
  const start = free[s]!;
  free[s] = start + t.durationMs;
  return { ...t, start, end: start + t.durationMs };
});
const endAll = Math.max(...placed.map((p) => p.end));
console.log(`${data}: ${jobs.length} jobs on ${slots} slots (${timeline} timeline), replayed length ${(endAll / 1000).toFixed(0)} s`);
for (const p of placed) console.log(`  ${p.job.name.padEnd(28)} ${(p.durationMs / 1000).toFixed(0).padStart(6)} s  (${p.ends.length} watched episodes)  starts at ${(p.start / 1000).toFixed(0)} s`);

type Event = { at: number; kind: "episode"; runId: string } | { at: number; kind: "jobStart" | "jobEnd"; job: number };
const events: Event[] = [];
placed.forEach((p, j) => {
  events.push({ at: p.start, kind: "jobStart", job: j }, { at: p.end, kind: "jobEnd", job: j });
  for (const e of p.ends) events.push({ at: p.start + e.at, kind: "episode", runId: e.runId });
});
events.sort((a, b) => a.at - b.at || (a.kind === "jobEnd" ? 1 : 0) - (b.kind === "jobEnd" ? 1 : 0));

let now = 0;
const totalEpisodes = watchedRuns.reduce((a, r) => a + r.totalEpisodes, 0);
let played = 0;
let jobsDone = 0;
const marks = [0.1, 0.25, 0.5];
const byJobs: string[] = [];
const byEpisodes: string[] = [];
let nextJobMark = 0;
let nextEpMark = 0;
const line = (what: string) => {
  const truth = (endAll - now) / 1000;
  const shownOld = paceEta(now / 1000, played, totalEpisodes);
  const err = (s: number | null) => (s === null ? "   -  " : `${s / truth - 1 >= 0 ? "+" : ""}${((s / truth - 1) * 100).toFixed(0)}%`.padStart(6));
  return `  ${what.padEnd(24)} at ${(now / 1000).toFixed(0).padStart(5)} s: true ${truth.toFixed(0).padStart(5)} s | shown ${String(shownOld === null ? "-" : shownOld.toFixed(0)).padStart(5)} s ${err(shownOld)}`;
};
for (const ev of events) {
  now = ev.at;
  if (ev.kind === "jobStart") continue;
  if (ev.kind === "jobEnd") {
    jobsDone++;
    while (nextJobMark < marks.length && jobsDone >= marks[nextJobMark]! * jobs.length) byJobs.push(line(`${marks[nextJobMark++]! * 100}% of jobs (${jobsDone})`));
  } else {
    played++;
    while (nextEpMark < marks.length && played >= marks[nextEpMark]! * totalEpisodes) byEpisodes.push(line(`${marks[nextEpMark++]! * 100}% of episodes`));
  }
}
console.log("ETA shown vs the time that really remained:");
for (const l of [...byJobs, ...byEpisodes]) console.log(l);
