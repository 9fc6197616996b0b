/**
 * The pathway registry: the one list of pathways. The runner (live path and resume), the replay,
 * the CLI's `--pathways` check, `reproduce`'s matrix and the analysis' judged set all read it.
 *
 * Adding a pathway = one module exporting its `definePathway({...})` plus one line in PATHWAYS
 * below (docs/architecture.md, "Where each kind of change goes").
 */
import { ConfigError } from "../util/errors.js";
import { historyPathway } from "./historyPathway.js";
import { memoryPathway } from "./memory.js";
import { nonePathway } from "./none.js";
import { verifiedPathway } from "./verified.js";
import type { ExperienceSnapshot, ExperienceState, PathwayDefinition, PathwayHost } from "./types.js";

// The state type is the definition's own business; the registry holds them erased.
type AnyPathway = PathwayDefinition<any>;

/** Every experience pathway, in the order `--pathways all` and the tables use. */
export const PATHWAYS: readonly AnyPathway[] = [nonePathway, historyPathway, memoryPathway, verifiedPathway];

/** Their names. */
export const PATHWAY_NAMES: readonly string[] = PATHWAYS.map((p) => p.name);

/** The pathways whose exploration steps make the self-judging step set (metrics.md). */
export const JUDGED_PATHWAYS: readonly string[] = PATHWAYS.filter((p) => p.judged).map((p) => p.name);

/**
 * The `pathway` of a training run (`s3gym run --pathways training`): not an experience pathway but an
 * evaluation of a list of model checkpoints (checkpoint = epoch), with no experience at all.
 */
export const TRAINING_PATHWAY = "training";

/** Every name a run's `pathway` field may hold when the kit wrote it. */
export const RECORDED_PATHWAY_NAMES: readonly string[] = [...PATHWAY_NAMES, TRAINING_PATHWAY];

export class UnknownPathwayError extends ConfigError {
  override name = "UnknownPathwayError";
}

/** The definition of a registered pathway; throws naming the registered ones. */
export function getPathway(name: string): AnyPathway {
  const p = PATHWAYS.find((d) => d.name === name);
  if (!p) throw new UnknownPathwayError(`unknown pathway '${name}': expected ${PATHWAY_NAMES.join(", ")}`);
  return p;
}

/** Binds a definition to a live run: the runner's handle on the current state. */
export function openExperience<S>(def: PathwayDefinition<S>, host: PathwayHost): ExperienceState {
  let state = def.create(host);
  const ctx = { settings: host.settings, counter: host.counter };
  const live: ExperienceState = {
    consolidated: () => def.consolidated(state),
    snapshot: (): ExperienceSnapshot => def.snapshot(state, ctx),
    async consolidate(x, trajectory) {
      state = await def.consolidate(host, state, x, trajectory);
    },
  };
  const plans = def.exploration;
  // A host without an exploration offer (a test's, a replay's) drives the pathway episode by episode.
  if (plans && host.exploration) {
    const offer = host.exploration;
    live.exploration = {
      batches: (n) => plans.batches(n, offer.broadBatch),
      async plan(batch) {
        const r = await plans.plan(host, state, batch);
        state = r.state;
        return r.episodes;
      },
    };
  }
  return live;
}
