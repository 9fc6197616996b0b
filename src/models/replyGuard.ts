/**
 * What a remote model's reply may carry into the kit, applied right above
 * the HTTP adapter so that the cache, the logs and every later prompt see the same text:
 *
 *   - a key in the reply (a server echoing the Authorization header, a model repeating it) is
 *     redacted (util/secretText.ts), so a resumed run rebuilds the same prompts from its logs;
 *   - a body over the size cap (httpFetch.ts MAX_REPLY_BYTES) is not an infrastructure failure to
 *     retry (it would stream again) but the model's answer: an empty reply with finish reason
 *     `oversize`, which the step records as a parse error and the reply monitor counts as bad.
 */
import { MAX_REPLY_BYTES, ReplyTooLargeError } from "./httpFetch.js";
import { redactSecrets } from "./secrets.js";
import { countMessageTokens } from "./tokens.js";
import type { CompletionRequest, CompletionResult, Model } from "./types.js";

/** The finish reason recorded for a reply cut at the size cap. */
export const OVERSIZE = "oversize";

function isOversize(e: unknown): boolean {
  for (let cur: unknown = e, depth = 0; depth < 5 && cur instanceof Error; depth++, cur = (cur as { cause?: unknown }).cause) {
    if (cur instanceof ReplyTooLargeError || cur.name === "ReplyTooLargeError") return true;
  }
  return false;
}

export class ReplyGuard implements Model {
  readonly spec: string;
  readonly endpointHost: string;

  constructor(private readonly inner: Model) {
    this.spec = inner.spec;
    this.endpointHost = inner.endpointHost;
  }

  async complete(request: CompletionRequest): Promise<CompletionResult> {
    const started = performance.now();
    let res: CompletionResult;
    try {
      res = await this.inner.complete(request);
    } catch (e) {
      if (!isOversize(e)) throw e;
      return {
        text: "",
        reasoning: null,
        finishReason: OVERSIZE,
        // The prompt was sent and is paid for; what came back was not kept, so it counts nothing.
        usage: { tokensIn: countMessageTokens(request.messages), tokensOut: 0, tokensCached: null, countedBy: "o200k" },
        latencyMs: Math.round(performance.now() - started),
        cached: false,
        retries: 0,
      };
    }
    return { ...res, text: redactSecrets(res.text), reasoning: res.reasoning === null ? null : redactSecrets(res.reasoning) };
  }
}

export { MAX_REPLY_BYTES };
