/**
 * What a run plays and in which order (protocol.md, "One run"), and the run matrix with its shards.
 */
import { ConfigError } from "../util/errors.js";
import { escapeControl } from "../util/outsideText.js";
import { runId } from "./runId.js";

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
export function buildMatrix(models: readonly string[], games: readonly string[], pathways: readonly string[], runSeed: number): MatrixEntry[] {
  const byId = new Map<string, MatrixEntry>();
  for (const model of models)
    for (const game of games)
      for (const pathway of pathways) {
        const id = runId({ game, pathway, model, runSeed });
        const other = byId.get(id);
        if (other !== undefined && other.model !== model) {
          throw new ConfigError(`models '${escapeControl(other.model)}' and '${escapeControl(model)}' map to the same run id ${id} (one run directory for two models): rename one of them, e.g. with an alias in a models file`);
        }
        byId.set(id, { model, game, pathway, runSeed, runId: id });
      }
  return [...byId.values()].sort((a, b) => (a.runId < b.runId ? -1 : a.runId > b.runId ? 1 : 0));
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
