/**
 * The `--data` row of the commands that read step logs and take shards (`view`, `sql`, `export`): a
 * data directory, repeated or a comma list, required (its refusal says what to give).
 */
import { listOf, type Option } from "../../util/options.js";
import { UsageError } from "./args.js";

/** What `--data` needs, said when it is missing or names nothing. */
const DATA_REQUIRED = "a data directory holding runs/<run_id>/ (repeat it or give a comma list for shards)";

export const DATA_DIRS_OPTION: Option<string[]> = {
  name: "data",
  kind: {
    type: "text",
    shown: "DIR",
    parse: (v: string) => {
      const dirs = listOf(v);
      if (dirs.length === 0) throw new UsageError(`--data is required: ${DATA_REQUIRED}`);
      return dirs;
    },
  },
  default: undefined,
  multiple: true,
  required: DATA_REQUIRED,
  help: "a data directory holding runs/<run_id>/ (repeat, or a comma list, to merge shards)",
};
