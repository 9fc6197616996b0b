/**
 * `s3gym power --data PILOT [--episodes 3,5,10,20,50] [--metrics avg,auc_plus,naba] [--sims 2000]
 *  [--seed 0] [--csv FILE]`
 *
 * The minimum detectable difference of a paired comparison (80% power, two-sided alpha 0.05) per
 * game and metric for N evaluation episodes per checkpoint, simulated from the pilot's seed-level
 * variation (analysis/stats/power.ts). Markdown on stdout; `--csv FILE` writes the same rows.
 * Exit codes: 0 done; 1 the data cannot be analysed; 2 bad arguments.
 */
import { COMPARE_METRICS } from "../../analysis/stats/compare.js";
import { DEFAULT_EPISODES, powerTable, type PowerMetric } from "../../analysis/stats/power.js";
import { listOf } from "../../util/options.js";
import { UsageError, nonNegativeInt, parseFlags } from "../shared/args.js";
import { dataDirs, emitTable, intList, loadWithWarnings } from "../shared/tableOutput.js";

const USAGE = `s3gym power --data PILOT [--episodes ${DEFAULT_EPISODES.join(",")}] [--metrics avg,auc_plus,naba] [--sims 2000] [--seed 0] [--csv FILE]

  --data PILOT     a pilot data directory (memory and history runs per model on shared seeds)
  --episodes LIST  evaluation episodes per checkpoint to assess (default ${DEFAULT_EPISODES.join(",")})
  --metrics LIST   ${COMPARE_METRICS.join(", ")} (default avg,auc_plus,naba)
  --sims N         simulated experiments per row (default 2000); --seed N their seed (default 0)
  --csv FILE       also write the rows as CSV`;

const FLAGS = {
  data: { type: "string", multiple: true },
  episodes: { type: "string" },
  metrics: { type: "string" },
  sims: { type: "string" },
  seed: { type: "string" },
  csv: { type: "string" },
} as const;

export async function powerCommand(argv: string[]): Promise<number> {
  const { values } = parseFlags(argv, FLAGS, USAGE);
  const dirs = dataDirs(values.data);
  if (dirs.length === 0) throw new UsageError("--data is required: a pilot data directory holding runs/<run_id>/");
  const episodes = intList("episodes", values.episodes, DEFAULT_EPISODES, 1);
  const metrics = values.metrics === undefined ? undefined : listOf(values.metrics);
  const bad = metrics?.find((m) => !(COMPARE_METRICS as readonly string[]).includes(m));
  if (bad !== undefined) throw new UsageError(`unknown --metrics '${bad}': expected a comma list of ${COMPARE_METRICS.join(", ")}`);
  const sims = nonNegativeInt("sims", values.sims, 2000);
  if (sims < 100) throw new UsageError("--sims must be at least 100 (the 95% quantile of the null needs them)");
  const seed = nonNegativeInt("seed", values.seed, 0);
  const ds = await loadWithWarnings(dirs);
  emitTable(powerTable(ds, { episodes, metrics: metrics as PowerMetric[] | undefined, sims, seed }), values.csv);
  return 0;
}
