/**
 * Evaluation views (views.md: SEAGym's lenses inside the protocol). At every checkpoint, besides the
 * protocol's `eval` view, a run with `--views` plays
 *   - `id`:     the explore config on the id seed list (seeds.ts: disjoint from exploration and
 *               evaluation by construction), N_view episodes, the same seeds at every checkpoint;
 *   - `replay`: the explore config on the first K exploration seeds, episode j re-playing
 *               exploration episode j+1 once it has been explored (checkpoint x plays j < min(K, x));
 * all with the checkpoint's frozen experience, like `eval`. View episodes are phase `eval`: they never
 * feed experience, and resume, the cache and shards treat them as evaluation episodes.
 *
 * Without `--views` the settings carry no `views` and nothing here runs: the run is exactly today's.
 */
import type { RunContext } from "./context.js";
import type { ExtraView, ProtocolSettings } from "../settings/protocolSettings.js";
import { checkpointList } from "./schedule.js";
import { VIEWS } from "../../logs/schema.js";
import type { OptionTable } from "../../util/options.js";

/** The default K (views.md: `--replay-episodes`, default 3). */
export const DEFAULT_REPLAY_EPISODES = 3;

/** `--views`, `--view-episodes`, `--replay-episodes` as given (the defaults depend on the protocol: viewSettingsFromFlags in src/cli/shared/sharedFlags.ts). */
export interface ViewFlags {
  /** The views on, a comma list of VIEWS (`eval` is always on). */
  views: string | undefined;
  /** Episodes of the id view per checkpoint; unset: --eval-episodes. */
  viewEpisodes: number | undefined;
  /** K, the exploration seeds the replay view re-plays; unset: DEFAULT_REPLAY_EPISODES, at most --explore-episodes. */
  replayEpisodes: number | undefined;
}

/** The view flags' option rows (`s3gym run`): their parser spec, usage and ranges. */
export const VIEW_OPTIONS: OptionTable<ViewFlags> = {
  views: { name: "views", kind: { type: "text", shown: VIEWS.join(","), parse: (v) => v }, default: undefined, about: "eval (always on), id, replay" },
  viewEpisodes: { name: "view-episodes", kind: { type: "int", range: { min: 1, max: 10_000 } }, default: undefined, arg: "N", about: "episodes of the id view per checkpoint" },
  replayEpisodes: { name: "replay-episodes", kind: { type: "int", range: { min: 1, max: 10_000 } }, default: undefined, arg: "K", about: "exploration seeds the replay view re-plays" },
};

/** The extra views of a run's settings ([] without `--views`). */
export function extraViews(s: Pick<ProtocolSettings, "views">): ExtraView[] {
  return s.views?.extra ?? [];
}

/** One episode a view plays at a checkpoint: its index within (view, checkpoint) and its seed. */
export interface ViewEpisode {
  episode: number;
  seed: number;
}

/**
 * The episodes of `view` at checkpoint `c`, from the run's seed lists (seeds.ts runSeeds). `id`: the id list, whole, at every checkpoint. `replay`:
 * exploration seeds j = 0..min(K, c)-1 (seed j is exploration episode j+1's, explored before
 * checkpoint c exactly when j+1 <= c), so checkpoint 0 replays nothing.
 */
export function viewEpisodes(run: Pick<RunContext, "settings" | "exploreSeeds" | "idSeeds">, view: ExtraView, c: number): ViewEpisode[] {
  const v = run.settings.views;
  if (!v) return [];
  const seeds = view === "id" ? (run.idSeeds ?? []) : run.exploreSeeds.slice(0, Math.min(v.replayEpisodes, c));
  return seeds.map((seed, episode) => ({ episode, seed }));
}

/** Episodes all views besides `eval` play over a run's checkpoints (for progress totals). */
export function viewEpisodeTotal(s: Pick<ProtocolSettings, "views" | "exploreEpisodes" | "checkpointEvery">): number {
  const v = s.views;
  if (!v) return 0;
  let n = 0;
  for (const c of checkpointList(s.exploreEpisodes, s.checkpointEvery)) {
    if (v.extra.includes("id")) n += v.viewEpisodes;
    if (v.extra.includes("replay")) n += Math.min(v.replayEpisodes, c);
  }
  return n;
}

/** The key of a (view, checkpoint) record in resume state and results: `eval` keys are the checkpoint alone. */
export function viewCheckpointKey(view: ExtraView, c: number): string {
  return `${view}|${c}`;
}
