/**
 * Text that came from outside the kit (an endpoint's error body, a model name a server lists, a
 * model's action echoed in feedback, a models-file alias) is data. Before it reaches a terminal it
 * goes through `escapeControl`: C0/C1 control characters (ESC starts the CSI and OSC sequences that
 * clear, retitle or rewrite a terminal; `\r` overwrites a line), DEL, the Unicode line separators and
 * the bidirectional overrides are shown as visible escapes instead of acting. One pass over the
 * string: linear in its length.
 */

/** Characters that act on a terminal or reorder what is shown. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point (they are escaped before text reaches a terminal)
const ACTIVE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point (they are escaped before text reaches a terminal)
const ACTIVE_OR_NEWLINE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

function visible(c: string): string {
  const code = c.charCodeAt(0);
  if (c === "\n") return "\\n";
  if (c === "\r") return "\\r";
  if (c === "\t") return "\\t";
  return code <= 0xff ? `\\x${code.toString(16).padStart(2, "0")}` : `\\u${code.toString(16).padStart(4, "0")}`;
}

/**
 * `text` with every control character made visible (`\x1b`, `\r`, `\u202e` ...). Newlines (and tabs)
 * are kept when `keepNewlines` is true (multi-line output such as a game screen), escaped otherwise.
 */
export function escapeControl(text: string, opts: { keepNewlines?: boolean } = {}): string {
  return text.replace(opts.keepNewlines ? ACTIVE : ACTIVE_OR_NEWLINE, visible);
}

/** At most `max` characters (an ellipsis and the full length when cut): error bodies can be megabytes. */
export function cut(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}... (${text.length} chars)`;
}

/**
 * Why `text` cannot be an identifier (a model name, an alias, a run id's part), or null: any
 * character escapeControl would have to escape. Identifiers end up in file names, run ids, SVG (where
 * a control character is not even valid XML) and terminal lines, so they are refused at the door
 * instead of escaped everywhere. The message shows the text escaped, never raw.
 */
export function identifierProblem(text: string): string | null {
  ACTIVE_OR_NEWLINE.lastIndex = 0;
  const m = ACTIVE_OR_NEWLINE.exec(text);
  ACTIVE_OR_NEWLINE.lastIndex = 0;
  if (!m) return null;
  return `'${escapeControl(text)}' holds a control or invisible character (${visible(m[0])} at position ${m.index + 1}); use printable characters only`;
}
