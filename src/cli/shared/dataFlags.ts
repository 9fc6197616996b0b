/**
 * The `--data` rows of the commands that read step logs and take shards (`view`, `sql`, `export`,
 * `report`, `compare`, `power`): data directories, repeated or a comma list, required (the refusal says
 * what to give, in each command's words).
 */
import { listOf, type Option } from "../../util/options.js";
import { UsageError } from "./args.js";

/** What `--data` needs, said when it is missing or names nothing. */
const DATA_REQUIRED = "a data directory holding runs/<run_id>/ (repeat it or give a comma list for shards)";

/**
 * A `--data` row: data directories, repeated or a comma list, required. `required` is what its
 * refusal says is missing (each command keeps its own words), `shown` the argument's name in the usage.
 */
export function dataDirsOption(o: { shown: string; required: string; help: string }): Option<string[]> {
  return {
    name: "data",
    kind: {
      type: "text",
      shown: o.shown,
      parse: (v: string) => {
        const dirs = listOf(v);
        if (dirs.length === 0) throw new UsageError(`--data is required: ${o.required}`);
        return dirs;
      },
    },
    default: undefined,
    multiple: true,
    required: o.required,
    help: o.help,
  };
}

export const DATA_DIRS_OPTION: Option<string[]> = dataDirsOption({
  shown: "DIR",
  required: DATA_REQUIRED,
  help: "a data directory holding runs/<run_id>/ (repeat, or a comma list, to merge shards)",
});
