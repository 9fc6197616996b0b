/**
 * The experience state Z of a run (protocol.md, "Consolidation"), through the pathway registry: the
 * run's pathway definition bound to a host made of the run context. `snapshot()` freezes the state
 * for a checkpoint, so a checkpoint's evaluations may run while later exploration consolidates.
 */
import { hybridOf } from "../../pathways/hybrid.js";
import { getPathway, openExperience } from "../../pathways/registry.js";
import type { ExperienceState, ExplorationHost, OwnRecords, PathwayHost } from "../../pathways/types.js";
import { variantDifference, type RunContext } from "./context.js";

/** What a pathway that plans its exploration is offered: seeds, explore + variants, broad batch, role model. */
export function explorationHost(run: RunContext): ExplorationHost {
  const explore = run.configs.explore;
  const variants = Object.values(run.variants);
  return {
    seeds: run.exploreSeeds,
    configs: [
      { name: explore.name, rules: explore.rules, differs: "the explore config" },
      ...variants.map((v) => ({ name: v.name, rules: v.rules, differs: variantDifference(explore.config, v.config) })),
    ],
    own: (run.settings as unknown as Record<string, unknown>)[run.pathway],
    roleModel: run.roleModel?.model ?? run.model,
    roleModelName: run.roleModel?.name ?? run.modelName,
  };
}

/** The pathway's view of a live run. `restored`: its files' clean prefixes on resume. */
export function pathwayHost(run: RunContext, restored: OwnRecords): PathwayHost {
  const host: PathwayHost = {
    runId: run.runId,
    modelName: run.modelName,
    gameName: run.game.name,
    pathway: run.pathway,
    settings: {
      contextTokens: run.settings.contextTokens,
      maxNewTokens: run.settings.maxNewTokens,
      tokenizer: run.settings.tokenizer,
      ...(run.settings.historyCut ? { historyCut: run.settings.historyCut } : {}),
      ...hybridOf(run.settings),
    },
    exploreRules: run.configs.explore.rules,
    counter: run.counter,
    model: run.model,
    restored: (file) => (restored[file] ?? []) as never,
    append(file, record) {
      run.logs.append(file, record);
      run.logs.syncRecords();
    },
    onUsage: (tokensIn, tokensOut) => run.events.step?.(run.runId, tokensIn, tokensOut),
  };
  if (getPathway(run.pathway).exploration) host.exploration = explorationHost(run);
  return host;
}

export function createExperience(run: RunContext, restored: OwnRecords): ExperienceState {
  return openExperience(getPathway(run.pathway), pathwayHost(run, restored));
}
