/**
 * Text for HTML element content and attribute values (the notebooks' rich output): the five
 * specials entity-escaped and control characters shown as visible escapes (a NUL or ESC has no
 * business in a page, and some renderers drop or choke on them).
 */
import { escapeControl } from "../outsideText.js";

/** `text` for HTML content or a quoted attribute value. */
export function htmlText(text: string): string {
  return escapeControl(text, { keepNewlines: true }).replace(/[&<>"']/g, (c) => (c === "&" ? "&amp;" : c === "<" ? "&lt;" : c === ">" ? "&gt;" : c === '"' ? "&quot;" : "&#39;"));
}
