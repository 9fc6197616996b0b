import { choiceListOption } from "../shared/choiceListFlag.js";
import { dataDirsOption } from "../shared/dataFlags.js";
import { DEFAULT_B } from "../../analysis/stats/bootstrap.js";
import { COMPARE_METRICS, CompareError, compareTable, parseSelector, type CompareMetric, type Selector } from "../../analysis/stats/compare.js";
import { asGiven, listOf, optionFlags, optionRows, readOption, usageLines, usageToken, type Option, type OptionTable } from "../../util/options.js";
import { UsageError, parseFlags } from "../shared/args.js";
import { emitTable, loadWithWarnings } from "../shared/tableOutput.js";

const METRICS = [...COMPARE_METRICS, "y"] as const;

/** What `--data` needs, said when it is missing or names nothing. */
const DATA_REQUIRED = "a data directory holding runs/<run_id>/";

/** compare's rows: the parser spec, the usage and the values derive from them. */
const COMPARE_OPTIONS = {
  data: dataDirsOption({ shown: "DIR", required: DATA_REQUIRED, help: "a data directory holding runs/<run_id>/ (repeat it, or a comma list, for shards)" }),
  a: {
    name: "a",
    kind: { type: "text", shown: "SELECTOR", parse: asGiven },
    default: undefined,
    help: "key=value[,key=value] with key pathway, model or checkpoint, e.g.\n                     --a pathway=memory --b pathway=history    (pairs each model's two runs)\n                     --a model=gpt-4o --b model=gpt-4o-mini     (pairs runs of the same pathway)\n                     --a checkpoint=30 --b checkpoint=0         (a run against itself: y(30) - y(0))",
  },
  b: { name: "b", kind: { type: "text", shown: "SELECTOR", parse: asGiven }, default: undefined, help: "the other side, as --a" },
  metrics: choiceListOption<CompareMetric>({ name: "metrics", shown: "avg,auc_plus,naba", allowed: METRICS, help: `${METRICS.join(", ")} (default avg,auc_plus,naba; with checkpoints: y)` }),
  games: { name: "games", kind: { type: "text", shown: "g1,g2", parse: listOf }, default: undefined, help: "only these games (default every game where the sides pair up)" },
  bootstrap: {
    name: "bootstrap",
    kind: { type: "int", range: { min: 1, max: 1_000_000 } },
    default: DEFAULT_B,
    help: "resamples of the paired interval",
  },
  seed: { name: "seed", kind: { type: "int", range: { min: 0, max: Number.MAX_SAFE_INTEGER } }, default: 0, help: "the seed of the resamples" },
  csv: { name: "csv", kind: { type: "text", shown: "FILE", parse: asGiven }, default: undefined, help: "also write the rows as CSV" },
} as const satisfies OptionTable<{
  data: string[] | undefined;
  a: string | undefined;
  b: string | undefined;
  metrics: CompareMetric[] | undefined;
  games: string[] | undefined;
  bootstrap: number;
  seed: number;
  csv: string | undefined;
}>;

const ROWS: Option<unknown>[] = optionRows(COMPARE_OPTIONS);

const USAGE = [
  `s3gym compare ${ROWS.filter((r) => r.required !== undefined || r.name === "a" || r.name === "b")
    .map((r) => usageToken(r).replace(/^\[(.*)\]$/, "$1"))
    .join(" ")} [flags]`,
  ...usageLines(ROWS),
].join("\n");

const FLAGS = optionFlags(ROWS);

function selector(flag: string, v: string | undefined): Selector {
  if (v === undefined) throw new UsageError(`--${flag} is required: a selector such as pathway=memory, model=gpt-4o or checkpoint=30`);
  try {
    return parseSelector(v, `--${flag}`);
  } catch (e) {
    if (e instanceof CompareError) throw new UsageError(e.message);
    throw e;
  }
}

export async function compareCommand(argv: string[]): Promise<number> {
  const { values } = parseFlags(argv, FLAGS, USAGE);
  // Row by row, in the order the checks have always run: the folders, the two sides, then the rest.
  const o = COMPARE_OPTIONS;
  const read = <T>(r: Option<T>): T => readOption(r as Option<unknown>, values[r.name]) as T;
  const dirs = read(o.data) as unknown as string[];
  const a = selector("a", read(o.a));
  const b = selector("b", read(o.b));
  const metrics = read(o.metrics);
  const games = read(o.games);
  const B = read(o.bootstrap);
  const seed = read(o.seed);
  const ds = await loadWithWarnings(dirs);
  // Selectors that match no shared seeds (a CompareError) are thrown: src/cli/main.ts prints it and exits 1.
  const table = compareTable(ds, { a, b, metrics, games, B, seed });
  emitTable(table, read(o.csv));
  return 0;
}
