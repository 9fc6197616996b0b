/**
 * The pathway registry: the one list of pathways. The runner (live path and resume), the replay,
 * the CLI's `--pathways` check, `reproduce`'s matrix and the analysis' judged set all read it.
 *
 * Adding a pathway = one module exporting its `definePathway({...})` plus one line in PATHWAYS
 * below (docs/architecture.md, "Where each kind of change goes"): the definition says which files it
 * writes and how resume keeps them, so the runner, resume and the replay never name a pathway.
 */
import { ConfigError } from "../util/errors.js";
import type { Option } from "../util/options.js";
import { historyPathway } from "./historyPathway.js";
import { hybridPathway } from "./hybrid.js";
import { memoryPathway } from "./memory.js";
import { nonePathway } from "./none.js";
import { trainingPathway } from "./training.js";
import { verifiedPathway } from "./verified.js";
import type { ExperienceSnapshot, ExperienceState, PathwayDefinition, PathwayHost } from "./types.js";

// The state type is the definition's own business; the registry holds them erased.
// biome-ignore lint/suspicious/noExplicitAny: the state type is each definition's own; the registry holds them erased
export type AnyPathway = PathwayDefinition<any>;

/** Every pathway, in the order the tables and the usage texts list them (a new one: one line here). */
const REGISTERED: AnyPathway[] = [nonePathway, historyPathway, memoryPathway, verifiedPathway, trainingPathway, hybridPathway];
export const PATHWAYS: readonly AnyPathway[] = REGISTERED;

/** The pathways the protocol loop plays (what `s3gym run --pathways` and a data directory's protocol cover besides `training`). */
export const PATHWAY_NAMES: readonly string[] = PATHWAYS.filter((p) => p.protocolLoop).map((p) => p.name);

/** The pathways `reproduce` plays for every model of its matrix. */
export const DEFAULT_MATRIX_PATHWAYS: readonly string[] = PATHWAYS.filter((p) => p.inDefaultMatrix).map((p) => p.name);

/** The pathways whose exploration steps make the self-judging step set (metrics.md). */
export const JUDGED_PATHWAYS: readonly string[] = PATHWAYS.filter((p) => p.judged).map((p) => p.name);

/**
 * The `pathway` of a training run (`s3gym run --pathways training`, train-loop's rounds): not played
 * by the protocol loop but an evaluation of a list of model checkpoints (checkpoint = epoch), or
 * exploration with the current checkpoint, with no experience at all.
 */
export const TRAINING_PATHWAY = trainingPathway.name;

/** Every name a run's `pathway` field may hold when the kit wrote it. */
export const RECORDED_PATHWAY_NAMES: readonly string[] = PATHWAYS.map((p) => p.name);

/** Whether the protocol loop plays runs of this pathway (false for `training` and for a name the kit does not know). */
export function playsProtocolLoop(name: string): boolean {
  return PATHWAYS.find((p) => p.name === name)?.protocolLoop === true;
}

/** Every pathway's name, read when called (so a pathway registered later, a test's, is included). */
export function pathwayNames(): string[] {
  return PATHWAYS.map((p) => p.name);
}

/** The pathways with option rows of their own, each with its rows in order (read when called). */
export function pathwayOptions(): { pathway: string; rows: (Option<unknown> & { key: string })[] }[] {
  return PATHWAYS.filter((p) => p.options !== undefined).map((p) => ({ pathway: p.name, rows: Object.entries(p.options!).map(([key, o]) => ({ key, ...o })) }));
}

export class UnknownPathwayError extends ConfigError {
  override name = "UnknownPathwayError";
}

/**
 * Registers a pathway defined outside this list (a test's toy pathway): the runner, resume and the
 * replay then play it by name like any other. The name lists above were taken when this module
 * loaded, so the CLI's `--pathways` check and reproduce's matrix do not offer it.
 */
export function registerPathway<S>(def: PathwayDefinition<S>): void {
  if (REGISTERED.some((p) => p.name === def.name)) throw new Error(`pathway '${def.name}' is already registered`);
  checkDefinition(def);
  REGISTERED.push(def);
}

/** What the types cannot say: a pathway with files of its own says how resume keeps them. */
function checkDefinition(def: AnyPathway): void {
  if (def.files.length > 0 && !def.keep) throw new Error(`pathway '${def.name}' declares files (${def.files.join(", ")}) but no keep rule: add keep() to its definition, which resume applies to them`);
}
REGISTERED.forEach(checkDefinition);

/** The definition of a registered pathway; throws naming the registered ones. */
export function getPathway(name: string): AnyPathway {
  const p = PATHWAYS.find((d) => d.name === name);
  if (!p) throw new UnknownPathwayError(`unknown pathway '${name}': expected ${RECORDED_PATHWAY_NAMES.join(", ")}`);
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
      batches: (n) => plans.batches(n, offer.own),
      async plan(batch) {
        const r = await plans.plan(host, state, batch);
        state = r.state;
        return r.episodes;
      },
    };
  }
  return live;
}
