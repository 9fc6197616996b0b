/**
 * Preflight of one endpoint (endpoints.md, "Known before the first token"), before any step call:
 *
 *   1. GET /models: the model is served (a server without the route is noted, not refused); the
 *      key is accepted; the context length where the server lists it (vLLM's `max_model_len`).
 *   2. The context: the server's length must hold `--context-tokens` (the History budget already
 *      reserves `--max-new-tokens` inside it), scaled by how much more the server's tokenizer counts
 *      than the local one where the server can tell (vLLM/SGLang `POST /tokenize`).
 *   3. A one-token probe: the run's first real prompt with the run's sampling parameters and a
 *      1-token cap, so a refused parameter (`max_tokens` on OpenAI's reasoning models, `seed`,
 *      `top_p`) is found now, with the flag or models-file field that fixes it.
 *   4. Where the server states no window: the window probe (windowProbe.ts), one more call with a
 *      prompt of the run's largest size; a server that cuts it refuses the run (it would stop
 *      `server_truncated` after a few paid calls anyway). `--no-probe-window` skips it.
 *
 * Every refusal names the numbers and the fix. What the server says is made safe (errorBody.ts).
 */
import { terminalSafe } from "../secrets.js";
import { messageOfErrorBody, safeServerText } from "../errorBody.js";
import { httpFetch, ReplyTooLargeError } from "../httpFetch.js";
import { maxTokensFieldFor, OpenAIModel, requestBody, type MaxTokensParam } from "../openaiModel.js";
import { AttemptError } from "../retry.js";
import { countMessageTokens, type TokenizerName } from "../tokens.js";
import { probeWindow } from "./windowProbe.js";
import type { ChatMessage, SamplingParams } from "../types.js";

export interface PreflightTarget {
  /** The name the user wrote (spec or alias), for messages. */
  name: string;
  /** The model id sent to the API. */
  model: string;
  baseUrl: string;
  apiKey: string;
  /** The NAME of the key variable, for messages. */
  apiKeyEnv: string;
  /** True when the target comes from a models-file entry (the fixes then name its fields). */
  fromModelsFile: boolean;
  /** What a step call sends (the runner's parameters merged with the entry's, dropped ones removed). */
  sampling: SamplingParams;
  maxTokensParam: MaxTokensParam;
  contextTokens: number;
  maxNewTokens: number;
  tokenizer: TokenizerName;
  timeoutMs: number;
  /** The probe's messages: the run's first step prompt. */
  probe: ChatMessage[];
  /** Skip the probe (it passed before with these exact parameters; see the preflight cache). */
  probeKnownGood?: boolean;
  /** Probe the window of a server that states none (default true; `--no-probe-window`: false). */
  probeWindow?: boolean;
  /** A window probe of this many local tokens passed before with these parameters (preflight cache). */
  windowKnownGood?: number;
}

export interface PreflightReport {
  name: string;
  host: string;
  /** Refusals: the run must not start. */
  problems: string[];
  /** What was checked and found (printed as one line). */
  notes: string[];
  /** The context length the server lists, or null. */
  maxModelLen: number | null;
  /** Server tokens per local token on the probe prompt (POST /tokenize), or null when the server cannot count. */
  tokenRatio: number | null;
  /** True when the probe call was answered (or known good). */
  probeOk: boolean;
  /** The prompt size (local tokens) a window probe was built for and the server counted whole (or that passed before), else null. */
  windowOk: number | null;
}

const isObject = (x: unknown): x is Record<string, unknown> => typeof x === "object" && x !== null && !Array.isArray(x);

/** The sampling parameters a preflight refusal can name, and where each is fixed. */
export function fixFor(param: string, t: Pick<PreflightTarget, "fromModelsFile" | "name" | "maxTokensParam">): string {
  const entry = t.fromModelsFile ? ` (models file entry '${t.name}': ` : " (in a models file: ";
  if (param === "max_tokens") return `send the cap as max_completion_tokens: --max-tokens-param max_completion_tokens${entry}max_tokens_param: max_completion_tokens)`;
  if (param === "max_completion_tokens") return `send the cap as max_tokens: --max-tokens-param max_tokens${entry}max_tokens_param: max_tokens)`;
  if (param === "seed" || param === "top_p" || param === "temperature") return `drop it: --drop-params ${param}${entry}drop_params: [${param}], or remove sampling.${param})`;
  return `remove '${param}' from sampling.extra_body${t.fromModelsFile ? ` of models file entry '${t.name}'` : ""}`;
}

/**
 * The request parameter a 4xx message complains about: of the parameters sent, the one the message
 * names first ("Unsupported parameter: 'max_tokens' ... Use 'max_completion_tokens' instead" names
 * max_tokens), or null.
 */
export function refusedParam(message: string, sent: readonly string[]): string | null {
  let best: { param: string; at: number } | null = null;
  for (const p of sent) {
    const m = new RegExp(`(?:^|[^A-Za-z0-9_])${p.replace(/[^A-Za-z0-9_]/g, "\\$&")}(?:$|[^A-Za-z0-9_])`).exec(message);
    if (m && (best === null || m.index < best.at)) best = { param: p, at: m.index };
  }
  return best?.param ?? null;
}

/** The server's root (vLLM and SGLang serve /tokenize beside /v1, not under it). */
function rootOf(baseUrl: string): string {
  const u = new URL(baseUrl);
  u.pathname = u.pathname.replace(/\/+$/, "").replace(/\/v1$/, "") || "/";
  return u.toString().replace(/\/+$/, "");
}

async function getJson(url: string, apiKey: string, timeoutMs: number, body?: unknown): Promise<{ status: number; json: unknown; text: string } | { error: string }> {
  const signal = AbortSignal.timeout(Math.min(timeoutMs, 30_000));
  try {
    const res = await httpFetch(url, {
      method: body === undefined ? "GET" : "POST",
      headers: { authorization: `Bearer ${apiKey}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      signal,
    });
    const text = (await res.text()).slice(0, 1 << 20);
    let json: unknown = null;
    try {
      json = JSON.parse(text);
    } catch {
      json = null;
    }
    return { status: res.status, json, text };
  } catch (e) {
    const code = (e as { code?: unknown; cause?: { code?: unknown } }).code ?? (e as { cause?: { code?: unknown } }).cause?.code;
    return { error: signal.aborted ? "timed out" : typeof code === "string" ? code : safeServerText((e as Error).message, 120) };
  }
}

/** Checks one endpoint; never throws for what the server does (a bug in the kit still throws). */
export async function preflightEndpoint(t: PreflightTarget): Promise<PreflightReport> {
  const host = new URL(t.baseUrl).host;
  const report: PreflightReport = { name: t.name, host, problems: [], notes: [], maxModelLen: null, tokenRatio: null, probeOk: false, windowOk: null };
  const at = `model '${t.name}' at ${host}`;
  const base = t.baseUrl.replace(/\/+$/, "");

  // 1. The model list.
  const models = await getJson(`${base}/models`, t.apiKey, t.timeoutMs);
  if ("error" in models) {
    report.problems.push(`${at}: cannot reach ${base}/models (${models.error}); is the server up and --base-url right?`);
    return report;
  }
  if (models.status === 401 || models.status === 403) {
    report.problems.push(`${at}: the endpoint refused the key in ${t.apiKeyEnv} (HTTP ${models.status}: ${messageOfErrorBody(models.text)}); set ${t.apiKeyEnv} to a valid key`);
    return report;
  }
  if (models.status === 200 && isObject(models.json) && Array.isArray(models.json.data)) {
    const listed = models.json.data.filter(isObject);
    const mine = listed.find((m) => m.id === t.model);
    if (!mine) {
      const ids = listed.map((m) => (typeof m.id === "string" ? safeServerText(m.id, 80) : "?"));
      const shown = ids.slice(0, 8).join(", ") + (ids.length > 8 ? `, ... (${ids.length} in all)` : "");
      report.problems.push(`${at}: the server does not list '${safeServerText(t.model, 120)}'; it serves: ${shown || "(nothing)"}`);
      return report;
    }
    report.notes.push("listed");
    const len = mine.max_model_len;
    if (typeof len === "number" && Number.isInteger(len) && len > 0) report.maxModelLen = len;
  } else {
    report.notes.push(`not checked against /models (HTTP ${models.status})`);
  }

  // 2. The server's tokenizer, then the context.
  const tok = await getJson(`${rootOf(t.baseUrl)}/tokenize`, t.apiKey, t.timeoutMs, { model: t.model, messages: t.probe });
  if (!("error" in tok) && tok.status === 200 && isObject(tok.json) && typeof tok.json.count === "number" && tok.json.count > 0) {
    const local = countMessageTokens(t.probe, t.tokenizer);
    report.tokenRatio = tok.json.count / local;
    if (report.maxModelLen === null && typeof tok.json.max_model_len === "number") report.maxModelLen = tok.json.max_model_len;
    report.notes.push(`/tokenize: the server counts ${report.tokenRatio.toFixed(2)}x ${t.tokenizer} on the first prompt`);
  }
  if (report.maxModelLen !== null) {
    const ratio = Math.max(1, report.tokenRatio ?? 1);
    const need = Math.ceil(t.contextTokens * ratio);
    if (need > report.maxModelLen) {
      const scaled = ratio > 1 ? ` (${t.contextTokens} ${t.tokenizer} tokens are about ${need} of the server's)` : "";
      const fit = Math.floor(report.maxModelLen / ratio);
      report.problems.push(
        `${at}: the server's context is ${report.maxModelLen} tokens (max_model_len) but --context-tokens ${t.contextTokens}${scaled} needs ${need}, the reply reserve (--max-new-tokens ${t.maxNewTokens}) included; ` +
          `fix: --context-tokens ${fit} with --max-new-tokens below it, or restart the server with a longer context (vLLM: --max-model-len ${need})`,
      );
    } else report.notes.push(`context ${need} <= max_model_len ${report.maxModelLen}`);
  }

  // 3. The probe (not paid for when the run cannot start anyway).
  if (report.problems.length > 0) return report;
  const model = new OpenAIModel({ spec: t.name, model: t.model, baseUrl: t.baseUrl, apiKey: t.apiKey, timeoutMs: t.timeoutMs, maxTokensParam: t.maxTokensParam, tokenizer: t.tokenizer });
  if (t.probeKnownGood) {
    report.probeOk = true;
    report.notes.push("probe passed before with these parameters");
  } else await oneTokenProbe(t, model, report, at);
  // 4. The window, where the server does not state it (only once the parameters are known good).
  if (report.probeOk && report.maxModelLen === null) await checkWindow(t, model, report, at);
  return report;
}

/**
 * Step 4: the window of a server that states none. Said plainly in every case: checked,
 * cut (a refusal naming the likely cause and the fix), or not checked and why.
 */
async function checkWindow(t: PreflightTarget, model: OpenAIModel, report: PreflightReport, at: string): Promise<void> {
  const target = t.contextTokens - t.maxNewTokens;
  const caught = "a silent cut of long prompts is caught per call as server_truncated";
  if (t.probeWindow === false) {
    report.notes.push(`context NOT checked: the server states no window and --no-probe-window skips the window probe (${caught})`);
    return;
  }
  if (t.windowKnownGood !== undefined && t.windowKnownGood >= target) {
    report.windowOk = t.windowKnownGood;
    report.notes.push(`window probe passed before at ${t.windowKnownGood} tokens`);
    return;
  }
  let f: Awaited<ReturnType<typeof probeWindow>>;
  try {
    f = await probeWindow(model, { probe: t.probe, target, tokenizer: t.tokenizer, sampling: t.sampling });
  } catch (e) {
    if (!(e instanceof ReplyTooLargeError)) throw e;
    report.problems.push(oversized(at, "window probe", e));
    return;
  }
  const sent = `a prompt of ${f.sent} ${t.tokenizer} tokens, the run's largest (--context-tokens ${t.contextTokens} minus --max-new-tokens ${t.maxNewTokens})`;
  if (f.kind === "fits") {
    // The size asked for, not the one built (filler lands within a few tokens of it): a rerun asking no more is known good.
    report.windowOk = target;
    report.notes.push(`window probe (one more call): ${f.sent} tokens sent, ${f.counted} counted by the server, not cut`);
  } else if (f.kind === "cut") {
    report.problems.push(
      `${at}: the server cut the window probe: ${sent} was counted as ${f.counted} prompt tokens, so it silently truncates long prompts (likely Ollama's num_ctx: ` +
        `start the server with OLLAMA_CONTEXT_LENGTH=${t.contextTokens}, or set PARAMETER num_ctx ${t.contextTokens} in a Modelfile), or lower --context-tokens to about ${f.counted}; ` +
        `--no-probe-window skips this check`,
    );
  } else if (f.kind === "refused") {
    report.problems.push(`${at}: the server refused the window probe, ${sent} (${f.message}); lower --context-tokens, or restart the server with a longer context`);
  } else {
    report.notes.push(`context NOT checked: the server states no window and the window probe (one call) could not tell: ${f.why} (${caught})`);
  }
}

/** A probe whose reply went past the reply size cap: named with the model and host (it used to surface bare). */
function oversized(at: string, probe: string, e: ReplyTooLargeError): string {
  return `${at}: the ${probe}'s reply went past ${e.limitBytes} bytes (the reply size cap) and was not read further: this endpoint does not answer like an OpenAI-compatible server; check --base-url and the server`;
}

/** Step 3: the run's first prompt with its sampling parameters and a 1-token cap; sets probeOk or a problem. */
async function oneTokenProbe(t: PreflightTarget, model: OpenAIModel, report: PreflightReport, at: string): Promise<void> {
  const sampling = { ...t.sampling, max_tokens: 1 };
  const identity = { runId: "preflight", purpose: "step" as const, phase: null, checkpoint: null, episode: null, step: null, sample: 0 };
  let last: AttemptError | null = null;
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      await model.complete({ messages: t.probe, sampling, identity });
      report.probeOk = true;
      report.notes.push("one-token probe answered");
      return;
    } catch (e) {
      if (e instanceof ReplyTooLargeError) {
        report.problems.push(oversized(at, "one-token probe", e));
        return;
      }
      if (!(e instanceof AttemptError)) throw e;
      last = e;
      if (!e.retryable) break;
      await new Promise((r) => setTimeout(r, 200 * (attempt + 1)));
    }
  }
  const err = last!;
  if (err.kind === "http_4xx") {
    // The parameters the probe actually sent (the message may also name ones it did not, as a fix).
    const body = requestBody(t.model, { messages: t.probe, sampling, identity }, maxTokensFieldFor(t.baseUrl, t.maxTokensParam));
    const sent = Object.keys(body).filter((k) => k !== "model" && k !== "messages");
    const param = refusedParam(err.message, sent);
    const fix = param ? `; ${fixFor(param, t)}` : "";
    report.problems.push(`${at}: the probe with the run's sampling parameters was refused (${err.message})${fix}`);
  } else {
    report.problems.push(`${at}: the one-token probe failed (${err.kind}: ${err.message})`);
  }
}

/** One line per endpoint, for stderr. */
export function formatPreflight(r: PreflightReport): string {
  // A base URL may carry credentials (`user:PASS@`, `?api-key=`) and a server's text escapes: redacted and escaped here.
  return terminalSafe(r.problems.length > 0 ? r.problems.join("\n") : `preflight ${r.name} @ ${r.host}: ok (${r.notes.join("; ")})`);
}
