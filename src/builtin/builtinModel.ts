/**
 * `builtin:random|heuristic|perfect-judge|ceiling`: offline models that answer the same chat messages a real model
 * gets. Step prompts are answered by the game's text policy from the messages alone (the game is
 * recognised from the rules title); summary prompts by the deterministic summary. `perfect-judge`
 * and `ceiling` are privileged instruments, in-process only: they need the live state the runner
 * passes in `privileged` (games/policies.ts). `random?noise=independent` and
 * `heuristic?noise=independent` are the stochastic nulls: in process they draw from the call's own
 * identity, never from the evaluation's common random numbers (models/modelSpec.ts NoiseMode).
 */
import { builtinSummary, isSummaryRequest } from "../agent/summaryPrompt.js";
import { builtinRoleAnswer, isRoleRequest } from "../agent/builtinRoles.js";
import { builtinJudgeAnswer, isJudgeRequest } from "../agent/judgePrompt.js";
import { messagesToPolicyContext } from "../agent/stepPrompt.js";
import { ceilingDecision, isPrivilegedPolicy, noisyTextPolicyDecision, perfectJudgeDecision, textPolicyDecision, type PolicyName, type TextPolicyName } from "../games/policies.js";
import { getGame } from "../games/registry.js";
import { parseRulesTitle } from "../games/responseContract.js";
import { callSeed } from "../models/callSeed.js";
import type { ChatMessage, CompletionRequest, CompletionResult, Model } from "../models/types.js";
import { builtinName, type BuiltinSpec, type NoiseMode } from "../models/modelSpec.js";
import { LearnerModel } from "./learner/model.js";

/** The reply a built-in policy gives: a one-line rationale, then the contract's two lines. */
export function formatPolicyReply(policy: string, action: string, selfScore: number): string {
  return `(${policy} policy)\nAnswer: ${action}\nScore: ${selfScore}`;
}

/**
 * Answers chat messages with a text policy. Returns null when the messages are neither a step
 * prompt for a known game nor a summary prompt (the server turns that into an HTTP 400).
 */
export function answerWithTextPolicy(messages: readonly ChatMessage[], policy: TextPolicyName, seed?: number, noise?: NoiseMode): string | null {
  if (isSummaryRequest(messages)) return builtinSummary(messages);
  // The verified pathway's curriculum and verifier prompts (same answer in process and over HTTP).
  if (isRoleRequest(messages)) return builtinRoleAnswer(messages);
  // An external judge's prompt (docs/judging.md): the constant judge.
  if (isJudgeRequest(messages)) return builtinJudgeAnswer();
  const ctx = messagesToPolicyContext(messages);
  if (!ctx) return null;
  const title = parseRulesTitle(ctx.rules);
  if (!title) return null;
  const game = getGame(title.game);
  const d = noise === "independent" && seed !== undefined ? noisyTextPolicyDecision(game, policy, ctx, seed) : textPolicyDecision(game, policy, ctx, seed);
  return formatPolicyReply(policy, d.action, d.selfScore);
}

/** The innermost model of a `builtin:` spec: a policy model, or the learner with its options. */
export function makeBuiltinModel(spec: BuiltinSpec): Model {
  if (spec.policy === "learner") return new LearnerModel((spec as Extract<BuiltinSpec, { policy: "learner" }>).learner);
  const noise = (spec as { noise?: NoiseMode }).noise;
  return new BuiltinModel(spec.policy, noise);
}

export class BuiltinModel implements Model {
  readonly endpointHost = "builtin";
  readonly spec: string;
  /** A policy's reply is a function of the messages, the request's seed and the live state; independent noise draws from the call's identity instead. */
  readonly deterministic: boolean;

  constructor(
    readonly policy: PolicyName,
    /** `independent`: draws from the call's identity at every call (a text policy only). */
    readonly noise?: NoiseMode,
  ) {
    if (noise !== undefined && isPrivilegedPolicy(policy)) throw new Error(`builtin:${policy} takes no noise option`);
    this.spec = `builtin:${builtinName({ scheme: "builtin", policy, ...(noise !== undefined ? { noise } : {}) })}`;
    this.deterministic = noise === undefined;
  }

  async complete(request: CompletionRequest): Promise<CompletionResult> {
    // A built-in answer is synchronous work; without a macrotask turn per call a whole offline matrix
    // runs on microtasks alone and starves timers (the progress lines) and pending I/O.
    await new Promise<void>((resolve) => setImmediate(resolve));
    let text: string | null;
    // The request's seed (the runner sends one from the call identity), else the identity itself
    // (a models file can turn sending off): the same draws as `s3gym serve` given that seed.
    // Under independent noise, the identity alone: an evaluation request's seed is the same at every
    // checkpoint and pathway (common random numbers), which is what this option exists to undo.
    const seed = this.noise === "independent" ? callSeed(request.identity) : (request.sampling.seed ?? callSeed(request.identity));
    if (isPrivilegedPolicy(this.policy) && !isSummaryRequest(request.messages) && !isRoleRequest(request.messages) && !isJudgeRequest(request.messages)) {
      const ctx = messagesToPolicyContext(request.messages);
      if (!ctx || !request.privileged) throw new Error(`${this.spec} needs the live game state (in-process runs only)`);
      const decide = this.policy === "ceiling" ? ceilingDecision : perfectJudgeDecision;
      const d = decide(request.privileged.game, request.privileged.state, ctx, seed);
      text = formatPolicyReply(this.policy, d.action, d.selfScore);
    } else {
      // Summaries and roles: the privileged policies answer like the heuristic (they have no memory of their own).
      text = answerWithTextPolicy(request.messages, isPrivilegedPolicy(this.policy) ? "heuristic" : (this.policy as TextPolicyName), seed, this.noise);
    }
    if (text === null) throw new Error(`${this.spec} cannot answer this prompt: it is neither an S3Gym step prompt nor a summary prompt`);
    return { text, reasoning: null, finishReason: "stop", usage: { tokensIn: 0, tokensOut: 0, tokensCached: null }, latencyMs: 0, cached: false, retries: 0 };
  }
}
