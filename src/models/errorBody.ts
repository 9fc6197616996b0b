/**
 * What the server said, from whatever shape its error body has (endpoints.md, "Errors say what the
 * server said"):
 *
 *   {"error": {"message": "...", "type": ..., "code": ...}}   OpenAI, SGLang, newer vLLM, OpenRouter
 *   {"error": "..."}                                          Ollama, some proxies
 *   {"object": "error", "message": "...", "code": 400}        older vLLM
 *   {"detail": "..."} / {"detail": [{"msg": "..."}]}          FastAPI validation errors
 *   [{"error": {...}}]                                        Gemini's compatible API wraps it in a list
 *   plain text or HTML                                        proxies, load balancers
 *
 * The result is cut to a sane length, its control characters escaped and every key redacted, so it
 * can go into an error message, a log line and a terminal as it is.
 */
import { escapeControl } from "../util/outsideText.js";
import { redactSecrets } from "./secrets.js";

/** Characters of a server's message kept in an error (the rest is elided with its length). */
export const ERROR_MESSAGE_CHARS = 300;

const isObject = (x: unknown): x is Record<string, unknown> => typeof x === "object" && x !== null && !Array.isArray(x);

/** The message inside a parsed error body, or null when it holds none. */
export function messageOfErrorJson(body: unknown): string | null {
  if (Array.isArray(body)) return body.length > 0 ? messageOfErrorJson(body[0]) : null;
  if (!isObject(body)) return typeof body === "string" && body.trim() !== "" ? body : null;
  const err = body.error;
  if (typeof err === "string" && err.trim() !== "") return err;
  if (isObject(err)) {
    const m = err.message;
    if (typeof m === "string" && m.trim() !== "") return m;
    if (m !== undefined && m !== null) return JSON.stringify(m);
    return JSON.stringify(err);
  }
  if (typeof body.message === "string" && body.message.trim() !== "") return body.message;
  const detail = body.detail;
  if (typeof detail === "string" && detail.trim() !== "") return detail;
  if (Array.isArray(detail)) {
    const msgs = detail.map((d) => (isObject(d) && typeof d.msg === "string" ? d.msg : null)).filter((m): m is string => m !== null);
    if (msgs.length > 0) return msgs.join("; ");
  }
  return null;
}

/** A printable, bounded, redacted message from a server's raw error body text. */
export function messageOfErrorBody(text: string): string {
  const trimmed = text.trim();
  if (trimmed === "") return "(empty body)";
  let message: string | null = null;
  if (trimmed.startsWith("{") || trimmed.startsWith("[")) {
    try {
      message = messageOfErrorJson(JSON.parse(trimmed));
    } catch {
      message = null;
    }
  }
  return safeServerText(message ?? trimmed);
}

/** Outside text made safe for an error line: redacted, one line, control characters escaped, cut to `max`. */
export function safeServerText(text: string, max = ERROR_MESSAGE_CHARS): string {
  // Bounded first (a megabyte body must not cost a megabyte of work per secret), with room past the
  // final cut so that a key straddling the window's end is still whole when it is redacted.
  const window = text.length > max * 4 + 256 ? text.slice(0, max * 4 + 256) : text;
  const one = escapeControl(redactSecrets(window).replace(/\s+/g, " ").trim());
  return one.length <= max && window.length === text.length ? one : `${one.slice(0, max)}... (${text.length} chars)`;
}
