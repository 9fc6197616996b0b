/**
 * `s3gym status --data DIR [--data ...]`: every run of the planned matrix with its state, per shard
 * (runner/shards/shardStatus.ts), and the commands that resume what is missing. Exit 0 when every planned
 * run is done, 1 when some are not (or nothing was found), 2 for input that cannot be read as one plan (a ConfigError).
 */
import { terminalSafe } from "../../models/secrets.js";
import { RUN_STATES, shardStatus, STATUS_DATA_OPTION, type RunState, type ShardStatus } from "../../runner/shards/shardStatus.js";
import { optionFlags, usageLines, usageToken } from "../../util/options.js";
import { shellLine } from "../../util/shellQuote.js";
import { formatProgress } from "../../runner/monitor/runProgress.js";
import { parseFlags, UsageError } from "../shared/args.js";

export const STATUS_USAGE = [
  `s3gym status ${usageToken(STATUS_DATA_OPTION).slice(1, -1)} [--data DIR ...]`,
  ...usageLines([STATUS_DATA_OPTION]),
  "  prints each planned run's state per shard and the commands that resume what is missing;",
  "  exit 0 when every planned run is done, 1 otherwise",
].join("\n");

const FLAGS = optionFlags([STATUS_DATA_OPTION]);

/** `a done, b partial` in RUN_STATES order. */
function counts(states: readonly RunState[]): string {
  return (
    RUN_STATES.map((s) => [s, states.filter((x) => x === s).length] as const)
      .filter(([, n]) => n > 0)
      .map(([s, n]) => `${n} ${s}`)
      .join(", ") || "no runs"
  );
}

/** The report: a block per shard (one line per run), the totals, then the resume commands. */
export function formatStatus(shards: readonly ShardStatus[]): string {
  const lines: string[] = [];
  for (const s of shards) {
    const name = s.shard ? `shard ${s.shard.index}/${s.shard.count}` : "data directory";
    const note = s.shard && !s.started ? " (not started: no plan.json)" : "";
    lines.push(`${name}\t${s.dir}${note}\t${counts(s.runs.map((r) => r.state))}`);
    for (const r of s.runs) lines.push(`  ${r.state.padEnd(11)}\t${r.runId}${r.detail ? `\t${r.detail}` : ""}${r.progress ? `\t${formatProgress(r.progress)} done` : ""}`);
  }
  const all = shards.flatMap((s) => s.runs);
  const done = all.filter((r) => r.state === "done").length;
  lines.push(`total\t${all.length} runs\t${counts(all.map((r) => r.state))}\t${done === all.length ? "complete" : "INCOMPLETE"}`);
  const resume = shards.filter((s) => s.resume !== null);
  const recorded = shards.flatMap((s) => s.resumeCommands ?? []);
  if (resume.length > 0 || recorded.length > 0) {
    const what = resume.length > 0 ? `${resume.length} shard${resume.length > 1 ? "s" : ""}` : `${recorded.length} command${recorded.length > 1 ? "s" : ""}, as the runs recorded them`;
    lines.push(`resume (${what}; a run resumes where it stopped, done episodes are not replayed):`);
    for (const s of resume) lines.push(`  ${shellLine(["s3gym", ...s.resume!])}`);
    for (const c of recorded) lines.push(`  ${c}`);
    if (shards.some((s) => s.runs.some((r) => r.state === "degenerate"))) lines.push("  (a degenerate run is played again as it is: fix the model or its flags first, or accept it)");
  }
  const running = all.filter((r) => r.state === "running").length;
  if (running > 0) lines.push(`${running} run${running > 1 ? "s are" : " is"} still running on this machine: check again when ${running > 1 ? "they end" : "it ends"}`);
  return `${lines.join("\n")}\n`;
}

export interface StatusIo {
  stdout?: { write(text: string): unknown };
  stderr?: { write(text: string): unknown };
}

export async function statusCommand(argv: string[], io: StatusIo = {}): Promise<number> {
  const stdout = io.stdout ?? process.stdout;
  const stderr = io.stderr ?? process.stderr;
  const { values } = parseFlags(argv, FLAGS, STATUS_USAGE);
  const dirs = ((values[STATUS_DATA_OPTION.name] as string[] | undefined) ?? []).filter((d) => d.trim() !== "");
  if (dirs.length === 0) throw new UsageError(`--data is required: a shard directory or the directory that holds them\nusage: ${STATUS_USAGE}`);
  const shards = shardStatus(dirs);
  // Directory names and model names are outside text: escaped before the terminal.
  stdout.write(terminalSafe(formatStatus(shards)));
  // Nothing found is not a complete matrix (a report job waiting on status must not start on it).
  if (shards.every((s) => s.runs.length === 0)) {
    stderr.write(terminalSafe(`s3gym status: no shard plan and no run found in ${dirs.join(", ")}: nothing has started there yet\n`));
    return 1;
  }
  return shards.every((s) => s.runs.every((r) => r.state === "done")) ? 0 : 1;
}
