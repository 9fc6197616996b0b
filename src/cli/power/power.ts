/**
 * `s3gym power --data PILOT [--episodes 3,5,10,20,50] [--metrics avg,auc_plus,naba] [--sims 2000]
 *  [--seed 0] [--csv FILE]`
 *
 * The minimum detectable difference of a paired comparison (80% power, two-sided alpha 0.05) per
 * game and metric for N evaluation episodes per checkpoint, simulated from the pilot's seed-level
 * variation (analysis/stats/power.ts). Markdown on stdout; `--csv FILE` writes the same rows.
 * Exit codes: 0 done; 1 the data cannot be analysed; 2 bad arguments.
 */
import { choiceListOption } from "../shared/choiceListFlag.js";
import { dataDirsOption } from "../shared/dataFlags.js";
import { COMPARE_METRICS } from "../../analysis/stats/compare.js";
import { DEFAULT_EPISODES, powerTable, type PowerMetric } from "../../analysis/stats/power.js";
import { optionFlags, optionRows, readOptions, usageLines, usageToken, type Option, type OptionTable } from "../../util/options.js";
import { parseFlags } from "../shared/args.js";
import { emitTable, intList, loadWithWarnings } from "../shared/tableOutput.js";

/** What `--data` needs, said when it is missing or names nothing. */
const DATA_REQUIRED = "a pilot data directory holding runs/<run_id>/";

/** power's rows: the parser spec, the usage and the values derive from them, read in this order. */
const POWER_OPTIONS = {
  data: dataDirsOption({ shown: "PILOT", required: DATA_REQUIRED, help: "a pilot data directory (memory and history runs per model on shared seeds)" }),
  episodes: {
    name: "episodes",
    kind: { type: "text", shown: DEFAULT_EPISODES.join(","), parse: (v: string) => intList("episodes", v, DEFAULT_EPISODES, 1) },
    default: [...DEFAULT_EPISODES],
    help: "evaluation episodes per checkpoint to assess",
  },
  metrics: choiceListOption<PowerMetric>({ name: "metrics", shown: "avg,auc_plus,naba", allowed: COMPARE_METRICS, help: `${COMPARE_METRICS.join(", ")} (default avg,auc_plus,naba)` }),
  sims: {
    name: "sims",
    kind: { type: "int", range: { min: 100, max: 1_000_000, why: "the 95% quantile of the null needs them" } },
    default: 2000,
    help: "simulated experiments per row",
  },
  seed: { name: "seed", kind: { type: "int", range: { min: 0, max: Number.MAX_SAFE_INTEGER } }, default: 0, help: "the seed of the simulations" },
  csv: { name: "csv", kind: { type: "text", shown: "FILE", parse: (v: string) => v }, default: undefined, help: "also write the rows as CSV" },
} as const satisfies OptionTable<{ data: string[] | undefined; episodes: number[]; metrics: PowerMetric[] | undefined; sims: number; seed: number; csv: string | undefined }>;

const ROWS: Option<unknown>[] = optionRows(POWER_OPTIONS);

const USAGE = [`s3gym power ${usageToken(POWER_OPTIONS.data)} [flags]`, ...usageLines(ROWS)].join("\n");

const FLAGS = optionFlags(ROWS);

export async function powerCommand(argv: string[]): Promise<number> {
  const { values } = parseFlags(argv, FLAGS, USAGE);
  const o = readOptions(POWER_OPTIONS, values) as unknown as { data: string[]; episodes: number[]; metrics?: PowerMetric[]; sims: number; seed: number; csv?: string };
  const ds = await loadWithWarnings(o.data);
  emitTable(powerTable(ds, { episodes: o.episodes, metrics: o.metrics, sims: o.sims, seed: o.seed }), o.csv);
  return 0;
}
