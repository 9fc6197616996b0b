/** `builtin:learner[@ckpt][?judge=x]` as a Model: answers from the messages and the call's seed only. */
import { callSeed } from "../../models/callSeed.js";
import { learnerName, type LearnerOptions } from "../../models/modelSpec.js";
import type { CompletionRequest, CompletionResult, Model } from "../../models/types.js";
import { loadCheckpoint } from "./checkpoint.js";
import { answerLearner } from "./learner.js";

export class LearnerModel implements Model {
  readonly endpointHost = "builtin";
  readonly spec: string;
  /** Its reply is a function of the messages, the request's seed and its phase (learner.md). */
  readonly deterministic = true;

  constructor(readonly options: LearnerOptions) {
    this.spec = `builtin:${learnerName(options)}`;
    // A missing or malformed checkpoint is a configuration error: surface it before any call.
    if (options.checkpoint !== null) loadCheckpoint(options.checkpoint);
  }

  async complete(request: CompletionRequest): Promise<CompletionResult> {
    // A macrotask turn per call, like the other built-ins (timers and I/O keep running).
    await new Promise<void>((resolve) => setImmediate(resolve));
    // The request's seed (the runner sends one derived from the call identity), else the identity's.
    const seed = request.sampling.seed ?? callSeed(request.identity);
    // The episode's role (explore or eval; an id or replay view episode is eval) decides whether it
    // explores; calls outside an episode (summary, verified roles) carry none.
    const role = request.identity.phase ?? undefined;
    const text = answerLearner(request.messages, this.options, seed, role);
    if (text === null) throw new Error(`${this.spec} cannot answer this prompt: it is neither an S3Gym step prompt nor a summary prompt`);
    return { text, reasoning: null, finishReason: "stop", usage: { tokensIn: 0, tokensOut: 0, tokensCached: null }, latencyMs: 0, cached: false, retries: 0 };
  }
}
