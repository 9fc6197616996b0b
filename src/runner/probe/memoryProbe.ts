/**
 * Memory probes (docs/memory.md): does the model read its memory? A probe replays a recorded
 * ("intact") run's exploration into a new run, exactly as a rejudge does (recordedExploration.ts:
 * the same steps, no exploration call), and plays every checkpoint's evaluation episodes on the
 * intact run's evaluation seeds, but its checkpoints read another experience than the one the
 * pathway would consolidate from those episodes:
 *
 *   empty        no experience at all (the text a `none` run reads)
 *   shuffled     the experience of the same model's run of ANOTHER run seed (same game, pathway and
 *                protocol): a memory of the right kind, written by the same model, about other boards
 *   transplant   the experience of ANOTHER model's run of the same game and pathway: the same kind of
 *                memory, in another model's words
 *
 * A donor's experience at checkpoint x is its pathway's `rebuild` of Z_x from the donor's logs (the
 * replay the viewer uses): pure, no model call, the very text the donor's own checkpoint x read. So
 * any pathway whose state is rebuilt from its logs can be probed (history, memory, and a pathway
 * added later the same way). The probe run pays its evaluation episodes and nothing else.
 *
 * One run per (intact run, probe), id `<intact id>__probe-<kind>` (a transplant's kind names its
 * donor: `transplant-<donor model slug>-<hash of the donor's run id>`), a normal run directory: its
 * manifest names the intact run (`rejudged_from`) and the probe with its donor (`probe`); rerunning
 * resumes it, and a resumed shuffled probe keeps the donor its manifest recorded.
 */
import { existsSync, readdirSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import type { Game } from "../../games/types.js";
import { readJsonFile } from "../../logs/reader.js";
import { manifestPath, runDir, runsDir } from "../../logs/runDir.js";
import { RunManifest } from "../../logs/schema.js";
import type { OnCall } from "../../models/callLog.js";
import type { Model } from "../../models/types.js";
import { getPathway, playsProtocolLoop } from "../../pathways/registry.js";
import { NO_EXPERIENCE, type ExperienceSnapshot, type ExperienceState, type PathwayLogs, type PathwaySettings } from "../../pathways/types.js";
import { ConfigError } from "../../util/errors.js";
import { listItems, type Option } from "../../util/options.js";
import { fnv1a32 } from "../../util/rng.js";
import type { ProtocolSettings, RunContext, RunEvents } from "../loop/context.js";
import type { InvocationInput } from "../settings/manifest.js";
import { settingsFromRecord } from "../settings/protocolRecord.js";
import { readRecordedEpisodes, type RecordedExploration, type StepTransform } from "../resume/recordedExploration.js";
import { loadRunLogs } from "../resume/replay.js";
import { runMatrix, type RunOutcome } from "../loop/runLoop.js";
import type { MatrixEntry } from "../loop/schedule.js";

export const PROBE_KINDS = ["empty", "shuffled", "transplant"] as const;
export type ProbeKind = (typeof PROBE_KINDS)[number];

/** A probe as asked for: `empty`, `shuffled`, or `transplant:<run dir or run id>`. */
export type ProbeSpec = { kind: "empty" } | { kind: "shuffled" } | { kind: "transplant"; from: string };

export const PROBE_USAGE = "empty|shuffled|transplant:<run dir or run id>";

/** `s3gym probe --probe`: one probe or a comma list (duplicates merged), each read by parseProbe. */
export const PROBES_OPTION: Option<ProbeSpec[]> = {
  name: "probe",
  kind: { type: "text", shown: `${PROBE_USAGE}[,...]`, parse: (v) => listItems(v).map(parseProbe) },
  default: undefined,
  required: `${PROBE_USAGE} (a comma list for several)`,
  help: "one probe or several (comma list): one probe run each, evaluation only\n     empty: no experience; shuffled: the same model's run of another run seed; transplant:<run dir or id>: another model's run",
};

/** Parses one probe; throws a ConfigError naming the accepted forms. */
export function parseProbe(text: string): ProbeSpec {
  const t = text.trim();
  if (t === "empty" || t === "shuffled") return { kind: t };
  if (t.startsWith("transplant:")) {
    const from = t.slice("transplant:".length).trim();
    if (from === "") throw new ConfigError(`probe '${t}': transplant needs the donor run after the colon (transplant:<run dir or run id>): another model's run of the same game and pathway`);
    return { kind: "transplant", from };
  }
  if (t === "transplant") throw new ConfigError("probe 'transplant' needs its donor: transplant:<run dir or run id> (another model's run of the same game and pathway)");
  throw new ConfigError(`unknown probe '${t}': expected ${PROBE_USAGE}`);
}

/** A run directory and its manifest. */
export interface ProbeRun {
  dir: string;
  manifest: RunManifest;
}

function readRun(dir: string): ProbeRun {
  const path = manifestPath(dir);
  if (!existsSync(path)) throw new ConfigError(`${dir}: no manifest.json there: name a run directory (<data>/runs/<run_id>) or a run id of the data directory`);
  return { dir: resolve(dir), manifest: readJsonFile(path, RunManifest) };
}

/** The judge a run's experience carried (`self` when its manifest records none). */
function judgeOfManifest(m: RunManifest): string {
  return m.config.protocol?.judge ?? "self";
}

/** What makes a run usable as an intact run or a donor, said before anything runs. */
function checkExperienceRun(m: RunManifest, role: "probed" | "donor"): void {
  const as = role === "probed" ? "probed" : "a probe's donor";
  if (!playsProtocolLoop(m.pathway) || m.pathway === "none")
    throw new ConfigError(`run ${m.run_id} is a ${m.pathway} run: only runs whose experience is consolidated from exploration (history, memory, ...) can be ${as}`);
  if (getPathway(m.pathway).exploration !== undefined)
    throw new ConfigError(`run ${m.run_id} is a ${m.pathway} run, which plans its exploration from its own memory: its evidence cannot be held fixed, so it cannot be ${as}`);
  if (m.rejudged_from !== undefined) throw new ConfigError(`run ${m.run_id} is itself a replay of ${m.rejudged_from.run_id} (a rejudge or a probe): use that run instead`);
  if (judgeOfManifest(m) !== "self")
    throw new ConfigError(`run ${m.run_id} explored under --judge ${judgeOfManifest(m)}: probes compare a model with its own memory; use the same model's self-judged run`);
  if (!m.config.protocol) throw new ConfigError(`run ${m.run_id}'s manifest records no protocol (written before it was recorded): it cannot be ${as}`);
  if (role === "donor" && m.status !== "complete")
    throw new ConfigError(`run ${m.run_id} is ${m.status}, not complete: a donor must have every checkpoint's experience; finish it first (rerun its command)`);
}

/** The intact run at `dir`, checked. */
export function readProbeSource(dir: string): ProbeRun {
  const r = readRun(dir);
  checkExperienceRun(r.manifest, "probed");
  return r;
}

/** A run given as a directory or as a run id of `dataDir`. */
export function runByRef(ref: string, dataDir: string): ProbeRun {
  const asDir = resolve(ref);
  if (existsSync(asDir) && statSync(asDir).isDirectory()) return readRun(asDir);
  const dir = runDir(dataDir, ref);
  if (!existsSync(dir)) throw new ConfigError(`transplant:${ref}: no such run directory, and no run of that id in ${dataDir} (expected ${dir})`);
  return readRun(dir);
}

/** Whether two runs share the protocol a probe needs: the same exploration length and checkpoints. */
function sameCheckpoints(a: RunManifest, b: RunManifest): boolean {
  const sa = settingsFromRecord(a.config.protocol!);
  const sb = settingsFromRecord(b.config.protocol!);
  return sa.exploreEpisodes === sb.exploreEpisodes && sa.checkpointEvery === sb.checkpointEvery;
}

/**
 * The shuffled probe's donor: the same model's complete, self-judged run of the same game and
 * pathway under another run seed, in the intact run's data directory (or `dataDir`): the next run
 * seed above the intact one, wrapping to the lowest (so seeds 0, 1, 2 take 1, 2, 0). None: a
 * ConfigError naming the run that is missing and how to make it.
 */
export function shuffledDonor(intact: ProbeRun, dataDirs: readonly string[]): ProbeRun {
  const m = intact.manifest;
  const found: ProbeRun[] = [];
  const seen = new Set<string>();
  for (const data of dataDirs) {
    const root = runsDir(data);
    if (!existsSync(root)) continue;
    for (const id of readdirSync(root).sort()) {
      const dir = join(root, id);
      if (seen.has(resolve(dir)) || !existsSync(manifestPath(dir))) continue;
      seen.add(resolve(dir));
      let r: ProbeRun;
      try {
        r = readRun(dir);
      } catch {
        continue; // an unreadable manifest is run_quality's business; it is simply not a donor
      }
      const d = r.manifest;
      if (d.model !== m.model || d.game !== m.game || d.pathway !== m.pathway || d.run_seed === m.run_seed) continue;
      if (d.rejudged_from !== undefined || judgeOfManifest(d) !== "self" || d.status !== "complete" || !d.config.protocol || !sameCheckpoints(d, m)) continue;
      found.push(r);
    }
  }
  if (found.length === 0) {
    throw new ConfigError(
      `probe shuffled of ${m.run_id}: no complete run of ${m.model} on ${m.game} with pathway ${m.pathway} under another run seed than ${m.run_seed} ` +
        `(same exploration episodes and checkpoints) in ${dataDirs.join(", ")}: play one first, e.g. 's3gym run --models ${m.model} --games ${m.game} --pathways ${m.pathway} --run-seed ${m.run_seed + 1}' with the same protocol flags and --data`,
    );
  }
  found.sort((a, b) => a.manifest.run_seed - b.manifest.run_seed);
  return found.find((r) => r.manifest.run_seed > m.run_seed) ?? found[0]!;
}

/** The transplant's donor, checked against the intact run. */
export function transplantDonor(intact: ProbeRun, ref: string, dataDir: string): ProbeRun {
  const donor = runByRef(ref, dataDir);
  checkExperienceRun(donor.manifest, "donor");
  const m = intact.manifest;
  const d = donor.manifest;
  if (d.game !== m.game) throw new ConfigError(`transplant:${ref}: the donor plays ${d.game}, the probed run ${m.game}: a transplant carries a memory of the same game`);
  if (d.pathway !== m.pathway) throw new ConfigError(`transplant:${ref}: the donor is a ${d.pathway} run, the probed run a ${m.pathway} run: a transplant carries the same kind of experience`);
  if (d.model === m.model)
    throw new ConfigError(`transplant:${ref}: the donor is ${d.model} too: a transplant carries another model's memory (for another run seed of the same model, use --probe shuffled)`);
  if (!sameCheckpoints(d, m))
    throw new ConfigError(
      `transplant:${ref}: the donor's exploration episodes or checkpoints differ from ${m.run_id}'s: a transplant needs the donor's experience at every checkpoint of the probed run`,
    );
  return donor;
}

/** A short, file-safe tag. */
function slug(text: string, max: number): string {
  const s = text.replace(/[^A-Za-z0-9._-]+/g, "-").replace(/^[-.]+|-+$/g, "");
  return (s || "x").slice(0, max);
}

/** The probe run's id: `<intact id>__probe-<kind>` (a transplant's kind names its donor). */
export function probedRunId(base: string, kind: ProbeKind, donor?: RunManifest): string {
  if (kind !== "transplant") return `${base}__probe-${kind}`;
  return `${base}__probe-transplant-${slug(donor!.model, 40)}-${fnv1a32(donor!.run_id).toString(16).padStart(8, "0")}`;
}

/** One planned probe run: its entry, settings, intact run and donor. */
export interface PlannedProbe {
  entry: MatrixEntry;
  settings: ProtocolSettings;
  kind: ProbeKind;
  source: ProbeRun;
  donor: ProbeRun | null;
}

/** A shuffled probe already begun keeps the donor its manifest recorded (a new run seed in the data must not change it mid-run). */
function recordedDonor(dataDir: string, id: string): ProbeRun | null {
  const dir = runDir(dataDir, id);
  if (!existsSync(manifestPath(dir))) return null;
  const donor = readJsonFile(manifestPath(dir), RunManifest).probe?.donor;
  if (!donor) return null;
  if (!existsSync(manifestPath(donor.dir)))
    throw new ConfigError(`${id}: its manifest records donor ${donor.run_id} at ${donor.dir}, which is gone: restore it, or move ${dir} away to start that probe over`);
  return readRun(donor.dir);
}

/** The probe runs of `source` for `probes`, in `dataDir`. */
export function planProbes(source: ProbeRun, probes: readonly ProbeSpec[], dataDir: string, donorDirs: readonly string[] = [dataDir]): PlannedProbe[] {
  const m = source.manifest;
  const recorded = settingsFromRecord(m.config.protocol!);
  // The probe plays the `eval` view alone: the other views are the intact run's business.
  const { views: _views, ...settings } = recorded;
  const out: PlannedProbe[] = [];
  for (const p of probes) {
    let donor: ProbeRun | null = null;
    if (p.kind === "shuffled") donor = recordedDonor(dataDir, probedRunId(m.run_id, "shuffled")) ?? shuffledDonor(source, donorDirs);
    if (p.kind === "transplant") donor = transplantDonor(source, p.from, dataDir);
    const id = probedRunId(m.run_id, p.kind, donor?.manifest);
    out.push({ entry: { model: m.model, game: m.game, pathway: m.pathway, runSeed: m.run_seed, runId: id }, settings: settings as ProtocolSettings, kind: p.kind, source, donor });
  }
  return out;
}

/** The replayed steps unchanged: a probe changes the experience the checkpoints read, not the evidence. */
export const keepSteps: StepTransform = async (steps) => steps;

function pathwaySettings(s: ProtocolSettings): PathwaySettings {
  return { contextTokens: s.contextTokens, maxNewTokens: s.maxNewTokens, tokenizer: s.tokenizer, ...(s.historyCut ? { historyCut: s.historyCut } : {}) };
}

/** A donor's logs as its pathway's `rebuild` reads them (the viewer's replay reads them the same way). */
export function donorLogs(dir: string): PathwayLogs {
  const data = loadRunLogs(dir);
  return { steps: data.steps, episodes: data.episodes, records: (file) => (data.own[file] ?? []) as never };
}

/**
 * The experience a probe's checkpoints read. It follows the replayed exploration (checkpoint x is
 * still launched after episode x), but consolidating episode x only moves the version: `empty` gives
 * every checkpoint no experience; a donor gives checkpoint x the donor's Z_x, rebuilt from its logs.
 */
export function probeExperience(run: RunContext, logs: PathwayLogs | null): ExperienceState {
  const def = getPathway(run.pathway);
  const ctx = { settings: pathwaySettings(run.settings), counter: run.counter };
  const snapshots = new Map<number, ExperienceSnapshot>();
  let x = 0;
  return {
    consolidated: () => x,
    snapshot: () => {
      if (logs === null) return NO_EXPERIENCE;
      let s = snapshots.get(x);
      if (!s) snapshots.set(x, (s = def.snapshot(def.rebuild(logs, x, ctx), ctx)));
      return s;
    },
    async consolidate(k) {
      x = k;
    },
  };
}

export interface ProbeOptions {
  dataDir: string;
  planned: readonly PlannedProbe[];
  game: (name: string) => Game;
  createModel: (name: string, onCall: OnCall) => Model;
  events?: RunEvents;
  invocation?: InvocationInput;
  /** How many probe runs play at once (default: all, like a matrix; runLoop.ts runsAtOnce). */
  runsAtOnce?: number;
}

/** Plays every planned probe (concurrently, like a matrix, or `runsAtOnce` at a time). */
export async function runProbes(o: ProbeOptions): Promise<RunOutcome[]> {
  const byId = new Map(o.planned.map((p) => [p.entry.runId, p]));
  const episodes = new Map<string, Awaited<ReturnType<typeof readRecordedEpisodes>>>();
  const logs = new Map<string, PathwayLogs>();
  const recorded = new Map<string, RecordedExploration>();
  for (const p of o.planned) {
    if (!episodes.has(p.source.dir)) episodes.set(p.source.dir, await readRecordedEpisodes(p.source.dir));
    if (p.donor && !logs.has(p.donor.dir)) logs.set(p.donor.dir, donorLogs(p.donor.dir));
    const donor = p.donor;
    const donorLog = donor ? logs.get(donor.dir)! : null;
    recorded.set(p.entry.runId, {
      source: { runId: p.source.manifest.run_id, dir: p.source.dir },
      episodes: episodes.get(p.source.dir)!,
      transform: keepSteps,
      probe: {
        record: { kind: p.kind, ...(donor ? { donor: { run_id: donor.manifest.run_id, dir: donor.dir, model: donor.manifest.model, run_seed: donor.manifest.run_seed } } : {}) },
        experience: (run) => probeExperience(run, donorLog),
      },
    });
  }
  const entries = [...o.planned.map((p) => p.entry)].sort((a, b) => (a.runId < b.runId ? -1 : a.runId > b.runId ? 1 : 0));
  return runMatrix({
    dataDir: o.dataDir,
    entries,
    settings: (e) => byId.get(e.runId)!.settings,
    game: o.game,
    createModel: o.createModel,
    ...(o.events ? { events: o.events } : {}),
    ...(o.invocation ? { invocation: o.invocation } : {}),
    ...(o.runsAtOnce !== undefined ? { runsAtOnce: o.runsAtOnce } : {}),
    recorded: (e) => recorded.get(e.runId),
  });
}

/** Which probes a data directory's runs of one model get (reproduce's positive control and null check). */
export interface DataProbeCell {
  model: string;
  /** `empty` on every run seed of `runSeeds`. */
  empty: boolean;
  /** `shuffled` on these run seeds, where another run seed's run of the cell exists. */
  shuffledSeeds: readonly number[];
  /** A transplant from this model's run of the same game, pathway and run seed, on `transplantSeeds`, where it exists. */
  transplantFrom?: string;
  transplantSeeds?: readonly number[];
  /** The run seeds probed at all (null: every one the data holds). */
  runSeeds: readonly number[] | null;
}

/** Which probes a data directory's runs get. */
export interface DataProbeSpec {
  pathways: readonly string[];
  cells: readonly DataProbeCell[];
}

/** The complete, self-judged, non-replayed runs of a data directory. */
function completeRuns(dataDir: string): ProbeRun[] {
  const root = runsDir(dataDir);
  if (!existsSync(root)) return [];
  const out: ProbeRun[] = [];
  for (const id of readdirSync(root).sort()) {
    const dir = join(root, id);
    if (!existsSync(manifestPath(dir))) continue;
    const r = readRun(dir);
    const m = r.manifest;
    if (m.status !== "complete" || m.rejudged_from !== undefined || judgeOfManifest(m) !== "self" || !m.config.protocol) continue;
    out.push(r);
  }
  return out;
}

/**
 * The probes of a data directory's runs under `spec`: each complete run of a listed model and
 * pathway (and run seed) gets `empty`, `shuffled` on the cell's shuffled seeds where another run
 * seed's run of the cell exists, and a transplant where the donor model's run of the same game,
 * pathway and run seed is complete. Only what the data allows is planned (nothing is an error here:
 * a cell without a donor simply has no such probe).
 */
export function planDataProbes(dataDir: string, spec: DataProbeSpec): PlannedProbe[] {
  const runs = completeRuns(dataDir);
  const out: PlannedProbe[] = [];
  for (const r of runs) {
    const m = r.manifest;
    const c = spec.cells.find((x) => x.model === m.model);
    if (!c || !spec.pathways.includes(m.pathway) || (c.runSeeds !== null && !c.runSeeds.includes(m.run_seed))) continue;
    const probes: ProbeSpec[] = c.empty ? [{ kind: "empty" }] : [];
    const cell = (d: RunManifest) => d.game === m.game && d.pathway === m.pathway && sameCheckpoints(d, m);
    if (c.shuffledSeeds.includes(m.run_seed) && runs.some((o) => o.manifest.model === m.model && o.manifest.run_seed !== m.run_seed && cell(o.manifest))) probes.push({ kind: "shuffled" });
    const donor =
      c.transplantFrom === undefined || !(c.transplantSeeds ?? []).includes(m.run_seed)
        ? undefined
        : runs.find((o) => o.manifest.model === c.transplantFrom && o.manifest.run_seed === m.run_seed && cell(o.manifest));
    if (donor) probes.push({ kind: "transplant", from: donor.dir });
    if (probes.length > 0) out.push(...planProbes(r, probes, dataDir));
  }
  return out;
}
