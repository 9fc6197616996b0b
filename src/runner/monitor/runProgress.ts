/**
 * Where a run stands, from its files alone (what Ctrl-C and `s3gym status` print): the episodes
 * logged whole (`ok` lines of episodes.jsonl, one per phase, checkpoint, episode and view) against
 * the episodes its manifest plans, and the command that resumes it (recorded by `s3gym run` in the
 * manifest's `config.invocation.command`).
 */
import { z } from "zod";
import { readJsonFile, readRunFile } from "../../logs/reader.js";
import { manifestPath, runFile } from "../../logs/runDir.js";
import { EpisodeRecord, InvocationRecord, RunManifest } from "../../logs/schema.js";
import { redactSecrets } from "../../util/secretText.js";
import { shellLine, shellQuote } from "../../util/shellQuote.js";

export interface EpisodeProgress {
  /** Episodes logged whole (status ok), every view counted. */
  done: number;
  /** Episodes the run plans in all; null when its manifest does not say. */
  planned: number | null;
}

/** Episodes done and planned of the run in `dir`; never throws (an unreadable file counts as nothing). */
export function episodeProgress(dir: string): EpisodeProgress {
  let done = 0;
  try {
    const keys = new Set(
      readRunFile(runFile(dir, "episodes"), EpisodeRecord)
        .lines.filter((l) => l.value.status === "ok")
        .map((l) => `${l.value.phase}|${l.value.checkpoint}|${l.value.episode}|${l.value.view ?? ""}`),
    );
    done = keys.size;
  } catch {
    done = 0;
  }
  let planned: number | null = null;
  try {
    planned = plannedEpisodes(readJsonFile(manifestPath(dir), RunManifest));
  } catch {
    planned = null;
  }
  return { done, planned };
}

/** Episodes a manifest plans: exploration, plus at every checkpoint the eval episodes and those of its other views. */
export function plannedEpisodes(m: Pick<RunManifest, "config">): number | null {
  const p = m.config.protocol;
  if (!p) return null;
  const views = p.views?.names ?? ["eval"];
  const perCheckpoint = p.eval_episodes + (views.includes("id") ? (p.views?.view_episodes ?? 0) : 0) + (views.includes("replay") ? (p.views?.replay_episodes ?? 0) : 0);
  return p.explore_episodes + (m.config.checkpoints ?? []).length * perCheckpoint;
}

/** `3/12 episodes`, or `3 episodes` when the plan is unknown. */
export function formatProgress(p: EpisodeProgress): string {
  return p.planned === null ? `${p.done} episode${p.done === 1 ? "" : "s"}` : `${p.done}/${p.planned} episodes`;
}

export type RunCommandRecord = NonNullable<z.infer<typeof InvocationRecord>["command"]>;

/**
 * What `s3gym run` records to be resumed by: the folder it ran in and its arguments, each passed
 * through the secret redaction (a key pasted into a URL's user part never reaches the record).
 */
export function commandRecord(argv: readonly string[], cwd: string): RunCommandRecord {
  return { cwd: redactSecrets(cwd), argv: argv.map((a) => redactSecrets(a)) };
}

/** The shell line that resumes: `cd <folder> && s3gym run <arguments>`, every word quoted. */
export function resumeLine(c: RunCommandRecord): string {
  return `cd ${shellQuote(c.cwd)} && ${shellLine(["s3gym", "run", ...c.argv])}`;
}

/** The resume command a run's manifest recorded, or null (written before it was recorded, or unreadable). */
export function recordedCommand(dir: string): RunCommandRecord | null {
  try {
    return readJsonFile(manifestPath(dir), RunManifest).config.invocation?.command ?? null;
  } catch {
    return null;
  }
}
