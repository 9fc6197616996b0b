/**
 * Rejudging (docs/judging.md, "Rejudge"): a recorded run's exploration, judged by another judge,
 * and only the evaluation episodes played. For each (recorded run, judge) one new run in the data
 * directory, id `<recorded id>__rejudge-<judge>` (runId.ts judgedRunId), with the recorded run's
 * protocol and model, its judge set, and its exploration episodes replayed through the judge
 * (recordedExploration.ts): the experience state at every checkpoint is rebuilt from the same
 * evidence, judged by the new judge, and evaluated on the same evaluation seeds. The exploration is
 * paid once; a rejudge pays the consolidation (memory's summary calls), the judge's own calls
 * (an external judge) and the evaluation episodes.
 */
import { dirname, resolve } from "node:path";
import { existsSync } from "node:fs";
import type { Game } from "../../games/types.js";
import { readJsonFile } from "../../logs/reader.js";
import { manifestPath } from "../../logs/runDir.js";
import { RunManifest } from "../../logs/schema.js";
import type { OnCall } from "../../models/callLog.js";
import type { Model } from "../../models/types.js";
import { getPathway, playsProtocolLoop } from "../../pathways/registry.js";
import { parseJudge } from "../../pathways/judge.js";
import { ConfigError, UsageError } from "../../util/errors.js";
import { listItems, type OptionTable } from "../../util/options.js";
import type { ProtocolSettings, RunEvents } from "../loop/context.js";
import type { InvocationInput } from "../settings/manifest.js";
import { settingsFromRecord } from "../settings/protocolRecord.js";
import { judgeTransform, readRecordedEpisodes, type RecordedExploration } from "./recordedExploration.js";
import { judgedRunId } from "../settings/runId.js";
import { runMatrix, type RunOutcome } from "../loop/runLoop.js";
import type { MatrixEntry } from "../loop/schedule.js";

/** A recorded run to rejudge: its directory and manifest. */
export interface RejudgeSource {
  dir: string;
  manifest: RunManifest;
}

/** The recorded run at `dir` (a run directory), checked: it must have played the protocol loop with experience. */
export function readRejudgeSource(dir: string): RejudgeSource {
  const path = manifestPath(dir);
  if (!existsSync(path)) throw new ConfigError(`--from ${dir}: no manifest.json there: name a run directory (<data>/runs/<run_id>) or a run id with --data`);
  const manifest = readJsonFile(path, RunManifest);
  checkRejudgeable(manifest);
  return { dir, manifest };
}

/** What a rejudge cannot do, said before anything runs. */
export function checkRejudgeable(m: RunManifest): void {
  if (!playsProtocolLoop(m.pathway)) throw new ConfigError(`run ${m.run_id} is a ${m.pathway} run: only runs of the protocol loop (history, memory) have an experience to rejudge`);
  if (m.pathway === "none") throw new ConfigError(`run ${m.run_id} is a none run: it has no experience, so no judge changes it (its gains are the control every judge is compared with)`);
  // verified plans its exploration from its own memory, which the judge changes: the recorded
  // episodes would no longer be the ones the rejudged run plans. Its on-policy form is `run --judge`.
  if (getPathway(m.pathway).exploration !== undefined)
    throw new ConfigError(
      `run ${m.run_id} is a ${m.pathway} run, which plans its exploration from its own memory: a rejudge cannot hold its evidence fixed; use 's3gym run --pathways ${m.pathway} --judge X' (on-policy) instead`,
    );
  if (m.rejudged_from !== undefined) throw new ConfigError(`run ${m.run_id} is itself a rejudge of ${m.rejudged_from.run_id}: rejudge that run instead`);
  if (!m.config.protocol) throw new ConfigError(`run ${m.run_id}'s manifest records no protocol (written before it was recorded): it cannot be rejudged`);
}

/** A required comma list's items (duplicates merged); empty: a UsageError naming the flag. */
function nonEmptyList(flag: string): (value: string) => string[] {
  return (value) => {
    const items = listItems(value);
    if (items.length === 0) throw new UsageError(`--${flag} is empty`);
    return items;
  };
}

/**
 * `s3gym run --rejudge J1,J2 [--rejudge-models M1,M2]`: once the matrix is played, rejudge each
 * complete history or memory run of those models (absent: every model of the run) under each judge.
 */
export const REJUDGE_OPTIONS: OptionTable<{ judges: string[] | undefined; models: string[] | undefined }> = {
  judges: {
    name: "rejudge",
    kind: { type: "text", shown: "J1,J2", parse: (v) => nonEmptyList("rejudge")(v).map(parseJudge) },
    default: undefined,
    help: "then rejudge each complete history/memory run of --rejudge-models (default: all) under each judge,\n              evaluation only (docs/judging.md; s3gym rejudge for one run)",
  },
  models: { name: "rejudge-models", kind: { type: "text", shown: "M1,M2", parse: nonEmptyList("rejudge-models") }, default: undefined, help: "the models whose runs --rejudge rejudges" },
};

/** The data directory a run directory sits in (`<data>/runs/<id>`). */
export function dataDirOf(runDirPath: string): string {
  return dirname(dirname(resolve(runDirPath)));
}

/** The rejudged run of `source` under `judge`: its matrix entry and its settings (the source's protocol, the judge set, no views). */
export function rejudgePlan(source: RejudgeSource, judge: string): { entry: MatrixEntry; settings: ProtocolSettings } {
  const m = source.manifest;
  const j = parseJudge(judge);
  const recorded = settingsFromRecord(m.config.protocol!);
  // The rejudged run plays the `eval` view alone: the other views are the source's business.
  const { views: _views, ...rest } = recorded;
  const settings: ProtocolSettings = { ...rest, ...(j !== "self" ? { judge: j } : {}) };
  delete (settings as { judge?: string }).judge;
  if (j !== "self") settings.judge = j;
  const entry: MatrixEntry = { model: m.model, game: m.game, pathway: m.pathway, runSeed: m.run_seed, runId: judgedRunId(m.run_id, j, "rejudged") };
  return { entry, settings };
}

export interface RejudgeOptions {
  dataDir: string;
  sources: readonly RejudgeSource[];
  judges: readonly string[];
  game: (name: string) => Game;
  createModel: (name: string, onCall: OnCall) => Model;
  events?: RunEvents;
  invocation?: InvocationInput;
}

/** The planned rejudged runs, one per (source, judge), by run id. */
export function planRejudge(sources: readonly RejudgeSource[], judges: readonly string[]): { entry: MatrixEntry; settings: ProtocolSettings; source: RejudgeSource }[] {
  const out = sources.flatMap((source) => judges.map((j) => ({ ...rejudgePlan(source, j), source })));
  return out.sort((a, b) => (a.entry.runId < b.entry.runId ? -1 : a.entry.runId > b.entry.runId ? 1 : 0));
}

/** Rejudges every source under every judge (concurrently, like a matrix). */
export async function rejudgeRuns(o: RejudgeOptions): Promise<RunOutcome[]> {
  const planned = planRejudge(o.sources, o.judges);
  const byId = new Map(planned.map((p) => [p.entry.runId, p]));
  const recorded = new Map<string, RecordedExploration>();
  for (const p of planned) {
    recorded.set(p.entry.runId, { source: { runId: p.source.manifest.run_id, dir: p.source.dir }, episodes: await readRecordedEpisodes(p.source.dir), transform: judgeTransform });
  }
  return runMatrix({
    dataDir: o.dataDir,
    entries: planned.map((p) => p.entry),
    settings: (e) => byId.get(e.runId)!.settings,
    game: o.game,
    createModel: o.createModel,
    ...(o.events ? { events: o.events } : {}),
    ...(o.invocation ? { invocation: o.invocation } : {}),
    recorded: (e) => recorded.get(e.runId),
  });
}
