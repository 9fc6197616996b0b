/**
 * What `s3gym run` prints when Ctrl-C (SIGINT) stops it: each run of this invocation as finished,
 * resumable (with its episodes done / planned) or not started, and the exact command that resumes
 * (the folder and arguments it ran with; no key is ever among them, and one pasted into a URL is
 * redacted). The process then exits 130, as a shell expects of an interrupted command.
 */
import { existsSync } from "node:fs";
import { manifestPath, runDir } from "../../logs/runDir.js";
import { RunManifest } from "../../logs/schema.js";
import { readJsonFile } from "../../logs/reader.js";
import { episodeProgress, formatProgress, resumeLine, type RunCommandRecord } from "../../runner/monitor/runProgress.js";

/** Statuses after which a run is not resumed: it ended in its invocation. */
const ENDED = new Set(["complete", "failed", "degenerate", "error"]);

function statusOf(dir: string): string | null {
  try {
    return readJsonFile(manifestPath(dir), RunManifest).status;
  } catch {
    return null;
  }
}

/** The lines printed on Ctrl-C for the runs `runIds` of `dataDir`. */
export function formatInterrupt(dataDir: string, runIds: readonly string[], command: RunCommandRecord): string {
  const lines = ["s3gym run: interrupted (Ctrl-C): every episode logged whole is kept; a resume plays only the rest"];
  let finished = 0;
  let resumable = 0;
  let done = 0;
  let planned = 0;
  for (const id of runIds) {
    const dir = runDir(dataDir, id);
    const status = existsSync(dir) ? statusOf(dir) : null;
    const p = existsSync(dir) ? episodeProgress(dir) : { done: 0, planned: null };
    done += p.done;
    planned += p.planned ?? 0;
    if (status !== null && ENDED.has(status)) {
      finished++;
      lines.push(`  finished (${status})\t${id}\t${formatProgress(p)}`);
    } else if (existsSync(dir)) {
      resumable++;
      lines.push(`  resumable\t${id}\t${formatProgress(p)}`);
    } else {
      resumable++;
      lines.push(`  not started\t${id}`);
    }
  }
  lines.push(
    `s3gym run: ${finished} of ${runIds.length} run${runIds.length === 1 ? "" : "s"} finished, ${resumable} to resume (${done}${planned > 0 ? ` of ${planned}` : ""} episodes done); resume with:`,
  );
  lines.push(`  ${resumeLine(command)}`);
  return `${lines.join("\n")}\n`;
}
