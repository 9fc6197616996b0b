import { DEFAULT_B } from "../../analysis/stats/bootstrap.js";
import { COMPARE_METRICS, CompareError, compareTable, parseSelector, type CompareMetric, type Selector } from "../../analysis/stats/compare.js";
import { listOf } from "../../util/options.js";
import { UsageError, nonNegativeInt, parseFlags } from "../shared/args.js";
import { dataDirs, emitTable, loadOrReport } from "../shared/tableOutput.js";

const USAGE = `s3gym compare --data DIR --a SELECTOR --b SELECTOR [--metrics avg,auc_plus,naba] [--games g1,g2] [--bootstrap ${DEFAULT_B}] [--seed 0] [--csv FILE]

  --a, --b SELECTOR  key=value[,key=value] with key pathway, model or checkpoint, e.g.
                     --a pathway=memory --b pathway=history    (pairs each model's two runs)
                     --a model=gpt-4o --b model=gpt-4o-mini     (pairs runs of the same pathway)
                     --a checkpoint=30 --b checkpoint=0         (a run against itself: y(30) - y(0))
  --metrics LIST     ${COMPARE_METRICS.join(", ")} (default avg,auc_plus,naba; with checkpoints: y)
  --games LIST       only these games (default every game where the sides pair up)
  --bootstrap B      resamples of the paired interval (default ${DEFAULT_B}); --seed N its seed (default 0)
  --csv FILE         also write the rows as CSV`;

const FLAGS = {
  data: { type: "string", multiple: true },
  a: { type: "string" },
  b: { type: "string" },
  metrics: { type: "string" },
  games: { type: "string" },
  bootstrap: { type: "string" },
  seed: { type: "string" },
  csv: { type: "string" },
} as const;

function list(v: string | undefined): string[] | undefined {
  return v === undefined ? undefined : listOf(v);
}

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
  const dirs = dataDirs(values.data);
  if (dirs.length === 0) throw new UsageError("--data is required: a data directory holding runs/<run_id>/");
  const a = selector("a", values.a);
  const b = selector("b", values.b);
  const metrics = list(values.metrics);
  const valid: readonly string[] = [...COMPARE_METRICS, "y"];
  const bad = metrics?.find((m) => !valid.includes(m));
  if (bad !== undefined) throw new UsageError(`unknown --metrics '${bad}': expected a comma list of ${valid.join(", ")}`);
  const B = nonNegativeInt("bootstrap", values.bootstrap, DEFAULT_B);
  if (B < 1) throw new UsageError("--bootstrap must be at least 1");
  const seed = nonNegativeInt("seed", values.seed, 0);
  const ds = await loadOrReport("compare", dirs);
  if (ds === null) return 1;
  // Selectors that match no shared seeds (a CompareError) are thrown: src/cli/main.ts prints it and exits 1.
  const table = compareTable(ds, { a, b, metrics: metrics as CompareMetric[] | undefined, games: list(values.games), B, seed });
  emitTable(table, values.csv);
  return 0;
}
