/**
 * The one place a model spec becomes a Model: the adapter stack of `src/models/` with the offline
 * models of `src/builtin/` at its core. It sits above both layers so neither imports the other.
 */
import { makeBuiltinModel } from "../builtin/builtinModel.js";
import { assembleModel, validateModelSpecs, type ModelContext } from "../models/assembleModel.js";
import type { Model } from "../models/types.js";

/** Validates `spec` against the context (throws naming the field at fault) and builds its stack. */
export function createModel(spec: string, ctx: ModelContext): Model {
  const [resolved] = validateModelSpecs([spec], ctx);
  return assembleModel(resolved!, ctx, makeBuiltinModel);
}
