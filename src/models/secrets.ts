/**
 * The API keys in use, and the one place that removes them from text (issue: no key in any output).
 *
 * createModel registers the value of every key variable a run reads; `redactSecrets` replaces each
 * registered value (and anything shaped like a bearer token or a well-known provider key) in an error
 * message or a log line. Values shorter than MIN_SECRET_LENGTH are not treated as secrets: local
 * servers take placeholders such as `EMPTY`, and blanking every "EMPTY" or "x" would mangle text
 * without protecting anything.
 *
 * Key VALUES are validated before any call (`keyValueProblem`) and NAMES that look like keys are
 * refused (`looksLikeKey`), both without echoing what they saw.
 */

import { escapeControl } from "../util/outsideText.js";

// The registry and the redaction itself live in util (the log writers, below models, use them too).
export { MIN_SECRET_LENGTH, registerSecret, clearSecrets, redactSecrets, redactDeep } from "../util/secretText.js";
import { redactSecrets } from "../util/secretText.js";

/**
 * True when a string given as a variable NAME looks like a key pasted in its place: a provider key
 * prefix, or a long mixed run of letters and digits no one names a variable with.
 */
export function looksLikeKey(name: string): boolean {
  if (/^(?:sk-|sk_|gsk_|hf_|AIza|xai-|gh[pousr]_|github_pat_|nvapi-|r8_|sk-or-|pk-|key-)/.test(name)) return true;
  // Variable names are words joined by underscores; 20+ characters without one, with digits, are not.
  return name.length >= 20 && !name.includes("_") && /\d/.test(name);
}

/**
 * Why a key value cannot be sent as an HTTP header, or null. Never includes the value: only the
 * kind of character and its position (a pasted newline is the usual cause).
 */
export function keyValueProblem(value: string): string | null {
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (c > 0x20 && c < 0x7f) continue;
    const what = c === 0x0a ? "a newline" : c === 0x0d ? "a carriage return" : c === 0x20 ? "a space" : c === 0x09 ? "a tab" : c < 0x20 || c === 0x7f ? "a control character" : "a non-ASCII character";
    return `contains ${what} at position ${i + 1} of ${value.length} (a key is sent as an HTTP header: printable ASCII only; the value is not shown)`;
  }
  return null;
}

/** Text about to be printed: keys redacted, control characters escaped (newlines and tabs kept). */
export function terminalSafe(text: string): string {
  return escapeControl(redactSecrets(text), { keepNewlines: true });
}
