/**
 * Text for SVG and any other XML output. XML 1.0 cannot carry most C0 control characters at all
 * (not even as `&#27;`), so a model name holding ESC or NUL used to make the SVG -> PNG step fail
 * and the whole report with it. Every control or invisible character is shown as a visible escape
 * (escapeControl: `\x1b`), and the five XML specials are entity-escaped where this module writes
 * markup itself. Figures go through `xmlSafeValues`: every string of a Vega-Lite spec (data values,
 * titles, labels) is made printable before vega draws it, and vega escapes the specials.
 */
import { escapeControl } from "../outsideText.js";

/** `text` as XML character data or an attribute value: printable, with & < > " ' escaped. */
export function xmlText(text: string): string {
  return escapeControl(text).replace(/[&<>"']/g, (c) => (c === "&" ? "&amp;" : c === "<" ? "&lt;" : c === ">" ? "&gt;" : c === '"' ? "&quot;" : "&apos;"));
}

/**
 * A deep copy of `value` whose every string (keys kept) has its control characters made visible:
 * what a renderer that escapes only the XML specials needs before it writes text into SVG. Values
 * without any such character come back as the same objects, so the common case copies nothing.
 */
export function xmlSafeValues<T>(value: T): T {
  return clean(value) as T;
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point (XML 1.0 forbids them; they are escaped)
const ACTIVE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

function clean(v: unknown): unknown {
  if (typeof v === "string") return ACTIVE.test(v) ? escapeControl(v) : v;
  if (Array.isArray(v)) {
    let out: unknown[] | null = null;
    for (let i = 0; i < v.length; i++) {
      const c = clean(v[i]);
      if (c !== v[i]) (out ??= v.slice())[i] = c;
    }
    return out ?? v;
  }
  if (v !== null && typeof v === "object" && Object.getPrototypeOf(v) === Object.prototype) {
    let out: Record<string, unknown> | null = null;
    for (const [k, x] of Object.entries(v)) {
      const c = clean(x);
      if (c !== x) (out ??= { ...(v as Record<string, unknown>) })[k] = c;
    }
    return out ?? v;
  }
  return v;
}
