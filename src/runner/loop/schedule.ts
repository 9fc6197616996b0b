/**
 * What a run plays and in which order (protocol.md, "One run"), and the run matrix with its shards.
 */
import { playsProtocolLoop, TRAINING_PATHWAY } from "../../pathways/registry.js";
import { ConfigError } from "../../util/errors.js";
import { escapeControl } from "../../util/outsideText.js";
import { judgedRunId, runId } from "../settings/runId.js";

/**
 * Checkpoints of a run: 0, then every `every`-th exploration episode up to `exploreEpisodes`
 * (protocol.md: `if x % every == 0: checkpoint(x)`; with 30 and 3: 0, 3, ..., 30). When
 * `exploreEpisodes` is not a multiple of `every`, the last episodes are followed by no checkpoint.
 */
export function checkpointList(exploreEpisodes: number, every: number): number[] {
  if (!Number.isInteger(every) || every < 1) throw new Error(`checkpoint-every must be an integer >= 1, got ${every}`);
  const out = [0];
  for (let x = every; x <= exploreEpisodes; x += every) out.push(x);
  return out;
}

/** Episodes a run plays in total: the exploration episodes plus every checkpoint's evaluations. */
export function totalEpisodes(exploreEpisodes: number, every: number, evalEpisodes: number): number {
  return exploreEpisodes + checkpointList(exploreEpisodes, every).length * evalEpisodes;
}

export interface MatrixEntry {
  model: string;
  game: string;
  pathway: string;
  runSeed: number;
  runId: string;
}

/**
 * The run matrix: models x games x pathways for one run seed, sorted by run_id so that the order
 * (and therefore every shard) depends only on the set of runs, not on how the flags were ordered.
 * Duplicates on the command line are merged. Two DIFFERENT model specs whose run ids coincide (their
 * slugs agree and so does the 32-bit hash of the spec: rare, but a search finds such pairs, e.g.
 * `openai:m@=#=x` and `openai:m^#/~+x`) would share one run directory; that is refused here, naming
 * both, before anything runs.
 */
export function buildMatrix(models: readonly string[], games: readonly string[], pathways: readonly string[], runSeed: number, judge?: string): MatrixEntry[] {
  const byId = new Map<string, MatrixEntry>();
  for (const model of models)
    for (const game of games)
      for (const pathway of pathways) {
        // A run under another judge than `self` is a run of its own (runId.ts judgedRunId).
        const id = judgedRunId(runId({ game, pathway, model, runSeed }), judge, "explored");
        const other = byId.get(id);
        if (other !== undefined && other.model !== model) {
          throw new ConfigError(
            `models '${escapeControl(other.model)}' and '${escapeControl(model)}' map to the same run id ${id} (one run directory for two models): rename one of them, e.g. with an alias in a models file`,
          );
        }
        byId.set(id, { model, game, pathway, runSeed, runId: id });
      }
  return [...byId.values()].sort((a, b) => (a.runId < b.runId ? -1 : a.runId > b.runId ? 1 : 0));
}

/** What one `s3gym run` invocation plays (planRuns). */
export interface RunPlan {
  /** Every run of the invocation's matrix (protocol-loop and training), sorted by run id: what --shard splits. */
  matrix: MatrixEntry[];
  /** This shard's runs (the whole matrix without a shard). */
  selected: MatrixEntry[];
  /** The selected runs that play the protocol loop. */
  entries: MatrixEntry[];
  /** The selected runs of `--pathways training` (a checkpoint list evaluated per game). */
  trainingRuns: MatrixEntry[];
}

/**
 * The runs of one `s3gym run`: models x games x the protocol-loop pathways, plus one training run per
 * game when `trainingLabel` is given (`--pathways training`: the label is its `model`), in one list
 * sorted by run id so --shard splits them all alike, then cut to `shard`. Throws a ConfigError when
 * two model specs share a run id (buildMatrix).
 */
export function planRuns(p: {
  models: readonly string[];
  games: readonly string[];
  pathways: readonly string[];
  runSeed: number;
  trainingLabel: string | null;
  shard: Shard | null;
  judge?: string;
}): RunPlan {
  const loopPathways = p.pathways.filter(playsProtocolLoop);
  const label = p.trainingLabel;
  const trainingEntries: MatrixEntry[] =
    label !== null
      ? p.games.map((game) => ({ model: label, game, pathway: TRAINING_PATHWAY, runSeed: p.runSeed, runId: runId({ game, pathway: TRAINING_PATHWAY, model: label, runSeed: p.runSeed }) }))
      : [];
  const planned = buildMatrix(p.models, p.games, loopPathways, p.runSeed, p.judge);
  const matrix = [...planned, ...trainingEntries].sort((a, b) => (a.runId < b.runId ? -1 : a.runId > b.runId ? 1 : 0));
  const selected = shardMatrix(matrix, p.shard);
  return { matrix, selected, entries: selected.filter((e) => playsProtocolLoop(e.pathway)), trainingRuns: selected.filter((e) => e.pathway === TRAINING_PATHWAY) };
}

export interface Shard {
  /** 1-based shard number. */
  index: number;
  count: number;
}

/** Parses `i/n` (1 <= i <= n). Throws an error naming --shard. */
export function parseShard(text: string): Shard {
  const m = /^\s*(\d+)\s*\/\s*(\d+)\s*$/.exec(text);
  if (!m) throw new Error(`--shard must look like i/n (e.g. 1/4), got '${text}'`);
  const index = Number(m[1]);
  const count = Number(m[2]);
  if (count < 1 || index < 1 || index > count) throw new Error(`--shard ${text}: need 1 <= i <= n`);
  return { index, count };
}

/**
 * The runs of one shard: round-robin over the sorted matrix, so the shards are disjoint, cover the
 * matrix, differ in size by at most one run, and each machine computes its share alone.
 */
export function shardMatrix<T>(matrix: readonly T[], shard: Shard | null): T[] {
  if (!shard || shard.count === 1) return [...matrix];
  return matrix.filter((_, i) => i % shard.count === shard.index - 1);
}

/** The environment variables `--shard auto` reads (docs/scale.md). */
export const SLURM_ARRAY_VARS = ["SLURM_ARRAY_TASK_ID", "SLURM_ARRAY_TASK_COUNT", "SLURM_ARRAY_TASK_MIN", "SLURM_ARRAY_TASK_MAX", "SLURM_ARRAY_TASK_STEP"] as const;
export const K8S_INDEX_VAR = "JOB_COMPLETION_INDEX";

/** Where `--shard auto` found its shard. */
export type ShardSource = "slurm" | "k8s";

/** A variable's value as a non-negative integer, null when unset or empty; throws naming it otherwise. */
function envInt(env: Readonly<Record<string, string | undefined>>, name: string): number | null {
  const raw = env[name];
  if (raw === undefined || raw.trim() === "") return null;
  if (!/^\d{1,9}$/.test(raw.trim())) throw new ConfigError(`--shard auto: ${name}='${escapeControl(raw.slice(0, 40))}' is not a non-negative integer`);
  return Number(raw.trim());
}

/**
 * The shard of a Slurm array task, or null when SLURM_ARRAY_TASK_ID is unset. The task ids of
 * `--array=MIN-MAX[:STEP]` map to shards 1..n in order; the count is SLURM_ARRAY_TASK_COUNT, which
 * must agree with MIN/MAX/STEP when they are set (a list like `--array=1,4,9` has no such mapping and
 * is refused: every task must know its shard from its own environment).
 */
function slurmShard(env: Readonly<Record<string, string | undefined>>): Shard | null {
  const id = envInt(env, "SLURM_ARRAY_TASK_ID");
  if (id === null) return null;
  const count = envInt(env, "SLURM_ARRAY_TASK_COUNT");
  const min = envInt(env, "SLURM_ARRAY_TASK_MIN") ?? 0;
  const max = envInt(env, "SLURM_ARRAY_TASK_MAX");
  const step = envInt(env, "SLURM_ARRAY_TASK_STEP") ?? 1;
  if (step < 1) throw new ConfigError("--shard auto: SLURM_ARRAY_TASK_STEP=0 cannot number the tasks");
  const fromRange = max === null ? null : max < min || (max - min) % step !== 0 ? NaN : (max - min) / step + 1;
  if (count === null && fromRange === null) {
    throw new ConfigError(
      "--shard auto: SLURM_ARRAY_TASK_ID is set but neither SLURM_ARRAY_TASK_COUNT nor SLURM_ARRAY_TASK_MAX: cannot tell how many shards there are (submit with sbatch --array=0-(N-1), or give --shard i/n)",
    );
  }
  const n = count ?? fromRange!;
  if (Number.isNaN(fromRange) || (fromRange !== null && fromRange !== n) || (id - min) % step !== 0 || id < min || (max !== null && id > max)) {
    const seen = SLURM_ARRAY_VARS.filter((v) => env[v] !== undefined)
      .map((v) => `${v}=${env[v]}`)
      .join(", ");
    throw new ConfigError(`--shard auto: the Slurm array is not a range the shards can be numbered from (${seen}): submit with a contiguous --array=0-(N-1) (or MIN-MAX[:STEP]), or give --shard i/n`);
  }
  if (n < 1) throw new ConfigError("--shard auto: SLURM_ARRAY_TASK_COUNT=0: no shards");
  return { index: (id - min) / step + 1, count: n };
}

/**
 * `--shard auto`: the shard from the scheduler's environment (docs/scale.md). Slurm array tasks
 * (SLURM_ARRAY_TASK_ID with SLURM_ARRAY_TASK_COUNT, or MIN/MAX[/STEP]) and Kubernetes indexed Jobs
 * (JOB_COMPLETION_INDEX, 0-based, with `shardCount` from --shard-count: the pod does not see the
 * Job's completions). `shardCount`, when given, must agree with Slurm's count; both schedulers set at
 * once must name the same shard. Neither: an error naming the variables. Pure: env in, shard out.
 */
export function shardFromEnv(env: Readonly<Record<string, string | undefined>>, shardCount: number | null): { shard: Shard; source: ShardSource } {
  const slurm = slurmShard(env);
  const k8sIndex = envInt(env, K8S_INDEX_VAR);
  let k8s: Shard | null = null;
  if (k8sIndex !== null) {
    if (shardCount === null)
      throw new ConfigError(`--shard auto: ${K8S_INDEX_VAR}=${k8sIndex} is set but not the number of shards: add --shard-count N (the Job's completions; a pod does not see it)`);
    if (k8sIndex >= shardCount)
      throw new ConfigError(`--shard auto: ${K8S_INDEX_VAR}=${k8sIndex} is not below --shard-count ${shardCount} (indexes run 0..${shardCount - 1}): give --shard-count the Job's completions`);
    k8s = { index: k8sIndex + 1, count: shardCount };
  }
  if (slurm !== null && shardCount !== null && slurm.count !== shardCount) {
    throw new ConfigError(
      `--shard auto: the Slurm array has ${slurm.count} tasks (SLURM_ARRAY_TASK_COUNT / MIN / MAX) but --shard-count says ${shardCount}: drop --shard-count, or submit --array=0-${shardCount - 1}`,
    );
  }
  if (slurm !== null && k8s !== null && (slurm.index !== k8s.index || slurm.count !== k8s.count)) {
    throw new ConfigError(
      `--shard auto: Slurm says shard ${slurm.index}/${slurm.count} (SLURM_ARRAY_TASK_ID) and Kubernetes says ${k8s.index}/${k8s.count} (${K8S_INDEX_VAR}): unset one of them, or give --shard i/n`,
    );
  }
  if (slurm !== null) return { shard: slurm, source: "slurm" };
  if (k8s !== null) return { shard: k8s, source: "k8s" };
  throw new ConfigError(
    `--shard auto: no scheduler task index in the environment: expected SLURM_ARRAY_TASK_ID (with SLURM_ARRAY_TASK_COUNT, or SLURM_ARRAY_TASK_MIN/MAX) from a Slurm array job, or ${K8S_INDEX_VAR} (with --shard-count N) from a Kubernetes indexed Job; outside a scheduler give --shard i/n`,
  );
}
