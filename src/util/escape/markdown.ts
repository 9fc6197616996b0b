/**
 * Text for Markdown (report tables, their titles and notes). A label is data: it must not become a
 * table column (`|`), a line break, raw HTML (`<img onerror=...>` is kept by most Markdown renderers)
 * or a terminal escape when the file is shown with `cat`. Control characters are shown as visible
 * escapes; `<` that could open a tag or comment (`<a`, `</`, `<!`, `<?`) is written `&lt;` outside
 * code spans (inside one, Markdown shows it as it is, and `&lt;` would show literally); so
 * `p < 0.05`, `` `tables/<name>.md` `` and every number read exactly as before.
 */
import { escapeControl } from "../outsideText.js";

/** `text` for Markdown prose (a title, a note): printable, no raw HTML; newlines kept. */
export function markdownText(text: string): string {
  return (
    escapeControl(text, { keepNewlines: true })
      .replace(/\t/g, "\\t")
      // One backtick pair per span (linear: a failed scan for a closing backtick happens at most once).
      .replace(/`[^`]*`|<(?=[A-Za-z/!?])/g, (m) => (m.startsWith("`") ? m : "&lt;"))
  );
}

/** `text` for one Markdown table cell: markdownText on one line, `|` escaped. */
export function markdownCell(text: string): string {
  return markdownText(text.replace(/\r?\n/g, " ")).replace(/\|/g, "\\|");
}
