/**
 * Model specs as the user writes them on `--models`: `openai:<model>` (any OpenAI-compatible
 * endpoint) or `builtin:random|heuristic|oracle` (offline policies in-process).
 */
import { POLICY_NAMES, isPolicyName, type PolicyName } from "../games/policies.js";

export type ModelSpec = { scheme: "openai"; model: string } | { scheme: "builtin"; policy: PolicyName };

export const MODEL_SCHEMES = ["openai", "builtin"] as const;

const EXPECTED = `expected openai:<model> (e.g. openai:gpt-4o-mini) or builtin:${POLICY_NAMES.join("|")}`;

/**
 * Parses a spec. Only the first colon separates the scheme, because model ids may contain colons
 * and slashes (`openai:qwen/qwen3-8b:free`). Throws an Error naming the valid schemes.
 */
export function parseModelSpec(spec: string): ModelSpec {
  const colon = spec.indexOf(":");
  if (colon < 0) throw new Error(`model '${spec}' has no scheme: ${EXPECTED}`);
  const scheme = spec.slice(0, colon);
  const rest = spec.slice(colon + 1);
  if (scheme === "openai") {
    if (rest.trim() === "" || rest !== rest.trim()) throw new Error(`model '${spec}': the model id after 'openai:' is empty or padded with spaces; ${EXPECTED}`);
    return { scheme: "openai", model: rest };
  }
  if (scheme === "builtin") {
    if (!isPolicyName(rest)) throw new Error(`model '${spec}': unknown built-in policy '${rest}'; expected builtin:${POLICY_NAMES.join("|")}`);
    return { scheme: "builtin", policy: rest };
  }
  throw new Error(`model '${spec}': unknown scheme '${scheme}'; ${EXPECTED}`);
}
