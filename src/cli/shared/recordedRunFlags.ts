/**
 * The option table `rejudge` and `probe` share: both start new runs from a recorded one. The recorded
 * run (`--from`: a run directory, or a run id of `--data`), where the new runs go (`--data`, default
 * the recorded run's data directory), how progress is shown, and each command's own list (`--judge`,
 * `--probe`, from the module that reads it). The usage lines, the parser spec and the values derive
 * from the rows; where the recorded run is looked for is read here once for both.
 */
import { existsSync, statSync } from "node:fs";
import { resolve } from "node:path";
import { runDir } from "../../logs/runDir.js";
import { PROGRESS_OPTION, type ProgressMode } from "../../runner/monitor/progress.js";
import { dataDirOf } from "../../runner/resume/rejudge.js";
import { asGiven, optionRows, usageLines, usageToken, type Option, type OptionTable } from "../../util/options.js";
import { folderFlag, UsageError } from "./args.js";
import { endpointUsage } from "./sharedFlags.js";

/** The values of a recorded-run command: `what` is the command's own list (judges, probes). */
export interface RecordedRunSettings<W> {
  from: string;
  what: W;
  data: string | undefined;
  progress: ProgressMode;
}

/** What differs between the commands: the name, the own list's row, and the words of `--from` and `--data`. */
export interface RecordedRunCommand<W> {
  command: string;
  what: Option<W>;
  /** What happens to the recorded run, after "whose": `exploration is rejudged`. */
  subject: string;
  /** `--from`'s help. */
  from: string;
  /** `--data`'s help. */
  data: string;
}

/** The command's table: `--from`, its own list, `--data`, `--progress`. */
export function recordedRunOptions<W>(c: RecordedRunCommand<W>): OptionTable<RecordedRunSettings<W>> {
  return {
    from: {
      name: "from",
      kind: { type: "text", shown: "RUN_DIR|RUN_ID", parse: asGiven },
      default: undefined,
      required: `the run directory (or, with --data, the run id) whose ${c.subject}`,
      help: c.from,
    },
    what: c.what,
    data: { name: "data", kind: { type: "text", shown: "DIR", parse: asGiven }, default: undefined, help: c.data },
    progress: PROGRESS_OPTION,
  };
}

/** The usage: the synopsis and a line per row with help from the rows, then the endpoint rows and `--progress`. */
export function recordedRunUsage<W>(c: RecordedRunCommand<W>): string {
  const t = recordedRunOptions(c);
  const named = [t.from, t.what, t.data] as Option<unknown>[];
  return [`s3gym ${c.command} ${named.map(usageToken).join(" ")}`, ...usageLines(named), ...endpointUsage(), ...usageLines([t.progress])].join("\n");
}

/** The rows in table order (for the parser spec). */
export function recordedRunRows<W>(c: RecordedRunCommand<W>): Option<unknown>[] {
  return optionRows(recordedRunOptions(c));
}

/** The recorded run's directory: `--from` as a directory, else a run id of `--data`; a UsageError says which is missing. */
export function recordedRunDir(s: Pick<RecordedRunSettings<unknown>, "from" | "data">): string {
  const asDir = resolve(s.from);
  if (existsSync(asDir) && statSync(asDir).isDirectory()) return asDir;
  if (s.data === undefined) throw new UsageError(`--from ${s.from}: no such directory; a run id needs --data (the data directory that holds it)`);
  const dir = runDir(resolve(folderFlag("data", s.data)), s.from.trim());
  if (!existsSync(dir)) throw new UsageError(`--from ${s.from}: no run of that id in --data ${s.data} (expected ${dir})`);
  return dir;
}

/** Where the new runs go: `--data`, or the recorded run's own data directory. */
export function newRunsDataDir(s: Pick<RecordedRunSettings<unknown>, "data">, sourceDir: string): string {
  return s.data !== undefined ? resolve(folderFlag("data", s.data)) : dataDirOf(sourceDir);
}
