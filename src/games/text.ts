/** Text helpers shared by the seven games (one place instead of seven copies). */

/**
 * Normalises an action string before a game parses it: tolerant of case (lower-cased), surrounding
 * whitespace, a trailing period, markdown emphasis and code marks, and inner runs of spaces; strict
 * about content (nothing else is removed or guessed).
 */
export function normalizeAction(raw: string): string {
  let s = raw.trim();
  // Strip wrapping markdown emphasis / code marks: **x**, *x*, __x__, _x_, `x`.
  for (let changed = true; changed; ) {
    changed = false;
    const m = /^(\*\*|__|\*|_|`)([\s\S]*)\1$/.exec(s);
    if (m && m[2] !== undefined && m[2].trim().length > 0) {
      s = m[2].trim();
      changed = true;
    }
  }
  s = s.replace(/\.$/, "").trim();
  return s.replace(/\s+/g, " ").toLowerCase();
}

/** Formats a number with at most `decimals` decimals and no trailing zeros (-0 prints as 0). */
export function formatNumber(x: number, decimals = 6): string {
  const r = Number(x.toFixed(decimals));
  return Object.is(r, -0) ? "0" : String(r);
}
