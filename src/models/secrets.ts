/**
 * The API keys in use, as the model layer sees them, so that no key reaches any output.
 *
 * createModel registers the value of every key variable a run reads; the registry and the one
 * redaction layer (`redactSecrets`: every form of a key, bearer tokens, provider-shaped keys, URL
 * credentials) live in src/util/secretText.ts, below the log writers that apply it to every line,
 * and are re-exported here for the model layer and the CLI.
 *
 * Key VALUES are validated before any call (`keyValueProblem`) and NAMES that look like keys are
 * refused (`looksLikeKey`), both without echoing what they saw.
 */

import { escapeControl } from "../util/outsideText.js";
import { redactSecrets } from "../util/secretText.js";

export { MIN_SECRET_LENGTH, registerSecret, clearSecrets, redactSecrets } from "../util/secretText.js";

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
