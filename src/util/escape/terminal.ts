/**
 * Text for a terminal line: every control character shown as a visible escape (`\x1b`, `\r`,
 * `\u202e`), so a label or a server's text cannot retitle, clear or overwrite the terminal. The rule
 * itself lives in src/util/outsideText.ts (escapeControl), which the run's streams already use; this
 * is its name among the escaping modules (one per output kind: terminal, xml, markdown, html, csv).
 */
import { escapeControl } from "../outsideText.js";

/** `text` for one terminal line: control characters (newlines included) made visible. */
export function terminalText(text: string): string {
  return escapeControl(text);
}
