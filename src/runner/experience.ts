/**
 * The experience state Z of a run (protocol.md, "Consolidation"), through the pathway registry: the
 * run's pathway definition bound to a host made of the run context. `snapshot()` freezes the state
 * for a checkpoint, so a checkpoint's evaluations may run while later exploration consolidates.
 */
import type { MemoryRecord } from "../logs/schema.js";
import { getPathway, openExperience } from "../pathways/registry.js";
import type { ExperienceState, PathwayHost } from "../pathways/types.js";
import type { RunContext } from "./context.js";

/** The pathway's view of a live run. `restoredMemory`: memory.jsonl's clean prefix on resume. */
export function pathwayHost(run: RunContext, restoredMemory: readonly MemoryRecord[]): PathwayHost {
  const restored = { memory: restoredMemory } as Record<string, readonly unknown[]>;
  return {
    runId: run.runId,
    modelName: run.modelName,
    gameName: run.game.name,
    pathway: run.pathway,
    settings: { contextTokens: run.settings.contextTokens, maxNewTokens: run.settings.maxNewTokens, tokenizer: run.settings.tokenizer },
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
}

export function createExperience(run: RunContext, restoredMemory: readonly MemoryRecord[]): ExperienceState {
  return openExperience(getPathway(run.pathway), pathwayHost(run, restoredMemory));
}
