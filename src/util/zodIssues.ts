/**
 * The one formatting of zod validation issues, for every error that names a bad field: a path in the
 * form a user would type it (`models[2].sampling.temperature`), then zod's message. Values are never
 * echoed (zod's messages name the expected type, not the input), so a key pasted into the wrong field
 * cannot reach a terminal or a log through this.
 */
import type { z } from "zod";

/**
 * How an array index prints in a path: `dots` (`messages.0.role`, the records' style) or `brackets`
 * (`models[2].sampling`, for files a person edits, where it reads like the YAML/JSON they wrote).
 */
export type IndexStyle = "dots" | "brackets";

/** `messages.0.role` (or `models[2].sampling.temperature`) from an issue path; `(root)` for the document itself. */
export function issuePath(path: readonly PropertyKey[], style: IndexStyle = "dots"): string {
  const joined = path.reduce<string>((s, p) => {
    if (typeof p === "number" && style === "brackets") return `${s}[${p}]`;
    return s ? `${s}.${String(p)}` : String(p);
  }, "");
  return joined || "(root)";
}

/** The first issue as (field, message), the message noting how many more issues there were. */
export function firstIssue(error: z.ZodError): { field: string; detail: string } {
  const first = error.issues[0];
  if (first === undefined) return { field: "(root)", detail: "invalid" };
  const more = error.issues.length - 1;
  return { field: issuePath(first.path), detail: first.message + (more > 0 ? ` (and ${more} more issue${more > 1 ? "s" : ""})` : "") };
}

/** `field: message; field: message` for the issues (at most `max` of them, all by default). */
export function formatIssues(error: z.ZodError, opts: { max?: number; style?: IndexStyle } = {}): string {
  const shown = error.issues.slice(0, opts.max ?? Infinity).map((i) => `${issuePath(i.path, opts.style)}: ${i.message}`);
  const rest = error.issues.length - shown.length;
  return shown.join("; ") + (rest > 0 ? ` (and ${rest} more)` : "");
}
