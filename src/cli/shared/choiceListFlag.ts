/**
 * A comma-list row whose every item must be one of a fixed set (compare's and power's `--metrics`):
 * an unknown item is refused naming it and the set.
 */
import { listOf, type Option } from "../../util/options.js";
import { UsageError } from "./args.js";

export function choiceListOption<M extends string>(o: { name: string; shown: string; allowed: readonly M[]; help: string }): Option<M[] | undefined> {
  return {
    name: o.name,
    kind: {
      type: "text",
      shown: o.shown,
      parse: (v: string) => {
        const items = listOf(v);
        const bad = items.find((m) => !(o.allowed as readonly string[]).includes(m));
        if (bad !== undefined) throw new UsageError(`unknown --${o.name} '${bad}': expected a comma list of ${o.allowed.join(", ")}`);
        return items as M[];
      },
    },
    default: undefined,
    help: o.help,
  };
}
