/**
 * Model specs as the user writes them on `--models`: `openai:<model>` (any OpenAI-compatible
 * endpoint), `builtin:random|heuristic|perfect-judge|ceiling` (offline policies in-process; `oracle` is
 * perfect-judge's old name, still accepted with a notice: see `modelSpecNotice`), or
 * `builtin:learner[@<checkpoint file>][?judge=<0..1>]` (the offline learner, learner.md), or
 * `builtin:random|heuristic?noise=independent` (the stochastic nulls: see NoiseMode). The options
 * are part of the name, so they are part of the model identity (run id, cache key, manifest).
 */
import { identifierProblem } from "../util/outsideText.js";
import { POLICY_NAMES, TEXT_POLICY_NAMES, resolvePolicyName, type PolicyName } from "../games/policies.js";

/** `builtin:learner`'s options, parsed from its name. */
export interface LearnerOptions {
  /** Probability that a self-score is the fair estimate (else an uninformed draw). Default 1. */
  judge: number;
  /** A checkpoint file written by `s3gym finetune --backend builtin`, or null (the untrained learner). */
  checkpoint: string | null;
}

/**
 * A text policy's `noise` option. `independent`: every call draws from its own identity's seed (run,
 * so model, game, pathway and run seed; checkpoint, episode, step), never from the evaluation's common
 * random numbers, so the policy's draws are independent across checkpoints and pathways, as a sampled
 * LLM's are: a null whose gains are noise around a true 0, not exactly 0 (docs/models.md).
 */
export const NOISE_MODES = ["independent"] as const;
export type NoiseMode = (typeof NOISE_MODES)[number];

export type BuiltinSpec = { scheme: "builtin"; policy: PolicyName; noise?: NoiseMode } | { scheme: "builtin"; policy: "learner"; learner: LearnerOptions };

export type ModelSpec = { scheme: "openai"; model: string } | BuiltinSpec;

const LEARNER_FORM = "learner[@<checkpoint file>][?judge=<number in 0..1>]";
const NOISE_FORM = `${TEXT_POLICY_NAMES.join("|")}[?noise=${NOISE_MODES.join("|")}]`;

/**
 * Parses a policy name with its options (`random`, `heuristic?noise=independent`): the policy and its
 * noise mode (absent without the option). Throws an Error naming the option and the fix; null when
 * the name before any `?` is no policy.
 */
export function parsePolicyName(name: string): { policy: PolicyName; noise?: NoiseMode; notice: string | null } | null {
  const q = name.indexOf("?");
  const resolved = resolvePolicyName(q >= 0 ? name.slice(0, q) : name);
  if (!resolved) return null;
  if (q < 0) return { policy: resolved.name, notice: resolved.notice };
  if (!(TEXT_POLICY_NAMES as readonly string[]).includes(resolved.name)) throw new Error(`'${name}': ${resolved.name} takes no options; only ${NOISE_FORM} does`);
  const parts = name.slice(q + 1).split("&");
  let noise: NoiseMode | undefined;
  for (const part of parts) {
    const [k, v, ...extra] = part.split("=");
    if (k !== "noise") throw new Error(`'${name}': unknown option '${k ?? ""}'; expected ${NOISE_FORM}`);
    if (extra.length > 0 || v === undefined || !(NOISE_MODES as readonly string[]).includes(v))
      throw new Error(`'${name}': noise must be ${NOISE_MODES.join(" or ")}, got '${v ?? ""}'; expected ${NOISE_FORM}`);
    if (noise !== undefined) throw new Error(`'${name}': noise is given twice; expected ${NOISE_FORM}`);
    noise = v as NoiseMode;
  }
  return { policy: resolved.name, ...(noise !== undefined ? { noise } : {}), notice: resolved.notice };
}

/**
 * A model scheme: the text before the first colon of a spec. It parses the rest (throwing an Error
 * that names the fix), prints a spec back, and says what it expects in the usage text.
 */
interface ModelScheme<S extends ModelSpec = ModelSpec> {
  name: S["scheme"];
  /** What a spec of this scheme looks like, for the errors that list the schemes. */
  expected: string;
  /** The spec from the text after `<name>:` (`spec`: the whole text, for errors). */
  parse: (rest: string, spec: string) => S;
  /** The spec's canonical text, `<name>:...`. */
  text: (spec: S) => string;
}

const openaiScheme: ModelScheme<Extract<ModelSpec, { scheme: "openai" }>> = {
  name: "openai",
  expected: "openai:<model> (e.g. openai:gpt-4o-mini)",
  parse: (rest, spec) => {
    if (rest.trim() === "" || rest !== rest.trim()) throw new Error(`model '${spec}': the model id after 'openai:' is empty or padded with spaces; ${EXPECTED}`);
    return { scheme: "openai", model: rest };
  },
  text: (spec) => `openai:${spec.model}`,
};

const builtinScheme: ModelScheme<BuiltinSpec> = {
  name: "builtin",
  expected: `builtin:${POLICY_NAMES.join("|")}|learner`,
  parse: (rest, spec) => {
    let learner: LearnerOptions | null;
    try {
      learner = parseLearnerName(rest);
    } catch (e) {
      throw new Error(`model 'builtin:${(e as Error).message.slice(1)}`);
    }
    if (learner) return { scheme: "builtin", policy: "learner", learner };
    let policy: ReturnType<typeof parsePolicyName>;
    try {
      policy = parsePolicyName(rest);
    } catch (e) {
      throw new Error(`model 'builtin:${(e as Error).message.slice(1)}`);
    }
    if (!policy) throw new Error(`model '${spec}': unknown built-in policy '${rest}'; expected builtin:${POLICY_NAMES.join("|")}|${LEARNER_FORM} or builtin:${NOISE_FORM}`);
    return { scheme: "builtin", policy: policy.policy, ...(policy.noise !== undefined ? { noise: policy.noise } : {}) };
  },
  text: (spec) => `builtin:${builtinName(spec)}`,
};

/** The model schemes: the one list `--models` accepts. A new scheme is one entry here (and its model in createModel.ts). */
// biome-ignore lint/suspicious/noExplicitAny: schemes of different spec types in one list; each scheme is typed where it is defined
const SCHEMES: readonly ModelScheme<any>[] = [openaiScheme, builtinScheme];

export const MODEL_SCHEMES: readonly ModelSpec["scheme"][] = SCHEMES.map((s) => s.name);

const EXPECTED = `expected ${SCHEMES.map((s) => s.expected).join(" or ")}`;

/**
 * Parses `learner`, `learner?judge=0.3`, `learner@<file>`, `learner@<file>?judge=0.3` (the text after
 * `builtin:`, or a served model name). Returns null when `name` is not a learner name at all; throws
 * an Error naming the option and the fix when it is one with bad options.
 */
export function parseLearnerName(name: string): LearnerOptions | null {
  if (name !== "learner" && !name.startsWith("learner?") && !name.startsWith("learner@")) return null;
  const q = name.lastIndexOf("?");
  const head = q >= 0 ? name.slice(0, q) : name;
  const query = q >= 0 ? name.slice(q + 1) : null;
  let checkpoint: string | null = null;
  if (head !== "learner") {
    checkpoint = head.slice("learner@".length);
    if (checkpoint.trim() === "") throw new Error(`'${name}': the checkpoint file after '@' is empty; expected ${LEARNER_FORM}`);
  }
  let judge = 1;
  if (query !== null) {
    for (const part of query.split("&")) {
      const [k, v, ...extra] = part.split("=");
      if (k !== "judge") throw new Error(`'${name}': unknown learner option '${k ?? ""}'; expected ${LEARNER_FORM}`);
      const x = Number(v);
      if (extra.length > 0 || v === undefined || v.trim() === "" || !Number.isFinite(x) || x < 0 || x > 1) {
        throw new Error(`'${name}': judge must be a number in 0..1, got '${v ?? ""}'; expected ${LEARNER_FORM}`);
      }
      judge = x;
    }
  }
  return { judge, checkpoint };
}

/** A built-in spec's name after `builtin:`, options included (`learner?judge=0.3`, `random?noise=independent`). */
export function builtinName(spec: BuiltinSpec): string {
  if (spec.policy === "learner") return learnerName((spec as Extract<BuiltinSpec, { policy: "learner" }>).learner);
  const noise = (spec as { noise?: NoiseMode }).noise;
  return noise !== undefined ? `${spec.policy}?noise=${noise}` : spec.policy;
}

/** The learner's name with its options in one canonical form (`learner@f?judge=0.3`; judge 1 left out). */
export function learnerName(o: LearnerOptions): string {
  return `learner${o.checkpoint !== null ? `@${o.checkpoint}` : ""}${o.judge !== 1 ? `?judge=${o.judge}` : ""}`;
}

/**
 * Parses a spec. Only the first colon separates the scheme, because model ids may contain colons
 * and slashes (`openai:qwen/qwen3-8b:free`). Throws an Error naming the valid schemes.
 */
export function parseModelSpec(spec: string): ModelSpec {
  const unprintable = identifierProblem(spec);
  if (unprintable) throw new Error(`model ${unprintable}`);
  const colon = spec.indexOf(":");
  if (colon < 0) throw new Error(`model '${spec}' has no scheme: ${EXPECTED}`);
  const name = spec.slice(0, colon);
  const scheme = SCHEMES.find((s) => s.name === name);
  if (!scheme) throw new Error(`model '${spec}': unknown scheme '${name}'; ${EXPECTED}`);
  return scheme.parse(spec.slice(colon + 1), spec);
}

/**
 * The notice to print for a model name that uses an old built-in name (`builtin:oracle`), else null.
 * The name itself stays what the user wrote (it is the run id's model part), so an old data directory
 * resumes under its old run ids.
 */
export function modelSpecNotice(name: string): string | null {
  if (!name.startsWith("builtin:")) return null;
  return resolvePolicyName(name.slice("builtin:".length))?.notice ?? null;
}

/** The spec's canonical text (`builtin:learner?judge=0.3`, `openai:<model>`). */
export function specText(spec: ModelSpec): string {
  return SCHEMES.find((s) => s.name === spec.scheme)!.text(spec);
}
